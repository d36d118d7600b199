import Foundation
import Logging
import PostgresNIO
import ReservationCore
import SQLiteNIO

/// A user's calendar subscription: the secret in its address
/// (`/calendar/{secret}.ics`), and when that secret was made.
public struct CalendarSecret: Sendable, Hashable {
    public var secret: String
    /// Whole seconds: the subscription's `Last-Modified` while the user has no reservations.
    public var createdAt: Date

    public init(secret: String, createdAt: Date) {
        self.secret = secret
        self.createdAt = createdAt
    }

    /// A new secret: 32 bytes of the system's cryptographic generator, base64url without padding (43 characters).
    public static func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return String(
            Data(bytes).base64EncodedString().compactMap {
                switch $0 {
                case "+": "-"
                case "/": "_"
                case "=": nil
                default: $0
                }
            })
    }

    /// Whether `text` has the form of a secret (43 base64url characters), so
    /// anything else is refused before the database is asked.
    public static func isWellFormed(_ text: some StringProtocol) -> Bool {
        text.utf8.count == 43
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                    true
                default: false
                }
            }
    }
}

/// Whose calendar a secret opens, when the secret was made, and when the user's
/// newest change committed (`CommitTime`; nil before the first).
public struct CalendarOwner: Sendable, Hashable {
    public var user: UserID
    public var createdAt: Date
    public var changedAt: Date?

    public init(user: UserID, createdAt: Date, changedAt: Date?) {
        self.user = user
        self.createdAt = createdAt
        self.changedAt = changedAt
    }
}

/// When each user's newest change committed (`users.changed_at`), for the
/// calendar feed's `Last-Modified` (docs/contracts.md, "Calendar subscriptions"):
/// every write transaction that adds to a user's history moves it on as it
/// commits, in commit order, by a second at least. A change stamps its
/// reservation with the time its request came (`updatedAt`), which may be
/// before that of a change that committed first while this one waited for a
/// lock; this date is later for every later commit, whatever the stamps and
/// the instances' clocks say, so a feed whose bytes changed is never dated at
/// or before an older copy. A user committing more than once a second runs it
/// ahead of the clock for a while (the feed never dates itself after now).
public enum CommitTime {
    /// The date a commit records after `previous` (the user's last, nil for none):
    /// the clock's whole second, unless that is not after `previous`, then the second after it.
    public static func next(after previous: Date?, at now: Date) -> Date {
        let second = Timestamp.whole(now)
        guard let previous else { return second }
        return max(second, Timestamp.whole(previous).addingTimeInterval(1))
    }
}

extension ServerStore {
    /// The user's calendar secret, made when absent if `make`.
    public func calendarSecret(_ user: UserID, make: Bool) async throws -> String? {
        try await calendars.secret(user, make)?.secret
    }

    /// A new calendar secret for the user; the old one opens nothing from now on.
    public func resetCalendar(_ user: UserID) async throws -> String {
        try await calendars.reset(user).secret
    }

    /// The user whose calendar `secret` opens; nil for none.
    public func calendarUser(_ secret: String) async throws -> UserID? {
        try await calendars.owner(secret)?.user
    }
}

/// SQLite's calendars: reads on the readers, writes through the one writer.
struct SQLiteCalendars: CalendarStore {
    let writer: SQLiteWriter
    let readers: SQLiteReaders
    let now: @Sendable () -> Date

    private func reader() -> SQLiteConnection { readers.next() }

    private func kept(_ user: UserID, on db: SQLiteConnection) async throws -> CalendarSecret? {
        guard
            let row = try await db.query(
                "SELECT secret, created_at FROM calendars WHERE user_id = ?", [.integer(Int(user.rawValue))]
            ).first
        else { return nil }
        guard let secret = row.column("secret")?.string, let created = row.column("created_at")?.double else {
            throw DatabaseError.corruptRow("a calendar without a secret or a creation date")
        }
        return CalendarSecret(secret: secret, createdAt: Date(timeIntervalSince1970: created))
    }

