import ArgumentParser
import Foundation
import ReservationCore

struct WhoamiCommand: ResvCommand, PrintsData {
    static let configuration = CommandConfiguration(
        commandName: "whoami",
        abstract: "Show the server user the token belongs to.",
        discussion: "Asks the server (GET /whoami). A JSON file store has no users: exit 64."
            + "\n\nExamples:\n  resv whoami\n  resv --profile work whoami --json")

    @OptionGroup var options: CommonOptions

    func run(in context: CommandContext) async throws {
        let settings = try context.settings(options.backend)
        guard let server = settings.chosenServer else { throw CLIError.noServerUser }
        let (configuration, transport) = try context.httpBackend(server, settings, options.backend)
        let user = try await configuration.whoami(transport: transport)
        let renderer = Renderer(options.output, context: context)
        context.output.write(renderer.single(Identity(user: user)) { user.terminalSafe + "\n" })
    }

    /// The stable `--json` shape: `{"user": NAME}`.
    struct Identity: JSONOutput {
        var user: String
        var json: JSONValue { .object(["user": .string(user)]) }
    }
}
