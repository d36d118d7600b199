import Foundation
import ReservationCore
import Synchronization

/// The memory engine: a server's storage that lives as long as the process,
/// for route tests that need no database. The rules are `Booking`'s over the
/// same ledger as the client's memory and file engines; this adds only what a
/// server keeps beside reservations: whose each one is, each user's history,
/// idempotency keys, tokens and calendar secrets. Writes run one at a time.
public enum MemoryStore {
    public static func open(catalog: LandmarkCatalog = .builtIn, now: @escaping @Sendable () -> Date) -> ServerStore {
        let state = MemoryState(MemoryData(ledger: ReservationLedger(records: [], catalog: catalog)))
        let signal = ChangeSignal()
        return ServerStore(
            engine: MemoryEngine(state: state, turns: OneAtATime(), signal: signal, now: now),
            tokens: MemoryTokens(state: state, now: now), calendars: MemoryCalendars(state: state, now: now),
            signal: signal, exclusive: true, cursorKey: Array(Schema.newKey().utf8))
    }
}

/// The memory engine's operations (`StorageEngine`): one write at a time.
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

    func storedResponse(_ user: UserID, _ key: String) async throws -> StoredResponse? {
        state.withLock { $0.keys[user]?[key]?.response }
    }

    func transact(
        _ user: UserID, _ catalog: LandmarkCatalog, _ key: IdempotencyKey?, _ work: @escaping ServerStore.Work
    )
        async throws -> Written<any Sendable>
    {
        try await turns.run {
            var data = state.withLock { $0 }
            if let key, let kept = data.keys[user]?[key.key] { return .replay(kept.response) }
            if data.ledger.catalog.landmarks != catalog.landmarks {
                data.ledger = ReservationLedger(
                    records: data.ledger.records, catalog: catalog, dayRules: data.ledger.dayRules)
            }
            let transaction = MemoryTransaction(user: user, data: data)
            let (value, keep) = try await work(transaction)
            data = transaction.data
            data.ledger = transaction.ledger.ledger
            if let key, let keep { data.keys[user, default: [:]][key.key] = (keep, key.receivedAt) }
            let at = now()
            for owner in transaction.touched {
                data.changedAt[owner] = CommitTime.next(after: data.changedAt[owner], at: at)
            }
            state.withLock { $0 = data }
            signal.ring(transaction.touched)
            return .done(value)
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

    func newestChange(_ user: UserID) async throws -> Int64 { state.withLock { Int64($0.history[user]?.count ?? 0) } }

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

/// One write of a user's: the ledger's transaction, limited to the user's own
/// reservations and history.
final class MemoryTransaction: BookingTransaction {
    let user: UserID
    let ledger: LedgerTransaction
    private(set) var data: MemoryData
    /// The users whose history this transaction added to.
    private(set) var touched: Set<UserID> = []

    init(user: UserID, data: MemoryData) {
        self.user = user
        self.data = data
        ledger = LedgerTransaction(data.ledger)
    }

    var catalog: LandmarkCatalog { ledger.catalog }

    /// One write at a time: nothing to order.
    func lockHistory(exclusive: Bool) async throws {}

    func recordsForUpdate(_ ids: [Reservation.ID]) async throws -> [Reservation.ID: StoredReservation] {
        try await ledger.recordsForUpdate(ids.filter { data.owners[$0] == user })
    }

    func takenIDs(_ ids: [Reservation.ID]) async throws -> Set<Reservation.ID> {
        Set(ids.filter { data.owners[$0] != nil })
    }

    func booked(_ days: [BookingDay], at now: Date) async throws -> [BookingDay: Int] {
        try await ledger.booked(days, at: now)
    }

    func waitlisted(_ days: [BookingDay]) async throws -> [BookingDay: [StoredReservation]] {
        try await ledger.waitlisted(days)
    }

    func dayRules(_ days: [BookingDay]) async throws -> [BookingDay: DayRule] { try await ledger.dayRules(days) }

    func setDayRules(_ rules: [DayRule]) async throws { try await ledger.setDayRules(rules) }

    func takingPlaces(_ days: [BookingDay], at now: Date) async throws -> [BookingDay: [StoredReservation]] {
        try await ledger.takingPlaces(days, at: now)
    }

    func dueHolds(on days: [BookingDay]?, at now: Date, limit: Int) async throws -> [StoredReservation] {
        try await ledger.dueHolds(on: days, at: now, limit: limit)
    }

    func liveHolds(at now: Date) async throws -> Int {
        data.reservations(of: user).count { $0.status == .held && $0.takesPlaces(at: now) }
    }

    func updateAny(_ reservations: [Reservation], entries: [HistoryEntry]) async throws {
        try await ledger.update(reservations)
        for entry in entries {
            guard let owner = data.owners[entry.reservationID] else { continue }
            touched.insert(owner)
            var entry = entry
            entry.user = nil
            data.history[owner, default: []].append(entry)
        }
    }

    func insert(_ reservations: [Reservation]) async throws {
        // An id is the key of every user's reservations: a client's own id may be taken.
        if let taken = reservations.first(where: { data.owners[$0.id] != nil }) {
            throw ReservationError.reservationIDInUse(taken.id)
        }
        try await ledger.insert(reservations)
        for reservation in reservations { data.owners[reservation.id] = user }
    }

    func update(_ reservations: [Reservation]) async throws { try await ledger.update(reservations) }

    func append(_ entries: [HistoryEntry]) async throws {
        if !entries.isEmpty { touched.insert(user) }
        data.history[user, default: []].append(
            contentsOf: entries.map { entry in
                var entry = entry
                entry.user = nil
                return entry
            })
    }

    func commandToUndo() async throws -> [HistoryEntry] { Undo.lastCommand(in: data.history[user] ?? []) }

    func undosSinceLastCommand() async throws -> [HistoryEntry] { data.history[user] ?? [] }
}

/// The memory engine's tokens.
struct MemoryTokens: TokenStore {
    let state: MemoryState
    let now: @Sendable () -> Date

    func create(_ token: NewToken) async throws -> UserID {
        state.withLock { data in
            let user = data.user(named: token.name, at: now())
            data.tokens[token.hash] = (
                TokenGrant(user: user, scope: token.scope, expiresAt: token.expiresAt),
                TokenInfo(
                    id: token.id, user: token.name, scope: token.scope, createdAt: now(), lastUsedAt: nil,
                    expiresAt: token.expiresAt)
            )
            return user
        }
    }

    func grant(_ hash: String) async throws -> TokenGrant? {
        state.withLock { data in
            guard var grant = data.tokens[hash]?.grant else { return nil }
            grant.name = data.names[grant.user]
            grant.tokenID = data.tokens[hash]?.info.id
            grant.access = data.access[grant.user] ?? .member
            return grant
        }
    }

    func list() async throws -> [TokenInfo] {
        state.withLock { data in
            data.tokens.values.map { $0.info }.sorted {
                ($0.user, $0.createdAt, $0.id) < ($1.user, $1.createdAt, $1.id)
            }
        }
    }

    func revoke(_ name: String, _ id: String?) async throws -> Int {
        state.withLock { data in
            let revoked = data.tokens.filter {
                $0.value.info.user == name && (id == nil || $0.value.info.id == id)
            }
            .map { $0.key }
            for hash in revoked { data.tokens[hash] = nil }
            return revoked.count
        }
    }

    func touch(_ hash: String, _ date: Date) async throws {
        state.withLock { data in
            guard let last = data.tokens[hash]?.info.lastUsedAt else {
                if data.tokens[hash] != nil { data.tokens[hash]?.info.lastUsedAt = date }
                return
            }
            if last < date.addingTimeInterval(-TokenRows.touchResolution) {
                data.tokens[hash]?.info.lastUsedAt = date
            }
        }
    }

    func name(_ user: UserID) async throws -> String? {
        state.withLock { $0.names[user] }
    }

    func user(named name: String) async throws -> UserID? { state.withLock { $0.users[name] } }

    func setAccess(_ name: String, _ access: UserAccess, create: Bool, mustBeNew: Bool) async throws -> AccessChange {
        state.withLock { data in
            let found = data.users[name]
            if found == nil && !create { return .unknownUser }
            if found != nil && mustBeNew { return .exists }
            let before = found.map { data.access[$0] ?? .member }
            if before?.role == .admin, access.role != .admin,
                data.access.values.count(where: { $0.role == .admin }) <= 1
            {
                return .lastAdmin
            }
            data.access[data.user(named: name, at: now())] = access
            return .changed(before: before)
        }
    }

    func users() async throws -> [UserInfo] {
        state.withLock { data in
            data.users.map { name, user in
                UserInfo(
                    name: name, access: data.access[user] ?? .member, createdAt: data.createdAt[user] ?? .distantPast,
                    tokens: data.tokens.values.count { $0.grant.user == user })
            }.sorted { $0.name < $1.name }
        }
    }

    func ping() async throws {}
}

/// The memory engine's calendars.
struct MemoryCalendars: CalendarStore {
    let state: MemoryState
    let now: @Sendable () -> Date

    func secret(_ user: UserID, _ make: Bool) async throws -> CalendarSecret? {
        state.withLock { data in
            if let found = data.calendars[user] { return found }
            guard make else { return nil }
            let made = CalendarSecret(secret: CalendarSecret.newSecret(), createdAt: Timestamp.whole(now()))
            data.calendars[user] = made
            return made
        }
    }

    func reset(_ user: UserID) async throws -> CalendarSecret {
        state.withLock { data in
            let made = CalendarSecret(secret: CalendarSecret.newSecret(), createdAt: Timestamp.whole(now()))
            data.calendars[user] = made
            return made
        }
    }

    func owner(_ secret: String) async throws -> CalendarOwner? {
        state.withLock { data in
            data.calendars.first { $0.value.secret == secret }.map {
                CalendarOwner(user: $0.key, createdAt: $0.value.createdAt, changedAt: data.changedAt[$0.key])
            }
        }
    }
}
