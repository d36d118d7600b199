import ArgumentParser
import Foundation
import ReservationCore
import ReservationHTTP

/// Where `login` and `logout` find the server and the config file.
struct LoginOptions: ParsableArguments {
    @Argument(
        help: ArgumentHelp(
            "The server's URL (default: --server, else $RESV_SERVER, else the config file's server).",
            valueName: "server"))
    var target: String?

    @Option(help: ArgumentHelp("The server, as the argument names it.", valueName: "url"))
    var server: String?

    /// `--profile` (whose server is meant when none is named) and `--config`.
    @OptionGroup var file: ConfigCommand.FileOptions

    func validate() throws {
        if let target, !target.isEmpty, let server, !server.isEmpty, target != server {
            throw ValidationError("the server is named twice (\(URL.redacting(target)) and --server): give one")
        }
    }

    /// The server meant, its URL and origin, and the settings around it.
    func resolve(_ command: String, _ context: CommandContext, cacert: String? = nil) throws(CLIError) -> (
        url: URL, origin: ServerOrigin, settings: Settings
    ) {
        let named = [target, server].compactMap { $0 }.first { !$0.isEmpty }
        let settings = try context.settings(
            store: nil, server: named, profile: file.profile, config: file.config, cacert: cacert)
        guard let setting = settings.server else { throw .noServerToLogIn(command) }
        guard let url = SettingValue.serverURL(setting.value), let origin = ServerOrigin(url) else {
            let name = [.environment: "RESV_SERVER", .flag: "server"][setting.source] ?? "server"
            throw .invalidSetting(name, URL.redacting(setting.value), SettingValue.serverURLRule)
        }
        return (url, origin, settings)
    }
}

/// `resv login [SERVER]`: a token checked with the server and kept for its origin only.
struct LoginCommand: ResvCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Check a token with a server and keep it for that server only.",
        discussion: """
            Reads the token without echo from a terminal, else the first line of stdin (never from the command \
            line, where ps and shell history would keep it); checks it with the server (GET /whoami); and keeps \
            it in the config file under the server's origin (scheme, host and port), readable by you only. A \
            token goes only to the origin it was kept for: --server naming another server sends none (exit 77, \
            'not logged in'). Over http:// a token goes only to this machine (127.0.0.1, ::1, localhost); \
            elsewhere use https://, with --cacert FILE for a server whose certificate a private CA signed (kept \
            with the token). When the config file names no server yet, this one becomes its server.

            Examples:
              resv login https://resv.example.com
              resv-server token create ada | resv login http://127.0.0.1:8080
              resv login https://resv.internal:8443 --cacert ~/team-ca.pem
            """)

    @OptionGroup var login: LoginOptions

    @Option(
        help: ArgumentHelp(
            "CA certificates (PEM) to verify the server with, kept with the token (default: the system's).",
            valueName: "file"),
        completion: .file(extensions: ["pem", "crt"]))
    var cacert: String?

    func run(in context: CommandContext) async throws {
        let (url, origin, settings) = try login.resolve("log in to", context, cacert: cacert)
        // Before the token is asked for: it would not be sent.
        guard origin.keepsSecretsOffTheWire else { throw CLIError.tokenInClear(origin.description) }
        let caFile = try settings.cacert.map { setting throws(CLIError) in try CommandContext.readableCAFile(setting) }
        let token = try readToken(for: origin, context)
        var configuration = HTTPBackendConfiguration(baseURL: url, token: token, now: context.now)
        configuration.commandTimeout = try settings.seconds(settings.requestTimeout, .requestTimeout)
        let transport = HTTPTransport.libcurl(
            connectTimeout: try settings.seconds(settings.connectTimeout, .connectTimeout),
            requestTimeout: try settings.seconds(settings.requestTimeout, .requestTimeout), caFile: caFile)
        let (user, scope) = try await configuration.identity(transport: transport)
        // Whose the token is, written down beside the outbox: a new token of the user sends what an old one queued.
        _ = try? await context.outbox(configuration.baseURL, token: configuration.token).belonging(to: user)
        let keptCA = cacert.flatMap { $0.isEmpty ? nil : caFile }
        let profile = settings.profile.value == ConfigFile.defaultProfile ? nil : settings.profile.value
        let madeServer = try await ConfigCommand.update(login.file.config, context) { file in
            file.setServer(origin, "token", token)
            if let keptCA { file.setServer(origin, "cacert", keptCA) }
            guard file.string(.server, profile: profile) == nil, file.string(.server) == nil else { return false }
            file.set(.server, URL.redacting(url.absoluteString), profile: profile)
            return true
        }
        let scoped = scope.map { " (scope \($0.terminalSafe))" } ?? ""
        context.say("logged in to \(origin) as \(user.terminalSafe)\(scoped)")
        if madeServer {
            let owner = profile.map { "profile \($0)'s" } ?? "the config file's"
            context.say("\(origin) is now \(owner) server ('resv config unset server' undoes it)")
        }
        if settings.token?.source == .environment {
            context.say("resv: note: RESV_TOKEN is set for \(origin) and is used before the token kept here")
        }
    }

    /// The token, typed unseen on a terminal or read from the first line of stdin.
    private func readToken(for origin: ServerOrigin, _ context: CommandContext) throws(CLIError) -> String {
        let terminal = context.input.isTerminal
        if terminal { context.messages.write("Token for \(origin): ") }
        let typed = context.input.readSecretLine()
        if terminal { context.messages.write("\n") }
        let token = typed?.trimmingCharacters(in: .whitespaces) ?? ""
        guard !token.isEmpty else { throw .noTokenGiven }
        guard HeaderValue.isValid(token, longest: HeaderValue.longestToken) else {
            throw .invalidSetting("token", "****", SettingKey.tokenExpectation)
        }
        return token
    }
}

/// `resv logout [SERVER]`: the server's token removed from the config file.
struct LogoutCommand: ResvCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Remove the token kept for a server.",
        discussion: """
            Removes the server's token from the config file: the one 'resv login' kept for its origin, and one \
            written beside that server by 'resv config set token'. The server is not told: to make the token \
            stop working everywhere, an admin revokes it ('resv-server token revoke'). Removing none is not an \
            error.

            Examples:
              resv logout https://resv.example.com
              resv --profile work logout
            """)

    @OptionGroup var login: LoginOptions

    func run(in context: CommandContext) async throws {
        let (_, origin, settings) = try login.resolve("log out of", context)
        let removed = try await ConfigCommand.update(login.file.config, context) { file in
            var removed = file.setServer(origin, "token", nil)
            // Tokens written beside this server (before tokens were kept by origin).
            for place in [nil] + file.profiles.keys.sorted().map(Optional.some) {
                guard file.string(.token, profile: place) != nil else { continue }
                let owner = place.flatMap { file.string(.server, profile: $0) } ?? file.string(.server)
                guard owner.flatMap(SettingValue.serverURL).flatMap(ServerOrigin.init(_:)) == origin else { continue }
                file.set(.token, nil, profile: place)
                removed = true
            }
            return removed
        }
        context.say(removed ? "logged out of \(origin)" : "no token was kept for \(origin)")
        if settings.token?.source == .environment {
            context.say("resv: note: RESV_TOKEN still holds a token for \(origin)")
        }
    }
}
