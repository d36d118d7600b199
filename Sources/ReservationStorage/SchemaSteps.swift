import Foundation
import ReservationCore

/// The schema's steps after version 1, each named in `Schema.upgrades`.
extension Schema {
    /// Version 16: the catalog (`StoredCatalog`), a row per landmark: its record as JSON,
    /// whether it is retired, the version that last wrote it, its place in the list.
    static func landmarks(_ d: Dialect) -> [String] {
        [
            """
            CREATE TABLE IF NOT EXISTS landmarks (
                id TEXT PRIMARY KEY,
                position \(d.integer) NOT NULL,
                record TEXT NOT NULL,
                retired \(d.integer) NOT NULL DEFAULT 0 CHECK (retired IN (0, 1)),
                version \(d.integer) NOT NULL)
            """,
            "CREATE INDEX IF NOT EXISTS landmarks_by_version ON landmarks (version)",
        ]
    }

    /// Version 15: the landmark-days' own rules (`DayRule`), keyed by landmark and
    /// calendar day (`YYYY-MM-DD` in the landmark's zone).
    static func dayRules(_ d: Dialect) -> [String] {
        [
            """
            CREATE TABLE IF NOT EXISTS day_rules (
                landmark_id TEXT NOT NULL,
                day TEXT NOT NULL,
                capacity \(d.integer) CHECK (capacity IS NULL OR capacity BETWEEN 0 AND \(DayRule.capacityLimit)),
                closed TEXT,
                PRIMARY KEY (landmark_id, day))
            """
        ]
    }

    /// Version 4: every change from then on, in `history`.
    static func historyTable(_ d: Dialect) -> [String] {
        [
            """
            CREATE TABLE IF NOT EXISTS history (
                seq \(d.serial),
                user_id \(d.integer) NOT NULL REFERENCES users (id),
                reservation_id TEXT NOT NULL,
                command TEXT NOT NULL,
                change TEXT NOT NULL,
                undoes TEXT,
                entry TEXT NOT NULL)
            """,
            "CREATE INDEX IF NOT EXISTS history_by_user ON history (user_id, seq)",
            "CREATE INDEX IF NOT EXISTS history_by_reservation ON history (reservation_id, seq)",
            "CREATE INDEX IF NOT EXISTS history_by_command ON history (command)",
            "CREATE INDEX IF NOT EXISTS history_by_undone ON history (undoes) WHERE undoes IS NOT NULL",
        ]
    }

    /// Version 8: the calendar subscriptions' secrets, one per user.
    static func calendarSecrets(_ d: Dialect) -> [String] {
        [
            """
            CREATE TABLE IF NOT EXISTS calendars (
                user_id \(d.integer) PRIMARY KEY REFERENCES users (id),
                secret TEXT NOT NULL UNIQUE,
                created_at \(d.real) NOT NULL)
            """
        ]
    }

    /// Version 13: each user's role and, for staff, their landmarks.
    static func roles(_ d: Dialect) -> [String] {
        let roles = UserRole.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        return [
            "ALTER TABLE users \(d.addColumn) role TEXT NOT NULL DEFAULT 'member' CHECK (role IN (\(roles)))",
            "ALTER TABLE users \(d.addColumn) landmarks TEXT NOT NULL DEFAULT ''",
        ]
    }

    /// Version 12: when each user's newest change committed (`CommitTime`).
    static func commitTimes(_ d: Dialect) -> [String] {
        [
            "ALTER TABLE users \(d.addColumn) changed_at \(d.real)",
            """
            UPDATE users SET changed_at = (
                SELECT MAX(COALESCE(updated_at, created_at)) FROM reservations WHERE reservations.user_id = users.id)
            WHERE changed_at IS NULL
            """,
        ]
    }

