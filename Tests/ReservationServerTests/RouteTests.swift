import Foundation
import HTTPTypes
import Hummingbird
import ReservationCore
import ResvTestKit
import Testing

@testable import ReservationServer
@testable import ReservationStorage

@Suite("Routes", .timeLimit(.minutes(30)))
struct RouteTests {
    @Test(arguments: Engine.available)
    func healthNeedsNoToken(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let reply = try await h.call(.get, "/health", token: nil)
            #expect(reply.status == .ok)
            #expect(reply.object["status"] as? String == "ok")
        }
    }

    @Test(arguments: Engine.available)
    func everyOtherRouteNeedsAKnownBearerToken(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let id = UUID().uuidString.lowercased()
            let routes: [(HTTPRequest.Method, String)] = [
                (.get, "/landmarks"), (.get, "/reservations"), (.get, "/reservations/\(id)"),
                (.post, "/reservations"), (.delete, "/reservations/\(id)"), (.post, "/reservations/\(id)/confirm"),
            ]
            let wrong: [HTTPFields] = [
                [:], [.authorization: "Bearer"], [.authorization: "Bearer "], [.authorization: "Bearer nope"],
                [.authorization: "Basic \(h.alice)"], [.authorization: h.alice],
                [.authorization: "Bearer \(h.alice)x"],
            ]
            for (method, uri) in routes {
                for headers in wrong {
                    let reply = try await h.call(method, uri, token: nil, body: "{}", headers: headers)
                    #expect(reply.status == .unauthorized, "\(method) \(uri) \(headers)")
                    #expect(reply.reason?.contains("bearer token") == true, "\(reply.text)")
                    #expect(!reply.text.contains(h.alice))
                }
            }
            // The scheme is case-insensitive, as RFC 9110 says.
            let lower = try await h.call(
                .get, "/reservations", token: nil, headers: [.authorization: "bearer \(h.alice)"])
            #expect(lower.status == .ok)
            #expect(lower.text == "[]")
        }
    }

    @Test(arguments: Engine.available)
    func landmarksAreTheBuiltInCatalog(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let reply = try await h.call(.get, "/landmarks", token: h.alice)
            #expect(reply.status == .ok)
            #expect(reply.headers[.contentType]?.hasPrefix("application/json") == true)
            let ids = reply.array.compactMap { $0["id"] as? String }
            #expect(ids == LandmarkCatalog.builtIn.landmarks.map(\.id.description))
            let halfDome = try #require(reply.array.first { $0["id"] as? String == Fixture.halfDome })
            #expect(halfDome["capacity"] as? Int == 300)
            #expect(halfDome["name"] as? String == "Half Dome")
        }
    }

    /// A landmark's slots and hours ride along in `GET /landmarks` as the catalog gave them
    /// (the catalog is the server's, not the engine's: one engine shows it).
    @Test func landmarksAnswerTheirHoursAndSlots() async throws {
        let slots: JSONValue = .object([
            "every": .string("PT30M"), "first": .string("09:00"), "last": .string("11:00"), "capacity": .integer(8),
        ])
        let hours: JSONValue = .object(["sat": .object(["open": .string("10:00"), "close": .string("16:00")])])
        let catalog = LandmarkCatalog(records: [
            .object([
                "id": .string(Fixture.first), "name": .string("Tower"), "location": .string("Paris"),
                "category": .string("bridges"), "timeZone": .string("Europe/Paris"), "slots": slots,
            ]),
            .object([
                "id": .string(Fixture.second), "name": .string("Museum"), "location": .string("Paris"),
                "category": .string("lakes"), "hours": hours,
            ]),
        ])
        #expect(catalog.rejected.isEmpty)
        try await withHarness(.memory, catalog: catalog) { h in
            let reply = try await h.call(.get, "/landmarks", token: h.alice)
            #expect(reply.status == .ok)
            guard case .array(let answered) = try JSONValue.parse(Data(reply.text.utf8)), answered.count == 2 else {
                Issue.record("not two landmarks: \(reply.text)")
                return
            }
            #expect(answered[0]["slots"] == slots)
            #expect(answered[0]["hours"] == nil)
            #expect(answered[1]["hours"] == hours)
            #expect(LandmarkCatalog(records: answered).landmarks == catalog.landmarks)
        }
    }

    @Test(arguments: Engine.available)
    func createThenListAndGet(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let body = Fixture.body(Fixture.goldenGate, "2031-06-01T10:30:00+02:00", 4)
            let created = try await h.call(.post, "/reservations", token: h.alice, body: body)
            #expect(created.status == .created)
            let id = try #require(created.object["id"] as? String)
            #expect(Reservation.ID(id) != nil)
            #expect(created.headers[.location] == "/reservations/\(id)")
            #expect(created.object["landmarkId"] as? String == Fixture.goldenGate)
            #expect(created.object["date"] as? String == "2031-06-01T08:30:00Z")
            #expect(created.object["partySize"] as? Int == 4)
            #expect(created.object["status"] as? String == "confirmed")
            #expect(created.object["version"] as? Int == 1)
            #expect(created.object["createdAt"] as? String == created.object["updatedAt"] as? String)
            #expect(created.object.count == 8)

            let list = try await h.call(.get, "/reservations", token: h.alice)
            #expect(list.status == .ok)
            #expect(list.array.count == 1)
            #expect(list.array.first?["id"] as? String == id)

            let one = try await h.call(.get, "/reservations/\(id)", token: h.alice)
            #expect(one.status == .ok)
            #expect(one.text == created.text)
            // Ids are read in either case.
            let upper = try await h.call(.get, "/reservations/\(id.uppercased())", token: h.alice)
            #expect(upper.text == created.text)

            // What the server sends maps through the client's one mapping.
            let model = try ReservationApiModel(json: JSONValue.parse(Data(one.text.utf8)))
            let reservation = try Reservation(model, catalog: .builtIn)
            #expect(reservation.partySize == 4)
            #expect(reservation.landmark.name == "Golden Gate Bridge")

            let pending = try await h.reserve(h.alice, status: "pending")
            #expect(pending["status"] as? String == "pending")
        }
    }

    @Test(arguments: Engine.available)
    func listIsSortedByDate(engine: Engine) async throws {
        try await withHarness(engine) { h in
            for date in ["2040-03-01T09:00:00Z", "2040-01-01T09:00:00Z", "2040-02-01T09:00:00Z"] {
                try await h.reserve(h.alice, date: date)
            }
            let dates = try await h.call(.get, "/reservations", token: h.alice).array.compactMap {
                $0["date"] as? String
            }
            #expect(dates == ["2040-01-01T09:00:00Z", "2040-02-01T09:00:00Z", "2040-03-01T09:00:00Z"])
        }
    }

    /// Each refused body: its status and a word of the reason naming the field.
    static let refusals: [(body: String, status: HTTPResponse.Status, reason: String)] = [
        ("", .badRequest, "not valid JSON"),
        ("{", .badRequest, "not valid JSON"),
        ("{\"landmarkId\": 1,}", .badRequest, "not valid JSON"),
        ("[]", .badRequest, "JSON object"),
        ("\"text\"", .badRequest, "JSON object"),
        (#"{"date":"2031-06-01T10:00:00Z","partySize":2}"#, .badRequest, "landmarkId is missing"),
        (#"{"landmarkId":7,"date":"2031-06-01T10:00:00Z","partySize":2}"#, .badRequest, "landmarkId must be a string"),
        (Fixture.body("golden gate", "2031-06-01T10:00:00Z", 2), .badRequest, "landmarkId 'golden gate' is not a UUID"),
        (#"{"landmarkId":"\#(Fixture.goldenGate)","partySize":2}"#, .badRequest, "date is missing"),
        (Fixture.body(Fixture.goldenGate, "2031-06-01", 2), .badRequest, "2031-06-01"),
        (Fixture.body(Fixture.goldenGate, "2031-06-01T10:00:00", 2), .badRequest, "2031-06-01T10:00:00"),
        (Fixture.body(Fixture.goldenGate, "2031-02-30T10:00:00Z", 2), .badRequest, "2031-02-30"),
        (Fixture.body(Fixture.goldenGate, "2031-06-01T25:00:00Z", 2), .badRequest, "25:00"),
        (Fixture.body(Fixture.goldenGate, "2001-06-01T10:00:00Z", 2), .badRequest, "in the past"),
        (
            Fixture.body(Fixture.goldenGate, "9999-12-31T23:59:59-14:00", 2), .badRequest,
            "outside the years 0000 to 9999"
        ),
        (
            #"{"landmarkId":"\#(Fixture.goldenGate)","date":"2031-06-01T10:00:00Z"}"#, .badRequest,
            "partySize is missing"
        ),
        (Fixture.body(Fixture.goldenGate, "2031-06-01T10:00:00Z", 0), .badRequest, "party size 0"),
        (Fixture.body(Fixture.goldenGate, "2031-06-01T10:00:00Z", -3), .badRequest, "party size -3"),
        (Fixture.body(Fixture.goldenGate, "2031-06-01T10:00:00Z", 10_001), .badRequest, "from 1 to 10,000"),
        (
            Fixture.body(Fixture.goldenGate, "2031-06-01T10:00:00Z", Int.max), .badRequest,
            "party size 9223372036854775807"
        ),
        (
            #"{"landmarkId":"\#(Fixture.goldenGate)","date":"2031-06-01T10:00:00Z","partySize":"2"}"#, .badRequest,
            "partySize"
        ),
        (
            #"{"landmarkId":"\#(Fixture.goldenGate)","date":"2031-06-01T10:00:00Z","partySize":1.5}"#, .badRequest,
            "partySize"
        ),
        (Fixture.body(Fixture.goldenGate, "2031-06-01T10:00:00Z", 2, "cancelled"), .badRequest, "cancelled"),
        (Fixture.body(Fixture.goldenGate, "2031-06-01T10:00:00Z", 2, "maybe"), .badRequest, "maybe"),
        (
            Fixture.body("00000000-0000-4000-8000-000000000000", "2031-06-01T10:00:00Z", 2), .notFound,
            "not a known landmark"
        ),
    ]

    /// A note is kept from the start; one holding a NUL (which PostgreSQL's text cannot
    /// hold) is refused alike on every engine, a new one and a change, never a 500.
    @Test(arguments: Engine.available)
    func aNoteIsKeptAndANULIsRefusedOnEveryEngine(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let date = Fixture.futureDate()
            let made = try await h.call(
                .post, "/reservations", token: h.alice,
                body: #"{"landmarkId": "\#(Fixture.goldenGate)", "date": "\#(date)", "partySize": 2, "note": "ramp"}"#)
            #expect(made.status == .created, "\(made.text)")
            #expect(made.object["note"] as? String == "ramp")
            let nul = try await h.call(
                .post, "/reservations", token: h.alice,
                body:
                    #"{"landmarkId": "\#(Fixture.goldenGate)", "date": "\#(date)", "partySize": 2, "note": "a\u0000b"}"#
            )
            #expect(nul.status == .badRequest, "\(nul.text)")
            #expect(nul.code == .invalidNote)
            let id = try #require(made.object["id"] as? String)
            let change = try await h.call(.patch, "/reservations/\(id)", token: h.alice, body: #"{"note": "x\u0000"}"#)
            #expect(change.status == .badRequest, "\(change.text)")
            #expect(change.code == .invalidNote)
        }
    }

    @Test(arguments: Engine.available)
    func refusedBodiesName(engine: Engine) async throws {
        let now: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_900_000_000) }  // 2030-03-17
        try await withHarness(engine, now: now) { h in
            for refusal in Self.refusals {
                let reply = try await h.call(.post, "/reservations", token: h.alice, body: refusal.body)
                #expect(reply.status == refusal.status, "\(refusal.body): \(reply.text)")
                #expect(reply.reason?.contains(refusal.reason) == true, "\(refusal.body): \(reply.text)")
            }
            #expect(try await h.call(.get, "/reservations", token: h.alice).text == "[]")
        }
    }

    @Test(arguments: Engine.available)
    func bodiesOverTheLimitAre413(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let padding = String(repeating: " ", count: ReservationRoutes.bodyLimit)
            let body = Fixture.body(Fixture.goldenGate, Fixture.futureDate(), 2) + padding
            let reply = try await h.call(.post, "/reservations", token: h.alice, body: body)
            #expect(reply.status == .contentTooLarge)
            #expect(reply.reason?.contains("larger than 65536 bytes") == true, "\(reply.text)")
            // Just under the limit is read.
            let fits = Fixture.body(Fixture.goldenGate, Fixture.futureDate(), 2)
            let padded = fits + String(repeating: " ", count: ReservationRoutes.bodyLimit - fits.utf8.count)
            #expect(try await h.call(.post, "/reservations", token: h.alice, body: padded).status == .created)
            // A batch's limit is its own, and its refusal names it and the batch's limit in requests.
            let batch = #"{"reservations": []}"# + String(repeating: " ", count: ReservationRoutes.batchBodyLimit)
            let large = try await h.call(.post, "/reservations/batch", token: h.alice, body: batch)
            #expect(large.status == .contentTooLarge)
            #expect(
                large.reason?.contains("larger than 8388608 bytes (a batch holds at most 10000 requests)") == true,
                "\(large.text)")
        }
    }

    @Test(arguments: Engine.available)
    func unknownRoutesAndMethodsAnswerJSON404(engine: Engine) async throws {
        try await withHarness(engine) { h in
            for (method, uri) in [(HTTPRequest.Method.get, "/nope"), (.put, "/reservations"), (.patch, "/landmarks")] {
                let reply = try await h.call(method, uri, token: h.alice)
                #expect(reply.status == .notFound)
                #expect(reply.reason?.contains("no route") == true, "\(reply.text)")
            }
        }
    }

    @Test(arguments: Engine.available)
    func badAndUnknownIDs(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let unknown = UUID().uuidString.lowercased()
            for (method, suffix) in [(HTTPRequest.Method.get, ""), (.delete, ""), (.post, "/confirm")] {
                let bad = try await h.call(method, "/reservations/abcd\(suffix)", token: h.alice)
                #expect(bad.status == .badRequest)
                #expect(bad.reason?.contains("'abcd' is not a reservation id") == true, "\(bad.text)")
                let missing = try await h.call(method, "/reservations/\(unknown)\(suffix)", token: h.alice)
                #expect(missing.status == .notFound)
                #expect(
                    missing.reason == ReservationError.reservationNotFound(unknown.description).localizedDescription)
            }
        }
    }

    @Test(arguments: Engine.available)
    func cancelAndConfirmTransitions(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let pending = try #require(try await h.reserve(h.alice, status: "pending")["id"] as? String)
            let confirmed = try await h.call(.post, "/reservations/\(pending)/confirm", token: h.alice)
            #expect(confirmed.status == .ok)
            #expect(confirmed.object["status"] as? String == "confirmed")
            // Confirming again changes nothing and is not an error.
            #expect(
                try await h.call(.post, "/reservations/\(pending)/confirm", token: h.alice).object["status"]
                    as? String == "confirmed")

            let cancelled = try await h.call(.delete, "/reservations/\(pending)", token: h.alice)
            #expect(cancelled.status == .ok)
            #expect(cancelled.object["status"] as? String == "cancelled")
            #expect(cancelled.object["id"] as? String == pending)
            #expect(try await h.call(.delete, "/reservations/\(pending)", token: h.alice).status == .ok)

            let refused = try await h.call(.post, "/reservations/\(pending)/confirm", token: h.alice)
            #expect(refused.status == .conflict)
            #expect(refused.reason?.contains("cancelled and cannot be confirmed") == true)
            let stored = try await h.call(.get, "/reservations/\(pending)", token: h.alice)
            #expect(stored.object["status"] as? String == "cancelled")
        }
    }

    @Test(arguments: Engine.available)
    func usersSeeAndChangeOnlyTheirOwn(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let id = try #require(try await h.reserve(h.alice, status: "pending")["id"] as? String)
            #expect(try await h.call(.get, "/reservations", token: h.bob).text == "[]")
            for (method, suffix) in [(HTTPRequest.Method.get, ""), (.delete, ""), (.post, "/confirm")] {
                let reply = try await h.call(method, "/reservations/\(id)\(suffix)", token: h.bob)
                #expect(reply.status == .notFound, "\(method) \(suffix)")
                #expect(reply.reason == ReservationError.reservationNotFound(id.description).localizedDescription)
            }
            let mine = try await h.call(.get, "/reservations/\(id)", token: h.alice)
            #expect(mine.object["status"] as? String == "pending")
            #expect(try await h.call(.get, "/reservations", token: h.alice).array.count == 1)
        }
    }

    @Test(arguments: Engine.available)
    func capacityIsCountedAcrossUsers(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let day = Fixture.futureDate()
            let morning = try await h.reserve(h.alice, landmark: Fixture.halfDome, date: day, partySize: 200)
            try await h.reserve(h.bob, landmark: Fixture.halfDome, date: day, partySize: 100)
            let full = try await h.call(
                .post, "/reservations", token: h.bob, body: Fixture.body(Fixture.halfDome, day, 1))
            #expect(full.status == .conflict)
            #expect(
                full.reason?.contains("Half Dome is full on \(day.prefix(10)): 300 of 300 places taken, 1 requested")
                    == true,
                "\(full.text)")
            // Cancelling gives the places back.
            let id = try #require(morning["id"] as? String)
            #expect(try await h.call(.delete, "/reservations/\(id)", token: h.alice).status == .ok)
            try await h.reserve(h.bob, landmark: Fixture.halfDome, date: day, partySize: 200)
        }
    }
}

