import Foundation
import ResvTestKit
import Testing

/// One script of commands, run by the built `resv` on a store file and on a
/// server over SQLite and over PostgreSQL: the same exit codes, the same
/// stderr and the same output, ids and times aside. The rules are written
/// once (`Booking`); this is what shows it from outside.
@Suite("Parity of the engines", .ownThreads, .timeLimit(.minutes(30)))
struct ParityTests {
    /// A command of the script, the status it must exit with, and names for
    /// the reservations its `--json` output holds (in order), used as `{NAME}`
    /// (the id's first 8 digits) by later steps.
    struct Step: CustomStringConvertible {
        let arguments: [String]
        var stdin: String?
        let exit: Int32
        var names: [String] = []
        /// A name for the series its `--json` output's reservations carry (`reserve --every`).
        var series: String?
        /// The output every backend must give, when the script knows it.
        var output: String?

        var description: String { arguments.joined(separator: " ") }
    }

    /// The script. Dates are in one random year far ahead, so that tests
    /// sharing the PostgreSQL database never count against its capacity.
    static func script(year: Int) -> [Step] {
        let day = "\(year)-06-01"
        let sunday: Int = {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = .gmt
            return (8...14).first { day in
                calendar.date(from: DateComponents(year: year, month: 3, day: day))
                    .map { calendar.component(.weekday, from: $0) == 1 } ?? false
            } ?? 14
        }()
        let springForward = "\(year)-03-\(sunday)"
        // The Sunday a week before (the 1st to the 7th): a weekly series from it crosses the change.
        let weekBefore = "\(year)-03-0\(sunday - 7)"
        let at = { (hour: String) in "\(day)T\(hour):00:00Z" }
        // Each at its own time: reservations at the same time are listed by id, which differs.
        let nextDay = { (hour: String) in "\(year)-06-02T\(hour):00:00Z" }
        let badLines = """
            {"landmarkId": "Half Dome", "date": "\(at("18"))", "partySize": 2}
            {"landmarkId": "Half Dome", "date": "\(at("18"))"}
            {"landmarkId": "Nowhere", "date": "\(at("18"))", "partySize": 2}
            {"landmarkId": "Half Dome", "date": "\(at("18"))", "partySize": 0}
            {"landmarkId": "Half Dome", "date": "2001-01-01T10:00:00Z", "partySize": 2}
            """
        let overCapacity = """
            {"landmarkId": "Mount Rainier", "date": "\(nextDay("17"))", "partySize": 3}
            {"landmarkId": "Half Dome", "date": "\(at("19"))", "partySize": 1}
            """
        let fits = """
            {"landmarkId": "Mount Rainier", "date": "\(nextDay("17"))", "partySize": 3}
            {"landmarkId": "Crater Lake", "date": "\(nextDay("18"))", "partySize": 4, "status": "pending"}
            {"landmarkId": "Lake Tahoe", "date": "\(nextDay("19"))", "partySize": 5, "note": "a note from a batch"}
            """
        let basic = { (text: String) in text.filter { $0 != "-" && $0 != ":" } }
        let calendar =
            ([
                "BEGIN:VCALENDAR", "VERSION:2.0",
                "BEGIN:VEVENT", "UID:bridge@example.org", "DTSTART:\(basic(at("21")))", "SUMMARY:Golden Gate Bridge",
                "END:VEVENT",
                "BEGIN:VEVENT", "UID:allday@example.org", "DTSTART;VALUE=DATE:\(basic(day))", "SUMMARY:Half Dome",
                "END:VEVENT",
                "BEGIN:VEVENT", "UID:weekly@example.org", "DTSTART;TZID=America/Los_Angeles:\(basic(day))T080000",
                "RRULE:FREQ=WEEKLY;COUNT=2", "SUMMARY:Lake Tahoe\\, party of 2", "END:VEVENT",
                "BEGIN:VEVENT", "UID:full@example.org", "DTSTART:\(basic(at("22")))",
                "SUMMARY:Half Dome\\, party of 20",
                "END:VEVENT", "END:VCALENDAR",
            ] as [String]).joined(separator: "\r\n") + "\r\n"
        var steps: [Step] = [
            Step(arguments: ["landmarks", "--json"], exit: 0),
            Step(arguments: ["list", "--json"], exit: 0, output: "[]\n"),
            Step(arguments: ["undo"], exit: 1),
            Step(
                arguments: ["reserve", "-l", "Half Dome", "-d", at("17"), "-n", "290", "--pending", "--json"], exit: 0,
                names: ["dome"]),
            Step(
                arguments: ["reserve", "-l", "crater lake", "-d", at("16"), "-n", "2", "--json"], exit: 0,
                names: ["lake"]),
            Step(arguments: ["reserve", "-l", "Half Dome", "-d", at("19"), "-n", "11"], exit: 1),
            Step(arguments: ["reserve", "-l", "Half Dome", "-d", at("19"), "-n", "301"], exit: 1),
            Step(arguments: ["reserve", "-l", "Nowhere", "-d", at("19"), "-n", "2"], exit: 64),
            Step(arguments: ["reserve", "-l", "Half Dome", "-d", "2001-08-02T12:00:00Z", "-n", "2"], exit: 64),
            Step(arguments: ["reserve", "-l", "Half Dome", "-d", at("19"), "-n", "0"], exit: 64),
            Step(arguments: ["reserve", "-l", "Half Dome", "-d", "\(year)-06-31 19:00", "-n", "2"], exit: 64),
            // 02:30 on the second Sunday of March does not exist in Yosemite (the clocks jump forward).
            Step(arguments: ["reserve", "-l", "Half Dome", "-d", "\(springForward) 02:30", "-n", "2"], exit: 64),
            // A time as typed, at the landmark (Crater Lake is in Oregon): the same instant on every backend.
            Step(
                arguments: [
                    "reserve", "-l", "Crater Lake", "-d", "\(year)-06-03 9:00", "-n", "1", "--note", "by the lake",
                    "--json",
                ], exit: 0, names: ["typed"]),
            Step(
                arguments: ["reserve", "-l", "Half Dome", "-d", at("19"), "-n", "10", "--pending", "--json"], exit: 0,
                names: ["rest"]),
            Step(arguments: ["reserve", "-l", "Half Dome", "-d", at("20"), "-n", "1"], exit: 1),
            Step(arguments: ["list", "--json"], exit: 0),
            Step(arguments: ["list"], exit: 0),
            Step(arguments: ["show", "{dome}", "--json"], exit: 0),
            Step(arguments: ["show", "ab"], exit: 64),
            Step(arguments: ["confirm", "{dome}", "--json"], exit: 0),
            Step(arguments: ["confirm", "{dome}"], exit: 0),
            Step(arguments: ["cancel", "ffff0000"], exit: 1),
            Step(arguments: ["modify", "{lake}", "--party-size", "5", "--json"], exit: 0),
            Step(arguments: ["modify", "{lake}", "--note", "window seat", "--json"], exit: 0),
            Step(arguments: ["modify", "{lake}", "--note", "", "--json"], exit: 0),
            Step(arguments: ["modify", "{dome}", "--party-size", "291"], exit: 1),
            Step(arguments: ["modify", "{dome}", "--date", "2001-08-02T12:00:00Z"], exit: 64),
            Step(arguments: ["modify", "{dome}"], exit: 64),
            Step(arguments: ["modify", "{dome}", "--landmark", "Nowhere"], exit: 64),
            Step(arguments: ["reserve", "--batch", "-"], stdin: badLines, exit: 64),
            Step(arguments: ["reserve", "--batch", "-"], stdin: overCapacity, exit: 1),
            Step(
                arguments: ["reserve", "--batch", "-", "--json"], stdin: fits, exit: 0,
                names: ["falls", "crater", "tahoe"]),
            // A weekly series across the spring change, at 10:00 in Yosemite each time.
            Step(
                arguments: [
                    "reserve", "-l", "Half Dome", "-d", "\(weekBefore) 10:00", "-n", "2", "--every", "week", "--count",
                    "3", "--json",
                ], exit: 0, names: ["w1", "w2", "w3"], series: "weekly"),
            Step(arguments: ["show", "{w2}"], exit: 0),
            Step(arguments: ["log", "{w3}"], exit: 0),
            // Its second visit on the day the dome holds 290 of 300: nothing booked.
            Step(
                arguments: [
                    "reserve", "-l", "Half Dome", "-d", "\(year)-05-25T17:00:00Z", "-n", "20", "--every", "week",
                    "--count", "2",
                ], exit: 1),
            Step(arguments: ["cancel", "--series", "{weekly}", "--json"], exit: 0),
            Step(arguments: ["cancel", "--series", "{weekly}"], exit: 0),
            Step(arguments: ["cancel", "{falls}", "{crater}", "--json"], exit: 0),
            Step(arguments: ["confirm", "{falls}"], exit: 1),
            Step(arguments: ["cancel", "{tahoe}", "ffff0000"], exit: 1),
            Step(arguments: ["list", "--all", "--json"], exit: 0),
            Step(arguments: ["list", "--status", "cancelled", "--json"], exit: 0),
            Step(arguments: ["availability", "Half Dome", "--from", day, "--to", day, "--json"], exit: 0),
            Step(arguments: ["log", "--json"], exit: 0),
            Step(arguments: ["log", "{dome}", "--json"], exit: 0),
            Step(arguments: ["log", "--limit", "2", "--json"], exit: 0),
            // A calendar: what cannot be booked (all day, a full day) named and counted, the rest
            // booked (a weekly RRULE as one series); the dry run says the same; twice adds nothing.
            Step(arguments: ["import", "-", "--format", "ics", "--dry-run"], stdin: calendar, exit: 1),
            Step(arguments: ["import", "-", "--format", "ics"], stdin: calendar, exit: 1),
            Step(arguments: ["import", "-", "--format", "ics"], stdin: calendar, exit: 1),
            Step(arguments: ["list", "--json"], exit: 0),
        ]
        // Back to the start: thirteen commands changed something; the fourteenth undo finds nothing.
        steps += Array(repeating: Step(arguments: ["undo", "--json"], exit: 0), count: 13)
        steps += [
            Step(arguments: ["undo", "--json"], exit: 1),
            Step(arguments: ["list", "--json"], exit: 0, output: "[]\n"),
            Step(arguments: ["list", "--all", "--json"], exit: 0),
            Step(arguments: ["log", "--limit", "3", "--json"], exit: 0),
        ]
        return steps
    }

