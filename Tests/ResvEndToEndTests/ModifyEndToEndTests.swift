import Foundation
import ResvTestKit
import Testing

/// `resv modify` as users meet it: on a file and on a real server, twelve
/// processes moving parties onto one day at once, and a stale If-Match.
@Suite("Modify, end to end", .ownThreads, .timeLimit(.minutes(30)))
struct ModifyEndToEndTests {
    static let hallID = "33333333-2222-4333-8444-555555555555"
    static let catalog = """
        [{"id": "\(hallID)", "name": "Small Hall", "location": "Testville", "category": "lakes", "capacity": 120}]
        """
    static let dayA = "2100-03-01T10:00:00Z"
    static let dayB = "2100-03-02T10:00:00Z"

    /// Runs twelve `resv modify ID -d dayB` at once; returns (exit status, stderr) of each.
    static func moveConcurrently(_ ids: [String], in sandbox: Sandbox, exports: String = "") throws -> [(
        String, String
    )] {
        let lines = ids.enumerated().map { index, id in
            "( resv modify \(id) -d 2100-03-02T15:00:00Z --format ndjson > out.\(index) 2> err.\(index); echo $? > rc.\(index) ) &"
        }
        let run = try sandbox.shell(
            "cd '\(sandbox.directory.path)' || exit 1\n\(exports)\n" + lines.joined(separator: "\n") + "\nwait")
        #expect(run.status == 0, "\(run.stderr)")
        return try ids.indices.map { index in
            func read(_ name: String) throws -> String {
                try YearsAhead.read(sandbox.directory.appendingPathComponent("\(name).\(index)"))
            }
            return (try read("rc").trimmingCharacters(in: .whitespacesAndNewlines), try read("err"))
        }
    }

    static func booked(_ list: Run, on day: String) throws -> Int {
        let items = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        return items.filter { ($0["date"] as? String ?? "").hasPrefix(day) && $0["status"] as? String != "cancelled" }
            .reduce(0) { $0 + ($1["partySize"] as? Int ?? 0) }
    }

