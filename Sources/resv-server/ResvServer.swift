import ArgumentParser
import Foundation
import Logging
import ReservationCore
import ReservationServer
import ResvReference

/// `resv-server`: the shared backend of `resv`. The work is in the
/// `ReservationServer` library; this is the command line over it.
@main
struct ResvServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resv-server",
        abstract: "Serve reservations over HTTP to resv clients, from SQLite or PostgreSQL.",
        discussion: """
            Create a token for each user with 'resv-server token create NAME', then start the server with \
            'resv-server serve'. Clients send the token as 'Authorization: Bearer TOKEN' (resv reads it from \
            RESV_TOKEN); each user sees and changes only their own reservations.
            """,
        version: Reference.version,
        subcommands: [Serve.self, TokenCommand.self]
    )

    /// swift-argument-parser's own `main`, except that the bash completion script
    /// it prints is finished (see BashCompletionScript).
    static func main() async {
        do {
            var command = try await asyncParseAsRoot(nil)
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            let message = fullMessage(for: error)
            let finished = BashCompletionScript.finished(message)
            guard finished == message else {
                print(finished)
                return
            }
            exit(withError: error)
        }
    }
}

struct DatabaseOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "An SQLite file (created when missing) or a postgres://user[:password]@host[:port]/database URL.",
            valueName: "path-or-url"))
    var database: String

    func validate() throws {
        guard !database.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ValidationError("--database needs an SQLite file path or a postgres:// URL")
        }
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the HTTP API until interrupted (SIGINT or SIGTERM).",
        discussion: """
            The schema is created or migrated at start. SQLite runs in WAL mode with full fsync: a reservation \
            is on disk before its 201 is sent, and its files are readable by their owner only (0600). A \
            database that cannot be reached at start is one line on stderr and exit 69. Logs go to stderr, \
            one line per request; tokens never appear in them. GET /health (no token) says whether the \
            database answers; GET /metrics (no token) serves Prometheus metrics; a revoked token stops \
            working within 5 seconds.
            """
    )

    @OptionGroup var options: DatabaseOptions

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free one (the log says which).")
    var port = 8080

    @Option(help: "How much to log on stderr.")
    var logLevel: LogLevel = .info

    @Option(
        help: ArgumentHelp(
            "A JSON file of the landmarks to offer, with their capacity and timeZone (default: the built-in catalog).",
            valueName: "path"),
        completion: .file(extensions: ["json"]))
    var landmarks: String?

    @Option(
        help: ArgumentHelp(
            "Seconds a client has to send a whole request (head and body) from its first byte; then the connection is closed.",
            valueName: "seconds"))
    var requestTimeout: Double = 10

    @Option(
        help: ArgumentHelp(
            "Seconds a connection may stay open with no request under way (keep-alive); then it is closed.",
            valueName: "seconds"))
    var idleTimeout: Double = 60

    @Option(
        help: ArgumentHelp(
            "Requests a second each token may make (bursts up to the same number); more get 429 with Retry-After. Default: no limit.",
            valueName: "n"))
    var rateLimit: Double?

    @Flag(help: "Do not serve /metrics (Prometheus text, open without a token; served by default).")
    var noMetrics = false

    /// How long a token found in the database is trusted before it is checked
    /// again (so a revoked token stops within this time); for measurements.
    @Option(help: .hidden)
    var tokenRecheck: Double = 2

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        for (name, value) in [("--request-timeout", requestTimeout), ("--idle-timeout", idleTimeout)] {
            guard value.isFinite, value > 0, value <= 86_400 else {
                throw ValidationError("\(name) must be a number of seconds above 0 and at most 86400")
            }
        }
        if let rateLimit, RateLimit(perSecond: rateLimit) == nil || rateLimit > 1_000_000 {
            throw ValidationError("--rate-limit must be a number of requests a second above 0 and at most 1000000")
        }
        guard tokenRecheck.isFinite, (0...5).contains(tokenRecheck) else {
            throw ValidationError("--token-recheck must be 0 to 5 seconds")
        }
    }

    /// The options the flags give.
    var serverOptions: ServerOptions {
        var options = ServerOptions()
        options.limits = ConnectionLimits(
            requestTimeout: .milliseconds(Int64(requestTimeout * 1000)),
            idleTimeout: .milliseconds(Int64(idleTimeout * 1000)))
        options.rateLimit = rateLimit.flatMap(RateLimit.init(perSecond:))
        options.tokenLifetime = .milliseconds(Int64(tokenRecheck * 1000))
        return options
    }

    func run() async throws {
        let logger = bootstrapLogging(logLevel.level)
        let host = host
        let port = port
        var settings = serverOptions
        if !noMetrics { settings.metrics = ServerMetrics.bootstrap() }
        let serverOptions = settings
        let catalog: LandmarkCatalog
        do {
            catalog = try landmarks.map(CatalogFile.load) ?? .builtIn
        } catch {
            FileHandle.standardError.write(Data("resv-server: \(error.localizedDescription)\n".utf8))
            throw ExitCode(error.isUnreadable ? ExitStatus.unavailable : ExitStatus.dataError)
        }
        try await runReportingErrors(logger) {
            try await Database.withStore(options.database, logger: logger, serving: true) { store in
                let app = buildApplication(
                    store: store, host: host, port: port, logger: logger, catalog: catalog, options: serverOptions,
                    onListening: { bound in logger.notice("listening on http://\(host):\(bound)") })
                try await app.runService()
            }
        }
    }
}

struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token", abstract: "Manage users' bearer tokens.",
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a token for a user (new or existing) and print it once.",
            discussion: """
                The token is printed on stdout and never again: only its SHA-256 is stored. A user may hold \
                several tokens; each one sees the same reservations.
                """
        )

        @Argument(help: "The user's name.")
        var name: String

        @OptionGroup var options: DatabaseOptions

        @Option(
            help: ArgumentHelp(
                "How long the token works: a number with s, m, h or d (90m, 12h, 30d). Default: until revoked.",
                valueName: "duration"))
        var expiresIn: TokenLifetime?

        func validate() throws {
            guard !name.trimmingCharacters(in: .whitespaces).isEmpty, name.count <= 200 else {
                throw ValidationError("the user name must be 1 to 200 characters, not blank")
            }
        }

        func run() async throws {
            let logger = bootstrapLogging(.warning)
            let name = name
            let token = Token.generate()
            let expiresAt = expiresIn.map { Date().addingTimeInterval($0.seconds) }
            try await runReportingErrors(logger) {
                _ = try await Database.withStore(options.database, logger: logger) { store in
                    try await store.tokens.create(name, Token.hash(token), expiresAt)
                }
            }
            print(token)
            FileHandle.standardError.write(
                Data("resv-server: created a token for \(name); it is shown only this once\n".utf8))
        }
    }
}

/// `--log-level`: swift-log's levels by their names.
enum LogLevel: String, CaseIterable, ExpressibleByArgument {
    case trace, debug, info, notice, warning, error, critical

    var level: Logger.Level { Logger.Level(rawValue: rawValue) ?? .info }
}

/// Logs to stderr at `level`; returns the server's logger.
func bootstrapLogging(_ level: Logger.Level) -> Logger {
    LoggingSystem.bootstrap { label in
        var handler = StreamLogHandler.standardError(label: label)
        handler.logLevel = level
        return handler
    }
    var logger = Logger(label: "resv-server")
    logger.logLevel = level
    return logger
}

/// A failure to open the database or bind the port is one line on stderr and exit 69, not a trace.
func runReportingErrors(_ logger: Logger, _ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as LocalizedError {
        FileHandle.standardError.write(Data("resv-server: \(error.localizedDescription)\n".utf8))
        throw ExitCode(ExitStatus.unavailable)
    } catch {
        FileHandle.standardError.write(Data("resv-server: \(error)\n".utf8))
        throw ExitCode(ExitStatus.unavailable)
    }
}
