import Foundation
import Logging
import PostgresNIO
import ReservationCore
import Synchronization

/// The PostgreSQL engine, for several server processes on one database: every
/// write is one transaction, and the checks that must not interleave (an
/// idempotency key, a landmark's day) take a transaction-scoped advisory lock
/// first, so two servers never book the same key twice or past capacity.
public enum PostgresStore {

    /// The store on `cluster`'s pool (the primary's, whichever host that is now).
    /// The caller keeps `cluster.run()` running while the store is used. Every
    /// call is `abandonable` (`Abandoning`): a caller cancelled stops waiting at once.
    public static func open(cluster: PostgresCluster, logger: Logger, now: @escaping @Sendable () -> Date)
        -> ServerStore
    {
        let signal = ChangeSignal()
        return ServerStore(
            engine: Abandoning(PostgresEngine(cluster: cluster, logger: logger, signal: signal, now: now)),
            tokens: AbandoningTokens(PostgresTokens(cluster: cluster, logger: logger, now: now)),
            calendars: AbandoningCalendars(PostgresCalendars(cluster: cluster, logger: logger, now: now)),
            signal: signal)
    }

    /// Runs `body` (one transaction) again after a deadlock or a serialization
    /// failure rolled it back (a promotion locking a waiting row while its owner
    /// changes it, `BookingTransaction`'s row-then-day order), after a random
    /// pause, a few times, then answers 503 (`DatabaseError.busy`); a lock not
    /// had within `lock_timeout` (a day another instance's group holds) is 503
    /// `crowded`. A refusal the body threw is thrown as itself.
    static func retrying<Value>(_ body: () async throws -> Value) async throws -> Value {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await body()
            } catch let error as PostgresTransactionError {
                // A failure of the COMMIT itself came before its commit record (PostgreSQL
                // takes the notification queue's lock first, under the group's lock_timeout):
                // nothing was committed, as when a statement failed.
                if let failure = (error.closureError ?? error.commitError) as? PSQLError {
                    if isRetryable(failure) {
                        guard attempt < Self.attempts else { throw DatabaseError.busy(attempts: attempt) }
                        try await Task.sleep(for: Self.pause(before: attempt + 1))
                        continue
                    }
                    if failure.serverInfo?[.sqlState] == "55P03" { throw DatabaseError.crowded }
                }
                // A refusal rolled the transaction back; it is answered as itself.
                if error.beginError == nil, error.rollbackError == nil, let refusal = error.closureError {
                    throw refusal
                }
                throw error
            }
        }
    }

    /// How long a group waits for its day's lock (another instance's group has it) before its requests are 503.
    static let dayLockTimeout = "3s"

    /// Decides a group of one day's requests in `base`'s transaction
    /// (`DayGrouping.transactDay`): every key's lock and every member's history
    /// lock taken at once, in order; the day locked and settled once; then the
    /// requests that arrived while the day's lock was waited for (`more`) join
    /// (their key and history locks only tried: one held elsewhere waits for
    /// the next group, its outcome nil, so nothing waits after the day's lock);
    /// each request run in order on the day as the ones before left it, a kept
    /// answer replayed; then what was accepted written in one statement a table.
    static func decide(
        _ requests: [DayRequest], more: () -> [DayRequest], on day: BookingDay, in base: PostgresTransaction,
        now: Date
    ) async throws -> [DayOutcome?] {
        let (db, logger) = (base.db, base.logger)
        try await db.run("SELECT set_config('lock_timeout', \(dayLockTimeout), true)", logger: logger)
        // Locked in one order (the names sorted), as one key is by `transact`: keys, then histories, then the day.
        let keyed = Set(requests.compactMap(KeyName.init)).sorted()
        if !keyed.isEmpty {
            try await db.run(
                """
                SELECT pg_advisory_xact_lock(hashtextextended(k, 0))
                FROM UNNEST(\(keyed.map(\.lockName))::TEXT[]) WITH ORDINALITY AS t (k, i) ORDER BY i
                """, logger: logger)
        }
        try await db.run(
            """
            SELECT pg_advisory_xact_lock_shared(hashtextextended(k, 0))
            FROM UNNEST(\(Set(requests.map(\.user.historyLock)).sorted())::TEXT[]) WITH ORDINALITY AS t (k, i) ORDER BY i
            """, logger: logger)
        let ledger = DayLedger(
            day: day, booked: try await Booking.settle([day], now: now, in: base)[day] ?? 0, now: now)
        let late = more()
        let refused = try await tryLocks(late, in: db, logger: logger)
        let kept = try await storedResponses(keyed + late.compactMap(KeyName.init), in: db, logger: logger)
        var created: [(owner: UserID, reservation: Reservation)] = []
        let decision = try await decideMembers(
            requests + late, skipping: Set(refused.map { requests.count + $0 }), kept: kept, ledger: ledger,
            transaction: { user in
                PostgresTransaction(
                    db: db, logger: logger, user: user, catalog: base.catalog, touched: base.touched,
                    pending: base.pending, written: base.written)
            },
            accept: { own, reservations, entries in
                created += reservations.map { (own.user, $0) }
                try await own.append(entries)
            })
        // Every request refused or replayed: rolled back, the day's settling too, as one refused alone is.
        guard decision.done else { throw NothingDone(outcomes: decision.outcomes) }
        try await base.finish(inserting: created, keeping: decision.keep, notifying: channel, at: now)
        return decision.outcomes
    }

    /// Tries the key and history locks of requests joining after the day's
    /// lock, without waiting; returns the positions of those with one held elsewhere.
    private static func tryLocks(_ requests: [DayRequest], in db: PostgresConnection, logger: Logger)
        async throws -> Set<Int>
    {
        guard !requests.isEmpty else { return [] }
        var names: [String] = []
        var positions: [Int] = []
        var shared: [Bool] = []
        for (position, request) in requests.enumerated() {
            if let key = KeyName(request) {
                names.append(key.lockName)
                positions.append(position)
                shared.append(false)
            }
            names.append(request.user.historyLock)
            positions.append(position)
            shared.append(true)
        }
        var refused: Set<Int> = []
        for row in try await db.run(
            """
            SELECT i FROM UNNEST(\(names)::TEXT[], \(positions)::BIGINT[], \(shared)::BOOL[]) AS t (k, i, s)
            WHERE NOT CASE WHEN s THEN pg_try_advisory_xact_lock_shared(hashtextextended(k, 0))
                           ELSE pg_try_advisory_xact_lock(hashtextextended(k, 0)) END
            """, logger: logger)
        {
            refused.insert(try row.decode(Int.self))
        }
        return refused
    }

    /// The answers kept for these keys (their locks held).
    private static func storedResponses(_ keys: [KeyName], in db: PostgresConnection, logger: Logger)
        async throws -> [KeyName: StoredResponse]
    {
        guard !keys.isEmpty else { return [:] }
        var kept: [KeyName: StoredResponse] = [:]
        for row in try await db.run(
            """
            SELECT k.user_id, k.key, k.request_hash, k.status, k.body FROM idempotency_keys k
            JOIN UNNEST(\(keys.map(\.user.rawValue))::BIGINT[], \(keys.map(\.key))::TEXT[]) AS w (u, k)
            ON k.user_id = w.u AND k.key = w.k
            """, logger: logger)
        {
            let (user, key, hash, status, body) = try row.decode((Int64, String, String, Int, ByteBuffer).self)
            kept[KeyName(user: UserID(user), key: key)] = StoredResponse(
                status: status, body: Array(body.readableBytesView), requestHash: hash)
        }
        return kept
    }

    /// A group's requests so far, kept across its transaction's runs.
    final class Members: Sendable {
        private let requests: Mutex<[DayRequest]>
        init(_ requests: [DayRequest]) { self.requests = Mutex(requests) }
        var all: [DayRequest] { requests.withLock { $0 } }
        /// Adds `more`, and returns them.
        func add(_ more: [DayRequest]) -> [DayRequest] {
            requests.withLock { $0 += more }
            return more
        }
    }

    /// How many times a transaction runs before its request is answered 503.
    static let attempts = 8

    /// The pause before attempt `attempt` (2, 3, …): random up to 5 ms · 2^(attempt−2), at
    /// most 320 ms (full jitter), so transactions that broke each other do not meet again.
    static func pause(before attempt: Int) -> Duration {
        let ceiling = 5 << min(max(attempt - 2, 0), 6)
        return .microseconds(Int.random(in: 0...(ceiling * 1000)))
    }

    /// A deadlock or a serialization failure: the transaction was rolled back and may run again.
    /// So is a reservation's id another transaction stored while this one's insert waited for
    /// it (clients' ids: a booking or a batch sent twice at once, an import run twice): run
    /// again, the rule finds the rows (`Booking`'s client ids) and answers them as the same
    /// bookings or refuses the line, never a 500.
    static func isRetryable(_ error: PSQLError) -> Bool {
        guard let state = error.serverInfo?[.sqlState] else { return false }
        if state == "23505", error.serverInfo?[.constraintName] == "reservations_pkey" { return true }
        return state == "40P01" || state == "40001"
    }

    /// Creates or checks the schema; run while the client runs.
    /// The notification channel of commits that added to users' histories.
    static let channel = "resv_changes"

    /// A notification's payload: the users' ids, or `*` when too many to name (a payload holds under 8,000 bytes).
    static func payload(_ users: Set<UserID>) -> String {
        let text = users.map(\.description).sorted().joined(separator: ",")
        return text.utf8.count < 7_000 ? text : "*"
    }

    /// The users a payload names; nil (everyone) when it names none it can read.
    static func users(_ payload: String) -> Set<UserID>? {
        guard payload != "*" else { return nil }
        let users = payload.split(separator: ",").compactMap { Int64($0).map(UserID.init) }
        return users.isEmpty ? nil : Set(users)
    }

    /// This database's cursor key (`meta`), once migrated.
    public static func cursorKey(_ client: PostgresClient, logger: Logger) async throws -> [UInt8] {
        Array(
            (try await client.query("SELECT value FROM meta WHERE name = 'cursor_key'", logger: logger).collect()
                .first?.decode(String.self) ?? "").utf8)
    }

    public static func migrate(_ client: PostgresClient, url: String, logger: Logger) async throws {
        try await client.withTransaction(logger: logger) { db in
            // One server migrates at a time.
            try await db.run("SELECT pg_advisory_xact_lock(7205001)", logger: logger)
            try await db.run("CREATE TABLE IF NOT EXISTS resv_schema (version INTEGER NOT NULL)", logger: logger)
            let version =
                try await db.query("SELECT version FROM resv_schema", logger: logger).collect()
                .first.map { try $0.decode(Int.self) } ?? 0
            if version > Schema.version {
                throw DatabaseError.newerSchema(redacted(url), found: version, supported: Schema.version)
            }
            guard version < Schema.version else { return }
            for statement in Schema.statements(.postgres, from: version) {
                try await db.run(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
            try await db.run("DELETE FROM resv_schema", logger: logger)
            try await db.run("INSERT INTO resv_schema (version) VALUES (\(Schema.version))", logger: logger)
        }
    }

    /// A row of `ReservationRow.columns`, starting at column `first`, read by `ReservationField`.
    static func record(_ row: PostgresRow, from first: Int = 0) throws -> ReservationApiModel {
        let cells = row.makeRandomAccess()
        var values: [StoredValue] = []
        for (index, field) in ReservationRow.read.enumerated() {
            let cell = cells[first + index]
            switch field.kind {
            case .text: values.append(try cell.decode(String?.self).map { .text($0) } ?? .null)
            case .integer: values.append(try cell.decode(Int?.self).map { .integer($0) } ?? .null)
            case .real: values.append(try cell.decode(Double?.self).map { .real($0) } ?? .null)
            }
        }
        guard let record = ReservationField.record(values) else {
            throw DatabaseError.corruptRow("a reservation row has NULL where a value must be")
        }
        return record
    }

    static func storedResponse(_ db: PostgresConnection, user: UserID, key: String, logger: Logger)
        async throws -> StoredResponse?
    {
        try await db.query(
            "SELECT request_hash, status, body FROM idempotency_keys WHERE user_id = \(user.rawValue) AND key = \(key)",
            logger: logger
        ).collect().first.map { row in
            let (hash, status, body) = try row.decode((String, Int, ByteBuffer).self)
            return StoredResponse(status: status, body: Array(body.readableBytesView), requestHash: hash)
        }
    }

    /// The URL without its password, for messages.
    static func redacted(_ url: String) -> String { PostgresTarget.redact(url) }

    /// The pool's configuration for a one-host URL (its first host for a list).
    public static func configuration(_ url: String) throws -> PostgresClient.Configuration {
        let target = try PostgresTarget(url)
        return target.clientConfiguration(for: target.hosts[0])
    }
}

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
