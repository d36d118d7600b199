import FilePrimitives
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Output taller than the terminal, sent through a pager as git and psql do:
/// `RESV_PAGER`, else `PAGER`, else `less -FRX` (`LESS=FRX` when `LESS` is unset,
/// so a `less` without options quits at the end of a short text, keeps colour and
/// leaves the text on the screen). Only for the commands that print data (`list`,
/// `log`, `show`, `availability`, `landmarks`, `fetch`), only when stdout is a
/// terminal, never with `--no-pager`, and not in the REPL.
///
/// The text is held until it is taller than the screen: a short answer is written
/// as it would be without a pager, whatever the pager is. Once taller, the pager
/// starts and everything goes to it; quitting it early drops the rest quietly,
/// as a closed pipe does (`resv list | head`).
final class Pager: Sendable {
    private struct State {
        var held = ""
        var lines = 0
        var column = 0
        /// Inside a colour sequence (ESC [ … letter), which takes no column.
        var inEscape = false
        var input: Int32 = -1
        var pid: pid_t = 0
        var failed = false
    }

    private let command: String
    private let environment: [String: String]
    private let size: @Sendable () -> (columns: Int, rows: Int)?
    private let direct: TextSink
    private let state = Mutex(State())

    /// The pager's process while one runs, for the last resort after Ctrl-C (it waits for it).
    private static let running = Mutex<(pid: pid_t, input: Int32)?>(nil)

    private init(
        command: String, environment: [String: String], size: @escaping @Sendable () -> (columns: Int, rows: Int)?,
        direct: TextSink
    ) {
        self.command = command
        self.environment = environment
        self.size = size
        self.direct = direct
    }

    /// The commands whose output may be paged.
    static let pagedCommands: Set<String> = ["list", "log", "show", "availability", "landmarks", "fetch"]

    /// A pager for the command `arguments` name (the common options already moved behind
    /// it), or nil when its output should go straight to stdout.
    static func forCommand(_ arguments: [String], context: CommandContext) -> Pager? {
        guard context.outputIsTerminal, !context.inRepl, context.terminalSize() != nil else { return nil }
        let options = arguments.prefix { $0 != "--" }
        guard options.first.map(pagedCommands.contains) ?? true, !options.contains("--no-pager") else { return nil }
        guard let command = command(environment: context.environment, messages: context.messages) else { return nil }
        return Pager(
            command: command, environment: context.environment, size: context.terminalSize, direct: context.output)
    }

    /// The pager command the environment names; nil for none (`RESV_PAGER=` or `cat`), or
    /// when it is not installed (said once: output is not lost to a pager that is not there).
    static func command(environment: [String: String], messages: TextSink) -> String? {
        let named = environment["RESV_PAGER"] ?? environment["PAGER"].flatMap { $0.isEmpty ? nil : $0 }
        let command = (named ?? "less -FRX").trimmingCharacters(in: .whitespaces)
        guard !command.isEmpty, command != "cat" else { return nil }
        let program = String(command.split(separator: " ", maxSplits: 1)[0])
        // `LESS=-S less` is for the shell to read: only a plain program name is looked for.
        guard program.contains("=") || installed(program, path: environment["PATH"]) else {
            // `less` itself missing is no reason to say anything: the default simply does not apply.
            if named != nil {
                messages.write("resv: warning: the pager '\(program.quoted())' is not installed; not paging\n")
            }
            return nil
        }
        return command
    }

