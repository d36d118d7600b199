import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Ctrl-C (SIGINT) for the whole process.
///
/// The handler only writes a byte to a pipe, which is all a signal handler
/// may safely do; one thread reads the pipe and runs the innermost action that
/// `whileRunning` installed: cancel the command that runs, or nothing (the
/// REPL at its prompt, where Ctrl-C is a key that readline handles, never a
/// signal: see `LineEditor`). Commands notice cancellation where they wait:
/// the store's lock, a request in flight, a batch before its write.
enum Interrupts {
    private struct Entry: Sendable {
        var id: Int
        var action: @Sendable () -> Void
    }

    private static let writeEnd = Atomic<Int32>(-1)
    /// How many Ctrl-Cs the process has received, counted in the handler itself: the actions
    /// run later on the reader thread, and a command may end meanwhile (see `Resv.runProcess`).
    static let received = Atomic<Int>(0)
    private static let state = Mutex<(installed: Bool, next: Int, stack: [Entry])>((false, 0, []))

    /// Whether a Ctrl-C has come: counted by the handler, or raised and not yet handled. A
    /// signal is raised at the key but handled when the thread it went to next runs, which on a
    /// busy machine can be after the command ended; the threads that run commands block SIGINT
    /// (libdispatch's workers do), so one still waiting shows in their pending set.
    static var hasArrived: Bool {
        if received.load(ordering: .sequentiallyConsistent) > 0 { return true }
        var pending = sigset_t()
        return sigpending(&pending) == 0 && sigismember(&pending, SIGINT) == 1
    }

    /// Routes SIGINT to the actions; once per process, before any command runs.
    static func install() {
        let first = state.withLock { state -> Bool in
            defer { state.installed = true }
            return !state.installed
        }
        guard first else { return }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return }  // Without a pipe, Ctrl-C keeps its default: the process ends.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        writeEnd.store(ends[1], ordering: .sequentiallyConsistent)
        let readEnd = ends[0]
        let reader = Thread {
            var byte: UInt8 = 0
            while true {
                let count = read(readEnd, &byte, 1)
                if count < 0 && errno == EINTR { continue }
                guard count == 1 else { return }
                let action = state.withLock { $0.stack.last?.action }
                action?()
            }
        }
        reader.name = "resv-interrupts"
        reader.start()

        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            let saved = errno
            Interrupts.received.wrappingAdd(1, ordering: .relaxed)
            var byte: UInt8 = 1
            _ = write(Interrupts.writeEnd.load(ordering: .relaxed), &byte, 1)
            errno = saved
        }
        sigemptyset(&action.sa_mask)
        // Restart interrupted system calls: Ctrl-C is handled by the reader thread, not by an EINTR
        // surfacing in whatever the process happened to be doing.
        action.sa_flags = SA_RESTART
        sigaction(SIGINT, &action, nil)
    }

    /// Runs `body` with `action` as what Ctrl-C does until it returns.
    static func whileRunning<T>(
        onInterrupt action: @escaping @Sendable () -> Void, _ body: () async throws -> T
    ) async rethrows -> T {
        let id = state.withLock { state -> Int in
            state.next += 1
            state.stack.append(Entry(id: state.next, action: action))
            return state.next
        }
        defer { state.withLock { $0.stack.removeAll { $0.id == id } } }
        return try await body()
    }

    /// Runs `operation` in a task of its own that Ctrl-C cancels; `alsoOnInterrupt`
    /// runs after the cancel (the shell's last resort, for instance).
    static func cancellable<T: Sendable>(
        alsoOnInterrupt: (@Sendable () -> Void)? = nil, _ operation: @escaping @Sendable () async -> T
    ) async -> T {
        let task = Task { await operation() }
        return await whileRunning(
            onInterrupt: {
                task.cancel()
                alsoOnInterrupt?()
            },
            { await task.value })
    }

    /// Ignores Ctrl-C while `body` runs (the REPL between commands: readline takes the key itself).
    static func ignored<T>(_ body: () async throws -> T) async rethrows -> T {
        try await whileRunning(onInterrupt: {}, body)
    }
}
