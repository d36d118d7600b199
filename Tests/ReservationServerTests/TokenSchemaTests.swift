import Foundation
import Logging
import ResvTestKit
import SQLiteNIO
import Testing

@testable import ReservationStorage

/// Schema 11 on a database of schema 10 (tokens without scope or id): every token
/// stays, as `write` (what it could do before), with the first 8 hex digits of its
/// hash as its id; tokens made after get a scope and an id of their own.
@Suite("Token scopes in an upgraded database", .timeLimit(.minutes(30)))
struct TokenSchemaTests {
    @Test func tokensOfASchemaTenDatabaseBecomeWrite() async throws {
        try await TemporaryDirectory.with("tokens") { folder in
            let directory = folder.url
            let path = directory.appendingPathComponent("db.sqlite").path
            let logger = Logger(label: "resv-test-tokens") { _ in SwiftLogNoOpLogHandler() }
            let clock: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_900_000_000) }
            let old = Token.hash(Token.generate())
            try await Database.withStore(path, logger: logger, now: clock) { store in
                _ = try await store.addToken("ada", old, scope: .read)
            }
            // What version 10 had: the tokens of version 2, no scope and no public id (and no commit dates).
            let connection = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
            for statement in [
                "ALTER TABLE tokens DROP COLUMN scope", "ALTER TABLE tokens DROP COLUMN public_id",
                "ALTER TABLE users DROP COLUMN changed_at", "ALTER TABLE users DROP COLUMN role",
                "ALTER TABLE users DROP COLUMN landmarks", "PRAGMA user_version = 10",
            ] {
                _ = try await connection.query(statement)
            }
            try await connection.close()
            let new = NewToken(name: "ada", hash: Token.hash(Token.generate()), scope: .calendar)
            let tokens = try await Database.withStore(path, logger: logger, now: clock) { store in
                _ = try await store.tokens.create(new)
                return try await store.tokens.list()
            }
            #expect(tokens.count == 2)
            let upgraded = try #require(tokens.first { $0.id == String(old.prefix(8)) })
            #expect(upgraded.scope == .write && upgraded.user == "ada")
            #expect(tokens.contains { $0.id == new.id && $0.scope == .calendar })
            #expect(Token.isPublicID(new.id) && new.id != String(new.hash.prefix(8)))
        }
    }
}
