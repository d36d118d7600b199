import Foundation
import ReservationCore
import ReservationFile

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

    /// Writes a message line to stderr.
    func say(_ line: String) { messages.write(line + "\n") }

    func service(_ options: BackendOptions) throws -> ReservationService { try openService(options, self) }

    /// The store file: `--store`, else `RESV_STORE`, else the XDG data directory.
    func storeURL(_ options: BackendOptions) -> URL { storeURL(flag: options.store) }

    /// The store file: `flag` (--store), else RESV_STORE, else under XDG_DATA_HOME.
    func storeURL(flag: String?) -> URL {
        if let path = flag, !path.isEmpty { return URL(fileURLWithPath: path) }
        if let path = environment["RESV_STORE"], !path.isEmpty { return URL(fileURLWithPath: path) }
        let dataHome: URL
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            dataHome = URL(fileURLWithPath: xdg)
        } else {
            let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
            dataHome = URL(fileURLWithPath: home).appendingPathComponent(".local/share")
        }
        return dataHome.appendingPathComponent("resv/reservations.json")
    }

    /// A file under `$XDG_STATE_HOME/resv` (else `~/.local/state/resv`): history and such.
    func stateFile(_ name: String) -> String {
        let stateHome: String
        if let xdg = environment["XDG_STATE_HOME"], xdg.hasPrefix("/") {
            stateHome = xdg
        } else {
            let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
            stateHome = home + "/.local/state"
        }
        return stateHome + "/resv/" + name
    }

    /// The backend chosen by flags and environment: today the JSON file store.
    public static func openConfiguredService(_ options: BackendOptions, _ context: CommandContext) throws
        -> ReservationService
    {
        var store = JSONFileStore(url: context.storeURL(options))
        if let text = context.environment["RESV_LOCK_TIMEOUT"] {
            guard let seconds = Double(text), seconds >= 0, seconds.isFinite else {
                throw CLIError.invalidSetting("RESV_LOCK_TIMEOUT", text, "a number of seconds")
            }
            store.lockTimeout = .milliseconds(Int((seconds * 1000).rounded()))
        }
        return .jsonFile(store, now: context.now)
    }
}

/// A destination for text: stdout, stderr, or a buffer in tests.
public struct TextSink: Sendable {
    public var write: @Sendable (String) -> Void

    public init(write: @escaping @Sendable (String) -> Void) { self.write = write }

    public static let standardOutput = TextSink { writeAll(STDOUT_FILENO, $0) }
    public static let standardError = TextSink { writeAll(STDERR_FILENO, $0) }

    private static func writeAll(_ fd: Int32, _ text: String) {
        var text = text
        text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return  // A closed pipe (`resv list | head`) is not an error worth a crash.
                }
                offset += written
            }
        }
    }
}
