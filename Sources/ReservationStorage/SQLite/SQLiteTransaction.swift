import Foundation
import ReservationCore
import SQLiteNIO

/// The booking rules' reads and writes on SQLite, inside one of `SQLiteWriter`'s
/// transactions, for one user. Its one writing connection already serialises
/// every write, so the locks are nothing here; statements cost no round trip,
/// so a batch is a loop of them.
struct SQLiteTransaction: BookingTransaction {
    let db: SQLiteConnection
    let user: UserID
    let catalog: LandmarkCatalog
    /// The users whose history this transaction added to.
    var touched = TouchedUsers()

    private var userID: SQLiteData { .integer(Int(user.rawValue)) }

    func lockHistory(exclusive: Bool) async throws {}

    func recordsForUpdate(_ ids: [Reservation.ID]) async throws -> [Reservation.ID: StoredReservation] {
        var found: [Reservation.ID: StoredReservation] = [:]
        for chunk in Self.chunks(ids) {
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            let rows = try await db.query(
                "SELECT \(ReservationRow.columns) FROM reservations WHERE user_id = ? AND id IN (\(marks))",
                [userID] + chunk.map { .text($0.description) })
            for row in rows {
                let record = try SQLiteStore.record(row)
                if let id = Reservation.ID(record.id) { found[id] = StoredReservation(record, catalog: catalog) }
            }
        }
        return found
    }

    func takenIDs(_ ids: [Reservation.ID]) async throws -> Set<Reservation.ID> {
        var taken: Set<Reservation.ID> = []
        for chunk in Self.chunks(ids) {
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            let rows = try await db.query(
                "SELECT id FROM reservations WHERE id IN (\(marks))", chunk.map { .text($0.description) })
            taken.formUnion(rows.compactMap { $0.column("id")?.string.flatMap { Reservation.ID($0) } })
        }
        return taken
    }

    func booked(_ days: [BookingDay], at now: Date) async throws -> [BookingDay: Int] {
        var totals: [BookingDay: Int] = [:]
        for day in days {
            // TOTAL, a float, cannot overflow as SUM can with huge parties.
            let total =
                try await db.query(
                    """
                    SELECT TOTAL(party_size) AS booked FROM reservations
                    WHERE landmark_id = ?1 AND starts_at >= ?2 AND starts_at < ?3
                    AND \(SharedSQL.countsTowardCapacity(now: "?4"))
                    """,
                    [.text(day.landmark.description), .float(day.start), .float(day.end), .float(seconds(now))]
                ).first?.column("booked")?.double ?? 0
            totals[day] = Int(exactly: total.rounded()) ?? Int.max
        }
        return totals
    }

    func waitlisted(_ days: [BookingDay]) async throws -> [BookingDay: [StoredReservation]] {
        var lists: [BookingDay: [StoredReservation]] = [:]
        for day in days {
            let rows = try await db.query(
                """
                SELECT \(ReservationRow.columns) FROM reservations
                WHERE \(SharedSQL.waitlisted()) AND landmark_id = ? AND starts_at >= ? AND starts_at < ?
                ORDER BY \(SharedSQL.waitlistOrder(in: .sqlite))
                """, [.text(day.landmark.description), .float(day.start), .float(day.end)])
            if !rows.isEmpty { lists[day] = try rows.map(stored) }
        }
        return lists
    }

    func dayRules(_ days: [BookingDay]) async throws -> [BookingDay: DayRule] {
        var rules: [BookingDay: DayRule] = [:]
        for day in days {
            guard let calendarDay = day.calendarDay else { continue }
            let rows = try await db.query(
                "SELECT capacity, closed FROM day_rules WHERE landmark_id = ? AND day = ?",
                [.text(day.landmark.description), .text(calendarDay.description)])
            guard let row = rows.first else { continue }
            rules[day] = DayRule(
                landmark: day.landmark, day: calendarDay, capacity: row.column("capacity")?.integer,
                closed: row.column("closed")?.string)
        }
        return rules
    }

    func setDayRules(_ rules: [DayRule]) async throws {
        for rule in rules {
            let key: [SQLiteData] = [.text(rule.landmark.description), .text(rule.day.description)]
            if rule.isEmpty {
                _ = try await db.query("DELETE FROM day_rules WHERE landmark_id = ? AND day = ?", key)
            } else {
                _ = try await db.query(
                    """
                    INSERT INTO day_rules (landmark_id, day, capacity, closed) VALUES (?, ?, ?, ?)
                    ON CONFLICT (landmark_id, day) DO UPDATE SET capacity = excluded.capacity, closed = excluded.closed
                    """,
                    key + [rule.capacity.map { .integer($0) } ?? .null, rule.closed.map { .text($0) } ?? .null])
            }
        }
    }

