import Foundation
import ResvTestKit
import Testing

/// `resv reserve --batch` through the built binary: one locked write that another process
/// never sees half done, stdin from a pipe, progress on a terminal, and the exit codes.
/// The table of batch cases runs in process (Tests/ResvCLITests/Commands/BatchReserveEndToEndTests.swift).
@Suite("Batch reserve", .ownThreads, .timeLimit(.minutes(30)))
struct BatchReserveEndToEndTests {
    func write(_ lines: [String], in sandbox: Sandbox, name: String = "batch.ndjson") throws -> String {
        let path = sandbox.directory.appendingPathComponent(name).path
        try YearsAhead.write(lines.joined(separator: "\n") + "\n", to: URL(fileURLWithPath: path))
        return path
    }

    @Test func tenThousandLinesLandInOneWrite() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Fixture.store)
        let batch = try write(Fixture.batchLines(10_000), in: sandbox)
        // While the batch runs, read the store as often as possible: a reader
        // sees the store before (3 reservations + 1 bad record) or after, never between.
        let run = try sandbox.shell(
            """
            resv reserve --batch '\(batch)' --format ndjson >'\(sandbox.directory.path)/out' 2>'\(sandbox.directory.path)/err' &
            pid=$!
            while kill -0 $pid 2>/dev/null; do jq '.reservations | length' "$RESV_STORE"; done
            wait $pid; echo "status=$?"
            """)
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.last == "status=0", "\(run.stderr)")
        let seen = Set(lines.dropLast())
        #expect(seen.isSubset(of: ["4", "10004"]), "a reader saw \(seen.sorted())")
        #expect(run.stderr.isEmpty, "\(run.stderr)")

        let files = try sandbox.files(["out", "err"])
        let printed = try #require(files["out"]).split(separator: "\n")
        #expect(printed.count == 10_000)
        let root = try sandbox.storeJSON()
        #expect((root["reservations"] as? [Any])?.count == 10_004)
        #expect(root["owner"] as? String == "team-a")
        let list = try sandbox.resv("list", "--json", "--landmark", "Half Dome")
        let halfDome = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [Any]
        #expect(halfDome?.count == 2_501)
    }

    /// The batch table runs in process (Tests/ResvCLITests/Commands/BatchReserveEndToEndTests.swift);
    /// here the built binary agrees on the exit codes: invalid lines 64, no room 1, nothing written.
    @Test func theBinaryRefusesABatchWithTheCodes() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Fixture.store)
        let before = try sandbox.storeBytes()
        let bad = #"{"landmarkId": "Atlantis", "date": "2031-07-01T10:00:00Z", "partySize": 2}"#
        let invalid = try sandbox.resv("reserve", "--batch", try write([bad, "{not json"], in: sandbox))
        #expect(invalid.status == 64)
        #expect(invalid.stdout.isEmpty)
        #expect(invalid.stderrLines.count == 3, "\(invalid.stderr)")
        #expect(invalid.stderrLines.last == "resv: 2 of 2 requests are invalid: nothing was reserved")
        let large = #"{"landmarkId": "Half Dome", "date": "2031-07-01T10:00:00Z", "partySize": 200}"#
        let full = try sandbox.resv("reserve", "--batch", try write([large, large], in: sandbox, name: "full.ndjson"))
        #expect(full.status == 1, "\(full.stderr)")
        #expect(full.stderr.contains("line 2: Half Dome is full on 2031-07-01"), "\(full.stderr)")
        #expect(try sandbox.storeBytes() == before)
    }

    @Test func standardInputPendingByDefaultAndJSONOutput() throws {
        let sandbox = try Sandbox()
        let input = [
            #"{"landmarkId": "Half Dome", "date": "2031-07-01T10:00:00-07:00", "partySize": 2}"#,
            #"{"landmarkId": "938e", "date": "2031-07-02T10:00:00Z", "partySize": 3, "status": "confirmed"}"#,
        ].joined(separator: "\r\n")

        let run = try sandbox.resv(["reserve", "--batch", "-", "--pending", "--json"], stdin: input)

        #expect(run.status == 0, "\(run.stderr)")
        let created = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        #expect(created.map { $0["status"] as? String } == ["pending", "confirmed"])
        #expect(created.map { ($0["landmark"] as? [String: Any])?["name"] as? String } == ["Half Dome", "Lake Tahoe"])
        #expect(created.map { $0["date"] as? String } == ["2031-07-01T17:00:00Z", "2031-07-02T10:00:00Z"])
        let listed = try sandbox.resv("list", "--json")
        #expect((try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [Any])?.count == 2)
    }

    @Test func progressShowsOnATerminalForALargeBatchOnly() throws {
        let sandbox = try Sandbox()
        let batch = try write(Fixture.batchLines(2_000), in: sandbox)
        let onTerminal = try sandbox.shell("script -qec \"resv reserve --batch '\(batch)' --format ndjson\" /dev/null")
        #expect(onTerminal.status == 0)
        #expect(onTerminal.stdout.contains("Reserving 2000 requests"))

        let piped = try sandbox.resv("reserve", "--batch", batch, "--format", "ndjson")
        #expect(piped.status == 0)
        #expect(piped.stderr.isEmpty)
        #expect(piped.stdout.split(separator: "\n").count == 2_000)
    }
}
