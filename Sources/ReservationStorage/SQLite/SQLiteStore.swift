import Foundation
import Logging
import ReservationCore
import SQLiteNIO
import Synchronization

/// The SQLite engine: one file in WAL mode with `synchronous=FULL`, so a
/// reservation is on disk before the client hears of it. Writes go through one
/// connection that commits whatever requests are waiting in one transaction
/// (group commit: many bookings per fsync, each in its own savepoint); reads
/// use their own connections and never wait for a write.
public enum SQLiteStore {
    static let readerCount = 2

    /// Opens (creating) the database at `path`. With `serving`, takes the
    /// file's server lock first (`PATH.lock`): one server per file, which lets
    /// it cache reads between its own writes. `token create` needs no lock.
    public static func open(
        path: String, serving: Bool = false, logger: Logger, now: @escaping @Sendable () -> Date
    ) async throws -> ServerStore {
        let lock = serving ? try ServerLock(path + ".lock", database: path) : nil
        let writeConnection: SQLiteConnection
        do {
            writeConnection = try await connect(path, logger: logger)
            do {
                try await migrate(writeConnection, path: path)
            } catch {
                try? await writeConnection.close()
                throw error
            }
        } catch {
            lock?.release()
            throw error
        }
        var readers: [SQLiteConnection] = []
        for _ in 0..<readerCount {
            let reader = try await connect(path, logger: logger)
            _ = try await reader.query("PRAGMA query_only = ON")
            readers.append(reader)
        }
        let writer = SQLiteWriter(writeConnection)
        let pool = SQLiteReaders(readers)
        let signal = ChangeSignal()
        let key = try await writeConnection.query("SELECT value FROM meta WHERE name = 'cursor_key'").first?
            .column("value")?.string
        return ServerStore(
            engine: SQLiteEngine(
                writeConnection: writeConnection, writer: writer, readers: pool, signal: signal, lock: lock, now: now),
            tokens: SQLiteTokens(writer: writer, readers: pool, now: now),
            calendars: SQLiteCalendars(writer: writer, readers: pool, now: now), signal: signal, exclusive: serving,
            cursorKey: Array((key ?? "").utf8))
    }

    /// A row of `ReservationRow.columns`, read by `ReservationField`.
    static func record(_ row: SQLiteRow) throws -> ReservationApiModel {
        let values = ReservationRow.read.map { field -> StoredValue in
            let cell = row.column(field.column)
            return switch field.kind {
            case .text: cell?.string.map { .text($0) } ?? .null
            case .integer: cell?.integer.map { .integer($0) } ?? .null
            case .real: cell?.double.map { .real($0) } ?? .null
            }
        }
        guard let record = ReservationField.record(values) else { throw DatabaseError.corruptRow("\(row)") }
        return record
    }

    /// Keeps the answer to a keyed request.
    static func keep(_ response: StoredResponse, for key: IdempotencyKey, of user: UserID, in db: SQLiteConnection)
        async throws
    {
        _ = try await db.query(
            """
            INSERT INTO idempotency_keys (user_id, key, request_hash, status, body, created_at)
            VALUES (?, ?, ?, ?, ?, ?)
            """,
            [
                .integer(Int(user.rawValue)), .text(key.key), .text(response.requestHash), .integer(response.status),
                .blob(ByteBuffer(bytes: response.body)), .float(key.receivedAt.timeIntervalSince1970),
            ])
    }

    static func storedResponse(_ db: SQLiteConnection, user: UserID, key: String) async throws
        -> StoredResponse?
    {
        guard
            let row = try await db.query(
                "SELECT request_hash, status, body FROM idempotency_keys WHERE user_id = ? AND key = ?",
                [.integer(Int(user.rawValue)), .text(key)]
            ).first
        else { return nil }
        guard let hash = row.column("request_hash")?.string, let status = row.column("status")?.integer,
            let body = row.column("body")?.blob
        else { throw DatabaseError.corruptRow("idempotency key \(key)") }
        return StoredResponse(status: status, body: Array(body.readableBytesView), requestHash: hash)
    }

