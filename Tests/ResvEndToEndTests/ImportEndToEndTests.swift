import CapacityModel
import Foundation
import Testing

/// `resv import` through the built binaries: an export of one store (`list --all --format
/// ics|csv`) imported into a fresh store and into a real resv-server comes back as it was
/// (`show --json`, note included); twice adds nothing; one full day books nothing; a dry
/// run changes nothing; a hostile file is one line and an exit code, the store untouched.
/// Each mapping rule is a case in process (Tests/ResvCLITests/Commands/ImportTests.swift).
@Suite("Import end to end", .ownThreads, .timeLimit(.minutes(15)))
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
        let database = store.directory.appendingPathComponent("server.sqlite").path
        let token = try ServerProcess.createToken("importer", database: database)
        let server = try ServerProcess(database: database)
        defer { _ = server.stop() }
        let onServer = [
            "RESV_SERVER": "http://127.0.0.1:\(server.port)", "RESV_TOKEN": token,
            "XDG_CACHE_HOME": store.directory.appendingPathComponent("cache").path,
        ]
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

    @Test func aFullDayBooksNothingAndADryRunChangesNothing() throws {
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
        let refused = try sandbox.resv("import", file.path)
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderrLines.count == 2)
        #expect(refused.stderr.contains("resv: line 7: event 'b@example.org': Half Dome is full"), "\(refused.stderr)")
        #expect(try sandbox.storeBytes() == before)

        let dry = try sandbox.resv("import", file.path, "--dry-run")
        #expect(dry.status == 1, "a dry run refuses as the import would")
        let fine = try sandbox.resv(
            "import", "-", "--format", "ics", "--dry-run",
            stdin: text.replacingOccurrences(of: "party of 299", with: "party of 9"))
        #expect(fine.status == 0, "\(fine.stderr)")
        #expect(fine.stdout.split(separator: "\n").count == 3, "a header and two rows: \(fine.stdout)")
        #expect(fine.stderrLines.first?.hasPrefix("Dry run, nothing changed: would import 2 events") == true)
        #expect(try sandbox.storeBytes() == before)
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
                        .utf8), 64, "event 'long': the note"
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
            #expect(run.stderrLines.count <= 2, "\(name): \(run.stderr.prefix(300))")
            #expect(run.stderr.contains(message), "\(name): \(run.stderr.prefix(300))")
            #expect(!run.stderr.contains("Fatal error") && run.stderr.count < 2000, "\(name)")
            #expect(try sandbox.storeBytes() == before, "\(name)")
        }
    }
}