    static func expectNineMovedThreeRefused(_ results: [(String, String)]) {
        #expect(results.count { $0.0 == "0" } == 9, "\(results)")
        let refused = results.filter { $0.0 != "0" }
        #expect(refused.count == 3)
        for (status, message) in refused {
            #expect(status == "1")
            #expect(
                plainError(message) == "resv: Small Hall is full on 2100-03-02: 120 of 120 places taken, 10 requested\n"
            )
        }
    }

    @Test func twelveConcurrentMovesOnAFileLeaveExactly120() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(#"{"version": 1, "landmarks": \#(Self.catalog), "reservations": []}"#)
        #expect(try sandbox.resv("reserve", "-l", "Small Hall", "-d", Self.dayB, "-n", "30").status == 0)
        var ids: [String] = []
        for _ in 0..<12 {
            let run = try sandbox.resv("reserve", "-l", "Small Hall", "-d", Self.dayA, "-n", "10", "--json")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            ids.append(try #require(object["id"] as? String))
        }
        Self.expectNineMovedThreeRefused(try Self.moveConcurrently(ids, in: sandbox))
        let list = try sandbox.resv("list", "--json")
        #expect(try Self.booked(list, on: "2100-03-02") == 120)
        #expect(try Self.booked(list, on: "2100-03-01") == 30)
    }

    @Test func twelveConcurrentMovesOnAServerLeaveExactly120() throws {
        let remote = try RemoteTests.Remote(landmarks: Self.catalog)
        #expect(
            try remote.resv("reserve", "-l", "Small Hall", "-d", Self.dayB, "-n", "30", token: remote.bob).status == 0)
        var ids: [String] = []
        for _ in 0..<12 {
            let run = try remote.resv("reserve", "-l", "Small Hall", "-d", Self.dayA, "-n", "10", "--json")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            ids.append(try #require(object["id"] as? String))
        }
        let exports = remote.environment(remote.alice).map { "export \($0.key)='\($0.value)'" }.joined(separator: "; ")
        Self.expectNineMovedThreeRefused(try Self.moveConcurrently(ids, in: remote.sandbox, exports: exports + ";"))
        let days = try remote.resv("availability", "Small Hall", "--from", "2100-03-02", "--to", "2100-03-02", "--json")
        #expect(days.stdout.contains(#""taken" : 120"#) || days.stdout.contains(#""taken":120"#), "\(days.stdout)")
    }

    @Test func aStaleIfMatchIsAnswered412AndNothingChanges() throws {
        let remote = try RemoteTests.Remote(landmarks: Self.catalog)
        let run = try remote.resv("reserve", "-l", "Small Hall", "-d", Self.dayA, "-n", "4", "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let id = try #require(object["id"] as? String)
        #expect(object["version"] as? Int == 1)
        #expect(try remote.resv("modify", String(id.prefix(8)), "-n", "5").status == 0)
        let curl = try runProcess(
            "/usr/bin/curl",
            [
                "-s", "-o", "/dev/stderr", "-w", "%{http_code}", "-X", "PATCH", "-H",
                "Authorization: Bearer \(remote.alice)",
                "-H", "If-Match: \"1\"", "-H", "Content-Type: application/json", "--data", #"{"partySize": 9}"#,
                "\(remote.url)/reservations/\(id)",
            ], environment: [:], stdin: nil)
        #expect(curl.stdout == "412", "\(curl.stderr)")
        #expect(curl.stderr.contains("versionMismatch"))
        let shown = try remote.resv("show", id, "--json")
        #expect(shown.stdout.contains(#""partySize" : 5"#), "\(shown.stdout)")
        #expect(shown.stdout.contains(#""version" : 2"#), "\(shown.stdout)")
    }

    @Test func modifyRefusesWhatItShouldWithOneLine() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(#"{"version": 1, "landmarks": \#(Self.catalog), "reservations": []}"#)
        let made = try sandbox.resv("reserve", "-l", "Small Hall", "-d", Self.dayA, "-n", "4", "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: Any])
        let id = try #require(object["id"] as? String)
        let short = String(id.prefix(6))
        let cases: [([String], Int32)] = [
            (["modify", short], 64),
            (["modify", short, "-n", "0"], 64),
            (["modify", short, "-n", "x"], 64),
            (["modify", short, "-d", "2100-02-30T10:00:00Z"], 64),
            (["modify", short, "-d", "2001-01-01T10:00:00Z"], 64),
            (["modify", short, "-l", "Nowhere Land"], 64),
            (["modify", short, "--note", String(repeating: "a", count: 501)], 64),
            (["modify", "zzzz", "-n", "3"], 64),
            (["modify", "ffff", "-n", "3"], 1),
            (["modify", short, "-n", "121"], 1),
        ]
        for (arguments, status) in cases {
            let run = try sandbox.resv(arguments)
            #expect(run.status == status, "\(arguments): \(run.status) \(run.stderr)")
            #expect(run.stderrLines.count == 1, "\(arguments): \(run.stderr)")
            #expect(run.stdout.isEmpty)
        }
        let noted = try sandbox.resv("modify", short, "--note", "gate \u{1B}]0;pwned\u{07} B")
        #expect(noted.status == 0, "\(noted.stderr)")
        #expect(!noted.stdout.contains("\u{1B}"), "\(noted.stdout)")
        #expect(noted.stdout.contains("Version"))
        let json = try sandbox.resv("show", short, "--json")
        #expect(json.stdout.contains(#""note" : "gate \u001b]0;pwned\u0007 B""#), "\(json.stdout)")
        #expect(json.stdout.contains(#""version" : 2"#))
        #expect(try sandbox.resv("cancel", short).status == 0)
        let cancelled = try sandbox.resv("modify", short, "-n", "2")
        #expect(cancelled.status == 1)
        #expect(cancelled.stderr.contains("cancelled and cannot be modified"), "\(cancelled.stderr)")
    }
}
