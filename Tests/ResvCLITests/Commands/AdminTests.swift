import Foundation
import ReservationCore
import Testing

/// `resv admin capacity|close|open` on the file store (its owner is its admin) and in
/// memory, run in this process: what they print, their exit codes, what the store keeps.
@Suite("resv admin", .timeLimit(.minutes(30)))
struct AdminTests {
    static func book(_ sandbox: Sandbox, _ party: Int, at time: String = "10:00") async throws -> String {
        let run = await sandbox.resv(
            "reserve", "-l", "half dome", "-d", "2030-12-01 \(time)", "-n", "\(party)", "--json")
        #expect(run.status == 0, "\(run.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        return try #require(json["id"] as? String)
    }

    @Test(arguments: Backend.allCases)
    func overAndClosedDaysAreRefusedUnlessTheCommandSaysWhatHappens(_ backend: Backend) async throws {
        let sandbox = try Sandbox(backend)
        let first = try await Self.book(sandbox, 200)
        let second = try await Self.book(sandbox, 90, at: "11:00")

        let before = try await sandbox.state()
        let over = await sandbox.resv("admin", "capacity", "half dome", "250", "--on", "2030-12-01")
        #expect(over.status == 1)
        #expect(over.stdout.isEmpty)
        #expect(over.stderrLines.count == 1)
        #expect(over.stderr.contains("40 places are over at Half Dome on 2030-12-01"), "\(over.stderr)")
        #expect(try await sandbox.state() == before)

        let lowered = await sandbox.resv("admin", "capacity", "half dome", "250", "--on", "2030-12-01", "--cancel")
        #expect(lowered.status == 0, "\(lowered.stderr)")
        #expect(lowered.stdout == "2030-12-01  capacity 250\n")
        #expect(lowered.stderr.contains("Half Dome: 1 party cancelled."))
        let log = await sandbox.resv("log", second, "--json")
        #expect(log.stdout.contains(#""reason" : "capacity lowered to 250""#), "\(log.stdout)")

        let closed = await sandbox.resv(
            "admin", "close", "half dome", "2030-12-01..2030-12-02", "--reason", "rockfall", "--waitlist")
        #expect(closed.status == 0, "\(closed.stderr)")
        #expect(closed.stdout == "2030-12-01  closed: rockfall\n2030-12-02  closed: rockfall\n")
        let shown = await sandbox.resv("show", first, "--json")
        #expect(shown.stdout.contains(#""status" : "waitlisted""#), "\(shown.stdout)")

        let refused = await sandbox.resv("reserve", "-l", "half dome", "-d", "2030-12-02 09:00", "-n", "1")
        #expect(refused.status == 1)
        #expect(refused.stderr == "resv: Half Dome is closed on 2030-12-02: rockfall\n", "\(refused.stderr)")

        let table = await sandbox.resv("availability", "half dome", "--from", "2030-12-01", "--to", "2030-12-03")
        #expect(table.stdout.contains("NOTE"), "\(table.stdout)")
        #expect(table.stdout.contains("closed: rockfall"))
        let json = await sandbox.resv(
            "availability", "half dome", "--from", "2030-12-01", "--to", "2030-12-01", "--json")
        #expect(json.stdout.contains(#""closed" : "rockfall""#), "\(json.stdout)")
        #expect(json.stdout.contains(#""override" : true"#))

        let opened = await sandbox.resv("admin", "open", "half dome", "2030-12-01..2030-12-02")
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(opened.stdout == "2030-12-01  open, capacity 300\n2030-12-02  open, capacity 300\n")
        #expect(opened.stderr.contains("1 party promoted from the waitlist"), "\(opened.stderr)")
    }

    @Test func theFileKeepsTheDaysAndWhatItDoesNotKnow() async throws {
        let halfDome = "937fea60-bb7b-4ee8-85da-c79962987917"
        let seed = """
            {"version": 1, "reservations": [], "team": "north",
             "days": [{"landmarkId": "\(halfDome)", "date": "2030-12-05", "capacity": 20, "by": "ops"}]}
            """
        let sandbox = try Sandbox(.jsonFile, seed: seed)
        #expect(await sandbox.resv("admin", "close", "half dome", "2030-12-05", "--reason", "ice").status == 0)
        let stored = try sandbox.storeJSON()
        #expect(stored["team"] as? String == "north")
        let days = try #require(stored["days"] as? [[String: Any]])
        #expect(days.count == 1)
        #expect(days.first?["by"] as? String == "ops")
        #expect(days.first?["capacity"] as? Int == 20)
        #expect(days.first?["closed"] as? String == "ice")
        #expect(await sandbox.resv("admin", "open", "half dome", "2030-12-05").status == 0)
        #expect(try sandbox.storeJSON()["days"] == nil)
    }

    @Test func badInputIsOneLineExit64AndChangesNothing() async throws {
        let sandbox = try Sandbox(.jsonFile)
        _ = try await Self.book(sandbox, 2)
        let before = try await sandbox.state()
        let cases: [([String], String)] = [
            (["capacity", "half dome", "--on", "2030-12-01", "--", "-1"], "out of range"),
            (["capacity", "half dome", "1000001", "--on", "2030-12-01"], "out of range"),
            (["capacity", "half dome", "5", "--on", "2030-12-03..2030-12-01"], "is empty"),
            (["capacity", "half dome", "5", "--on", "2030-01-01..2031-01-02"], "more than 366 days"),
            (["capacity", "half dome", "5", "--on", "2030-02-30"], "2030-02-30"),
            (["capacity", "half dome", "5", "--on", "2030-12-01.."], "DAY..DAY"),
            (["capacity", "golden gate", "5", "--on", "2030-12-01"], "takes everyone"),
            (["close", "half dome", "2030-12-01", "--reason", String(repeating: "x", count: 501)], "501 characters"),
            (["close", "half dome", "2030-12-01", "--reason", "two\nlines"], "control character"),
            (["close", "half dome", "2030-12-01", "--reason", "x", "--cancel", "--waitlist"], "not both"),
            (["close", "nowhere at all", "2030-12-01", "--reason", "x"], "no landmark matches"),
        ]
        for (arguments, message) in cases {
            let run = await sandbox.resv(["admin"] + arguments)
            run.expectUsageError(containing: message, arguments.joined(separator: " "))
            #expect(try await sandbox.state() == before, "\(arguments)")
        }
    }
}
