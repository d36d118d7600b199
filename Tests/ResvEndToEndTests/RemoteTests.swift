import Foundation
import ResvTestKit
import Testing

/// `resv` against a server: the real `resv-server`, and a misbehaving one.
@Suite("resv with --server", .ownThreads, .timeLimit(.minutes(30)))
struct RemoteTests {
    /// A server with two users, and `resv` runs configured for one of them.
    final class Remote: @unchecked Sendable {
        let sandbox: Sandbox
        let server: ServerProcess
        let alice: String
        let bob: String

        /// `landmarks`, when given, is the server's catalog (a JSON array), served with `--landmarks`.
        init(landmarks: String? = nil) throws {
            sandbox = try Sandbox()
            let database = sandbox.directory.appendingPathComponent("server.sqlite").path
            alice = try ServerProcess.createToken("alice", database: database)
            bob = try ServerProcess.createToken("bob", database: database)
            var arguments: [String] = []
            if let landmarks {
                let file = sandbox.directory.appendingPathComponent("landmarks.json")
                try Data(landmarks.utf8).write(to: file)
                arguments = ["--landmarks", file.path]
            }
            server = try ServerProcess(database: database, arguments: arguments)
        }

        var url: String { "http://127.0.0.1:\(server.port)" }

        @discardableResult
        func resv(_ arguments: String..., token: String? = nil, stdin: String? = nil) throws -> Run {
            try sandbox.resv(arguments, environment: environment(token ?? alice), stdin: stdin)
        }

        func environment(_ token: String) -> [String: String] {
            [
                "RESV_SERVER": url, "RESV_TOKEN": token,
                "XDG_CACHE_HOME": sandbox.directory.appendingPathComponent("cache").path,
                "XDG_CONFIG_HOME": sandbox.directory.appendingPathComponent("config").path,
            ]
        }

        deinit { server.stop() }
    }

    /// The ids of a `list --json` output.
    static func ids(_ run: Run) throws -> [String] {
        let list = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        return list.compactMap { $0["id"] as? String }
    }

    @Test func everyCommandWorksAgainstTheServer() throws {
        let remote = try Remote()
        let landmarks = try remote.resv("landmarks", "--json")
        #expect(landmarks.status == 0, "\(landmarks.stderr)")
        #expect(landmarks.stdout.contains("Half Dome"))

        let made = try remote.resv(
            "reserve", "--landmark", "half dome", "--date", "2031-06-01T10:00:00Z", "--party-size", "3", "--pending",
            "--json")
        #expect(made.status == 0, "\(made.stderr)")
        let id =
            try #require(try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: Any])["id"]
            as? String ?? ""
        #expect(made.stdout.contains(#""status" : "pending""#))

        let list = try remote.resv("list", "--json")
        #expect(list.status == 0)
        #expect(list.stdout.contains(id))
        #expect(try remote.resv("show", String(id.prefix(8))).stdout.contains("Half Dome"))
        let confirmed = try remote.resv("confirm", String(id.prefix(8)))
        #expect(confirmed.status == 0, "\(confirmed.stderr)")
        #expect(try remote.resv("show", id, "--json").stdout.contains(#""status" : "confirmed""#))

        // Another user sees none of it and cannot touch it.
        #expect(try remote.resv("list", "--json", token: remote.bob).stdout == "[]\n")
        let foreign = try remote.resv("cancel", id, token: remote.bob)
        #expect(foreign.status == 1)
        #expect(foreign.stderr.contains("no reservation matches"), "\(foreign.stderr)")

        let cancelled = try remote.resv("cancel", String(id.prefix(8)))
        #expect(cancelled.status == 0, "\(cancelled.stderr)")
        let refused = try remote.resv("confirm", id)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("is cancelled and cannot be confirmed"), "\(refused.stderr)")

