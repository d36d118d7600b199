import Foundation
import ReservationCore
import ResvTestKit
import Testing

/// `resv import` through the built binaries: an export of one store (`list --all --format
/// ics|csv`) imported into a fresh store and into a real resv-server comes back as it was
/// (`show --json`, note included); twice adds nothing; one full day books nothing; a dry
/// run changes nothing; a hostile file is one line and an exit code, the store untouched.
/// Each mapping rule is a case in process (Tests/ResvCLITests/Commands/ImportTests.swift).
@Suite("Import end to end", .ownThreads, .timeLimit(.minutes(30)))
struct ImportEndToEndTests {
    /// What `show --json` says of a reservation that a new booking does not make anew.
    static func shown(_ run: Run) throws -> [String: String] {
        let item = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        var kept: [String: String] = [:]
        for key in ["id", "date", "partySize", "status", "note"] { kept[key] = item[key].map { "\($0)" } }
        kept["landmark"] = ((item["landmark"] as? [String: Any])?["id"] as? String)
        return kept
    }

    /// A store with three visits (a note with every character a calendar escapes) and a cancelled one.
    static func source() throws -> (Sandbox, ids: [String]) {
        let sandbox = try Sandbox()
        var ids: [String] = []
        for (index, line) in [
            ["-l", "half dome", "-n", "4", "--note", "gate 3; bring, ID\\\nline two\r\nbell \u{7}"],
            ["-l", "golden gate", "-n", "2", "--pending"],
            ["-l", "crater lake", "-n", "1", "--note", "=SUM(A1), \"quoted\""],
            ["-l", "lake tahoe", "-n", "3"],
        ].enumerated() {
            let run = try sandbox.resv(
                ["reserve", "-d", visitAhead(days: 30 + index), "--json", "--jq", ".id"] + line)
            #expect(run.status == 0, "\(run.stderr)")
            ids.append(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        #expect(try sandbox.resv("cancel", ids[3]).status == 0)
        return (sandbox, ids)
    }

    @Test(arguments: ["ics", "csv"])
    func anExportComesBackExactlyIntoAStoreAndAServerAndTwiceAddsNothing(format: String) throws {
        let (source, ids) = try Self.source()
        let export = try source.resv("list", "--all", "--format", format)
        #expect(export.status == 0)
        let file = source.directory.appendingPathComponent("export.\(format)")
        try Data(export.stdout.utf8).write(to: file)

        let store = try Sandbox()
        let (server, onServer) = try Self.importer(in: store)
        defer { _ = server.stop() }
        for environment in [[:], onServer] {
            let first = try store.resv(["import", file.path], environment: environment)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stderrLines == ["Imported 3 events; skipped 0 already there, 1 ended (1 cancelled, 0 past)."])
            for id in ids.prefix(3) {
                let original = try Self.shown(try source.resv("show", id, "--json"))
                let imported = try Self.shown(try store.resv(["show", id, "--json"], environment: environment))
                #expect(imported == original, "\(format): \(id)")
            }
            #expect(
                try store.resv(["show", ids[3]], environment: environment).status == 1, "the cancelled one stays out")
            let again = try store.resv(["import", file.path], environment: environment)
            #expect(again.status == 0)
            #expect(again.stderrLines == ["Imported 0 events; skipped 3 already there, 1 ended (1 cancelled, 0 past)."])
            let list = try store.resv(["list", "--all", "--json", "--jq", "length"], environment: environment)
            #expect(list.stdout == "3\n", "\(list.stderr)")
        }
    }

    /// A calendar as iCalendar writes it (CRLF), of these events' content lines.
    static func calendar(_ events: [[String]]) -> String {
        (["BEGIN:VCALENDAR", "VERSION:2.0"] + events.flatMap { ["BEGIN:VEVENT"] + $0 + ["END:VEVENT"] }
            + ["END:VCALENDAR"]).joined(separator: "\r\n") + "\r\n"
    }

