import Foundation
import ReservationCore
import ResvTestKit
import Testing

/// `resv import FILE`: resv's own exports come back exactly, other calendars' events by
/// their words; ended events are skipped and counted, those already there skipped, the
/// rest one batch, all or nothing. Each mapping rule is a case of its own.
@Suite("Import", .timeLimit(.minutes(30)))
struct ImportTests {
    static let halfDome = "937fea60-bb7b-4ee8-85da-c79962987917"

    /// A calendar of these events, each its content lines, CRLF as RFC 5545 writes.
    static func calendar(_ events: [[String]]) -> String {
        (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN"]
            + events.flatMap { ["BEGIN:VEVENT"] + $0 + ["END:VEVENT"] } + ["END:VCALENDAR"])
            .joined(separator: "\r\n") + "\r\n"
    }

    /// The user's reservations (`list --all --json`) without what a new booking makes anew.
    static func booked(_ sandbox: Sandbox) async throws -> [[String: String]] {
        let run = await sandbox.resv("list", "--all", "--json")
        #expect(run.status == 0, "\(run.stderr)")
        let items = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        return items.map { item in
            var kept: [String: String] = [:]
            for key in ["id", "date", "partySize", "status", "note", "series"] { kept[key] = item[key].map { "\($0)" } }
            kept["landmark"] = (item["landmark"] as? [String: Any])?["name"] as? String
            return kept
        }
    }

    /// Imports `text` as a file of that name; the run.
    static func importing(_ text: String, as name: String = "in.ics", into sandbox: Sandbox, _ more: String...)
        async throws -> Run
    {
        await sandbox.resv(["import", try sandbox.file(name, text)] + more)
    }

    // MARK: resv's own exports

    @Test(arguments: Backend.allCases, ["ics", "csv"])
    func anExportComesBackExactlyAndTwiceAddsNothing(_ backend: Backend, format: String) async throws {
        let source = try Sandbox(backend)
        let note = "gate 3; bring, ID\\ \"tickets\"\nline two\r\nbell \u{7} é"
        for line in [
            ["reserve", "-l", "half dome", "-d", "2031-07-01 08:00", "-n", "4", "--note", note],
            ["reserve", "-l", "golden gate", "-d", "2031-07-02T17:00:00Z", "-n", "2", "--pending"],
            ["reserve", "-l", "crater lake", "-d", "2031-07-03 10:00", "-n", "1", "--note", "=1+1, \"quoted\""],
            ["reserve", "-l", "lake tahoe", "-d", "2031-07-04 10:00", "-n", "3"],
            ["reserve", "-l", "mount rainier", "-d", "2031-07-05 10:00", "-n", "2", "--every", "week", "--count", "2"],
        ] {
            #expect(await source.resv(line).status == 0)
        }
        let tahoe = try #require(try await Self.booked(source).first { $0["landmark"] == "Lake Tahoe" }?["id"])
        #expect(await source.resv("cancel", tahoe).status == 0)
        let export = await source.resv("list", "--all", "--format", format)
        #expect(export.status == 0)

        let target = try Sandbox(backend)
        let first = try await Self.importing(export.stdout, as: "export.\(format)", into: target)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderrLines == ["Imported 5 events; skipped 0 already there, 1 ended (1 cancelled, 0 past)."])
        let original = try await Self.booked(source).filter { $0["status"] != "cancelled" }
        #expect(try await Self.booked(target) == original)
        #expect(original.contains { $0["note"] == note })
        #expect(original.count { $0["series"] != nil } == 2, "a series comes back as one")

