import Foundation
import ReservationCore
import ResvTestKit
import Testing

/// A store file's landmarks with `hours` and `slots` (docs/contracts.md, "Timed entry"):
/// read, shown, kept through a write; a bad one skipped with its reason; a store without them unchanged.
@Suite("Timetables in a store file", .timeLimit(.minutes(30)))
struct TimetableStoreTests {
    static let slotted = "11111111-2222-4333-8444-555555555555"
    static let opening = "22222222-2222-4333-8444-555555555555"
    static let broken = "33333333-2222-4333-8444-555555555555"

    static let store = """
        {"version": 1, "landmarks": [
          {"id": "\(slotted)", "name": "Arches", "location": "Moab, UT", "category": "mountains",
           "timeZone": "America/Denver",
           "slots": {"mon": {"every": "PT1H", "first": "08:00", "last": "15:00", "capacity": 50}}},
          {"id": "\(opening)", "name": "Museum", "location": "Paris", "category": "lakes", "capacity": 300,
           "timeZone": "Europe/Paris", "hours": {"open": "09:00", "close": "18:00"}},
          {"id": "\(broken)", "name": "Broken", "location": "Nowhere", "category": "lakes",
           "slots": {"every": "PT45M", "first": "08:00", "last": "15:00", "capacity": 5}}
        ], "reservations": []}
        """

    @Test func landmarksShowTheirTimetableAndABadOneIsSkippedWithItsReason() async throws {
        let sandbox = try Sandbox(seed: Self.store)
        let run = await sandbox.resv("landmarks", "--json", "--verbose")
        #expect(run.status == 0, "\(run.stderr)")
        let listed = try JSONValue.parse(Data(run.stdout.utf8))
        guard case .array(let landmarks) = listed else {
            Issue.record("not an array: \(run.stdout)")
            return
        }
        #expect(landmarks.count == 2)
        let arches = try #require(landmarks.first { $0["id"] == .string(Self.slotted) })
        #expect(arches["slots"]?["mon"]?["every"] == .string("PT1H"))
        #expect(arches["slots"]?["mon"]?["capacity"] == .integer(50))
        #expect(arches["hours"] == nil)
        let museum = try #require(landmarks.first { $0["id"] == .string(Self.opening) })
        #expect(museum["hours"] == .object(["open": .string("09:00"), "close": .string("18:00")]))
        #expect(
            run.stderrLines == [
                "resv: skipped landmark #3 (\(Self.broken)): slots every PT45M does not divide the window 08:00–15:00"
            ])
    }

    @Test func aWriteKeepsTheLandmarksTimetablesAsWritten() async throws {
        let sandbox = try Sandbox(seed: Self.store)
        let run = await sandbox.resv("reserve", "-l", "Museum", "-d", "2031-06-02T10:00:00+02:00", "-n", "2")
        #expect(run.status == 0, "\(run.stderr)")
        let written = try JSONValue.parse(sandbox.storeBytes())
        let seeded = try JSONValue.parse(Data(Self.store.utf8))
        #expect(written["landmarks"] == seeded["landmarks"])
        guard case .array(let reservations)? = written["reservations"] else {
            Issue.record("no reservations written")
            return
        }
        #expect(reservations.count == 1)
    }
}