    private static func connect(_ path: String, logger: Logger) async throws -> SQLiteConnection {
        do {
            let connection = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
            _ = try await connection.query("PRAGMA busy_timeout = 10000")
            return connection
        } catch {
            throw DatabaseError.cannotOpen(path, "\(error)")
        }
    }

    /// Creates the schema in a new file, or checks an existing one's version.
    private static func migrate(_ db: SQLiteConnection, path: String) async throws {
        _ = try await db.query("PRAGMA journal_mode = WAL")
        _ = try await db.query("PRAGMA synchronous = FULL")
        let version = try await db.query("PRAGMA user_version").first?.column("user_version")?.integer ?? 0
        if version > Schema.version { throw DatabaseError.newerSchema(path, found: version, supported: Schema.version) }
        guard version < Schema.version else { return }
        _ = try await db.query("BEGIN IMMEDIATE")
        do {
            for statement in Schema.statements(.sqlite, from: version) {
                _ = try await db.query(statement)
            }
            _ = try await db.query("PRAGMA user_version = \(Schema.version)")
            _ = try await db.query("COMMIT")
        } catch {
            _ = try? await db.query("ROLLBACK")
            throw error
        }
    }
}

/// The SQLite engine's operations (`StorageEngine`): reads on the readers, writes
/// through the one writer, which also decides a landmark-day's group (`DayGrouping`).
struct SQLiteEngine: DayGrouping {
    let writeConnection: SQLiteConnection
    let writer: SQLiteWriter
    let readers: SQLiteReaders
    let signal: ChangeSignal
    /// The file's server lock, released at `close` (nil for `token create`).
    let lock: ServerLock?
    let now: @Sendable () -> Date

    private func reader() -> SQLiteConnection { readers.next() }

    func list(_ user: UserID) async throws -> [ReservationApiModel] {
        try await reader().query(
            "SELECT \(ReservationRow.columns) FROM reservations WHERE user_id = ? ORDER BY starts_at, id",
            [.integer(Int(user.rawValue))]
        ).map(SQLiteStore.record)
    }

    func get(_ user: UserID, _ id: Reservation.ID) async throws -> ReservationApiModel? {
        try await reader().query(
            "SELECT \(ReservationRow.columns) FROM reservations WHERE id = ? AND user_id = ?",
            [.text(id.description), .integer(Int(user.rawValue))]
        ).first.map(SQLiteStore.record)
    }

    func locate(_ id: Reservation.ID) async throws -> (owner: UserID, record: ReservationApiModel)? {
        guard
            let row = try await reader().query(
                "SELECT user_id, \(ReservationRow.columns) FROM reservations WHERE id = ?", [.text(id.description)]
            ).first, let owner = row.column("user_id")?.integer
        else { return nil }
        return (UserID(Int64(owner)), try SQLiteStore.record(row))
    }

    func parties(_ landmark: Landmark.ID, _ from: Date, _ to: Date, _ now: Date) async throws
        -> [(date: Date, partySize: Int)]
    {
        try await reader().query(
            """
            SELECT starts_at, party_size FROM reservations
            WHERE landmark_id = ?1 AND starts_at >= ?2 AND starts_at < ?3
            AND \(SharedSQL.countsTowardCapacity(now: "?4"))
            """,
            [
                .text(landmark.description), .float(from.timeIntervalSince1970),
                .float(to.timeIntervalSince1970),
                .float(now.timeIntervalSince1970),
            ]
        ).map { row in
            guard let startsAt = row.column("starts_at")?.double, let party = row.column("party_size")?.integer
            else { throw DatabaseError.corruptRow("a reservation at \(landmark) without a date or party size") }
            return (date: Date(timeIntervalSince1970: startsAt), partySize: party)
        }
    }

