import Foundation
import ResvTestKit
import Testing

/// The waitlist as users meet it, through the built binaries: twenty `resv
/// reserve --waitlist` processes at once on a day with 20 places left, then
/// places freed, on a store file and on a server (SQLite, and PostgreSQL when
/// the tests have one).
@Suite("Waitlist, end to end", .ownThreads, .timeLimit(.minutes(30)))
struct WaitlistEndToEndTests {
    static var backends: [String] { ["file"] + ServerTests.databases }

    @Test(arguments: backends)
    func twentyConcurrentWaitlistRequestsBookTwoAndQueueEighteenThenTenArePromoted(backend: String) throws {
        let sandbox = try Sandbox()
        // Mount Rainier takes 120 a day; a day of its own, as PostgreSQL is shared between tests.
        let day = Date(timeIntervalSince1970: 30_000_000_000 + Double(Int.random(in: 0..<100_000)) * 86_400)
        let date = String(ISO8601DateFormatter().string(from: day).prefix(10)) + "T18:00:00Z"
        var setup = "cd '\(sandbox.directory.path)'\n"
        var server: ServerProcess?
        defer { server?.stop() }
        if backend != "file" {
            let spec =
                backend == "sqlite"
                ? sandbox.directory.appendingPathComponent("server.sqlite").path
                : try #require(ProcessInfo.processInfo.environment["RESV_TEST_POSTGRES_URL"])
            let token = try ServerProcess.createToken("queue-\(UUID().uuidString.prefix(6))", database: spec)
            let started = try ServerProcess(database: spec)
            server = started
            setup += "export RESV_SERVER=http://127.0.0.1:\(started.port) RESV_TOKEN=\(token); unset RESV_STORE\n"
        }
        let first = try sandbox.shell(
            setup + "resv reserve -l 'Mount Rainier' -d \(date) -n 100 --json | jq -r .id")
        #expect(first.status == 0, "\(first.stderr)")
        let hundred = first.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let crowd = try sandbox.shell(
            setup + """
                for i in $(seq 20); do
                  ( resv reserve -l 'Mount Rainier' -d \(date) -n 10 --waitlist --json > "out.$i" 2> "err.$i"
                    echo $? > "rc.$i" ) &
                done
                wait
                cat rc.* | sort | uniq -c | tr -s ' '
                """)
        #expect(crowd.status == 0, "\(crowd.stderr)")
        #expect(crowd.stdout == " 20 0\n", "every request is answered 0: booked or waitlisted")
        var statuses: [String: Int] = [:]
        var positions: [Int] = []
        for index in 1...20 {
            let out = YearsAhead.back(try Data(contentsOf: sandbox.directory.appendingPathComponent("out.\(index)")))
            let object = try JSONSerialization.jsonObject(with: out) as? [String: Any] ?? [:]
            statuses[object["status"] as? String ?? "?", default: 0] += 1
            if let position = object["waitlistPosition"] as? Int { positions.append(position) }
            let err = try YearsAhead.read(sandbox.directory.appendingPathComponent("err.\(index)"))
            if object["status"] as? String == "waitlisted" {
                #expect(err.contains("is waitlisted at position"), "\(err)")
            } else {
                #expect(err.isEmpty, "\(err)")
            }
        }
        #expect(statuses == ["confirmed": 2, "waitlisted": 18])
        #expect(positions.sorted() == Array(1...18), "each joined the list at its own place")
        let listed = try sandbox.shell(
            setup + "resv list --json | jq -c '[.[] | select(.status == \"waitlisted\")] | sort_by(.waitlistPosition) "
                + "| map(.id)'")
        let queue = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String] ?? []
        #expect(queue.count == 18, "\(listed.stderr)")

        let freed = try sandbox.shell(setup + "resv cancel \(hundred) --json >/dev/null && resv list --json")
        #expect(freed.status == 0, "\(freed.stderr)")
        let after = try JSONSerialization.jsonObject(with: Data(freed.stdout.utf8)) as? [[String: Any]] ?? []
        let now = Dictionary(uniqueKeysWithValues: after.map { ($0["id"] as? String ?? "", $0["status"] as? String) })
        #expect(queue.prefix(10).allSatisfy { now[$0] == "confirmed" }, "the first ten in order of joining")
        #expect(queue.dropFirst(10).allSatisfy { now[$0] == "waitlisted" })
        #expect(after.filter { $0["status"] as? String == "confirmed" }.count == 12)
        let left = after.filter { $0["status"] as? String == "waitlisted" }.compactMap {
            $0["waitlistPosition"] as? Int
        }
        #expect(left.sorted() == Array(1...8), "the rest move up")
        let promoted = try sandbox.shell(
            setup + "resv log --json | jq '[.[] | select(.change == \"promoted\")] | length'")
        #expect(promoted.stdout == "10\n", "each promoted exactly once: \(promoted.stderr)")
        let undo = try sandbox.shell(setup + "resv undo")
        #expect(undo.status == 1, "the cancel's places went to the waitlist: \(undo.stdout)")
        #expect(undo.stderr.contains("Mount Rainier is full on"), "\(undo.stderr)")
    }
}
