import Foundation
import ResvTestKit
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Waits that wait, and a server that stops or loses its database (docs/contracts.md,
/// "At team scale (several instances, one database)"): `resv wait` past
/// RESV_REQUEST_TIMEOUT, a wait that can no longer succeed, a 503 of a server whose database is away, SIGTERM with long polls waiting, a port taken.
@Suite("Waits that wait, and a server that stops", .ownThreads, .timeLimit(.minutes(30)))
struct WaitsAndStopsTests {
    static let waiting = "5eed4444-4444-4444-8444-444444444444"

    /// A reservation of the fault server's catalog with `status`.
    static func record(_ status: String) -> String {
        #"{"id":"\#(waiting)","landmarkId":"7c6984ff-188e-417e-b476-ec5f30b8d745","date":"2031-06-01T10:00:00Z","partySize":2,"status":"\#(status)"}"#
    }

    /// A change page with one `promoted` change of the waiting reservation, or none.
    static func page(cursor: String, promoted: Bool) -> String {
        let change =
            #"{"at":"2031-01-01T00:00:00Z","change":"promoted","reservationId":"\#(waiting)","after":\#(record("confirmed")),"command":"c1","cursor":"\#(cursor)"}"#
        return #"{"changes":[\#(promoted ? change : "")],"cursor":"\#(cursor)"}"#
    }

    /// The README's `resv wait "$id" --for confirmed` with a request timeout of one second and a
    /// promotion that comes in a long poll the server holds for three: the poll is not cut, the
    /// reservation is read again afresh (not from the cache) and the wait ends with 0.
    @Test func aWaitOutlastsTheRequestTimeoutAndNeverReadsTheCache() throws {
        let reads = Mutex(0)
        let server = try FaultServer(
            FaultTests.routes { request, _ in
                if request.path.hasPrefix("/changes") {
                    guard request.path.contains("after=") else {
                        return .respond(status: 200, body: #"{"changes":[],"cursor":"s1.0000000000000000"}"#)
                    }
                    let promoted = Self.page(cursor: "s2.0000000000000000", promoted: true)
                    if request.path.contains("after=s1.") {
                        return .delayed(seconds: 3, .respond(status: 200, body: promoted))
                    }
                    return .respond(status: 200, body: Self.page(cursor: "s2.0000000000000000", promoted: false))
                }
                let read = reads.withLock { reads in
                    reads += 1
                    return reads
                }
                return .respond(status: 200, body: "[\(Self.record(read == 1 ? "waitlisted" : "confirmed"))]")
            })
        defer { server.stop() }
        let run = try FaultTests().resv(
            server, "wait", "5eed4444", "--for", "confirmed", "--timeout", "120", "--json",
            environment: ["RESV_REQUEST_TIMEOUT": "1"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains(#""status" : "confirmed""#), "\(run.stdout)")
        #expect(run.stderr.isEmpty, "no cache, no warning: \(run.stderr)")
        #expect(reads.withLock { $0 } == 2, "read once, and once more after the promotion")
    }

    /// A wait for `confirmed` of a reservation that is cancelled (before, or while it waits) ends at
    /// once with exit 1 and one line saying so, on a file and on a server; `--json` names it `refused`.
    @Test(arguments: ["file", "sqlite"])
    func aWaitThatCanNoLongerSucceedSaysSoAtOnce(backend: String) throws {
        let sandbox = try Sandbox()
        let (setup, server) = try sandbox.shellSetup(backend: backend, user: "gone")
        defer { server?.stop() }
        let visit = visitAhead()
        // The timeouts are far off: a wait that did not end at once would end with "still waitlisted".
        let run = try sandbox.shell(
            setup + """
                full=$(resv reserve -l 'Mount Rainier' -d \(visit) -n 120 --json | jq -r .id)
                waiting=$(resv reserve -l 'Mount Rainier' -d \(visit) -n 2 --waitlist --json 2>/dev/null \
                  | jq -r .id)
                resv wait "$waiting" --for confirmed --timeout 600 > wait.out 2> wait.err &
                waiter=$!
                resv cancel "$waiting" > /dev/null
                wait $waiter; echo "wait $?"
                cat wait.err
                resv wait "$waiting" --for confirmed --timeout 600; echo "again $?"
                resv wait "$waiting" --for confirmed --timeout 600 --json; echo "json $?"
                resv wait "$waiting" --for cancelled --json | jq -r .status
                """)
        #expect(run.stdout.contains("wait 1\n"), "\(run.stdout) \(run.stderr)")
        let id = run.stdout.firstMatch(of: /reservation ([0-9a-f]{8}) is cancelled/).map { String($0.1) } ?? "?"
        let line = "resv: reservation \(id) is cancelled: it can no longer become confirmed; stopped waiting\n"
        #expect(run.stdout.contains("wait 1\n" + line), "\(run.stdout)")
        #expect(run.stdout.contains("again 1\n") && run.stdout.contains("json 1\n"), "\(run.stdout)")
        #expect(run.stderr.contains(line), "already cancelled: the same line: \(run.stderr)")
        #expect(run.stderr.contains(#"{"error":{"code":"refused","exitCode":1,"message":"reservation \#(id)"#))
        #expect(run.stdout.hasSuffix("cancelled\n"), "the status it has is waited for as before")
        #expect(!run.stderr.contains("still"), "\(run.stderr)")
    }

    /// A server whose database is away answers 503 `databaseUnavailable`: resv says the server
    /// cannot reach its database (69), never that the server cannot be reached, and never shows
    /// the cache it has; `--json` carries the code.
    @Test func aServerWithoutItsDatabaseIsNamedSoAndExit69() throws {
        let down = Mutex(false)
        let server = try FaultServer(
            FaultTests.routes { _, _ in
                down.withLock { $0 }
                    ? .respond(
                        status: 503, headers: ["Retry-After": "0"],
                        body:
                            #"{"error":true,"code":"databaseUnavailable","reason":"the server cannot reach its database; retry later"}"#
                    )
                    : .respond(status: 200, body: "[\(FaultTests.good)]")
            })
        defer { server.stop() }
        let sandbox = try Sandbox()
        let environment = [
            "RESV_SERVER": server.url, "RESV_TOKEN": "resv_test",
            "XDG_CACHE_HOME": sandbox.directory.appendingPathComponent("cache").path,
        ]
        let cached = try sandbox.resv(["list"], environment: environment)
        #expect(cached.status == 0, "\(cached.stderr)")
        down.withLock { $0 = true }
        let list = try sandbox.resv(["list"], environment: environment)
        #expect(list.status == 69)
        // Named as the server answered each try (issue 60), never "no answer".
        #expect(
            list.stderr.wholeMatch(
                of: try Regex(
                    "resv: the server at \(NSRegularExpression.escapedPattern(for: server.url)) answered that its "
                        + #"database is unavailable \(503\) to \d+ tries (over \d+ s|within a second); retry later\n"#))
                != nil,
            "\(list.stderr)")
        #expect(list.stdout.isEmpty, "the cache is not the answer of a server that answers")
        let json = try sandbox.resv(["list", "--json"], environment: environment)
        #expect(json.status == 69)
        #expect(json.stderr.contains(#""code":"databaseUnavailable""#), "\(json.stderr)")
        let before = server.requests.count
        let changed = try sandbox.resv(["cancel", "5eed3333"], environment: environment)
        #expect(
            changed.status == 69 && changed.stderr.contains("its database is unavailable (503)"), "\(changed.stderr)")
        #expect(server.requests.count > before)
    }

    /// SIGTERM with long polls waiting: each poll is answered 200 with no changes and the cursor it
    /// asked with, before the minute of waiting it asked for, and the server exits 0; what was
    /// booked before is all there after a restart.
    @Test func sigtermAnswersTheWaitingPollsAndStops() async throws {
        let sandbox = try Sandbox()
        let database = sandbox.directory.appendingPathComponent("server.sqlite").path
        let token = try ServerProcess.createToken("stop", database: database)
        let server = try ServerProcess(database: database)
        defer { server.stop() }
        let body =
            #"{"landmarkId":"\#(OperationsTests.halfDome)","date":"2031-06-01T10:00:00Z","partySize":1}"#
        for _ in 0..<5 { #expect(try await server.request("POST", "/reservations", token: token, body: body).0 == 201) }
        let start = try await server.request("GET", "/changes", token: token)
        let cursor = try #require(
            (try JSONSerialization.jsonObject(with: start.1) as? [String: Any])?["cursor"] as? String)
        let polls = 20
        let asked = 60.0  // The most a poll may ask to wait.
        // A session of their own, a connection each: the shared one holds six per server.
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = polls
        let session = URLSession(configuration: configuration)
        let answers = Task {
            try await withThrowingTaskGroup(of: (Int, Data, Duration).self) { group in
                for _ in 0..<polls {
                    group.addTask {
                        var request = URLRequest(
                            url: URL(string: "http://127.0.0.1:\(server.port)/changes?after=\(cursor)&wait=60")!)
                        request.timeoutInterval = 600
                        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
                        let began = ContinuousClock.now
                        let (data, response) = try await session.data(for: request)
                        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data, ContinuousClock.now - began)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        defer { answers.cancel() }
        // Until every poll is waiting in the server: its own count of GETs under way, this one's included.
        var waiting = 0
        while waiting < polls + 1 {
            let metrics = String(decoding: try await server.request("GET", "/metrics", token: nil).1, as: UTF8.self)
            waiting =
                metrics.split(separator: "\n")
                .first { $0.hasPrefix(#"resv_http_active_requests{method="GET"} "#) }
                .flatMap { Double($0.split(separator: " ").last ?? "") }.map { Int($0) } ?? 0
            if waiting < polls + 1 { try await Task.sleep(for: .milliseconds(50)) }
        }
        let status = await Task.detached { server.stop() }.value
        #expect(status == 0)
        let answered = try await answers.value
        #expect(answered.count == polls)
        for (code, data, took) in answered {
            #expect(code == 200)
            #expect(String(decoding: data, as: UTF8.self) == #"{"changes":[],"cursor":"\#(cursor)"}"#)
            // Not a bound on speed: a poll answered at its wait's end was not answered by the stop.
            #expect(took < .seconds(asked), "answered after \(took), as if the stop had waited for it")
        }
        let again = try ServerProcess(database: database)
        defer { again.stop() }
        let list = try await again.request("GET", "/reservations", token: token)
        #expect((try JSONSerialization.jsonObject(with: list.1) as? [Any])?.count == 5, "nothing acknowledged lost")
    }

    /// A second server on a port that is taken: one line naming the address and the port, exit 69.
    @Test func aTakenPortIsOneLineNamingIt() throws {
        let sandbox = try Sandbox()
        let first = try ServerProcess(database: sandbox.directory.appendingPathComponent("a.sqlite").path)
        defer { first.stop() }
        let second = try runProcess(
            Binary.server.path,
            [
                "serve", "--database", sandbox.directory.appendingPathComponent("b.sqlite").path, "--port",
                String(first.port),
            ], environment: [:], stdin: nil)
        #expect(second.status == 69)
        #expect(second.stderrLines.count == 1, "\(second.stderr)")
        #expect(
            second.stderr.hasPrefix("resv-server: cannot listen on 127.0.0.1:\(first.port): the address is in use"),
            "\(second.stderr)")
        #expect(!second.stderr.contains("errno"))
    }
}
