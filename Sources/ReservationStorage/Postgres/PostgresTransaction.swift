import Foundation
import Logging
import PostgresNIO
import ReservationCore

/// The booking rules' reads and writes on PostgreSQL, inside one transaction,
/// for one user. Several servers may share the database, so what must not
/// interleave takes a transaction-scoped advisory lock (the user's history, a
/// landmark-day) or a row lock. Every call is one or two statements whatever
/// the number of rows, days or entries: a round trip each, not one per line.
///
/// History entries are kept until `finish`, which numbers them in each
/// owner's feed under the owner's row lock, held until the commit: the last
/// lock taken, so it waits on nothing, and a user's changes are numbered in
/// the order they commit (docs/feed.md).
struct PostgresTransaction: BookingTransaction {
    let db: PostgresConnection
    let logger: Logger
    let user: UserID
    let catalog: LandmarkCatalog
    /// The users whose history this transaction added to (shared by a group's members).
    var touched = TouchedUsers()
    /// The entries to write at `finish`, each with its owner, in order (shared by a group's members).
    var pending = PendingEntries()
    /// Whether this transaction has written reservations: the kept counts change only when
    /// it commits (their trigger is deferred), so its counts are scanned from then on.
    var written = WrittenRows()

    @discardableResult
    func run(_ query: PostgresQuery) async throws -> [PostgresRow] { try await db.run(query, logger: logger) }

    func lockHistory(exclusive: Bool) async throws {
        let key = user.historyLock
        if exclusive {
            try await run("SELECT pg_advisory_xact_lock(hashtextextended(\(key), 0))")
        } else {
            try await run("SELECT pg_advisory_xact_lock_shared(hashtextextended(\(key), 0))")
        }
    }

    func recordsForUpdate(_ ids: [Reservation.ID]) async throws -> [Reservation.ID: StoredReservation] {
        guard !ids.isEmpty else { return [:] }
        // Rows are locked in the order they come: by id, the same in every transaction.
        let rows = try await run(
            """
            SELECT \(unescaped: ReservationRow.columns) FROM reservations
            WHERE user_id = \(user.rawValue) AND id = ANY(\(ids.map(\.description))::TEXT[])
            ORDER BY id COLLATE "C" FOR UPDATE
            """)
        var found: [Reservation.ID: StoredReservation] = [:]
        for row in rows {
            let record = try PostgresStore.record(row)
            if let id = Reservation.ID(record.id) { found[id] = StoredReservation(record, catalog: catalog) }
        }
        return found
    }

    func takenIDs(_ ids: [Reservation.ID]) async throws -> Set<Reservation.ID> {
        guard !ids.isEmpty else { return [] }
        let rows = try await run(
            "SELECT id FROM reservations WHERE id = ANY(\(ids.map(\.description))::TEXT[])")
        return Set(try rows.map { try $0.decode(String.self) }.compactMap { Reservation.ID($0) })
    }

    func booked(_ days: [BookingDay], at now: Date) async throws -> [BookingDay: Int] {
        guard !days.isEmpty else { return [:] }
        // In the order given (sorted by the rules), so two batches never wait on each other crosswise.
        try await run(
            """
            SELECT pg_advisory_xact_lock(hashtextextended(k, 0))
            FROM UNNEST(\(days.map { "day \($0.landmark) \($0.start)" })::TEXT[]) WITH ORDINALITY AS t (k, i) ORDER BY i
            """)
        if written.any { return try await scanned(days, at: now) }
        var totals = try await counted(days, at: now)
        let missing = days.filter { totals[$0] == nil }
        if !missing.isEmpty {
            try await countDays(missing)
            totals.merge(try await counted(missing, at: now)) { $1 }
        }
        return totals
    }

