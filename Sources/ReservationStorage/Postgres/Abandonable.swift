import Foundation
import ReservationCore
import Synchronization

/// Runs `work` in a task of its own and waits for its result, unless the caller is
/// cancelled first: then the caller stops waiting at once (`CancellationError`) and the
/// work is cancelled and left to end by itself.
///
/// For PostgreSQL: a statement sent on a connection the database is dropping (its
/// primary killed, or demoted in a switchover) can wait for an answer that never comes,
/// and postgres-nio does not end it on cancellation. A request waiting on it would wait
/// for ever, and hold the server's graceful shutdown; with this, the request is answered
/// (503, `DatabaseGate`) when the probe finds the database gone or the pool moved.
public func abandonable<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
    let waiter = Waiter<T>()
    // One task: the work ends the wait itself (whichever of it and the cancel comes first wins).
    let task = Task {
        do {
            waiter.end(with: .success(try await work()))
        } catch {
            waiter.end(with: .failure(error))
        }
    }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            waiter.wait(continuation)
        }
    } onCancel: {
        task.cancel()
        waiter.end(with: .failure(CancellationError()))
    }
}

/// The one continuation of `abandonable`, resumed once: by the result or by the cancel.
private final class Waiter<T: Sendable>: Sendable {
    private enum State {
        case before
        case waiting(CheckedContinuation<T, any Error>)
        case ended(Result<T, any Error>?)
    }
    private let state = Mutex<State>(.before)

    /// Keeps the continuation, or resumes it at once if it ended before it waited.
    func wait(_ continuation: CheckedContinuation<T, any Error>) {
        let ended = state.withLock { state -> Result<T, any Error>?? in
            guard case .ended(let result) = state else {
                state = .waiting(continuation)
                return .none
            }
            state = .ended(nil)
            return .some(result)
        }
        guard let ended else { return }
        continuation.resume(with: ended ?? .failure(CancellationError()))
    }

    func end(with result: Result<T, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<T, any Error>? in
            switch state {
            case .before:
                state = .ended(result)
                return nil
            case .waiting(let continuation):
                state = .ended(nil)
                return continuation
            case .ended:
                return nil
            }
        }
        continuation?.resume(with: result)
    }
}

/// An engine with every call `abandonable` (a decorator): a caller cancelled
/// stops waiting at once. `listen` is abandonable already, and passes through.
struct Abandoning<Base: StorageEngine>: StorageEngine {
    let base: Base

    init(_ base: Base) { self.base = base }

    func list(_ user: UserID) async throws -> [ReservationApiModel] {
        try await abandonable { try await base.list(user) }
    }

    func get(_ user: UserID, _ id: Reservation.ID) async throws -> ReservationApiModel? {
        try await abandonable { try await base.get(user, id) }
    }

    func locate(_ id: Reservation.ID) async throws -> (owner: UserID, record: ReservationApiModel)? {
        try await abandonable { try await base.locate(id) }
    }

    func dayRules(_ landmark: Landmark.ID, _ from: CalendarDay, _ to: CalendarDay) async throws -> [DayRule] {
        try await abandonable { try await base.dayRules(landmark, from, to) }
    }

    func catalog(newerThan version: Int64) async throws -> StoredCatalog? {
        try await abandonable { try await base.catalog(newerThan: version) }
    }

    func changeCatalog(_ edit: @escaping @Sendable (StoredCatalog) throws -> [CatalogWrite]) async throws
        -> StoredCatalog
    {
        try await abandonable { try await base.changeCatalog(edit) }
    }

    func parties(_ landmark: Landmark.ID, _ from: Date, _ to: Date, _ now: Date) async throws
        -> [(date: Date, partySize: Int)]
    {
        try await abandonable { try await base.parties(landmark, from, to, now) }
    }

    func manifest(_ landmark: Landmark.ID, _ from: Date, _ to: Date) async throws
        -> [(user: String, record: ReservationApiModel)]
    {
        try await abandonable { try await base.manifest(landmark, from, to) }
    }

