import Foundation
import ResvReference
import ResvTestKit
import Testing

/// `resv` trusts neither what a server says (its headers, its sizes) nor the
/// strings a user hands it for a request (keys, tokens, URLs with passwords).
@Suite("resv against untrusted servers and strings", .ownThreads, .timeLimit(.minutes(30)))
struct UntrustedServerTests {
    /// Runs `resv` with `server` (a URL) as RESV_SERVER, in a sandbox of its own.
    func resv(_ server: String, _ arguments: [String], environment: [String: String] = [:], stdin: String? = nil)
        throws -> Run
    {
        let sandbox = try Sandbox()
        var env = [
            "RESV_SERVER": server, "RESV_TOKEN": "resv_test",
            "XDG_CACHE_HOME": sandbox.directory.appendingPathComponent("cache").path,
        ]
        env.merge(environment) { _, new in new }
        return try sandbox.resv(arguments, environment: env, stdin: stdin)
    }

    func resv(_ server: FaultServer, _ arguments: String..., environment: [String: String] = [:]) throws -> Run {
        try resv(server.url, arguments, environment: environment)
    }

    // MARK: Retry-After

    @Test(arguments: ["-1e300", "-inf", "nan", "1e309", "3600", "Wed, 21 Oct 2015 07:28:00 GMT"])
    func aRetryAfterThatIsNotSecondsWithinAMinuteIsIgnored(header: String) throws {
        let server = try FaultServer { _, _ in .respond(status: 429, headers: ["Retry-After": header], body: "") }
        defer { server.stop() }
        let start = Date()
        let run = try resv(server, "list")
        #expect(run.status == 75, "\(run.stderr)")
        #expect(run.stderr.contains("rate limiting (429)"), "\(run.stderr)")
        #expect(run.stderrLines.count == 1, "\(run.stderr)")
        #expect(server.requests.filter { $0.path.hasSuffix("/reservations") }.count == 3, "retried with backoff")
        #expect(Date().timeIntervalSince(start) < 10)
    }

    // MARK: Size