    /// The people booked on `days` (their locks held), counted from their rows, this
    /// transaction's own changes among them.
    private func scanned(_ days: [BookingDay], at now: Date) async throws -> [BookingDay: Int] {
        let rows = try await db.query(
            """
            SELECT d.i, COALESCE(SUM(r.party_size), 0)::FLOAT8
            FROM UNNEST(\(days.map(\.landmark.description))::TEXT[], \(days.map(\.start))::FLOAT8[],
                        \(days.map(\.end))::FLOAT8[]) WITH ORDINALITY AS d (l, s, e, i)
            LEFT JOIN reservations r ON r.landmark_id = d.l AND r.starts_at >= d.s AND r.starts_at < d.e
                AND \(unescaped: SharedSQL.countsTowardCapacity("r", now: String(now.timeIntervalSince1970)))
            GROUP BY d.i
            """, logger: logger
        ).collect()
        var totals: [BookingDay: Int] = [:]
        for row in rows {
            let (position, total) = try row.decode((Int, Double).self)
            guard days.indices.contains(position - 1) else { continue }
            totals[days[position - 1]] = Int(exactly: total.rounded()) ?? Int.max
        }
        return totals
    }

    /// The people booked on `days` (their locks held): each day's kept count
    /// (`day_counts`: pending and confirmed) and its live holds, counted by the
    /// clock from the day's few held rows; a day without a kept count is left out.
    private func counted(_ days: [BookingDay], at now: Date) async throws -> [BookingDay: Int] {
        let rows = try await db.query(
            """
            SELECT d.i, c.taken::FLOAT8, COALESCE((
                SELECT SUM(r.party_size) FROM reservations r
                WHERE r.landmark_id = d.l AND r.starts_at >= d.s AND r.starts_at < d.e
                    AND \(unescaped: SharedSQL.liveHold("r", now: String(now.timeIntervalSince1970)))
                    AND r.party_size BETWEEN \(unescaped: "\(Reservation.partySizes.lowerBound)") \
                    AND \(unescaped: "\(Reservation.partySizes.upperBound)")), 0)::FLOAT8
            FROM UNNEST(\(days.map(\.landmark.description))::TEXT[], \(days.map(\.start))::FLOAT8[],
                        \(days.map(\.end))::FLOAT8[]) WITH ORDINALITY AS d (l, s, e, i)
            JOIN day_counts c ON c.landmark_id = d.l AND c.start_at = d.s AND c.end_at = d.e
            """, logger: logger
        ).collect()
        var totals: [BookingDay: Int] = [:]
        for row in rows {
            let (position, taken, holds) = try row.decode((Int, Double, Double).self)
            guard days.indices.contains(position - 1) else { continue }
            totals[days[position - 1]] = Int(exactly: (taken + holds).rounded()) ?? Int.max
        }
        return totals
    }

    /// Makes the kept counts of `days` by one scan each, under their landmarks'
    /// count locks held exclusively until the commit: a change of one of their
    /// reservations committing meanwhile waits for that lock in its trigger, and
    /// then adds itself to the count made; one committed before is in the scan.
    private func countDays(_ days: [BookingDay]) async throws {
        try await run(
            """
            SELECT pg_advisory_xact_lock(hashtextextended('count ' || l, 0))
            FROM (SELECT DISTINCT l FROM UNNEST(\(days.map(\.landmark.description))::TEXT[]) AS t (l)) AS u
            ORDER BY l COLLATE "C"
            """)
        try await run(
            """
            INSERT INTO day_counts (landmark_id, start_at, end_at, taken)
            SELECT d.l, d.s, d.e, COALESCE((
                SELECT SUM(r.party_size) FROM reservations r
                WHERE r.landmark_id = d.l AND r.starts_at >= d.s AND r.starts_at < d.e
                    AND \(unescaped: SharedSQL.status("r", in: Reservation.Status.takingPlaces))
                    AND r.party_size BETWEEN \(unescaped: "\(Reservation.partySizes.lowerBound)") \
                    AND \(unescaped: "\(Reservation.partySizes.upperBound)")), 0)
            FROM UNNEST(\(days.map(\.landmark.description))::TEXT[], \(days.map(\.start))::FLOAT8[],
                        \(days.map(\.end))::FLOAT8[]) AS d (l, s, e)
            ON CONFLICT (landmark_id, start_at, end_at) DO NOTHING
            """)
    }

