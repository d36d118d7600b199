import Foundation
import ResvTestKit
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `resv-server` run as a user runs it: the built binary on a free loopback
/// port, spoken to with curl and URLSession.
@Suite("resv-server binary", .ownThreads, .timeLimit(.minutes(30)))
struct ServerTests {
    static var databases: [String] {
        ["sqlite"] + (ProcessInfo.processInfo.environment["RESV_TEST_POSTGRES_URL"] == nil ? [] : ["postgres"])
    }

    @Test(arguments: databases)
    func readmeFlowWithCurl(database: String) async throws {
        let sandbox = try Sandbox()
        let spec =
            database == "sqlite"
            ? sandbox.directory.appendingPathComponent("server.sqlite").path
            : try #require(ProcessInfo.processInfo.environment["RESV_TEST_POSTGRES_URL"])
        let token = try ServerProcess.createToken("ada-\(UUID().uuidString.prefix(6))", database: spec)
        #expect(token.wholeMatch(of: /resv_[0-9a-f]{64}/) != nil, "\(token)")
        let server = try ServerProcess(database: spec)
        defer { server.stop() }

        func curl(_ arguments: String...) throws -> Run {
            try runProcess(
                "/usr/bin/env", ["curl", "-sS", "-w", "\n%{http_code}"] + arguments,
                environment: ["PATH": "/usr/bin:/bin"], stdin: nil)
        }
        func split(_ run: Run) -> (body: String, status: Int) {
            let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            return (lines.dropLast().joined(separator: "\n"), Int(lines.last ?? "") ?? 0)
        }
        let base = "http://127.0.0.1:\(server.port)"
        #expect(split(try curl("\(base)/health")).status == 200)
        #expect(split(try curl("\(base)/reservations")).status == 401)
        #expect(split(try curl("-H", "Authorization: Bearer resv_wrong", "\(base)/reservations")).status == 401)

        let auth = "Authorization: Bearer \(token)"
        let created = split(
            try curl(
                "-H", auth, "-H", "Content-Type: application/json", "-d",
                #"{"landmarkId":"7c6984ff-188e-417e-b476-ec5f30b8d745","date":"2031-06-01T10:00:00Z","partySize":2}"#,
                "\(base)/reservations"))
        #expect(created.status == 201, "\(created.body)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(created.body.utf8)) as? [String: Any])
        let id = try #require(object["id"] as? String)

        let list = split(try curl("-H", auth, "\(base)/reservations"))
        #expect(list.status == 200)
        #expect(list.body.contains(id))

        let cancelled = split(try curl("-X", "DELETE", "-H", auth, "\(base)/reservations/\(id)"))
        #expect(cancelled.status == 200)
        #expect(cancelled.body.contains(#""status":"cancelled""#))
    }

    @Test func tokenIsPrintedOnceAndOnlyItsHashStored() throws {
        let sandbox = try Sandbox()
        let database = sandbox.directory.appendingPathComponent("server.sqlite").path
        let run = try runProcess(
            Binary.server.path, ["token", "create", "grace", "--database", database], environment: [:], stdin: nil)
        #expect(run.status == 0)
        let token = run.stdout.trimmingCharacters(in: .newlines)
        #expect(run.stdout.split(separator: "\n").count == 1)
        #expect(run.stderr.contains("shown only this once"))
        #expect(!run.stderr.contains(token))
        var stored = Data()
        for suffix in ["", "-wal"] {
            stored += (try? Data(contentsOf: URL(fileURLWithPath: database + suffix))) ?? Data()
        }
        #expect(stored.range(of: Data(token.utf8)) == nil)
        #expect(stored.range(of: Data(token.dropFirst(5).utf8)) == nil)
    }

