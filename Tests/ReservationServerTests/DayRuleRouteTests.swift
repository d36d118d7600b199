import Foundation
import HTTPTypes
import ReservationCore
import ResvTestKit
import Testing

@testable import ReservationServer
@testable import ReservationStorage

/// `POST /landmarks/{id}/days` (capacity by date, closures) on every engine, through the
/// in-process router: the rules of `Booking.changeDays` as each engine stores and counts them.
@Suite("Capacity by date and closures on the server", .timeLimit(.minutes(30)))
struct DayRuleRouteTests {
    /// A landmark of 10 places a day, with a fresh id (PostgreSQL is shared between tests).
    static func peak() -> Landmark {
        Landmark(
            id: Landmark.ID(UUID()), name: "Test Peak", location: "Nowhere", description: "", category: .mountains,
            capacity: 10)
    }

    static let day = "2030-12-01"
    static let visit = "2030-12-01T10:00:00Z"

    static func days(_ body: String, _ landmark: Landmark, _ h: Harness, token: String) async throws -> Reply {
        try await h.call(.post, "/landmarks/\(landmark.id)/days", token: token, body: body)
    }

    @Test(arguments: Engine.available)
    func overridesClosuresAndWhatHappensToThePartiesOver(engine: Engine) async throws {
        let peak = Self.peak()
        try await withHarness(engine, catalog: LandmarkCatalog([peak])) { h in
            let manager = try await h.admin(h.alice)
            let id = peak.id.description
            let first = try await h.reserve(h.bob, landmark: id, date: Self.visit, partySize: 4)
            let second = try await h.reserve(h.alice, landmark: id, date: Self.visit, partySize: 3)
            let third = try await h.reserve(h.bob, landmark: id, date: Self.visit, partySize: 2)

            // Lowering below what is taken: refused, naming the places over; nothing changed.
            let refused = try await Self.days(#"{"from":"\#(Self.day)","capacity":5}"#, peak, h, token: manager)
            #expect(refused.status == .conflict, "\(refused.text)")
            #expect(refused.code == .noCapacity)
            #expect(refused.reason?.hasPrefix("4 places are over at Test Peak on 2030-12-01") == true)
            let unchanged = try await h.call(
                .get, "/landmarks/\(id)/availability?from=\(Self.day)&to=\(Self.day)", token: h.bob)
            #expect(unchanged.text == #"[{"capacity":10,"date":"2030-12-01","left":1,"taken":9}]"#)

            // With cancel: the latest booked go, each once in its owner's history, with the reason.
            let lowered = try await Self.days(
                #"{"from":"\#(Self.day)","capacity":5,"overflow":"cancel"}"#, peak, h, token: manager)
            #expect(lowered.status == .ok, "\(lowered.text)")
            let cancelled = Set((lowered.object["cancelled"] as? [String]) ?? [])
            #expect(cancelled == Set([second["id"] as? String, third["id"] as? String].compactMap { $0 }))
            let bobs = try await h.call(.get, "/history", token: h.bob)
            let reasons = bobs.array.filter { $0["reservationId"] as? String == third["id"] as? String }
            #expect(reasons.count == 2)  // created, and cancelled once
            #expect(reasons.compactMap { $0["reason"] as? String } == ["capacity lowered to 5"])
            let after = try await h.call(
                .get, "/landmarks/\(id)/availability?from=\(Self.day)&to=\(Self.day)", token: h.bob)
            #expect(after.text == #"[{"capacity":5,"date":"2030-12-01","left":1,"override":true,"taken":4}]"#)

            // A booking over the day's own capacity is refused with its numbers.
            let full = try await h.call(.post, "/reservations", token: h.bob, body: Fixture.body(id, Self.visit, 2))
            #expect(full.status == .conflict)
            #expect(full.reason == "Test Peak is full on 2030-12-01: 4 of 5 places taken, 2 requested", "\(full.text)")

            // Closed with waitlist: the party left goes to the head of the list; a booking is 409 closed.
            let closed = try await Self.days(
                #"{"from":"\#(Self.day)","close":"rockfall","overflow":"waitlist"}"#, peak, h, token: manager)
            #expect(closed.status == .ok, "\(closed.text)")
            #expect((closed.object["waitlisted"] as? [String]) == [first["id"] as? String].compactMap { $0 })
            let onClosed = try await h.call(
                .post, "/reservations", token: h.alice, body: Fixture.body(id, "2030-12-01T15:00:00Z", 1))
            #expect(onClosed.status == .conflict)
            #expect(onClosed.code == .closed)
            #expect(onClosed.reason == "Test Peak is closed on 2030-12-01: rockfall", "\(onClosed.text)")
            let shown = try await h.call(
                .get, "/landmarks/\(id)/availability?from=\(Self.day)&to=\(Self.day)", token: h.bob)
            #expect(
                shown.text
                    == #"[{"capacity":5,"closed":"rockfall","date":"2030-12-01","left":0,"override":true,"taken":0}]"#)
            let waiting = try await h.call(.get, "/reservations/\(first["id"] as? String ?? "")", token: h.bob)
            #expect(waiting.object["status"] as? String == "waitlisted")
            #expect(waiting.object["waitlistPosition"] as? Int == 1)

            // Opened: the catalog's day again, and the waitlist promoted.
            let opened = try await Self.days(#"{"from":"\#(Self.day)","open":true}"#, peak, h, token: manager)
            #expect(opened.status == .ok, "\(opened.text)")
            #expect((opened.object["promoted"] as? [String]) == [first["id"] as? String].compactMap { $0 })
            let back = try await h.call(.get, "/reservations/\(first["id"] as? String ?? "")", token: h.bob)
            #expect(back.object["status"] as? String == "confirmed")
        }
    }

    @Test(arguments: Engine.available)
    func badBodiesAreRefusedAndChangeNothing(engine: Engine) async throws {
        let peak = Self.peak()
        try await withHarness(engine, catalog: LandmarkCatalog([peak])) { h in
            let manager = try await h.admin(h.alice)
            let cases: [(body: String, status: HTTPResponse.Status, reason: String)] = [
                (#"{"from":"2030-12-01","capacity":-1}"#, .badRequest, "capacity -1 is out of range"),
                (#"{"from":"2030-12-01","capacity":1000001}"#, .badRequest, "capacity 1000001 is out of range"),
                (
                    #"{"from":"2030-12-02","to":"2030-12-01","close":"x"}"#, .badRequest,
                    "the range 2030-12-02 to 2030-12-01 is empty"
                ),
                (
                    #"{"from":"2030-01-01","to":"2031-01-02","close":"x"}"#, .badRequest,
                    "2030-01-01 to 2031-01-02 is more than 366 days"
                ),
                (#"{"from":"2030-02-30","close":"x"}"#, .badRequest, "from '2030-02-30' is not a day"),
                (
                    #"{"from":"2030-12-01","close":"\#(String(repeating: "x", count: 501))"}"#, .badRequest,
                    "reason has 501 characters"
                ),
                (#"{"from":"2030-12-01","close":"a\u0007b"}"#, .badRequest, "reason holds a control character"),
                (#"{"from":"2030-12-01","close":"x","capacity":3}"#, .badRequest, "give exactly one of"),
                (#"{"from":"2030-12-01"}"#, .badRequest, "give exactly one of"),
                (#"{"from":"2030-12-01","open":true,"overflow":"cancel"}"#, .badRequest, "overflow is for"),
                (#"{"from":"2030-12-01","close":"x","overflow":"drop"}"#, .badRequest, "overflow must be"),
                (#"{"from":"2030-12-01","close":"x","why":1}"#, .badRequest, "'why' is not a field"),
                (#"[1]"#, .badRequest, "the body must be an object"),
            ]
            for item in cases {
                let reply = try await Self.days(item.body, peak, h, token: manager)
                #expect(reply.status == item.status, "\(item.body): \(reply.text)")
                #expect(reply.reason?.hasPrefix(item.reason) == true, "\(item.body): \(reply.text)")
            }
            let unknown = try await h.call(
                .post, "/landmarks/\(UUID().uuidString.lowercased())/days", token: manager,
                body: #"{"from":"2030-12-01","close":"x"}"#)
            #expect(unknown.status == .notFound)
            let shown = try await h.call(
                .get, "/landmarks/\(peak.id)/availability?from=2030-12-01&to=2030-12-01", token: h.bob)
            #expect(shown.text == #"[{"capacity":10,"date":"2030-12-01","left":10,"taken":0}]"#)
            // A read token changes no day.
            let reader = Token.generate()
            _ = try await h.store.addToken("reader-\(UUID().uuidString.prefix(8))", Token.hash(reader), scope: .read)
            let forbidden = try await Self.days(#"{"from":"2030-12-01","close":"x"}"#, peak, h, token: reader)
            #expect(forbidden.status == .forbidden)
        }
    }

    /// Two instances on one database: a capacity lowered, and a day closed, through instance A
    /// are in force for the next booking through instance B at once, with no restart and no file.
    @Test(arguments: Instances.engines)
    func aDayChangedThroughOneInstanceIsInForceOnTheOtherAtOnce(engine: Engine) async throws {
        let clock = TestClock(OnSaleTests.start)
        let peak = Self.peak()
        try await Instances.with(2, engine: engine, clock: clock, catalog: LandmarkCatalog([peak])) { instances in
            let team = try await User.team(in: instances[0].store)
            let manager = team[0]
            // An admin, as `resv-server user set NAME --role admin` makes one (names are `alice-SUFFIX`).
            let name = try #require(try await instances[0].store.tokens.name(manager.id))
            _ = try await instances[0].store.tokens.setAccess(
                name, UserAccess(role: .admin), create: false, mustBeNew: false)
            let id = peak.id.description
            let date = DateTime.format(OnSaleTests.visit)
            let day = String(date.prefix(10))
            let booked = try await instances[1].call(
                .post, "/reservations", as: team[1], body: Fixture.body(id, date, 4))
            #expect(booked.status == .created, "\(booked.text)")
            let lowered = try await instances[0].call(
                .post, "/landmarks/\(id)/days", as: manager, body: #"{"from":"\#(day)","capacity":5}"#)
            #expect(lowered.status == .ok, "\(lowered.text)")
            let over = try await instances[1].call(
                .post, "/reservations", as: team[2], body: Fixture.body(id, date, 2))
            #expect(over.status == .conflict)
            #expect(over.reason == "Test Peak is full on \(day): 4 of 5 places taken, 2 requested", "\(over.text)")
            let fits = try await instances[1].call(.post, "/reservations", as: team[2], body: Fixture.body(id, date, 1))
            #expect(fits.status == .created, "\(fits.text)")
            let refused = try await instances[0].call(
                .post, "/landmarks/\(id)/days", as: manager, body: #"{"from":"\#(day)","close":"storm"}"#)
            #expect(refused.status == .conflict)
            #expect(refused.reason?.hasPrefix("5 places are over") == true, "\(refused.text)")
            let closed = try await instances[0].call(
                .post, "/landmarks/\(id)/days", as: manager,
                body: #"{"from":"\#(day)","close":"storm","overflow":"cancel"}"#)
            #expect(closed.status == .ok, "\(closed.text)")
            let onClosed = try await instances[1].call(
                .post, "/reservations", as: team[1], body: Fixture.body(id, date, 1))
            #expect(onClosed.code == .closed, "\(onClosed.text)")
            let shown = try await instances[1].call(
                .get, "/landmarks/\(id)/availability?from=\(day)&to=\(day)", as: team[2])
            #expect(shown.array.first?["closed"] as? String == "storm")
        }
    }
}