    func waitlisted(_ days: [BookingDay]) async throws -> [BookingDay: [StoredReservation]] {
        guard !days.isEmpty else { return [:] }
        // Locked after the days (the rules' order is rows, then days): a waiting row's owner
        // changing it at the same time may deadlock with this, which PostgreSQL breaks and
        // `PostgresStore` retries.
        let rows = try await db.query(
            """
            SELECT d.i, \(unescaped: ReservationRow.columnsOfR)
            FROM UNNEST(\(days.map(\.landmark.description))::TEXT[], \(days.map(\.start))::FLOAT8[],
                        \(days.map(\.end))::FLOAT8[]) WITH ORDINALITY AS d (l, s, e, i)
            JOIN reservations r ON r.landmark_id = d.l AND r.starts_at >= d.s AND r.starts_at < d.e
                AND \(unescaped: SharedSQL.waitlisted("r"))
            ORDER BY d.i, \(unescaped: SharedSQL.waitlistOrder("r", in: .postgres))
            FOR UPDATE OF r
            """, logger: logger
        ).collect()
        var lists: [BookingDay: [StoredReservation]] = [:]
        for row in rows {
            let position = try row.makeRandomAccess()[0].decode(Int.self)
            guard days.indices.contains(position - 1) else { continue }
            lists[days[position - 1], default: []].append(try stored(row, from: 1))
        }
        return lists
    }

    func dayRules(_ days: [BookingDay]) async throws -> [BookingDay: DayRule] {
        let keyed = days.compactMap { day in day.calendarDay.map { (day, $0) } }
        guard !keyed.isEmpty else { return [:] }
        // The day's lock, as `booked` takes it, before the read (a statement of its own, so
        // the read's snapshot is taken after the lock: a rule committed meanwhile is seen).
        try await run(
            """
            SELECT pg_advisory_xact_lock(hashtextextended(k, 0))
            FROM UNNEST(\(keyed.map { "day \($0.0.landmark) \($0.0.start)" })::TEXT[]) WITH ORDINALITY AS t (k, i) ORDER BY i
            """)
        let rows = try await db.query(
            """
            SELECT d.i, r.capacity, r.closed
            FROM UNNEST(\(keyed.map(\.0.landmark.description))::TEXT[], \(keyed.map(\.1.description))::TEXT[])
                WITH ORDINALITY AS d (l, dd, i)
            JOIN day_rules r ON r.landmark_id = d.l AND r.day = d.dd
            """, logger: logger
        ).collect()
        var rules: [BookingDay: DayRule] = [:]
        for row in rows {
            let (position, capacity, closed) = try row.decode((Int, Int?, String?).self)
            guard keyed.indices.contains(position - 1) else { continue }
            let (day, calendarDay) = keyed[position - 1]
            rules[day] = DayRule(landmark: day.landmark, day: calendarDay, capacity: capacity, closed: closed)
        }
        return rules
    }

    func setDayRules(_ rules: [DayRule]) async throws {
        for rule in rules {
            if rule.isEmpty {
                try await run(
                    """
                    DELETE FROM day_rules WHERE landmark_id = \(rule.landmark.description) AND day = \(rule.day.description)
                    """)
            } else {
                try await run(
                    """
                    INSERT INTO day_rules (landmark_id, day, capacity, closed)
                    VALUES (\(rule.landmark.description), \(rule.day.description), \(rule.capacity), \(rule.closed))
                    ON CONFLICT (landmark_id, day) DO UPDATE SET capacity = EXCLUDED.capacity, closed = EXCLUDED.closed
                    """)
            }
        }
    }

