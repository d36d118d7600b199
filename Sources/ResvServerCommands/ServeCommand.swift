import ArgumentParser
import Foundation
import Logging
import ReservationCore
import ReservationServer
import ReservationStorage
import ResvReference

struct Serve: ServerCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the HTTP API until interrupted (SIGINT or SIGTERM).",
        discussion: """
            The schema is created or migrated at start. SQLite runs in WAL mode with full fsync: a reservation \
            is on disk before its 201 is sent, and its files are readable by their owner only (0600). A \
            database that cannot be reached at start is one line on stderr and exit 69. Logs go to stderr, \
            one line per request; tokens never appear in them. GET /health (no token) says whether the \
            database answers; GET /metrics (no token) serves Prometheus metrics; a revoked or expired token \
            stops working within 1 second on every server of the database. With --tls-cert and --tls-key \
            it serves HTTPS only; SIGHUP reloads both files for the connections that follow (those open \
            keep theirs), and a new pair that cannot serve is refused with one line, the old one kept.
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

    @Option(
        help: ArgumentHelp(
            "The most holds (reserve --hold) one user may have live at once; beyond, 409 tooManyHolds.",
            valueName: "n"))
    var maxHoldsPerUser = 20

    @Flag(help: "Do not serve /metrics (Prometheus text, open without a token; served by default).")
    var noMetrics = false

    @Option(
        help: ArgumentHelp(
            "Serve HTTPS (TLS 1.2 and 1.3) with this PEM certificate chain; needs --tls-key. SIGHUP reloads both files.",
            valueName: "file"),
        completion: .file(extensions: ["pem", "crt"]))
    var tlsCert: String?

    @Option(
        help: ArgumentHelp("The PEM private key of --tls-cert's certificate.", valueName: "file"),
        completion: .file(extensions: ["pem", "key"]))
    var tlsKey: String?

    @Option(
        help: ArgumentHelp(
            """
            Refuse to start (exit 73) unless this folder exists, belongs to the user the server runs as and no \
            one else may write to it: the state directory of a service (/var/lib/resv-server in the packages).
            """,
            valueName: "folder"),
        completion: .directory)
    var stateDirectory: String?

    /// How long a token found in the database is trusted before it is checked
    /// again (so a revoked token stops within this time); for measurements.
    @Option(help: .hidden)
    var tokenRecheck: Double = 1

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
        guard (0...1_000_000).contains(maxHoldsPerUser) else {
            throw ValidationError("--max-holds-per-user must be from 0 (no holds) to 1000000")
        }
        guard tokenRecheck.isFinite, (0...1).contains(tokenRecheck) else {
            throw ValidationError("--token-recheck must be 0 to 1 seconds")
        }
        guard (tlsCert == nil) == (tlsKey == nil) else {
            throw ValidationError("--tls-cert and --tls-key go together: give both (PEM files) or neither")
        }
    }

    /// Every setting as the server uses it, for the debug log at start (the database's password redacted).
    var settingsText: String {
        let database =
            (options.database.hasPrefix("postgres://") || options.database.hasPrefix("postgresql://"))
            ? ((try? PostgresTarget(options.database).redacted) ?? "postgres://…") : options.database
        let values: [(String, String?)] = [
            ("database", database), ("host", host), ("port", String(port)), ("log-level", logLevel.rawValue),
            ("landmarks", landmarks), ("request-timeout", String(requestTimeout)),
            ("idle-timeout", String(idleTimeout)), ("rate-limit", rateLimit.map { String($0) }),
            ("max-holds-per-user", String(maxHoldsPerUser)), ("no-metrics", String(noMetrics)),
            ("tls-cert", tlsCert), ("tls-key", tlsKey), ("state-directory", stateDirectory),
            ("token-recheck", String(tokenRecheck)),
        ]
        return values.map { "\($0.0)=\($0.1 ?? "none")" }.joined(separator: " ")
    }

    /// The options the flags give.
    var serverOptions: ServerOptions {
        var options = ServerOptions()
        options.limits = ConnectionLimits(
            requestTimeout: .milliseconds(Int64(requestTimeout * 1000)),
            idleTimeout: .milliseconds(Int64(idleTimeout * 1000)))
        options.rateLimit = rateLimit.flatMap(RateLimit.init(perSecond:))
        options.tokenLifetime = .milliseconds(Int64(tokenRecheck * 1000))
        options.maxHoldsPerUser = maxHoldsPerUser
        return options
    }

    func run(in context: ServerCommandContext) async throws {
        if let stateDirectory { try Self.checkStateDirectory(stateDirectory, context: context) }
        // Read before the process-wide logging and metrics are set up, so a bad file costs nothing.
        let catalog: LandmarkCatalog
        do {
            catalog = try landmarks.map(CatalogFile.load) ?? .builtIn
        } catch {
            context.say(error.localizedDescription)
            throw ExitCode(error.isUnreadable ? ExitStatus.unavailable : ExitStatus.dataError)
        }
        var settings = serverOptions
        if let tlsCert, let tlsKey {
            settings.tls = await TLSOptions.reloadingOnHangup(
                try Self.identity(certificate: tlsCert, key: tlsKey, context: context),
                report: { [context] line in context.say(line) })
        }
        let logger = context.logger(logLevel.level)
        logger.debug("settings: \(settingsText)", source: "resv_server")
        let host = host
        let port = port
        let scheme = settings.tls == nil ? "http" : "https"
        if !noMetrics { settings.metrics = ServerMetrics.bootstrap() }
        let serverOptions = settings
        try await context.unavailableOnFailure {
            try await Database.withStore(options.database, logger: logger, serving: true, now: context.now) { store in
                let app = buildApplication(
                    store: store, host: host, port: port, logger: logger, catalog: catalog, now: context.now,
                    options: serverOptions,
                    onListening: { bound in
                        // The source the line had when the command was in the executable's module.
                        logger.notice("listening on \(scheme)://\(host):\(bound)", source: "resv_server")
                    })
                do {
                    try await app.runService()
                } catch {
                    guard let line = listenFailure(error, host: host, port: port) else { throw error }
                    context.say(line)
                    throw ExitCode(ExitStatus.unavailable)
                }
            }
        }
    }
}

extension Serve {
    /// `--state-directory`: a folder of the server's user, which no one else may write to;
    /// anything else is one line and exit 73, before the database is opened.
    static func checkStateDirectory(_ path: String, context: ServerCommandContext) throws {
        func refuse(_ why: String) -> ExitCode {
            context.say("the state directory \(path) \(why); nothing was started")
            return ExitCode(ExitStatus.cannotWrite)
        }
        var status = stat()
        guard lstat(path, &status) == 0 else { throw refuse("does not exist") }
        guard status.st_mode & S_IFMT == S_IFDIR else { throw refuse("is not a folder") }
        let user = geteuid()
        guard status.st_uid == user else {
            throw refuse(
                "belongs to \(Self.userName(status.st_uid)), not \(Self.userName(user)), the user resv-server runs as")
        }
        guard status.st_mode & (S_IWGRP | S_IWOTH) == 0 else {
            throw refuse("may be written by its group or others (chmod go-w, or 0700)")
        }
    }

    /// A user's name and id, as "resv (uid 998)".
    static func userName(_ id: uid_t) -> String {
        guard let entry = getpwuid(id), let name = entry.pointee.pw_name else { return "uid \(id)" }
        return "\(String(cString: name)) (uid \(id))"
    }

    /// The certificate and key, read before anything starts: a file missing or
    /// unreadable is one line and exit 66, one not PEM or a key not the certificate's 78.
    static func identity(certificate: String, key: String, context: ServerCommandContext) throws -> TLSIdentity {
        do {
            return try TLSIdentity(certificateFile: certificate, keyFile: key)
        } catch {
            context.say(error.localizedDescription)
            throw ExitCode(error.isUnreadable ? ExitStatus.noInput : ExitStatus.configuration)
        }
    }
}

/// `--log-level`: swift-log's levels by their names.
enum LogLevel: String, CaseIterable, ExpressibleByArgument {
    case trace, debug, info, notice, warning, error, critical

    var level: Logger.Level { Logger.Level(rawValue: rawValue) ?? .info }
}