    func manifest(_ landmark: Landmark.ID, _ from: Date, _ to: Date) async throws
        -> [(user: String, record: ReservationApiModel)]
    {
        try await reader().query(
            """
            SELECT \(ReservationRow.columns), (SELECT name FROM users WHERE users.id = reservations.user_id) AS owner
            FROM reservations WHERE landmark_id = ?1 AND starts_at >= ?2 AND starts_at < ?3 ORDER BY starts_at, id
            """,
            [.text(landmark.description), .float(from.timeIntervalSince1970), .float(to.timeIntervalSince1970)]
        ).map { row in (user: row.column("owner")?.string ?? "", record: try SQLiteStore.record(row)) }
    }

    func dayRules(_ landmark: Landmark.ID, _ from: CalendarDay, _ to: CalendarDay) async throws -> [DayRule] {
        try await reader().query(
            """
            SELECT day, capacity, closed FROM day_rules WHERE landmark_id = ? AND day >= ? AND day <= ? ORDER BY day
            """, [.text(landmark.description), .text(from.description), .text(to.description)]
        ).compactMap { row in
            row.column("day")?.string.flatMap(CalendarDay.init).map {
                DayRule(
                    landmark: landmark, day: $0, capacity: row.column("capacity")?.integer,
                    closed: row.column("closed")?.string)
            }
        }
    }

    func waitlists(_ days: [BookingDay]) async throws -> [BookingDay: [String]] {
        let db = reader()
        var lists: [BookingDay: [String]] = [:]
        for day in days {
            let ids = try await db.query(
                """
                SELECT id FROM reservations
                WHERE \(SharedSQL.waitlisted()) AND landmark_id = ? AND starts_at >= ? AND starts_at < ?
                ORDER BY \(SharedSQL.waitlistOrder(in: .sqlite))
                """, [.text(day.landmark.description), .float(day.start), .float(day.end)]
            ).compactMap { $0.column("id")?.string }
            if !ids.isEmpty { lists[day] = ids }
        }
        return lists
    }

    func storedResponse(_ user: UserID, _ key: String) async throws -> StoredResponse? {
        try await SQLiteStore.storedResponse(reader(), user: user, key: key)
    }

    func transact(
        _ user: UserID, _ catalog: LandmarkCatalog, _ key: IdempotencyKey?, _ work: @escaping ServerStore.Work
    )
        async throws -> Written<any Sendable>
    {
        let touched = TouchedUsers()
        defer { signal.ring(touched.all) }  // committed, or rolled back and touching none
        return try await writer.perform { db in
            if let key, let kept = try await SQLiteStore.storedResponse(db, user: user, key: key.key) {
                return .replay(kept)
            }
            let transaction = SQLiteTransaction(
                db: db, user: user, catalog: try await Self.catalog(in: db, known: catalog), touched: touched)
            let (value, keep) = try await work(transaction)
            if let key, let keep { try await SQLiteStore.keep(keep, for: key, of: user, in: db) }
            try await SQLiteTransaction.stamp(transaction.touched.all, at: now(), in: db)
            return .done(value)
        }
    }