    func takingPlaces(_ days: [BookingDay], at now: Date) async throws -> [BookingDay: [StoredReservation]] {
        guard !days.isEmpty else { return [:] }
        let rows = try await db.query(
            """
            SELECT d.i, \(unescaped: ReservationRow.columnsOfR)
            FROM UNNEST(\(days.map(\.landmark.description))::TEXT[], \(days.map(\.start))::FLOAT8[],
                        \(days.map(\.end))::FLOAT8[]) WITH ORDINALITY AS d (l, s, e, i)
            JOIN reservations r ON r.landmark_id = d.l AND r.starts_at >= d.s AND r.starts_at < d.e
                AND \(unescaped: SharedSQL.countsTowardCapacity("r", now: String(now.timeIntervalSince1970)))
            ORDER BY d.i, r.created_at,
                (SELECT MIN(h.seq) FROM history h WHERE h.reservation_id = r.id AND h.change = 'created'), r.id COLLATE "C"
            FOR UPDATE OF r
            """, logger: logger
        ).collect()
        var lists: [BookingDay: [StoredReservation]] = [:]
        for row in rows {
            let position = try row.makeRandomAccess()[0].decode(Int.self)
            guard days.indices.contains(position - 1) else { continue }
            lists[days[position - 1], default: []].append(try stored(row, from: 1))
        }
        return lists
    }

    func dueHolds(on days: [BookingDay]?, at now: Date, limit: Int) async throws -> [StoredReservation] {
        let rows: PostgresRowSequence
        if let days {
            rows = try await db.query(
                """
                SELECT \(unescaped: ReservationRow.columns) FROM reservations r
                WHERE \(unescaped: SharedSQL.holdEnded("r", now: String(now.timeIntervalSince1970))) AND EXISTS (
                    SELECT 1 FROM UNNEST(\(days.map(\.landmark.description))::TEXT[], \(days.map(\.start))::FLOAT8[],
                        \(days.map(\.end))::FLOAT8[]) AS d (l, s, e)
                    WHERE r.landmark_id = d.l AND r.starts_at >= d.s AND r.starts_at < d.e)
                ORDER BY r.id COLLATE "C" LIMIT \(min(limit, Int(Int32.max)))
                FOR UPDATE
                """, logger: logger)
        } else {
            // A sweep: what another instance's sweep (or a confirm) holds is theirs to settle. Only
            // landmarks of the catalog: a hold at one that left it cannot be settled, and would come
            // first in every sweep, before those that can.
            rows = try await db.query(
                """
                SELECT \(unescaped: ReservationRow.columns) FROM reservations
                WHERE \(unescaped: SharedSQL.holdEnded(now: String(now.timeIntervalSince1970)))
                    AND landmark_id = ANY(\(catalog.landmarks.map(\.id.description))::TEXT[])
                ORDER BY id COLLATE "C" LIMIT \(min(limit, Int(Int32.max)))
                FOR UPDATE SKIP LOCKED
                """, logger: logger)
        }
        return try await rows.collect().map { try stored($0) }
    }

    func liveHolds(at now: Date) async throws -> Int {
        try await db.query(
            """
            SELECT COUNT(*)::BIGINT FROM reservations
            WHERE user_id = \(user.rawValue) AND \(unescaped: SharedSQL.liveHold(now: String(now.timeIntervalSince1970)))
            """, logger: logger
        ).collect().first?.decode(Int.self) ?? 0
    }

    func updateAny(_ reservations: [Reservation], entries: [HistoryEntry]) async throws {
        let owners = try await write(reservations, owner: nil)
        // An entry of a reservation not written here is its owner's too (none is: each entry is of a change made).
        let missing = Set(entries.map(\.reservationID)).subtracting(owners.keys)
        var found = owners
        if !missing.isEmpty {
            for row in try await run(
                "SELECT id, user_id FROM reservations WHERE id = ANY(\(missing.map(\.description))::TEXT[])")
            {
                let (id, owner) = try row.decode((String, Int64).self)
                if let id = Reservation.ID(id) { found[id] = UserID(owner) }
            }
        }
        pending.append(entries.compactMap { entry in found[entry.reservationID].map { ($0, entry) } })
    }