    /// One backend running the script: how to run `resv` on it, and what its
    /// answers are once ids and times are put aside.
    final class Backend {
        let name: String
        let run: ([String], String?) throws -> Run
        /// Every id seen, in order: a reservation's by its name, others by number.
        private var names: [String: String] = [:]
        private var others: [String: Int] = [:]
        private var user: String?

        init(_ name: String, user: String? = nil, run: @escaping ([String], String?) throws -> Run) {
            self.name = name
            self.user = user
            self.run = run
        }

        func arguments(_ step: Step) -> [String] {
            step.arguments.map { argument in
                guard argument.hasPrefix("{"), argument.hasSuffix("}") else { return argument }
                let name = String(argument.dropFirst().dropLast())
                return String((names.first { $0.value == name }?.key ?? name).prefix(8))
            }
        }

        /// Runs a step: its answer normalised, after naming the reservations it made.
        func perform(_ step: Step) throws -> Run {
            var run = try self.run(arguments(step), step.stdin)
            if !step.names.isEmpty, run.status == 0 {
                let json = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8))
                let records = (json as? [[String: Any]]) ?? [json as? [String: Any] ?? [:]]
                for (record, name) in zip(records, step.names) {
                    if let id = record["id"] as? String { names[id] = name }
                }
                if let series = step.series, let id = records.first?["series"] as? String { names[id] = series }
            }
            run.stdout = normalise(run.stdout)
            run.stderr = normalise(run.stderr)
            return run
        }

        private func normalise(_ text: String) -> String {
            var text = text.replacing(/"(createdAt|updatedAt|at)" : "[^"]*"/) { "\"\($0.1)\" : \"<time>\"" }
            // A server's history names the user of each change (docs/contracts.md); a file's has no users.
            if let user { text = text.replacing(",\n" + #"      "user" : ""# + user + "\"", with: "") }
            if let user { text = text.replacing(",\n" + #"    "user" : ""# + user + "\"", with: "") }
            // And who made it (the user and their token's id: docs/contracts.md, "The actor"); a file's, no one.
            if user != nil { text = text.replacing(/"actor" : \{[^}]*\},\n\s*/, with: "") }
            text = text.replacing(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/) { match in
                let id = String(match.0)
                if let name = names[id] { return "<\(name)>" }
                if others[id] == nil { others[id] = others.count + 1 }
                return "<id \(others[id]!)>"
            }
            for (id, name) in names { text = text.replacingOccurrences(of: id.prefix(8), with: "<\(name):8>") }
            return text
        }
    }

    /// The first line where two outputs differ, for the failure's message.
    static func difference(_ a: String, _ b: String) -> String {
        let (left, right) = (a.split(separator: "\n"), b.split(separator: "\n"))
        for index in 0..<max(left.count, right.count) {
            let l = index < left.count ? String(left[index]) : "(none)"
            let r = index < right.count ? String(right[index]) : "(none)"
            if l != r { return "line \(index + 1): file '\(l)', server '\(r)'" }
        }
        return "no line differs"
    }

    static var engines: [String] {
        ["sqlite"] + (ProcessInfo.processInfo.environment["RESV_TEST_POSTGRES_URL"] == nil ? [] : ["postgres"])
    }

    @Test(arguments: engines)
    func theScriptGivesTheSameAnswersOnAFileAndOnAServer(engine: String) throws {
        let sandbox = try Sandbox()
        let database =
            engine == "sqlite"
            ? sandbox.directory.appendingPathComponent("server.sqlite").path
            : try #require(ProcessInfo.processInfo.environment["RESV_TEST_POSTGRES_URL"])
        let user = "parity-\(UUID().uuidString.prefix(8).lowercased())"
        let token = try ServerProcess.createToken(user, database: database)
        let server = try ServerProcess(database: database)
        defer { server.stop() }
        let serverSandbox = try Sandbox()
        let environment = [
            "RESV_SERVER": "http://127.0.0.1:\(server.port)", "RESV_TOKEN": token,
            "XDG_CACHE_HOME": serverSandbox.directory.appendingPathComponent("cache").path,
            "XDG_CONFIG_HOME": serverSandbox.directory.appendingPathComponent("config").path,
        ]
        let file = Backend("file") { arguments, stdin in try sandbox.resv(arguments, stdin: stdin) }
        let remote = Backend(engine, user: user) { arguments, stdin in
            try serverSandbox.resv(arguments, environment: environment, stdin: stdin)
        }
        let year = Int.random(in: 2950...2999)
        for step in Self.script(year: year) {
            let onFile = try file.perform(step)
            let onServer = try remote.perform(step)
            #expect(onFile.status == step.exit, "file: \(step): \(onFile.status) \(onFile.stderr)")
            #expect(onServer.status == step.exit, "\(engine): \(step): \(onServer.status) \(onServer.stderr)")
            #expect(onFile.stderr == onServer.stderr, "\(step)")
            #expect(onFile.stdout == onServer.stdout, "\(step): \(Self.difference(onFile.stdout, onServer.stdout))")
            if let output = step.output { #expect(onFile.stdout == output, "\(step)") }
            if step.exit != 0 { #expect(!onFile.stderr.isEmpty, "\(step): a refusal says why") }
        }
    }
}
