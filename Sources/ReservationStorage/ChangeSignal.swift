import Foundation
import ReservationCore
import Synchronization

/// Wakes the long polls of `GET /changes` when a user's history grows: an
/// engine rings it after each commit with the users whose history got
/// entries (on PostgreSQL, every instance rings its own from the database's
/// notifications). A poll notes `mark(user)` before it reads, and waits only
/// while the mark is unchanged, so a change committed between its read and its
/// wait is never missed.
public final class ChangeSignal: Sendable {
    /// A user's position in the signal: their rings and every ring for all.
    public struct Mark: Equatable, Sendable {
        let everyone: UInt64
        let user: UInt64
    }

    private struct Waiter {
        let user: UserID
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var everyone: UInt64 = 0
        var users: [UserID: UInt64] = [:]
        var waiters: [UInt64: Waiter] = [:]
        /// Waits ended (timed out) before they were registered.
        var ended: Set<UInt64> = []
        /// Waits woken (or never registered, already rung), not yet ended.
        var finished: Set<UInt64> = []
        var nextID: UInt64 = 0

        func mark(_ user: UserID) -> Mark { Mark(everyone: everyone, user: users[user, default: 0]) }
    }

    private let state = Mutex(State())

    public init() {}

    public func mark(_ user: UserID) -> Mark { state.withLock { $0.mark(user) } }

    /// Wakes the waits of `users`; nil wakes every wait (a change whose users are not known).
    public func ring(_ users: Set<UserID>?) {
        let woken: [Waiter] = state.withLock { state in
            if let users {
                guard !users.isEmpty else { return [] }
                for user in users { state.users[user, default: 0] &+= 1 }
                let woken = state.waiters.filter { users.contains($0.value.user) }
                for id in woken.keys {
                    state.waiters[id] = nil
                    state.finished.insert(id)
                }
                return Array(woken.values)
            }
            state.everyone &+= 1
            state.finished.formUnion(state.waiters.keys)
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in woken { waiter.continuation.resume() }
    }

    /// How many waits are under way (for the server's metrics and tests).
    public var waiting: Int { state.withLock { $0.waiters.count } }

    /// Returns when `user` is rung after `mark`, or after `timeout`, or when the task is cancelled.
    public func wait(_ user: UserID, since mark: Mark, for timeout: Duration) async {
        let id = state.withLock { state in
            state.nextID &+= 1
            return state.nextID
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.register(id, user: user, since: mark) }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
            self.end(id)
        }
    }

    /// (A cancelled task ends its wait through `wait`: the sleep beside it returns at once.)
    private func register(_ id: UInt64, user: UserID, since mark: Mark) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.ended.remove(id) != nil { return true }
                if state.mark(user) != mark {
                    state.finished.insert(id)
                    return true
                }
                state.waiters[id] = Waiter(user: user, continuation: continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Ends a wait: resumes it if registered, else notes that it need not start.
    private func end(_ id: UInt64) {
        let waiter: Waiter? = state.withLock { state in
            if let waiter = state.waiters.removeValue(forKey: id) { return waiter }
            // Woken already, or not registered yet: then it must not wait when it comes.
            if state.finished.remove(id) == nil { state.ended.insert(id) }
            return nil
        }
        waiter?.continuation.resume()
    }
}

/// The users a transaction gave history entries to, for `ChangeSignal.ring` after its commit.
final class TouchedUsers: Sendable {
    private let users = Mutex<Set<UserID>>([])

    func insert(_ user: UserID) { users.withLock { _ = $0.insert(user) } }
    func insert<S: Sequence>(contentsOf more: S) where S.Element == UserID { users.withLock { $0.formUnion(more) } }
    var all: Set<UserID> { users.withLock { $0 } }
}

/// Whether a transaction has written reservations yet (shared by a group's members).
final class WrittenRows: Sendable {
    private let written = Mutex(false)