    @Test func anAnswerDeclaringTwoGiBIsRefusedWithoutReadingIt() throws {
        let server = try FaultServer(
            FaultTests.routes { _, _ in .truncated(status: 200, body: "[", declaredLength: 2 << 30) })
        defer { server.stop() }
        let run = try resv(server, "list")
        #expect(run.status == 65, "\(run.stderr)")
        #expect(
            run.stderr == "resv: the server at \(server.url) sent an invalid response: "
                + "the server's answer is larger than 64 MiB, the most resv accepts\n")
        #expect(server.requests.filter { $0.path.hasSuffix("/reservations") }.count == 1, "not retried")
        let dataError = Reference.exitCodes.first { $0.code == 65 }
        #expect(dataError?.detail.contains("is larger than 64 MiB") == true, "the man page says so")
    }

    // MARK: Strings that become headers

    static let reserve = ["reserve", "-l", "Golden Gate Bridge", "-d", "2031-06-01T10:00:00Z", "-n", "2"]

    /// A server that books everything, to see what reaches it.
    static func bookingServer() throws -> FaultServer {
        try FaultServer(
            FaultTests.routes { request, _ in
                request.method == "POST"
                    ? .respond(status: 201, body: FaultTests.good) : .respond(status: 200, body: "[]")
            })
    }

    @Test(arguments: [
        "k\r\nX-Injected: yes", "k\nX-Injected: yes", "two words", "ключ", "", String(repeating: "k", count: 256),
    ])
    func anIdempotencyKeyThatIsNotPrintableASCIIIsRefusedBeforeAnyRequest(key: String) throws {
        let server = try Self.bookingServer()
        defer { server.stop() }
        let run = try resv(server.url, Self.reserve + ["--idempotency-key", key])
        #expect(run.status == 64, "\(run.stderr)")
        #expect(
            run.stderr == "resv: --idempotency-key must be 1 to 255 printable ASCII characters, "
                + "without spaces or line breaks (see 'resv reserve --help')\n")
        #expect(server.requests.isEmpty)
    }

    @Test func aKeyOf255PrintableCharactersIsSentAsItIs() throws {
        let server = try Self.bookingServer()
        defer { server.stop() }
        let key = String(repeating: "k", count: 250) + "!~:/="
        let run = try resv(server.url, Self.reserve + ["--idempotency-key", key])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(server.requests.filter { $0.method == "POST" }.map { $0.headers["idempotency-key"] } == [key])
    }

    @Test func anInjectingKeyIsRefusedAtTheReplToo() throws {
        let server = try Self.bookingServer()
        defer { server.stop() }
        // A carriage return inside the quoted word: the one line break a REPL line can hold.
        let line = "reserve -l 'Golden Gate Bridge' -d 2031-06-01T10:00:00Z -n 2 --idempotency-key 'k\rX-Injected:yes'"
        let run = try resv(server.url, ["repl"], stdin: line + "\n")
        #expect(run.status == 64, "\(run.stderr)")
        #expect(
            run.stderr.hasPrefix("resv: line 1: --idempotency-key must be 1 to 255 printable ASCII"), "\(run.stderr)")
        #expect(server.requests.isEmpty)
    }

    @Test(arguments: ["resv_x\r\nX-Injected: yes", "resv_x\n", "two words", "tökén"])
    func aTokenThatIsNotPrintableASCIIIsNeverSentNorShown(token: String) throws {
        let server = try Self.bookingServer()
        defer { server.stop() }
        for arguments in [["list"], Self.reserve] {
            let run = try resv(server.url, arguments, environment: ["RESV_TOKEN": token])
            #expect(run.status == 64, "\(run.stderr)")
            #expect(
                run.stderr == "resv: RESV_TOKEN='****' is invalid: expected a token of printable ASCII characters, "
                    + "without spaces or line breaks\n")
        }
        #expect(server.requests.isEmpty)
    }

    @Test func configSetRefusesATokenThatCannotBeAHeader() throws {
        let sandbox = try Sandbox()
        let config = sandbox.directory.appendingPathComponent("config.json").path
        let run = try sandbox.resv(["config", "set", "token", "--config", config], stdin: "two words\n")
        #expect(run.status == 64, "\(run.stderr)")
        #expect(!run.stderr.contains("two words"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: config))
    }

    // MARK: Passwords in server URLs

    static let secretURL = "http://ada:s3cret@127.0.0.1:1"

    /// Expects `run` to say nothing of the user name or password of `secretURL`.
    static func expectNoSecret(_ run: Run, sourceLocation: SourceLocation = #_sourceLocation) {
        for text in [run.stdout, run.stderr] {
            #expect(!text.contains("s3cret") && !text.contains("ada"), "\(text)", sourceLocation: sourceLocation)
        }
    }

    @Test func anUnreachableServerIsNamedWithoutItsPassword() throws {
        let sandbox = try Sandbox()
        let fromEnvironment = try resv(Self.secretURL, ["list"])
        // RESV_TOKEN goes only to RESV_SERVER's origin, so the flag names that one, spelled otherwise.
        let fromFlag = try resv(Self.secretURL, ["list", "--server", Self.secretURL + "/"])
        let config = sandbox.directory.appendingPathComponent("config.json")
        try Data(#"{"server": "\#(Self.secretURL)/", "token": "resv_test"}"#.utf8).write(to: config)
        chmod(config.path, 0o600)
        let fromConfig = try sandbox.resv(["list", "--config", config.path], environment: ["RESV_STORE": ""])
        for run in [fromEnvironment, fromFlag, fromConfig] {
            #expect(run.status == 69, "\(run.stderr)")
            #expect(run.stderr.hasPrefix("resv: cannot reach the server at http://127.0.0.1:1"), "\(run.stderr)")
            Self.expectNoSecret(run)
        }
        let offline = try resv(Self.secretURL, ["list", "--offline"])
        #expect(offline.stderr.hasPrefix("resv: nothing cached for http://127.0.0.1:1"), "\(offline.stderr)")
        Self.expectNoSecret(offline)
    }

    @Test func aServerThatIsNotHTTPIsRefusedWithoutItsPassword() throws {
        let run = try resv("ftp://ada:s3cret@127.0.0.1:1", ["list"])
        #expect(run.status == 64)
        #expect(run.stderr == "resv: RESV_SERVER='ftp://127.0.0.1:1' is invalid: expected an http:// or https:// URL\n")
        let sandbox = try Sandbox()
        let config = sandbox.directory.appendingPathComponent("config.json").path
        let set = try sandbox.resv(["config", "set", "server", "ftp://ada:s3cret@h", "--config", config])
        #expect(set.status == 64)
        Self.expectNoSecret(set)
    }

    @Test func configShowsAServersPasswordAsStars() throws {
        let sandbox = try Sandbox()
        let environment = ["RESV_SERVER": Self.secretURL]
        let list = try sandbox.resv(["config", "list"], environment: environment)
        #expect(list.stdout.contains("server          http://****@127.0.0.1:1  (environment)"), "\(list.stdout)")
        #expect(list.stderr.hasPrefix("using the server http://127.0.0.1:1 (profile default);"), "\(list.stderr)")
        let get = try sandbox.resv(["config", "get", "server"], environment: environment)
        #expect(get.stdout == "http://****@127.0.0.1:1\n")
        for run in [list, get] { Self.expectNoSecret(run) }
    }

    @Test func theStaleCacheWarningNamesTheServerWithoutItsPassword() throws {
        let server = try FaultServer(FaultTests.routes { _, _ in .respond(status: 200, body: "[\(FaultTests.good)]") })
        let url = server.url.replacingOccurrences(of: "http://", with: "http://ada:s3cret@")
        let sandbox = try Sandbox()
        let environment = [
            "RESV_SERVER": url, "RESV_TOKEN": "resv_test",
            "XDG_CACHE_HOME": sandbox.directory.appendingPathComponent("cache").path,
        ]
        #expect(try sandbox.resv(["list"], environment: environment).status == 0)
        server.stop()
        let run = try sandbox.resv(["list"], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("resv: warning: cannot reach \(server.url); showing"), "\(run.stderr)")
        Self.expectNoSecret(run)
    }

    // MARK: Seconds

    /// Timeouts so large that they overflow an Int of milliseconds are a long wait, never a trap.
    @Test(arguments: ["1e300", "1e18", "9223372036854775807"])
    func hugeTimeoutsDoNotTrap(seconds: String) throws {
        let server = try resv(
            "http://127.0.0.1:1", ["list"],
            environment: ["RESV_CONNECT_TIMEOUT": seconds, "RESV_REQUEST_TIMEOUT": seconds])
        #expect(server.status == 69, "\(server.stderr)")
        #expect(server.stderr.hasPrefix("resv: cannot reach the server at http://127.0.0.1:1"), "\(server.stderr)")
        let file = try Sandbox().resv(["list"], environment: ["RESV_LOCK_TIMEOUT": seconds])
        #expect(file.status == 0, "\(file.stderr)")
    }
}