    func insert(_ reservations: [Reservation]) async throws {
        try await insert(reservations.map { (user, $0) })
    }

    /// Stores new reservations of any users (a group's), in one statement.
    func insert(_ owned: [(owner: UserID, reservation: Reservation)]) async throws {
        guard !owned.isEmpty else { return }
        written.mark()
        var binds = PostgresBindings()
        binds.append(owned.map(\.owner.rawValue))
        let rows = Self.unnest(
            ReservationRow.fields, of: owned.map(\.reservation), after: 1, into: &binds,
            leading: ("$1::BIGINT[]", "owner"))
        // An id another transaction stored while this one waited for it (a client's id, sent to two
        // instances at once) fails the insert, and `PostgresStore.retrying` runs the rule again:
        // it finds the row, and answers it as the same booking or refuses the id as another's.
        try await run(
            PostgresQuery(
                unsafeSQL: """
                    INSERT INTO reservations (user_id, \(ReservationRow.fields.map(\.column).joined(separator: ", ")))
                    SELECT t.owner, \(rows.values.joined(separator: ", ")) FROM \(rows.table)
                    """, binds: binds))
    }

    func update(_ reservations: [Reservation]) async throws { try await write(reservations, owner: user) }

    /// Writes changed reservations: the user's (`owner`), or with nil any
    /// user's. Returns the owner of each reservation written.
    @discardableResult
    private func write(_ reservations: [Reservation], owner: UserID?) async throws -> [Reservation.ID: UserID] {
        guard !reservations.isEmpty else { return [:] }
        written.mark()
        var binds = PostgresBindings()
        // The id to find each row by, then the columns a change writes.
        let fields = ReservationRow.fields.filter { !$0.changes && $0.key == "id" } + ReservationRow.changing
        let rows = Self.unnest(fields, of: reservations, after: 0, into: &binds)
        let set = zip(fields, rows.values).dropFirst().map { "\($0.column) = \($1)" }
        // The owner is a number: written into the statement, not bound.
        let owner = owner.map { String($0.rawValue) } ?? "NULL"
        let rowsChanged = try await run(
            PostgresQuery(
                unsafeSQL: """
                    UPDATE reservations SET \(set.joined(separator: ", ")) FROM \(rows.table)
                    WHERE reservations.id = t.id AND (\(owner)::BIGINT IS NULL OR reservations.user_id = \(owner))
                    RETURNING reservations.id, reservations.user_id
                    """, binds: binds))
        var owners: [Reservation.ID: UserID] = [:]
        for row in rowsChanged {
            let (id, owner) = try row.decode((String, Int64).self)
            if let id = Reservation.ID(id) { owners[id] = UserID(owner) }
        }
        return owners
    }

    func append(_ entries: [HistoryEntry]) async throws {
        pending.append(entries.map { (user, $0) })
    }

    func commandToUndo() async throws -> [HistoryEntry] {
        var binds = PostgresBindings()
        binds.append(user.rawValue)
        return try await run(PostgresQuery(unsafeSQL: SharedSQL.commandToUndo(user: "$1"), binds: binds)).map { row in
            try HistoryEntry(stored: try row.decode(String.self), user: nil)
        }
    }

    func undosSinceLastCommand() async throws -> [HistoryEntry] {
        var binds = PostgresBindings()
        binds.append(user.rawValue)
        let query = PostgresQuery(unsafeSQL: SharedSQL.undosSinceLastCommand(user: "$1"), binds: binds)
        return try await run(query).map { row in try HistoryEntry(stored: try row.decode(String.self), user: nil) }
    }

    /// A row of `ReservationRow.columns` from column `first`, mapped in the catalog.
    private func stored(_ row: PostgresRow, from first: Int = 0) throws -> StoredReservation {
        StoredReservation(try PostgresStore.record(row, from: first), catalog: catalog)
    }

}