    @Test func restartKeepsData() async throws {
        let sandbox = try Sandbox()
        let database = sandbox.directory.appendingPathComponent("server.sqlite").path
        let token = try ServerProcess.createToken("lin", database: database)
        var ids: [String] = []
        do {
            let server = try ServerProcess(database: database)
            for day in 1...3 {
                let (status, body) = try await server.request(
                    "POST", "/reservations", token: token,
                    body:
                        #"{"landmarkId":"7c6984ff-188e-417e-b476-ec5f30b8d745","date":"2031-07-0\#(day)T10:00:00Z","partySize":\#(day)}"#
                )
                #expect(status == 201)
                ids.append(
                    try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])["id"] as? String ?? "")
            }
            #expect(server.stop() == 0)
        }
        let again = try ServerProcess(database: database)
        defer { again.stop() }
        let (status, body) = try await again.request("GET", "/reservations", token: token)
        #expect(status == 200)
        let listed = try #require(try JSONSerialization.jsonObject(with: body) as? [[String: Any]])
        #expect(listed.compactMap { $0["id"] as? String } == ids)
    }

    @Test func fiftyConcurrentCreatesAreAllStoredOnce() async throws {
        let sandbox = try Sandbox()
        let database = sandbox.directory.appendingPathComponent("server.sqlite").path
        let token = try ServerProcess.createToken("many", database: database)
        let server = try ServerProcess(database: database)
        defer { server.stop() }
        let created = try await withThrowingTaskGroup(of: String?.self) { group in
            for index in 0..<50 {
                group.addTask {
                    let (status, body) = try await server.request(
                        "POST", "/reservations", token: token,
                        headers: ["Idempotency-Key": "create-\(index)"],
                        body:
                            #"{"landmarkId":"7c6984ff-188e-417e-b476-ec5f30b8d745","date":"2032-01-01T10:00:00Z","partySize":\#(index + 1)}"#
                    )
                    guard status == 201 else { return nil }
                    return (try JSONSerialization.jsonObject(with: body) as? [String: Any])?["id"] as? String
                }
            }
            return try await group.reduce(into: [String]()) { if let id = $1 { $0.append(id) } }
        }
        #expect(created.count == 50)
        let (_, body) = try await server.request("GET", "/reservations", token: token)
        let listed = try #require(try JSONSerialization.jsonObject(with: body) as? [[String: Any]])
        #expect(listed.count == 50)
        #expect(Set(listed.compactMap { $0["id"] as? String }) == Set(created))
        #expect(Set(listed.compactMap { $0["partySize"] as? Int }) == Set(1...50))
    }

    @Test func tokensNeverReachTheLog() async throws {
        let sandbox = try Sandbox()
        let database = sandbox.directory.appendingPathComponent("server.sqlite").path
        let token = try ServerProcess.createToken("quiet", database: database)
        let server = try ServerProcess(database: database, logLevel: "trace")
        let wrong = "resv_" + String(repeating: "0", count: 64)
        _ = try await server.request("GET", "/reservations", token: token)
        _ = try await server.request("GET", "/reservations", token: wrong)
        _ = try await server.request("POST", "/reservations", token: token, body: "{not json")
        _ = try await server.request(
            "POST", "/reservations", token: token,
            body: #"{"landmarkId":"7c6984ff-188e-417e-b476-ec5f30b8d745","date":"2031-06-01T10:00:00Z","partySize":2}"#)
        #expect(server.stop() == 0)
        let log = try String(contentsOf: server.log, encoding: .utf8)
        #expect(log.contains("listening on http://127.0.0.1:\(server.port)"))
        #expect(log.count > 200, "trace logging should say something: \(log)")
        for access in [
            "GET /reservations 200", "GET /reservations 401", "POST /reservations 400", "POST /reservations 201",
        ] {
            #expect(log.contains(access), "no access line '\(access)'")
        }
        #expect(!log.contains(token))
        #expect(!log.contains(wrong))
        #expect(!log.contains(String(token.dropFirst(5))))
    }

    /// A calendar subscription through curl, conditional requests too; its secret never reaches the log.
    @Test func aCalendarFeedWithCurlAndItsSecretNeverLogged() throws {
        let sandbox = try Sandbox()
        let database = sandbox.directory.appendingPathComponent("server.sqlite").path
        let token = try ServerProcess.createToken("ada", database: database)
        let server = try ServerProcess(database: database, logLevel: "trace")
        let base = "http://127.0.0.1:\(server.port)"
        func curl(_ arguments: String...) throws -> (head: String, body: String) {
            let run = try runProcess(
                "/usr/bin/env", ["curl", "-sS", "-D", "-"] + arguments, environment: ["PATH": "/usr/bin:/bin"],
                stdin: nil)
            let parts = run.stdout.components(separatedBy: "\r\n\r\n")
            return (parts[0], parts.dropFirst().joined(separator: "\r\n\r\n"))
        }
        func field(_ name: String, _ head: String) -> String? {
            head.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix(name.lowercased() + ": ") }
                .map { String($0.dropFirst(name.count + 2)) }
        }
        let auth = "Authorization: Bearer \(token)"
        let made = try curl("-X", "POST", "-H", auth, "\(base)/calendar")
        let path = try #require(made.body.firstMatch(of: /\/calendar\/[A-Za-z0-9_-]{43}\.ics/).map { String($0.0) })
        _ = try curl(
            "-H", auth, "-H", "Content-Type: application/json", "-d",
            #"{"landmarkId":"7c6984ff-188e-417e-b476-ec5f30b8d745","date":"\#(visitAhead(days: 30))","partySize":2}"#,
            "\(base)/reservations")
        let feed = try curl("\(base)\(path)")
        #expect(feed.head.hasPrefix("HTTP/1.1 200") && feed.body.hasPrefix("BEGIN:VCALENDAR\r\n"), "\(feed)")
        #expect(field("Content-Type", feed.head) == "text/calendar; charset=utf-8")
        let tag = try #require(field("ETag", feed.head))
        // A date (never the second it is sent in: see "Calendar subscriptions"); revalidation by
        // date is tested on a held clock in CalendarRouteTests, not by waiting out a second here.
        #expect(field("Last-Modified", feed.head) != nil)
        let byTag = try curl("-H", "If-None-Match: \(tag)", "\(base)\(path)")
        #expect(byTag.head.hasPrefix("HTTP/1.1 304") && byTag.body.isEmpty, "\(byTag)")
        let head = try curl("-I", "\(base)\(path)")
        #expect(head.head.hasPrefix("HTTP/1.1 200") && field("Content-Length", head.head) == "\(feed.body.utf8.count)")
        let reset = try curl("-X", "POST", "-H", auth, "\(base)/calendar/reset")
        let newPath = try #require(reset.body.firstMatch(of: /\/calendar\/[A-Za-z0-9_-]{43}\.ics/).map { String($0.0) })
        #expect(try curl("\(base)\(path)").head.hasPrefix("HTTP/1.1 404"))
        #expect(try curl("\(base)\(newPath)").head.hasPrefix("HTTP/1.1 200"))
        #expect(server.stop() == 0)
        let log = try String(contentsOf: server.log, encoding: .utf8)
        #expect(log.contains("GET /calendar/… 304") && log.contains("GET /calendar/… 404"), "\(log)")
        for secret in [path, newPath].map({ $0.dropFirst(10).dropLast(4) }) {
            #expect(!log.contains(secret), "the secret in the log")
        }
    }

    @Test func oneServerPerSQLiteFile() throws {
        let sandbox = try Sandbox()
        let database = sandbox.directory.appendingPathComponent("server.sqlite").path
        let first = try ServerProcess(database: database)
        defer { first.stop() }
        let second = try runProcess(
            Binary.server.path, ["serve", "--database", database, "--port", "0"], environment: [:], stdin: nil)
        #expect(second.status == 69)
        #expect(second.stderr.contains("another resv-server is serving \(database)"), "\(second.stderr)")
        #expect(second.stderrLines.count == 1, "\(second.stderr)")
        // Tokens can still be made while it serves.
        #expect(try ServerProcess.createToken("later", database: database).hasPrefix("resv_"))
    }

    /// A database that cannot be opened is 69; a `--database` that is not a usable URL is a
    /// usage error, 64 (libpq's host list: a bad port, too many hosts, an unknown
    /// target_session_attrs), each one line.
    @Test func unusableDatabasesAreOneLineAndExit69() throws {
        let cases: [(arguments: [String], status: Int32, message: String)] = [
            (["serve", "--database", "/nonexistent/folder/db.sqlite", "--port", "0"], 69, "does not exist"),
            (
                ["token", "create", "x", "--database", "postgres://u@127.0.0.1:1,127.0.0.1:2/db"], 69,
                "no host takes writes"
            ),
            (["serve", "--database", "mysql://localhost/db", "--port", "0"], 64, "postgres:// URL"),
            (["token", "create", "x", "--database", "postgres://127.0.0.1:1/db"], 64, "user name is missing"),
            (["token", "create", "x", "--database", "postgres://u@h1:5432,h2:0/db"], 64, "'0' is not a port"),
            (
                ["token", "create", "x", "--database", "postgres://u@h1/db?target_session_attrs=standby"], 64,
                "target_session_attrs 'standby' cannot be served"
            ),
        ]
        for (arguments, status, message) in cases {
            let run = try runProcess(Binary.server.path, arguments, environment: [:], stdin: nil)
            #expect(run.status == status, "\(arguments): \(run.stderr)")
            #expect(run.stderrLines.count == 1, "\(run.stderr)")
            #expect(run.stderr.contains(message), "\(run.stderr)")
            #expect(run.stdout.isEmpty)
        }
        let noName = try runProcess(
            Binary.server.path, ["token", "create", " ", "--database", "x.sqlite"], environment: [:], stdin: nil)
        #expect(noName.status == 64)
        let noDatabase = try runProcess(
            Binary.server.path, ["serve", "--database", "", "--port", "0"], environment: [:], stdin: nil)
        #expect(noDatabase.status == 64)
        #expect(noDatabase.stderr.contains("--database needs"), "\(noDatabase.stderr)")
        let badPort = try runProcess(
            Binary.server.path, ["serve", "--database", "x.sqlite", "--port", "70000"], environment: [:], stdin: nil)
        #expect(badPort.status == 64)
    }

    @Test func aLandmarksFileThatDoesNotMapIsRefusedInOneLine() throws {
        let sandbox = try Sandbox()
        let cases: [(text: String?, status: Int32, message: String)] = [
            (nil, 69, "cannot read the landmarks file"),
            ("[{not json", 65, "is not a usable catalog: "),
            ("[]", 65, "is not a usable catalog: it lists no landmarks"),
            (#"{"reservations": []}"#, 65, "expected an array of landmarks or an object with a landmarks array"),
            (#"{"landmarks": 3}"#, 65, "landmarks is a number, not an array"),
            (
                #"[{"id": "x", "name": "A", "location": "B", "category": "lakes"}]"#, 65,
                "landmark 1 (x): id 'x' is not a UUID"
            ),
            (
                #"[{"id": "11111111-2222-4333-8444-555555555555", "name": "A", "location": "B", "category": "lakes", "capacity": 0}]"#,
                65, "capacity 0 is not greater than 0"
            ),
            (
                #"[{"id": "11111111-2222-4333-8444-555555555555", "name": "A", "location": "B", "category": "lakes", "timeZone": "Mars/Olympus"}]"#,
                65, "Mars/Olympus"
            ),
            (
                #"[{"id": "11111111-2222-4333-8444-555555555555", "name": "A", "location": "B", "category": "lakes", "hours": {"open": "17:00", "close": "08:00"}}]"#,
                65, "landmark 1 (11111111-2222-4333-8444-555555555555): hours close 08:00 is not after open 17:00"
            ),
            (
                #"[{"id": "11111111-2222-4333-8444-555555555555", "name": "A", "location": "B", "category": "lakes", "capacity": 20, "slots": {"every": "PT1H", "first": "08:00", "last": "15:00", "capacity": 30}}]"#,
                65, "slots capacity 30 is above the day's capacity 20"
            ),
        ]
        for (index, (text, status, message)) in cases.enumerated() {
            let file = sandbox.directory.appendingPathComponent("landmarks-\(index).json")
            if let text { try Data(text.utf8).write(to: file) }
            let database = sandbox.directory.appendingPathComponent("db-\(index).sqlite").path
            let run = try runProcess(
                Binary.server.path, ["serve", "--database", database, "--port", "0", "--landmarks", file.path],
                environment: [:], stdin: nil)
            #expect(run.status == status, "\(text ?? "missing"): \(run.stderr)")
            #expect(run.stderrLines.count == 1, "\(run.stderr)")
            #expect(run.stderr.contains(message), "\(text ?? "missing"): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: database), "nothing is created for a refused catalog")
        }
    }
}

/// A running `resv-server serve` on a free loopback port, its log in a file.
final class ServerProcess: Sendable {
    let port: Int
    /// The log's folder, removed when the server is let go.
    private let folder: TemporaryDirectory
    let log: URL
    private let process: ChildProcess

    static func createToken(_ name: String, database: String) throws -> String {
        let run = try runProcess(
            Binary.server.path, ["token", "create", name, "--database", database],
            // Never the machine's /etc/resv-server/config.json: a test's server is its own.
            environment: ["RESV_SERVER_CONFIG": ""], stdin: nil)
        guard run.status == 0 else { throw ServerStartFailure(log: run.stderr) }
        return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    init(database: String, logLevel: String = "info", arguments: [String] = []) throws {
        folder = try TemporaryDirectory("server")
        log = URL(fileURLWithPath: try folder.file("server.log", ""))
        let logFile = open(log.path, O_WRONLY | O_CLOEXEC)
        guard logFile >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        defer { close(logFile) }
        process = try ChildProcess(
            Binary.server.path,
            ["serve", "--database", database, "--port", "0", "--log-level", logLevel]
                + arguments.map(YearsAhead.forward),
            environment: ProcessInfo.processInfo.environment.merging(["RESV_SERVER_CONFIG": ""]) { _, new in new },
            stdin: .null, stdout: .null, stderr: .descriptor(logFile))
        var found: Int?
        let (log, process) = (log, process)
        try? waitUntil("the server's line saying where it listens", every: .milliseconds(50)) {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            found = text.firstMatch(of: /listening on https?:\/\/127\.0\.0\.1:(\d+)/).flatMap { Int($0.1) }
            return found != nil || process.hasExited
        }
        guard let found else {
            process.signal(SIGTERM)
            throw ServerStartFailure(log: (try? String(contentsOf: log, encoding: .utf8)) ?? "")
        }
        port = found
    }

    /// Sends `signal` to the server (SIGHUP: reload the TLS files).
    func send(_ signal: Int32) { process.signal(signal) }

    /// Waits until the log holds `count` lines containing `text` (true), or the server has ended
    /// (false). An event, not a time: the server writes the line when it has done the work.
    func waitForLog(_ text: String, count: Int = 1) -> Bool {
        var seen = false
        try? waitUntil("\(count) of \(text.debugDescription) in the server's log", every: .milliseconds(20)) {
            let log = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            seen = log.components(separatedBy: text).count - 1 >= count
            return seen || process.hasExited
        }
        return seen
    }

    /// Kills the server with SIGKILL, as a crash or an OOM killer would, and waits for it.
    func kill() {
        process.signal(SIGKILL)
        _ = process.wait()
    }

    /// Stops the server with SIGTERM and returns its exit status.
    @discardableResult
    func stop() -> Int32 {
        process.signal(SIGTERM)
        return process.wait().status
    }

    /// Sends one request; the years of `path`, `headers` and `body` move ahead, and those of
    /// the answer's body back (`YearsAhead`).
    func request(
        _ method: String, _ path: String, token: String?, headers: [String: String] = [:], body: String? = nil
    ) async throws -> (Int, Data) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(YearsAhead.forward(path))")!)
        request.httpMethod = method
        request.timeoutInterval = 30
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(YearsAhead.forward(value), forHTTPHeaderField: name) }
        if let body {
            request.httpBody = Data(YearsAhead.forward(body).utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, YearsAhead.back(data))
    }

    deinit {
        process.signal(SIGTERM)
    }
}

struct ServerStartFailure: Error, CustomStringConvertible {
    let log: String
    var description: String { "resv-server did not start:\n\(log)" }
}
