import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking system call (a `flock` wait) that another thread can stop.
///
/// The caller's thread runs the call with `SIGUSR2` unblocked; `interrupt`
/// sends that signal to it, whose handler does nothing and is installed
/// without `SA_RESTART`, so the call returns `EINTR` and `run` gives up. A
/// signal that lands just before the call starts would interrupt nothing, so
/// the signal is sent again every 10 ms until `run` has returned.
public final class InterruptibleCall: Sendable {
    public enum Reason: Sendable {
        case timedOut
        case cancelled
    }

    public enum Outcome: Sendable, Equatable {
        /// The call's own result: 0, or the errno it failed with (never EINTR).
        case done(Int32)
        case interrupted(Reason)
    }

    private struct State {
        var thread: pthread_t?
        var reason: Reason?
        var finished = false
    }

    private let state = Mutex(State())

    public init() {}
    static let signal = SIGUSR2

    private static let handlerInstalled: Bool = {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0  // No SA_RESTART: the blocked call must return EINTR.
        return sigaction(InterruptibleCall.signal, &action, nil) == 0
    }()

    /// Runs `call` (0 or an errno) until it returns something other than
    /// EINTR, or until `interrupt` is called.
    public func run(_ call: () -> Int32) -> Outcome {
        _ = Self.handlerInstalled
        var mask = sigset_t()
        sigemptyset(&mask)
        sigaddset(&mask, Self.signal)
        let started = state.withLock { state -> Reason? in
            state.thread = pthread_self()
            return state.reason
        }
        if let started { return finish(.interrupted(started), mask: &mask) }
        pthread_sigmask(SIG_UNBLOCK, &mask, nil)
        while true {
            let result = call()
            if result != EINTR { return finish(.done(result), mask: &mask) }
            if let reason = state.withLock({ $0.reason }) { return finish(.interrupted(reason), mask: &mask) }
        }
    }

    /// Blocks the signal again (one still on its way stays pending, harmless)
    /// before saying the call is over, so it can never interrupt other work.
    private func finish(_ outcome: Outcome, mask: inout sigset_t) -> Outcome {
        pthread_sigmask(SIG_BLOCK, &mask, nil)
        state.withLock { $0.finished = true }
        return outcome
    }

    /// Stops the call from any thread; the first reason wins.
    public func interrupt(_ reason: Reason) {
        let first = state.withLock { state -> Bool in
            guard state.reason == nil, !state.finished else { return false }
            state.reason = reason
            return true
        }
        guard first else { return }
        DispatchQueue.global().async {
            while true {
                let (finished, target) = self.state.withLock { ($0.finished, $0.thread) }
                if finished { return }
                if let target { pthread_kill(target, Self.signal) }
                usleep(10_000)
            }
        }
    }
}
