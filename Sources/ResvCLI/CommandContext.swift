import Foundation
import ReservationCore
import ReservationFile
import ReservationHTTP
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
    /// The process environment, for backend selection and NO_COLOR.
    public var environment: [String: String]
    public var now: @Sendable () -> Date
    /// The zone human tables show dates in.
    public var timeZone: TimeZone
    /// True when stdout is a terminal: tables, and colour unless NO_COLOR.
    public var outputIsTerminal: Bool
    /// True when stderr is a terminal: progress indicators.
    public var messagesAreTerminal = false
    /// Opens the backend the options select; the REPL and tests pass a fixed one.
    public var openService: @Sendable (BackendOptions, CommandContext) throws -> ReservationService
    /// True for commands typed at `resv repl`, where a nested `repl` makes no sense.
    var inRepl = false
    /// The `Idempotency-Key` of this command's creates on a server (`reserve --idempotency-key`).
    var idempotencyKey: String?
    /// The line of a REPL script (`resv repl < file`) this command came from, for its error message.
    var scriptLine: Int?

    public init(
        output: TextSink, messages: TextSink, environment: [String: String], now: @escaping @Sendable () -> Date,
        timeZone: TimeZone, outputIsTerminal: Bool,
        openService: @escaping @Sendable (BackendOptions, CommandContext) throws -> ReservationService = CommandContext
            .openConfiguredService
    ) {
        self.output = output
        self.messages = messages
        self.environment = environment
        self.now = now
        self.timeZone = timeZone
        self.outputIsTerminal = outputIsTerminal
        self.openService = openService
    }

    /// The context of a process run from a shell.
    public static func live() -> CommandContext {
        var context = CommandContext(
            output: .standardOutput, messages: .standardError, environment: ProcessInfo.processInfo.environment,
            now: Date.init, timeZone: .current, outputIsTerminal: isatty(STDOUT_FILENO) == 1)
        context.messagesAreTerminal = isatty(STDERR_FILENO) == 1
        return context
    }

    /// Colour only on a terminal, and never when NO_COLOR is set (no-color.org).
    var usesColour: Bool {
        outputIsTerminal && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
    }

    /// Writes a message line to stderr, data in it made safe for a terminal.
    func say(_ line: String) { messages.write(line.terminalSafe + "\n") }

    /// Writes the one line of a failed command to stderr, with its script line when it has one.
    func fail(_ message: String) { say("resv: " + (scriptLine.map { "line \($0): " } ?? "") + message) }

    func service(_ options: BackendOptions) throws -> ReservationService { try openService(options, self) }

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
        -> ReservationService
    {
        let settings = try context.settings(options)
        if let server = settings.chosenServer {
            return try context.httpService(server, settings, options)
        }
        if options.offline { throw CLIError.offlineNeedsServer }
        var store = JSONFileStore(url: URL(fileURLWithPath: settings.store.value))
        if let text = context.environment["RESV_LOCK_TIMEOUT"] {
            guard let seconds = Double(text), seconds >= 0, seconds.isFinite else {
                throw CLIError.invalidSetting("RESV_LOCK_TIMEOUT", text, "a number of seconds")
            }
            // A day is as good as forever here, and 1e300 seconds would not fit a duration.
            store.lockTimeout = .milliseconds(Int((min(seconds, 86_400) * 1000).rounded()))
        }
        if let text = context.environment["RESV_MAX_STORE_BYTES"] {
            guard let bytes = Int(text), bytes > 0 else {
                throw CLIError.invalidSetting("RESV_MAX_STORE_BYTES", text, "a whole number of bytes")
            }
            store.maxBytes = bytes
        }
        return .jsonFile(store, now: context.now)
    }

    /// The HTTP backend for `server`, with its cache under `$XDG_CACHE_HOME`.
    func httpService(_ server: Setting, _ settings: Settings, _ options: BackendOptions) throws
        -> ReservationService
    {
        let (configuration, transport) = try httpBackend(server, settings, options)
        return .http(configuration, transport: transport)
    }

    /// How to reach `server`: its configuration (token, timeouts, cache) and transport.
    func httpBackend(_ server: Setting, _ settings: Settings, _ options: BackendOptions) throws
        -> (HTTPBackendConfiguration, HTTPTransport)
    {
        guard let url = URL(string: server.value), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
            url.host?.isEmpty == false
        else {
            let name = [.environment: "RESV_SERVER", .flag: "--server"][server.source] ?? "server"
            throw CLIError.invalidSetting(name, URL.redacting(server.value), "an http:// or https:// URL")
        }
        let idle = try settings.seconds(settings.connectTimeout, .connectTimeout)
        let total = try settings.seconds(settings.requestTimeout, .requestTimeout)
        // Every route but /health needs a token: say what is missing rather than "refused".
        if settings.token == nil, !options.offline { throw CLIError.noToken }
        let token = try settings.checkedToken()
        var configuration = HTTPBackendConfiguration(baseURL: url, token: token, idempotencyKey: idempotencyKey)
        configuration.cache = responseCache(url, token: token)
        configuration.commandTimeout = total
        let messages = self.messages
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
        return (configuration, .libcurl(connectTimeout: idle, requestTimeout: total))
    }

    /// The cache of one server's answers for one token, under `$XDG_CACHE_HOME`.
    func responseCache(_ url: URL, token: String?) -> ResponseCache {
        ResponseCache(cacheHome: xdgHome("XDG_CACHE_HOME", ".cache"), baseURL: url, token: token)
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

/// A destination for text: stdout, stderr, or a buffer in tests.
public struct TextSink: Sendable {
    public var write: @Sendable (String) -> Void
    /// The first error a write met since the last call (an errno), which the
    /// command's caller turns into exit 74; a closed pipe is not one.
    public var takeFailure: @Sendable () -> Int32? = { nil }

    public init(write: @escaping @Sendable (String) -> Void) { self.write = write }

    public static let standardOutput = descriptor(STDOUT_FILENO)
    public static let standardError = descriptor(STDERR_FILENO)

    /// Writes to `fd`. After a failed write the rest of the command's text is
    /// dropped, so a full disk is reported once, not written around.
    private static func descriptor(_ fd: Int32) -> TextSink {
        let failure = Atomic<Int32>(0)
        var sink = TextSink { text in
            guard failure.load(ordering: .relaxed) == 0 else { return }
            let error = writeAll(fd, text)
            // A closed pipe (`resv list | head`) is the reader's choice: quiet.
            if error != 0, error != EPIPE { failure.store(error, ordering: .relaxed) }
        }
        sink.takeFailure = {
            let error = failure.exchange(0, ordering: .relaxed)
            return error == 0 ? nil : error
        }
        return sink
    }

    /// 0, or the errno of the write that failed.
    private static func writeAll(_ fd: Int32, _ text: String) -> Int32 {
        var text = text
        return text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return 0
        }
    }
}