    /// A resv-server on a database in the sandbox, and the environment that sends resv to it as
    /// the user `importer`.
    static func importer(in sandbox: Sandbox) throws -> (server: ServerProcess, environment: [String: String]) {
        let database = sandbox.directory.appendingPathComponent("server.sqlite").path
        let token = try ServerProcess.createToken("importer", database: database)
        let server = try ServerProcess(database: database)
        return (
            server,
            [
                "RESV_SERVER": "http://127.0.0.1:\(server.port)", "RESV_TOKEN": token,
                "XDG_CACHE_HOME": sandbox.directory.appendingPathComponent("cache").path,
            ]
        )
    }

    /// A day ahead as iCalendar's basic form (`20261201`).
    static func basicDay(_ days: Int) -> String { String(visitAhead(days: days).prefix(10).filter { $0 != "-" }) }

    /// A real calendar into a file store and a real server alike: what cannot be booked is
    /// named and counted by reason, the rest booked (a weekly RRULE as one series), exit 1;
    /// the dry run says the same and exits the same; twice adds nothing.
    @Test func aRealCalendarBooksWhatItCanAndCountsTheRestOnAStoreAndAServer() throws {
        let sandbox = try Sandbox()
        let (server, onServer) = try Self.importer(in: sandbox)
        defer { _ = server.stop() }
        let text = Self.calendar([
            ["UID:single@example.org", "DTSTART:\(Self.basicDay(30))T100000Z", "SUMMARY:Half Dome"],
            ["UID:allday@example.org", "DTSTART;VALUE=DATE:\(Self.basicDay(31))", "SUMMARY:Half Dome"],
            [
                "UID:weekly@example.org", "DTSTART:\(Self.basicDay(32))T100000", "RRULE:FREQ=WEEKLY;COUNT=3",
                "SUMMARY:Crater Lake\\, party of 2",
            ],
            ["UID:nowhere@example.org", "DTSTART:\(Self.basicDay(33))T100000Z", "SUMMARY:Dinner"],
            ["UID:negative@example.org", "DTSTART:\(Self.basicDay(34))T100000Z", "SUMMARY:Half Dome\\, party of -3"],
            [
                "UID:outlook@example.org", "DTSTART;TZID=W. Europe Standard Time:\(Self.basicDay(35))T100000",
                "SUMMARY:Half Dome",
            ],
        ])
        // Outlook's zone name is Berlin's zone (CLDR): 10:00 there, whatever the season.
        var berlin = Calendar(identifier: .gregorian)
        berlin.timeZone = TimeZone(identifier: "Europe/Berlin")!
        let noon = try DateTime.parse(String(visitAhead(days: 35).prefix(10)) + "T12:00:00Z")
        var parts = berlin.dateComponents([.year, .month, .day], from: noon)
        parts.hour = 10
        let outlook = DateTime.format(try #require(berlin.date(from: parts)))
        let file = sandbox.directory.appendingPathComponent("calendar.ics")
        try Data(text.utf8).write(to: file)
        let counts =
            "skipped 0 already there, 0 ended (0 cancelled, 0 past), 3 not booked (1 all-day, 1 landmark not found, "
            + "1 party out of range)."
        for environment in [[:], onServer] {
            let dry = try sandbox.resv(["import", file.path, "--dry-run"], environment: environment)
            #expect(dry.status == 1, "\(dry.stderr)")
            #expect(
                dry.stderrLines.dropLast().last == "Dry run, nothing changed: would import 5 events; " + counts[...])
            let run = try sandbox.resv(["import", file.path], environment: environment)
            #expect(run.status == 1, "\(run.stderr)")
            #expect(run.stderrLines.count == 5, "\(run.stderr)")
            #expect(run.stderrLines[0].hasPrefix("Not booked: event 'allday@example.org' (line 8): DTSTART"))
            #expect(run.stderrLines[1].hasPrefix("Not booked: event 'nowhere@example.org' (line 19): SUMMARY 'Dinner'"))
            #expect(run.stderrLines[2].hasPrefix("Not booked: event 'negative@example.org' (line 24): SUMMARY's party"))
            #expect(run.stderrLines[3] == "Imported 5 events; " + counts[...])
            #expect(run.stderrLines[4].hasPrefix("resv: 3 events were not booked (named above)"))
            let list = try sandbox.resv(
                [
                    "list", "--all", "--json", "--jq",
                    "[.[] | .partySize], ([.[] | .series // empty] | unique | length), (.[2].date)",
                ],
                environment: environment)
            // A string result is printed raw, as gh's --jq prints it.
            #expect(list.stdout == "[1,2,1,2,2]\n1\n\(outlook)\n", "\(list.stderr)")
            let again = try sandbox.resv(["import", file.path], environment: environment)
            #expect(again.stderrLines[3].hasPrefix("Imported 0 events; skipped 5 already there"), "\(again.stderr)")
        }
    }

