import Foundation
import ResvTestKit
import Testing

/// Remote mode keeps every promise of the file store (33af81f; docs/contracts.md,
/// "HTTP backend (client) and server"): a batch is one request and leaves nothing
/// behind, the same failure exits alike on both backends, the cache never
/// contradicts this client's writes, and one deadline bounds a command.
@Suite("Remote mode keeps the file store's promises", .ownThreads, .timeLimit(.minutes(30)))
struct RemotePromisesTests {
    typealias Remote = RemoteTests.Remote

    /// 25 parties of 15 on one Half Dome day (300 places): lines 21 to 25 do not fit.
    static let overfullBatch = (0..<25).map { _ in
        #"{"landmarkId": "Half Dome", "date": "2031-08-01T10:00:00Z", "partySize": 15}"#
    }.joined(separator: "\n")

    @Test func aBatchThatDoesNotFitNamesEachLineAndLeavesNoRowOnTheServer() throws {
        let remote = try Remote()
        let run = try remote.resv("reserve", "--batch", "-", stdin: Self.overfullBatch)
        #expect(run.status == 1, "\(run.stderr)")
        for line in 21...25 {
            #expect(
                run.stderr.contains("resv: line \(line): Half Dome is full on 2031-08-01: 300 of 300 places taken"),
                "\(run.stderr)")
        }
        #expect(!run.stderr.contains("line 20:"))
        // No compensation: nothing was booked, so nothing was cancelled either.
        #expect(try remote.resv("list", "--all", "--json").stdout == "[]\n")
        let rows = try Self.rowCount(remote)
        #expect(rows == 0, "the server stored \(rows) rows")