        let batch = """
            {"landmarkId": "Golden Gate Bridge", "date": "2031-07-01T10:00:00Z", "partySize": 2}
            {"landmarkId": "Lake Tahoe", "date": "2031-07-02T10:00:00Z", "partySize": 4}
            """
        let booked = try remote.resv("reserve", "--batch", "-", stdin: batch)
        #expect(booked.status == 0, "\(booked.stderr)")
        #expect(try Self.ids(remote.resv("list", "--all", "--json")).count == 3)
        let fetched = try remote.resv("fetch", "--json")
        #expect(fetched.status == 0, "\(fetched.stderr)")
    }

    @Test func aBatchWithARefusedLineBooksNothing() throws {
        let remote = try Remote()
        // Half Dome takes 300 a day: the second line does not fit, so the first is taken back.
        let batch = """
            {"landmarkId": "Half Dome", "date": "2031-08-01T10:00:00Z", "partySize": 200}
            {"landmarkId": "Half Dome", "date": "2031-08-01T12:00:00Z", "partySize": 200}
            """
        let run = try remote.resv("reserve", "--batch", "-", stdin: batch)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("Half Dome is full on "), "\(run.stderr)")
        #expect(try remote.resv("list", "--all", "--json").stdout.contains(#""status" : "confirmed""#) == false)
    }

    @Test func aRetriedReserveWithItsKeyBooksOnce() throws {
        let remote = try Remote()
        for _ in 0..<3 {
            let run = try remote.resv(
                "reserve", "-l", "Lake Tahoe", "-d", "2031-09-01T10:00:00Z", "-n", "2", "--idempotency-key",
                "nightly-42")
            #expect(run.status == 0, "\(run.stderr)")
        }
        #expect(try Self.ids(remote.resv("list", "--json")).count == 1)
    }

    @Test func cachedDataWhenTheServerIsGone() throws {
        let remote = try Remote()
        #expect(try remote.resv("reserve", "-l", "Lake Tahoe", "-d", "2031-09-01T10:00:00Z", "-n", "2").status == 0)
        #expect(try remote.resv("list").status == 0)
        let online = try remote.resv("list", "--offline", "--json")
        #expect(online.status == 0)
        #expect(online.stdout.contains("Lake Tahoe"))
        #expect(remote.server.stop() == 0)

        let list = try remote.resv("list")
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains("Lake Tahoe"))
        #expect(list.stderr.contains("cannot reach \(remote.url)"), "\(list.stderr)")
        #expect(list.stderr.contains("seconds ago") || list.stderr.contains("second ago"), "\(list.stderr)")
        let id = try #require(list.stdout.split(separator: "\n").dropFirst().first?.split(separator: " ").first)
        let show = try remote.resv("show", String(id))
        #expect(show.status == 0)
        #expect(show.stdout.contains("Lake Tahoe"))

        let change = try remote.resv("cancel", String(id))
        #expect(change.status == 69, "\(change.stderr)")
        let offlineChange = try remote.resv(
            "reserve", "--offline", "-l", "Lake Tahoe", "-d", "2031-09-01T10:00:00Z", "-n", "2")
        #expect(offlineChange.status == 64)
        #expect(offlineChange.stderr.contains("--offline reads the cache only"))

        // Another user has no cache: unreachable is an error for them.
        let bob = try remote.resv("list", token: remote.bob)
        #expect(bob.status == 69)
        #expect(bob.stderr.contains("cannot reach the server at \(remote.url)"), "\(bob.stderr)")
        #expect(try remote.resv("list", "--offline", token: remote.bob).stderr.contains("nothing cached"))
        for run in [list, show, change, bob] { #expect(!run.stderr.contains(remote.alice)) }
    }

    @Test func tabCompletionReadsTheCacheNeverTheNetwork() throws {
        let remote = try Remote()
        let made = try remote.resv("reserve", "-l", "Lake Tahoe", "-d", "2031-09-01T10:00:00Z", "-n", "2", "--json")
        let id =
            try #require(try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: Any])["id"]
            as? String
        #expect(try remote.resv("list").status == 0)  // fills the cache
        #expect(remote.server.stop() == 0)
        var environment = remote.environment(remote.alice)
        environment["PATH"] = "/usr/bin:/bin"
        let ids = try remote.sandbox.resv(
            ["---completion", "cancel", "--", "positional@0", "2", "0", "resv", "cancel", ""], environment: environment)
        #expect(ids.stdout.contains(String(id?.prefix(8) ?? "none")), "\(ids.stdout) \(ids.stderr)")
        let names = try remote.sandbox.resv(
            ["---completion", "reserve", "--", "--landmark", "3", "4", "resv", "reserve", "--landmark", "Lake"],
            environment: environment)
        #expect(names.stdout.contains("Lake Tahoe"), "\(names.stdout)")
    }

    @Test func tokensNeverReachOutput() throws {
        let remote = try Remote()
        let runs = [
            try remote.resv("list", "--verbose"), try remote.resv("config", "list"),
            try remote.resv("config", "get", "token"), try remote.resv("list", token: "resv_wrong_token"),
        ]
        for run in runs {
            #expect(!run.stdout.contains(remote.alice) && !run.stderr.contains(remote.alice))
            #expect(!run.stderr.contains("resv_wrong_token"))
        }
        #expect(runs[2].stdout == "****\n")
        #expect(runs[3].status == 77)
    }
}

