import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started with posix_spawn(3): the tests' one process runner.
///
/// Not Foundation's `Process`: on Linux its `run()` crashes the test process now and
/// then (swift-corelibs-foundation PR #5472: it copies whole `dirent`s while listing
/// /proc/self/fd, reading past the end of readdir's buffer).
///
/// The child gets exactly `environment`, its own process group (as `Process` gave),
/// an empty signal mask and every signal at its default: what a shell gives a
/// command, whichever thread of the test process starts it (threads of Swift
/// concurrency block most signals, which a child would otherwise inherit). It
/// inherits no descriptor of the test process but the three it is given.
public final class ChildProcess: Sendable {
    /// Where one of the child's standard streams goes.
    public enum Stream: Sendable {
        /// A pipe to or from the test process.
        case pipe
        /// /dev/null.
        case null
        /// The test process's own descriptor of the same number.
        case inherit
        /// A descriptor of the test process, duplicated for the child.
        case descriptor(Int32)
    }

    /// How the child ended.
    public enum Termination: Sendable, Equatable {
        case exited(Int32)
        case signalled(Int32)

        /// The exit status, or the number of the signal that ended the child:
        /// what Foundation's `Process.terminationStatus` reports.
        public var status: Int32 {
            switch self {
            case .exited(let code), .signalled(let code): code
            }
        }

        public var wasSignalled: Bool {
            if case .signalled = self { true } else { false }
        }
    }

    /// Everything the child wrote to its piped stdout and stderr.
    public struct Output: Sendable {
        public var stdout: Data
        public var stderr: Data
    }

    /// `environment`, and for `resv-server` an empty `RESV_SERVER_CONFIG` unless the test names
    /// one: a server a test starts never reads the machine's /etc/resv-server/config.json (an
    /// installed package's), so the suite answers the same with the package installed or not.
    public static func hermetic(_ environment: [String: String], for executable: String) -> [String: String] {
        guard executable.hasSuffix("/resv-server") || executable == "resv-server",
            environment["RESV_SERVER_CONFIG"] == nil
        else { return environment }
        return environment.merging(["RESV_SERVER_CONFIG": ""]) { mine, _ in mine }
    }

    public let pid: pid_t
    /// The test process's ends of the pipes (-1 where there is none, or once closed).
    private let pipes: Mutex<(input: Int32, output: Int32, errors: Int32)>
    /// Set once the child is reaped; until then `pid` is the child's and may be signalled.
    private let termination = Mutex<Termination?>(nil)

    public init(
        _ executable: String, _ arguments: [String], environment: [String: String], stdin: Stream = .null,
        stdout: Stream = .pipe, stderr: Stream = .pipe
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var ours: [Int32] = []  // The test process's ends, closed if the spawn fails.
        var theirs: [Int32] = []  // The child's ends, closed here once it has them.
        defer { for end in theirs { close(end) } }

        func plan(_ stream: Stream, as target: Int32, childReads: Bool) throws -> Int32 {
            switch stream {
            case .inherit:
                return -1
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_RDWR, 0)
                return -1
            case .descriptor(let descriptor):
                posix_spawn_file_actions_adddup2(&actions, descriptor, target)
                return -1
            case .pipe:
                // Close-on-exec: no other child, spawned meanwhile by another test, holds an end.
                var ends: [Int32] = [-1, -1]
                guard SpawnCalls.pipe2(&ends, O_CLOEXEC) == 0 else {
                    throw POSIXError(.init(rawValue: errno) ?? .EMFILE)
                }
                let (child, parent) = childReads ? (ends[0], ends[1]) : (ends[1], ends[0])
                theirs.append(child)
                ours.append(parent)
                // dup2 clears close-on-exec on the copy the child keeps.
                posix_spawn_file_actions_adddup2(&actions, child, target)
                return parent
            }
        }

