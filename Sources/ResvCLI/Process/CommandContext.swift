import FilePrimitives
import Foundation
import ReservationCore
import ReservationFile
import ReservationHTTP
import ResvReference
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Everything a command reaches outside itself, passed in explicitly so the
/// same command runs from the shell, from the REPL and from tests.
public struct CommandContext: Sendable {
    /// Where data goes (stdout).
    public var output: TextSink
    /// Where messages, warnings and errors go (stderr).
    public var messages: TextSink
    /// Where commands read from (stdin): a batch, a REPL script, a token.
    public var input: InputSource
    /// The process environment, for backend selection and NO_COLOR.
    public var environment: [String: String]
    public var now: @Sendable () -> Date
    /// What a feed read in this process (a file's `watch`, `wait`) waits on: the
    /// machine's clock from a shell, one a test holds and moves.
    public var waitClock: WaitClock = .continuous
    /// The zone human tables show dates in.
    public var timeZone: TimeZone
    /// True when stdout is a terminal: tables, and colour unless NO_COLOR.
    public var outputIsTerminal: Bool
    /// True when stderr is a terminal: progress indicators.
    public var messagesAreTerminal = false
    /// The size of the terminal stdout is (asked at each call: it may be resized); nil when
    /// stdout is not a terminal. Tables fit its width; the pager starts past its height.
    public var terminalSize: @Sendable () -> (columns: Int, rows: Int)? = { nil }
    /// Opens the backend the options select; the REPL and tests pass a fixed one.
    public var openService: @Sendable (BackendOptions, CommandContext) throws -> Backend
    /// True for commands typed at `resv repl`, where a nested `repl` makes no sense.
    var inRepl = false
    /// The `Idempotency-Key` of this command's creates on a server (`reserve --idempotency-key`).
    var idempotencyKey: String?
    /// `--queue`: a change the server cannot be reached for is kept in its outbox.
    var queue = false
    /// Bookings waiting in the outbox among what this command shows (status `queued`).
    var queued: Set<Reservation.ID> { shownQueued.ids }
    /// Changes waiting in the outbox for the reservations this command shows.
    var queuedChanges: [Reservation.ID: QueuedChange] { shownQueued.changes }
    /// The queued bookings this command's reads found (`fetch(from:_:)`), for its output.
    let shownQueued = QueuedIDs()
    /// The line of a REPL script (`resv repl < file`) this command came from, for its error message.
    var scriptLine: Int?
    /// Failures are printed as JSON: the command line asked for JSON output.
    var errorsAsJSON = false

    public init(
        output: TextSink, messages: TextSink, input: InputSource = .empty, environment: [String: String],
        now: @escaping @Sendable () -> Date, timeZone: TimeZone, outputIsTerminal: Bool,
        openService: @escaping @Sendable (BackendOptions, CommandContext) throws -> Backend = CommandContext
            .openConfiguredService
    ) {
        self.output = output
        self.messages = messages
        self.input = input
        self.environment = environment
        self.now = now
        self.timeZone = timeZone
        self.outputIsTerminal = outputIsTerminal
        self.openService = openService
    }

    /// The context of a process run from a shell.
    public static func live() -> CommandContext {
        let environment = ProcessInfo.processInfo.environment
        var context = CommandContext(
            output: .standardOutput, messages: .standardError, input: .standardInput,
            environment: environment, now: Date.init, timeZone: LocalZone.resolve(environment["TZ"], now: Date()),
            outputIsTerminal: isatty(STDOUT_FILENO) == 1)
        context.messagesAreTerminal = isatty(STDERR_FILENO) == 1
        if context.outputIsTerminal { context.terminalSize = { Self.windowSize(STDOUT_FILENO) } }
        return context
    }

