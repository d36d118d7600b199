import CapacityModel
import Foundation
import HTTPTypes
import ReservationCore
import Testing

@testable import ReservationServer
@testable import ReservationStorage

/// `GET /changes` on every engine (DESIGN.md, "Watching changes"): the
/// caller's own changes after a cursor, in order, the system's included; a
/// long poll woken by a commit; cursors good only for their user and database.
@Suite("The change feed on the server")
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
            while h.store.signal.waiting == 0 { await Task.yield() }
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
            while h.store.signal.waiting == 0 { await Task.yield() }
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
}
