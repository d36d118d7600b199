import Foundation
import NIOCore
import NIOPosix
import Synchronization

// A small HTTP/1.1 server that misbehaves on purpose, for the client's fault tests:
// SwiftNIO on one event loop thread of its own, keep-alive, raw bytes both ways (so it
// can answer badly), and a closure that decides, request by request, how to answer (or not).

/// One request as the server read it, its years as the test wrote them (`YearsAhead`).
struct RecordedRequest: Sendable {
    let method: String
    /// The request target as sent, query included: "/reservations?date=2031-06-01".
    let path: String
    /// Names lowercased; a repeated header's values are joined with ", ".
    let headers: [String: String]
    /// The Content-Length body, or the decoded chunked body.
    let body: Data
}

extension RecordedRequest {
    /// The request with the years the client was given moved back (`YearsAhead`).
    var yearsBack: RecordedRequest {
        RecordedRequest(
            method: method, path: YearsAhead.back(path), headers: headers.mapValues { YearsAhead.back($0) },
            body: YearsAhead.back(body))
    }
}

/// What the server does with one request.
enum FaultReply: Sendable {
    /// A well-formed response with Content-Length; Content-Type application/json unless
    /// `headers` gives one. A given Content-Length is ignored; "Connection: close" in
    /// `headers` closes the connection after the response.
    case respond(status: Int, headers: [String: String] = [:], body: String = "")
    /// The status line and headers with Content-Length = `declaredLength`, but only
    /// `body` after them, then the connection is closed.
    case truncated(status: Int, body: String, declaredLength: Int)
    /// Closes the connection without answering.
    case drop
    /// Waits, then does the inner reply (sending to a client that gave up meanwhile
    /// just ends the connection). stop() cuts the wait short and closes the connection.
    indirect case delayed(seconds: Double, FaultReply)
}

/// An HTTP/1.1 server on 127.0.0.1 and a free port, answering each request as `reply` says.
///
///     let server = try FaultServer { request, index in
///         index == 0 ? .respond(status: 500) : .respond(status: 200, body: #"{"ok":true}"#)
///     }
///     defer { server.stop() }
///
/// `reply` runs on the server's event loop thread, for one request at a time per connection;
/// it must not block (a delay is `.delayed`). The years of a reply move ahead, and those of a
/// request back, as for any child (`YearsAhead`).
final class FaultServer: Sendable {
    let port: Int
    private let shared: FaultServerShared
    private let group: MultiThreadedEventLoopGroup
    private let listener: any Channel

    /// Starts listening on 127.0.0.1 on a free port. `index` counts requests from 0 across all connections.
    init(_ reply: @escaping @Sendable (RecordedRequest, _ index: Int) -> FaultReply) throws {
        let shared = FaultServerShared(reply: reply)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            listener = try ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 128)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(FaultConnection(shared))
                    }
                }
                .bind(host: "127.0.0.1", port: 0).wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
        self.shared = shared
        self.group = group
        port = listener.localAddress?.port ?? 0
    }

    deinit { stop() }

    /// "http://127.0.0.1:PORT"
    var url: String { "http://127.0.0.1:\(port)" }

    /// Every request read so far, in order (the order of their indexes).
    var requests: [RecordedRequest] { shared.requests.withLock { $0 } }

    /// How many delayed replies have come to their end (sent, or dropped for a client that left).
    var delayedRepliesDone: Int { shared.delayedDone.withLock { $0 } }

    /// Closes the listening socket and every open connection (a delayed reply waiting is
    /// cut short) and shuts the event loop down, waiting for it unless called on an event
    /// loop (from `reply`, say). Idempotent; also done by deinit.
    func stop() {
        guard
            shared.stopped.withLock({ stopped in
                defer { stopped = true }
                return !stopped
            })
        else { return }
        if MultiThreadedEventLoopGroup.currentEventLoop == nil {
            try? group.syncShutdownGracefully()  // closes every channel, cancels every delay
        } else {
            listener.close(promise: nil)
            group.shutdownGracefully { _ in }
        }
    }
}

// MARK: - Implementation

/// What the server and its connections share.
private final class FaultServerShared: Sendable {
    let reply: @Sendable (RecordedRequest, Int) -> FaultReply
    let requests = Mutex<[RecordedRequest]>([])
    /// Delayed replies whose delay is over: sent, or dropped for a client that left.
    let delayedDone = Mutex(0)
    let stopped = Mutex(false)

    init(reply: @escaping @Sendable (RecordedRequest, Int) -> FaultReply) { self.reply = reply }
}

