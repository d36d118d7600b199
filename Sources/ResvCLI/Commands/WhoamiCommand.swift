import ArgumentParser
import Foundation
import ReservationCore
import ReservationHTTP

struct WhoamiCommand: ResvCommand, PrintsData {
    static let configuration = CommandConfiguration(
        commandName: "whoami",
        abstract: "Show the server user the token belongs to, the server's origin and the token's scope.",
        discussion: "Asks the server (GET /whoami). A JSON file store has no users: exit 64."
            + "\n\nExamples:\n  resv whoami\n  resv --profile work whoami --json")

    @OptionGroup var options: CommonOptions

    func run(in context: CommandContext) async throws {
        let settings = try context.settings(options.backend)
        guard let server = settings.chosenServer else { throw CLIError.noServerUser }
        let (configuration, transport) = try context.httpBackend(server, settings, options.backend)
        let (user, scope) = try await configuration.identity(transport: transport)
        // Whose the token is, written down beside the outbox: a new token of the user sends what an old one queued.
        _ = try? await context.outbox(configuration.baseURL, token: configuration.token).belonging(to: user)
        let origin = ServerOrigin(configuration.baseURL)?.description ?? configuration.baseURL.redacted
        let renderer = Renderer(options.output, context: context)
        let identity = Identity(user: user, server: origin, scope: scope)
        context.output.write(
            renderer.single(identity) {
                "\(user.terminalSafe) at \(origin)" + (scope.map { " (scope \($0.terminalSafe))" } ?? "") + "\n"
            })
    }

    /// The stable `--json` shape: `{"user": NAME, "server": ORIGIN, "scope": SCOPE}` (no scope from a
    /// server older than scopes).
    struct Identity: JSONOutput {
        var user: String
        var server: String
        var scope: String?
        var json: JSONValue {
            var fields: [String: JSONValue] = ["user": .string(user), "server": .string(server)]
            if let scope { fields["scope"] = .string(scope) }
            return .object(fields)
        }
    }
}
