import Foundation
import HTTPTypes
import Logging
import PostgresNIO
import ReservationCore
import ResvTestKit
import SQLiteNIO
import Testing

@testable import ReservationServer
@testable import ReservationStorage

/// `GET /changes` on every engine (docs/contracts.md, "Watching changes"): the
/// caller's own changes after a cursor, in order, the system's included; a
/// long poll woken by a commit; cursors good only for their user and database.
@Suite("The change feed on the server", .timeLimit(.minutes(30)))
struct ChangeRouteTests {
    static func page(_ h: Harness, _ token: String, after: String? = nil, wait: Int = 0) async throws -> Reply {
        var query = ["wait=\(wait)"]
        if let after { query.append("after=\(after)") }
        return try await h.call(.get, "/changes?" + query.joined(separator: "&"), token: token)
    }

    static func changes(_ reply: Reply) -> [(change: String, id: String, cursor: String)] {
        (reply.object["changes"] as? [[String: Any]] ?? []).map {
            ($0["change"] as? String ?? "", $0["reservationId"] as? String ?? "", $0["cursor"] as? String ?? "")
        }
    }

    @Test(arguments: Engine.available)
    func changesComeInOrderFromTheCursorOnlyTheCallersAndEachOnce(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let start = try await Self.page(h, h.alice)
            #expect(start.status == .ok, "\(start.text)")
            #expect(Self.changes(start).isEmpty, "without a cursor: nothing yet, and the cursor of now")
            let now = try #require(start.object["cursor"] as? String)
            let first = try await h.reserve(h.alice)
            let id = try #require(first["id"] as? String)
            try await h.reserve(h.bob)  // another user's: never in Alice's feed
            _ = try await h.call(.post, "/reservations/\(id)/confirm", token: h.alice)
            _ = try await h.call(.delete, "/reservations/\(id)", token: h.alice)
            let page = try await Self.page(h, h.alice, after: now)
            #expect(page.status == .ok, "\(page.text)")
            let seen = Self.changes(page)
            // created → confirmed is no change for a confirmed booking: created, cancelled.
            #expect(seen.map(\.change) == ["created", "cancelled"], "\(page.text)")
            #expect(seen.allSatisfy { $0.id == id })
            #expect(page.object["cursor"] as? String == seen.last?.cursor)
            // From the first change's cursor: the rest, no duplicate; from the last: nothing.
            let rest = try await Self.page(h, h.alice, after: seen[0].cursor)
            #expect(Self.changes(rest).map(\.change) == ["cancelled"])
            let none = try await Self.page(h, h.alice, after: seen[1].cursor)
            #expect(Self.changes(none).isEmpty && none.object["cursor"] as? String == seen[1].cursor)
            // Bob's feed from his own now has his booking only.
            let bob = try await Self.page(
                h, h.bob,
                after: try #require(
                    try await Self.page(h, h.bob).object["cursor"] as? String))
            #expect(Self.changes(bob).isEmpty)
        }
    }

    @Test(arguments: Engine.available)
    func aWaitingPollIsAnsweredByTheCommitNotByItsTimeout(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let now = try #require(try await Self.page(h, h.alice).object["cursor"] as? String)
            // The poll waits up to 60 s; the booking made while it waits answers it.
            async let polled = Self.page(h, h.alice, after: now, wait: 60)
            // Until the poll is waiting (a signal of its own), Bob's changes must not wake it for Alice.
            try await waitUntil("the poll waiting in the feed") { h.store.signal.waiting > 0 }
            try await h.reserve(h.bob)
            #expect(h.store.signal.waiting == 1, "Bob's change does not answer Alice's poll")
            let made = try await h.reserve(h.alice)
            let answer = try await polled
            #expect(answer.status == .ok, "\(answer.text)")
            #expect(Self.changes(answer).map(\.id) == [made["id"] as? String ?? "?"])
        }
    }

    @Test(arguments: Engine.available)
    func aPromotionIsInTheFeedOfTheUserWhoseReservationItIs(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let date = Fixture.futureDate()
            let full = try await h.call(
                .post, "/reservations", token: h.alice, body: HoldRouteTests.body(date, 300))
            let bobNow = try #require(try await Self.page(h, h.bob).object["cursor"] as? String)
            let waiting = try await h.call(
                .post, "/reservations", token: h.bob, body: HoldRouteTests.body(date, 2, waitlist: true))
            #expect(waiting.object["status"] as? String == "waitlisted")
            async let polled = Self.page(
                h, h.bob,
                after: try #require(Self.changes(try await Self.page(h, h.bob, after: bobNow)).last?.cursor), wait: 60)
            try await waitUntil("the poll waiting in the feed") { h.store.signal.waiting > 0 }
            // Alice's cancel promotes Bob's: his feed hears of it.
            _ = try await h.call(.delete, "/reservations/\(full.object["id"] as? String ?? "")", token: h.alice)
            let answer = try await polled
            #expect(Self.changes(answer).map(\.change) == ["promoted"], "\(answer.text)")
        }
    }

    @Test(arguments: Engine.available)
    func cursorsAreGoodOnlyForTheirUserAndDatabase(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let now = try #require(try await Self.page(h, h.alice).object["cursor"] as? String)
            try await h.reserve(h.alice)
            let cursor = try #require(Self.changes(try await Self.page(h, h.alice, after: now)).last?.cursor)
            let bad = [
                "garbage", "", "s1", "s1.", "s-1.0000000000000000", "s01.0000000000000000",
                String(repeating: "s", count: 10_000),
                "f1", "s99999999999999999999.0000000000000000", cursor + "0", cursor.uppercased(),
            ]
            for text in bad {
                let reply = try await Self.page(h, h.alice, after: text)
                #expect(reply.status == .badRequest, "\(text.prefix(40)): \(reply.text.prefix(200))")
                #expect(reply.code == .invalidCursor || text.isEmpty, "\(reply.text.prefix(200))")
            }
            // Alice's cursor is not Bob's.
            let bob = try await Self.page(h, h.bob, after: cursor)
            #expect(bob.status == .badRequest && bob.code == .invalidCursor, "\(bob.text)")
            // Another database signs with another key: the same number is not a cursor there.
            try await withHarness(engine) { other in
                let there = try await Self.page(other, other.alice, after: cursor)
                #expect(there.status == .badRequest, "\(there.text)")
            }
            for wait in ["-1", "61", "nan", "1e300", "x"] {
                let reply = try await h.call(.get, "/changes?wait=\(wait)", token: h.alice)
                #expect(reply.status == .badRequest && reply.code == .invalidRequest, "\(wait): \(reply.text)")
            }
            #expect(try await h.call(.get, "/changes", token: nil).status == .unauthorized)
        }
    }

    /// A database of schema 6 numbered changes by `history.seq`, which several
    /// writers commit out of order. Opened by this server, each user's changes
    /// are numbered 1, 2, 3… in `seq` order, and a cursor of then
    /// (`s<seq>.<signature>`) resumes just after its change: no gap, no repeat.
    @Test(arguments: Engine.available.filter { $0 != .memory })
    func aSchemaSixCursorResumesAfterItsChange(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let routes = ChangeRoutes(store: h.store)
            let alice = try #require(try await h.store.tokens.grant(Token.hash(h.alice))?.user)
            let bob = try #require(try await h.store.tokens.grant(Token.hash(h.bob))?.user)
            let start = try #require(try await Self.page(h, h.alice).object["cursor"] as? String)
            for token in [h.alice, h.bob, h.alice, h.alice, h.bob] { try await h.reserve(token) }
            let fresh = Self.changes(try await Self.page(h, h.alice, after: start))
            #expect(fresh.count == 3)
            // Each user's numbers count up from where the user was, in the order of `seq`.
            let rows = try await Self.historyRows(h, users: [alice, bob])
            for user in [alice, bob] {
                let mine = rows.filter { $0.user == user }
                #expect(mine.map(\.position) == Array(1...Int64(mine.count)), "\(mine)")
                #expect(mine.map(\.seq) == mine.map(\.seq).sorted())
            }
            // Alice's first change of the five, by its `seq`: the cursor of then resumes at her second.
            let firstSeq = try #require(
                rows.filter { $0.user == alice }.dropFirst(rows.filter { $0.user == alice }.count - 3).first?.seq)
            let old = "s\(firstSeq).\(routes.signature(alice, "\(firstSeq)"))"
            let resumed = Self.changes(try await Self.page(h, h.alice, after: old))
            #expect(resumed.map(\.id) == fresh.dropFirst().map(\.id), "\(resumed)")
            #expect(resumed.map(\.cursor) == fresh.dropFirst().map(\.cursor))
            // Signed for another user, or unsigned: refused.
            let bobs = "s\(firstSeq).\(routes.signature(bob, "\(firstSeq)"))"
            #expect(try await Self.page(h, h.alice, after: bobs).code == .invalidCursor)
            // The number alone is not a cursor of the new kind: `p` and `s` are signed apart.
            let confused = "p\(firstSeq).\(routes.signature(alice, "\(firstSeq)"))"
            #expect(try await Self.page(h, h.alice, after: confused).code == .invalidCursor)
        }
    }

    /// A database of schema 6, with changes of two users interleaved, opened by
    /// this server: each user's changes numbered 1, 2, 3… in `seq` order, the
    /// user's last number kept, and a number read back from any `seq`.
    @Test func aSchemaSixDatabaseNumbersEachUsersChangesInSeqOrder() async throws {
        try await TemporaryDirectory.with("six") { folder in
            let directory = folder.url
            let path = directory.appendingPathComponent("db.sqlite").path
            let logger = {
                var logger = Logger(label: "resv-test-six")
                logger.logLevel = .critical
                return logger
            }()
            let now = Date(timeIntervalSince1970: 1_900_000_000)
            let clock: @Sendable () -> Date = { now }
            let users = try await Database.withStore(path, logger: logger, now: clock) { store in
                let users = [
                    try await store.addToken("alice", Token.hash(Token.generate())),
                    try await store.addToken("bob", Token.hash(Token.generate())),
                ]
                for (number, user) in [0, 1, 0, 0, 1, 0].map({ users[$0] }).enumerated() {
                    let request = try NewReservation(
                        landmarkID: try #require(Landmark.ID(Fixture.goldenGate)),
                        date: now.addingTimeInterval(Double(number + 1) * 86_400), partySize: 2, now: now)
                    _ = try await store.transaction(user, catalog: .builtIn) {
                        try await Booking.reserve([request], now: now, in: $0)
                    }
                }
                return users
            }
            // What version 6 had: no numbers, no commit dates.
            let connection = try await SQLiteConnection.open(storage: .file(path: path))
            for statement in [
                "DROP INDEX history_by_position", "ALTER TABLE history DROP COLUMN position",
                "ALTER TABLE users DROP COLUMN last_position", "ALTER TABLE reservations DROP COLUMN series",
                "ALTER TABLE users DROP COLUMN changed_at", "ALTER TABLE users DROP COLUMN role",
                "ALTER TABLE users DROP COLUMN landmarks", "PRAGMA user_version = 6",
            ] {
                _ = try await connection.query(statement)
            }
            let seqs = try await connection.query("SELECT seq, user_id FROM history ORDER BY seq").map {
                (seq: Int64($0.column("seq")?.integer ?? -1), user: Int64($0.column("user_id")?.integer ?? -1))
            }
            try await connection.close()
            try await Database.withStore(path, logger: logger, now: clock) { store in
                for user in users {
                    let changes = try await store.changes(user, 0, 100)
                    let mine = seqs.filter { $0.user == user.rawValue }
                    #expect(changes.map(\.sequence) == Array(1...Int64(mine.count)))
                    #expect(try await store.newestChange(user) == Int64(mine.count))
                    for (index, row) in mine.enumerated() {
                        #expect(try await store.positionAfter(user, row.seq) == Int64(index + 1))
                    }
                    #expect(try await store.positionAfter(user, 0) == 0)
                }
                // And the next change of a user follows the last number.
                let request = try NewReservation(
                    landmarkID: try #require(Landmark.ID(Fixture.goldenGate)),
                    date: now.addingTimeInterval(90 * 86_400),
                    partySize: 1, now: now)
                _ = try await store.transaction(users[1], catalog: .builtIn) {
                    try await Booking.reserve([request], now: now, in: $0)
                }
                #expect(try await store.changes(users[1], 2, 10).map(\.sequence) == [3])
            }
        }
    }

    /// `(seq, user, position)` of every history row of these users, by `seq`.
    static func historyRows(_ h: Harness, users: [UserID]) async throws -> [(seq: Int64, user: UserID, position: Int64)]
    {
        let ids = users.map(\.description).joined(separator: ", ")
        let sql = "SELECT seq, user_id, position FROM history WHERE user_id IN (\(ids)) ORDER BY seq"
        if h.database.hasPrefix("postgres") {
            var logger = Logger(label: "resv-test-rows")
            logger.logLevel = .critical
            let client = PostgresClient(
                configuration: try PostgresStore.configuration(h.database), backgroundLogger: logger)
            return try await withThrowingTaskGroup(of: [(seq: Int64, user: UserID, position: Int64)]?.self) { group in
                group.addTask {
                    await client.run()
                    return nil
                }
                defer { group.cancelAll() }
                let rows = try await client.query(PostgresQuery(unsafeSQL: sql), logger: logger).collect()
                return try rows.map { row in
                    let (seq, user, position) = try row.decode((Int64, Int64, Int64).self)
                    return (seq, UserID(user), position)
                }
            }
        }
        let connection = try await SQLiteConnection.open(storage: .file(path: h.database))
        defer { Task { try? await connection.close() } }
        return try await connection.query(sql).map { row in
            (
                Int64(row.column("seq")?.integer ?? -1), UserID(Int64(row.column("user_id")?.integer ?? -1)),
                Int64(row.column("position")?.integer ?? -1)
            )
        }
    }
}
