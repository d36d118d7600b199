import Foundation
import ResvTestKit
import Testing

/// `resv reserve --batch`: NDJSON requests, all written in one write or none.
/// What a backend answers (landmarks, capacity, what it holds after) is tested on each.
@Suite("Batch reserve", .timeLimit(.minutes(30)))
struct BatchReserveTests {
    func write(_ lines: [String], in sandbox: Sandbox, name: String = "batch.ndjson") throws -> String {
        try sandbox.file(name, lines.joined(separator: "\n") + "\n")
    }

    @Test func oneBadLineAmongTenThousandWritesNothingAndIsNamed() async throws {
        let sandbox = try Sandbox(seed: Fixture.store)
        let before = try await sandbox.state()
        var lines = Fixture.batchLines(10_000)
        lines[5_000] = #"{"landmarkId": "Half Dome", "date": "2031-07-01T10:00:00Z", "partySize": 0}"#
        let batch = try write(lines, in: sandbox)

        let run = await sandbox.resv("reserve", "--batch", batch)

        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        #expect(
            run.stderrLines == [
                "resv: line 5001: party size 0 is invalid: it must be from 1 to 10,000",
                "resv: 1 of 10000 requests are invalid: nothing was reserved",
            ])
        #expect(try await sandbox.state() == before)
    }

    @Test(arguments: Backend.allCases)
    func everyBadLineIsListedWithItsNumberAndReason(_ backend: Backend) async throws {
        let sandbox = try Sandbox(backend, seed: Fixture.store)
        let before = try await sandbox.state()
        let good = #"{"landmarkId": "Half Dome", "date": "2031-07-01T10:00:00Z", "partySize": 2}"#
        let lines = [
            good,
            #"{"landmarkId": "Atlantis", "date": "2031-07-01T10:00:00Z", "partySize": 2}"#,
            "",
            "{not json",
            #"{"landmarkId": "Half Dome", "date": "2031-07-01 10:00", "partySize": 2}"#,
            #"{"landmarkId": "Half Dome", "date": "2031-07-01T10:00:00Z"}"#,
            #"{"landmarkId": "Half Dome", "date": "2020-07-01T10:00:00Z", "partySize": 1}"#,
            #"{"landmarkId": "Half Dome", "date": "2031-07-01T10:00:00Z", "partySize": 299}"#,
            #"{"landmarkId": "Half Dome", "date": "2031-07-01T10:00:00Z", "partySize": 1, "status": "cancelled"}"#,
            "[]",
            good,
        ]
        let run = await sandbox.resv("reserve", "--batch", try write(lines, in: sandbox))

        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        let numbers = run.stderrLines.dropLast().map {
            $0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)
        }
        #expect(numbers == ["line 2", "line 4", "line 5", "line 6", "line 7", "line 8", "line 9", "line 10"])
        let stderr = run.stderr
        for reason in [
            "no landmark matches 'Atlantis'", "not a JSON object", "expected an ISO 8601 date-time",
            "partySize is missing",
            "is in the past", "Half Dome is full on 2031-07-01: 2 of 300 places taken, 299 requested",
            "cannot be 'cancelled'", "must be a JSON object, not an array",
        ] {
            #expect(stderr.contains(reason), "missing '\(reason)' in \(stderr)")
        }
        #expect(run.stderrLines.last == "resv: 8 of 10 requests are invalid: nothing was reserved")
        #expect(try await sandbox.state() == before)
    }

    @Test(arguments: Backend.allCases)
    func standardInputPendingByDefaultAndJSONOutput(_ backend: Backend) async throws {
        let sandbox = try Sandbox(backend)
        let input = [
            #"{"landmarkId": "Half Dome", "date": "2031-07-01T10:00:00-07:00", "partySize": 2}"#,
            #"{"landmarkId": "938e", "date": "2031-07-02T10:00:00Z", "partySize": 3, "status": "confirmed"}"#,
        ].joined(separator: "\r\n")

        let run = await sandbox.resv(["reserve", "--batch", "-", "--pending", "--json"], stdin: input)

        #expect(run.status == 0, "\(run.stderr)")
        let created = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        #expect(created.map { $0["status"] as? String } == ["pending", "confirmed"])
        #expect(created.map { ($0["landmark"] as? [String: Any])?["name"] as? String } == ["Half Dome", "Lake Tahoe"])
        #expect(created.map { $0["date"] as? String } == ["2031-07-01T17:00:00Z", "2031-07-02T10:00:00Z"])
        let listed = await sandbox.resv("list", "--json")
        #expect((try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [Any])?.count == 2)
    }

    @Test(arguments: Backend.allCases)
    func capacityCountsEveryLineOfTheBatch(_ backend: Backend) async throws {
        let sandbox = try Sandbox(backend)
        let line = #"{"landmarkId": "Half Dome", "date": "2031-07-01T10:00:00-07:00", "partySize": 100}"#
        let full = await sandbox.resv("reserve", "--batch", try write([line, line, line], in: sandbox))
        #expect(full.status == 0, "\(full.stderr)")
        let more = await sandbox.resv("reserve", "--batch", try write([line], in: sandbox, name: "more.ndjson"))
        // Refused for room alone: exit 1, as a single reserve would be.
        #expect(more.status == 1)
        #expect(
            more.stderr.contains("line 1: Half Dome is full on 2031-07-01: 300 of 300 places taken, 100 requested"),
            "\(more.stderr)")
    }

    @Test func anEmptyBatchReservesNothingAndSucceeds() async throws {
        let sandbox = try Sandbox()
        let run = await sandbox.resv(["reserve", "--batch", "-", "--json"], stdin: "\n\n")
        #expect(run.status == 0)
        #expect(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
        #expect(run.stderr.contains("No requests"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.store.path))
    }

    @Test(arguments: [
        (["reserve", "--batch", "/nonexistent/batch.ndjson"], "cannot read /nonexistent/batch.ndjson: No such file"),
        (["reserve", "--batch", "/"], "cannot read /: it is a directory"),
        (["reserve", "--batch", "-", "--landmark", "Half Dome"], "leave out --landmark"),
        (["reserve", "--batch", "-", "-d", "2031-07-01T10:00:00Z", "-n", "2"], "leave out --date, --party-size"),
    ])
    func unusableBatchArgumentsExit64(_ arguments: [String], _ message: String) async throws {
        let sandbox = try Sandbox()
        let run = await sandbox.resv(arguments, stdin: "")
        #expect(run.status == 64)
        #expect(run.stderrLines.count == 1)
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.store.path))
    }

    @Test func standardInputIsNotABatchInTheRepl() async throws {
        let sandbox = try Sandbox()
        let script = "reserve --batch -\nlist --json\n"
        let run = await sandbox.resv(["repl"], stdin: script)
        #expect(run.status == 64)
        #expect(run.stderrLines == ["resv: line 1: cannot read -: in the REPL, give --batch a file"], "\(run.stderr)")
        #expect(run.stdout == "[]\n")
    }
}