    func takingPlaces(_ days: [BookingDay], at now: Date) async throws -> [BookingDay: [StoredReservation]] {
        var lists: [BookingDay: [StoredReservation]] = [:]
        for day in days {
            let rows = try await db.query(
                """
                SELECT \(ReservationRow.columns) FROM reservations r
                WHERE landmark_id = ? AND starts_at >= ? AND starts_at < ? AND \(SharedSQL.countsTowardCapacity("r", now: "?"))
                ORDER BY created_at,
                    (SELECT MIN(h.seq) FROM history h WHERE h.reservation_id = r.id AND h.change = 'created'), id
                """, [.text(day.landmark.description), .float(day.start), .float(day.end), .float(seconds(now))])
            if !rows.isEmpty { lists[day] = try rows.map(stored) }
        }
        return lists
    }

    func dueHolds(on days: [BookingDay]?, at now: Date, limit: Int) async throws -> [StoredReservation] {
        let cap = min(limit, Int(Int32.max))
        guard let days else {
            // Only landmarks of the catalog: a hold at one that left it cannot be settled, and would
            // come first in every sweep, before those that can.
            let landmarks = JSONValue.array(catalog.landmarks.map { .string($0.id.description) }).encoded()
            return try await db.query(
                """
                SELECT \(ReservationRow.columns) FROM reservations WHERE \(SharedSQL.holdEnded(now: "?"))
                    AND landmark_id IN (SELECT value FROM json_each(?))
                ORDER BY expires_at, id LIMIT ?
                """, [.float(seconds(now)), .text(String(decoding: landmarks, as: UTF8.self)), .integer(cap)]
            ).map(stored)
        }
        var found: [StoredReservation] = []
        for day in days where found.count < cap {
            found += try await db.query(
                """
                SELECT \(ReservationRow.columns) FROM reservations
                WHERE \(SharedSQL.holdEnded(now: "?")) AND landmark_id = ? AND starts_at >= ? AND starts_at < ?
                ORDER BY id LIMIT ?
                """,
                [
                    .float(seconds(now)), .text(day.landmark.description), .float(day.start), .float(day.end),
                    .integer(cap - found.count),
                ]
            ).map(stored)
        }
        return found
    }

    func liveHolds(at now: Date) async throws -> Int {
        try await db.query(
            "SELECT COUNT(*) AS n FROM reservations WHERE user_id = ? AND \(SharedSQL.liveHold(now: "?"))",
            [userID, .float(seconds(now))]
        ).first?.column("n")?.integer ?? 0
    }

    func updateAny(_ reservations: [Reservation], entries: [HistoryEntry]) async throws {
        try await write(reservations, owner: nil)
        for entry in entries {
            // The owner's next number: this connection is the only writer, so numbers go in commit order.
            guard
                let numbered = try await db.query(
                    """
                    UPDATE users SET last_position = last_position + 1
                    WHERE id = (SELECT user_id FROM reservations WHERE id = ?) RETURNING id, last_position
                    """, [.text(entry.reservationID.description)]
                ).first, let owner = numbered.column("id")?.integer,
                let position = numbered.column("last_position")?.integer
            else { continue }
            _ = try await db.query(
                """
                INSERT INTO history (user_id, position, reservation_id, command, change, undoes, entry)
                VALUES (?, ?, ?, ?, ?, NULL, ?)
                """,
                [
                    .integer(owner), .integer(position), .text(entry.reservationID.description), .text(entry.command),
                    .text(entry.change.rawValue), .text(entry.storedText),
                ])
            touched.insert(UserID(Int64(owner)))
        }
    }

    func insert(_ reservations: [Reservation]) async throws {
        // Many rows a statement: each statement is a hop to SQLite's thread.
        let columns = (["user_id"] + ReservationRow.fields.map(\.column)).joined(separator: ", ")
        let row = "(" + Array(repeating: "?", count: ReservationRow.fields.count + 1).joined(separator: ", ") + ")"
        for chunk in Self.chunks(reservations) {
            do {
                _ = try await db.query(
                    """
                    INSERT INTO reservations (\(columns))
                    VALUES \(Array(repeating: row, count: chunk.count).joined(separator: ", "))
                    """,
                    chunk.flatMap { reservation in [userID] + Self.values(of: reservation, ReservationRow.fields) })
            } catch let error as SQLiteError where error.message.contains("reservations.id") && chunk.count == 1 {
                // The one row's id, a client's, is taken (docs/contracts.md, "Offline").
                throw ReservationError.reservationIDInUse(chunk[0].id)
            }
        }
    }

