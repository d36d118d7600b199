import Foundation
import ResvTestKit

#if canImport(Glibc)
    import Glibc
#endif

/// Drives a program through a pseudo-terminal, as a person at a keyboard would:
/// the program is a session leader with the terminal as its controlling tty, so
/// Ctrl-C reaches it as SIGINT and readline sees a real terminal.
final class PseudoTerminal {
    struct Timeout: Error, CustomStringConvertible {
        var waitingFor: String
        var transcript: String
        var description: String { "timed out waiting for \(waitingFor.debugDescription); got:\n\(transcript)" }
    }

    private let master: Int32
    private let pid: pid_t
    private let slavePath: String
    /// Everything the program has written so far, its years as the test wrote them (`YearsAhead`).
    var transcript: String { YearsAhead.back(raw) }
    /// What the program wrote, as it wrote it.
    private var raw = ""
    /// Where the next `expect` starts looking.
    private var mark: String.Index

    init(_ executable: String, _ arguments: [String], environment: [String: String]) throws {
        master = PTYCalls.openpt(O_RDWR | O_NOCTTY)
        guard master >= 0, PTYCalls.grantpt(master) == 0, PTYCalls.unlockpt(master) == 0,
            let name = PTYCalls.ptsname(master)
        else {
            throw POSIXError(.ENXIO)
        }
        slavePath = String(cString: name)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Opened in the child after setsid, without O_NOCTTY: it becomes the controlling terminal.
        posix_spawn_file_actions_addopen(&actions, 0, slavePath, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        // The master, and whatever else the test process has open, stays out of the program.
        SpawnCalls.closeFrom(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        SpawnCalls.resetSignals(&attributes, flags: Int16(0x80))  // POSIX_SPAWN_SETSID

        let argv = ([executable] + arguments.map(YearsAhead.forward)).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EINVAL) }
        pid = child
        mark = raw.startIndex
    }

    deinit {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        close(master)
    }

    /// Sends `signal` to the program.
    func signal(_ signal: Int32) { kill(pid, signal) }

    /// Resizes the terminal, as a window does: the kernel sends SIGWINCH to the program.
    func resize(columns: Int, rows: Int = 40) throws {
        _ = try runProcess(
            "/bin/stty", ["-F", slavePath, "cols", String(columns), "rows", String(rows)],
            environment: ProcessInfo.processInfo.environment, stdin: nil)
    }

    /// Types `text` (control characters included: "\t" is Tab, "\u{03}" Ctrl-C).
    func send(_ text: String) {
        let bytes = Array(YearsAhead.forward(text).utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            sent += count
        }
    }

    /// Reads until the output since the last match contains `needle`; returns that output.
    /// The wait is `waitUntil`'s: a loaded machine can take many seconds to start a shell
    /// (zsh's compinit took more than 10 s in a full CI run); past its bound the program never
    /// showed `needle`, and the error carries the transcript.
    @discardableResult
    func expect(_ needle: String) throws -> String {
        var seen = ""
        do {
            try waitUntil("\(needle.debugDescription) on the terminal", every: .zero) {
                if let range = raw[mark...].range(of: YearsAhead.forward(needle)) {
                    seen = YearsAhead.back(String(raw[mark..<range.upperBound]))
                    mark = range.upperBound
                    return true
                }
                _ = readSome(waitingMilliseconds: 100)
                return false
            }
        } catch is WaitTimedOut {
            throw Timeout(waitingFor: needle, transcript: transcript)
        }
        return seen
    }

    /// The output that has arrived and not been matched yet, without waiting for more.
    func drain() -> String {
        while readSome(waitingMilliseconds: 0) {}
        let seen = YearsAhead.back(String(raw[mark...]))
        mark = raw.endIndex
        return seen
    }

    /// Whether the terminal echoes what is typed (a password prompt turns that off).
    var echoes: Bool {
        var settings = termios()
        return tcgetattr(master, &settings) == 0 && settings.c_lflag & tcflag_t(ECHO) != 0
    }

    /// Waits for the program to end and returns its exit status (nil when a signal ended it,
    /// or when it never did within `waitUntil`'s bound).
    func waitForExit() -> Int32? {
        var status: Int32 = 0
        do {
            try waitUntil("the program's end", every: .zero) {
                _ = readSome(waitingMilliseconds: 20)
                return waitpid(pid, &status, WNOHANG) == pid
            }
        } catch {
            return nil
        }
        // What it wrote before it ended and no poll read yet is still in the terminal: read
        // it to the end (EIO once drained), or a caller's transcript misses its last lines.
        while readSome(waitingMilliseconds: 50) {}
        // WIFEXITED / WEXITSTATUS, which Swift does not import as macros.
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : nil
    }

    private func readSome(waitingMilliseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, waitingMilliseconds) > 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
        guard count > 0 else {
            usleep(10_000)  // EIO once the program has exited: nothing more will come.
            return false
        }
        let markOffset = raw.utf8.distance(from: raw.startIndex, to: mark)
        raw += String(decoding: buffer[0..<count], as: UTF8.self)
        mark = raw.utf8.index(raw.startIndex, offsetBy: markOffset)
        return true
    }
}

/// posix_openpt and friends need _XOPEN_SOURCE, which the Glibc module does
/// not define; they are in libc all the same, so look them up by name.
private enum PTYCalls {
    typealias IntFunction = @convention(c) (Int32) -> Int32
    typealias NameFunction = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?

    static let openpt = function("posix_openpt", as: IntFunction.self)
    static let grantpt = function("grantpt", as: IntFunction.self)
    static let unlockpt = function("unlockpt", as: IntFunction.self)
    static let ptsname = function("ptsname", as: NameFunction.self)

    private static func function<T>(_ name: String, as type: T.Type) -> T {
        // RTLD_DEFAULT is a null handle on glibc: search the process's libraries.
        guard let symbol = dlsym(nil, name) else { fatalError("libc has no \(name)") }
        return unsafeBitCast(symbol, to: type)
    }
}