    /// Version 10, PostgreSQL only: the people booked on each landmark-day counted
    /// (`day_counts`) instead of scanned (BENCHMARKS.md, "On-sale": the scan of an on-sale
    /// day's rows was the largest cost under its lock). A row per landmark-day a count
    /// asked for (`PostgresTransaction.booked`, which makes it by one scan under the
    /// landmark's count lock), holding the people of its reservations of `statuses`
    /// (pending and confirmed at version 10, `takingPlaces` from 14: frozen in each
    /// step, as `Reservation.Status.takingPlaces` was then; live holds are counted
    /// apart, by the clock). Kept by a trigger on every write of `reservations`,
    /// whoever makes it, deferred to the commit: it takes the count row's lock
    /// last, after any day's lock, and the landmark's count lock shared, which a
    /// count being made holds exclusively, so no change is lost between its scan
    /// and its row (docs/architecture.md, "Counting a day").
    static func dayCounts(counting statuses: [Reservation.Status]) -> [String] {
        func counts(_ row: String) -> String {
            "\(SharedSQL.status(row, in: statuses)) AND \(row).party_size BETWEEN "
                + "\(Reservation.partySizes.lowerBound) AND \(Reservation.partySizes.upperBound)"
        }
        return [
            """
            CREATE TABLE IF NOT EXISTS day_counts (
                landmark_id TEXT NOT NULL,
                start_at DOUBLE PRECISION NOT NULL,
                end_at DOUBLE PRECISION NOT NULL,
                taken BIGINT NOT NULL,
                PRIMARY KEY (landmark_id, start_at, end_at))
            """,
            // Live holds are counted by the clock, from the few held rows of a day.
            """
            CREATE INDEX IF NOT EXISTS reservations_held_by_day ON reservations (landmark_id, starts_at)
            WHERE status = \(SharedSQL.literal(.held))
            """,
            """
            CREATE OR REPLACE FUNCTION resv_count_day() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                counted_before BOOLEAN := TG_OP <> 'INSERT' AND COALESCE(\(counts("OLD")), FALSE);
                counted_after BOOLEAN := TG_OP <> 'DELETE' AND COALESCE(\(counts("NEW")), FALSE);
            BEGIN
                IF counted_before AND counted_after AND OLD.landmark_id = NEW.landmark_id AND OLD.starts_at = NEW.starts_at
                    AND OLD.party_size = NEW.party_size THEN
                    RETURN NULL;
                END IF;
                IF counted_before THEN
                    PERFORM pg_advisory_xact_lock_shared(hashtextextended('count ' || OLD.landmark_id, 0));
                    UPDATE day_counts SET taken = taken - OLD.party_size
                    WHERE landmark_id = OLD.landmark_id AND start_at <= OLD.starts_at AND OLD.starts_at < end_at;
                END IF;
                IF counted_after THEN
                    PERFORM pg_advisory_xact_lock_shared(hashtextextended('count ' || NEW.landmark_id, 0));
                    UPDATE day_counts SET taken = taken + NEW.party_size
                    WHERE landmark_id = NEW.landmark_id AND start_at <= NEW.starts_at AND NEW.starts_at < end_at;
                END IF;
                RETURN NULL;
            END
            $$
            """,
            "DROP TRIGGER IF EXISTS reservations_count_day ON reservations",
            """
            CREATE CONSTRAINT TRIGGER reservations_count_day AFTER INSERT OR UPDATE OR DELETE ON reservations
            DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION resv_count_day()
            """,
        ]
    }

    /// Version 7: each user's changes numbered 1, 2, 3… in the order they
    /// commit (`history.position`, the feed's cursor), from a counter on the
    /// user's row (`users.last_position`) that a writer takes at the end of its
    /// transaction and holds until it commits. `seq`, numbered when a row is
    /// written, is not that order when several transactions write at once
    /// (docs/feed.md). Rows written before are numbered in `seq` order.
    static func feedPositions(_ d: Dialect) -> [String] {
        [
            "ALTER TABLE users \(d.addColumn) last_position \(d.integer) NOT NULL DEFAULT 0",
            "ALTER TABLE history \(d.addColumn) position \(d.integer)",
            """
            UPDATE history SET position = n.p FROM (
                SELECT seq, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY seq) AS p FROM history) AS n
            WHERE history.seq = n.seq
            """,
            """
            UPDATE users SET last_position = (
                SELECT COALESCE(MAX(position), 0) FROM history WHERE history.user_id = users.id)
            """,
            "CREATE UNIQUE INDEX IF NOT EXISTS history_by_position ON history (user_id, position)",
        ]
    }

