import Foundation
import ReservationCore

/// The server's schema, written once for both engines: the tables of version
/// 1, then each step after it, in one dialect or the other where the two
/// differ (column types, an auto-numbered key, `ADD COLUMN IF NOT EXISTS`).
enum Schema {
    /// The version this server writes and reads; a database at a newer one is refused.
    static let version = 16

    enum Dialect {
        case sqlite, postgres

        /// A column of seconds since 1970, and of other floating-point numbers.
        var real: String { self == .sqlite ? "REAL" : "DOUBLE PRECISION" }
        var integer: String { self == .sqlite ? "INTEGER" : "BIGINT" }
        var bytes: String { self == .sqlite ? "BLOB" : "BYTEA" }
        /// A key the database numbers, in order.
        var serial: String { self == .sqlite ? "INTEGER PRIMARY KEY AUTOINCREMENT" : "BIGSERIAL PRIMARY KEY" }
        /// A user's id: SQLite's rowid alias, PostgreSQL's sequence.
        var userKey: String { self == .sqlite ? "INTEGER PRIMARY KEY" : "BIGSERIAL PRIMARY KEY" }
        var addColumn: String { self == .sqlite ? "ADD COLUMN" : "ADD COLUMN IF NOT EXISTS" }
    }

    /// The statements that bring a database at `version` (0 for a new one) up
    /// to date: the first tables when missing, then the steps after `version`.
    static func statements(_ dialect: Dialect, from version: Int) -> [String] {
        tables(dialect) + upgrades(dialect).filter { $0.version > version }.flatMap(\.statements)
    }

    /// The tables of version 1, created when missing.
    private static func tables(_ d: Dialect) -> [String] {
        [
            """
            CREATE TABLE IF NOT EXISTS users (
                id \(d.userKey), name TEXT NOT NULL UNIQUE, created_at \(d.real) NOT NULL)
            """,
            """
            CREATE TABLE IF NOT EXISTS tokens (
                hash TEXT PRIMARY KEY, user_id \(d.integer) NOT NULL REFERENCES users (id), created_at \(d.real) NOT NULL)
            """,
            """
            CREATE TABLE IF NOT EXISTS reservations (
                id TEXT PRIMARY KEY,
                user_id \(d.integer) NOT NULL REFERENCES users (id),
                landmark_id TEXT NOT NULL,
                date TEXT NOT NULL,
                starts_at \(d.real) NOT NULL,
                party_size \(d.integer) NOT NULL CHECK (party_size > 0),
                status TEXT NOT NULL CHECK (status IN ('pending', 'confirmed', 'cancelled')),
                created_at \(d.real) NOT NULL)
            """,
            "CREATE INDEX IF NOT EXISTS reservations_by_user ON reservations (user_id, starts_at)",
            "CREATE INDEX IF NOT EXISTS reservations_by_landmark ON reservations (landmark_id, starts_at)",
            """
            CREATE TABLE IF NOT EXISTS idempotency_keys (
                user_id \(d.integer) NOT NULL REFERENCES users (id),
                key TEXT NOT NULL,
                request_hash TEXT NOT NULL,
                status INTEGER NOT NULL,
                body \(d.bytes) NOT NULL,
                created_at \(d.real) NOT NULL,
                PRIMARY KEY (user_id, key))
            """,
            "CREATE INDEX IF NOT EXISTS idempotency_keys_by_age ON idempotency_keys (created_at)",
        ]
    }

    /// `(version, statements)` brings the version before it to `version`.
    private static func upgrades(_ d: Dialect) -> [(version: Int, statements: [String])] {
        [
            (
                2,
                [
                    "ALTER TABLE tokens \(d.addColumn) last_used_at \(d.real)",
                    "ALTER TABLE tokens \(d.addColumn) expires_at \(d.real)",
                ]
            ),
            // Rows older than version 3 are at version 1, last changed when created.
            (
                3,
                [
                    "ALTER TABLE reservations \(d.addColumn) note TEXT",
                    "ALTER TABLE reservations \(d.addColumn) updated_at \(d.real)",
                    "ALTER TABLE reservations \(d.addColumn) version \(d.integer) NOT NULL DEFAULT 1",
                    "UPDATE reservations SET updated_at = created_at WHERE updated_at IS NULL",
                ]
            ),
            // Every change from version 4 on; `entry` is the change as `resv log --json` shows it.
            (4, historyTable(d)),
            // Holds and waitlists: three statuses more, a hold's end, a place on a list.
            (5, holdsAndWaitlists(d)),
            // The change feed: the key its cursors are signed with, the same for every instance.
            (
                6,
                [
                    "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
                    """
                    INSERT INTO meta (name, value) VALUES ('cursor_key', '\(Self.newKey())')
                    ON CONFLICT (name) DO NOTHING
                    """,
                ]
            ),
            (7, feedPositions(d)),
            // Calendar subscriptions: one secret per user, the capability in `GET /calendar/{secret}.ics`.
            // Kept as given, not hashed (unlike tokens): `resv calendar url` prints the same address
            // again, and whoever reads this table reads the reservations it would show anyway.
            (8, calendarSecrets(d)),
            // Series (`reserve --every`): the series a reservation was booked in, set once.
            (9, ["ALTER TABLE reservations \(d.addColumn) series TEXT"]),
            (10, d == .postgres ? dayCounts(counting: [.pending, .confirmed]) : []),
            // Scopes and public ids (docs/contracts.md, "Token scopes"): tokens made before are `write`
            // (what every token could do), their id the first 8 hex digits of their hash; new ones get
            // a random id.
            (11, tokenScopes(d)),
            // The calendar feed's date follows commits (docs/contracts.md, "Calendar subscriptions"):
            // when each user's newest change committed, moved on by every write that adds to their
            // history (`CommitTime`). Before, the newest change a user's reservations show, as the
            // feed's date was then.
            (12, commitTimes(d)),
            // Roles (docs/contracts.md, "Roles"): every user a member, as before; staff keep the ids of
            // the landmarks they manage, space-separated (none for the other roles).
            (13, roles(d)),
            // Check-in (docs/contracts.md, "Check-in and no-shows"): two statuses more, both counted
            // as taking places (`Capacity.takesPlaces`) by the day counts' trigger too.
            (14, attendance(d)),
            // Capacity by date and closures (docs/contracts.md): a landmark-day's own capacity,
            // or why it is closed; a row per day that has either, read under the day's lock.
            (15, dayRules(d)),
            // The catalog in the database (docs/contracts.md, "The catalog"): shared by every
            // instance, read in the transaction that counts capacity.
            (16, landmarks(d)),
        ]
    }
}