    /// A context that runs commands in this process as a shell would, but reads `input`
    /// and keeps what they write: for tests, and front ends that show the text themselves.
    /// Nothing is a terminal; the backend is the one `environment` and the options choose,
    /// unless `openService` gives another.
    public static func captured(
        input: InputSource = .empty, environment: [String: String], now: @escaping @Sendable () -> Date = Date.init,
        timeZone: TimeZone = .gmt,
        openService: @escaping @Sendable (BackendOptions, CommandContext) throws -> Backend = CommandContext
            .openConfiguredService
    ) -> (context: CommandContext, output: TextBuffer, messages: TextBuffer) {
        let output = TextBuffer()
        let messages = TextBuffer()
        let context = CommandContext(
            output: output.sink, messages: messages.sink, input: input, environment: environment, now: now,
            timeZone: timeZone, outputIsTerminal: false, openService: openService)
        return (context, output, messages)
    }

    /// The window size of the terminal `descriptor` is; nil when it is none or says 0.
    static func windowSize(_ descriptor: Int32) -> (columns: Int, rows: Int)? {
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return nil }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// Colour only on a terminal, and never when NO_COLOR is set (no-color.org).
    var usesColour: Bool {
        outputIsTerminal && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
    }

    /// Writes a message line to stderr, data in it made safe for a terminal.
    func say(_ line: String) { messages.write(line.terminalSafe + "\n") }

    /// Writes the one line of a failed command to stderr, with its script line when it has one.
    /// A message too long to be one (a value quoted whole somewhere) is cut: it stays a line.
    /// With `errorsAsJSON`, the line is `{"error": {"code", "exitCode", "message"}}`, and
    /// a batch's refused `lines` are in it (`[{"line", "code", "message"}]`); else each
    /// is a line of its own before the message.
    func fail(_ message: String, code: String? = nil, status: Int32? = nil, lines: [BatchInput.Failure] = []) {
        let text = (scriptLine.map { "line \($0): " } ?? "") + message.quoted(limit: 1_000)
        guard errorsAsJSON, let status else {
            for line in lines { say("resv: \(line.noun) \(line.line): \(ExitStatus.oneLine(line.reason))") }
            say("resv: " + text)
            return
        }
        var error: [String: JSONValue] = [
            "code": .string(code ?? ExitStatus.statusCode(for: status)), "exitCode": .integer(Int64(status)),
            "message": .string(text),
        ]
        if !lines.isEmpty { error["lines"] = .array(lines.map(\.json)) }
        messages.write(String(decoding: JSONValue.object(["error": .object(error)]).encoded(), as: UTF8.self) + "\n")
    }

    /// Whether the command line asked for JSON (`--json`, `--format json` or `ndjson`), so
    /// that a script reading it gets its failure as JSON too.
    static func asksForJSON(_ arguments: [String]) -> Bool {
        var previous = ""
        for argument in arguments.prefix(while: { $0 != "--" }) {
            defer { previous = argument }
            if argument == "--json" || argument == "--format=json" || argument == "--format=ndjson" { return true }
            if previous == "--format", argument == "json" || argument == "ndjson" { return true }
        }
        return false
    }

    func service(_ options: BackendOptions) throws -> ReservationService { try openService(options, self).service }

    /// The backend the options select, with a server's own reads when it is one, online.
    func backend(_ options: BackendOptions) throws -> Backend { try openService(options, self) }

    /// `$XDG_DATA_HOME/resv/reservations.json`, else under `~/.local/share`.
    var defaultStoreURL: URL {
        xdgHome("XDG_DATA_HOME", ".local/share").appendingPathComponent("resv/reservations.json")
    }

    /// A file under `$XDG_STATE_HOME/resv` (else `~/.local/state/resv`): history and such.
    func stateFile(_ name: String) -> String {
        xdgHome("XDG_STATE_HOME", ".local/state").appendingPathComponent("resv/" + name).path
    }