    /// Version 11: each token's scope and public id. SQLite has no `ADD COLUMN IF NOT
    /// EXISTS`, so its table is made anew and the rows copied (as version 5 does), which
    /// an upgrade run again over a table that has the columns survives too.
    static func tokenScopes(_ d: Dialect) -> [String] {
        let scopes = TokenScope.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        let scope = "scope TEXT NOT NULL DEFAULT 'write' CHECK (scope IN (\(scopes)))"
        let ids = "UPDATE tokens SET public_id = substr(hash, 1, 8) WHERE public_id IS NULL"
        switch d {
        case .postgres:
            return [
                "ALTER TABLE tokens \(d.addColumn) \(scope)", "ALTER TABLE tokens \(d.addColumn) public_id TEXT", ids,
            ]
        case .sqlite:
            let kept = "hash, user_id, created_at, last_used_at, expires_at"
            return [
                "DROP TABLE IF EXISTS tokens_v11",
                """
                CREATE TABLE tokens_v11 (
                    hash TEXT PRIMARY KEY, user_id \(d.integer) NOT NULL REFERENCES users (id),
                    created_at \(d.real) NOT NULL, last_used_at \(d.real), expires_at \(d.real), \(scope),
                    public_id TEXT)
                """,
                "INSERT INTO tokens_v11 (\(kept)) SELECT \(kept) FROM tokens",
                "DROP TABLE tokens",
                "ALTER TABLE tokens_v11 RENAME TO tokens",
                ids,
            ]
        }
    }

    /// Version 14: `checked-in` and `no-show` in the status CHECK (`statuses`: `checked`, every
    /// status of the domain then). SQLite cannot change a CHECK, so its table is made anew with
    /// every column and index it has by now and the rows copied; PostgreSQL replaces the
    /// constraint and the day counts' function (counting `takingPlaces`, which holds both).
    /// No stored row has either status before this step, so every day count stays right.
    static func attendance(_ d: Dialect) -> [String] {
        switch d {
        case .postgres:
            return [
                "ALTER TABLE reservations DROP CONSTRAINT IF EXISTS reservations_status_check",
                "ALTER TABLE reservations ADD CONSTRAINT reservations_status_check CHECK (status IN (\(statuses)))",
            ] + dayCounts(counting: takingPlaces)
        case .sqlite:
            let kept = """
                id, user_id, landmark_id, date, starts_at, party_size, status, created_at, note, updated_at, version, \
                expires_at, waitlist_order, requested_status, series
                """
            return [
                "DROP TABLE IF EXISTS reservations_v13",
                """
                CREATE TABLE reservations_v13 (
                    id TEXT PRIMARY KEY,
                    user_id \(d.integer) NOT NULL REFERENCES users (id),
                    landmark_id TEXT NOT NULL,
                    date TEXT NOT NULL,
                    starts_at \(d.real) NOT NULL,
                    party_size \(d.integer) NOT NULL CHECK (party_size > 0),
                    status TEXT NOT NULL CHECK (status IN (\(statuses))),
                    created_at \(d.real) NOT NULL,
                    note TEXT,
                    updated_at \(d.real),
                    version \(d.integer) NOT NULL DEFAULT 1,
                    expires_at \(d.real), waitlist_order \(d.integer), requested_status TEXT, series TEXT)
                """,
                "INSERT INTO reservations_v13 (\(kept)) SELECT \(kept) FROM reservations",
                "DROP TABLE reservations",
                "ALTER TABLE reservations_v13 RENAME TO reservations",
                "CREATE INDEX IF NOT EXISTS reservations_by_user ON reservations (user_id, starts_at)",
                "CREATE INDEX IF NOT EXISTS reservations_by_landmark ON reservations (landmark_id, starts_at)",
                """
                CREATE INDEX IF NOT EXISTS reservations_holds ON reservations (expires_at)
                WHERE status = \(SharedSQL.literal(.held))
                """,
                """
                CREATE INDEX IF NOT EXISTS reservations_waitlisted ON reservations (landmark_id, starts_at)
                WHERE status = \(SharedSQL.literal(.waitlisted))
                """,
            ]
        }
    }