    /// Whether `program` runs: a path to an executable file (not a folder, which access(2)
    /// also calls executable), or one on `path`.
    private static func installed(_ program: String, path: String?) -> Bool {
        func runs(_ file: String) -> Bool {
            var info = stat()
            return stat(file, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && access(file, X_OK) == 0
        }
        if program.contains("/") { return runs(program) }
        return (path ?? "/usr/bin:/bin").split(separator: ":").contains { runs("\($0)/\(program)") }
    }

    /// Where the command writes: held, then the pager once the text is taller than the screen.
    var sink: TextSink {
        var sink = TextSink { [self] text in write(text) }
        let direct = self.direct
        sink.takeFailure = { direct.takeFailure() }
        return sink
    }

    private func write(_ text: String) {
        enum Next {
            case held
            case pager(Int32, String)
            case direct(String)
        }
        let next = state.withLock { state -> Next in
            if state.input >= 0 { return .pager(state.input, text) }
            if state.failed { return .direct(text) }
            state.held += text
            let (columns, rows) = size() ?? (80, 24)
            // Rows as the terminal shows them (a long line takes several); one row is the
            // shell's prompt after the output.
            for byte in text.utf8 where state.lines < rows {
                if state.inEscape {
                    // A colour sequence ends at its letter (`\e[1;31m`).
                    if (0x40...0x7E).contains(byte), byte != UInt8(ascii: "[") { state.inEscape = false }
                } else if byte == 0x1B {
                    state.inEscape = true
                } else if byte == UInt8(ascii: "\n") {
                    state.lines += 1
                    state.column = 0
                } else if byte & 0xC0 != 0x80 {
                    state.column += 1
                    if state.column > columns {
                        state.lines += 1
                        state.column = 1
                    }
                }
            }
            guard state.lines >= rows else { return .held }
            let held = state.held
            state.held = ""
            guard start(&state) else {
                state.failed = true
                return .direct(held)
            }
            return .pager(state.input, held)
        }
        switch next {
        case .held: break
        // A pager that has quit takes no more: the rest is dropped, as by a closed pipe.
        case .pager(let input, let text): _ = Self.send(text, to: input)
        case .direct(let text): direct.write(text)
        }
    }

    private func flushDirect() {
        let held = state.withLock { state -> String in
            defer { state.held = "" }
            return state.held
        }
        if !held.isEmpty { direct.write(held) }
    }

    /// Starts the pager with a pipe to its stdin; its stdout and stderr are the terminal's.
    private func start(_ state: inout State) -> Bool {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return false }
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[0], STDIN_FILENO)
        posix_spawn_file_actions_addclose(&actions, ends[0])
        var environment = self.environment
        if environment["LESS"] == nil { environment["LESS"] = "FRX" }
        if environment["LV"] == nil { environment["LV"] = "-c" }
        let arguments = ["sh", "-c", command]
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, argv, envp)
        close(ends[0])
        guard spawned == 0 else {
            close(ends[1])
            return false
        }
        // A pager that quits early closes the pipe: a write then fails with EPIPE, not a signal.
        signal(SIGPIPE, SIG_IGN)
        state.input = ends[1]
        state.pid = pid
        Self.running.withLock { $0 = (pid, ends[1]) }
        return true
    }

    /// Writes all of `text` to the pager; false once it has quit (the rest is dropped).
    private static func send(_ text: String, to input: Int32) -> Bool {
        var text = text
        return text.withUTF8 { FileDescriptor.writeAll(input, UnsafeRawBufferPointer($0)) } == nil
    }

    /// After the command: the held text to stdout (it fitted), or the pager's input closed
    /// and the pager waited for, so the shell's prompt comes back after it.
    func finish() {
        let started = state.withLock { state -> (pid_t, Int32)? in
            state.input >= 0 ? (state.pid, state.input) : nil
        }
        guard let (pid, input) = started else {
            flushDirect()
            return
        }
        Self.endRunning(pid: pid, input: input)
    }

    /// Whether a pager has the terminal: Ctrl-C there is for it, so resv ends without a line
    /// that would land in the middle of the pager's screen.
    static var isRunning: Bool { running.withLock { $0 != nil } }

    /// The last resort after Ctrl-C, about to end the process: the pager keeps the terminal
    /// until it quits, so its input is closed and it is waited for first.
    static func waitForRunning() {
        guard let (pid, input) = running.withLock({ $0 }) else { return }
        endRunning(pid: pid, input: input)
    }

    private static func endRunning(pid: pid_t, input: Int32) {
        let mine = running.withLock { running -> Bool in
            guard running?.pid == pid else { return false }
            running = nil
            return true
        }
        guard mine else { return }
        close(input)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
}