        let before = try await target.state()
        let second = try await Self.importing(export.stdout, as: "export.\(format)", into: target)
        #expect(second.status == 0)
        #expect(second.stderrLines == ["Imported 0 events; skipped 5 already there, 1 ended (1 cancelled, 0 past)."])
        #expect(try await target.state() == before)
    }

    /// A cancelled visit never comes back as an appointment, and a second import never doubles:
    /// what README.md tells of calcurse, which does both (7 appointments become 14).
    @Test func cancelledVisitsStaySkippedAndASecondImportDoublesNothing() async throws {
        let events = (1...7).map { day in
            [
                "UID:visit-\(day)@example.org", "DTSTART:2031070\(day)T100000Z",
                "SUMMARY:Half Dome", day <= 3 ? "STATUS:CANCELLED" : "STATUS:CONFIRMED",
            ]
        }
        let sandbox = try Sandbox()
        let text = Self.calendar(events)
        let first = try await Self.importing(text, into: sandbox)
        #expect(first.stderrLines == ["Imported 4 events; skipped 0 already there, 3 ended (3 cancelled, 0 past)."])
        let second = try await Self.importing(text, into: sandbox)
        #expect(second.stderrLines == ["Imported 0 events; skipped 4 already there, 3 ended (3 cancelled, 0 past)."])
        #expect(try await Self.booked(sandbox).count == 4)
    }

    // MARK: UIDs

    @Test func anEventTwiceInTheFileIsOneVisit() async throws {
        let sandbox = try Sandbox()
        let event = ["UID:twice@example.org", "DTSTART:20310701T100000Z", "SUMMARY:Half Dome"]
        let run = try await Self.importing(Self.calendar([event, event]), into: sandbox, "--verbose")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stderrLines == [
                "Skipped event 'twice@example.org' (line 9): the same event as line 4.",
                "Imported 1 event; skipped 1 already there, 0 ended (0 cancelled, 0 past).",
            ])
        #expect(try await Self.booked(sandbox).count == 1)
    }

    @Test func aResvUIDIsThatIdAndAnotherUIDAStableNameBasedOne() async throws {
        let own = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
        let text = Self.calendar([
            ["UID:\(own)@resv", "DTSTART:20310701T100000Z", "SUMMARY:Half Dome\\, party of 2"],
            ["UID:abc-123@google.com", "DTSTART:20310702T100000Z", "SUMMARY:Half Dome"],
            [
                "UID:abc-123@google.com", "RECURRENCE-ID:20310709T100000Z", "DTSTART:20310709T110000Z",
                "SUMMARY:Half Dome",
            ],
        ])
        let ids = try await [Sandbox(), Sandbox()].asyncMap { sandbox in
            #expect(try await Self.importing(text, into: sandbox).status == 0)
            return try await Self.booked(sandbox).map { $0["id"] ?? "" }
        }
        let named = NameBasedID.uuid("\nabc-123@google.com").uuidString.lowercased()
        let instance = NameBasedID.uuid("\nabc-123@google.com\n20310709T100000Z").uuidString.lowercased()
        #expect(ids[0] == [own, named, instance])
        #expect(ids[1] == ids[0], "the same file gives the same ids everywhere")
    }

    @Test func nameBasedIDsAreVersion5() {
        // RFC 9562's example: "www.example.com" in the DNS namespace.
        let dns = UUID(uuidString: "6ba7b810-9dad-11d1-80b4-00c04fd430c8")!
        #expect(
            NameBasedID.uuid("www.example.com", in: dns).uuidString.lowercased()
                == "2ed6657d-e927-568b-95e1-2665a8aea6a2")
    }

    // MARK: Starts

    @Test func aStartInUTCInATZIDZoneOrFloatingAtTheLandmark() async throws {
        let sandbox = try Sandbox()
        let text = Self.calendar([
            ["UID:z", "DTSTART:20310701T100000Z", "SUMMARY:Half Dome"],
            ["UID:paris", "DTSTART;TZID=Europe/Paris:20310702T100000", "SUMMARY:Half Dome"],
            ["UID:slash", "DTSTART;TZID=\"/America/New_York\":20310703T100000", "SUMMARY:Half Dome"],
            ["UID:floating", "DTSTART:20310704T100000", "SUMMARY:Half Dome"],
            ["UID:brooklyn", "DTSTART:20310705T100000", "LOCATION:Brooklyn Bridge"],
        ])
        let run = try await Self.importing(text, into: sandbox)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            try await Self.booked(sandbox).map { $0["date"] ?? "" } == [
                "2031-07-01T10:00:00Z", "2031-07-02T08:00:00Z", "2031-07-03T14:00:00Z",
                "2031-07-04T17:00:00Z",  // 10:00 at Half Dome, PDT
                "2031-07-05T14:00:00Z",  // 10:00 at Brooklyn Bridge, EDT
            ])
    }

    @Test(arguments: [
        ("DTSTART;VALUE=DATE:20310701", "is a day without a time (an all-day event)"),
        ("DTSTART:20310701", "is a day without a time (an all-day event)"),
        ("DTSTART;TZID=Mars/Olympus:20310701T100000", "TZID 'Mars/Olympus' is not a time zone resv knows"),
        ("DTSTART:20310230T100000Z", "2031-02-30"),
        ("DTSTART:tomorrow", "is not a date-time (20261201T100000Z)"),
        ("SEQUENCE:0", "DTSTART is missing"),
    ])
    func aStartThatIsNoVisitIsRefusedByName(_ start: String, _ message: String) async throws {
        let sandbox = try Sandbox()
        let before = try await sandbox.state()
        let text = Self.calendar([
            ["UID:good", "DTSTART:20310701T100000Z", "SUMMARY:Half Dome"],
            ["UID:bad@example.org", start, "SUMMARY:Half Dome"],
        ])
        let run = try await Self.importing(text, into: sandbox, "--strict")
        #expect(run.status == 64, "\(start): \(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderrLines.count == 2, "\(run.stderr)")
        #expect(run.stderrLines.first?.hasPrefix("resv: line 9: event 'bad@example.org': ") == true, "\(run.stderr)")
        #expect(run.stderr.contains(message), "\(start): \(run.stderr)")
        #expect(try await sandbox.state() == before)
    }

    @Test func aRecurringEventBeyondEveryIsRefusedWithStrictUnlessCancelled() async throws {
        let sandbox = try Sandbox()
        let text = Self.calendar([
            ["UID:weekly", "DTSTART:20310701T100000Z", "RRULE:FREQ=WEEKLY", "SUMMARY:Half Dome"],
            ["UID:gone", "DTSTART:20310701T100000Z", "RRULE:FREQ=WEEKLY", "SUMMARY:Half Dome", "STATUS:CANCELLED"],
        ])
        let run = try await Self.importing(text, into: sandbox, "--strict")
        #expect(run.status == 64)
        #expect(run.stderr.contains("event 'weekly': RRULE never ends (no COUNT or UNTIL)"), "\(run.stderr)")
        #expect(!run.stderr.contains("'gone'"))
    }

    // MARK: Lines and TEXT

    @Test func foldedLinesAndEscapedTextAreReadBack() async throws {
        let sandbox = try Sandbox()
        // Folded after "…Dom", inside "é" (its two bytes split by the fold), and with a tab.
        var bytes = Data(
            "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:folded\r\nDTSTART:20310701T100000Z\r\nSUMMARY:Half Dom\r\n e\r\n"
                .utf8)
        bytes += Data("DESCRIPTION:a\\, b\\; c\\\\d\\nnext line\\Nand caf".utf8) + Data([0xC3])
        bytes += Data("\r\n\t".utf8) + Data([0xA9]) + Data(" end\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n".utf8)
        let path = sandbox.directory.appendingPathComponent("folded.ics")
        try bytes.write(to: path)
        let run = await sandbox.resv("import", path.path)
        #expect(run.status == 0, "\(run.stderr)")
        let booked = try await Self.booked(sandbox)
        #expect(booked.first?["landmark"] == "Half Dome")
        #expect(booked.first?["note"] == "a, b; c\\d\nnext line\nand café end")
    }

    // MARK: Landmarks, party, status

    @Test func theLandmarkIsFoundByLocationThenSummaryAndNoneIsRefused() async throws {
        let sandbox = try Sandbox()
        let found = Self.calendar([
            ["UID:loc", "DTSTART:20310701T100000Z", "LOCATION:Half Dome\\, Yosemite", "SUMMARY:Hike to Lake Tahoe"],
            ["UID:sum", "DTSTART:20310702T100000Z", "LOCATION:Pier 39", "SUMMARY:Walk the golden gate bridge"],
            ["UID:place", "DTSTART:20310703T100000Z", "LOCATION:Oregon", "SUMMARY:Day trip"],
            ["UID:party", "DTSTART:20310704T100000Z", "SUMMARY:Mount Rainier\\, party of 6", "STATUS:TENTATIVE"],
        ])
        let run = try await Self.importing(found, into: sandbox)
        #expect(run.status == 0, "\(run.stderr)")
        let booked = try await Self.booked(sandbox)
        #expect(
            booked.map { $0["landmark"] ?? "" } == ["Half Dome", "Golden Gate Bridge", "Crater Lake", "Mount Rainier"])
        #expect(booked.map { $0["partySize"] ?? "" } == ["1", "1", "1", "6"])
        #expect(booked.map { $0["status"] ?? "" } == ["confirmed", "confirmed", "confirmed", "pending"])

        let none = Self.calendar([
            ["UID:dinner", "DTSTART:20310705T100000Z", "LOCATION:Chez Panisse", "SUMMARY:Dinner"],
            ["UID:yosemite", "DTSTART:20310706T100000Z", "LOCATION:Yosemite\\, CA", "SUMMARY:Trip"],
        ])
        let refused = try await Self.importing(none, into: sandbox, "--strict")
        #expect(refused.status == 64)
        let named =
            "resv: line 4: event 'dinner': LOCATION 'Chez Panisse' and SUMMARY 'Dinner' name no landmark "
            + "(see 'resv landmarks'): put its name in LOCATION"
        #expect(refused.stderrLines.first == named[...])
        #expect(refused.stderr.contains("event 'yosemite': 'Yosemite, CA' matches 2 landmarks"))
        #expect(try await Self.booked(sandbox).count == 4)
    }

    @Test func endedEventsAreSkippedCountedAndNamedWithVerbose() async throws {
        let sandbox = try Sandbox()
        let text = Self.calendar([
            ["UID:ahead", "DTSTART:20310701T100000Z", "SUMMARY:Half Dome"],
            ["UID:cancelled", "DTSTART:20310702T100000Z", "SUMMARY:Half Dome", "STATUS:CANCELLED"],
            ["UID:past", "DTSTART:20210702T100000Z", "SUMMARY:Half Dome"],
            ["UID:past-nowhere", "DTSTART:20210702T100000", "SUMMARY:Somewhere unknown"],
            ["UID:expired@x", "DTSTART:20310703T100000Z", "SUMMARY:Half Dome", "X-RESV-STATUS:expired"],
        ])
        let run = try await Self.importing(text, into: sandbox, "--verbose")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stderrLines == [
                "Skipped event 'cancelled' (line 9): has ended: it is cancelled.",
                "Skipped event 'past' (line 15): has ended: its date has passed.",
                "Skipped event 'past-nowhere' (line 20): has ended: its date has passed.",
                "Skipped event 'expired@x' (line 25): has ended: it is cancelled.",
                "Imported 1 event; skipped 0 already there, 4 ended (2 cancelled, 2 past).",
            ])
        #expect(run.stdout.contains("Half Dome"))
        #expect(try await Self.booked(sandbox).count == 1)
    }

    // MARK: All or nothing, dry run

    @Test(arguments: Backend.allCases)
    func aFullDayRefusesTheWholeFileWithStrict(_ backend: Backend) async throws {
        let sandbox = try Sandbox(backend)
        let before = try await sandbox.state()
        let text = Self.calendar([
            ["UID:a", "DTSTART:20310701T170000Z", "SUMMARY:Golden Gate Bridge"],
            ["UID:b", "DTSTART:20310701T170000Z", "SUMMARY:Half Dome\\, party of 299"],
            ["UID:c", "DTSTART:20310701T180000Z", "SUMMARY:Half Dome\\, party of 2"],
        ])
        let run = try await Self.importing(text, into: sandbox, "--strict")
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderrLines.first?.hasPrefix("resv: line 14: event 'c': Half Dome is full on 2031-07-01") == true)
        #expect(run.stderrLines.last == "resv: 1 of 3 requests were refused: nothing was reserved")
        #expect(try await sandbox.state() == before)
    }

    @Test(arguments: Backend.allCases)
    func aDryRunPrintsWhatWouldBeBookedAndChangesNothing(_ backend: Backend) async throws {
        let sandbox = try Sandbox(backend)
        let before = try await sandbox.state()
        let text = Self.calendar([
            ["UID:a", "DTSTART:20310701T170000Z", "SUMMARY:Golden Gate Bridge"],
            ["UID:b", "DTSTART:20310701T170000Z", "SUMMARY:Half Dome", "STATUS:CANCELLED"],
        ])
        let run = try await Self.importing(text, into: sandbox, "--dry-run", "--json")
        #expect(run.status == 0, "\(run.stderr)")
        let made = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        #expect(made.count == 1)
        #expect(made.first?["id"] as? String == NameBasedID.uuid("\na").uuidString.lowercased())
        #expect(
            run.stderrLines == [
                "Dry run, nothing changed: would import 1 event; skipped 0 already there, 1 ended (1 cancelled, 0 past)."
            ])
        #expect(try await sandbox.state() == before)
    }

    // MARK: What cannot be booked: skipped, counted by reason

    /// A real calendar: each event that cannot be booked is named and counted by its reason,
    /// the rest booked, exit 1; the dry run says and exits the same, changing nothing; --strict
    /// books nothing.
    @Test(arguments: Backend.allCases)
    func whatCannotBeBookedIsSkippedCountedByReasonAndTheRestBooked(_ backend: Backend) async throws {
        let sandbox = try Sandbox(backend)
        let before = try await sandbox.state()
        let text = Self.calendar([
            ["UID:good", "DTSTART:20310701T170000Z", "SUMMARY:Half Dome\\, party of 299"],
            ["UID:allday", "DTSTART;VALUE=DATE:20310702", "SUMMARY:Half Dome"],
            ["UID:yearly", "DTSTART:20310703T100000Z", "RRULE:FREQ=YEARLY;COUNT=2", "SUMMARY:Half Dome"],
            ["UID:nowhere", "DTSTART:20310704T100000Z", "SUMMARY:Dinner", "LOCATION:Chez Panisse"],
            ["UID:twice", "DTSTART:20310705T100000Z", "DTSTART:20310706T100000Z", "SUMMARY:Half Dome"],
            ["UID:huge", "DTSTART:20310707T100000Z", "SUMMARY:Half Dome\\, party of 99999999999999999999999"],
            ["UID:negative", "DTSTART:20310708T100000Z", "SUMMARY:Half Dome\\, party of -3"],
            ["UID:full", "DTSTART:20310701T180000Z", "SUMMARY:Half Dome\\, party of 2"],
            ["UID:second", "DTSTART:20310709T100000Z", "SUMMARY:Golden Gate Bridge"],
        ])
        let summary =
            "skipped 0 already there, 0 ended (0 cancelled, 0 past), 7 not booked (1 all-day, 1 repeating beyond "
            + "--every, 1 landmark not found, 1 two DTSTARTs, 2 party out of range, 1 refused)."
        let named = [
            "Not booked: event 'allday' (line 9): DTSTART '20310702' is a day without a time (an all-day event)",
            "Not booked: event 'yearly' (line 14): RRULE FREQ=YEARLY repeats otherwise: resv books FREQ=DAILY",
            "Not booked: event 'nowhere' (line 20): LOCATION 'Chez Panisse' and SUMMARY 'Dinner' name no landmark",
            "Not booked: event 'twice' (line 26): DTSTART is given 2 times",
            "Not booked: event 'huge' (line 32): SUMMARY's party '99999999999999999999999' is not a party size",
            "Not booked: event 'negative' (line 37): SUMMARY's party '-3' is not a party size",
            "Not booked: event 'full' (line 42): Half Dome is full on 2031-07-01",
        ]
        let dry = try await Self.importing(text, into: sandbox, "--dry-run")
        #expect(dry.status == 1, "\(dry.stderr)")
        #expect(dry.stderrLines.count == 9, "\(dry.stderr)")
        for (line, start) in zip(dry.stderrLines, named) { #expect(line.hasPrefix(start), "\(line)") }
        #expect(
            dry.stderrLines.dropLast().last.map(String.init) == "Dry run, nothing changed: would import 2 events; "
                + summary
        )
        #expect(
            dry.stderrLines.last
                == "resv: 7 events would not be booked (named above), the rest would be: --strict imports all or nothing"
        )
        #expect(try await sandbox.state() == before)

        let strict = try await Self.importing(text, into: sandbox, "--strict")
        #expect(strict.status == 64, "\(strict.stderr)")
        #expect(try await sandbox.state() == before)

        let run = try await Self.importing(text, into: sandbox)
        #expect(run.status == 1, "\(run.stderr)")
        for (line, start) in zip(run.stderrLines, named) { #expect(line.hasPrefix(start), "\(line)") }
        #expect(run.stderrLines.dropLast().last.map(String.init) == "Imported 2 events; " + summary)
        #expect(
            run.stderrLines.last
                == "resv: 7 events were not booked (named above), the rest were: --strict imports all or nothing")
        let booked = try await Self.booked(sandbox)
        #expect(booked.map { $0["partySize"] ?? "" } == ["299", "1"], "never a party of 1 for a party out of range")
        #expect(booked.map { $0["landmark"] ?? "" } == ["Half Dome", "Golden Gate Bridge"])

        let again = try await Self.importing(text, into: sandbox)
        #expect(again.status == 1)
        #expect(again.stderrLines.dropLast().last?.hasPrefix("Imported 0 events; skipped 2 already there") == true)
        #expect(try await Self.booked(sandbox).count == 2)
    }

    /// Without --verbose at most ten events not booked are named, then how many more.
    @Test func manyEventsNotBookedAreNamedUpToTen() async throws {
        let sandbox = try Sandbox()
        let text = Self.calendar(
            (1...25).map { ["UID:d\($0)", "DTSTART;VALUE=DATE:20310701", "SUMMARY:Half Dome"] })
        let run = try await Self.importing(text, into: sandbox)
        #expect(run.status == 1)
        #expect(run.stderrLines.count == 13, "\(run.stderr)")
        #expect(run.stderrLines[10] == "… and 15 more not booked (--verbose names each).")
        #expect(run.stderrLines[11].hasSuffix("25 not booked (25 all-day)."))
        let verbose = try await Self.importing(text, into: sandbox, "--verbose")
        #expect(verbose.stderrLines.count == 27, "\(verbose.stderr)")
    }

    @Test(arguments: [
        ("SUMMARY:Half Dome\\, party of 0", "SUMMARY's party '0' is not a party size: a party is 1 to 10000"),
        ("SUMMARY:Half Dome\\, party of 10001", "SUMMARY's party '10001' is not a party size"),
        ("SUMMARY:Half Dome\\, party of +-5", "SUMMARY's party '+-5' is not a number"),
        ("X-RESV-PARTY-SIZE:-3", "X-RESV-PARTY-SIZE '-3' is not a party size"),
        ("X-RESV-PARTY-SIZE:lots", "X-RESV-PARTY-SIZE 'lots' is not a number"),
    ])
    func aPartyOutOfRangeIsNeverAPartyOfOne(_ line: String, _ message: String) async throws {
        let sandbox = try Sandbox()
        // The SUMMARY cases are the event's one SUMMARY (a second one is not read).
        let summary = line.hasPrefix("SUMMARY:") ? [] : ["SUMMARY:Half Dome"]
        let text = Self.calendar([["UID:p", "DTSTART:20310701T100000Z", line] + summary])
        let run = try await Self.importing(text, into: sandbox)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(try await Self.booked(sandbox).isEmpty)
    }

    @Test func aCSVPartyOutOfRangeIsCountedAsSuch() async throws {
        let sandbox = try Sandbox()
        let text =
            "date,landmark,partySize\r\n2031-07-01T10:00:00Z,Half Dome,-3\r\n2031-07-02T10:00:00Z,Half Dome,2\r\n"
        let run = try await Self.importing(text, as: "in.csv", into: sandbox)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("row 2 (line 2): partySize '-3' is not a party size"), "\(run.stderr)")
        #expect(run.stderr.contains("1 not booked (1 party out of range)"))
        #expect(try await Self.booked(sandbox).map { $0["partySize"] } == ["2"])
    }

    // MARK: RRULE as a series

    /// A weekly RRULE is one series at the landmark's wall time across its clock change, its
    /// EXDATE left out, each visit's id made of the UID and its start; twice adds nothing.
    @Test(arguments: Backend.allCases)
    func anRRULEThatEveryBooksIsOneSeries(_ backend: Backend) async throws {
        let sandbox = try Sandbox(backend)
        let text = Self.calendar([
            [
                "UID:weekly@x", "DTSTART:20311028T100000", "RRULE:FREQ=WEEKLY;COUNT=4;BYDAY=TU;WKST=MO",
                "EXDATE:20311111T100000", "SUMMARY:Half Dome\\, party of 2",
            ],
            [
                "UID:daily@x", "DTSTART:20310701T100000Z", "RRULE:FREQ=DAILY;UNTIL=20310703T100000Z",
                "SUMMARY:Half Dome",
            ],
            [
                "UID:short@x", "DTSTART:20310701T110000Z", "RRULE:FREQ=DAILY;UNTIL=20310703T105959Z",
                "SUMMARY:Crater Lake",
            ],
            [
                "UID:monthly@x", "DTSTART;TZID=Europe/Paris:20310131T100000",
                "RRULE:FREQ=MONTHLY;COUNT=3;BYMONTHDAY=31",
                "SUMMARY:Lake Tahoe",
            ],
        ])
        let run = try await Self.importing(text, into: sandbox)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderrLines == ["Imported 11 events; skipped 0 already there, 0 ended (0 cancelled, 0 past)."])
        let booked = try await Self.booked(sandbox)
        func visits(_ landmark: String) -> [[String: String]] { booked.filter { $0["landmark"] == landmark } }
        #expect(
            visits("Half Dome").map { $0["date"] ?? "" } == [
                "2031-07-01T10:00:00Z", "2031-07-02T10:00:00Z", "2031-07-03T10:00:00Z",
                "2031-10-28T17:00:00Z", "2031-11-04T18:00:00Z", "2031-11-18T18:00:00Z",  // 10:00 PDT, then PST
            ])
        #expect(visits("Crater Lake").map { $0["date"] ?? "" } == ["2031-07-01T11:00:00Z", "2031-07-02T11:00:00Z"])
        #expect(
            visits("Lake Tahoe").map { $0["date"] ?? "" } == [
                "2031-01-31T09:00:00Z", "2031-03-31T08:00:00Z", "2031-05-31T08:00:00Z",  // no February 31
            ])
        let weekly = booked.filter { $0["partySize"] == "2" }
        #expect(weekly.count == 3)
        #expect(Set(weekly.map { $0["series"] }) == [NameBasedID.uuid("\nweekly@x\nseries").uuidString.lowercased()])
        #expect(
            weekly.map { $0["id"] }
                == ["20311028T100000", "20311104T100000", "20311118T100000"].map {
                    NameBasedID.uuid("\nweekly@x\n" + $0).uuidString.lowercased()
                })
        #expect(Set(visits("Lake Tahoe").map { $0["series"] }).count == 1)
        #expect(!visits("Lake Tahoe").contains { $0["series"] == weekly[0]["series"] })

        let again = try await Self.importing(text, into: sandbox)
        #expect(again.stderrLines == ["Imported 0 events; skipped 11 already there, 0 ended (0 cancelled, 0 past)."])
    }

    @Test(arguments: [
        ("RRULE:FREQ=YEARLY;COUNT=2", "RRULE FREQ=YEARLY repeats otherwise"),
        ("RRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=2", "RRULE INTERVAL=2 skips periods"),
        ("RRULE:FREQ=WEEKLY;BYDAY=TU,TH;COUNT=4", "RRULE BYDAY=TU,TH is not one day of the week"),
        ("RRULE:FREQ=WEEKLY;BYDAY=WE;COUNT=4", "RRULE BYDAY=WE is not the first visit's day"),
        ("RRULE:FREQ=MONTHLY;BYSETPOS=-1;BYDAY=FR;COUNT=2", "RRULE BYDAY=FR picks days otherwise"),
        ("RRULE:FREQ=DAILY", "RRULE never ends (no COUNT or UNTIL)"),
        ("RRULE:FREQ=DAILY;COUNT=2;UNTIL=20310801T000000Z", "RRULE has both COUNT and UNTIL"),
        ("RRULE:FREQ=DAILY;COUNT=1001", "RRULE COUNT=1001 is more visits than a series books (at most 1000)"),
        ("RRULE:FREQ=DAILY;UNTIL=20360601T000000Z", "RRULE UNTIL=20360601T000000Z makes more visits than a series"),
        ("RRULE:FREQ=DAILY;UNTIL=20310601T000000Z", "RRULE UNTIL=20310601T000000Z is before DTSTART"),
        ("RDATE:20310801T100000Z", "RDATE adds visits or exceptions beyond a rule"),
        ("RRULE:FREQ=DAILY;COUNT=1\r\nEXDATE:20310701T100000Z", "EXDATE leaves out every visit"),
        ("RRULE:FREQ=DAILY;COUNT=2\r\nEXDATE:tomorrow", "EXDATE 'tomorrow' is not a date or a date-time"),
    ])
    func anRRULEBeyondEveryIsSkippedNamingWhy(_ rule: String, _ message: String) async throws {
        let sandbox = try Sandbox()
        let text = Self.calendar([
            ["UID:r", "DTSTART:20310701T100000Z", rule, "SUMMARY:Half Dome"],
            ["UID:single", "DTSTART:20310702T100000Z", "SUMMARY:Half Dome"],
        ])
        let run = try await Self.importing(text, into: sandbox)
        #expect(run.status == 1, "\(rule): \(run.stderr)")
        #expect(run.stderrLines.first?.hasPrefix("Not booked: event 'r' (line 4): ") == true, "\(run.stderr)")
        #expect(run.stderr.contains(message), "\(rule): \(run.stderr)")
        #expect(run.stderr.contains("1 not booked (1 repeating beyond --every)"), "\(run.stderr)")
        #expect(try await Self.booked(sandbox).count == 1)
    }

    /// A series whose visits the file changes one by one (RECURRENCE-ID) is not what its rule
    /// says: the rule is skipped, the changed visit booked as itself.
    @Test func aSeriesWithAChangedVisitIsSkippedAndTheChangedVisitBooked() async throws {
        let sandbox = try Sandbox()
        let text = Self.calendar([
            ["UID:s", "DTSTART:20310701T100000Z", "RRULE:FREQ=DAILY;COUNT=3", "SUMMARY:Half Dome"],
            ["UID:s", "RECURRENCE-ID:20310702T100000Z", "DTSTART:20310702T120000Z", "SUMMARY:Half Dome"],
        ])
        let run = try await Self.importing(text, into: sandbox)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("RECURRENCE-ID changes visits of this series one by one"), "\(run.stderr)")
        #expect(try await Self.booked(sandbox).map { $0["date"] } == ["2031-07-02T12:00:00Z"])
    }

    // MARK: Time zones: the file's own VTIMEZONE, Windows' names

    static let eastern = [
        "BEGIN:VTIMEZONE", "TZID:Eastern Standard Time", "BEGIN:STANDARD", "DTSTART:16011104T020000",
        "RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=11", "TZOFFSETFROM:-0400", "TZOFFSETTO:-0500", "END:STANDARD",
        "BEGIN:DAYLIGHT", "DTSTART:16010311T020000", "RRULE:FREQ=YEARLY;BYDAY=2SU;BYMONTH=3", "TZOFFSETFROM:-0500",
        "TZOFFSETTO:-0400", "END:DAYLIGHT", "END:VTIMEZONE",
    ]
    static let redefined = [
        "BEGIN:VTIMEZONE", "TZID:America/New_York", "BEGIN:STANDARD", "DTSTART:19700101T000000",
        "TZOFFSETFROM:+0100", "TZOFFSETTO:+0100", "END:STANDARD", "END:VTIMEZONE",
    ]
    static let listed = [
        "BEGIN:VTIMEZONE", "TZID:Listed", "BEGIN:DAYLIGHT", "DTSTART:20310330T020000", "RDATE:20310330T020000",
        "TZOFFSETFROM:+0100", "TZOFFSETTO:+0200", "END:DAYLIGHT", "END:VTIMEZONE",
    ]

    /// A calendar with these VTIMEZONEs before its events.
    static func calendar(zones: [[String]], _ events: [[String]]) -> String {
        let text = calendar(events)
        return text.replacingOccurrences(
            of: "PRODID:-//test//EN\r\n",
            with: "PRODID:-//test//EN\r\n" + zones.joined().joined(separator: "\r\n") + "\r\n")
    }

    /// Outlook's zone names are CLDR's IANA zones; a VTIMEZONE that redefines a zone's name is
    /// the file's (not 4 hours off); one that agrees with the zone of its name lets an RRULE
    /// be a series; one resv cannot read, or a series in a redefined zone, is skipped saying so.
    @Test func aFilesOwnTimeZonesAndWindowsNamesAreHonoured() async throws {
        let sandbox = try Sandbox()
        let text = Self.calendar(
            zones: [Self.eastern, Self.redefined, Self.listed],
            [
                ["UID:berlin", "DTSTART;TZID=W. Europe Standard Time:20310701T100000", "SUMMARY:Half Dome"],
                ["UID:own", "DTSTART;TZID=America/New_York:20310702T100000", "SUMMARY:Half Dome"],
                [
                    "UID:outlook", "DTSTART;TZID=Eastern Standard Time:20311028T100000", "RRULE:FREQ=WEEKLY;COUNT=2",
                    "SUMMARY:Half Dome",
                ],
                ["UID:listed", "DTSTART;TZID=Listed:20310704T100000", "SUMMARY:Half Dome"],
                [
                    "UID:own-series", "DTSTART;TZID=America/New_York:20310705T100000", "RRULE:FREQ=DAILY;COUNT=2",
                    "SUMMARY:Half Dome",
                ],
            ])
        let run = try await Self.importing(text, into: sandbox)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(
            run.stderr.contains(
                "event 'listed' (line 52): VTIMEZONE 'Listed' (line 27) lists its changes (RDATE), which resv does not read"
            ),
            "\(run.stderr)")
        #expect(run.stderr.contains("event 'own-series' (line 57): RRULE repeats in the file's own VTIMEZONE"))
        #expect(run.stderr.contains("2 not booked (1 repeating beyond --every, 1 time zone not read)"), "\(run.stderr)")
        #expect(
            try await Self.booked(sandbox).map { $0["date"] ?? "" } == [
                "2031-07-01T08:00:00Z",  // 10:00 in Berlin, CEST
                "2031-07-02T09:00:00Z",  // 10:00 at the file's UTC+1, not New York's 14:00Z
                "2031-10-28T14:00:00Z", "2031-11-04T15:00:00Z",  // 10:00 EDT, then EST
            ])
    }

    // MARK: --new-ids

    /// A teammate's export: with --new-ids every event is a new reservation of the importer,
    /// under ids made of theirs (a series stays one series, under a new id), so twice adds nothing.
    @Test func newIDsBookAnotherExportAsNewReservations() async throws {
        let source = try Sandbox()
        #expect(await source.resv("reserve", "-l", "half dome", "-d", "2031-07-01 08:00", "-n", "2").status == 0)
        #expect(
            await source.resv(
                "reserve", "-l", "crater lake", "-d", "2031-07-05 10:00", "-n", "1", "--every", "week", "--count", "2"
            ).status == 0)
        let original = try await Self.booked(source)
        for format in ["ics", "csv"] {
            let export = await source.resv("list", "--all", "--format", format)
            // Into the same store: without --new-ids they are there; with it, booked anew.
            let same = try await Self.importing(export.stdout, as: "e.\(format)", into: source)
            #expect(same.stderrLines.first?.hasPrefix("Imported 0 events; skipped 3 already there") == true)
            let target = try Sandbox()
            let run = try await Self.importing(export.stdout, as: "e.\(format)", into: target, "--new-ids")
            #expect(run.status == 0, "\(run.stderr)")
            let booked = try await Self.booked(target)
            #expect(booked.count == 3)
            #expect(Set(booked.compactMap { $0["id"] }).isDisjoint(with: original.compactMap { $0["id"] }))
            #expect(booked.map { $0["date"] } == original.map { $0["date"] })
            let series = Set(booked.compactMap { $0["series"] })
            #expect(series.count == 1 && series != Set(original.compactMap { $0["series"] }))
            let again = try await Self.importing(export.stdout, as: "e.\(format)", into: target, "--new-ids")
            #expect(again.stderrLines.first?.hasPrefix("Imported 0 events; skipped 3 already there") == true)
        }
    }

    // MARK: CSV

    @Test func csvQuotesNotesWithLineBreaksAndUnknownColumnsAreRead() async throws {
        let sandbox = try Sandbox()
        let id = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
        let series = "5b1c8a43-2f6e-4d0b-9a7e-3c2d1e0f9a8b"
        let text =
            "series,note,landmark,date,partySize,status,id,extra\r\n"
            + "\(series),\"a, \"\"quoted\"\"\r\nnote\",Half Dome,2031-07-01T17:00:00Z,3,pending,\(id),x\r\n"
            + ",,golden gate,2031-07-02 09:00,,,,\n"
            + "\r\n"
            + ",,Crater Lake,2031-07-03T10:00:00Z,1,cancelled,,\r\n"
        let run = try await Self.importing(text, as: "in.csv", into: sandbox)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderrLines == ["Imported 2 events; skipped 0 already there, 1 ended (1 cancelled, 0 past)."])
        let booked = try await Self.booked(sandbox)
        #expect(booked.count == 2)
        #expect(
            booked.first == [
                "id": id, "date": "2031-07-01T17:00:00Z", "partySize": "3", "status": "pending",
                "note": "a, \"quoted\"\r\nnote", "landmark": "Half Dome", "series": series,
            ])
        #expect(booked.last?["date"] == "2031-07-02T16:00:00Z", "09:00 at the bridge, PDT")
        #expect(booked.last?["partySize"] == "1")
        let again = try await Self.importing(text, as: "in.csv", into: sandbox)
        #expect(again.stderrLines == ["Imported 0 events; skipped 2 already there, 1 ended (1 cancelled, 0 past)."])
    }

    // MARK: Files that are not of their format

    @Test(arguments: [
        ("bin.ics", Data([0xFF, 0xFE, 0x00, 0x01, 0x9C]) + Data(repeating: 0x80, count: 64), "not UTF-8 text"),
        ("json.ics", Data(#"{"reservations": []}"#.utf8), "not an iCalendar file"),
        ("open.ics", Data("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\n".utf8), "BEGIN:VEVENT is never ended"),
        ("crossed.ics", Data("BEGIN:VCALENDAR\r\nEND:VEVENT\r\n".utf8), "END:VEVENT does not end BEGIN:VCALENDAR"),
        ("words.csv", Data("name,when\r\nx,y\r\n".utf8), "not resv's CSV"),
        ("quote.csv", Data("date,landmark\r\n\"2031-07-01,Half Dome\r\n".utf8), "a quoted field is never closed"),
        ("nul.csv", Data("date,landmark\r\n\0\r\n".utf8), "not text"),
    ])
    func aFileNotOfItsFormatIs65AndChangesNothing(_ name: String, _ bytes: Data, _ message: String) async throws {
        let sandbox = try Sandbox()
        let before = try await sandbox.state()
        let path = sandbox.directory.appendingPathComponent(name)
        try bytes.write(to: path)
        let run = await sandbox.resv("import", path.path)
        #expect(run.status == 65, "\(name): \(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderrLines.count == 1, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("resv: cannot import \(path.path): line "), "\(run.stderr)")
        #expect(run.stderr.contains(message), "\(name): \(run.stderr)")
        #expect(try await sandbox.state() == before)
    }

    @Test func aMissingFileAnUnknownExtensionAndStdinWithoutFormatAre64() async throws {
        let sandbox = try Sandbox()
        await sandbox.resv("import", sandbox.directory.appendingPathComponent("none.ics").path)
            .expectUsageError(containing: "no such file", "missing")
        await sandbox.resv("import", try sandbox.file("notes.txt", "x")).expectUsageError(
            containing: "is neither .ics nor .csv", "extension")
        await sandbox.resv("import", "-", stdin: "x").expectUsageError(
            containing: "give its format: --format ics or --format csv", "stdin")
        await sandbox.resv("import", sandbox.directory.path + "/").expectUsageError(containing: "neither", "directory")
    }

    @Test func standardInputIsReadNoFurtherThanItsBound() async throws {
        let sandbox = try Sandbox()
        let before = try await sandbox.state()
        let huge = "date,landmark\r\n" + String(repeating: "x", count: 16 << 20)
        let run = await sandbox.resv("import", "-", "--format", "csv", stdin: huge)
        #expect(run.status == 65)
        #expect(
            run.stderrLines == [
                "resv: cannot import standard input: line 1: it is over 16 MiB, more than an import reads; nothing was reserved"
            ])
        #expect(try await sandbox.state() == before)
    }

    @Test func standardInputWithItsFormat() async throws {
        let sandbox = try Sandbox()
        let text = Self.calendar([["UID:in", "DTSTART:20310701T100000Z", "SUMMARY:Half Dome"]])
        let run = await sandbox.resv("import", "-", "--format", "ics", stdin: text)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("ID "), "the table: --format named the input")
        #expect(try await Self.booked(sandbox).count == 1)
    }
}

extension Array {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var values: [T] = []
        for element in self { values.append(try await transform(element)) }
        return values
    }
}
