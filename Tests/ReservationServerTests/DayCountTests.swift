import Foundation
import ReservationCore
import ResvTestKit
import Testing

@testable import ReservationServer
@testable import ReservationStorage

/// PostgreSQL's kept count of each landmark-day (`day_counts`, schema 10): after
/// every kind of change, by the routes or by another program's SQL, each kept
/// count is what a scan of the day's rows says, and the day refuses and admits
/// as it did when it was scanned.
@Suite("Kept day counts on PostgreSQL", .timeLimit(.minutes(30)))
struct DayCountTests {
    /// Every kept count that differs from a scan of its day (pending and confirmed,
    /// party sizes the domain allows), as text; none when all agree. One statement,
    /// one snapshot: a change and its count commit together.
    static func mismatches(_ url: String) async throws -> [String] {
        try await ConditionTests.firstColumn(
            """
            SELECT c.landmark_id || ' ' || c.start_at::TEXT || ': kept ' || c.taken::TEXT || ', scanned '
                || COALESCE(SUM(r.party_size), 0)::TEXT
            FROM day_counts c LEFT JOIN reservations r ON r.landmark_id = c.landmark_id
                AND r.starts_at >= c.start_at AND r.starts_at < c.end_at
                AND \(SharedSQL.status("r", in: Reservation.Status.takingPlaces))
                AND r.party_size BETWEEN \(Reservation.partySizes.lowerBound) AND \(Reservation.partySizes.upperBound)
            GROUP BY c.landmark_id, c.start_at, c.end_at, c.taken
            HAVING c.taken <> COALESCE(SUM(r.party_size), 0)
            """, postgres: url)
    }

    /// The kept count of the day of `date` at `landmark` (nil when none was made).
    static func kept(_ h: Harness, _ landmark: Landmark, _ date: String) async throws -> Int? {
        let day = try #require(BookingDay(try DateTime.parse(date), at: landmark))
        let text = try await ConditionTests.ids(
            """
            SELECT taken::TEXT FROM day_counts WHERE landmark_id = '\(landmark.id)' AND start_at = \(day.start)
                AND end_at = \(day.end)
            """, h)
        return text.first.flatMap { Int($0) }
    }

    @Test(.enabled(if: Engine.postgresURL != nil, "needs RESV_TEST_POSTGRES_URL (scripts/with-postgres)"))
    func everyChangeKeepsTheDaysCountAsAScanSaysIt() async throws {
        let url = try #require(Engine.postgresURL)
        let tower = CapacityRouteTests.tower(capacity: 10)
        let clock = TestClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        try await withHarness(.postgres, catalog: LandmarkCatalog([tower]), now: clock.now) { h in
            let date = "2031-03-03T10:00:00+13:00"
            let other = "2031-03-04T10:00:00+13:00"
            func post(_ token: String, _ body: String) async throws -> Reply {
                try await h.call(.post, "/reservations", token: token, body: body)
            }
            func body(_ date: String, _ party: Int, _ extra: String = "") -> String {
                #"{"landmarkId":"\#(tower.id)","date":"\#(date)","partySize":\#(party)\#(extra)}"#
            }
            func check(_ step: String, kept expected: Int?) async throws {
                let wrong = try await Self.mismatches(url)
                #expect(wrong.isEmpty, "\(step): \(wrong)")
                if let expected {
                    #expect(try await Self.kept(h, tower, date) == expected, "\(step)")
                }
            }
            let first = try await post(h.alice, body(date, 4))
            #expect(first.status == .created, "\(first.text)")
            let firstID = try #require(first.object["id"] as? String)
            try await check("a booking", kept: 4)
            let hold = try await post(h.bob, body(date, 3, #","hold":600"#))
            #expect(hold.status == .created, "\(hold.text)")
            try await check("a hold counts apart, by the clock", kept: 4)
            let pending = try await post(h.bob, body(date, 3, #","status":"pending""#))
            #expect(pending.status == .created)
            try await check("pending", kept: 7)
            let full = try await post(h.alice, body(date, 1))
            #expect(full.status == .conflict, "4 + 3 held + 3 of 10: \(full.text)")
            let waiting = try await post(h.alice, body(date, 2, #","waitlist":true"#))
            #expect(waiting.object["status"] as? String == "waitlisted")
            try await check("waitlisted counts nothing", kept: 7)
            // The hold ends: swept, its 3 places go to the waiting 2.
            clock.advance(by: 600)
            #expect(try await sweepHolds(store: h.store, catalog: LandmarkCatalog([tower]), now: clock.now()) >= 1)
            let waitingID = try #require(waiting.object["id"] as? String)
            #expect(
                try await h.call(.get, "/reservations/\(waitingID)", token: h.alice).object["status"] as? String
                    == "confirmed")
            try await check("an expiry and a promotion", kept: 9)
            // A cancel, a smaller party, a move to another day, and their undo.
            #expect(try await h.call(.delete, "/reservations/\(firstID)", token: h.alice).status == .ok)
            try await check("a cancel", kept: 5)
            #expect(try await h.call(.post, "/undo", token: h.alice).status == .ok)
            try await check("its undo", kept: 9)
            let moved = try await h.call(
                .patch, "/reservations/\(firstID)", token: h.alice, body: #"{"date":"\#(other)","partySize":2}"#)
            #expect(moved.status == .ok, "\(moved.text)")
            try await check("a move away", kept: 5)
            #expect(try await post(h.bob, body(date, 5)).status == .created, "the freed places are booked")
            #expect(try await post(h.bob, body(date, 1)).status == .conflict, "and no more")
            try await check("full again", kept: 10)
            // Another program's writes are counted too (the trigger is the database's).
            _ = try await ConditionTests.ids(
                "UPDATE reservations SET party_size = party_size + 0, status = 'cancelled' WHERE id = '\(firstID)' RETURNING id",
                h)
            _ = try await ConditionTests.ids(
                "DELETE FROM reservations WHERE landmark_id = '\(tower.id)' AND status = 'pending' RETURNING id", h)
            try await check("another program's update and delete", kept: 7)
            #expect(try await post(h.bob, body(date, 3)).status == .created)
            try await check("booked after them", kept: 10)
        }
    }
}