/// One connection: parses requests from the bytes read, one at a time, and answers each
/// as `reply` says. Lives on the event loop.
private final class FaultConnection: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let shared: FaultServerShared
    private var parser = RequestParser()
    /// A reply is under way (delayed): later requests wait in the parser's buffer.
    private var busy = false
    /// The last reply is sent: what the client still sends is read and dropped.
    private var finishing = false

    init(_ shared: FaultServerShared) { self.shared = shared }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !finishing else { return }
        parser.buffer += Array(buffer: unwrapInboundIn(data))
        serve(context)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// Answers the requests read so far, until one is incomplete or a reply is delayed.
    private func serve(_ context: ChannelHandlerContext) {
        while !busy && !finishing {
            do throws(RequestParser.Malformed) {
                switch try parser.next() {
                case .needMore(let sendContinue):
                    if sendContinue { send(context, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) }
                    return
                case .request(let sent, let clientCloses):
                    let request = sent.yearsBack
                    let index = shared.requests.withLock { requests in
                        requests.append(request)
                        return requests.count - 1
                    }
                    busy = true
                    let reply = shared.reply(request, index)
                    if let keepOpen = perform(reply, method: request.method, clientCloses: clientCloses, context) {
                        done(keepOpen: keepOpen, context)
                    }
                }
            } catch {
                let body = Array(error.reason.utf8)
                let fields = [
                    ("Content-Type", "text/plain"), ("Content-Length", "\(body.count)"), ("Connection", "close"),
                ]
                send(context, Self.head(status: 400, fields: fields) + body)
                finish(context)
            }
        }
    }

    private func done(keepOpen: Bool, _ context: ChannelHandlerContext) {
        busy = false
        if !keepOpen { finish(context) }
    }

    /// Does `reply`; returns whether the connection stays open for another request, or nil
    /// for a delayed reply, which calls done(keepOpen:) and serve() itself when it is over.
    private func perform(
        _ reply: FaultReply, method: String, clientCloses: Bool, _ context: ChannelHandlerContext
    ) -> Bool? {
        switch reply {
        case .respond(let status, let headers, let body):
            let headers = headers.mapValues(YearsAhead.forward)
            let body = YearsAhead.forward(body)
            let asksClose = headers.contains {
                $0.key.lowercased() == "connection" && $0.value.lowercased().contains("close")
            }
            let closes = clientCloses || asksClose
            var fields = headers.filter { !["content-length", "transfer-encoding"].contains($0.key.lowercased()) }
                .sorted { $0.key.lowercased() < $1.key.lowercased() }
                .map { ($0.key, $0.value) }
            if !fields.contains(where: { $0.0.lowercased() == "content-type" }) {
                fields.insert(("Content-Type", "application/json"), at: 0)
            }
            let bodyBytes = Array(body.utf8)
            let bodiless = (100..<200).contains(status) || status == 204 || status == 304
            if !bodiless { fields.append(("Content-Length", "\(bodyBytes.count)")) }
            if closes && !fields.contains(where: { $0.0.lowercased() == "connection" }) {
                fields.append(("Connection", "close"))
            }
            send(context, Self.head(status: status, fields: fields) + (bodiless || method == "HEAD" ? [] : bodyBytes))
            return !closes
        case .truncated(let status, let body, let declaredLength):
            let body = YearsAhead.forward(body)  // the same length: a year keeps its four digits
            let fields = [("Content-Type", "application/json"), ("Content-Length", "\(declaredLength)")]
            send(context, Self.head(status: status, fields: fields) + Array(body.utf8))
            return false
        case .drop:
            return false
        case .delayed(let seconds, let inner):
            // stop() shuts the event loop down, which cancels this task and closes the connection.
            let delay = TimeAmount.nanoseconds(Int64(max(0, seconds) * 1e9))
            context.eventLoop.assumeIsolated().scheduleTask(in: delay) { [self] in
                defer { shared.delayedDone.withLock { $0 += 1 } }
                guard context.channel.isActive else { return }  // the client gave up meanwhile
                guard let keepOpen = perform(inner, method: method, clientCloses: clientCloses, context) else { return }
                done(keepOpen: keepOpen, context)
                serve(context)
            }
            return nil
        }
    }

    private func send(_ context: ChannelHandlerContext, _ bytes: [UInt8]) {
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
    }

    /// Sends FIN once the replies are written, and reads until the client closes (at most
    /// a second), so that bytes the client sent and nobody read do not turn the close into
    /// a reset, which could discard the reply before the client reads it.
    private func finish(_ context: ChannelHandlerContext) {
        guard !finishing else { return }
        finishing = true
        context.close(mode: .output, promise: nil)
        context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(1)) { context.close(promise: nil) }
    }

    private static func head(status: Int, fields: [(String, String)]) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(reasons[status] ?? "Status \(status)")\r\n"
        for (name, value) in fields { text += "\(name): \(value)\r\n" }
        return Array((text + "\r\n").utf8)
    }

    private static let reasons: [Int: String] = [
        100: "Continue", 200: "OK", 201: "Created", 202: "Accepted", 204: "No Content", 301: "Moved Permanently",
        302: "Found", 304: "Not Modified", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
        404: "Not Found", 405: "Method Not Allowed", 408: "Request Timeout", 409: "Conflict", 410: "Gone",
        413: "Content Too Large", 415: "Unsupported Media Type", 422: "Unprocessable Content",
        429: "Too Many Requests", 500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway",
        503: "Service Unavailable", 504: "Gateway Timeout",
    ]
}

