import Foundation
import ReservationCore

/// A user of the server: every token belongs to one, and every reservation.
public struct UserID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int64
    public init(_ rawValue: Int64) { self.rawValue = rawValue }
    public var description: String { String(rawValue) }
    /// No user: the system's own transactions (ending holds, promoting from
    /// waitlists), which touch only what `updateAny` and the days' reads do.
    public static let system = UserID(0)
}

/// An `Idempotency-Key` and the hash of the request it came with.
public struct IdempotencyKey: Sendable, Hashable {
    public var key: String
    public var requestHash: String
    /// When the request came: the kept response's age, for `purgeKeys`.
    public var receivedAt: Date

    public init(key: String, requestHash: String, receivedAt: Date) {
        self.key = key
        self.requestHash = requestHash
        self.receivedAt = receivedAt
    }
}

/// A response kept for an idempotency key, replayed byte for byte.
public struct StoredResponse: Sendable, Hashable {
    public var status: Int
    public var body: [UInt8]
    public var requestHash: String

    public init(status: Int, body: [UInt8], requestHash: String) {
        self.status = status
        self.body = body
        self.requestHash = requestHash
    }
}

/// What a write transaction did: the rule's answer, or the answer kept for
/// its idempotency key when the key was used before (its hash may differ from
/// this request's).
public enum Written<Value: Sendable>: Sendable {
    case done(Value)
    case replay(StoredResponse)
}

/// The server's storage, one value per database: its engine (a type per
/// database, `StorageEngine`, made by `SQLiteStore.open`, `PostgresStore.open`,
/// and for tests `MemoryStore.open` in the `MemoryEngine` target), its token
/// and calendar stores, and the parts every engine shares (the change signal,
/// the cursor key, the probe). It stores; the rules are `Booking`'s, run inside
/// `transaction`. Each operation is the engine's method of the same name (see
/// `StorageEngine` for what each does).
public struct ServerStore: Sendable {
    /// The work of one write transaction: a `Booking` rule over the engine's
    /// transaction, and the answer to keep for an idempotency key.
    public typealias Work =
        @Sendable (any BookingTransaction) async throws -> (value: any Sendable, keep: StoredResponse?)

    /// The engine every operation is run by.
    public var engine: any StorageEngine
    /// True when this process is the only writer (an SQLite file under its
    /// server lock), so reads may be cached between this process's writes.
    public var exclusive: Bool = false
    /// Creating, listing, revoking and checking tokens, and the health check.
    public var tokens: any TokenStore
    /// Each user's calendar subscription secret (`GET /calendar/{secret}.ics`).
    public var calendars: any CalendarStore
    /// Rung after each commit with the users whose history grew: wakes `GET /changes`.
    public var signal = ChangeSignal()
    /// The key this database's feed cursors are signed with (kept in it: every instance has the same).
    public var cursorKey: [UInt8] = []
    /// Whether the database answered the newest probe (PostgreSQL's; see `Reachability`).
    public var reachability = Reachability()

    public init(
        engine: any StorageEngine, tokens: any TokenStore, calendars: any CalendarStore, signal: ChangeSignal,
        exclusive: Bool = false, cursorKey: [UInt8] = []
    ) {
        self.engine = engine
        self.tokens = tokens
        self.calendars = calendars
        self.signal = signal
        self.exclusive = exclusive
        self.cursorKey = cursorKey
    }

    public func list(_ user: UserID) async throws -> [ReservationApiModel] { try await engine.list(user) }

    public func get(_ user: UserID, _ id: Reservation.ID) async throws -> ReservationApiModel? {
        try await engine.get(user, id)
    }

    public func locate(_ id: Reservation.ID) async throws -> (owner: UserID, record: ReservationApiModel)? {
        try await engine.locate(id)
    }

    public func parties(_ landmark: Landmark.ID, _ from: Date, _ to: Date, _ now: Date) async throws
        -> [(date: Date, partySize: Int)]
    {
        try await engine.parties(landmark, from, to, now)
    }