        do {
            let input = try plan(stdin, as: STDIN_FILENO, childReads: true)
            let output = try plan(stdout, as: STDOUT_FILENO, childReads: false)
            let errors = try plan(stderr, as: STDERR_FILENO, childReads: false)
            // Whatever else the test process has open (sockets of other tests, their
            // pipes, a thousand idle connections) stays out of the child.
            SpawnCalls.closeFrom(&actions, 3)

            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            SpawnCalls.resetSignals(&attributes, flags: Int16(POSIX_SPAWN_SETPGROUP))
            posix_spawnattr_setpgroup(&attributes, 0)

            let argv = ([executable] + arguments).map { strdup($0) } + [nil]
            let envp =
                ChildProcess.hermetic(environment, for: executable).map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { for pointer in argv + envp { free(pointer) } }
            var child: pid_t = 0
            let status = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
            guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EINVAL) }
            pid = child
            pipes = Mutex((input, output, errors))
        } catch {
            for end in ours { close(end) }
            throw error
        }
    }

    deinit {
        let (input, output, errors) = pipes.withLock { $0 }
        for end in [input, output, errors] where end >= 0 { close(end) }
        // Never leave a zombie: reap on a thread of its own, without waiting here.
        if termination.withLock({ $0 }) == nil {
            let pid = self.pid
            Thread.detachNewThread {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            }
        }
    }

    // MARK: Input and output

    /// Writes `data` to the child's stdin (a pipe), waiting while the pipe is full.
    /// Throws EPIPE, never raising SIGPIPE, if the child no longer reads it.
    public func write(_ data: Data) throws {
        let descriptor = pipes.withLock { $0.input }
        guard descriptor >= 0 else { throw POSIXError(.EBADF) }
        let bytes = [UInt8](data)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { writeWithoutSIGPIPE(descriptor, $0) }
            if count < 0 {
                if errno == EINTR { continue }
                throw POSIXError(.init(rawValue: errno) ?? .EIO)
            }
            written += count
        }
    }

    /// Closes the child's stdin (a pipe): it reads end of file.
    public func closeStdin() {
        let descriptor = pipes.withLock { pipes in
            defer { pipes.input = -1 }
            return pipes.input
        }
        if descriptor >= 0 { close(descriptor) }
    }

    /// Writes `input` to the child's stdin and closes it, and meanwhile reads its stdout and
    /// stderr to the end (every process holding them has closed them), all in one poll loop:
    /// a full pipe either way never stalls the child nor this. Where a stream is not a pipe,
    /// `input` is not written, or the output is empty. Once only: the pipes are closed after.
    public func readToEnd(writing input: Data? = nil) -> Output {
        var (stdinEnd, stdoutEnd, stderrEnd) = pipes.withLock { pipes in
            defer { pipes = (-1, -1, -1) }
            return pipes
        }
        let pending = [UInt8](input ?? Data())
        var written = 0
        if stdinEnd >= 0 {
            if pending.isEmpty {
                close(stdinEnd)
                stdinEnd = -1
            } else {
                _ = fcntl(stdinEnd, F_SETFL, fcntl(stdinEnd, F_GETFL) | O_NONBLOCK)
            }
        }
        var output = Output(stdout: Data(), stderr: Data())
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while stdinEnd >= 0 || stdoutEnd >= 0 || stderrEnd >= 0 {
            var polled: [pollfd] = []
            if stdinEnd >= 0 { polled.append(pollfd(fd: stdinEnd, events: Int16(POLLOUT), revents: 0)) }
            if stdoutEnd >= 0 { polled.append(pollfd(fd: stdoutEnd, events: Int16(POLLIN), revents: 0)) }
            if stderrEnd >= 0 { polled.append(pollfd(fd: stderrEnd, events: Int16(POLLIN), revents: 0)) }
            guard poll(&polled, nfds_t(polled.count), -1) >= 0 else {
                if errno == EINTR { continue }
                break
            }
            for entry in polled where entry.revents != 0 {
                if entry.fd == stdinEnd {
                    let count = pending[written...].withUnsafeBytes { writeWithoutSIGPIPE(stdinEnd, $0) }
                    if count > 0 { written += count }
                    // All written, or the child reads no more (EPIPE): either way, done with stdin.
                    if written == pending.count || (count < 0 && errno != EAGAIN && errno != EINTR) {
                        close(stdinEnd)
                        stdinEnd = -1
                    }
                } else {
                    let count = buffer.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                    if count > 0 {
                        if entry.fd == stdoutEnd {
                            output.stdout.append(contentsOf: buffer[0..<count])
                        } else {
                            output.stderr.append(contentsOf: buffer[0..<count])
                        }
                    } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                        close(entry.fd)
                        if entry.fd == stdoutEnd { stdoutEnd = -1 } else { stderrEnd = -1 }
                    }
                }
            }
        }
        for end in [stdinEnd, stdoutEnd, stderrEnd] where end >= 0 { close(end) }
        return output
    }

    // MARK: Signals and exit

    /// Sends `signal` to the child, unless it has been reaped (its pid may be another's by then).
    public func signal(_ signal: Int32) {
        termination.withLock { termination in
            if termination == nil { _ = kill(pid, signal) }
        }
    }

    /// True once the child has ended (it is then reaped).
    public var hasExited: Bool { reap(options: WNOHANG) != nil }

    /// Waits for the child to end, blocking this thread, and reaps it.
    public func wait() -> Termination {
        while true {
            if let ended = reap(options: WNOHANG) { return ended }
            // Wait without reaping, so that `signal` cannot reach a reused pid meanwhile.
            var info = siginfo_t()
            if waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1 && errno != EINTR {
                return reap(options: WNOHANG) ?? .exited(-1)  // ECHILD: reaped elsewhere, status unknown.
            }
        }
    }

    /// Waits for the child to end on a thread of its own, leaving Swift concurrency's threads free.
    public func waitAsync() async -> Termination {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: self.wait()) }
        }
    }

    private func reap(options: Int32) -> Termination? {
        termination.withLock { termination in
            if let termination { return termination }
            var status: Int32 = 0
            var result: pid_t
            repeat { result = waitpid(pid, &status, options) } while result == -1 && errno == EINTR
            guard result == pid else { return nil }
            // WIFEXITED, WEXITSTATUS and WTERMSIG, which Swift does not import as macros.
            termination = status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signalled(status & 0x7F)
            return termination
        }
    }

    // MARK: Whole runs

    /// Runs `executable` to its end: `stdin` written to a pipe and closed (a pipe closed at
    /// once without it), stdout and stderr read to the end, the child reaped.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String], stdin: String?
    ) throws -> (Termination, Output) {
        let child = try ChildProcess(executable, arguments, environment: environment, stdin: .pipe)
        let output = child.readToEnd(writing: stdin.map { Data($0.utf8) })
        return (child.wait(), output)
    }

    /// `run` on a thread of its own, leaving Swift concurrency's threads free while the child runs.
    public static func runAsync(
        _ executable: String, _ arguments: [String], environment: [String: String], stdin: String?
    ) async throws -> (Termination, Output) {
        let child = try ChildProcess(executable, arguments, environment: environment, stdin: .pipe)
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let output = child.readToEnd(writing: stdin.map { Data($0.utf8) })
                continuation.resume(returning: (child.wait(), output))
            }
        }
    }
}