    /// The values of `fields` of a reservation, to bind.
    private static func values(of reservation: Reservation, _ fields: [ReservationField]) -> [SQLiteData] {
        fields.map { field in
            switch field.value(reservation) {
            case .text(let text): .text(text)
            case .integer(let integer): .integer(integer)
            case .real(let real): .float(real)
            case .null: .null
            }
        }
    }

    /// `UPDATE` of the columns a change writes, of one reservation: the user's, or with a NULL owner any user's.
    private static let updateStatement = """
        UPDATE reservations SET \(ReservationRow.changing.map { "\($0.column) = ?" }.joined(separator: ", "))
        WHERE id = ? AND (? IS NULL OR user_id = ?)
        """

    /// Slices of at most 200 rows: well under SQLite's limit of bound parameters a statement.
    private static func chunks<Element>(_ items: [Element]) -> [ArraySlice<Element>] {
        stride(from: 0, to: items.count, by: 200).map { items[$0..<min($0 + 200, items.count)] }
    }

    func update(_ reservations: [Reservation]) async throws { try await write(reservations, owner: user) }

    /// Writes changed reservations: the user's (`owner`), or with nil any user's.
    private func write(_ reservations: [Reservation], owner: UserID?) async throws {
        for reservation in reservations {
            _ = try await db.query(
                Self.updateStatement,
                Self.values(of: reservation, ReservationRow.changing) + [
                    .text(reservation.id.description), owner.map { .integer(Int($0.rawValue)) } ?? .null,
                    owner.map { .integer(Int($0.rawValue)) } ?? .null,
                ])
        }
    }

    func append(_ entries: [HistoryEntry]) async throws {
        if !entries.isEmpty { touched.insert(user) }
        for chunk in Self.chunks(entries) {
            // The user's next numbers: this connection is the only writer, so numbers go in commit order.
            guard
                let last = try await db.query(
                    "UPDATE users SET last_position = last_position + ? WHERE id = ? RETURNING last_position",
                    [.integer(chunk.count), userID]
                ).first?.column("last_position")?.integer
            else { throw DatabaseError.corruptRow("no user \(user) for a history entry") }
            let first = last - chunk.count + 1
            _ = try await db.query(
                "INSERT INTO history (user_id, position, reservation_id, command, change, undoes, entry) VALUES "
                    + Array(repeating: "(?, ?, ?, ?, ?, ?, ?)", count: chunk.count).joined(separator: ", "),
                chunk.enumerated().flatMap { offset, entry -> [SQLiteData] in
                    [
                        userID, .integer(first + offset), .text(entry.reservationID.description),
                        .text(entry.command), .text(entry.change.rawValue), entry.undoes.map { .text($0) } ?? .null,
                        .text(entry.storedText),
                    ]
                })
        }
    }

    /// Moves each user's `changed_at` on (`CommitTime`): the last step of a transaction that
    /// added to their histories. This connection is the only writer, so in commit order.
    static func stamp(_ users: Set<UserID>, at now: Date, in db: SQLiteConnection) async throws {
        for user in users.sorted(by: { $0.rawValue < $1.rawValue }) {
            let id = SQLiteData.integer(Int(user.rawValue))
            let before = try await db.query("SELECT changed_at FROM users WHERE id = ?", [id]).first?
                .column("changed_at")?.double
            let next = CommitTime.next(after: before.map(Date.init(timeIntervalSince1970:)), at: now)
            _ = try await db.query(
                "UPDATE users SET changed_at = ? WHERE id = ?", [.float(next.timeIntervalSince1970), id])
        }
    }

    func commandToUndo() async throws -> [HistoryEntry] {
        try await db.query(SharedSQL.commandToUndo(user: "?1"), [userID]).map { row in
            try HistoryEntry(stored: row.column("entry")?.string, user: nil)
        }
    }

    func undosSinceLastCommand() async throws -> [HistoryEntry] {
        try await db.query(SharedSQL.undosSinceLastCommand(user: "?1"), [userID]).map { row in
            try HistoryEntry(stored: row.column("entry")?.string, user: nil)
        }
    }

    /// A row of `ReservationRow.columns`, mapped in the catalog.
    private func stored(_ row: SQLiteRow) throws -> StoredReservation {
        StoredReservation(try SQLiteStore.record(row), catalog: catalog)
    }

    private func seconds(_ date: Date?) -> Double { (date ?? Date(timeIntervalSince1970: 0)).timeIntervalSince1970 }
}