    /// The backend the settings choose: a server (flag, environment or config
    /// file) or the JSON file store.
    public static func openConfiguredService(_ options: BackendOptions, _ context: CommandContext) throws
        -> Backend
    {
        let settings = try context.settings(options)
        if let server = settings.chosenServer {
            return try context.httpService(server, settings, options)
        }
        if options.offline { throw CLIError.offlineNeedsServer }
        // The default store's folder is made at the first write; one named by hand (--store,
        // RESV_STORE, the config file) must be in a folder there is: a typo makes no folders.
        let folder = URL(fileURLWithPath: settings.store.value).deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        if settings.store.source != .defaultValue,
            !FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) || !isFolder.boolValue
        {
            let source = [.flag: "--store", .environment: "RESV_STORE"][settings.store.source] ?? "the config file"
            throw CLIError.noStoreFolder(settings.store.value, folder: folder, from: source)
        }
        var store = JSONFileStore(url: URL(fileURLWithPath: settings.store.value))
        store.lockTimeout = try context.lockTimeout()
        if let text = context.environment["RESV_MAX_STORE_BYTES"] {
            guard let bytes = Int(text), bytes > 0 else {
                throw CLIError.invalidSetting("RESV_MAX_STORE_BYTES", text, "a whole number of bytes")
            }
            store.maxBytes = bytes
        }
        return Backend(.jsonFile(store, now: context.now, clock: context.waitClock))
    }

    /// The HTTP backend for `server`, with its cache under `$XDG_CACHE_HOME`.
    func httpService(_ server: Setting, _ settings: Settings, _ options: BackendOptions) throws
        -> Backend
    {
        let (configuration, transport) = try httpBackend(server, settings, options)
        let backend = ServerBackend(configuration, transport: transport)
        // Offline, every read is the cache's: a whole id is looked up there as any other.
        return Backend(backend.service, server: options.offline ? nil : backend)
    }

    /// How to reach `server`: its configuration (token, timeouts, cache) and transport.
    func httpBackend(_ server: Setting, _ settings: Settings, _ options: BackendOptions) throws
        -> (HTTPBackendConfiguration, HTTPTransport)
    {
        guard let url = SettingValue.serverURL(server.value) else {
            let name = [.environment: "RESV_SERVER", .flag: "--server"][server.source] ?? "server"
            throw CLIError.invalidSetting(name, URL.redacting(server.value), SettingValue.serverURLRule)
        }
        let idle = try settings.seconds(settings.connectTimeout, .connectTimeout)
        let total = try settings.seconds(settings.requestTimeout, .requestTimeout)
        guard let origin = ServerOrigin(url) else {
            throw CLIError.invalidSetting("server", URL.redacting(server.value), SettingValue.serverURLRule)
        }
        // Every route but /health needs a token: say what is missing rather than "refused".
        if settings.token == nil, !options.offline {
            throw CLIError.notLoggedIn(origin.description, withheld: settings.withheldToken)
        }
        let token = try settings.checkedToken()
        // Before any connection: a token never crosses a network in clear.
        if token != nil, !origin.keepsSecretsOffTheWire { throw CLIError.tokenInClear(origin.description) }
        let caFile = try settings.cacert.map { setting throws(CLIError) in try Self.readableCAFile(setting) }
        var configuration = HTTPBackendConfiguration(
            baseURL: url, token: token, idempotencyKey: idempotencyKey, now: now)
        configuration.cache = responseCache(url, token: token)
        configuration.commandTimeout = total
        configuration.outbox = outbox(url, token: token)
        configuration.queue = try queue || settings.queues()
        let sayer = self
        configuration.outboxReport = { report in sayer.tell(report, sending: false) }
        configuration.outboxFailure = { error in
            sayer.say("resv: warning: the outbox was not sent: \(ExitStatus.message(for: error))")
        }
        let messages = self.messages
        configuration.lostAnswerNotice = { request, why in
            messages.write(
                "resv: note: no answer came to \(request) (\(why)); \(url.redacted) says it was made, as shown\n")
        }
        configuration.offlineNotice = { age in
            messages.write("resv: note: --offline: showing what \(url.redacted) answered \(Self.describe(age: age))\n")
        }
        configuration.cacheMode =
            options.offline
            ? .offline
            : .fallback(stale: { age in
                messages.write(
                    "resv: warning: cannot reach \(url.redacted); showing what it answered \(Self.describe(age: age))\n"
                )
            })
        return (configuration, .libcurl(connectTimeout: idle, requestTimeout: total, caFile: caFile))
    }

    /// A CA file that can be read, as libcurl will read it (it says only "problem with the CA cert").
    static func readableCAFile(_ setting: Setting) throws(CLIError) -> String {
        let path = setting.value
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw .unreadableInput(path + " (the CA certificates)", FileError.describe(errno))
        }
        guard FileKind.isRegular(info), access(path, R_OK) == 0 else {
            throw .unreadableInput(path + " (the CA certificates)", "it is no readable file of PEM certificates")
        }
        return path
    }

    /// The outbox of `url`'s server, under `$XDG_STATE_HOME` (docs/contracts.md, "Offline").
    func outbox(_ url: URL, token: String?) -> Outbox {
        Outbox(stateHome: xdgHome("XDG_STATE_HOME", ".local/state"), baseURL: url, token: token)
    }

    /// The cache of one server's answers for one token, under `$XDG_CACHE_HOME`.
    /// One that another user could have planted answers in is not used, with a warning.
    func responseCache(_ url: URL, token: String?, quiet: Bool = false) -> ResponseCache {
        let cache = ResponseCache(cacheHome: xdgHome("XDG_CACHE_HOME", ".cache"), baseURL: url, token: token, now: now)
        if let foreign = cache.untrusted, !quiet {
            say("resv: warning: not using the cache of \(url.redacted): \(foreign.description), not you or root")
        }
        return cache
    }

    /// "3 minutes ago", for the age of cached data.
    static func describe(age: TimeInterval) -> String {
        let seconds = max(0, Int(age))
        switch seconds {
        case ..<60: return "\(seconds) second\(seconds == 1 ? "" : "s") ago"
        case ..<3600: return "\(seconds / 60) minute\(seconds / 60 == 1 ? "" : "s") ago"
        case ..<86_400: return "\(seconds / 3600) hour\(seconds / 3600 == 1 ? "" : "s") ago"
        default: return "\(seconds / 86_400) day\(seconds / 86_400 == 1 ? "" : "s") ago"
        }
    }
}

