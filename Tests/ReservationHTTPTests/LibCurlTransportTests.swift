import Foundation
import ResvTestKit
import Testing

@testable import ReservationHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// `HTTPTransport.libcurl` against real servers on loopback ports: what it
/// sends, what it reads, how every failure ends, and that connections are reused.
@Suite("libcurl transport", .ownThreads, .timeLimit(.minutes(30)))
struct LibCurlTransportTests {
    static let transport = HTTPTransport.libcurl(connectTimeout: 5, requestTimeout: 30)

    static func request(
        _ server: LoopbackServer, _ method: String = "GET", _ path: String = "/reservations",
        headers: [String: String] = [:], body: String? = nil, timeout: TimeInterval? = nil
    ) -> HTTPRequestData {
        HTTPRequestData(
            method: method, url: URL(string: server.url + path)!, headers: headers, body: body.map { Data($0.utf8) },
            timeout: timeout)
    }

    /// A server answering every request on a connection with `body`, recording each request's head.
    static func echoing(_ heads: Recorder<[String]>, body: String = "[]") throws -> LoopbackServer {
        try LoopbackServer { connection in
            while let head = connection.request() {
                heads.change { $0.append(head) }
                guard connection.respond(body, headers: "Retry-After: 3\r\nContent-Type: application/json\r\n") else {
                    return
                }
            }
        }
    }

    @Test func sendsTheHeadersGivenAndNoExpectAndReadsTheAnswer() async throws {
        let heads = Recorder<[String]>([])
        let server = try Self.echoing(heads, body: #"{"x":1}"#)
        let response = try await Self.transport.send(
            Self.request(server, headers: ["Authorization": "Bearer t0k", "Accept": "application/json"]))
        #expect(response.status == 200)
        #expect(response.headers["retry-after"] == "3")
        #expect(response.headers["content-type"] == "application/json")
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"x":1}"#)
        let head = try #require(heads.value.first)
        let lines = head.split(separator: "\r\n").map(String.init)
        #expect(lines.first == "GET /reservations HTTP/1.1")
        #expect(lines.contains("Authorization: Bearer t0k"))
        #expect(lines.contains("User-Agent: resv"))
        #expect(!lines.contains { $0.lowercased().hasPrefix("expect:") })
    }

