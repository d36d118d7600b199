import Foundation
import ResvReference
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

    /// A "curl" on PATH that answers 200 MiB without a length: resv stops it past 64 MiB.
    @Test func anEndlessAnswerIsCutOffPast64MiB() throws {
        let sandbox = try Sandbox()
        let bin = sandbox.directory.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let landmarks = sandbox.directory.appendingPathComponent("landmarks.http")
        try Data(("HTTP/1.1 200 OK\r\n\r\n" + FaultTests.landmarks).utf8).write(to: landmarks)
        let curl = bin.appendingPathComponent("curl")
        try Data(
            """
            #!/bin/sh
            # The request is a curl config on stdin: answer the landmarks, and 200 MiB for the rest.
            if grep -q '/landmarks"' ; then exec cat '\(landmarks.path)'; fi
            printf 'HTTP/1.1 200 OK\\r\\n\\r\\n['
            exec head -c 200M /dev/zero

            """.utf8
        ).write(to: curl)
        #expect(chmod(curl.path, 0o755) == 0)
        let start = Date()
        let run = try resv(
            "http://127.0.0.1:1", ["list"],
            environment: ["PATH": bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")])
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.contains("the server's answer is larger than 64 MiB"), "\(run.stderr)")
        #expect(Date().timeIntervalSince(start) < 20)
    }
}
