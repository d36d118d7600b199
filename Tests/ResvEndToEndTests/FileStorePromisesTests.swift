import Foundation
import ResvTestKit
import Testing

/// Promises of the file store that an attack on it found broken (fixed in 9180cd2
/// and 15c1e44; docs/contracts.md, "JSON file store"), through the built binary:
/// numbers at the edge of their type, holds that ended and the waitlists behind
/// them as every read shows them, availability counted as capacity counts, and a
/// refused batch's reasons in JSON.
@Suite("File store promises", .ownThreads, .timeLimit(.minutes(30)))
struct FileStorePromisesTests {
    static let halfDome = "937fea60-bb7b-4ee8-85da-c79962987917"

    /// A record of Half Dome (300 places a day) on 2030-06-01.
    static func record(_ number: Int, party: Int, _ fields: String) -> String {
        #"{"id": "11111111-0000-4000-8000-00000000000\#(number)", "landmarkId": "\#(halfDome)", "#
            + #""date": "2030-06-01T18:00:00Z", "partySize": \#(party), \#(fields)}"#
    }

    /// Half Dome's day full: 296 booked and a hold of 4 that ended in 2020 (never
    /// recorded), then 4 and 50 waiting for places, in that order.
    static let endedHold = """
        {"version": 1, "reservations": [
        \(record(1, party: 296, #""status": "confirmed""#)),
        \(record(2, party: 4, #""status": "held", "expiresAt": "2020-01-01T00:00:00Z""#)),
        \(record(3, party: 4, #""status": "waitlisted", "waitlistOrder": 1"#)),
        \(record(4, party: 50, #""status": "waitlisted", "waitlistOrder": 2"#))
        ]}
        """