    /// A teammate's export on one server: their ids are theirs, so each event is refused and
    /// counted (the line says --new-ids); with --new-ids they are booked as the importer's own,
    /// and a second time adds nothing.
    @Test func aTeammatesExportIsBookedAsOnesOwnWithNewIDs() throws {
        let sandbox = try Sandbox()
        let database = sandbox.directory.appendingPathComponent("server.sqlite").path
        let alice = try ServerProcess.createToken("alice", database: database)
        let bob = try ServerProcess.createToken("bob", database: database)
        let server = try ServerProcess(database: database)
        defer { _ = server.stop() }
        func environment(_ token: String, _ name: String) -> [String: String] {
            [
                "RESV_SERVER": "http://127.0.0.1:\(server.port)", "RESV_TOKEN": token,
                "XDG_CACHE_HOME": sandbox.directory.appendingPathComponent("cache-\(name)").path,
            ]
        }
        for days in [30, 31] {
            let run = try sandbox.resv(
                ["reserve", "-l", "half dome", "-d", visitAhead(days: days), "-n", "2"],
                environment: environment(alice, "a"))
            #expect(run.status == 0, "\(run.stderr)")
        }
        let export = try sandbox.resv(["list", "--format", "ics"], environment: environment(alice, "a"))
        let file = sandbox.directory.appendingPathComponent("alice.ics")
        try Data(export.stdout.utf8).write(to: file)

        // The dry run asks the server: it names the ids Alice holds as the real run refuses them.
        let dry = try sandbox.resv(["import", file.path, "--dry-run"], environment: environment(bob, "b"))
        let refused = try sandbox.resv(["import", file.path], environment: environment(bob, "b"))
        #expect(dry.status == 1, "\(dry.stderr)")
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderrLines.count == 4, "\(refused.stderr)")
        #expect(dry.stderrLines.prefix(2) == refused.stderrLines.prefix(2), "\(dry.stderr)")
        #expect(refused.stderrLines[0].hasSuffix("(--new-ids books it as yours)."), "\(refused.stderr)")
        let counts = "skipped 0 already there, 0 ended (0 cancelled, 0 past), 2 not booked (2 refused)."
        #expect(
            dry.stderrLines.dropFirst(2) == [
                "Dry run, nothing changed: would import 0 events; " + counts[...],
                "resv: 2 events would not be booked (named above), the rest would be: --strict imports all or nothing",
            ])
        #expect(refused.stderrLines[2] == "Imported 0 events; " + counts[...])
        let own = try sandbox.resv(["import", file.path, "--new-ids"], environment: environment(bob, "b"))
        #expect(own.status == 0, "\(own.stderr)")
        #expect(own.stderrLines == ["Imported 2 events; skipped 0 already there, 0 ended (0 cancelled, 0 past)."])
        let again = try sandbox.resv(["import", file.path, "--new-ids"], environment: environment(bob, "b"))
        #expect(again.stderrLines == ["Imported 0 events; skipped 2 already there, 0 ended (0 cancelled, 0 past)."])
        for token in [alice, bob] {
            let list = try sandbox.resv(["list", "--json", "--jq", "length"], environment: environment(token, token))
            #expect(list.stdout == "2\n", "each has two of their own")
        }
        // A day Alice filled: the dry run counts her bookings, as the import does.
        let filled = try sandbox.resv(
            ["reserve", "-l", "half dome", "-d", visitAhead(days: 40), "-n", "300"],
            environment: environment(alice, "a"))
        #expect(filled.status == 0, "\(filled.stderr)")
        let mine = sandbox.directory.appendingPathComponent("mine.ics")
        try Data(
            Self.calendar([["UID:mine@example.org", "DTSTART:\(Self.basicDay(40))T180000Z", "SUMMARY:Half Dome"]]).utf8
        ).write(to: mine)
        for flags in [["--dry-run"], []] {
            let full = try sandbox.resv(["import", mine.path] + flags, environment: environment(bob, "b"))
            #expect(full.status == 1, "\(flags): \(full.stderr)")
            #expect(
                full.stderrLines.first?.hasPrefix("Not booked: event 'mine@example.org' (line 3): Half Dome is full")
                    == true, "\(flags): \(full.stderr)")
        }
    }

    /// The same calendar imported into a file store and into a server gives the same ids, so
    /// the store's export imported into the server afterwards is the one booking it already
    /// has: nothing twice. (The ids once folded the server's user in, and these were two.)
    @Test func anEventMovedFromAFileStoreToAServerIsOneBooking() throws {
        let sandbox = try Sandbox()
        let (server, onServer) = try Self.importer(in: sandbox)
        defer { _ = server.stop() }
        let file = sandbox.directory.appendingPathComponent("calendar.ics")
        try Data(
            Self.calendar([
                ["UID:hike@example.org", "DTSTART:\(Self.basicDay(30))T100000Z", "SUMMARY:Half Dome\\, party of 2"],
                [
                    "UID:weekly@example.org", "DTSTART:\(Self.basicDay(31))T100000Z", "RRULE:FREQ=WEEKLY;COUNT=2",
                    "SUMMARY:Crater Lake",
                ],
            ]).utf8
        ).write(to: file)
        for environment in [[:], onServer] {
            let run = try sandbox.resv(["import", file.path], environment: environment)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderrLines == ["Imported 3 events; skipped 0 already there, 0 ended (0 cancelled, 0 past)."])
        }
        let ids = try [[:], onServer].map { environment in
            try sandbox.resv(["list", "--json", "--jq", "[.[].id]"], environment: environment).stdout
        }
        #expect(ids[0] == ids[1], "the same ids on the file store and on the server")
        let export = try sandbox.resv("list", "--all", "--format", "ics")
        let moved = sandbox.directory.appendingPathComponent("store.ics")
        try Data(export.stdout.utf8).write(to: moved)
        let run = try sandbox.resv(["import", moved.path], environment: onServer)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderrLines == ["Imported 0 events; skipped 3 already there, 0 ended (0 cancelled, 0 past)."])
        let list = try sandbox.resv(["list", "--all", "--json", "--jq", "length"], environment: onServer)
        #expect(list.stdout == "3\n", "one booking each, not two")
    }

    /// More events than one batch on a server holds (10,000): sent in batches the server
    /// takes, each booked; with --strict refused naming the limit in events, nothing booked.
    @Test func anImportLargerThanOneBatchIsSentInBatchesOrRefusedWithStrict() throws {
        let sandbox = try Sandbox()
        let (server, onServer) = try Self.importer(in: sandbox)
        defer { _ = server.stop() }
        let count = 10_250
        let days = (0..<5).map { Self.basicDay(30 + $0) }
        let text = Self.calendar(
            (0..<count).map { index in
                [
                    "UID:e\(index)@example.org",
                    "DTSTART:\(days[index % 5])T\(String(format: "%02d", 16 + index % 4))0000Z",
                    "SUMMARY:Golden Gate Bridge",
                ]
            })
        let file = sandbox.directory.appendingPathComponent("large.ics")
        try Data(text.utf8).write(to: file)
        let strict = try sandbox.resv(["import", file.path, "--strict"], environment: onServer)
        #expect(strict.status == 64, "\(strict.stderr.prefix(500))")
        #expect(
            strict.stderrLines == [
                "resv: the file has 10250 events to book, more than one batch on a server holds (10000 events): "
                    + "--strict books all or nothing in one batch; without it they are sent in batches; nothing was reserved"
            ])
        let none = try sandbox.resv(["list", "--all", "--json", "--jq", "length"], environment: onServer)
        #expect(none.stdout == "0\n")
        let run = try sandbox.resv(["import", file.path, "--json", "--jq", "length"], environment: onServer)
        #expect(run.status == 0, "\(run.stderr.prefix(500))")
        #expect(run.stderrLines == ["Imported 10250 events; skipped 0 already there, 0 ended (0 cancelled, 0 past)."])
        let list = try sandbox.resv(["list", "--all", "--json", "--jq", "length"], environment: onServer)
        #expect(list.stdout == "\(count)\n", "\(list.stderr.prefix(300))")
    }

    /// Two imports of one file into one store at once: each says what it booked, and together
    /// they booked each event once ("Imported N" of the two adds up to the file, each one's
    /// imported and already-there add up to the file), however they interleave; an import that
    /// found events booked since it read the list says so ("booked meanwhile"), and over the
    /// rounds at least one did (the race the test is about happened).
    @Test func twoImportsAtOnceEachSayWhatTheyBooked() async throws {
        let count = 300
        var lines = ["BEGIN:VCALENDAR"]
        for index in 0..<count {
            let day = visitAhead(days: 30 + index % 30).filter { $0 != "-" && $0 != ":" }
            lines += [
                "BEGIN:VEVENT", "UID:event-\(index)@example.org", "DTSTART:\(day)", "SUMMARY:Half Dome\\, party of 1",
                "END:VEVENT",
            ]
        }
        let text = (lines + ["END:VCALENDAR"]).joined(separator: "\r\n") + "\r\n"
        var raced = 0
        for round in 0..<4 {
            let sandbox = try Sandbox()
            let file = sandbox.directory.appendingPathComponent("events.ics")
            try Data(text.utf8).write(to: file)
            let environment = sandbox.environment
            async let first = runProcessAsync(
                Binary.resv.path, ["import", file.path], environment: environment, stdin: nil)
            async let second = runProcessAsync(
                Binary.resv.path, ["import", file.path], environment: environment, stdin: nil)
            var imported = 0
            for run in try await [first, second] {
                #expect(run.status == 0, "round \(round): \(run.stderr)")
                let words = run.stderr.split(separator: " ")
                let made = Int(words.dropFirst().first ?? "") ?? -1
                let already = Int(words.drop { $0 != "skipped" }.dropFirst().first ?? "") ?? -1
                #expect(made + already == count, "round \(round): \(run.stderr)")
                imported += made
                if run.stderr.contains("booked meanwhile by another run") { raced += 1 }
            }
            #expect(imported == count, "round \(round): each event booked once, and said so once")
            let list = try sandbox.resv("list", "--all", "--json", "--jq", "length")
            #expect(list.stdout == "\(count)\n")
        }
        #expect(raced > 0, "in no round did the imports overlap")
    }

    /// A full day: with --strict the whole file books nothing (exit 1, only a full day refused
    /// it); without, the event that does not fit is named and counted and the other booked,
    /// exit 1; a dry run says and exits the same, changing nothing.
    @Test func aFullDayBooksNothingWithStrictAndADryRunChangesNothing() throws {
        let sandbox = try Sandbox()
        #expect(try sandbox.resv("reserve", "-l", "golden gate", "-d", visitAhead(days: 5), "-n", "1").status == 0)
        let before = try sandbox.storeBytes()
        let day = visitAhead(days: 40).filter { $0 != "-" && $0 != ":" }
        let text =
            [
                "BEGIN:VCALENDAR", "BEGIN:VEVENT", "UID:a@example.org", "DTSTART:\(day)",
                "SUMMARY:Half Dome\\, party of 2", "END:VEVENT", "BEGIN:VEVENT", "UID:b@example.org",
                "DTSTART:\(day)", "SUMMARY:Half Dome\\, party of 299", "END:VEVENT", "END:VCALENDAR",
            ].joined(separator: "\r\n") + "\r\n"
        let file = sandbox.directory.appendingPathComponent("full.ics")
        try Data(text.utf8).write(to: file)
        let refused = try sandbox.resv("import", file.path, "--strict")
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderrLines.count == 2)
        #expect(refused.stderr.contains("resv: line 7: event 'b@example.org': Half Dome is full"), "\(refused.stderr)")
        #expect(try sandbox.storeBytes() == before)

        let full = "Not booked: event 'b@example.org' (line 7): Half Dome is full on "
        let counts = "skipped 0 already there, 0 ended (0 cancelled, 0 past), 1 not booked (1 refused)."
        let dry = try sandbox.resv("import", file.path, "--dry-run")
        #expect(dry.status == 1, "a dry run refuses as the import would: \(dry.stderr)")
        #expect(dry.stderrLines.count == 3, "\(dry.stderr)")
        #expect(dry.stderrLines.first?.hasPrefix(full) == true, "\(dry.stderr)")
        #expect(dry.stderrLines.dropFirst().first == "Dry run, nothing changed: would import 1 event; " + counts[...])
        #expect(dry.stdout.split(separator: "\n").count == 2, "a header and a's row: \(dry.stdout)")
        #expect(try sandbox.storeBytes() == before)
        let fine = try sandbox.resv(
            "import", "-", "--format", "ics", "--dry-run",
            stdin: text.replacingOccurrences(of: "party of 299", with: "party of 9"))
        #expect(fine.status == 0, "\(fine.stderr)")
        #expect(fine.stdout.split(separator: "\n").count == 3, "a header and two rows: \(fine.stdout)")
        #expect(fine.stderrLines.first?.hasPrefix("Dry run, nothing changed: would import 2 events") == true)
        #expect(try sandbox.storeBytes() == before)

        let run = try sandbox.resv("import", file.path)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderrLines.count == 3, "\(run.stderr)")
        #expect(run.stderrLines.first?.hasPrefix(full) == true, "\(run.stderr)")
        #expect(run.stderrLines.dropFirst().first == "Imported 1 event; " + counts[...])
        #expect(
            run.stderrLines.last
                == "resv: 1 event was not booked (named above), the rest were: --strict imports all or nothing")
        let list = try sandbox.resv("list", "--json", "--jq", "[.[] | .partySize]")
        #expect(list.stdout == "[1,2]\n", "\(list.stderr)")
    }

    @Test func hostileFilesAreOneLineAndAnExitCode() throws {
        let sandbox = try Sandbox()
        #expect(try sandbox.resv("reserve", "-l", "golden gate", "-d", visitAhead(days: 5), "-n", "1").status == 0)
        let before = try sandbox.storeBytes()
        let day = visitAhead(days: 30).filter { $0 != "-" && $0 != ":" }
        let huge = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDESCRIPTION:" + String(repeating: "x", count: 17 << 20) + "\r\n"
        let cases: [(String, Data, Int32, String)] = [
            ("binary.ics", Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) }), 65, "not UTF-8 text"),
            ("page.ics", Data("<html><body>not a calendar</body></html>".utf8), 65, "not an iCalendar file"),
            ("huge.ics", Data(huge.utf8), 65, "over 16 MiB"),
            (
                "line.ics",
                Data(
                    ("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:long\r\nDTSTART:\(day)\r\nSUMMARY:Half Dome\r\n"
                        + "DESCRIPTION:" + String(repeating: "y", count: 8 << 20)
                        + "\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
                        .utf8), 1, "Not booked: event 'long' (line 2): the note has 8388608 characters"
            ),
            ("table.csv", Data("a,b\r\n1,2\r\n".utf8), 65, "not resv's CSV"),
        ]
        // Standard input too is read no further than the bound: the writer is cut off, not waited for.
        let piped = try sandbox.shell(
            "head -c 20000000 /dev/zero | tr '\\0' x | resv import - --format ics; echo \"status=${PIPESTATUS[2]}\"")
        #expect(piped.stdout == "status=65\n", "\(piped.stderr.prefix(300))")
        #expect(piped.stderr.contains("cannot import standard input: line 1: it is over 16 MiB"))
        #expect(try sandbox.storeBytes() == before)
        for (name, bytes, status, message) in cases {
            let file = sandbox.directory.appendingPathComponent(name)
            try bytes.write(to: file)
            let run = try sandbox.resv("import", file.path)
            #expect(run.status == status, "\(name): \(run.stderr.prefix(300))")
            #expect(run.stdout.isEmpty, "\(name)")
            // One line, or, for the event not booked, its line, the count and the exit's reason.
            #expect(run.stderrLines.count <= (status == 1 ? 3 : 2), "\(name): \(run.stderr.prefix(300))")
            #expect(run.stderr.contains(message), "\(name): \(run.stderr.prefix(300))")
            #expect(!run.stderr.contains("Fatal error") && run.stderr.count < 2000, "\(name)")
            #expect(try sandbox.storeBytes() == before, "\(name)")
        }
    }
}
