import Foundation
import ReservationCore
import ResvTestKit
import Testing

@testable import ResvCLI

/// `reserve --every` and `cancel --series` as commands, on the file store and in
/// memory, on the sandbox's clock: a series at one wall time across a clock change,
/// all or nothing against each day's capacity, the series named by show, log and
/// CSV, and the visits ahead cancelled while those that passed stay.
@Suite("Series, as commands", .timeLimit(.minutes(30)))
struct SeriesTests {
    static func array(_ run: Run) throws -> [[String: Any]] {
        try #require(
            try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]], "\(run.stdout)")
    }

    /// Every reservation of the sandbox, by date (`list --all --json`).
    static func listed(_ sandbox: Sandbox) async throws -> [[String: Any]] {
        try array(await sandbox.resv("list", "--all", "--json"))
    }

    static func statuses(_ sandbox: Sandbox) async throws -> [String] {
        try await listed(sandbox).compactMap { $0["status"] as? String }
    }

    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    @Test(arguments: Backend.allCases)
    func aWeeklySeriesKeepsItsWallTimeAcrossTheClockChange(backend: Backend) async throws {
        let sandbox = try Sandbox(backend)
        // Los Angeles moves its clocks on 2030-03-10: 10:00 is 18:00Z before, 17:00Z after.
        let run = await sandbox.resv(
            "reserve", "-l", "golden gate", "-d", "2030-03-03 10:00", "-n", "2", "--every", "week", "--count", "3",
            "--note", "weekly walk", "--json")
        #expect(run.status == 0, "\(run.stderr)")
        let made = try Self.array(run)
        #expect(
            made.map { $0["date"] as? String } == [
                "2030-03-03T18:00:00Z", "2030-03-10T17:00:00Z", "2030-03-17T17:00:00Z",
            ])
        let series = Set(made.compactMap { $0["series"] as? String })
        #expect(series.count == 1 && made.allSatisfy { $0["note"] as? String == "weekly walk" })
        let id = try #require(series.first)
        #expect(Reservation.SeriesID(id)?.description == id)
        #expect(run.stderr.contains("Reserved a series of 3 visits (series \(id.prefix(8)))"), "\(run.stderr)")
        #expect(try await Self.listed(sandbox).count == 3)

        let first = try #require(made[0]["id"] as? String)
        let shown = await sandbox.resv("show", String(first.prefix(8)))
        #expect(shown.stdout.contains("Series    \(id)\n"), "\(shown.stdout)")
        #expect(
            try Self.object(await sandbox.resv("show", String(first.prefix(8)), "--json").stdout)["series"] as? String
                == id)
        let log = await sandbox.resv("log", first)
        #expect(log.stdout.contains("party of 2, series \(id.prefix(8))"), "\(log.stdout)")
        let csv = await sandbox.resv("list", "--format", "csv").stdout.split(separator: "\r\n")
        #expect(csv.first?.hasSuffix(",waitlistPosition,series") == true, "\(csv)")
        #expect(csv.dropFirst().allSatisfy { $0.hasSuffix(",\(id)") }, "\(csv)")
    }

    @Test(arguments: Backend.allCases)
    func aSeriesWithOneFullDayBooksNothing(backend: Backend) async throws {
        let sandbox = try Sandbox(backend)
        // Mount Rainier takes 120 a day: the second day keeps 20 places.
        #expect(await sandbox.resv("reserve", "-l", "mount rainier", "-d", "2030-06-02 09:00", "-n", "100").status == 0)
        let before = try await sandbox.state()
        let run = await sandbox.resv(
            "reserve", "-l", "mount rainier", "-d", "2030-06-01 09:00", "-n", "30", "--every", "day", "--count", "3")
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("resv: visit 2: Mount Rainier is full on 2030-06-02"), "\(run.stderr)")
        #expect(run.stderr.contains("1 of the series' 3 visits was refused: nothing was reserved"), "\(run.stderr)")
        #expect(try await sandbox.state() == before)

        let json = await sandbox.resv(
            "reserve", "-l", "mount rainier", "-d", "2030-06-01 09:00", "-n", "30", "--every", "day", "--count", "3",
            "--json")
        #expect(json.status == 1)
        let error = try #require(try Self.object(json.stderr)["error"] as? [String: Any])
        let lines = try #require(error["lines"] as? [[String: Any]])
        #expect(lines.map { $0["line"] as? Int } == [2])
        #expect(lines.map { $0["code"] as? String } == ["noCapacity"])
        #expect(try await sandbox.state() == before)

        // With --waitlist the full day waits and the others are booked.
        let waiting = await sandbox.resv(
            "reserve", "-l", "mount rainier", "-d", "2030-06-01 09:00", "-n", "30", "--every", "day", "--count", "3",
            "--waitlist", "--json")
        #expect(waiting.status == 0, "\(waiting.stderr)")
        #expect(try Self.array(waiting).map { $0["status"] as? String } == ["confirmed", "waitlisted", "confirmed"])
        #expect(waiting.stderr.contains("1 of them waitlisted"), "\(waiting.stderr)")
    }

    @Test func aSecondSeriesOnFullDaysIsRefusedWhole() async throws {
        // 70 and then 60 of Mount Rainier's 120 on the same two days: every visit of the second is refused.
        let sandbox = try Sandbox()
        let first = await sandbox.resv(
            "reserve", "-l", "mount rainier", "-d", "2030-06-01 09:00", "-n", "70", "--every", "week", "--count", "2")
        #expect(first.status == 0, "\(first.stderr)")
        let second = await sandbox.resv(
            "reserve", "-l", "mount rainier", "-d", "2030-06-01 11:00", "-n", "60", "--every", "week", "--count", "2")
        #expect(second.status == 1, "\(second.stderr)")
        #expect(second.stderr.contains("visit 1:") && second.stderr.contains("visit 2:"), "\(second.stderr)")
    }

    @Test(arguments: Backend.allCases)
    func untilTakesEveryVisitUpToItsDayAtTheLandmark(backend: Backend) async throws {
        let sandbox = try Sandbox(backend)
        let run = await sandbox.resv(
            "reserve", "-l", "half dome", "-d", "2030-06-01 20:00", "-n", "1", "--every", "day", "--until",
            "2030-06-03",
            "--json")
        #expect(run.status == 0, "\(run.stderr)")
        // 20:00 in Yosemite is 03:00Z the next day: the days counted are the landmark's.
        #expect(
            try Self.array(run).map { $0["date"] as? String } == [
                "2030-06-02T03:00:00Z", "2030-06-03T03:00:00Z", "2030-06-04T03:00:00Z",
            ])
        let monthly = await sandbox.resv(
            "reserve", "-l", "half dome", "-d", "2030-01-31 10:00", "-n", "1", "--every", "month", "--until",
            "2030-05-31",
            "--json")
        #expect(
            try Self.array(monthly).map { $0["date"] as? String } == [
                "2030-01-31T18:00:00Z", "2030-03-31T17:00:00Z", "2030-05-31T17:00:00Z",
            ])
    }

    @Test func aSeriesThroughTheSkippedHourIsRefused() async throws {
        let sandbox = try Sandbox()
        let run = await sandbox.resv(
            "reserve", "-l", "half dome", "-d", "2030-03-03 02:30", "-n", "1", "--every", "week", "--count", "2")
        run.expectUsageError(containing: "'2030-03-10 02:30'", "a visit in the hour the clocks skip")
        #expect(run.stderr.contains("does not exist in America/Los_Angeles"), "\(run.stderr)")
        #expect(try await Self.listed(sandbox).isEmpty)
    }

    @Test(arguments: [
        (["--every", "week"], "--every needs --count N or --until DAY"),
        (["--every", "week", "--count", "2", "--until", "2030-12-01"], "--every needs --count N or --until DAY"),
        (["--count", "3"], "--count is for a series: give --every too"),
        (["--until", "2030-12-01"], "--until is for a series: give --every too"),
        (["--every", "fortnight", "--count", "2"], "fortnight"),
        (["--every", "week", "--count", "0"], "--count must be from 1 to 1000, not 0"),
        (["--every", "week", "--count", "1001"], "--count must be from 1 to 1000, not 1001"),
        (["--every", "day", "--until", "someday"], "--until takes a day"),
        (["--every", "day", "--until", "2030-05-01"], "is before the first visit, on 2030-06-01"),
        (["--every", "day", "--until", "2033-06-01"], "a series books at most 1000 visits"),
        (["--every", "week", "--count", "2", "--queue"], "--queue keeps single bookings: leave out --every"),
    ])
    func aSeriesAskedWronglyIs64(arguments: [String], message: String) async throws {
        let sandbox = try Sandbox()
        let run = await sandbox.resv(
            ["reserve", "-l", "half dome", "-d", "2030-06-01 10:00", "-n", "2"] + arguments)
        run.expectUsageError(containing: message, arguments.joined(separator: " "))
        #expect(try await Self.listed(sandbox).isEmpty)
    }

    @Test func aSeriesIsNotABatch() async throws {
        let sandbox = try Sandbox()
        let path = try sandbox.file("lines.ndjson", "")
        let run = await sandbox.resv("reserve", "--batch", path, "--every", "week", "--count", "2")
        #expect(run.status == 64)
        #expect(run.stderr.contains("leave out --every"), "\(run.stderr)")
    }

    @Test(arguments: Backend.allCases)
    func cancelSeriesCancelsTheVisitsAheadAndLeavesThoseThatPassed(backend: Backend) async throws {
        let clock = TestClock(Sandbox.defaultNow)
        let sandbox = try Sandbox(backend, clock: clock)
        let made = try Self.array(
            await sandbox.resv(
                "reserve", "-l", "half dome", "-d", "2029-06-02 10:00", "-n", "2", "--every", "day", "--count", "4",
                "--json"))
        let ids = made.compactMap { $0["id"] as? String }
        let series = try #require(made.first?["series"] as? String)
        #expect(await sandbox.resv("cancel", String(ids[2].prefix(8))).status == 0)
        // The first visit passes.
        clock.set(try DateTime.parse("2029-06-02T18:00:00Z"))
        let run = await sandbox.resv("cancel", "--series", String(series.prefix(6)))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").count == 2, "\(run.stdout)")
        #expect(run.stdout.contains(ids[1].prefix(8)) && run.stdout.contains(ids[3].prefix(8)), "\(run.stdout)")
        #expect(
            run.stderr.contains("Cancelled 2 of series \(series.prefix(8))'s 4 visits; 2 had passed or were cancelled"),
            "\(run.stderr)")
        #expect(try await Self.statuses(sandbox) == ["confirmed", "cancelled", "cancelled", "cancelled"])

        let again = await sandbox.resv("cancel", "--series", series, "--json")
        #expect(again.status == 0)
        #expect(again.stdout == "[]\n", "\(again.stdout)")
        #expect(again.stderr.contains("has no visits ahead to cancel (4 in all): nothing changed"), "\(again.stderr)")
    }

    @Test func cancelSeriesNamesWhatItCannotFind() async throws {
        let first = "abcd0000-0000-4000-8000-000000000001"
        let second = "abcd1111-0000-4000-8000-000000000002"
        let seed = """
            {"version": 1, "reservations": [
              {"id": "\(UUID())", "landmarkId": "\(Fixture.halfDome)", "date": "2030-06-01T16:00:00Z", "partySize": 1, "status": "confirmed", "series": "\(first)"},
              {"id": "\(UUID())", "landmarkId": "\(Fixture.halfDome)", "date": "2030-06-02T16:00:00Z", "partySize": 1, "status": "confirmed", "series": "\(second)"},
              {"id": "\(UUID())", "landmarkId": "\(Fixture.halfDome)", "date": "2030-06-03T16:00:00Z", "partySize": 1, "status": "confirmed", "series": "not a uuid"}
            ]}
            """
        for backend in Backend.allCases {
            let sandbox = try Sandbox(backend, seed: seed)
            let ambiguous = await sandbox.resv("cancel", "--series", "abcd")
            #expect(ambiguous.status == 1, "\(ambiguous.stderr)")
            #expect(ambiguous.stderr.contains("'abcd' matches 2 series: abcd0000, abcd1111"), "\(ambiguous.stderr)")
            let unknown = await sandbox.resv("cancel", "--series", "dcba")
            #expect(unknown.status == 1)
            #expect(unknown.stderr.contains("no reservation is in a series matching 'dcba'"), "\(unknown.stderr)")
            // The seeded record whose series is no UUID is reported on the way (it does not map).
            let invalid = await sandbox.resv("cancel", "--series", "12")
            #expect(invalid.status == 64)
            #expect(invalid.stderr.contains("resv: '12' is not a series id"), "\(invalid.stderr)")
            #expect(invalid.stderr.contains("1 invalid series"), "\(invalid.stderr)")
            let both = await sandbox.resv("cancel", "abcd", "--series", "abcd")
            both.expectUsageError(containing: "give reservation ids or --series, not both", "\(backend): both")
            let neither = await sandbox.resv("cancel")
            neither.expectUsageError(containing: "missing reservation ids (or --series ID)", "\(backend): neither")
            #expect(try await Self.statuses(sandbox) == ["confirmed", "confirmed"])
            #expect(await sandbox.resv("cancel", "--series", "abcd0").status == 0)
            // The record whose series is no UUID does not map: it is reported, never changed.
            #expect(try await Self.statuses(sandbox) == ["cancelled", "confirmed"])
        }
    }

    /// Issue 60: `list` marks a series' visits (a SERIES column, only when one is listed; JSON's
    /// `series` as before), and `cancel --series` takes the id (or a prefix) of any of its visits.
    @Test(arguments: Backend.allCases)
    func aSeriesIsInSightAndAnyVisitNamesIt(backend: Backend) async throws {
        let sandbox = try Sandbox(backend, clock: TestClock(Sandbox.defaultNow))
        let lone = try Self.object(
            await sandbox.resv("reserve", "-l", "half dome", "-d", "2029-06-01 09:00", "-n", "1", "--json").stdout)
        let loneID = try #require(lone["id"] as? String)
        let before = await sandbox.resv("list")
        #expect(before.stdout.hasPrefix("ID ") && !before.stdout.contains("SERIES"), "\(before.stdout)")
        let made = try Self.array(
            await sandbox.resv(
                "reserve", "-l", "half dome", "-d", "2029-06-02 10:00", "-n", "2", "--every", "week", "--count", "3",
                "--json"))
        let ids = made.compactMap { $0["id"] as? String }
        let series = try #require(made.first?["series"] as? String)
        let table = await sandbox.resv("list")
        let lines = table.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.contains(/STATUS +SERIES$/) == true, "\(table.stdout)")
        for id in ids {
            let row = lines.first { $0.hasPrefix(id.prefix(8)) }
            #expect(row?.hasSuffix(series.prefix(8)) == true, "\(table.stdout)")
        }
        #expect(lines.first { $0.hasPrefix(loneID.prefix(8)) }?.hasSuffix(" -") == true, "\(table.stdout)")
        let json = try Self.array(await sandbox.resv("list", "--json"))
        #expect(json.map { $0["series"] as? String } == [nil, series, series, series])

        let run = await sandbox.resv("cancel", "--series", String(ids[1].prefix(6)))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("Cancelled 3 of series \(series.prefix(8))'s 3 visits"), "\(run.stderr)")
        #expect(try await Self.statuses(sandbox) == ["confirmed", "cancelled", "cancelled", "cancelled"])
        let alone = await sandbox.resv("cancel", "--series", String(loneID.prefix(8)))
        alone.expectUsageError(
            containing: "reservation \(loneID.prefix(8)) is in no series: cancel it alone with "
                + "'resv cancel \(loneID.prefix(8))'", "\(backend): in no series")
        #expect(try await Self.statuses(sandbox) == ["confirmed", "cancelled", "cancelled", "cancelled"])
    }

    /// A prefix that is one series' id and a visit's id of another names two series: refused.
    @Test func aPrefixOfASeriesAndOfAnotherSeriesVisitIsAmbiguous() async throws {
        let first = "abcd0000-0000-4000-8000-000000000001"
        let second = "eeee0000-0000-4000-8000-000000000002"
        let visit = "abcd0000-0000-4000-8000-0000000000ff"
        let seed = """
            {"version": 1, "reservations": [
              {"id": "\(UUID())", "landmarkId": "\(Fixture.halfDome)", "date": "2030-06-01T16:00:00Z", "partySize": 1, "status": "confirmed", "series": "\(first)"},
              {"id": "\(visit)", "landmarkId": "\(Fixture.halfDome)", "date": "2030-06-02T16:00:00Z", "partySize": 1, "status": "confirmed", "series": "\(second)"}
            ]}
            """
        for backend in Backend.allCases {
            let sandbox = try Sandbox(backend, seed: seed)
            let ambiguous = await sandbox.resv("cancel", "--series", "abcd0000")
            #expect(ambiguous.status == 1, "\(ambiguous.stderr)")
            #expect(ambiguous.stderr.contains("'abcd0000' matches 2 series: abcd0000, eeee0000"), "\(ambiguous.stderr)")
            #expect(try await Self.statuses(sandbox) == ["confirmed", "confirmed"])
            #expect(await sandbox.resv("cancel", "--series", visit).status == 0)
            #expect(try await Self.statuses(sandbox) == ["confirmed", "cancelled"])
        }
    }
}
