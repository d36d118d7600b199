import Foundation
import ReservationCore
import ReservationStorage
import Synchronization

/// The memory engine: a server's storage that lives as long as the process,
/// for tests that need no database (route tests, and the client's
/// `ReservationService.inMemory`, which is this engine with one user). Built for
/// tests only: neither `resv` nor `resv-server` compiles it. The rules are
/// `Booking`'s over the ledger the file store keeps too (`ReservationLedger`);
/// this adds only what a server keeps beside reservations: whose each one is,
/// each user's history, idempotency keys, tokens and calendar secrets. Writes
/// run one at a time.
public enum MemoryStore {
    public static func open(catalog: LandmarkCatalog = .builtIn, now: @escaping @Sendable () -> Date) -> ServerStore {
        let state = MemoryState(MemoryData(ledger: ReservationLedger(records: [], catalog: catalog)))
        let signal = ChangeSignal()
        return ServerStore(
            engine: MemoryEngine(state: state, turns: OneAtATime(), signal: signal, now: now),
            tokens: MemoryTokens(state: state, now: now), calendars: MemoryCalendars(state: state, now: now),
            signal: signal, exclusive: true, cursorKey: ServerStore.newCursorKey())
    }
}

struct MemoryEngine: StorageEngine {
    let state: MemoryState
    let turns: OneAtATime
    let signal: ChangeSignal
    let now: @Sendable () -> Date

    func list(_ user: UserID) async throws -> [ReservationApiModel] {
        state.withLock { data in
            data.reservations(of: user).sorted { ($0.date, $0.id.description) < ($1.date, $1.id.description) }
                .map(ReservationApiModel.init)
        }
    }

    func get(_ user: UserID, _ id: Reservation.ID) async throws -> ReservationApiModel? {
        state.withLock { data in data.reservations(of: user).first { $0.id == id }.map(ReservationApiModel.init)
        }
    }

    func locate(_ id: Reservation.ID) async throws -> (owner: UserID, record: ReservationApiModel)? {
        state.withLock { data in
            guard let owner = data.owners[id],
                let found = data.ledger.snapshot.reservations.first(where: { $0.id == id })
            else { return nil }
            return (owner, ReservationApiModel(found))
        }
    }

    func parties(_ landmark: Landmark.ID, _ from: Date, _ to: Date, _ now: Date) async throws
        -> [(date: Date, partySize: Int)]
    {
        state.withLock { data in
            data.ledger.snapshot.reservations.filter {
                $0.landmark.id == landmark && $0.date >= from && $0.date < to
                    && $0.countsTowardCapacity(at: now)
            }.map { (date: $0.date, partySize: $0.partySize) }
        }
    }

    func manifest(_ landmark: Landmark.ID, _ from: Date, _ to: Date) async throws
        -> [(user: String, record: ReservationApiModel)]
    {
        state.withLock { data in
            data.ledger.snapshot.reservations.filter { $0.landmark.id == landmark && $0.date >= from && $0.date < to }
                .sorted { ($0.date, $0.id.description) < ($1.date, $1.id.description) }
                .map { reservation in
                    let user = data.owners[reservation.id].flatMap { data.names[$0] } ?? ""
                    return (user: user, record: ReservationApiModel(reservation))
                }
        }
    }

    func dayRules(_ landmark: Landmark.ID, _ from: CalendarDay, _ to: CalendarDay) async throws -> [DayRule] {
        state.withLock { data in
            data.ledger.rules.values.filter { $0.landmark == landmark && $0.day >= from && $0.day <= to }
                .sorted { $0.day < $1.day }
        }
    }

    func waitlists(_ days: [BookingDay]) async throws -> [BookingDay: [String]] {
        let ledger = state.withLock { $0.ledger }
        return try await LedgerTransaction(ledger).waitlisted(days).mapValues {
            $0.compactMap { $0.reservation?.id.description }
        }
    }

    func catalog(newerThan version: Int64) async throws -> StoredCatalog? {
        state.withLock { data in
            data.catalog.version == 0 || data.catalog.version == version ? nil : data.catalog
        }
    }

    func changeCatalog(_ edit: @escaping @Sendable (StoredCatalog) throws -> [CatalogWrite]) async throws
        -> StoredCatalog
    {
        try await turns.run {
            let stored = state.withLock { $0.catalog }
            let writes = try edit(stored)
            guard !writes.isEmpty else { return stored }
            var records = stored.records
            for write in writes {
                if let index = records.firstIndex(where: { $0["id"] == .string(write.id.description) }) {
                    records[index] = write.record
                } else {
                    records.append(write.record)
                }
            }
            let changed = StoredCatalog(version: stored.version + 1, records: records)
            state.withLock { $0.catalog = changed }
            return changed
        }
    }

    func storedResponse(_ user: UserID, _ key: String) async throws -> StoredResponse? {
        state.withLock { $0.keys[user]?[key]?.response }
    }

    func transact(
        _ user: UserID, _ catalog: LandmarkCatalog, _ key: IdempotencyKey?, _ work: @escaping ServerStore.Work
    )
        async throws -> Written<any Sendable>
    {
        try await write(user, catalog) { transaction in
            if let key, let kept = transaction.data.keys[user]?[key.key] { return .replay(kept.response) }
            let (value, keep) = try await work(transaction)
            if let key, let keep { transaction.keep(keep, for: key) }
            return .done(value)
        }
    }

