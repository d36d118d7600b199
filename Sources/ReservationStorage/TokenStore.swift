import Foundation
import Logging
import PostgresNIO
import SQLiteNIO

/// A token as `token list` shows it: its public id, whose it is, what it may do,
/// and when it was made and used; never the token or its hash.
public struct TokenInfo: Sendable, Hashable {
    public var id: String
    public var user: String
    public var scope: TokenScope
    public var createdAt: Date
    public var lastUsedAt: Date?
    public var expiresAt: Date?
}

/// What a token's hash stands for: its user and scope, until `expiresAt` when it has one.
public struct TokenGrant: Sendable, Hashable {
    public var user: UserID
    public var scope: TokenScope
    public var expiresAt: Date?

    public init(user: UserID, scope: TokenScope = .write, expiresAt: Date? = nil) {
        self.user = user
        self.scope = scope
        self.expiresAt = expiresAt
    }
}

/// A token to add: its user's name, its hash (never the token), public id, scope and expiry.
public struct NewToken: Sendable, Hashable {
    public var name: String
    public var hash: String
    public var id: String
    public var scope: TokenScope
    public var expiresAt: Date?

    public init(
        name: String, hash: String, id: String = Token.publicID(), scope: TokenScope = .write, expiresAt: Date? = nil
    ) {
        self.name = name
        self.hash = hash
        self.id = id
        self.scope = scope
        self.expiresAt = expiresAt
    }
}

/// What every engine's tokens share: the columns `list` reads, a stored
/// scope read, how often a last use is written.
enum TokenRows {
    /// A last use closer than this to the kept one is not written again.
    static let touchResolution: TimeInterval = 60

    /// The columns `list` reads, in both engines.
    static let listQuery = """
        SELECT tokens.public_id, users.name, tokens.scope, tokens.created_at, tokens.last_used_at, tokens.expires_at
        FROM tokens JOIN users ON users.id = tokens.user_id ORDER BY users.name, tokens.created_at, tokens.public_id
        """

    /// A stored scope; one this server does not know (a newer server's) is a corrupt row, never a grant.
    static func scope(_ text: String?) throws -> TokenScope {
        guard let text, let scope = TokenScope(rawValue: text) else {
            throw DatabaseError.corruptRow("a token of an unknown scope \(text ?? "(none)")")
        }
        return scope
    }
}

/// SQLite's tokens: reads on the readers, writes through the one writer.
struct SQLiteTokens: TokenStore {
    let writer: SQLiteWriter
    let readers: SQLiteReaders
    let now: @Sendable () -> Date

    private func reader() -> SQLiteConnection { readers.next() }

