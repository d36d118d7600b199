import Foundation
import Testing

/// `resv` trusts neither what a server says (its headers, its sizes) nor the
/// strings a user hands it for a request (keys, tokens, URLs with passwords).
@Suite("resv against untrusted servers and strings")
struct UntrustedServerTests {
    /// Runs `resv` with `server` (a URL) as RESV_SERVER, in a sandbox of its own.
    func resv(_ server: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Run {
        let sandbox = try Sandbox()
        var env = [
            "RESV_SERVER": server, "RESV_TOKEN": "resv_test",
            "XDG_CACHE_HOME": sandbox.directory.appendingPathComponent("cache").path,
        ]
        env.merge(environment) { _, new in new }
        return try sandbox.resv(arguments, environment: env)
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
}