/// The backend a command works on: its service, and on a server online, the server's own
/// reads (`ServerBackend`), with which a command given a whole id asks for that one
/// reservation instead of the user's whole list.
public struct Backend: Sendable {
    public var service: ReservationService
    public var server: ServerBackend?

    public init(_ service: ReservationService, server: ServerBackend? = nil) {
        self.service = service
        self.server = server
    }
}

/// Ids of bookings waiting in an outbox, as a command's reads find them.
final class QueuedIDs: Sendable {
    private let storage = Mutex<Set<Reservation.ID>>([])
    private let changeStorage = Mutex<[Reservation.ID: QueuedChange]>([:])
    var ids: Set<Reservation.ID> { storage.withLock { $0 } }
    /// The changes queued for reservations the server has, by reservation.
    var changes: [Reservation.ID: QueuedChange] { changeStorage.withLock { $0 } }
    func add(_ ids: Set<Reservation.ID>) { storage.withLock { $0.formUnion(ids) } }
    /// The bookings and the changes a snapshot's outbox holds.
    func add(_ snapshot: ReservationSnapshot) {
        add(snapshot.queued)
        add(changes: snapshot.queuedChanges)
    }
    func add(changes: [Reservation.ID: QueuedChange]) {
        changeStorage.withLock { $0.merge(changes) { _, new in new } }
    }
}
