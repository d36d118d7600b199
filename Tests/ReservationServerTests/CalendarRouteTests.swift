import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import MemoryEngine
import PostgresNIO
import ReservationCore
import ResvTestKit
import SQLiteNIO
import Synchronization
import Testing

@testable import ReservationServer
@testable import ReservationStorage

/// Calendar subscriptions on every engine (docs/contracts.md, "Calendar
/// subscriptions"): the address, its reset, the feed's bytes, and its
/// validators, on a clock the test moves.
@Suite("Calendar subscriptions", .timeLimit(.minutes(30)))
struct CalendarRouteTests {
    /// A whole second, so stored times and HTTP dates agree.
    static func clock() -> TestClock {
        TestClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
    }

    @Test(arguments: Engine.available)
    func theAddressIsMadeOnceAndAResetReplacesIt(engine: Engine) async throws {
        try await withHarness(engine) { h in
            #expect(try await h.call(.post, "/calendar", token: nil).status == .unauthorized)
            let first = try await h.calendarPath(h.alice)
            #expect(first.wholeMatch(of: /\/calendar\/[A-Za-z0-9_-]{43}\.ics/) != nil, "\(first)")
            #expect(try await h.calendarPath(h.alice) == first, "the same address again")
            #expect(try await h.calendarPath(h.bob) != first, "each user has their own")
            #expect(try await h.call(.get, first, token: nil).status == .ok, "no token needed")
            let reset = try await h.call(.post, "/calendar/reset", token: h.alice)
            #expect(reset.status == .ok)
            let second = try #require(reset.object["path"] as? String)
            #expect(second != first && second.hasPrefix("/calendar/") && second.hasSuffix(".ics"))
            let old = try await h.call(.get, first, token: nil)
            #expect(old.status == .notFound && old.code == .calendarNotFound && old.reason != nil, "\(old.text)")
            #expect(!old.text.contains(first.dropFirst(10).dropLast(4)), "the answer does not repeat the secret")
            #expect(try await h.call(.get, second, token: nil).status == .ok)
            #expect(try await h.calendarPath(h.alice) == second, "the new address from now on")
            #expect(try await h.call(.post, "/calendar/reset", token: nil).status == .unauthorized)
        }
    }

