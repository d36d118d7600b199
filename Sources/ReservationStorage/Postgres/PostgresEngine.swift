import Foundation
import Logging
import PostgresNIO
import ReservationCore

/// The PostgreSQL engine's operations (`StorageEngine`): every call one
/// statement or transaction on the pool; a landmark-day's group in one
/// transaction (`DayGrouping`); other instances' commits heard (`ChangeListening`).
struct PostgresEngine: DayGrouping, ChangeListening {
    let cluster: PostgresCluster
    let logger: Logger
    let signal: ChangeSignal
    let now: @Sendable () -> Date

    /// What `read` read, once the host has shown it is still the primary since (`PostgresCluster.confirm`).
    private func confirmed<Value>(_ read: () async throws -> Value) async throws -> Value {
        let value = try await read()
        try await cluster.confirm()
        return value
    }

    func list(_ user: UserID) async throws -> [ReservationApiModel] {
        try await confirmed {
            try await cluster.client.query(
                "SELECT \(unescaped: ReservationRow.columns) FROM reservations WHERE user_id = \(user.rawValue) ORDER BY starts_at, id",
                logger: logger
            ).collect().map { try PostgresStore.record($0) }
        }
    }

    func get(_ user: UserID, _ id: Reservation.ID) async throws -> ReservationApiModel? {
        try await confirmed {
            try await cluster.client.query(
                "SELECT \(unescaped: ReservationRow.columns) FROM reservations WHERE id = \(id.description) AND user_id = \(user.rawValue)",
                logger: logger
            ).collect().first.map { try PostgresStore.record($0) }
        }
    }

    func locate(_ id: Reservation.ID) async throws -> (owner: UserID, record: ReservationApiModel)? {
        guard
            let row = try await cluster.client.query(
                "SELECT user_id, \(unescaped: ReservationRow.columns) FROM reservations WHERE id = \(id.description)",
                logger: logger
            ).collect().first
        else { return nil }
        let owner = try row.makeRandomAccess()[0].decode(Int64.self)
        return (UserID(owner), try PostgresStore.record(row, from: 1))
    }

    func parties(_ landmark: Landmark.ID, _ from: Date, _ to: Date, _ now: Date) async throws
        -> [(date: Date, partySize: Int)]
    {
        try await confirmed {
            let (start, end) = (from.timeIntervalSince1970, to.timeIntervalSince1970)
            return try await cluster.client.query(
                """
                SELECT starts_at, party_size FROM reservations
                WHERE landmark_id = \(landmark.description) AND starts_at >= \(start) AND starts_at < \(end)
                AND \(unescaped: SharedSQL.countsTowardCapacity(now: String(now.timeIntervalSince1970)))
                """, logger: logger
            ).collect().map { row in
                let (startsAt, party) = try row.decode((Double, Int).self)
                return (date: Date(timeIntervalSince1970: startsAt), partySize: party)
            }
        }
    }

    func manifest(_ landmark: Landmark.ID, _ from: Date, _ to: Date) async throws
        -> [(user: String, record: ReservationApiModel)]
    {
        let (start, end) = (from.timeIntervalSince1970, to.timeIntervalSince1970)
        return try await cluster.client.query(
            """
            SELECT u.name, \(unescaped: ReservationRow.columnsOfR) FROM reservations r JOIN users u ON u.id = r.user_id
            WHERE r.landmark_id = \(landmark.description) AND r.starts_at >= \(start) AND r.starts_at < \(end)
            ORDER BY r.starts_at, r.id
            """, logger: logger
        ).collect().map { row in
            (user: try row.makeRandomAccess()[0].decode(String.self), record: try PostgresStore.record(row, from: 1))
        }
    }

    func dayRules(_ landmark: Landmark.ID, _ from: CalendarDay, _ to: CalendarDay) async throws -> [DayRule] {
        try await cluster.client.query(
            """
            SELECT day, capacity, closed FROM day_rules
            WHERE landmark_id = \(landmark.description) AND day >= \(from.description) AND day <= \(to.description)
            ORDER BY day
            """, logger: logger
        ).collect().compactMap { row in
            let (day, capacity, closed) = try row.decode((String, Int?, String?).self)
            return CalendarDay(day).map { DayRule(landmark: landmark, day: $0, capacity: capacity, closed: closed) }
        }
    }

    func waitlists(_ days: [BookingDay]) async throws -> [BookingDay: [String]] {
        try await confirmed {
            guard !days.isEmpty else { return [:] }
            let rows = try await cluster.client.query(
                """
                SELECT d.i, r.id
                FROM UNNEST(\(days.map(\.landmark.description))::TEXT[], \(days.map(\.start))::FLOAT8[],
                            \(days.map(\.end))::FLOAT8[]) WITH ORDINALITY AS d (l, s, e, i)
                JOIN reservations r ON r.landmark_id = d.l AND r.starts_at >= d.s AND r.starts_at < d.e
                    AND \(unescaped: SharedSQL.waitlisted("r"))
                ORDER BY d.i, \(unescaped: SharedSQL.waitlistOrder("r", in: .postgres))
                """, logger: logger
            ).collect()
            var lists: [BookingDay: [String]] = [:]
            for row in rows {
                let (position, id) = try row.decode((Int, String).self)
                guard days.indices.contains(position - 1) else { continue }
                lists[days[position - 1], default: []].append(id)
            }
            return lists
        }
    }

    func storedResponse(_ user: UserID, _ key: String) async throws -> StoredResponse? {
        try await confirmed {
            try await cluster.client.withConnection { db in
                try await PostgresStore.storedResponse(db, user: user, key: key, logger: logger)
            }
        }
    }