    func waitlists(_ days: [BookingDay]) async throws -> [BookingDay: [String]] {
        try await abandonable { try await base.waitlists(days) }
    }

    func storedResponse(_ user: UserID, _ key: String) async throws -> StoredResponse? {
        try await abandonable { try await base.storedResponse(user, key) }
    }

    func transact(
        _ user: UserID, _ catalog: LandmarkCatalog, _ key: IdempotencyKey?, _ work: @escaping ServerStore.Work
    )
        async throws -> Written<any Sendable>
    {
        try await abandonable { try await base.transact(user, catalog, key, work) }
    }

    func history(_ user: UserID, _ id: Reservation.ID?, _ limit: Int?) async throws -> [HistoryEntry] {
        try await abandonable { try await base.history(user, id, limit) }
    }

    func purgeKeys(_ olderThan: Date) async throws -> Int {
        try await abandonable { try await base.purgeKeys(olderThan) }
    }

    func close() async throws { try await base.close() }

    func changes(_ user: UserID, _ after: Int64, _ limit: Int) async throws -> [(sequence: Int64, entry: HistoryEntry)]
    {
        try await abandonable { try await base.changes(user, after, limit) }
    }

    func newestChange(_ user: UserID) async throws -> Int64 {
        try await abandonable { try await base.newestChange(user) }
    }

    func positionAfter(_ user: UserID, _ sequence: Int64) async throws -> Int64 {
        try await abandonable { try await base.positionAfter(user, sequence) }
    }
}

extension Abandoning: DayGrouping where Base: DayGrouping {
    func transactDay(
        _ day: BookingDay, _ catalog: LandmarkCatalog, _ requests: [DayRequest],
        _ more: @escaping @Sendable () -> [DayRequest]
    ) async throws -> [DayOutcome?] {
        try await abandonable { try await base.transactDay(day, catalog, requests, more) }
    }
}

extension Abandoning: ChangeListening where Base: ChangeListening {
    func listen() async throws { try await base.listen() }
}

/// Token calls `abandonable`, as `Abandoning`'s.
struct AbandoningTokens<Base: TokenStore>: TokenStore {
    let base: Base

    init(_ base: Base) { self.base = base }

    func create(_ token: NewToken) async throws -> UserID { try await abandonable { try await base.create(token) } }
    func grant(_ hash: String) async throws -> TokenGrant? { try await abandonable { try await base.grant(hash) } }
    func list() async throws -> [TokenInfo] { try await abandonable { try await base.list() } }
    func revoke(_ name: String, _ id: String?) async throws -> Int {
        try await abandonable { try await base.revoke(name, id) }
    }
    func touch(_ hash: String, _ date: Date) async throws { try await abandonable { try await base.touch(hash, date) } }
    func name(_ user: UserID) async throws -> String? { try await abandonable { try await base.name(user) } }
    func user(named name: String) async throws -> UserID? {
        try await abandonable { try await base.user(named: name) }
    }
    func setAccess(_ name: String, _ access: UserAccess, create: Bool, mustBeNew: Bool) async throws -> AccessChange {
        try await abandonable { try await base.setAccess(name, access, create: create, mustBeNew: mustBeNew) }
    }
    func users() async throws -> [UserInfo] { try await abandonable { try await base.users() } }
    func ping() async throws { try await abandonable { try await base.ping() } }
}

/// Calendar calls `abandonable`, as `Abandoning`'s.
struct AbandoningCalendars<Base: CalendarStore>: CalendarStore {
    let base: Base

    init(_ base: Base) { self.base = base }

    func secret(_ user: UserID, _ make: Bool) async throws -> CalendarSecret? {
        try await abandonable { try await base.secret(user, make) }
    }
    func reset(_ user: UserID) async throws -> CalendarSecret { try await abandonable { try await base.reset(user) } }
    func owner(_ secret: String) async throws -> CalendarOwner? {
        try await abandonable { try await base.owner(secret) }
    }
}