    @Test(arguments: Engine.available)
    func theFeedHoldsEveryReservationOfItsUserAndNoOther(engine: Engine) async throws {
        let clock = Self.clock()
        try await withHarness(engine, now: clock.now) { h in
            let day = Self.days()
            let later = try await h.book(h.alice, date: day(1), note: "gate 3; bring ID")
            let early = try await h.book(h.alice, date: day(0))
            let cancelled = try await h.book(h.alice, date: day(2))
            let theirs = try await h.book(h.bob, date: day(0))
            clock.advance(by: 30)
            let id = try #require(cancelled["id"] as? String)
            #expect(try await h.call(.delete, "/reservations/\(id)", token: h.alice).status == .ok)
            clock.advance(by: 30)
            let reply = try await h.call(.get, try await h.calendarPath(h.alice), token: nil)
            #expect(reply.status == .ok)
            #expect(reply.headers[.contentType] == "text/calendar; charset=utf-8")
            #expect(reply.headers[.cacheControl] == "private, max-age=0, must-revalidate")
            #expect(reply.headers[.contentLength] == String(reply.text.utf8.count))
            let lines = Self.unfolded(reply.text)
            #expect(lines.first == "BEGIN:VCALENDAR" && lines.last == "END:VCALENDAR")
            #expect(
                lines.contains("PRODID:-//resv//\(CalendarRoutes.product)//EN")
                    && CalendarRoutes.product.hasPrefix("resv-server "))
            #expect(lines.contains { $0.hasPrefix("NAME:resv — alice-") })
            #expect(lines.contains { $0.hasPrefix("X-WR-CALNAME:resv — alice-") })
            #expect(lines.contains("REFRESH-INTERVAL;VALUE=DURATION:PT30M") && lines.contains("X-PUBLISHED-TTL:PT30M"))
            let uids = lines.filter { $0.hasPrefix("UID:") }
            #expect(
                uids == [early, later, cancelled].map { "UID:\($0["id"] as? String ?? "")@resv" },
                "one event each, by date")
            #expect(!reply.text.contains(theirs["id"] as? String ?? "-"), "another user's never")
            let event = Self.event(lines, id)
            #expect(event.contains("STATUS:CANCELLED") && event.contains("SEQUENCE:1"))
            #expect(event.contains("DTSTAMP:\(Self.utc(clock.now().addingTimeInterval(-30)))"))
            #expect(event.contains("LAST-MODIFIED:\(Self.utc(clock.now().addingTimeInterval(-30)))"))
            let noted = Self.event(lines, later["id"] as? String ?? "")
            #expect(noted.contains("SEQUENCE:0") && noted.contains("STATUS:CONFIRMED"))
            #expect(noted.contains { $0.hasPrefix("DESCRIPTION:") && $0.hasSuffix("\\nNote: gate 3\\; bring ID") })
            #expect(reply.headers[.lastModified] == HTTPDate.format(clock.now().addingTimeInterval(-30)))
        }
    }

    @Test(arguments: Engine.available)
    func aCopyIsRevalidatedByTagOrByDate(engine: Engine) async throws {
        let clock = Self.clock()
        try await withHarness(engine, now: clock.now) { h in
            let made = clock.now()
            let reservation = try await h.reserve(h.alice)
            let path = try await h.calendarPath(h.alice)
            clock.advance(by: 10)
            let first = try await h.call(.get, path, token: nil)
            let tag = try #require(first.headers[.eTag])
            let date = try #require(first.headers[.lastModified])
            #expect(tag.wholeMatch(of: /"[0-9a-f]{32}"/) != nil, "\(tag)")
            #expect(date == HTTPDate.format(made))
            let again = try await h.call(.get, path, token: nil)
            #expect(again.headers[.eTag] == tag && again.headers[.lastModified] == date && again.text == first.text)

            for current in [tag, "W/\(tag)", "*", "\"0f\", \(tag)"] {
                let reply = try await h.get(path, [.ifNoneMatch: current])
                #expect(reply.status == .notModified && reply.text.isEmpty, "\(current)")
                #expect(reply.headers[.eTag] == tag && reply.headers[.lastModified] == date)
            }
            #expect(try await h.get(path, [.ifNoneMatch: "\"0f\""]).status == .ok, "a stale tag")
            #expect(try await h.get(path, [.ifModifiedSince: date]).status == .notModified)
            let before = HTTPDate.format(made.addingTimeInterval(-1))
            #expect(try await h.get(path, [.ifModifiedSince: before]).status == .ok)
            #expect(try await h.get(path, [.ifModifiedSince: "yesterday"]).status == .ok)
            #expect(
                try await h.get(path, [.ifNoneMatch: "\"0f\"", .ifModifiedSince: date]).status == .ok,
                "If-Modified-Since counts only without If-None-Match")

            // A change: a new tag, and a later date (revalidating by date alone finds it).
            clock.advance(by: 5)
            let id = try #require(reservation["id"] as? String)
            #expect(try await h.patch(id, party: 3, version: 1).status == .ok)
            let sameSecond = try await h.get(path, [.ifModifiedSince: date])
            #expect(sameSecond.status == .ok && sameSecond.headers[.eTag] != tag)
            #expect(
                sameSecond.headers[.lastModified] == HTTPDate.format(clock.now().addingTimeInterval(-1)),
                "a copy made in the second of a change is dated a second before it")
            let early = try #require(sameSecond.headers[.lastModified])
            #expect(try await h.get(path, [.ifModifiedSince: early]).status == .ok, "and so is fetched whole again")
            clock.advance(by: 1)
            let changed = try await h.get(path, [.ifModifiedSince: date])
            #expect(changed.status == .ok && changed.headers[.eTag] == sameSecond.headers[.eTag])
            #expect(changed.headers[.lastModified] == HTTPDate.format(clock.now().addingTimeInterval(-1)))
            #expect(changed.text.contains("SEQUENCE:1"))
            let newDate = try #require(changed.headers[.lastModified])
            #expect(try await h.get(path, [.ifModifiedSince: newDate]).status == .notModified)
            #expect(try await h.get(path, [.ifNoneMatch: tag]).status == .ok)
        }
    }

    /// A change whose request came before another's but committed after it (it waited for a lock)
    /// is stamped with the older time; the feed's date still moves past a copy served between the
    /// two commits, so a calendar that revalidates by date gets the new bytes (docs/contracts.md,
    /// "Calendar subscriptions": `Last-Modified`). The late change is run as its route runs it: the
    /// rule, in the store's transaction, handed the time its request came.
    @Test(arguments: Engine.available)
    func aChangeCommittedLaterWithAnOlderStampMovesTheDate(engine: Engine) async throws {
        let clock = Self.clock()
        try await withHarness(engine, now: clock.now) { h in
            let early = try #require(try await h.reserve(h.alice)["id"] as? String)
            let late = try #require(try await h.reserve(h.alice)["id"] as? String)
            let path = try await h.calendarPath(h.alice)
            let owner = try #require(try await h.store.calendars.owner(String(path.dropFirst(10).dropLast(4))))
            clock.advance(by: 5)
            let came = clock.now()
            clock.advance(by: 5)
            #expect(try await h.patch(early, party: 3, version: 1).status == .ok)
            clock.advance(by: 10)
            let copy = try await h.call(.get, path, token: nil)
            let date = try #require(copy.headers[.lastModified])
            #expect(date == HTTPDate.format(came.addingTimeInterval(5)), "the change that committed first")
            #expect(try await h.get(path, [.ifModifiedSince: date]).status == .notModified)

            let change = try ReservationChange(partySize: 4)
            let id = try #require(Reservation.ID(late))
            _ = try await h.store.transaction(owner.user, catalog: .builtIn) {
                try await Booking.modify(id, change, expectedVersion: 1, now: came, in: $0)
            }
            let revalidated = try await h.get(path, [.ifModifiedSince: date])
            #expect(revalidated.status == .ok, "the bytes changed: never a 304 for the copy's date")
            #expect(revalidated.headers[.eTag] != copy.headers[.eTag])
            #expect(
                Self.event(Self.unfolded(revalidated.text), late).contains("LAST-MODIFIED:\(Self.utc(came))"),
                "the late change, stamped when its request came")
            let moved = try #require(revalidated.headers[.lastModified])
            #expect(try #require(HTTPDate.parse(moved)) > HTTPDate.parse(date) ?? .distantFuture, "\(moved)")
            clock.advance(by: 1)
            let settled = try await h.get(path, [.ifModifiedSince: moved])
            #expect(settled.status == .ok, "a copy dated in its commit's second is fetched again")
            let current = try #require(settled.headers[.lastModified])
            #expect(try await h.get(path, [.ifModifiedSince: current]).status == .notModified)
        }
    }

    /// The same race on PostgreSQL as it happens: a PATCH waits for its reservation's row (the
    /// test holds it), another change of the user commits meanwhile and a copy is served; then
    /// the PATCH commits, stamped when it came, before the change that committed first. A
    /// calendar revalidating by the copy's date gets the new bytes.
    @Test(.enabled(if: Engine.postgresURL != nil, "needs RESV_TEST_POSTGRES_URL (scripts/with-postgres)"))
    func aChangeThatWaitedForALockMovesTheDateOnPostgres() async throws {
        let url = try #require(Engine.postgresURL)
        let clock = Self.clock()
        try await withHarness(.postgres, now: clock.now) { h in
            let waiting = try #require(try await h.reserve(h.alice)["id"] as? String)
            let other = try #require(try await h.reserve(h.alice)["id"] as? String)
            let path = try await h.calendarPath(h.alice)
            let client = PostgresClient(
                configuration: try PostgresStore.configuration(url), backgroundLogger: OnSaleTests.quiet)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await client.run() }
                defer { group.cancelAll() }
                clock.advance(by: 5)
                let came = clock.now()
                let (patching, copy) = try await client.withTransaction(logger: OnSaleTests.quiet) { db in
                    let holder = try #require(
                        try await db.query("SELECT pg_backend_pid()", logger: OnSaleTests.quiet).collect().first?
                            .decode(Int32.self))
                    _ = try await db.query(
                        "SELECT id FROM reservations WHERE id = \(waiting) FOR UPDATE", logger: OnSaleTests.quiet
                    ).collect()
                    let patching = Task { try await h.patch(waiting, party: 3, version: 1) }
                    // Until the PATCH waits for the row: its time (`came`) is taken by then.
                    while try await client.query(
                        "SELECT COUNT(*)::BIGINT FROM pg_stat_activity WHERE \(holder) = ANY(pg_blocking_pids(pid))",
                        logger: OnSaleTests.quiet
                    ).collect().first?.decode(Int64.self) == 0 {
                        try await Task.sleep(for: .milliseconds(1))
                    }
                    clock.advance(by: 5)
                    #expect(try await h.patch(other, party: 4, version: 1).status == .ok)
                    clock.advance(by: 5)
                    return (patching, try await h.call(.get, path, token: nil))
                }
                let date = try #require(copy.headers[.lastModified])
                #expect(date == HTTPDate.format(came.addingTimeInterval(5)), "the change that committed first")
                #expect(try await patching.value.status == .ok)
                let revalidated = try await h.get(path, [.ifModifiedSince: date])
                #expect(revalidated.status == .ok, "the bytes changed: never a 304 for the copy's date")
                #expect(
                    Self.event(Self.unfolded(revalidated.text), waiting).contains("LAST-MODIFIED:\(Self.utc(came))"),
                    "the late change, stamped when its request came")
                let moved = try #require(revalidated.headers[.lastModified])
                #expect(try #require(HTTPDate.parse(moved)) > HTTPDate.parse(date) ?? .distantFuture, "\(moved)")
            }
        }
    }

    /// Schema 12 on a database of schema 11, which kept no commit dates: each user's date is the
    /// newest change their reservations show (what the feed was dated by before, so a copy a
    /// calendar holds stays current), and the next commit moves it on.
    @Test func aSchemaElevenDatabaseKeepsItsFeedsDate() async throws {
        try await TemporaryDirectory.with("calendar") { folder in
            let directory = folder.url
            let path = directory.appendingPathComponent("db.sqlite").path
            let clock = Self.clock()
            let made = clock.now()
            @Sendable func book(_ user: UserID, in store: ServerStore) async throws {
                let request = try NewReservation(
                    landmark: Fixture.goldenGate, date: OnSaleTests.visit, partySize: 2, now: clock.now())
                _ = try await store.transaction(user, catalog: .builtIn) {
                    try await Booking.reserve(request, now: clock.now(), in: $0)
                }
            }
            let secret = try await Database.withStore(path, logger: OnSaleTests.quiet, now: clock.now) { store in
                let user = try await store.addToken("ada", Token.hash(Token.generate()))
                try await book(user, in: store)
                clock.advance(by: 30)
                try await book(user, in: store)
                return try #require(try await store.calendarSecret(user, make: true))
            }
            let connection = try await SQLiteConnection.open(storage: .file(path: path), logger: OnSaleTests.quiet)
            for statement in [
                "ALTER TABLE users DROP COLUMN role", "ALTER TABLE users DROP COLUMN landmarks",
                "ALTER TABLE users DROP COLUMN changed_at", "PRAGMA user_version = 11",
            ] {
                _ = try await connection.query(statement)
            }
            try await connection.close()
            clock.advance(by: 30)
            try await Database.withStore(path, logger: OnSaleTests.quiet, now: clock.now) { store in
                let owner = try #require(try await store.calendars.owner(secret))
                #expect(owner.changedAt == made.addingTimeInterval(30), "the newest change shown")
                try await book(owner.user, in: store)
                #expect(try await store.calendars.owner(secret)?.changedAt == clock.now())
            }
        }
    }

    @Test(arguments: Engine.available)
    func aHoldThatEndsMovesTheDate(engine: Engine) async throws {
        let clock = Self.clock()
        try await withHarness(engine, now: clock.now) { h in
            let made = clock.now()
            let body =
                #"{"landmarkId":"\#(Fixture.halfDome)","date":"\#(Fixture.futureDate())","partySize":2,"hold":60}"#
            #expect(try await h.call(.post, "/reservations", token: h.alice, body: body).status == .created)
            let path = try await h.calendarPath(h.alice)
            clock.advance(by: 10)
            let held = try await h.call(.get, path, token: nil)
            #expect(held.text.contains("STATUS:TENTATIVE") && held.headers[.lastModified] == HTTPDate.format(made))
            clock.advance(by: 60)
            let ended = try await h.get(path, [.ifModifiedSince: HTTPDate.format(made)])
            #expect(ended.status == .ok && ended.text.contains("STATUS:CANCELLED"), "read as expired before the sweep")
            #expect(ended.headers[.lastModified] == HTTPDate.format(made.addingTimeInterval(60)), "the hold's end")
        }
    }

    @Test(arguments: Engine.available)
    func withoutReservationsTheDateIsTheAddresss(engine: Engine) async throws {
        let clock = Self.clock()
        try await withHarness(engine, now: clock.now) { h in
            let made = clock.now()
            let path = try await h.calendarPath(h.alice)
            clock.advance(by: 100)
            let reply = try await h.call(.get, path, token: nil)
            #expect(reply.status == .ok && !reply.text.contains("BEGIN:VEVENT"))
            #expect(reply.headers[.lastModified] == HTTPDate.format(made))
        }
    }

    @Test(arguments: Engine.available)
    func headAnswersTheHeadersAlone(engine: Engine) async throws {
        let clock = Self.clock()
        try await withHarness(engine, now: clock.now) { h in
            try await h.reserve(h.alice)
            let path = try await h.calendarPath(h.alice)
            clock.advance(by: 5)
            let get = try await h.call(.get, path, token: nil)
            let head = try await h.call(.head, path, token: nil)
            #expect(head.status == .ok && head.text.isEmpty)
            for field in [HTTPField.Name.eTag, .lastModified, .contentType, .cacheControl] {
                #expect(head.headers[field] != nil && head.headers[field] == get.headers[field], "\(field)")
            }
            #expect(head.headers[.contentLength] == String(get.text.utf8.count))
            let current = try await h.call(.head, path, token: nil, headers: [.ifNoneMatch: get.headers[.eTag] ?? ""])
            #expect(current.status == .notModified && current.text.isEmpty)
            let unknown = try await h.call(.head, "/calendar/\(CalendarSecret.newSecret()).ics", token: nil)
            #expect(unknown.status == .notFound && unknown.text.isEmpty)
        }
    }

    @Test(arguments: Engine.available)
    func anAddressThatIsNoneIsNotFound(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let secret = try await h.calendarPath(h.alice).dropFirst(10).dropLast(4)
            let paths = [
                "/calendar/\(CalendarSecret.newSecret()).ics", "/calendar/\(secret)A.ics",
                "/calendar/\(secret.dropLast()).ics",
                "/calendar/.ics", "/calendar/...ics", "/calendar/..%2F\(secret.dropFirst(3)).ics",
                "/calendar/\(secret)",
                "/calendar/\(secret.uppercased()).ics",
            ]
            for path in paths {
                let reply = try await h.call(.get, path, token: nil)
                #expect(reply.status == .notFound && reply.reason != nil, "\(path): \(reply.status) \(reply.text)")
                #expect(!reply.text.contains(secret), "\(path): the answer does not repeat the secret")
            }
        }
    }

    @Test func theFeedIsRateLimitedPerAddress() async throws {
        var options = ServerOptions()
        options.rateLimit = RateLimit(perSecond: 2)
        try await withHarness(.memory, options: options) { h in
            let path = try await h.calendarPath(h.alice)
            let other = try await h.calendarPath(h.bob)
            #expect(try await h.call(.get, path, token: nil).status == .ok)
            // Requests in a row use up the bucket (however slowly a loaded machine answers them).
            var limited: Reply?
            for _ in 0..<50 where limited == nil {
                let reply = try await h.call(.get, path, token: nil)
                if reply.status == .tooManyRequests { limited = reply }
            }
            let refused = try #require(limited)
            #expect(refused.code == .rateLimited && refused.headers[.retryAfter] != nil, "\(refused.text)")
            #expect(refused.reason?.contains("for this calendar") == true)
            #expect(try await h.call(.get, other, token: nil).status == .ok, "another address has its own bucket")
        }
    }

    /// The access log and the error log show `/calendar/…`, never a secret.
    @Test func theLogsNeverHoldTheSecret() async throws {
        let lines = CapturedLines()
        var logger = Logger(label: "resv-server-test") { _ in CapturedLog(lines: lines) }
        logger.logLevel = .info
        let store = MemoryStore.open(now: { Date() })
        let token = Token.generate()
        _ = try await store.addToken("carol", Token.hash(token))
        let app = Application(router: buildRouter(store: store, now: { Date() }), logger: logger)
        let secrets = try await app.test(.router) { client in
            var secrets: [String] = []
            for route in ["/calendar", "/calendar/reset"] {
                let reply = try await client.executeRequest(
                    uri: route, method: .post, headers: [.authorization: "Bearer \(token)"], body: nil)
                let body = String(buffer: reply.body)
                secrets.append(String(body.split(separator: "/").last?.prefix(43) ?? ""))
            }
            for path in ["/calendar/\(secrets[0]).ics", "/calendar/\(secrets[1]).ics", "/calendar/\(secrets[1])"] {
                _ = try await client.executeRequest(uri: path, method: .get, headers: [:], body: nil)
                _ = try await client.executeRequest(uri: path, method: .head, headers: [:], body: nil)
            }
            return secrets
        }
        let logged = lines.all
        #expect(logged.contains { $0.contains("GET /calendar/… 404") }, "\(logged)")
        #expect(logged.contains { $0.contains("GET /calendar/… 200") })
        #expect(logged.contains { $0.contains("POST /calendar/reset 200") })
        for secret in secrets {
            #expect(secret.count == 43)
            #expect(!logged.contains { $0.contains(secret) }, "\(logged)")
        }
        #expect(LoggedPath.of("/Calendar%2F\(secrets[0]).ics") == "/calendar/…")
        #expect(LoggedPath.of("/reservations") == "/reservations")
    }

    @Test func httpDatesAreWrittenAndReadAsRFC9110Says() {
        let date = Date(timeIntervalSince1970: 784_111_777)
        #expect(HTTPDate.format(date) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == date)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == date)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == date)
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 951_782_400)) == "Tue, 29 Feb 2000 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        for text in ["", "Sun, 06 Nov 1994 08:49:37", "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT"]
        {
            #expect(HTTPDate.parse(text) == nil, "\(text)")
        }
        for seconds in stride(from: -86_400 * 400, to: 86_400 * 40_000, by: 86_400 * 37 + 3_661) {
            let date = Date(timeIntervalSince1970: Double(seconds))
            #expect(HTTPDate.parse(HTTPDate.format(date)) == date)
        }
    }

    /// Three days of their own, at 10:00 UTC (tests on PostgreSQL share one database).
    static func days() -> @Sendable (Int) -> String {
        let first = Int.random(in: 0..<300_000)
        return { DateTime.format(Date(timeIntervalSince1970: 4_102_444_800 + Double(first + $0) * 86_400 + 36_000)) }
    }

    /// RFC 5545's UTC date-time: `20261201T100000Z`.
    static func utc(_ date: Date) -> String { DateTime.format(date).filter { $0 != "-" && $0 != ":" } }

    /// The lines of a calendar, folded lines joined again.
    static func unfolded(_ text: String) -> [String] {
        text.replacingOccurrences(of: "\r\n ", with: "").components(separatedBy: "\r\n").filter { !$0.isEmpty }
    }

    /// The lines of the event of reservation `id`.
    static func event(_ lines: [String], _ id: String) -> [String] {
        guard let uid = lines.firstIndex(of: "UID:\(id)@resv") else { return [] }
        return Array(lines[uid...].prefix { $0 != "END:VEVENT" })
    }
}