/// Each failure of a server, and the exit code and message it gets.
@Suite("resv against a misbehaving server", .ownThreads, .timeLimit(.minutes(30)))
struct FaultTests {
    static let landmarks =
        #"[{"id":"7c6984ff-188e-417e-b476-ec5f30b8d745","name":"Golden Gate Bridge","location":"San Francisco, CA","description":"","category":"bridges","isFeatured":true}]"#
    static let good =
        #"{"id":"5eed3333-3333-4333-8333-333333333333","landmarkId":"7c6984ff-188e-417e-b476-ec5f30b8d745","date":"2031-06-01T10:00:00Z","partySize":2,"status":"confirmed"}"#

    /// Runs `resv` against `server` with short timeouts and fast retries.
    func resv(_ server: FaultServer, _ arguments: String..., environment: [String: String] = [:]) throws -> Run {
        let sandbox = try Sandbox()
        var env = [
            "RESV_SERVER": server.url, "RESV_TOKEN": "resv_test",
            "XDG_CACHE_HOME": sandbox.directory.appendingPathComponent("cache").path,
        ]
        env.merge(environment) { _, new in new }
        return try sandbox.resv(arguments, environment: env)
    }

    /// Landmarks answered well, then `reply` for everything else.
    static func routes(_ reply: @escaping @Sendable (RecordedRequest, Int) -> FaultReply)
        -> @Sendable (RecordedRequest, Int) -> FaultReply
    {
        { request, index in
            request.path.hasSuffix("/landmarks") ? .respond(status: 200, body: landmarks) : reply(request, index)
        }
    }

