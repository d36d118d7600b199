import Foundation
import ReservationCore
import ResvTestKit
import Testing

/// `availability --from/--to` take days as people type them, at the landmark:
/// the clock held at 2026-11-24 23:30 UTC, which is already the 25th in
/// Auckland and still the 24th in California.
@Suite("Availability days as typed", .timeLimit(.minutes(30)))
struct AvailabilityDaysTests {
    static let now = Date(timeIntervalSince1970: 1_795_563_000)  // 2026-11-24T23:30:00Z

    @Test(arguments: [
        ("Half Dome", "today", "today", ["2026-11-24"]),
        ("Half Dome", "tomorrow", "+2d", ["2026-11-25", "2026-11-26"]),
        ("Half Dome", "+1w", "+1w", ["2026-12-01"]),
        ("Half Dome", "2026-12-24", "2026-12-24", ["2026-12-24"]),
        ("Half Dome", "2026-11-25T02:00:00+01:00", "2026-11-25T02:00:00+01:00", ["2026-11-24"]),
    ])
    func daysAreTheLandmarks(_ landmark: String, _ from: String, _ to: String, _ days: [String]) async throws {
        let sandbox = try Sandbox(.jsonFile, clock: TestClock(Self.now))
        let run = await sandbox.resv("availability", landmark, "--from", from, "--to", to, "--json")
        #expect(run.status == 0, "\(run.stderr)")
        let items = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        #expect(items.compactMap { $0["date"] as? String } == days)
    }

    @Test func todayIsTheLandmarksToday() async throws {
        // Auckland is 13 hours ahead in November: its today is the 25th.
        let catalog = CapacityModel().catalogJSON
        let sandbox = try Sandbox(
            .jsonFile, seed: #"{"version": 1, "landmarks": \#(catalog), "reservations": []}"#,
            clock: TestClock(Self.now))
        let run = await sandbox.resv("availability", "tiny tower", "--from", "today", "--to", "today", "--json")
        let items = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        #expect(items.compactMap { $0["date"] as? String } == ["2026-11-25"], "\(run.stderr)")
    }
}
