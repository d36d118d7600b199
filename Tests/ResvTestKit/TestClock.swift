import Foundation
import ReservationCore
import Synchronization

/// A clock the test holds and moves: handed to an engine, a router or a cache
/// as its `now`, so that time passes without sleeping.
public final class TestClock: Sendable {
    private let date: Mutex<Date>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_900_000_000)) { date = Mutex(start) }

    /// The clock's time, as a `now` closure.
    public var now: @Sendable () -> Date { { self.date.withLock { $0 } } }

    public func advance(by seconds: TimeInterval) { date.withLock { $0 += seconds } }

    public func set(_ new: Date) { date.withLock { $0 = new } }
}

/// A wait clock the test holds and moves (`WaitClock`: how long has passed, and a
/// pause): a pause ends when the test has advanced the clock past its end, or when
/// its task is cancelled (CancellationError); a pause of nothing ends at once.
/// What a feed's long poll and the on-sale queue's patience wait on in tests.
public final class HeldWaitClock: Sendable {
    private struct Sleeper {
        let id: UInt64
        let end: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }
    private struct Watcher {
        let count: Int
        let continuation: CheckedContinuation<Void, Never>
    }
    private struct State {
        var now: Duration = .zero
        var next: UInt64 = 0
        var sleepers: [Sleeper] = []
        var watchers: [Watcher] = []

        /// The watchers whose number of pauses is now under way, taken out.
        mutating func satisfied() -> [Watcher] {
            let ready = watchers.filter { $0.count <= sleepers.count }
            watchers.removeAll { $0.count <= sleepers.count }
            return ready
        }
    }
    private let state = Mutex(State())

    public init() {}

    public var clock: WaitClock {
        WaitClock(elapsed: { self.elapsed }, pause: { try await self.sleep($0) })
    }

    /// How far the test has moved the clock.
    public var elapsed: Duration { state.withLock { $0.now } }

    private func sleep(_ duration: Duration) async throws {
        guard duration > .zero else { return }
        let id = state.withLock { state in
            defer { state.next += 1 }
            return state.next
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let (cancelled, ready) = state.withLock { state -> (Bool, [Watcher]) in
                    if Task.isCancelled { return (true, []) }
                    state.sleepers.append(Sleeper(id: id, end: state.now + duration, continuation: continuation))
                    return (false, state.satisfied())
                }
                for watcher in ready { watcher.continuation.resume() }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Returns once `count` pauses are under way (at once if they are).
    public func untilSleeping(_ count: Int = 1) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.sleepers.count >= count { return true }
                state.watchers.append(Watcher(count: count, continuation: continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Moves the clock on, ending the pauses it passes.
    public func advance(by duration: Duration) {
        let woken = state.withLock { state -> [Sleeper] in
            state.now += duration
            let woken = state.sleepers.filter { $0.end <= state.now }
            state.sleepers.removeAll { $0.end <= state.now }
            return woken
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }
}