    @Test func fiveHundredOnEveryCallIs69AfterThreeTries() throws {
        let server = try FaultServer { _, _ in .respond(status: 500, body: #"{"error":true,"reason":"boom"}"#) }
        defer { server.stop() }
        let run = try resv(server, "list")
        #expect(run.status == 69)
        #expect(run.stderr.contains("failed (500: boom)"), "\(run.stderr)")
        #expect(server.requests.filter { $0.path.hasSuffix("/reservations") }.count == 3)
    }

    @Test func fiveHundredThenSuccessIsRetried() throws {
        // The first two GET /reservations fail, the third try succeeds.
        let flaky = try FaultServer(
            Self.routes { request, index in
                let failures = index < 2 && request.path.hasSuffix("/reservations")
                return failures ? .respond(status: 503, body: "") : .respond(status: 200, body: "[\(Self.good)]")
            })
        defer { flaky.stop() }
        let run = try resv(flaky, "list", "--json")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("5eed3333"))
        #expect(flaky.requests.filter { $0.path.hasSuffix("/reservations") }.count >= 2)
    }

    @Test func tooManyRequestsIs75AfterRetriesHonouringRetryAfter() throws {
        let server = try FaultServer { _, _ in .respond(status: 429, headers: ["Retry-After": "1"], body: "") }
        defer { server.stop() }
        let start = Date()
        let run = try resv(server, "list")
        #expect(run.status == 75)
        #expect(run.stderr.contains("429"), "\(run.stderr)")
        #expect(server.requests.filter { $0.path.hasSuffix("/reservations") }.count == 3)
        #expect(Date().timeIntervalSince(start) >= 2, "two waits of Retry-After: 1")
    }

    @Test func aCreateIsRetriedWithTheSameKey() throws {
        let server = try FaultServer(
            Self.routes { request, index in
                guard request.method == "POST" else { return .respond(status: 200, body: "[]") }
                return index < 2 ? .respond(status: 502, body: "") : .respond(status: 201, body: Self.good)
            })
        defer { server.stop() }
        let run = try resv(server, "reserve", "-l", "Golden Gate Bridge", "-d", "2031-06-01T10:00:00Z", "-n", "2")
        #expect(run.status == 0, "\(run.stderr)")
        let keys = server.requests.filter { $0.method == "POST" }.compactMap { $0.headers["idempotency-key"] }
        #expect(keys.count >= 2)
        #expect(Set(keys).count == 1)
    }

    /// A confirm carries a key of its own and is retried under it (the server makes it once).
    @Test func confirmIsRetriedUnderOneKey() throws {
        let server = try FaultServer(
            Self.routes { request, _ in
                if request.method == "POST" { return .respond(status: 503, body: "") }
                return request.path.hasSuffix("/reservations")
                    ? .respond(status: 200, body: "[\(Self.good)]")
                    : .respond(status: 200, body: Self.good)
            })
        defer { server.stop() }
        let run = try resv(server, "confirm", "5eed3333")
        #expect(run.status == 69, "\(run.stderr)")
        let posts = server.requests.filter { $0.method == "POST" }
        #expect(posts.count == 3)
        #expect(Set(posts.compactMap { $0.headers["idempotency-key"] }).count == 1)
    }

    @Test func unauthorisedIs77() throws {
        let server = try FaultServer { _, _ in .respond(status: 401, body: #"{"error":true,"reason":"no"}"#) }
        defer { server.stop() }
        let run = try resv(server, "list")
        #expect(run.status == 77)
        #expect(run.stderr.contains("refused the token (401)"), "\(run.stderr)")
        #expect(server.requests.filter { $0.path.hasSuffix("/reservations") }.count == 1, "401 is not retried")
        #expect(server.requests.first?.headers["authorization"] == "Bearer resv_test")
    }

    @Test func aSlowServerIsGivenUpOn() throws {
        let server = try FaultServer { _, _ in .delayed(seconds: 20, .respond(status: 200, body: "[]")) }
        defer { server.stop() }
        let start = Date()
        let run = try resv(server, "list", environment: ["RESV_REQUEST_TIMEOUT": "1", "RESV_CONNECT_TIMEOUT": "1"])
        #expect(run.status == 69)
        #expect(run.stderr.contains("cannot reach the server"), "\(run.stderr)")
        #expect(Date().timeIntervalSince(start) < 10)
    }

    @Test func aTruncatedBodyIs65() throws {
        let server = try FaultServer(
            Self.routes { _, _ in
                .truncated(status: 200, body: "[\(Self.good.prefix(40))", declaredLength: 400)
            })
        defer { server.stop() }
        let run = try resv(server, "list")
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.contains("invalid response"), "\(run.stderr)")
    }

    @Test func aDroppedConnectionIs69() throws {
        let server = try FaultServer { _, _ in .drop }
        defer { server.stop() }
        let run = try resv(server, "list")
        #expect(run.status == 69, "\(run.stderr)")
        #expect(run.stderr.contains("cannot reach the server"), "\(run.stderr)")
    }

    @Test func notJSONIs65() throws {
        let server = try FaultServer(
            Self.routes { _, _ in
                .respond(status: 200, headers: ["Content-Type": "text/html"], body: "<html>hello</html>")
            })
        defer { server.stop() }
        let run = try resv(server, "list")
        #expect(run.status == 65)
        #expect(run.stderr.contains("without valid JSON"), "\(run.stderr)")
    }

    @Test func invalidRecordsAreReportedAndTheRestShown() throws {
        let bad =
            #"{"id":"abcd2222-2222-4222-8222-222222222222","landmarkId":"7c6984ff-188e-417e-b476-ec5f30b8d745","date":"2031-02-30T10:00:00Z","partySize":2,"status":"confirmed"}"#
        let server = try FaultServer(
            Self.routes { _, _ in
                .respond(status: 200, body: "[\(Self.good), \(bad), 42, {\"id\": 7}]")
            })
        defer { server.stop() }
        let run = try resv(server, "list", "--json", "--verbose")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("5eed3333"))
        #expect(!run.stdout.contains("abcd2222"))
        #expect(run.stderr.contains("3"), "\(run.stderr)")
        #expect(run.stderr.contains("2031-02-30"), "\(run.stderr)")
    }

    @Test func aCreateAnsweringPartySizeZeroIs65() throws {
        let zero = Self.good.replacingOccurrences(of: #""partySize":2"#, with: #""partySize":0"#)
        let server = try FaultServer(
            Self.routes { request, _ in
                request.method == "POST" ? .respond(status: 201, body: zero) : .respond(status: 200, body: "[]")
            })
        defer { server.stop() }
        let run = try resv(server, "reserve", "-l", "Golden Gate Bridge", "-d", "2031-06-01T10:00:00Z", "-n", "2")
        #expect(run.status == 65)
        #expect(run.stderr.contains("the server returned an invalid reservation"), "\(run.stderr)")
        let post = try #require(server.requests.first { $0.method == "POST" })
        #expect(post.headers["idempotency-key"]?.hasPrefix("resv-") == true)
    }

    @Test func refusedConnectionsAre69NamingTheURL() throws {
        let server = try FaultServer { _, _ in .drop }
        let url = server.url
        server.stop()
        let run = try Sandbox().resv(["list"], environment: ["RESV_SERVER": url, "RESV_TOKEN": "t"])
        #expect(run.status == 69)
        #expect(run.stderr.contains(url), "\(run.stderr)")
    }
}
