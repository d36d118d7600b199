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