    func statuses(_ sandbox: Sandbox) throws -> [String] {
        let list = try sandbox.resv("list", "--all", "--json")
        #expect(list.status == 0, "\(list.stderr)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        return rows.sorted { ($0["id"] as? String ?? "") < ($1["id"] as? String ?? "") }.map {
            $0["status"] as? String ?? "?"
        }
    }

    @Test func aLastChangeAtTheEdgeOfItsTypeIsBadDataNotACrash() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(#"{"version": 1, "lastChange": 9223372036854775807, "reservations": []}"#)
        let before = try sandbox.storeBytes()
        let run = try sandbox.resv("reserve", "-l", "Lake Tahoe", "-d", "2030-01-01T10:00:00Z", "-n", "1")
        #expect(run.status == 65, "\(run.stderr)")
        #expect(
            run.stderr
                == "resv: \(sandbox.store.path) is not a valid resv store (its lastChange 9223372036854775807 "
                + "leaves no number for another change); it was left unchanged: fix or move it\n")
        #expect(try sandbox.storeBytes() == before)
        #expect(!FileManager.default.fileExists(atPath: sandbox.store.path + ".history"))
        // Reading it is no change: its reservations are listed.
        #expect(try sandbox.resv("list").status == 0)
    }

    @Test func aVersionAtTheEdgeOfItsTypeIsARecordReportedNotACrash() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(
            #"{"version": 1, "reservations": [\#(Self.record(1, party: 2, #""status": "confirmed", "version": 9223372036854775807"#))]}"#
        )
        let modify = try sandbox.resv("modify", "11111111", "-n", "3")
        #expect(modify.status == 1, "\(modify.stderr)")
        #expect(!modify.stderr.contains("Fatal error") && !modify.stderr.contains("Backtrace"), "\(modify.stderr)")
        let list = try sandbox.resv("list", "--verbose")
        #expect(list.status == 0)
        #expect(list.stderr.contains("version 9223372036854775807 is not from 1 to 9007199254740991"), "\(list.stderr)")
        #expect(try String(data: sandbox.storeBytes(), encoding: .utf8)?.contains("9223372036854775807") == true)
    }

    @Test func availabilityCountsWhatCapacityCountsNotTheWaitlisted() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(
            """
            {"version": 1, "reservations": [
            \(Self.record(1, party: 300, #""status": "confirmed""#)),
            \(Self.record(2, party: 50, #""status": "waitlisted", "waitlistOrder": 1"#))
            ]}
            """)
        let run = try sandbox.resv("availability", "half dome", "--from", "2030-06-01", "--to", "2030-06-01", "--json")
        #expect(run.status == 0, "\(run.stderr)")
        let days = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        #expect(days.first?["taken"] as? Int == 300)
        #expect(days.first?["left"] as? Int == 0)
    }

    @Test func aHoldThatEndedFreesItsPlacesForTheWaitlistAtTheNextRead() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Self.endedHold)
        // The read records the hold's end and the promotion it makes, once.
        #expect(try statuses(sandbox) == ["confirmed", "expired", "confirmed", "waitlisted"])
        let log = try sandbox.resv("log", "--json")
        let changes = try #require(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]])
        #expect(changes.compactMap { $0["change"] as? String } == ["promoted", "expired"])
        #expect(try statuses(sandbox) == ["confirmed", "expired", "confirmed", "waitlisted"])
        let availability = try sandbox.resv(
            "availability", "half dome", "--from", "2030-06-01", "--to", "2030-06-01", "--format", "ndjson")
        #expect(availability.stdout == #"{"capacity":300,"date":"2030-06-01","left":0,"taken":300}"# + "\n")
    }

    @Test func waitForConfirmedEndsWhenAHoldThatEndedLetsTheWaitlistIn() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Self.endedHold)
        let run = try sandbox.resv("wait", "11111111-0000-4000-8000-000000000003", "--for", "confirmed", "--json")
        #expect(run.status == 0, "\(run.stderr)")
        let shown = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        #expect(shown?["status"] as? String == "confirmed")
    }

    @Test func aStoreThatCannotBeWrittenIsShownSettledWithoutRecording() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Self.endedHold)
        #expect(chmod(sandbox.store.path, 0o444) == 0)
        let before = try sandbox.storeBytes()
        #expect(try statuses(sandbox) == ["confirmed", "expired", "confirmed", "waitlisted"])
        #expect(try sandbox.storeBytes() == before)
        #expect(!FileManager.default.fileExists(atPath: sandbox.store.path + ".history"))
    }

    @Test func aRefusedBatchWithJSONIsOneJSONErrorNamingEachLine() throws {
        let sandbox = try Sandbox()
        let batch = sandbox.directory.appendingPathComponent("bad.ndjson")
        try YearsAhead.write(
            """
            {"landmarkId": "Half Dome", "date": "2030-01-01T10:00:00Z", "partySize": 2}
            {"landmarkId": "Atlantis", "date": "2030-01-01T10:00:00Z", "partySize": 2}
            {"date": "2030-01-01T10:00:00Z", "partySize": 2}
            {not json

            """, to: batch)
        let run = try sandbox.resv("reserve", "--batch", batch.path, "--json")
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        #expect(run.stderrLines.count == 1, "\(run.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stderr.utf8)) as? [String: Any])
        let error = try #require(object["error"] as? [String: Any])
        #expect(error["code"] as? String == "batchRejected")
        #expect(error["exitCode"] as? Int == 64)
        #expect(error["message"] as? String == "3 of 4 requests are invalid: nothing was reserved")
        let lines = try #require(error["lines"] as? [[String: Any]])
        #expect(lines.compactMap { $0["line"] as? Int } == [2, 3, 4])
        #expect(lines.compactMap { $0["code"] as? String } == ["unknownLandmark", "invalidRequest", "invalidJSON"])
        #expect((lines.first?["message"] as? String)?.hasPrefix("no landmark matches 'Atlantis'") == true)
        #expect(!FileManager.default.fileExists(atPath: sandbox.store.path))
        // Without --json, the same reasons are lines of text.
        let text = try sandbox.resv("reserve", "--batch", batch.path)
        #expect(text.stderrLines.count == 4)
        #expect(text.stderrLines.first?.hasPrefix("resv: line 2: no landmark matches 'Atlantis'") == true)
    }
}
