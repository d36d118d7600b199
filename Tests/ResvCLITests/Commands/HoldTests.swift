import Foundation
import ReservationCore
import ResvTestKit
import Testing

@testable import ResvCLI

/// Holds and waitlists as commands, on the file store and in memory, on a
/// clock the test moves: a hold reads expired once it ends, the next write
/// records its end and promotes from the waitlist, and bad durations are 64.
@Suite("Holds and waitlists, as commands", .timeLimit(.minutes(30)))
struct HoldTests {
    static let date = "2030-06-01T18:00:00Z"  // Mount Rainier: 120 a day

    static func json(_ run: Run) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    }

    @Test(arguments: Backend.allCases)
    func anEndedHoldIsRecordedByTheNextCommandAndItsPlacesGoToTheWaitlist(backend: Backend) async throws {
        let clock = TestClock(Date(timeIntervalSince1970: 1_900_000_000))
        let sandbox = try Sandbox(backend, clock: clock)
        #expect(await sandbox.resv("reserve", "-l", "Mount Rainier", "-d", Self.date, "-n", "100").status == 0)
        let hold = try Self.json(
            await sandbox.resv("reserve", "-l", "Mount Rainier", "-d", Self.date, "-n", "20", "--hold", "10m", "--json")
        )
        #expect(hold["status"] as? String == "held")
        #expect(hold["expiresAt"] as? String == "2030-03-17T17:56:40Z")
        let holdID = try #require(hold["id"] as? String)
        let queued = await sandbox.resv(
            "reserve", "-l", "Mount Rainier", "-d", Self.date, "-n", "15", "--waitlist", "--pending", "--json")
        #expect(queued.status == 0)
        #expect(try Self.json(queued)["status"] as? String == "waitlisted")
        #expect(try Self.json(queued)["waitlistPosition"] as? Int == 1)
        #expect(queued.stderr.contains("is waitlisted at position 1"), "\(queued.stderr)")
        let queuedID = try #require(try Self.json(queued)["id"] as? String)
        let table = await sandbox.resv("list")
        #expect(
            table.stdout.contains("held to 2030-03-17 17:56 GMT") || table.stdout.contains("held to"), "\(table.stdout)"
        )
        #expect(table.stdout.contains("waitlisted #1"), "\(table.stdout)")

        clock.advance(by: 600)
        // No server ends holds here: the next command, a read too, records the end and
        // promotes the waiting 15, as pending (docs/contracts.md, "JSON file store").
        let shown = try Self.json(await sandbox.resv("show", String(holdID.prefix(8)), "--json"))
        #expect(shown["status"] as? String == "expired")
        #expect(await sandbox.resv("list", "--status", "held").stdout.isEmpty)
        let late = await sandbox.resv("confirm", String(holdID.prefix(8)))
        #expect(late.status == 1)
        // Its end as the table shows times (issue 60), not the record's stamp.
        #expect(
            late.stderr
                == "resv: the hold on reservation \(holdID.prefix(8)) expired at 2030-03-17 17:56 UTC and cannot "
                + "be confirmed; make a new reservation\n", "\(late.stderr)")
        let log = await sandbox.resv("log", "--json")
        let recorded = try #require(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]])
        #expect(recorded.prefix(2).map { $0["change"] as? String } == ["promoted", "expired"], "\(log.stdout)")

        #expect(await sandbox.resv("reserve", "-l", "Lake Tahoe", "-d", Self.date, "-n", "1").status == 0)
        let changes = try #require(
            try JSONSerialization.jsonObject(with: Data(await sandbox.resv("log", "--json").stdout.utf8))
                as? [[String: Any]])
        #expect(changes.prefix(3).map { $0["change"] as? String } == ["created", "promoted", "expired"])
        let promoted = try Self.json(await sandbox.resv("show", String(queuedID.prefix(8)), "--json"))
        #expect(promoted["status"] as? String == "pending")
        #expect(promoted["waitlistPosition"] == nil)
        // Undo takes back the user's reserve, not the system's changes.
        let undo = await sandbox.resv("undo", "--json")
        #expect(undo.status == 0)
        #expect(undo.stdout.contains("Lake Tahoe") || undo.stdout.contains("938e63b1"), "\(undo.stdout)")
        #expect(
            try Self.json(await sandbox.resv("show", String(queuedID.prefix(8)), "--json"))["status"] as? String
                == "pending")
    }

    @Test(arguments: [
        ("0s", "out of range"), ("25h", "out of range"), ("-5m", "not a duration"), ("10", "not a duration"),
        ("1e9s", "not a duration"), ("99999999999999999999999s", "out of range"), ("", "not a duration"),
        ("1.5h", "not a duration"), ("m", "not a duration"),
    ])
    func aHoldThatIsNoDurationInRangeIs64(hold: String, words: String) async throws {
        let sandbox = try Sandbox()
        let run = await sandbox.resv(
            "reserve", "-l", "Mount Rainier", "-d", Self.date, "-n", "1", "--hold", hold)
        run.expectUsageError(containing: words, "--hold \(hold)")
        #expect(run.stderr.contains("1s to 24h"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.store.path), "nothing written")
    }

    @Test func aHoldAndTheWaitlistTogetherAre64() async throws {
        let sandbox = try Sandbox()
        await sandbox.resv("reserve", "-l", "Mount Rainier", "-d", Self.date, "-n", "1", "--hold", "5m", "--waitlist")
            .expectUsageError(containing: "not both", "--hold with --waitlist")
    }

    @Test(arguments: [("90s", 90), ("10m", 600), ("2h", 7_200), ("24h", 86_400), ("1s", 1), ("1440m", 86_400)])
    func durationsAsTyped(text: String, seconds: Int) throws {
        #expect(try HoldDuration.seconds(text) == seconds)
    }

    /// A store another program wrote, with the largest order there can be on a
    /// waiting record: the next to join goes after it, without overflow.
    @Test func aWaitlistOrderAtTheLargestIntegerIsJoinedAfter() async throws {
        let rainier = "12b84d1a-6e75-4c9a-a791-778746bf7bcd"
        let sandbox = try Sandbox(
            seed: """
                {"version": 1, "reservations": [
                 {"id": "aaaa0000-0000-4000-8000-000000000001", "landmarkId": "\(rainier)", "date": "\(Self.date)",
                  "partySize": 120, "status": "confirmed"},
                 {"id": "aaaa0000-0000-4000-8000-000000000002", "landmarkId": "\(rainier)", "date": "\(Self.date)",
                  "partySize": 5, "status": "waitlisted", "waitlistOrder": 9223372036854775807}]}
                """, clock: TestClock(Date(timeIntervalSince1970: 1_900_000_000)))
        let run = await sandbox.resv(
            "reserve", "-l", "Mount Rainier", "-d", Self.date, "-n", "3", "--waitlist", "--json")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.json(run)["waitlistPosition"] as? Int == 2)
        let cancel = await sandbox.resv("cancel", "aaaa0000-0000-4000-8000-000000000001")
        #expect(cancel.status == 0, "\(cancel.stderr)")
        let list = await sandbox.resv("list", "--status", "confirmed", "--json")
        #expect(list.stdout.contains("aaaa0000-0000-4000-8000-000000000002"), "the first to join, promoted first")
    }
}