        // The 20 that fit go in, as one request.
        let fitting = Self.overfullBatch.split(separator: "\n").prefix(20).joined(separator: "\n")
        let booked = try remote.resv("reserve", "--batch", "-", stdin: fitting)
        #expect(booked.status == 0, "\(booked.stderr)")
        #expect(try RemoteTests.ids(remote.resv("list", "--json")).count == 20)
        #expect(try Self.rowCount(remote) == 20)
    }

    @Test func aBatchIsOneRequestAndItsRefusalsAreMappedByCode() throws {
        let refusal = """
            {"error":true,"code":"batchRejected","reason":"2 of 3 requests refused",
             "failures":[{"request":2,"code":"noCapacity","reason":"Golden Gate Bridge is full on 2031-06-01"},
                         {"request":3,"code":"noCapacity","reason":"full again"}]}
            """
        let server = try FaultServer(FaultTests.routes { _, _ in .respond(status: 409, body: refusal) })
        defer { server.stop() }
        let batch = (0..<3).map { _ in
            #"{"landmarkId": "Golden Gate Bridge", "date": "2031-06-01T10:00:00Z", "partySize": 2}"#
        }.joined(separator: "\n")
        let run = try resv(server, ["reserve", "--batch", "-"], stdin: batch)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("resv: line 2: Golden Gate Bridge is full on 2031-06-01"), "\(run.stderr)")
        #expect(run.stderr.contains("resv: line 3: full again"), "\(run.stderr)")
        let posts = server.requests.filter { $0.method == "POST" }
        #expect(posts.map(\.path) == ["/reservations/batch"])
        #expect(posts.first?.headers["idempotency-key"]?.hasPrefix("resv-") == true)
    }

    /// The same refusal by code, whatever its status; an unknown code falls back on the status.
    @Test(arguments: [
        (400, "invalidPartySize", 64), (409, "noCapacity", 1), (404, "reservationNotFound", 1),
        (409, "somethingNewer", 1), (400, "somethingNewer", 64), (409, "invalidDate", 64), (404, "noRoute", 69),
    ])
    func aRefusalExitsByItsCode(status: Int, code: String, exit: Int32) throws {
        let body = #"{"error":true,"code":"\#(code)","reason":"the server's words"}"#
        let server = try FaultServer(FaultTests.routes { _, _ in .respond(status: status, body: body) })
        defer { server.stop() }
        let run = try resv(server, ["reserve", "-l", "Golden Gate Bridge", "-d", "2031-06-01T10:00:00Z", "-n", "2"])
        #expect(run.status == exit, "\(run.stderr)")
        #expect(run.stderr == "resv: the server's words\n")
    }

    @Test func aServerWithoutTheBatchRouteIsOlderAnd69() throws {
        let server = try FaultServer(
            FaultTests.routes { request, _ in
                request.method == "GET"
                    ? .respond(status: 200, body: "[\(FaultTests.good)]")
                    : .respond(
                        status: 404, body: #"{"error":true,"reason":"no route \#(request.method) \#(request.path)"}"#)
            })
        defer { server.stop() }
        let run = try resv(server, ["cancel", "5eed3333"])
        #expect(run.status == 69, "\(run.stderr)")
        #expect(
            run.stderr.contains("has no route POST /reservations/cancel: it is older than this resv"), "\(run.stderr)")
    }

    /// The same mistakes, on a file store and on a server: the same words and the same exit code.
    @Test func theSameFailureReadsAndExitsAlikeOnBothBackends() throws {
        let remote = try Remote()
        let file = try Sandbox()
        func both(_ arguments: [String], stdin: String? = nil) throws -> (Run, Run) {
            (
                try file.resv(arguments, stdin: stdin),
                try remote.sandbox.resv(arguments, environment: remote.environment(remote.alice), stdin: stdin)
            )
        }
        // A pending booking on each, and one cancelled.
        for arguments in [
            ["reserve", "-l", "Half Dome", "-d", "2031-08-02T10:00:00Z", "-n", "290", "--pending"],
            ["reserve", "-l", "Crater Lake", "-d", "2031-08-02T10:00:00Z", "-n", "2"],
        ] {
            let (a, b) = try both(arguments)
            #expect(a.status == 0 && b.status == 0, "\(a.stderr) \(b.stderr)")
        }
        func id(_ landmark: String, in run: () throws -> Run) throws -> String {
            let list = try #require(JSONSerialization.jsonObject(with: Data(try run().stdout.utf8)) as? [[String: Any]])
            return String(
                (list.first { ($0["landmark"] as? [String: Any])?["name"] as? String == landmark }?["id"] as? String
                    ?? "")
                    .prefix(8))
        }
        let fileLake = try id("Crater Lake") { try file.resv(["list", "--json"]) }
        let serverLake = try id("Crater Lake") { try remote.resv("list", "--json") }
        #expect(try file.resv(["cancel", fileLake]).status == 0)
        #expect(try remote.resv("cancel", serverLake).status == 0)

        let cases: [[String]] = [
            ["reserve", "-l", "Half Dome", "-d", "2031-08-02T12:00:00Z", "-n", "20"],  // no capacity
            ["reserve", "-l", "Half Dome", "-d", "2031-08-02T12:00:00Z", "-n", "301"],  // larger than the capacity
            ["reserve", "-l", "Nowhere", "-d", "2031-08-02T12:00:00Z", "-n", "2"],
            ["reserve", "-l", "Half Dome", "-d", "2001-08-02T12:00:00Z", "-n", "2"],
            ["reserve", "-l", "Half Dome", "-d", "2031-08-02T12:00:00Z", "-n", "0"],
            ["cancel", "ffff0000"],
            ["confirm", "ffff0000"],
            ["show", "ab"],
        ]
        for arguments in cases {
            let (a, b) = try both(arguments)
            #expect(a.status == b.status, "\(arguments): file \(a.status) \(a.stderr) server \(b.status) \(b.stderr)")
            #expect(a.stderr == b.stderr, "\(arguments)")
            #expect(a.status != 0)
        }
        // Confirming the cancelled one: refused in the same words (the short id is each backend's own).
        let fileConfirm = try file.resv(["confirm", fileLake])
        let serverConfirm = try remote.resv("confirm", serverLake)
        #expect(fileConfirm.status == 1 && serverConfirm.status == 1, "\(fileConfirm.stderr) \(serverConfirm.stderr)")
        #expect(
            fileConfirm.stderr.replacingOccurrences(of: fileLake, with: "ID")
                == serverConfirm.stderr.replacingOccurrences(of: serverLake, with: "ID"))
        // A batch whose last line does not fit: the same lines named.
        let batch = """
            {"landmarkId": "Half Dome", "date": "2031-08-02T12:00:00Z", "partySize": 5}
            {"landmarkId": "Half Dome", "date": "2031-08-02T13:00:00Z", "partySize": 6}
            """
        let (a, b) = try both(["reserve", "--batch", "-"], stdin: batch)
        #expect(a.status == 1 && b.status == 1, "\(a.stderr) \(b.stderr)")
        #expect(a.stderr == b.stderr)
        #expect(
            a.stderr.contains("resv: line 2: Half Dome is full on 2031-08-02: 295 of 300 places taken, 6 requested"))
    }

    @Test func theCacheNeverContradictsThisClientsWrites() throws {
        let remote = try Remote()
        for day in ["01", "02"] {
            #expect(
                try remote.resv("reserve", "-l", "Lake Tahoe", "-d", "2031-09-\(day)T10:00:00Z", "-n", "2").status == 0)
        }
        let before = try RemoteTests.ids(remote.resv("list", "--json"))  // cached
        #expect(before.count == 2)
        #expect(try remote.resv("cancel", String(before[0].prefix(8))).status == 0)
        let made = try remote.resv("reserve", "-l", "Crater Lake", "-d", "2031-09-03T10:00:00Z", "-n", "3", "--json")
        let newID = try #require(
            (try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: Any])?["id"] as? String)
        #expect(remote.server.stop() == 0)

        let list = try remote.resv("list", "--all", "--json")
        #expect(list.status == 0, "\(list.stderr)")
        let records = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        let status = Dictionary(
            uniqueKeysWithValues: records.map { ($0["id"] as? String ?? "", $0["status"] as? String ?? "") })
        #expect(status == [before[0]: "cancelled", before[1]: "confirmed", newID: "confirmed"])
        #expect(list.stderr.contains("cannot reach \(remote.url)"), "\(list.stderr)")

        let show = try remote.resv("show", String(newID.prefix(8)))
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.contains("Crater Lake"))

        // An id the cache does not hold: the server cannot be asked, so the truth is unknown.
        let unknown = try remote.resv("show", "ffff0000")
        #expect(unknown.status == 69, "\(unknown.stderr)")
        #expect(unknown.stderr.contains("cannot reach the server at \(remote.url)"), "\(unknown.stderr)")
        #expect(unknown.stderr.contains("have no reservation matching 'ffff0000'"), "\(unknown.stderr)")
        let offline = try remote.resv("show", "ffff0000", "--offline")
        #expect(offline.status == 69, "\(offline.stderr)")
        #expect(offline.stderr.contains("run without --offline"), "\(offline.stderr)")

        // fetch reads afresh: the cache is no answer, unless --offline asks for it, and then it says so.
        let fetch = try remote.resv("fetch", "--json")
        #expect(fetch.status == 69, "\(fetch.stderr)")
        #expect(fetch.stdout.isEmpty)
        #expect(!fetch.stderr.contains("showing what"), "\(fetch.stderr)")
        let cached = try remote.resv("fetch", "--offline", "--json")
        #expect(cached.status == 0, "\(cached.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(cached.stdout.utf8)) as? [String: Any])
        #expect(report["source"] as? String == "cache")
        #expect(report["valid"] as? Int == 3)
        #expect((report["at"] as? String)?.hasSuffix("Z") == true)
        #expect(cached.stderr.contains("--offline: showing what \(remote.url)"), "\(cached.stderr)")
    }

    @Test func fetchSaysWhereItsDataCameFrom() throws {
        let remote = try Remote()
        let server = try remote.resv("fetch", "--json")
        #expect(server.status == 0, "\(server.stderr)")
        #expect(server.stdout.contains(#""source" : "server""#))
        let file = try Sandbox().resv(["fetch", "--json"])
        #expect(file.stdout.contains(#""source" : "file""#))
    }

    /// One deadline for the whole command: retries and waits included.
    @Test func aHungServerIsGivenUpOnWithinTheRequestTimeout() throws {
        let server = try FaultServer { _, _ in .delayed(seconds: 30, .respond(status: 200, body: "[]")) }
        defer { server.stop() }
        let start = Date()
        let run = try resv(server, ["list"], environment: ["RESV_REQUEST_TIMEOUT": "3"])
        let elapsed = Date().timeIntervalSince(start)
        #expect(run.status == 69, "\(run.stderr)")
        #expect(run.stderr.contains("no answer within 3 s"), "\(run.stderr)")
        // 3 s and the start of a process (seconds on a loaded machine); with a deadline per
        // try, three tries, it was 9 s and more.
        #expect(elapsed < 8.5, "took \(elapsed) s")
        #expect(server.requests.count <= 2)
    }

    /// Runs `resv` against a fault server, with a cache of its own.
    func resv(_ server: FaultServer, _ arguments: [String], environment: [String: String] = [:], stdin: String? = nil)
        throws -> Run
    {
        let sandbox = try Sandbox()
        var env = [
            "RESV_SERVER": server.url, "RESV_TOKEN": "resv_test",
            "XDG_CACHE_HOME": sandbox.directory.appendingPathComponent("cache").path,
        ]
        env.merge(environment) { _, new in new }
        return try sandbox.resv(arguments, environment: env, stdin: stdin)
    }

    /// A create whose answer never comes may still have been booked, and a server that answers
    /// nothing cannot say (`POST /settle` unanswered too): exit 75, and the message gives the key
    /// that finishes it at most once. A server that was never reached gets no such hint.
    @Test func anUnansweredCreateNamesItsKeySoARetryBooksAtMostOnce() throws {
        let server = try FaultServer(
            FaultTests.routes { request, _ in
                request.method == "POST"
                    ? .delayed(seconds: 30, .respond(status: 201, body: FaultTests.good))
                    : .respond(status: 200, body: "[]")
            })
        defer { server.stop() }
        let arguments = ["reserve", "-l", "Golden Gate Bridge", "-d", "2031-06-01T10:00:00Z", "-n", "2"]
        let keyed = try resv(
            server, arguments + ["--idempotency-key", "nightly-7"], environment: ["RESV_REQUEST_TIMEOUT": "2"])
        // The server answers neither the create nor the question what became of it: unknown, 75.
        #expect(keyed.status == 75, "\(keyed.stderr)")
        #expect(keyed.stderr.contains("whether it was made is unknown"), "\(keyed.stderr)")
        #expect(
            keyed.stderr.contains(
                "run the same command again with --idempotency-key nightly-7, which makes it at most once"),
            "\(keyed.stderr)")
        let generated = try resv(server, arguments, environment: ["RESV_REQUEST_TIMEOUT": "2"])
        #expect(generated.stderr.contains("--idempotency-key resv-"), "\(generated.stderr)")

        let stopped = try FaultServer { _, _ in .drop }
        stopped.stop()
        let nowhere = try resv(
            stopped, arguments + ["--idempotency-key", "k"], environment: ["RESV_REQUEST_TIMEOUT": "2"])
        #expect(nowhere.status == 69)
        #expect(!nowhere.stderr.contains("--idempotency-key"), "\(nowhere.stderr)")
    }

    /// The server's rows, counted in its SQLite file (sqlite3 is a test package).
    static func rowCount(_ remote: Remote) throws -> Int {
        let database = remote.sandbox.directory.appendingPathComponent("server.sqlite").path
        let run = try runProcess(
            "/usr/bin/env", ["sqlite3", database, "SELECT COUNT(*) FROM reservations"],
            environment: ProcessInfo.processInfo.environment, stdin: nil)
        return Int(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }
}