    func create(_ token: NewToken) async throws -> UserID {
        try await writer.perform { db in
            let now = now().timeIntervalSince1970
            _ = try await db.query(
                "INSERT INTO users (name, created_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
                [.text(token.name), .float(now)])
            guard
                let id = try await db.query("SELECT id FROM users WHERE name = ?", [.text(token.name)])
                    .first?.column("id")?.integer
            else { throw DatabaseError.corruptRow("a user vanished") }
            _ = try await db.query(
                """
                INSERT INTO tokens (hash, user_id, created_at, expires_at, scope, public_id)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(token.hash), .integer(id), .float(now),
                    token.expiresAt.map { .float($0.timeIntervalSince1970) } ?? .null,
                    .text(token.scope.rawValue), .text(token.id),
                ])
            return UserID(Int64(id))
        }
    }

    func grant(_ hash: String) async throws -> TokenGrant? {
        guard
            let row = try await reader().query(
                "SELECT user_id, scope, expires_at FROM tokens WHERE hash = ?", [.text(hash)]
            ).first, let user = row.column("user_id")?.integer
        else { return nil }
        return TokenGrant(
            user: UserID(Int64(user)), scope: try TokenRows.scope(row.column("scope")?.string),
            expiresAt: row.column("expires_at")?.double.map(Date.init(timeIntervalSince1970:)))
    }

    func list() async throws -> [TokenInfo] {
        try await reader().query(TokenRows.listQuery).map { row in
            guard let name = row.column("name")?.string, let created = row.column("created_at")?.double else {
                throw DatabaseError.corruptRow("a token without a user or a creation date")
            }
            return TokenInfo(
                id: row.column("public_id")?.string ?? "", user: name,
                scope: try TokenRows.scope(row.column("scope")?.string),
                createdAt: Date(timeIntervalSince1970: created),
                lastUsedAt: row.column("last_used_at")?.double.map(Date.init(timeIntervalSince1970:)),
                expiresAt: row.column("expires_at")?.double.map(Date.init(timeIntervalSince1970:)))
        }
    }

    func revoke(_ name: String, _ id: String?) async throws -> Int {
        try await writer.perform { db in
            try await db.query(
                """
                DELETE FROM tokens WHERE user_id IN (SELECT id FROM users WHERE name = ?)
                AND (? IS NULL OR public_id = ?) RETURNING user_id
                """,
                [.text(name), id.map(SQLiteData.text) ?? .null, id.map(SQLiteData.text) ?? .null]
            ).count
        }
    }

    func touch(_ hash: String, _ date: Date) async throws {
        let at = date.timeIntervalSince1970
        _ = try await writer.perform { db in
            try await db.query(
                "UPDATE tokens SET last_used_at = ? WHERE hash = ? AND (last_used_at IS NULL OR last_used_at < ?)",
                [.float(at), .text(hash), .float(at - TokenRows.touchResolution)])
        }
    }

    func name(_ user: UserID) async throws -> String? {
        try await reader().query("SELECT name FROM users WHERE id = ?", [.integer(Int(user.rawValue))])
            .first?.column("name")?.string
    }

    func ping() async throws {
        _ = try await reader().query("SELECT 1")
    }
}

/// PostgreSQL's tokens: every call one statement or transaction on the pool.
struct PostgresTokens: TokenStore {
    let cluster: PostgresCluster
    let logger: Logger
    let now: @Sendable () -> Date

    func create(_ token: NewToken) async throws -> UserID {
        try await cluster.client.withTransaction(logger: logger) { db in
            let now = now().timeIntervalSince1970
            let expires = token.expiresAt?.timeIntervalSince1970
            try await db.run(
                "INSERT INTO users (name, created_at) VALUES (\(token.name), \(now)) ON CONFLICT (name) DO NOTHING",
                logger: logger)
            guard
                let id = try await db.query("SELECT id FROM users WHERE name = \(token.name)", logger: logger)
                    .collect().first.map({ try $0.decode(Int64.self) })
            else { throw DatabaseError.corruptRow("a user vanished") }
            try await db.run(
                """
                INSERT INTO tokens (hash, user_id, created_at, expires_at, scope, public_id)
                VALUES (\(token.hash), \(id), \(now), \(expires), \(token.scope.rawValue), \(token.id))
                """,
                logger: logger)
            return UserID(id)
        }
    }

    func grant(_ hash: String) async throws -> TokenGrant? {
        try await cluster.client.query(
            "SELECT user_id, scope, expires_at FROM tokens WHERE hash = \(hash)", logger: logger
        )
        .collect().first.map { row in
            let (user, scope, expires) = try row.decode((Int64, String, Double?).self)
            return TokenGrant(
                user: UserID(user), scope: try TokenRows.scope(scope),
                expiresAt: expires.map(Date.init(timeIntervalSince1970:)))
        }
    }

    func list() async throws -> [TokenInfo] {
        try await cluster.client.query(PostgresQuery(unsafeSQL: TokenRows.listQuery), logger: logger).collect().map {
            let (id, name, scope, created, used, expires) = try $0.decode(
                (String?, String, String, Double, Double?, Double?).self)
            return TokenInfo(
                id: id ?? "", user: name, scope: try TokenRows.scope(scope),
                createdAt: Date(timeIntervalSince1970: created),
                lastUsedAt: used.map(Date.init(timeIntervalSince1970:)),
                expiresAt: expires.map(Date.init(timeIntervalSince1970:)))
        }
    }

    func revoke(_ name: String, _ id: String?) async throws -> Int {
        try await cluster.client.query(
            """
            DELETE FROM tokens WHERE user_id IN (SELECT id FROM users WHERE name = \(name))
            AND (\(id)::TEXT IS NULL OR public_id = \(id)) RETURNING user_id
            """,
            logger: logger
        ).collect().count
    }

    func touch(_ hash: String, _ date: Date) async throws {
        let at = date.timeIntervalSince1970
        let before = at - TokenRows.touchResolution
        try await cluster.client.query(
            "UPDATE tokens SET last_used_at = \(at) WHERE hash = \(hash) AND (last_used_at IS NULL OR last_used_at < \(before))",
            logger: logger)
    }

    func name(_ user: UserID) async throws -> String? {
        try await cluster.client.query("SELECT name FROM users WHERE id = \(user.rawValue)", logger: logger)
            .collect().first.map { try $0.decode(String.self) }
    }

    func ping() async throws {
        try await cluster.client.query("SELECT 1", logger: logger)
    }
}

extension ServerStore {
    /// Adds a token (by its hash) that never expires for the user `name`, creating the user when new.
    public func addToken(_ name: String, _ tokenHash: String, scope: TokenScope = .write) async throws -> UserID {
        try await tokens.create(NewToken(name: name, hash: tokenHash, scope: scope))
    }
}