/// `make test` sets RESV_REQUIRE_POSTGRES: there, a missing PostgreSQL must
/// fail the run rather than quietly test SQLite alone.
@Test(.timeLimit(.minutes(30))) func postgresIsPresentWhenRequired() {
    if ProcessInfo.processInfo.environment["RESV_REQUIRE_POSTGRES"] == "1" {
        #expect(
            Engine.available.contains(.postgres), "RESV_TEST_POSTGRES_URL is not set: run under scripts/with-postgres")
    }
}

@Suite("List cache", .timeLimit(.minutes(30)))
struct ListCacheTests {
    @Test(arguments: Engine.available)
    func listsFollowEveryChange(engine: Engine) async throws {
        try await withHarness(engine) { h in
            func statuses(_ token: String) async throws -> [String] {
                try await h.call(.get, "/reservations", token: token).array.compactMap { $0["status"] as? String }
            }
            #expect(try await statuses(h.alice) == [])
            #expect(try await statuses(h.bob) == [])
            let id = try #require(
                try await h.reserve(h.alice, date: "2041-01-01T10:00:00Z", status: "pending")["id"] as? String)
            #expect(try await statuses(h.alice) == ["pending"])
            #expect(try await statuses(h.alice) == ["pending"])
            try await h.reserve(h.alice, date: "2041-02-01T10:00:00Z")
            #expect(try await statuses(h.alice) == ["pending", "confirmed"])
            _ = try await h.call(.post, "/reservations/\(id)/confirm", token: h.alice)
            #expect(try await statuses(h.alice) == ["confirmed", "confirmed"])
            _ = try await h.call(.delete, "/reservations/\(id)", token: h.alice)
            #expect(try await statuses(h.alice) == ["cancelled", "confirmed"])
            #expect(try await statuses(h.bob) == [])
        }
    }

    @Test func aReadThatRacedAChangeIsNotKept() {
        let cache = ListCache()
        let user = UserID(1)
        let now = Date(timeIntervalSince1970: 1_900_000_000)
        guard case .failure(let generation) = cache.lookup(user, at: now) else {
            Issue.record("an empty cache has no body")
            return
        }
        cache.invalidate()  // a write commits while the read runs
        cache.keep(ByteBuffer(string: "[old]"), for: user, readAt: generation)
        guard case .failure(let next) = cache.lookup(user, at: now) else {
            Issue.record("the stale body was kept")
            return
        }
        cache.keep(ByteBuffer(string: "[new]"), for: user, readAt: next)
        #expect((try? cache.lookup(user, at: now).get()) == ByteBuffer(string: "[new]"))
        #expect((try? cache.lookup(UserID(2), at: now).get()) == nil)
    }

    /// A list with a live hold is kept until the hold ends, not a second more: from then on it reads expired.
    @Test func aListIsKeptUntilItsFirstHoldEnds() {
        let cache = ListCache()
        let user = UserID(1)
        let now = Date(timeIntervalSince1970: 1_900_000_000)
        guard case .failure(let generation) = cache.lookup(user, at: now) else {
            Issue.record("an empty cache has no body")
            return
        }
        cache.keep(ByteBuffer(string: "[held]"), for: user, readAt: generation, until: now.addingTimeInterval(60))
        #expect((try? cache.lookup(user, at: now.addingTimeInterval(59)).get()) == ByteBuffer(string: "[held]"))
        #expect((try? cache.lookup(user, at: now.addingTimeInterval(60)).get()) == nil)
    }
}