/// write(2) with SIGPIPE blocked on this thread: a reader that has gone is EPIPE, not a
/// signal that ends the test process. A SIGPIPE the write raised is taken back.
private func writeWithoutSIGPIPE(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
    var pipeSignal = sigset_t()
    sigemptyset(&pipeSignal)
    sigaddset(&pipeSignal, SIGPIPE)
    var previous = sigset_t()
    pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
    let count = write(descriptor, bytes.baseAddress, bytes.count)
    let error = errno
    if count < 0 && error == EPIPE {
        var pending = sigset_t()
        sigpending(&pending)
        if sigismember(&pending, SIGPIPE) == 1 {
            var now = timespec(tv_sec: 0, tv_nsec: 0)
            _ = sigtimedwait(&pipeSignal, nil, &now)
        }
    }
    pthread_sigmask(SIG_SETMASK, &previous, nil)
    errno = error
    return count
}

/// pipe2 and posix_spawn_file_actions_addclosefrom_np need _GNU_SOURCE, which the Glibc
/// module does not define; they are in libc all the same, so look them up by name.
public enum SpawnCalls {
    private typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    private static let pipe2Function: Pipe2 = {
        guard let symbol = dlsym(nil, "pipe2") else { fatalError("libc has no pipe2") }
        return unsafeBitCast(symbol, to: Pipe2.self)
    }()

    /// glibc 2.34 and later.
    private static let closeFromFunction: CloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
        unsafeBitCast($0, to: CloseFrom.self)
    }

    public static func pipe2(_ ends: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32 {
        pipe2Function(ends, flags)
    }

    /// Sets `flags` on `attributes`, and an empty signal mask and every signal at its default
    /// for the child: what a shell gives a command, not the mask of the spawning thread.
    public static func resetSignals(_ attributes: UnsafeMutablePointer<posix_spawnattr_t>, flags: Int16) {
        posix_spawnattr_setflags(attributes, flags | Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var signals = sigset_t()
        sigemptyset(&signals)
        posix_spawnattr_setsigmask(attributes, &signals)
        sigfillset(&signals)
        posix_spawnattr_setsigdefault(attributes, &signals)
    }

    /// Adds to `actions` the closing of every descriptor from `lowest` on.
    public static func closeFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ lowest: Int32) {
        if let closeFromFunction, closeFromFunction(actions, lowest) == 0 { return }
        // An older glibc: close each one that may be open (glibc ignores EBADF for these).
        for descriptor in lowest..<min(Int32(getdtablesize()), 65_536) {
            posix_spawn_file_actions_addclose(actions, descriptor)
        }
    }
}