    func transact(
        _ user: UserID, _ catalog: LandmarkCatalog, _ key: IdempotencyKey?, _ work: @escaping ServerStore.Work
    )
        async throws -> Written<any Sendable>
    {
        try await PostgresStore.retrying {
            let touched = TouchedUsers()
            defer { signal.ring(touched.all) }
            return try await cluster.client.withTransaction(logger: logger) { db in
                if let key {
                    // Holds off every other writer of this user's key until the transaction ends.
                    try await db.run(
                        "SELECT pg_advisory_xact_lock(hashtextextended(\("key \(user.rawValue) \(key.key)"), 0))",
                        logger: logger)
                    if let kept = try await PostgresStore.storedResponse(db, user: user, key: key.key, logger: logger) {
                        return .replay(kept)
                    }
                }
                let catalog = try await Self.catalog(in: db, known: catalog, logger: logger)
                let transaction = PostgresTransaction(db: db, logger: logger, user: user, catalog: catalog)
                let (value, keep) = try await work(transaction)
                try await transaction.finish(
                    inserting: [], keeping: key.flatMap { key in keep.map { [(user, key, $0)] } } ?? [],
                    notifying: PostgresStore.channel, at: now())
                touched.insert(contentsOf: transaction.touched.all)
                return .done(value)
            }
        }
    }

    func transactDay(
        _ day: BookingDay, _ catalog: LandmarkCatalog, _ requests: [DayRequest],
        _ more: @escaping @Sendable () -> [DayRequest]
    ) async throws -> [DayOutcome?] {
        // Those joining late stay in the group when its transaction runs again.
        let members = PostgresStore.Members(requests)
        do {
            return try await PostgresStore.retrying {
                let touched = TouchedUsers()
                defer { signal.ring(touched.all) }
                return try await cluster.client.withTransaction(logger: logger) { db in
                    let catalog = try await Self.catalog(in: db, known: catalog, logger: logger)
                    let base = PostgresTransaction(db: db, logger: logger, user: .system, catalog: catalog)
                    let outcomes = try await PostgresStore.decide(
                        members.all, more: { members.add(more()) }, on: day, in: base, now: now())
                    touched.insert(contentsOf: base.touched.all)
                    return outcomes
                }
            }
        } catch let refused as NothingDone {
            return refused.outcomes
        }
    }

    func history(_ user: UserID, _ id: Reservation.ID?, _ limit: Int?) async throws -> [HistoryEntry] {
        try await confirmed {
            // LIMIT NULL is no limit.
            let rows: PostgresRowSequence
            if let id {
                rows = try await cluster.client.query(
                    """
                    SELECT h.entry, u.name FROM history h JOIN users u ON u.id = h.user_id
                    WHERE h.user_id = \(user.rawValue) AND h.reservation_id = \(id.description)
                    ORDER BY h.position DESC LIMIT \(limit)
                    """, logger: logger)
            } else {
                rows = try await cluster.client.query(
                    """
                    SELECT h.entry, u.name FROM history h JOIN users u ON u.id = h.user_id
                    WHERE h.user_id = \(user.rawValue) ORDER BY h.position DESC LIMIT \(limit)
                    """, logger: logger)
            }
            return try await rows.collect().map { row in
                let (entry, name) = try row.decode((String, String).self)
                return try HistoryEntry(stored: entry, user: name)
            }
        }
    }

    func purgeKeys(_ cutoff: Date) async throws -> Int {
        try await cluster.client.query(
            "DELETE FROM idempotency_keys WHERE created_at < \(cutoff.timeIntervalSince1970) RETURNING user_id",
            logger: logger
        ).collect().count
    }

    func close() async throws {}

    func changes(_ user: UserID, _ after: Int64, _ limit: Int) async throws -> [(sequence: Int64, entry: HistoryEntry)]
    {
        try await confirmed {
            // Numbered at commit, in commit order (`PostgresTransaction.finish`): none can still
            // commit below the highest number read.
            try await cluster.client.query(
                """
                SELECT h.position, h.entry, u.name FROM history h JOIN users u ON u.id = h.user_id
                WHERE h.user_id = \(user.rawValue) AND h.position > \(after) ORDER BY h.position LIMIT \(max(0, limit))
                """, logger: logger
            ).collect().map { row in
                let (position, entry, name) = try row.decode((Int64, String, String).self)
                return (position, try HistoryEntry(stored: entry, user: name))
            }
        }
    }

    func newestChange(_ user: UserID) async throws -> Int64 {
        try await confirmed {
            try await cluster.client.query(
                "SELECT last_position FROM users WHERE id = \(user.rawValue)", logger: logger
            ).collect().first?.decode(Int64.self) ?? 0
        }
    }

    func positionAfter(_ user: UserID, _ sequence: Int64) async throws -> Int64 {
        try await confirmed {
            try await cluster.client.query(
                """
                SELECT COALESCE(MAX(position), 0)::BIGINT FROM history
                WHERE user_id = \(user.rawValue) AND seq <= \(sequence)
                """, logger: logger
            ).collect().first?.decode(Int64.self) ?? 0
        }
    }

    /// Every instance's commits, as notifications: until cancelled, or the pool moved to
    /// another host (the old connection may never say it is gone), and the server listens again.
    func listen() async throws {
        let moves = cluster.moves
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await abandonable {
                    try await cluster.client.withConnection { connection in
                        try await connection.listen(on: PostgresStore.channel) { notifications in
                            // Listening now: what was committed before is read by the polls themselves.
                            signal.ring(nil)
                            for try await notification in notifications {
                                signal.ring(PostgresStore.users(notification.payload))
                            }
                        }
                    }
                }
            }
            group.addTask { await cluster.moved(since: moves) }
            defer { group.cancelAll() }
            try await group.next()
        }
    }
}