    public func manifest(_ landmark: Landmark.ID, _ from: Date, _ to: Date) async throws
        -> [(user: String, record: ReservationApiModel)]
    {
        try await engine.manifest(landmark, from, to)
    }

    public func dayRules(_ landmark: Landmark.ID, _ from: CalendarDay, _ to: CalendarDay) async throws -> [DayRule] {
        try await engine.dayRules(landmark, from, to)
    }

    public func waitlists(_ days: [BookingDay]) async throws -> [BookingDay: [String]] {
        try await engine.waitlists(days)
    }

    public func catalog(newerThan version: Int64) async throws -> StoredCatalog? {
        try await engine.catalog(newerThan: version)
    }

    public func changeCatalog(_ edit: @escaping @Sendable (StoredCatalog) throws -> [CatalogWrite]) async throws
        -> StoredCatalog
    {
        try await engine.changeCatalog(edit)
    }

    public func storedResponse(_ user: UserID, _ key: String) async throws -> StoredResponse? {
        try await engine.storedResponse(user, key)
    }

    public func transact(_ user: UserID, _ catalog: LandmarkCatalog, _ key: IdempotencyKey?, _ work: @escaping Work)
        async throws -> Written<any Sendable>
    {
        try await engine.transact(user, catalog, key, work)
    }

    /// The engine, when it decides a day's bookings in groups (`DayGrouping`);
    /// nil for one that runs one write at a time anyway.
    public var dayGrouping: (any DayGrouping)? { engine as? any DayGrouping }

    public func history(_ user: UserID, _ id: Reservation.ID?, _ limit: Int?) async throws -> [HistoryEntry] {
        try await engine.history(user, id, limit)
    }

    public func purgeKeys(_ olderThan: Date) async throws -> Int { try await engine.purgeKeys(olderThan) }

    public func close() async throws { try await engine.close() }

    public func changes(_ user: UserID, _ after: Int64, _ limit: Int) async throws
        -> [(sequence: Int64, entry: HistoryEntry)]
    {
        try await engine.changes(user, after, limit)
    }

    public func newestChange(_ user: UserID) async throws -> Int64 { try await engine.newestChange(user) }

    public func positionAfter(_ user: UserID, _ sequence: Int64) async throws -> Int64 {
        try await engine.positionAfter(user, sequence)
    }

    /// The engine, when other processes write to its database (`ChangeListening`);
    /// nil where this process is the only writer.
    public var listener: (any ChangeListening)? { engine as? any ChangeListening }

    /// A new key to sign feed cursors with, as a new database keeps (for an engine without a database).
    public static func newCursorKey() -> [UInt8] { Array(Schema.newKey().utf8) }
}

extension ServerStore {
    /// Runs a rule in one write transaction of the user's (see `transact`), or
    /// in the group of the one day it books (`grouped`, see `DayGrouping.transactDay`).
    public func transaction<Value: Sendable>(
        _ user: UserID, catalog: LandmarkCatalog, key: IdempotencyKey? = nil,
        grouped: (day: BookingDay, groups: DayGroups)? = nil,
        keep: @escaping @Sendable (Value) -> StoredResponse? = { _ in nil },
        _ rule: @escaping @Sendable (any BookingTransaction) async throws -> Value
    ) async throws -> Written<Value> {
        let work: Work = { transaction in
            let value = try await rule(transaction)
            return (value, keep(value))
        }
        let written =
            if let grouped {
                try await grouped.groups.submit(DayRequest(user: user, key: key, work: work), on: grouped.day)
            } else {
                try await transact(user, catalog, key, work)
            }
        switch written {
        case .replay(let kept): return .replay(kept)
        case .done(let value):
            guard let value = value as? Value else { throw DatabaseError.corruptRow("a transaction's answer") }
            return .done(value)
        }
    }
}

