import Foundation
import ResvTestKit
import Testing

/// Every bad input gets its documented exit code, one line on stderr, nothing
/// on stdout, and leaves the store unchanged (a file byte for byte).
@Suite("Bad input", .timeLimit(.minutes(30)))
struct BadInputTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var arguments: [String]
        var status: Int32
        /// A phrase the one-line message must contain.
        var message: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static func reserve(landmark: String = "Half Dome", date: String = "2030-12-01T10:00:00Z", partySize: String = "2")
        -> [String]
    {
        ["reserve", "--landmark", landmark, "--date", date, "--party-size", partySize]
    }

    /// Refused by the command line's own checks, before the backend is asked.
    static let checkedFirst: [Case] = [
        // Dates: impossible, date-only, no zone, past, empty, words.
        Case(
            arguments: reserve(date: "2030-02-30T10:00:00Z"), status: 64,
            message: "day 30 does not exist in February 2030"),
        Case(arguments: reserve(date: "2030-13-01T10:00:00Z"), status: 64, message: "there is no month 13"),
        Case(arguments: reserve(date: "2030-12-01T25:00:00Z"), status: 64, message: "hour 25 is out of range"),
        Case(arguments: reserve(date: "2030-12-01"), status: 64, message: "a day alone is not enough: add a time"),
        Case(
            arguments: reserve(date: "2030-12-01 10:00 PST"), status: 64,
            message: "'pst' is not a day or a time resv reads; expected a date and time like 2026-12-01 10:00"),
        Case(arguments: reserve(date: "2030-12-01T10:00:00+25:00"), status: 64, message: "the time zone must be"),
        Case(arguments: reserve(date: "2020-12-01T10:00:00Z"), status: 64, message: "is in the past"),
        Case(arguments: reserve(date: ""), status: 64, message: "a date is required"),
        Case(
            arguments: reserve(date: "next tuesday"), status: 64,
            message: "a day alone is not enough: add a time, like 'next tuesday 10:00'"),
        Case(arguments: reserve(date: "noon"), status: 64, message: "a time alone is not enough: add a day"),
        Case(arguments: reserve(date: "in 2 hours"), status: 64, message: "'hours' is not a day or a time"),
        // Party sizes.
        Case(arguments: reserve(partySize: "0"), status: 64, message: "party size 0 is invalid"),
        Case(arguments: reserve(partySize: "-1"), status: 64, message: "party size -1 is invalid"),
        Case(arguments: reserve(partySize: "abc"), status: 64, message: "'abc' is invalid for '--party-size"),
        Case(arguments: reserve(partySize: "4.5"), status: 64, message: "'4.5' is invalid for '--party-size"),
        Case(
            arguments: reserve(partySize: "99999999999999999999999"), status: 64,
            message: "'99999999999999999999999' is invalid"),
        // Ids: none.
        Case(arguments: ["cancel"], status: 64, message: "missing reservation ids (or --series ID)"),
        // Statuses, formats, ranges, commands.
        Case(arguments: ["list", "--status", "archived"], status: 64, message: "'archived' is invalid for '--status"),
        Case(arguments: ["list", "--format", "xml"], status: 64, message: "'xml' is invalid for '--format"),
        Case(arguments: ["list", "--json", "--format", "ndjson"], status: 64, message: "disagree"),
        Case(
            arguments: ["list", "--from", "the other day"], status: 64,
            message: "invalid date 'the other day': 'the' is not a day or a time"),
        Case(arguments: ["list", "--to", "next wek"], status: 64, message: "'wek' is not a day or a time"),
        Case(arguments: ["log", "--from", "tmrw at 25:00"], status: 64, message: "hour 25 is out of range"),
        Case(arguments: ["list", "--to", "2026-02-30"], status: 64, message: "day 30 does not exist in February 2026"),
        Case(
            arguments: ["list", "--from", "2030-02-01T00:00:00Z", "--to", "2030-01-01T00:00:00Z"], status: 64,
            message: "is after --to"),
        Case(arguments: ["log", "--limit", "0"], status: 64, message: "--limit must be 1 or more, not 0"),
        Case(arguments: ["log", "--limit", "-5"], status: 64, message: "--limit must be 1 or more, not -5"),
        Case(
            arguments: ["log", "--limit", "99999999999999999999"], status: 64,
            message: "'99999999999999999999' is invalid for '--limit"),
        Case(arguments: ["frobnicate"], status: 64, message: "unknown command 'frobnicate'"),
        Case(arguments: ["list", "--nope"], status: 64, message: "unknown option '--nope'"),
        Case(arguments: ["reserve", "--landmark", "Half Dome"], status: 64, message: "missing --date, --party-size"),
    ]

    /// Refused by the backend, from what it holds: the same on every backend.
    static let answeredByTheBackend: [Case] = [
        // Landmarks.
        Case(arguments: reserve(landmark: "Atlantis"), status: 64, message: "no landmark matches 'Atlantis'"),
        Case(
            arguments: reserve(landmark: "00000000-0000-4000-8000-000000000000"), status: 64,
            message: "no landmark matches '00000000-0000-4000-8000-000000000000'"),
        Case(arguments: ["list", "--landmark", "Atlantis"], status: 64, message: "no landmark matches"),
        // Ids: unknown, ambiguous, not an id.
        Case(arguments: ["cancel", "ffff"], status: 1, message: "no reservation matches 'ffff'"),
        Case(arguments: ["cancel", "abcd"], status: 1, message: "'abcd' matches 2 reservations: abcd2222"),
        Case(arguments: ["cancel", "abcd1111", "ffff0000"], status: 1, message: "no reservation matches 'ffff0000'"),
        Case(arguments: ["cancel", "abc"], status: 64, message: "at least its first 4 hex digits"),
        Case(arguments: ["cancel", "zzzz"], status: 64, message: "'zzzz' is not a reservation id"),
        Case(arguments: ["show", "ffff"], status: 1, message: "no reservation matches"),
        Case(arguments: ["show", "abcd"], status: 1, message: "matches 2 reservations"),
        Case(arguments: ["confirm", "ffff"], status: 1, message: "no reservation matches"),
        Case(arguments: ["confirm", "5eed"], status: 1, message: "is cancelled and cannot be confirmed"),
        // Capacity: Half Dome takes 300 a day.
        Case(
            arguments: reserve(partySize: "301"), status: 1,
            message: "a party of 301 is larger than Half Dome's capacity of 300 a day"),
    ]

    /// Every case on the JSON file store; the backend's answers in memory too.
    static let cases: [(Backend, Case)] =
        (checkedFirst + answeredByTheBackend).map { (.jsonFile, $0) } + answeredByTheBackend.map { (.inMemory, $0) }

    @Test(arguments: cases)
    func refusedWithCodeAndOneLineAndStoreUnchanged(_ backend: Backend, _ badCase: Case) async throws {
        let sandbox = try Sandbox(backend, seed: Fixture.store)
        let before = try await sandbox.state()
        let run = await sandbox.resv(badCase.arguments)
        #expect(run.status == badCase.status, "stderr: \(run.stderr)")
        #expect(run.stdout.isEmpty)
        // The seeded store has one record that does not map, so a warning line may precede the error.
        let errorLines = run.stderrLines.filter { !$0.contains("warning: skipped") }
        #expect(errorLines.count == 1, "stderr: \(run.stderr)")
        // One line of text, or of JSON when JSON was asked for.
        #expect(errorLines.first?.hasPrefix("resv: ") == true || errorLines.first?.hasPrefix(#"{"error":"#) == true)
        #expect(run.stderr.contains(badCase.message), "stderr: \(run.stderr)")
        #expect(try await sandbox.state() == before)
    }

    @Test func corruptStoreIsNeverOverwritten() async throws {
        let text = "{\"version\": 1,\n  \"reservations\": [ {\"id\": \"x\" ]\n}"
        let sandbox = try Sandbox(seed: text)
        for arguments in [
            ["list"], ["fetch"], ["cancel", "abcd"], BadInputTests.reserve(), ["landmarks"],
        ] {
            let run = await sandbox.resv(arguments)
            #expect(run.status == 65, "\(arguments): \(run.stderr)")
            #expect(run.stdout.isEmpty)
            #expect(run.stderrLines.count == 1)
            #expect(run.stderr.contains(sandbox.store.path))
            #expect(run.stderr.contains("line 2, column"))
            #expect(try sandbox.storeBytes() == Data(text.utf8))
        }
    }

    @Test(arguments: [
        "[]", "\"text\"", "{\"version\": \"1\"}", "{\"version\": 1, \"reservations\": {}}",
        "{\"version\": 1, \"landmarks\": 3}",
    ])
    func wronglyShapedStoreIsRefused(_ text: String) async throws {
        let sandbox = try Sandbox(seed: text)
        let run = await sandbox.resv(BadInputTests.reserve())
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderrLines.count == 1)
        #expect(try sandbox.storeBytes() == Data(text.utf8))
    }

    @Test func newerStoreVersionIsRefusedAndUnchanged() async throws {
        let text = "{\"version\": 2, \"reservations\": []}"
        let sandbox = try Sandbox(seed: text)
        for arguments in [["list"], BadInputTests.reserve()] {
            let run = await sandbox.resv(arguments)
            #expect(run.status == 65)
            #expect(run.stderr.contains("store version 2"))
            #expect(try sandbox.storeBytes() == Data(text.utf8))
        }
    }

    @Test func readOnlyStoreDirectoryExits73() async throws {
        let sandbox = try Sandbox(seed: Fixture.store)
        let before = try sandbox.storeBytes()
        if getuid() == 0 {
            // Root ignores directory permissions: use a directory no one can create instead.
            let run = await sandbox.resv(
                BadInputTests.reserve(), environment: ["RESV_STORE": "/proc/resv-test/reservations.json"])
            #expect(run.status == 73, "\(run.stderr)")
            #expect(run.stderrLines.count == 1)
            return
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: sandbox.directory.path)
        defer {
            try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: sandbox.directory.path)
        }
        let run = await sandbox.resv(BadInputTests.reserve())
        #expect(run.status == 73, "\(run.stderr)")
        #expect(try sandbox.storeBytes() == before)
    }
}
