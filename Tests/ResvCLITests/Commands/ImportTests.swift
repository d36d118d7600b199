import Foundation
import ReservationCore
import Testing

/// `resv import FILE`: resv's own exports come back exactly, other calendars' events by
/// their words; ended events are skipped and counted, those already there skipped, the
/// rest one batch, all or nothing. Each mapping rule is a case of its own.
@Suite("Import", .timeLimit(.minutes(15)))
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
        let run = try await Self.importing(text, into: sandbox)
        #expect(run.status == 64, "\(start): \(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderrLines.count == 2, "\(run.stderr)")
        #expect(run.stderrLines.first?.hasPrefix("resv: line 9: event 'bad@example.org': ") == true, "\(run.stderr)")
        #expect(run.stderr.contains(message), "\(start): \(run.stderr)")
        #expect(try await sandbox.state() == before)
    }

    @Test func aRecurringEventIsRefusedUnlessCancelled() async throws {
        let sandbox = try Sandbox()
        let text = Self.calendar([
            ["UID:weekly", "DTSTART:20310701T100000Z", "RRULE:FREQ=WEEKLY", "SUMMARY:Half Dome"],
            ["UID:gone", "DTSTART:20310701T100000Z", "RRULE:FREQ=WEEKLY", "SUMMARY:Half Dome", "STATUS:CANCELLED"],
        ])
        let run = try await Self.importing(text, into: sandbox)
        #expect(run.status == 64)
        #expect(run.stderr.contains("event 'weekly': RRULE repeats the event"))
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
        let refused = try await Self.importing(none, into: sandbox)
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
    func aFullDayRefusesTheWholeFile(_ backend: Backend) async throws {
        let sandbox = try Sandbox(backend)
        let before = try await sandbox.state()
        let text = Self.calendar([
            ["UID:a", "DTSTART:20310701T170000Z", "SUMMARY:Golden Gate Bridge"],
            ["UID:b", "DTSTART:20310701T170000Z", "SUMMARY:Half Dome\\, party of 299"],
            ["UID:c", "DTSTART:20310701T180000Z", "SUMMARY:Half Dome\\, party of 2"],
        ])
        let run = try await Self.importing(text, into: sandbox)
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