/// The row of a reservation, read into its wire record: sent as it is to
/// clients, and mapped once (`StoredReservation`) for the rules. Its columns
/// and the engines' statements are made from `ReservationField.stored`.
struct ReservationRow {
    /// The stored fields (`ReservationField.stored`): each a column of the table.
    static let fields = ReservationField.stored
    /// The fields a change writes (`UPDATE`): all but those set once.
    static let changing = fields.filter(\.changes)
    /// The columns read, in this order, by both engines: those of a record's keys.
    static let columns = read.map(\.column).joined(separator: ", ")
    /// The same columns of a table named `r` (for a join).
    static let columnsOfR = columns.split(separator: ",").map {
        "r." + $0.trimmingCharacters(in: .whitespacesAndNewlines)
    }.joined(separator: ", ")

    /// The fields read from a row, in the order of `columns`.
    static let read = ReservationField.read
}

/// SQL written once for both dialects, its conditions made from the core's
/// definitions (`Reservation.takesPlaces`, `holdEnded`, `waitlistPrecedes`);
/// `ConditionTests` checks each against them on every status and edge.
enum SharedSQL {
    /// A status as an SQL literal.
    static func literal(_ status: Reservation.Status) -> String { "'\(status.rawValue)'" }

    /// `status IN (…)` of `table` (never empty: `FALSE` for no statuses).
    static func status(_ table: String, in statuses: [Reservation.Status]) -> String {
        statuses.isEmpty ? "FALSE" : "\(table).status IN (\(statuses.map(literal).joined(separator: ", ")))"
    }

    /// A reservation of `table` takes places at `now` (`Reservation.takesPlaces(at:)`).
    static func takesPlaces(_ table: String = "reservations", now: String) -> String {
        """
        (\(status(table, in: Reservation.Status.takingPlaces)) OR \
        (\(status(table, in: Reservation.Status.takingPlacesUntilExpiry)) AND \(table).expires_at > \(now)))
        """
    }

    /// The reservations that count toward a landmark-day's capacity
    /// (`Reservation.countsTowardCapacity(at:)`): taking places, with a party
    /// size the domain allows (rows stored before the bound do not count).
    static func countsTowardCapacity(_ table: String = "reservations", now: String) -> String {
        """
        \(takesPlaces(table, now: now)) \
        AND \(table).party_size BETWEEN \(Reservation.partySizes.lowerBound) AND \(Reservation.partySizes.upperBound)
        """
    }

    /// A hold of `table` live at `now` (held, ending after it).
    static func liveHold(_ table: String = "reservations", now: String) -> String {
        "\(status(table, in: Reservation.Status.takingPlacesUntilExpiry)) AND \(table).expires_at > \(now)"
    }

    /// A hold of `table` that ended by `now` (`Reservation.holdEnded`).
    static func holdEnded(_ table: String = "reservations", now: String) -> String {
        "\(status(table, in: Reservation.Status.allCases.filter(\.endsByClock))) AND \(table).expires_at <= \(now)"
    }

    /// A waitlisted reservation of `table`.
    static func waitlisted(_ table: String = "reservations") -> String {
        "\(table).status = \(literal(.waitlisted))"
    }

    /// The order a day's waitlist is served in (`Reservation.waitlistPrecedes`): ids compared byte by byte.
    static func waitlistOrder(_ table: String = "reservations", in dialect: Schema.Dialect) -> String {
        "COALESCE(\(table).waitlist_order, 0), \(table).id\(dialect == .postgres ? #" COLLATE "C""# : "")"
    }

    /// The changes an undo never takes back (`Undo.isUndoable`), as an SQL list.
    private static let notUndoable = ([.undone, .redone] + HistoryEntry.Change.allCases.filter(\.isSystem))
        .map { "'\($0.rawValue)'" }.joined(separator: ", ")