    /// 32 random bytes as hex: a new database's cursor key.
    static func newKey() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// The statuses the CHECK of version 14 allows, and those its day counts count: frozen, as a
    /// database upgraded then keeps them. A status added to the domain needs a step of its own
    /// (`SchemaStatusTests` compares a new database's CHECK and trigger with the domain's).
    static let checked: [Reservation.Status] = [
        .pending, .confirmed, .cancelled, .held, .expired, .waitlisted, .checkedIn, .noShow,
    ]
    static let takingPlaces: [Reservation.Status] = [.pending, .confirmed, .checkedIn, .noShow]

    /// The statuses a stored reservation may have, as of version 14.
    static let statuses = list(checked)

    /// `'pending', 'confirmed', …`: statuses as SQL literals.
    static func list(_ statuses: [Reservation.Status]) -> String {
        statuses.map { "'\($0.rawValue)'" }.joined(separator: ", ")
    }

    /// Version 5. SQLite cannot change a column's CHECK, so its table is made
    /// anew and the rows copied; PostgreSQL replaces the constraint.
    static func holdsAndWaitlists(_ d: Dialect) -> [String] {
        let statuses = list([.pending, .confirmed, .cancelled, .held, .expired, .waitlisted])
        let columns = [
            "expires_at \(d.real)", "waitlist_order \(d.integer)", "requested_status TEXT",
        ]
        let indexes = [
            // The sweep of ended holds reads only holds, by their end.
            "CREATE INDEX IF NOT EXISTS reservations_holds ON reservations (expires_at) WHERE status = \(SharedSQL.literal(.held))",
            """
            CREATE INDEX IF NOT EXISTS reservations_waitlisted ON reservations (landmark_id, starts_at)
            WHERE status = \(SharedSQL.literal(.waitlisted))
            """,
        ]
        switch d {
        case .postgres:
            return [
                "ALTER TABLE reservations DROP CONSTRAINT IF EXISTS reservations_status_check",
                "ALTER TABLE reservations ADD CONSTRAINT reservations_status_check CHECK (status IN (\(statuses)))",
            ] + columns.map { "ALTER TABLE reservations \(d.addColumn) \($0)" } + indexes
        case .sqlite:
            let kept =
                "id, user_id, landmark_id, date, starts_at, party_size, status, created_at, note, updated_at, version"
            return [
                """
                CREATE TABLE reservations_v5 (
                    id TEXT PRIMARY KEY,
                    user_id \(d.integer) NOT NULL REFERENCES users (id),
                    landmark_id TEXT NOT NULL,
                    date TEXT NOT NULL,
                    starts_at \(d.real) NOT NULL,
                    party_size \(d.integer) NOT NULL CHECK (party_size > 0),
                    status TEXT NOT NULL CHECK (status IN (\(statuses))),
                    created_at \(d.real) NOT NULL,
                    note TEXT,
                    updated_at \(d.real),
                    version \(d.integer) NOT NULL DEFAULT 1,
                    \(columns.joined(separator: ", ")))
                """,
                "INSERT INTO reservations_v5 (\(kept)) SELECT \(kept) FROM reservations",
                "DROP TABLE reservations",
                "ALTER TABLE reservations_v5 RENAME TO reservations",
                "CREATE INDEX IF NOT EXISTS reservations_by_user ON reservations (user_id, starts_at)",
                "CREATE INDEX IF NOT EXISTS reservations_by_landmark ON reservations (landmark_id, starts_at)",
            ] + indexes
        }
    }
}