    /// One write of the user's, after the writes before it: `body` runs on a
    /// draft (`ReservationLedger.apply`, with what a server keeps beside it),
    /// all of which is kept when it returns and none when it throws; then the
    /// users whose history grew have their commit time moved on (`CommitTime`)
    /// and are told (`ChangeSignal`).
    func write<Value: Sendable>(
        _ user: UserID, _ catalog: LandmarkCatalog,
        _ body: @escaping @Sendable (MemoryTransaction) async throws -> Value
    ) async throws -> Value {
        try await turns.run {
            var data = state.withLock { $0 }
            let stored = data.catalog
            let catalog = stored.version == 0 || stored.version == catalog.version ? catalog : stored.over(catalog)
            if data.ledger.catalog.landmarks != catalog.landmarks || data.ledger.catalog.retired != catalog.retired {
                data.ledger = ReservationLedger(
                    records: data.ledger.records, catalog: catalog, dayRules: data.ledger.dayRules)
            }
            let before = data
            let (value, transaction) = try await data.ledger.apply { draft in
                let transaction = MemoryTransaction(user: user, data: before, ledger: draft)
                return (try await body(transaction), transaction)
            }
            let ledger = data.ledger
            data = transaction.data
            data.ledger = ledger
            let at = now()
            for owner in transaction.touched {
                data.changedAt[owner] = CommitTime.next(after: data.changedAt[owner], at: at)
            }
            state.withLock { $0 = data }
            signal.ring(transaction.touched)
            return value
        }
    }

    func history(_ user: UserID, _ id: Reservation.ID?, _ limit: Int?) async throws -> [HistoryEntry] {
        state.withLock { data in
            let name = data.names[user]
            let newestFirst = (data.history[user] ?? []).reversed().lazy.filter {
                id == nil || $0.reservationID == id
            }
            return newestFirst.prefix(max(0, limit ?? .max)).map { entry in
                var entry = entry
                entry.user = name
                return entry
            }
        }
    }

    func purgeKeys(_ cutoff: Date) async throws -> Int {
        state.withLock { data in
            var purged = 0
            for user in data.keys.keys {
                let before = data.keys[user]?.count ?? 0
                data.keys[user] = data.keys[user]?.filter { $0.value.at >= cutoff }
                purged += before - (data.keys[user]?.count ?? 0)
            }
            return purged
        }
    }

    func close() async throws {}

    /// A user's change number n is their n-th.
    func changes(_ user: UserID, _ after: Int64, _ limit: Int) async throws -> [(sequence: Int64, entry: HistoryEntry)]
    {
        numbered(user, after: after, limit: limit)
    }

    /// `changes`, read at once (the client's feed reads it while it polls).
    func numbered(_ user: UserID, after: Int64, limit: Int) -> [(sequence: Int64, entry: HistoryEntry)] {
        state.withLock { data in
            let history = data.history[user] ?? []
            let name = data.names[user]
            let first = Int(clamping: max(0, after))
            guard first < history.count else { return [] }
            return history.indices.dropFirst(first).prefix(max(0, limit)).map { index in
                var entry = history[index]
                entry.user = name
                return (Int64(index + 1), entry)
            }
        }
    }

    /// `newestChange`, read at once.
    func newest(_ user: UserID) -> Int64 { state.withLock { Int64($0.history[user]?.count ?? 0) } }

    func newestChange(_ user: UserID) async throws -> Int64 { newest(user) }

    /// Numbers never changed meaning here: a cursor's `seq` is its position.
    func positionAfter(_ user: UserID, _ sequence: Int64) async throws -> Int64 { sequence }
}

/// The memory engine's data, shared by its engine, tokens and calendars.
final class MemoryState: Sendable {
    private let data: Mutex<MemoryData>

    init(_ data: MemoryData) { self.data = Mutex(data) }

    func withLock<T>(_ body: (inout MemoryData) throws -> T) rethrows -> T { try data.withLock { try body(&$0) } }
}

/// Everything the memory engine keeps.
struct MemoryData: Sendable {
    /// Every user's reservations, as the client's engines keep theirs (its own history unused).
    var ledger: ReservationLedger
    /// The catalog as a database would store it (`StoredCatalog`): none until a change.
    var catalog = StoredCatalog(version: 0, records: [])
    var owners: [Reservation.ID: UserID] = [:]
    /// Each user's changes, oldest first.
    var history: [UserID: [HistoryEntry]] = [:]
    var keys: [UserID: [String: (response: StoredResponse, at: Date)]] = [:]
    var users: [String: UserID] = [:]
    var names: [UserID: String] = [:]
    /// By token hash.
    var tokens: [String: (grant: TokenGrant, info: TokenInfo)] = [:]
    var calendars: [UserID: CalendarSecret] = [:]
    /// Each user's role and landmarks (a user absent here is a member), and when they were made.
    var access: [UserID: UserAccess] = [:]
    var createdAt: [UserID: Date] = [:]
    /// When each user's newest change committed (`CommitTime`).
    var changedAt: [UserID: Date] = [:]

    /// The user of this name, made when new.
    mutating func user(named name: String, at date: Date) -> UserID {
        if let found = users[name] { return found }
        let user = UserID(Int64(users.count + 1))
        users[name] = user
        names[user] = name
        createdAt[user] = date
        return user
    }

    func reservations(of user: UserID) -> [Reservation] {
        ledger.snapshot.reservations.filter { owners[$0.id] == user }
    }
}