    /// A kept handle carries nothing of one request into the next: a GET after a POST has no body.
    @Test func eachMethodIsSentAsAskedOnOneConnection() async throws {
        let heads = Recorder<[String]>([])
        let server = try Self.echoing(heads)
        let big = String(repeating: "b", count: 200_000)  // above libcurl's Expect: 100-continue threshold
        for (method, body) in [("POST", #"{"a":"\""}"#), ("GET", nil), ("DELETE", nil), ("POST", ""), ("POST", big)] {
            // Changes under a key, as resv sends every change: an unkeyed one gets a connection of its own.
            let key = method == "GET" ? [:] : ["Idempotency-Key": "k-\(method)"]
            let response = try await Self.transport.send(Self.request(server, method, headers: key, body: body))
            #expect(response.status == 200, "\(method)")
        }
        let firstLines = heads.value.map { $0.split(separator: "\r\n").first.map(String.init) }
        #expect(firstLines == ["POST", "GET", "DELETE", "POST", "POST"].map { "\($0) /reservations HTTP/1.1" })
        let lengths = heads.value.map { head in
            head.split(separator: "\r\n").first { $0.hasPrefix("Content-Length:") } ?? "none"
        }
        #expect(lengths == ["Content-Length: 10", "none", "none", "Content-Length: 0", "Content-Length: 200000"])
        // One connection when the requests follow each other (on threads of the suite's own, no
        // other test holds this one past libcurl's 118 s limit on an idle connection's age).
        #expect(server.accepted == 1, "one connection for all five")
    }

    @Test func connectionsAreReusedAcrossRequestsAndConcurrentOnesGetTheirOwn() async throws {
        let heads = Recorder<[String]>([])
        let server = try Self.echoing(heads)
        for _ in 0..<5 { _ = try await Self.transport.send(Self.request(server)) }
        #expect(server.accepted == 1, "one connection for all five")
        // Two at once, as a fetch sends them, then more: no more connections than were ever in use at once.
        async let first = Self.transport.send(Self.request(server, "GET", "/landmarks"))
        async let second = Self.transport.send(Self.request(server))
        _ = try await (first, second)
        for _ in 0..<5 { _ = try await Self.transport.send(Self.request(server)) }
        #expect(server.accepted <= 2, "no more connections than were ever in use at once")
        #expect(heads.value.count == 12)
    }

    /// libcurl reads 1xx answers itself; the status and headers are the final answer's.
    @Test func anInterimAnswerIsNotTakenForTheResponse() async throws {
        let server = try LoopbackServer { connection in
            guard connection.request() != nil else { return }
            connection.send(
                "HTTP/1.1 100 Continue\r\nX-Interim: yes\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n")
            connection.respond("{}", status: "201 Created", headers: "Location: /reservations/1\r\n")
            connection.waitForClose()
        }
        let response = try await Self.transport.send(Self.request(server, "POST", body: "{}"))
        #expect(response.status == 201)
        #expect(response.headers["location"] == "/reservations/1")
        #expect(response.headers["x-interim"] == nil)
        #expect(response.headers["link"] == nil)
        #expect(String(decoding: response.body, as: UTF8.self) == "{}")
    }

    @Test func aBodyCutShortIsTruncated() async throws {
        let server = try LoopbackServer { connection in
            guard connection.request() != nil else { return }
            connection.send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n[1,2,3")
        }
        do {
            _ = try await Self.transport.send(Self.request(server))
            Issue.record("a cut body cannot answer")
        } catch TransportFailure.truncated {}
    }

    /// The reset comes once the client has read part of the body (the event, not a guess at a
    /// time): the server sends more of it than the sockets' buffers can hold, so its blocking send
    /// returns only after the client has read the headers and some of the body.
    @Test func aResetMidBodyIsALostConnection() async throws {
        let part = LoopbackConnection.pastTheBuffers
        let sentPart = Recorder(false)
        let server = try LoopbackServer { connection in
            guard connection.request() != nil else { return }
            connection.keepSendBufferSmall()
            let head = "HTTP/1.1 200 OK\r\nContent-Length: \(part + (1 << 20))\r\n\r\n"
            let sent = connection.send(Array(head.utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: part))
            sentPart.change { $0 = sent }
            connection.reset()
        }
        do {
            _ = try await Self.transport.send(Self.request(server))
            Issue.record("a reset connection cannot answer")
        } catch TransportFailure.connectionLost, TransportFailure.truncated {}
        #expect(sentPart.value, "the client read part of the body before the reset")
    }

    /// Sending to a connection the server has reset gives EPIPE, never a SIGPIPE
    /// that would end the process (this test would not return).
    @Test func aServerThatResetsWhileTheBodyIsSentDoesNotKillTheProcess() async throws {
        let server = try LoopbackServer { connection in
            var byte: UInt8 = 0
            _ = recv(connection.fd, &byte, 1, 0)
            connection.reset()
        }
        let body = String(repeating: "x", count: 8 << 20)
        for _ in 0..<3 {
            await #expect(throws: TransportFailure.self) {
                _ = try await Self.transport.send(Self.request(server, "POST", body: body))
            }
        }
    }

    @Test func aRefusedConnectionCannotConnect() async throws {
        let server = try LoopbackServer { _ in }
        server.stop()
        do {
            _ = try await Self.transport.send(Self.request(server))
            Issue.record("nobody listens")
        } catch TransportFailure.cannotConnect(let why) {
            #expect(!why.isEmpty)
        }
    }

    @Test func anEmptyAnswerIsALostConnection() async throws {
        let server = try LoopbackServer { connection in _ = connection.request() }
        do {
            _ = try await Self.transport.send(Self.request(server))
            Issue.record("no answer")
        } catch TransportFailure.connectionLost {}
    }

    /// A server that reads a request and never answers: each request read is yielded to
    /// `arrivals`; the connection ends when the client closes it (or after 30 s, when the client
    /// gets a lost connection: never a timeout, never a cancel).
    static func hung(_ arrivals: AsyncStream<Void>.Continuation? = nil) throws -> LoopbackServer {
        try LoopbackServer { connection in
            guard connection.request() != nil else { return }
            arrivals?.yield()
            connection.waitForClose()
        }
    }

    /// Only the request's own time left (0.3 s) can end it in `timedOut`: the transport's limits
    /// are a day each, and the server, which has the request, ends it after 30 s as a lost connection.
    @Test func aHungServerIsBoundedByTheRequestsTimeLeft() async throws {
        let (arrivals, arrived) = AsyncStream.makeStream(of: Void.self)
        let server = try Self.hung(arrived)
        let transport = HTTPTransport.libcurl(connectTimeout: 86_400, requestTimeout: 86_400)
        await #expect(throws: TransportFailure.timedOut) {
            _ = try await transport.send(Self.request(server, timeout: 0.3))
        }
        var received = arrivals.makeAsyncIterator()
        #expect(await received.next() != nil, "the server read the request: the answer timed out, not the connect")
    }