    /// The entries of the user's newest command that is neither an undo nor
    /// undone, oldest first: `Undo.isUndoable` read from the newest entry (an
    /// entry of an undo, a redo, of the system or `undone` is not; one whose
    /// command a later undo took back is not, unless a later redo took that
    /// undo back), checked against it by `ConditionTests`.
    /// `user` is the user's id parameter; `column` what is selected.
    static func commandToUndo(user: String, column: String = "entry") -> String {
        """
        SELECT \(column) FROM history WHERE user_id = \(user) AND command = (
            SELECT h.command FROM history h WHERE h.user_id = \(user)
            AND h.undoes IS NULL AND h.change NOT IN (\(notUndoable))
            AND NOT EXISTS (
                SELECT 1 FROM history u WHERE u.user_id = h.user_id AND u.undoes = h.command AND u.position > h.position
                AND u.change <> 'redone'
                AND NOT EXISTS (
                    SELECT 1 FROM history r WHERE r.user_id = u.user_id AND r.undoes = u.command
                    AND r.change = 'redone' AND r.position > u.position))
            ORDER BY h.position DESC LIMIT 1)
        ORDER BY position
        """
    }

    /// The user's `undone` and `redone` entries after their newest change that is
    /// neither (nor the system's), oldest first: where `Undo.undoToRedo` finds
    /// the undo a redo takes back, checked against it by `ConditionTests`.
    static func undosSinceLastCommand(user: String, column: String = "entry") -> String {
        """
        SELECT \(column) FROM history WHERE user_id = \(user) AND change IN ('undone', 'redone')
        AND position > (
            SELECT COALESCE(MAX(position), 0) FROM history WHERE user_id = \(user) AND change NOT IN (\(notUndoable)))
        ORDER BY position
        """
    }
}

/// Failures of the server's database (opening, schema, rows), with what to do next.
public enum DatabaseError: Error, LocalizedError, Sendable {
    case cannotOpen(String, String)
    case badDatabaseURL(String, String)
    case newerSchema(String, found: Int, supported: Int)
    case corruptRow(String)
    case inUse(String)
    /// The database broke the transaction (deadlock, serialization failure) this many times in a row.
    case busy(attempts: Int)
    /// Too many bookings wait for one landmark-day (`DayGroups`), or waited too long for it.
    case crowded
    /// The PostgreSQL host in use did not show in time that it is still the primary
    /// (`PostgresCluster.confirm`): a read refused rather than answered from a deposed one.
    case unconfirmed(String)

    /// Whether the URL itself is wrong (a usage error), not the database behind it.
    public var isBadURL: Bool {
        if case .badDatabaseURL = self { true } else { false }
    }

    /// Whether the request may simply be sent again (`busy`, `crowded`): nothing was written.
    public var isBusy: Bool {
        switch self {
        case .busy, .crowded: true
        default: false
        }
    }

    public var errorDescription: String? {
        switch self {
        case .cannotOpen(let what, let why): "cannot open the database \(what): \(why)"
        case .badDatabaseURL(let url, let why): "'\(url)' is not a usable database URL: \(why)"
        case .newerSchema(let what, let found, let supported):
            "the database \(what) has schema version \(found), newer than this resv-server's \(supported): upgrade resv-server"
        case .corruptRow(let detail): "a stored row is not valid: \(detail)"
        case .inUse(let path): "another resv-server is serving \(path): stop it first, or give another --database"
        case .busy(let attempts):
            "the database broke this request's transaction \(attempts) times (deadlocks under load): send it again"
        case .crowded:
            "too many bookings are waiting for this landmark-day; nothing was booked: send it again shortly"
        case .unconfirmed(let host):
            "the database at \(host) did not confirm that it is still the primary (its synchronous standby did not acknowledge): nothing was read"
        }
    }
}

extension HistoryEntry {
    /// The entry as the history table's `entry` column holds it (its user is the row's).
    var storedText: String { String(decoding: json.encoded(), as: UTF8.self) }

    /// Reads an `entry` column; `user` is the name of the row's user.
    init(stored text: String?, user: String?) throws {
        guard let text, let json = try? JSONValue.parse(Data(text.utf8)), var entry = HistoryEntry(json: json) else {
            throw DatabaseError.corruptRow("a history entry is not valid: \(text?.prefix(200) ?? "NULL")")
        }
        entry.user = user
        self = entry
    }
}