/// Requests out of the bytes of one connection, keeping bytes that arrived early for the next one.
private struct RequestParser {
    struct Malformed: Error { let reason: String }
    enum Step {
        case request(RecordedRequest, clientCloses: Bool)
        /// The request is incomplete; `sendContinue` once when the client waits for 100 Continue.
        case needMore(sendContinue: Bool)
    }
    private struct Head {
        let method: String
        let path: String
        let headers: [String: String]
        /// nil: chunked.
        let length: Int?
        let clientCloses: Bool
    }

    var buffer: [UInt8] = []
    private var head: Head?
    private var continueDue = false

    mutating func next() throws(Malformed) -> Step {
        if head == nil {
            while buffer.starts(with: [13, 10]) { buffer.removeFirst(2) }  // empty lines before a request are allowed
            guard let end = find([13, 10, 13, 10], from: 0) else {
                guard buffer.count <= 1 << 20 else { throw Malformed(reason: "header section too large") }
                return .needMore(sendContinue: false)
            }
            let (parsed, expectsContinue) = try Self.parseHead(buffer[..<end])
            buffer.removeFirst(end + 4)
            head = parsed
            continueDue = expectsContinue
        }
        guard let head else { return .needMore(sendContinue: false) }
        let body: [UInt8]
        if let length = head.length, buffer.count >= length {
            body = Array(buffer[..<length])
            buffer.removeFirst(length)
        } else if head.length == nil, let (chunked, end) = try chunkedBody() {
            body = chunked
            buffer.removeFirst(end)
        } else {
            defer { continueDue = false }
            return .needMore(sendContinue: continueDue)
        }
        self.head = nil
        let request = RecordedRequest(method: head.method, path: head.path, headers: head.headers, body: Data(body))
        return .request(request, clientCloses: head.clientCloses)
    }

    private static func parseHead(_ bytes: ArraySlice<UInt8>) throws(Malformed) -> (Head, expectsContinue: Bool) {
        let lines = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ")
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else {
            throw Malformed(reason: "bad request line: \(lines[0])")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { throw Malformed(reason: "bad header line: \(line)") }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { throw Malformed(reason: "bad header line: \(line)") }
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        var length: Int? = 0
        if headers["transfer-encoding"]?.lowercased().contains("chunked") ?? false {
            length = nil
        } else if let text = headers["content-length"] {
            guard let value = Int(text), value >= 0 else { throw Malformed(reason: "bad Content-Length: \(text)") }
            length = value
        }
        let tokens = (headers["connection"] ?? "").lowercased().split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }
        // HTTP/1.0 connections are not kept alive, even when asked (the reply would have to say so).
        let clientCloses = requestLine[2] == "HTTP/1.0" || tokens.contains("close")
        let head = Head(
            method: String(requestLine[0]), path: String(requestLine[1]), headers: headers, length: length,
            clientCloses: clientCloses)
        return (head, headers["expect"]?.lowercased() == "100-continue")
    }

    /// The decoded chunked body at the start of the buffer and where it ends, or nil if it is incomplete.
    private func chunkedBody() throws(Malformed) -> ([UInt8], end: Int)? {
        var body: [UInt8] = []
        var at = 0
        while true {
            guard let (line, next) = try line(at: at) else { return nil }
            let sizeText = line.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
                .trimmingCharacters(in: .whitespaces)
            guard let size = Int(sizeText, radix: 16), size >= 0, size < 1 << 40 else {
                throw Malformed(reason: "bad chunk size: \(line)")
            }
            at = next
            if size == 0 {
                while true {  // trailer fields, up to the empty line
                    guard let (trailer, next) = try self.line(at: at) else { return nil }
                    at = next
                    if trailer.isEmpty { return (body, at) }
                }
            }
            guard buffer.count >= at + size + 2 else { return nil }
            guard buffer[at + size] == 13, buffer[at + size + 1] == 10 else {
                throw Malformed(reason: "chunk data not followed by CRLF")
            }
            body += buffer[at..<at + size]
            at += size + 2
        }
    }

    /// The line starting at `start` and where the next one starts, or nil if it is incomplete.
    private func line(at start: Int) throws(Malformed) -> (String, next: Int)? {
        guard let end = find([13, 10], from: start) else {
            guard buffer.count - start <= 64 * 1024 else { throw Malformed(reason: "line too long") }
            return nil
        }
        return (String(decoding: buffer[start..<end], as: UTF8.self), end + 2)
    }

    private func find(_ pattern: [UInt8], from start: Int) -> Int? {
        guard buffer.count - start >= pattern.count else { return nil }
        for index in start...(buffer.count - pattern.count)
        where buffer[index] == pattern[0] && buffer[index..<index + pattern.count].elementsEqual(pattern) {
            return index
        }
        return nil
    }
}