    func transactDay(
        _ day: BookingDay, _ catalog: LandmarkCatalog, _ requests: [DayRequest],
        _ more: @escaping @Sendable () -> [DayRequest]
    ) async throws -> [DayOutcome?] {
        // One writer already: a group is one of its jobs, the day counted once for all of them.
        let touched = TouchedUsers()
        defer { signal.ring(touched.all) }
        do {
            return try await writer.perform { db in
                let at = now()
                let catalog = try await Self.catalog(in: db, known: catalog)
                let base = SQLiteTransaction(db: db, user: .system, catalog: catalog)
                let ledger = DayLedger(
                    day: day, booked: try await Booking.settle([day], now: at, in: base)[day] ?? 0, now: at)
                let all = requests + more()
                var kept: [KeyName: StoredResponse] = [:]
                for name in Set(all.compactMap(KeyName.init)) {
                    kept[name] = try await SQLiteStore.storedResponse(db, user: name.user, key: name.key)
                }
                let decision = try await decideMembers(
                    all, skipping: [], kept: kept, ledger: ledger,
                    transaction: { SQLiteTransaction(db: db, user: $0, catalog: catalog) },
                    accept: { own, reservations, entries in
                        try await own.insert(reservations)
                        try await own.append(entries)
                        touched.insert(contentsOf: own.touched.all)
                    })
                guard decision.done else { throw NothingDone(outcomes: decision.outcomes) }
                for (user, key, response) in decision.keep {
                    try await SQLiteStore.keep(response, for: key, of: user, in: db)
                }
                touched.insert(contentsOf: base.touched.all)
                try await SQLiteTransaction.stamp(touched.all, at: now(), in: db)
                return decision.outcomes
            }
        } catch let refused as NothingDone {
            return refused.outcomes
        }
    }

    func history(_ user: UserID, _ id: Reservation.ID?, _ limit: Int?) async throws -> [HistoryEntry] {
        var sql = """
            SELECT h.entry, u.name FROM history h JOIN users u ON u.id = h.user_id WHERE h.user_id = ?
            """
        var binds: [SQLiteData] = [.integer(Int(user.rawValue))]
        if let id {
            sql += " AND h.reservation_id = ?"
            binds.append(.text(id.description))
        }
        // SQLite reads a negative LIMIT as none.
        binds.append(.integer(limit ?? -1))
        return try await reader().query(sql + " ORDER BY h.position DESC LIMIT ?", binds).map { row in
            try HistoryEntry(stored: row.column("entry")?.string, user: row.column("name")?.string)
        }
    }

    func purgeKeys(_ cutoff: Date) async throws -> Int {
        try await writer.perform { db in
            try await db.query(
                "DELETE FROM idempotency_keys WHERE created_at < ? RETURNING key",
                [.float(cutoff.timeIntervalSince1970)]
            ).count
        }
    }

    func close() async throws {
        for connection in readers.pool { try? await connection.close() }
        try await writer.close()
        lock?.release()
    }

    func changes(_ user: UserID, _ after: Int64, _ limit: Int) async throws -> [(sequence: Int64, entry: HistoryEntry)]
    {
        try await reader().query(
            """
            SELECT h.position, h.entry, u.name FROM history h JOIN users u ON u.id = h.user_id
            WHERE h.user_id = ? AND h.position > ? ORDER BY h.position LIMIT ?
            """, [.integer(Int(user.rawValue)), .integer(Int(after)), .integer(max(0, limit))]
        ).map { row in
            guard let position = row.column("position")?.integer else { throw DatabaseError.corruptRow("a change") }
            return (
                Int64(position),
                try HistoryEntry(stored: row.column("entry")?.string, user: row.column("name")?.string)
            )
        }
    }

    func newestChange(_ user: UserID) async throws -> Int64 {
        Int64(
            try await reader().query(
                "SELECT last_position FROM users WHERE id = ?", [.integer(Int(user.rawValue))]
            ).first?.column("last_position")?.integer ?? 0)
    }

    func positionAfter(_ user: UserID, _ sequence: Int64) async throws -> Int64 {
        Int64(
            try await reader().query(
                "SELECT COALESCE(MAX(position), 0) AS n FROM history WHERE user_id = ? AND seq <= ?",
                [.integer(Int(user.rawValue)), .integer(Int(sequence))]
            ).first?.column("n")?.integer ?? 0)
    }
}

/// The engine's read connections, taken in turn.
final class SQLiteReaders: Sendable {
    let pool: [SQLiteConnection]
    private let turn = Atomic<Int>(0)

    init(_ pool: [SQLiteConnection]) { self.pool = pool }

    func next() -> SQLiteConnection {
        pool[turn.wrappingAdd(1, ordering: .relaxed).oldValue % pool.count]
    }
}
