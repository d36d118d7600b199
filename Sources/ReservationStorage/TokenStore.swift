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

    public init(
        id: String, user: String, scope: TokenScope, createdAt: Date, lastUsedAt: Date?, expiresAt: Date?
    ) {
        self.id = id
        self.user = user
        self.scope = scope
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.expiresAt = expiresAt
    }
}

/// What a token's hash stands for: its user (with their name, role and landmarks), its scope and
/// public id, until `expiresAt` when it has one. The scope narrows the role: `AuthenticatedContext`.
public struct TokenGrant: Sendable, Hashable {
    public var user: UserID
    public var scope: TokenScope
    public var expiresAt: Date?
    /// The user's name, as history entries name an actor.
    public var name: String?
    /// The token's public id (never the token).
    public var tokenID: String?
    /// The user's role and landmarks when the grant was read.
    public var access: UserAccess

    public init(
        user: UserID, scope: TokenScope = .write, expiresAt: Date? = nil, name: String? = nil,
        tokenID: String? = nil, access: UserAccess = .member
    ) {
        self.user = user
        self.scope = scope
        self.expiresAt = expiresAt
        self.name = name
        self.tokenID = tokenID
        self.access = access
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
public enum TokenRows {
    /// A last use closer than this to the kept one is not written again.
    public static let touchResolution: TimeInterval = 60

    /// The columns `grant` reads, in both engines, before the hash.
    static let grantQuery = """
        SELECT tokens.user_id, tokens.scope, tokens.expires_at, tokens.public_id, users.name, users.role,
        users.landmarks FROM tokens JOIN users ON users.id = tokens.user_id WHERE tokens.hash =
        """

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
            let row = try await reader().query(TokenRows.grantQuery + " ?", [.text(hash)]).first,
            let user = row.column("user_id")?.integer
        else { return nil }
        return TokenGrant(
            user: UserID(Int64(user)), scope: try TokenRows.scope(row.column("scope")?.string),
            expiresAt: row.column("expires_at")?.double.map(Date.init(timeIntervalSince1970:)),
            name: row.column("name")?.string, tokenID: row.column("public_id")?.string,
            access: try UserAccess(stored: row.column("role")?.string, landmarks: row.column("landmarks")?.string))
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

    func user(named name: String) async throws -> UserID? {
        try await reader().query("SELECT id FROM users WHERE name = ?", [.text(name)]).first?.column("id")?.integer
            .map { UserID(Int64($0)) }
    }

    func setAccess(_ name: String, _ access: UserAccess, create: Bool, mustBeNew: Bool) async throws -> AccessChange {
        try await writer.perform { db in
            let found = try await db.query("SELECT role, landmarks FROM users WHERE name = ?", [.text(name)]).first
            if found == nil && !create { return .unknownUser }
            if found != nil && mustBeNew { return .exists }
            let before = try found.map {
                try UserAccess(stored: $0.column("role")?.string, landmarks: $0.column("landmarks")?.string)
            }
            if before?.role == .admin, access.role != .admin {
                let admins =
                    try await db.query("SELECT COUNT(*) AS n FROM users WHERE role = 'admin'").first?
                    .column("n")?.integer ?? 0
                if admins <= 1 { return .lastAdmin }
            }
            _ = try await db.query(
                """
                INSERT INTO users (name, created_at, role, landmarks) VALUES (?, ?, ?, ?)
                ON CONFLICT (name) DO UPDATE SET role = excluded.role, landmarks = excluded.landmarks
                """,
                [
                    .text(name), .float(now().timeIntervalSince1970), .text(access.role.rawValue),
                    .text(access.storedLandmarks),
                ])
            return .changed(before: before)
        }
    }

    func users() async throws -> [UserInfo] {
        try await reader().query(UserRows.listQuery).map { row in
            guard let name = row.column("name")?.string else { throw DatabaseError.corruptRow("a user without a name") }
            return UserInfo(
                name: name,
                access: try UserAccess(stored: row.column("role")?.string, landmarks: row.column("landmarks")?.string),
                createdAt: Date(timeIntervalSince1970: row.column("created_at")?.double ?? 0),
                tokens: row.column("token_count")?.integer ?? 0)
        }
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
        try await cluster.client.query("\(unescaped: TokenRows.grantQuery) \(hash)", logger: logger)
            .collect().first.map { row in
                let (user, scope, expires, id, name, role, landmarks) = try row.decode(
                    (Int64, String, Double?, String?, String, String, String).self)
                return TokenGrant(
                    user: UserID(user), scope: try TokenRows.scope(scope),
                    expiresAt: expires.map(Date.init(timeIntervalSince1970:)), name: name, tokenID: id,
                    access: try UserAccess(stored: role, landmarks: landmarks))
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

    func user(named name: String) async throws -> UserID? {
        try await cluster.client.query("SELECT id FROM users WHERE name = \(name)", logger: logger)
            .collect().first.map { UserID(try $0.decode(Int64.self)) }
    }

    func setAccess(_ name: String, _ access: UserAccess, create: Bool, mustBeNew: Bool) async throws -> AccessChange {
        try await cluster.client.withTransaction(logger: logger) { db in
            // One role change at a time: two at once cannot each remove one of the last two admins.
            try await db.run("SELECT pg_advisory_xact_lock(hashtextextended('resv roles', 0))", logger: logger)
            let found = try await db.query("SELECT role, landmarks FROM users WHERE name = \(name)", logger: logger)
                .collect().first.map { try $0.decode((String, String).self) }
            if found == nil && !create { return .unknownUser }
            if found != nil && mustBeNew { return .exists }
            let before = try found.map { try UserAccess(stored: $0.0, landmarks: $0.1) }
            if before?.role == .admin, access.role != .admin {
                let admins =
                    try await db.query("SELECT COUNT(*) FROM users WHERE role = 'admin'", logger: logger)
                    .collect().first.map { try $0.decode(Int64.self) } ?? 0
                if admins <= 1 { return .lastAdmin }
            }
            let (role, landmarks, at) = (access.role.rawValue, access.storedLandmarks, now().timeIntervalSince1970)
            try await db.run(
                """
                INSERT INTO users (name, created_at, role, landmarks) VALUES (\(name), \(at), \(role), \(landmarks))
                ON CONFLICT (name) DO UPDATE SET role = excluded.role, landmarks = excluded.landmarks
                """, logger: logger)
            return .changed(before: before)
        }
    }

    func users() async throws -> [UserInfo] {
        try await cluster.client.query(PostgresQuery(unsafeSQL: UserRows.listQuery), logger: logger).collect().map {
            let (name, role, landmarks, created, count) = try $0.decode((String, String, String, Double, Int64).self)
            return UserInfo(
                name: name, access: try UserAccess(stored: role, landmarks: landmarks),
                createdAt: Date(timeIntervalSince1970: created), tokens: Int(count))
        }
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