    func mark() { written.withLock { $0 = true } }
    var any: Bool { written.withLock { $0 } }
}

/// The history entries a transaction wrote, each with the user whose history it
/// goes to, in order: kept until the transaction numbers and writes them at its end.
final class PendingEntries: Sendable {
    private let entries = Mutex<[(owner: UserID, entry: HistoryEntry)]>([])

    func append(_ more: [(owner: UserID, entry: HistoryEntry)]) { entries.withLock { $0 += more } }
    var all: [(owner: UserID, entry: HistoryEntry)] { entries.withLock { $0 } }
}

/// Tasks that wait until a condition holds: each is woken when `wakeAll` is called
/// (after whoever changes the condition has changed it), or when it is cancelled.
/// The condition is checked under this lock as a waiter registers, so no wake is lost.
public final class Waiters: Sendable {
    private let state = Mutex<(next: UInt64, waiting: [UInt64: CheckedContinuation<Void, Never>])>((0, [:]))

    public init() {}

    /// How many wait now.
    public var count: Int { state.withLock { $0.waiting.count } }

    /// Returns at once if `ready()` holds, else at the next `wakeAll` or on cancellation.
    public func wait(unless ready: @Sendable () -> Bool) async {
        let id = state.withLock { state in
            state.next &+= 1
            return state.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Bool in
                    if ready() || Task.isCancelled { return true }
                    state.waiting[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiting.removeValue(forKey: id) }?.resume()
        }
    }

    /// Wakes every task waiting now.
    public func wakeAll() {
        let woken = state.withLock { state in
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for continuation in woken { continuation.resume() }
    }
}

/// Whether the database answered the newest probe: while it does not, a
/// request waits at most `patience` for a probe to find it again (a failover
/// takes seconds), then is answered 503, rather than wait for the connection
/// pool to give up (a minute and more); the requests under way when a probe
/// finds it gone are answered so too. Reachable until a probe says otherwise;
/// `probe` is nil where there is nothing to lose (an SQLite file).
public final class Reachability: Sendable {
    private let reachable = Mutex(true)
    /// Those waiting for the database to go (`lost`), and for it to come back (`regained`).
    private let losing = Waiters()
    private let returning = Waiters()
    /// Connects anew and says whether the database answered (within its own bound).
    public let probe: (@Sendable () async -> Bool)?
    /// How long a request that finds the database unreachable waits for it (`regained`).
    public let patience: Duration

    public init(probe: (@Sendable () async -> Bool)? = nil, patience: Duration = .seconds(2)) {
        self.probe = probe
        self.patience = patience
    }

    public var isReachable: Bool { reachable.withLock { $0 } }

    /// How many requests wait in `regained` now (for tests that act while one waits).
    public var waitingForReturn: Int { returning.count }

    /// True at once if reachable; else whether a probe finds the database within `patience`.
    public func regained() async -> Bool {
        if isReachable { return true }
        guard patience > .zero else { return false }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask { [self] in
                await returning.wait { self.isReachable }
                return isReachable
            }
            group.addTask { [patience] in
                try? await Task.sleep(for: patience)
                return false
            }
            defer { group.cancelAll() }
            return await group.next() ?? false
        }
    }

    /// Records a probe's answer; returns whether it changed. Losing the database
    /// ends every `lost()` waiting, finding it every `regained()`.
    @discardableResult
    public func record(_ reachable: Bool) -> Bool {
        let changed = self.reachable.withLock { state in
            defer { state = reachable }
            return state != reachable
        }
        if reachable { returning.wakeAll() } else { losing.wakeAll() }
        return changed
    }

    /// Ends every `lost()` waiting now, the database reachable or not: the pool moved to
    /// another host, and what was under way on the old one may never be answered.
    public func interrupt() { losing.wakeAll() }

    /// Returns when a probe finds the database unreachable (at once if the
    /// newest did), or when the task is cancelled.
    public func lost() async { await losing.wait { !self.isReachable } }
}