    /// The cancel comes once the server has the request (the event, not a guess at a time), and
    /// only the cancel can end it in a `CancellationError`: the transport's limits are a day, and
    /// the hung server ends it after 30 s as a lost connection.
    @Test func cancellingEndsTheRequestAtOnce() async throws {
        let (arrivals, arrived) = AsyncStream.makeStream(of: Void.self)
        let server = try Self.hung(arrived)
        let request = Self.request(server)
        let transport = HTTPTransport.libcurl(connectTimeout: 86_400, requestTimeout: 86_400)
        let task = Task { try await transport.send(request) }
        var received = arrivals.makeAsyncIterator()
        #expect(await received.next() != nil, "the server read the request")
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        // The transport still works afterwards.
        let heads = Recorder<[String]>([])
        let echo = try Self.echoing(heads)
        #expect(try await Self.transport.send(Self.request(echo)).status == 200)
    }

    @Test(arguments: [1e300, .infinity, -.infinity, .nan, -1, 0, 1e-9])
    func anyTimeoutBecomesMillisecondsLibcurlCanTake(seconds: Double) async throws {
        let milliseconds = LibCurlTransfer.milliseconds(seconds)
        #expect((1...86_400_000).contains(milliseconds), "\(seconds) → \(milliseconds)")
        let heads = Recorder<[String]>([])
        let server = try Self.echoing(heads)
        let transport = HTTPTransport.libcurl(connectTimeout: seconds, requestTimeout: seconds)
        if milliseconds >= 1000 {
            #expect(try await transport.send(Self.request(server, timeout: seconds)).status == 200)
        } else {
            // Too little time for anything: an answer or a timeout, not a trap.
            _ = try? await transport.send(Self.request(server, timeout: seconds))
        }
    }
}

/// A change whose answer is lost is never sent a second time by libcurl itself (issue:
/// `resv undo` applied twice behind a proxy that dropped its answer). The server answers a
/// GET and keeps its connection; it reads any other request and closes without a word, as
/// a proxy that forwarded a request and lost its answer does.
@Suite("libcurl transport: no silent second sending", .ownThreads, .timeLimit(.minutes(30)))
struct LibCurlResendTests {
    /// Each request line the server read, with its place on its connection (1: the first).
    static func droppingChanges(_ seen: Recorder<[(line: String, place: Int)]>) throws -> LoopbackServer {
        try LoopbackServer { connection in
            var place = 0
            while let head = connection.request() {
                place += 1
                let line = head.split(separator: "\r\n").first.map(String.init) ?? ""
                let at = place
                seen.change { $0.append((line, at)) }
                guard line.hasPrefix("GET "), connection.respond("[]") else { return }
            }
        }
    }

    @Test(arguments: ["POST", "PATCH", "DELETE"])
    func anUnkeyedChangeOnAKeptConnectionIsSentOnce(method: String) async throws {
        let seen = Recorder<[(line: String, place: Int)]>([])
        let server = try Self.droppingChanges(seen)
        defer { server.stop() }
        let transport = HTTPTransport.libcurl(connectTimeout: 5, requestTimeout: 30)
        let warm = try await transport.send(LibCurlTransportTests.request(server))
        #expect(warm.status == 200)
        await #expect(throws: TransportFailure.self) {
            _ = try await transport.send(LibCurlTransportTests.request(server, method, "/undo", body: "{}"))
        }
        let changes = seen.value.filter { $0.line.hasPrefix(method) }
        #expect(changes.count == 1, "\(seen.value)")
        #expect(changes.first?.place == 1, "on a connection of its own")
    }

    /// The control: the same exchange with an Idempotency-Key (which makes a second sending
    /// harmless) goes on the kept connection and is sent again by libcurl on a new one, so the
    /// test above sees what it claims to prevent. The kept connection is libcurl's to keep: it
    /// may have closed it (the full suite can hold the threads past its idle limit), so the
    /// exchange is tried until a change went on a kept connection, as the event to look at.
    @Test func aKeyedChangeOnAKeptConnectionIsSentAgain() async throws {
        var reused: [(line: String, place: Int)]?
        for round in 1...5 where reused == nil {
            let seen = Recorder<[(line: String, place: Int)]>([])
            let server = try Self.droppingChanges(seen)
            defer { server.stop() }
            let transport = HTTPTransport.libcurl(connectTimeout: 5, requestTimeout: 30)
            _ = try await transport.send(LibCurlTransportTests.request(server))
            await #expect(throws: TransportFailure.self) {
                _ = try await transport.send(
                    LibCurlTransportTests.request(
                        server, "POST", "/undo", headers: ["Idempotency-Key": "k\(round)"], body: "{}"))
            }
            let posts = seen.value.filter { $0.line.hasPrefix("POST") }
            if posts.first?.place == 2 { reused = posts }
        }
        let posts = try #require(reused, "no round sent the change on a kept connection")
        #expect(posts.count == 2, "sent again on a new connection: \(posts)")
        #expect(posts.last?.place == 1)
    }
}
