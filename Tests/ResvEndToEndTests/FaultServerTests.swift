import Foundation
import ResvTestKit
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// FaultServer itself, driven by curl and by URLSession, before the CLI's fault tests rely on it.
@Suite("FaultServer", .ownThreads, .timeLimit(.minutes(30)))
struct FaultServerTests {
    // MARK: Well-formed replies

    @Test func answers200WithJSONToCurl() throws {
        let server = try FaultServer { _, _ in .respond(status: 200, body: #"{"ok":true}"#) }
        defer { server.stop() }
        let run = try faultCurl(["-w", "\n%{http_code} %{content_type}", "\(server.url)/health?verbose=1"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "{\"ok\":true}\n200 application/json")
        let request = try #require(server.requests.first)
        #expect(request.method == "GET")
        #expect(request.path == "/health?verbose=1")
        #expect(request.headers["host"] == "127.0.0.1:\(server.port)")
        #expect(request.body.isEmpty)
    }

    @Test func answers200WithJSONToURLSession() async throws {
        let server = try FaultServer { _, _ in .respond(status: 200, body: #"{"ok":true}"#) }
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(for: URLRequest(url: URL(string: "\(server.url)/health")!))
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200)
        #expect(http.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(String(decoding: data, as: UTF8.self) == #"{"ok":true}"#)
        #expect(server.requests.map(\.path) == ["/health"])
    }

    @Test func repliesByIndex500Then200() async throws {
        let server = try FaultServer { _, index in
            index == 0
                ? .respond(status: 500, headers: ["Retry-After": "1"], body: #"{"error":"boom"}"#)
                : .respond(status: 200, body: #"{"n":\#(index)}"#)
        }
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        var statuses: [Int] = []
        var bodies: [String] = []
        for _ in 0..<2 {
            let (data, response) = try await session.data(for: URLRequest(url: URL(string: "\(server.url)/r")!))
            let http = try #require(response as? HTTPURLResponse)
            statuses.append(http.statusCode)
            bodies.append(String(decoding: data, as: UTF8.self))
            if http.statusCode == 500 { #expect(http.value(forHTTPHeaderField: "Retry-After") == "1") }
        }
        #expect(statuses == [500, 200])
        #expect(bodies == [#"{"error":"boom"}"#, #"{"n":1}"#])
        #expect(server.requests.count == 2)
    }

    @Test func customContentTypeAndNoContent() throws {
        let server = try FaultServer { _, index in
            index == 0
                ? .respond(status: 200, headers: ["content-type": "text/plain"], body: "hi") : .respond(status: 204)
        }
        defer { server.stop() }
        let run = try faultCurl(["-w", "|%{http_code} %{content_type}\n", "\(server.url)/a", "\(server.url)/b"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "hi|200 text/plain\n|204 application/json\n")
    }

    // MARK: Faults

    @Test func dropIsAnEmptyReply() async throws {
        let server = try FaultServer { _, _ in .drop }
        defer { server.stop() }
        let run = try faultCurl([server.url + "/x"])
        #expect(run.status == 52, "\(run.stderr)")
        #expect(run.stderr.contains("Empty reply from server"))

        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        var request = URLRequest(url: URL(string: "\(server.url)/y")!)
        request.timeoutInterval = 10
        await #expect(throws: (any Error).self) { _ = try await session.data(for: request) }
        #expect(server.requests.map(\.path).prefix(2) == ["/x", "/y"])
    }

    @Test func truncatedBodyIsAPartialTransfer() async throws {
        let server = try FaultServer { _, _ in .truncated(status: 200, body: #"{"reserv"#, declaredLength: 100) }
        defer { server.stop() }
        let run = try faultCurl([server.url + "/x"])
        #expect(run.status == 18, "\(run.stderr)")
        #expect(run.stderr.contains("transfer closed with"), "\(run.stderr)")
        #expect(run.stdout == #"{"reserv"#)

        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        var request = URLRequest(url: URL(string: "\(server.url)/y")!)
        request.timeoutInterval = 10
        await #expect(throws: (any Error).self) { _ = try await session.data(for: request) }
    }

    @Test func delayedReplyIsSentAfterTheDelay() throws {
        let server = try FaultServer { _, _ in .delayed(seconds: 0.3, .respond(status: 201, body: "{}")) }
        defer { server.stop() }
        let clock = ContinuousClock()
        var run: CurlRun?
        let elapsed = try clock.measure { run = try faultCurl(["-w", "%{http_code}", server.url]) }
        #expect(run?.status == 0)
        #expect(run?.stdout == "{}201")
        #expect(elapsed >= .milliseconds(300))
    }

    @Test func replyToAClientThatGaveUpDoesNotHurt() throws {
        // 4 MB cannot fit in the socket buffers: send() meets the closed connection (EPIPE or
        // ECONNRESET), which must neither raise SIGPIPE nor stop the server.
        let big = String(repeating: "x", count: 4 << 20)
        let server = try FaultServer { request, _ in
            request.path == "/big"
                ? .delayed(seconds: 0.3, .respond(status: 200, body: big)) : .respond(status: 200, body: "{}")
        }
        defer { server.stop() }
        let gaveUp = try faultCurl(["--max-time", "0.1", "-o", "/dev/null", server.url + "/big"])
        #expect(gaveUp.status == 28, "\(gaveUp.stderr)")
        // Until the reply has been sent into the closed connection (or dropped with it).
        try waitUntil("the delayed reply sent") { server.delayedRepliesDone == 1 }
        let after = try faultCurl(["-w", "%{http_code}", server.url + "/after"])
        #expect(after.stdout == "{}200", "\(after.stderr)")
        #expect(server.requests.map(\.path) == ["/big", "/after"])
    }

    @Test func stoppedServerRefusesConnections() throws {
        var port = 0
        do {
            let server = try FaultServer { _, _ in .respond(status: 200) }
            port = server.port
            #expect(try faultCurl([server.url]).status == 0)
        }  // deinit stops it
        #expect(try faultCurl(["http://127.0.0.1:\(port)/"]).status == 7)  // Couldn't connect

        let server = try FaultServer { _, _ in .respond(status: 200) }
        server.stop()
        #expect(try faultCurl([server.url]).status == 7)
        #expect(server.requests.isEmpty)
    }

    // MARK: Connections and requests

    @Test func keepAliveServesTwoRequestsOnOneConnection() throws {
        let server = try FaultServer { request, _ in .respond(status: 200, body: #"{"path":"\#(request.path)"}"#) }
        defer { server.stop() }
        // num_connects: connections this transfer opened (0 when it reused one).
        let run = try faultCurl(["-w", " %{num_connects}\n", "\(server.url)/one", "\(server.url)/two"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "{\"path\":\"/one\"} 1\n{\"path\":\"/two\"} 0\n")
        #expect(server.requests.count == 2)
        #expect(server.requests.map(\.path) == ["/one", "/two"])
    }

    @Test func connectionCloseFromTheReplyEndsKeepAlive() throws {
        let server = try FaultServer { _, _ in .respond(status: 200, headers: ["Connection": "close"], body: "{}") }
        defer { server.stop() }
        let run = try faultCurl(["-w", " %{num_connects}\n", "\(server.url)/one", "\(server.url)/two"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "{} 1\n{} 1\n")
    }

    @Test func recordsPostBodyAndHeaders() throws {
        let server = try FaultServer { _, _ in .respond(status: 201, body: #"{"id":"r1"}"#) }
        defer { server.stop() }
        let body = #"{"landmarkId":"x","partySize":2}"#
        let run = try faultCurl([
            "-X", "POST", "-H", "Authorization: Bearer resv_abc", "-H", "Content-Type: application/json",
            "-H", "X-Twice: a", "-H", "X-Twice: b", "--data-binary", body, "-w", "|%{http_code}",
            "\(server.url)/reservations?dry=1",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == #"{"id":"r1"}|201"#)
        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/reservations?dry=1")
        #expect(request.headers["authorization"] == "Bearer resv_abc")
        #expect(request.headers["content-type"] == "application/json")
        #expect(request.headers["content-length"] == "\(body.utf8.count)")
        #expect(request.headers["x-twice"] == "a, b")
        #expect(String(decoding: request.body, as: UTF8.self) == body)
    }

    @Test func recordsURLSessionPost() async throws {
        let server = try FaultServer { _, _ in .respond(status: 200, body: "{}") }
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        var request = URLRequest(url: URL(string: "\(server.url)/reservations")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer resv_abc", forHTTPHeaderField: "Authorization")
        request.httpBody = Data(#"{"partySize":4}"#.utf8)
        let (_, response) = try await session.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let recorded = try #require(server.requests.first)
        #expect(recorded.method == "POST")
        #expect(recorded.headers["authorization"] == "Bearer resv_abc")
        #expect(recorded.body == Data(#"{"partySize":4}"#.utf8))
    }

    @Test func largeBodyWithExpectContinueAndChunkedBody() throws {
        let server = try FaultServer { request, _ in .respond(status: 200, body: "\(request.body.count)") }
        defer { server.stop() }
        try TemporaryDirectory.with("faultserver") { folder in
            let directory = folder.url
            let file = directory.appendingPathComponent("body.json")
            let large = Data((0..<300_000).map { UInt8(ascii: "a") + UInt8($0 % 26) })
            try large.write(to: file)

            // Without a 100 Continue, curl would wait 20 s before sending the body.
            let clock = ContinuousClock()
            var expecting: CurlRun?
            let elapsed = try clock.measure {
                expecting = try faultCurl([
                    "-H", "Expect: 100-continue", "--expect100-timeout", "20", "--data-binary", "@\(file.path)",
                    server.url,
                ])
            }
            #expect(expecting?.stdout == "300000", "\(expecting?.stderr ?? "")")
            #expect(elapsed < .seconds(10), "curl waited for 100 Continue: \(elapsed)")

            let chunked = try faultCurl([
                "-H", "Transfer-Encoding: chunked", "--data-binary", "@\(file.path)", server.url,
            ])
            #expect(chunked.stdout == "300000", "\(chunked.stderr)")
            #expect(server.requests.map(\.body) == [large, large])
        }
    }

    @Test func clientThatGivesUpMidRequestIsNotRecorded() throws {
        let server = try FaultServer { _, _ in .respond(status: 200, body: "{}") }
        defer { server.stop() }
        // Promises 1000 bytes of body, sends 3, and gives up waiting for the answer.
        let partial = try faultCurl(["--max-time", "0.3", "-H", "Content-Length: 1000", "--data", "abc", server.url])
        #expect(partial.status == 28, "\(partial.stderr)")
        #expect(server.requests.isEmpty)
        let whole = try faultCurl(["-w", "%{http_code}", server.url])
        #expect(whole.stdout == "{}200")
        #expect(server.requests.count == 1)
    }

    @Test func malformedRequestLineGets400() throws {
        let server = try FaultServer { _, _ in .respond(status: 200) }
        defer { server.stop() }
        let run = try faultCurl(["-X", "GET /sneaky", "-w", "%{http_code}", "-o", "/dev/null", server.url])
        #expect(run.stdout == "400")
        #expect(server.requests.isEmpty)
    }

}

// MARK: - curl

private struct CurlRun {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs /usr/bin/curl -sS with `arguments` and waits for it.
private func faultCurl(_ arguments: [String]) throws -> CurlRun {
    let curl = try ChildProcess(
        "/usr/bin/curl", ["-sS", "--noproxy", "*"] + arguments, environment: ProcessInfo.processInfo.environment,
        stdin: .null)
    // Both pipes read at once, so that neither can fill up and stall curl.
    let output = curl.readToEnd()
    return CurlRun(
        status: curl.wait().status, stdout: String(decoding: output.stdout, as: UTF8.self),
        stderr: String(decoding: output.stderr, as: UTF8.self))
}