    func secret(_ user: UserID, _ make: Bool) async throws -> CalendarSecret? {
        if let found = try await kept(user, on: reader()) { return found }
        guard make else { return nil }
        return try await writer.perform { db in
            // Another request may have made one meanwhile: the first one made stays.
            _ = try await db.query(
                "INSERT INTO calendars (user_id, secret, created_at) VALUES (?, ?, ?) ON CONFLICT (user_id) DO NOTHING",
                [
                    .integer(Int(user.rawValue)), .text(CalendarSecret.newSecret()),
                    .float(Timestamp.whole(now()).timeIntervalSince1970),
                ])
            guard let made = try await kept(user, on: db) else {
                throw DatabaseError.corruptRow("the calendar of user \(user) vanished")
            }
            return made
        }
    }

    func reset(_ user: UserID) async throws -> CalendarSecret {
        let made = CalendarSecret(secret: CalendarSecret.newSecret(), createdAt: Timestamp.whole(now()))
        _ = try await writer.perform { db in
            try await db.query(
                """
                INSERT INTO calendars (user_id, secret, created_at) VALUES (?, ?, ?)
                ON CONFLICT (user_id) DO UPDATE SET secret = excluded.secret, created_at = excluded.created_at
                """,
                [
                    .integer(Int(user.rawValue)), .text(made.secret),
                    .float(made.createdAt.timeIntervalSince1970),
                ])
        }
        return made
    }

    func owner(_ secret: String) async throws -> CalendarOwner? {
        guard
            let row = try await reader().query(
                """
                SELECT c.user_id, c.created_at, u.changed_at FROM calendars c JOIN users u ON u.id = c.user_id
                WHERE c.secret = ?
                """, [.text(secret)]
            ).first
        else { return nil }
        guard let user = row.column("user_id")?.integer, let created = row.column("created_at")?.double else {
            throw DatabaseError.corruptRow("a calendar without a user or a creation date")
        }
        return CalendarOwner(
            user: UserID(Int64(user)), createdAt: Date(timeIntervalSince1970: created),
            changedAt: row.column("changed_at")?.double.map(Date.init(timeIntervalSince1970:)))
    }
}

/// PostgreSQL's calendars: every call one statement on the pool.
struct PostgresCalendars: CalendarStore {
    let cluster: PostgresCluster
    let logger: Logger
    let now: @Sendable () -> Date

    private func kept(_ user: UserID) async throws -> CalendarSecret? {
        try await cluster.client.query(
            "SELECT secret, created_at FROM calendars WHERE user_id = \(user.rawValue)", logger: logger
        ).collect().first.map { row in
            let (secret, created) = try row.decode((String, Double).self)
            return CalendarSecret(secret: secret, createdAt: Date(timeIntervalSince1970: created))
        }
    }

    func secret(_ user: UserID, _ make: Bool) async throws -> CalendarSecret? {
        if let found = try await kept(user) { return found }
        guard make else { return nil }
        let secret = CalendarSecret.newSecret()
        let created = Timestamp.whole(now()).timeIntervalSince1970
        // Another request may have made one meanwhile: the first one made stays.
        try await cluster.client.query(
            """
            INSERT INTO calendars (user_id, secret, created_at) VALUES (\(user.rawValue), \(secret), \(created))
            ON CONFLICT (user_id) DO NOTHING
            """, logger: logger)
        guard let made = try await kept(user) else {
            throw DatabaseError.corruptRow("the calendar of user \(user) vanished")
        }
        return made
    }

    func reset(_ user: UserID) async throws -> CalendarSecret {
        let made = CalendarSecret(secret: CalendarSecret.newSecret(), createdAt: Timestamp.whole(now()))
        let created = made.createdAt.timeIntervalSince1970
        try await cluster.client.query(
            """
            INSERT INTO calendars (user_id, secret, created_at) VALUES (\(user.rawValue), \(made.secret), \(created))
            ON CONFLICT (user_id) DO UPDATE SET secret = excluded.secret, created_at = excluded.created_at
            """, logger: logger)
        return made
    }

    func owner(_ secret: String) async throws -> CalendarOwner? {
        try await cluster.client.query(
            """
            SELECT c.user_id, c.created_at, u.changed_at FROM calendars c JOIN users u ON u.id = c.user_id
            WHERE c.secret = \(secret)
            """, logger: logger
        ).collect().first.map { row in
            let (user, created, changed) = try row.decode((Int64, Double, Double?).self)
            return CalendarOwner(
                user: UserID(user), createdAt: Date(timeIntervalSince1970: created),
                changedAt: changed.map(Date.init(timeIntervalSince1970:)))
        }
    }
}