extension Harness {
    /// The user's calendar address (`POST /calendar`).
    func calendarPath(_ token: String) async throws -> String {
        let reply = try await call(.post, "/calendar", token: token)
        #expect(reply.status == .ok, "\(reply.text)")
        #expect(reply.object.count == 1)
        return try #require(reply.object["path"] as? String)
    }

    /// A feed fetched without a token, with these request headers.
    func get(_ path: String, _ headers: HTTPFields) async throws -> Reply {
        try await call(.get, path, token: nil, headers: headers)
    }

    /// A confirmed reservation at Golden Gate on `date`, with a note when given.
    func book(_ token: String, date: String, note: String? = nil) async throws -> [String: Any] {
        var fields: [String: JSONValue] = [
            "landmarkId": .string(Fixture.goldenGate), "date": .string(date), "partySize": .integer(2),
        ]
        if let note { fields["note"] = .string(note) }
        let reply = try await call(
            .post, "/reservations", token: token,
            body: String(decoding: JSONValue.object(fields).encoded(), as: UTF8.self))
        #expect(reply.status == .created, "\(reply.text)")
        return reply.object
    }
}

/// What a test logger was told, one line each.
final class CapturedLines: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    func append(_ line: String) { lines.withLock { $0.append(line) } }
}

/// A log handler that keeps each message with its metadata.
struct CapturedLog: LogHandler {
    let lines: CapturedLines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        lines.append("\(event.level) \(event.message) \(all)")
    }
}
