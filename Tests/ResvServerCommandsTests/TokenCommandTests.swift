import Foundation
import Logging
import ReservationStorage
import ResvReference
import ResvTestKit
import Testing

/// `token create --scope`, `token list`'s ids and scopes, `token revoke --id`, and
/// names with control characters, run in this process on a temporary SQLite file.
@Suite("resv-server token commands: scopes, ids, names", .timeLimit(.minutes(30)))
struct TokenCommandTests {
    typealias Sandbox = ServerCommandTests.Sandbox

    static func run(_ arguments: [String], now: Date = ServerCommandTests.now) async -> Run {
        await ServerCommandTests.resvServer(arguments, now: now)
    }

    /// The id a create said on stderr.
    static func id(of created: Run) throws -> String {
        String(try #require(created.stderr.firstMatch(of: /\(id ([0-9a-f]{8})\)/)).output.1)
    }

    @Test(arguments: ["read", "write", "calendar"])
    func eachScopeIsStoredWithItsToken(scope: String) async throws {
        let sandbox = try Sandbox()
        let created = await Self.run(["token", "create", "ada", "--scope", scope, "--database", sandbox.database])
        #expect(created.status == 0, "\(created.stderr)")
        let id = try Self.id(of: created)
        #expect(created.stderr.hasPrefix("resv-server: created a \(scope) token (id \(id)) for ada;"))
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let clock: @Sendable () -> Date = { Date() }
        let grant = try await Database.withStore(sandbox.database, logger: logger, now: clock) { store in
            try await store.tokens.grant(Token.hash(created.stdout.dropLast()))
        }
        #expect(grant?.scope.rawValue == scope)
    }

    @Test func theDefaultScopeIsWriteAndABadOneIsAUsageError() async throws {
        let sandbox = try Sandbox()
        let created = await Self.run(["token", "create", "ada", "--database", sandbox.database])
        #expect(created.status == 0 && created.stderr.contains("created a write token"), "\(created.stderr)")
        let bad = await Self.run(["token", "create", "bob", "--scope", "admin", "--database", sandbox.database])
        #expect(bad.status == ExitStatus.usage && bad.stdout.isEmpty)
        #expect(bad.stderr.hasPrefix("Error: The value 'admin' is invalid for '--scope <scope>'"), "\(bad.stderr)")
        let list = await Self.run(["token", "list", "--json", "--database", sandbox.database])
        #expect(!list.stdout.contains("bob"), "nothing was created")
    }

    /// C0 (CR, LF, ESC), DEL and C1 in a name: one line naming it escaped, exit 64, nothing created.
    @Test(arguments: ["mal\r\nresv-server: revoked 9 tokens of root", "esc\u{1B}[2Jname", "del\u{7F}", "c1\u{9B}31m"])
    func aNameWithControlCharactersIsRefused(name: String) async throws {
        let sandbox = try Sandbox()
        let refused = await Self.run(["token", "create", name, "--database", sandbox.database])
        #expect(refused.status == ExitStatus.usage)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr.split(separator: "\n", omittingEmptySubsequences: false).count == 2, "one line")
        #expect(refused.stderr.contains(UserName.printable(name)), "\(refused.stderr)")
        #expect(!UserName.hasControlCharacters(String(refused.stderr.dropLast())))
        #expect(!FileManager.default.fileExists(atPath: sandbox.database), "refused before opening the database")
    }

    /// A name stored before (by an older server, or another program) is escaped in the table.
    @Test func aStoredNameWithControlCharactersIsListedEscaped() async throws {
        let sandbox = try Sandbox()
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let clock: @Sendable () -> Date = { ServerCommandTests.now }
        try await Database.withStore(sandbox.database, logger: logger, now: clock) { store in
            _ = try await store.addToken("old\u{1B}]0;owned\u{07}\r\n", Token.hash(Token.generate()))
        }
        let table = await Self.run(["token", "list", "--database", sandbox.database])
        #expect(table.status == 0)
        #expect(table.stdout.contains(#"old\u{1B}]0;owned\u{07}\r\n"#), "\(table.stdout)")
        #expect(!UserName.hasControlCharacters(table.stdout.replacingOccurrences(of: "\n", with: "")))
    }

    @Test func theListShowsIdScopeAndDatesButNeverTheSecret() async throws {
        let sandbox = try Sandbox()
        let now = ServerCommandTests.now  // 2030-03-17T17:46:40Z
        let read = await Self.run(
            ["token", "create", "ada", "--scope", "read", "--expires-in", "1d", "--database", sandbox.database])
        let calendar = await Self.run(["token", "create", "ada", "--scope", "calendar", "--database", sandbox.database])
        let ids = [try Self.id(of: read), try Self.id(of: calendar)]
        let table = await Self.run(["token", "list", "--database", sandbox.database], now: now)
        #expect(table.status == 0)
        let lines = table.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "ID        USER  SCOPE     CREATED               LAST USED  EXPIRES", "\(table.stdout)")
        #expect(lines.contains("\(ids[0])  ada   read      2030-03-17T17:46:40Z  never      2030-03-18T17:46:40Z"))
        #expect(lines.contains("\(ids[1])  ada   calendar  2030-03-17T17:46:40Z  never      never"))
        let json = await Self.run(["token", "list", "--json", "--database", sandbox.database], now: now)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(Set(rows.compactMap { $0["id"] as? String }) == Set(ids))
        #expect(Set(rows.compactMap { $0["scope"] as? String }) == ["read", "calendar"])
        #expect(rows.allSatisfy { Set($0.keys) == ["id", "user", "scope", "createdAt", "lastUsedAt", "expiresAt"] })
        for output in [table.stdout, json.stdout] {
            for token in [read.stdout.dropLast(), calendar.stdout.dropLast()] {
                #expect(!output.contains(token) && !output.contains(Token.hash(token)))
            }
        }
    }

    @Test func revokeByIdRevokesThatOneAndAnUnknownIdNothing() async throws {
        let sandbox = try Sandbox()
        let first = await Self.run(["token", "create", "ada", "--database", sandbox.database])
        let second = await Self.run(["token", "create", "ada", "--database", sandbox.database])
        let (one, two) = (try Self.id(of: first), try Self.id(of: second))
        let unknown = await Self.run(["token", "revoke", "ada", "--id", "0badc0de", "--database", sandbox.database])
        #expect(unknown.status == ExitStatus.refused)
        #expect(
            unknown.stderr
                == "resv-server: ada has no token of id 0badc0de to revoke ('resv-server token list' shows them)\n")
        let stranger = await Self.run(["token", "revoke", "bob", "--id", one, "--database", sandbox.database])
        #expect(stranger.status == ExitStatus.refused && stranger.stderr.split(separator: "\n").count == 1)
        let revoked = await Self.run(
            ["token", "revoke", "ada", "--id", one.uppercased(), "--database", sandbox.database])
        #expect(revoked.status == 0, "\(revoked.stderr)")
        #expect(revoked.stderr == "resv-server: revoked the token \(one) of ada\n")
        let list = await Self.run(["token", "list", "--json", "--database", sandbox.database])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        #expect(rows.compactMap { $0["id"] as? String } == [two], "the other token stays")
    }
}
