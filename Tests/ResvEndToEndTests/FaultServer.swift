import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// A small HTTP/1.1 server that misbehaves on purpose, for the client's fault tests:
// POSIX sockets, one thread accepting and one thread per connection, keep-alive,
// and a closure that decides, request by request, how to answer (or not).

/// One request as the server read it.
struct RecordedRequest: Sendable {
    let method: String
    /// The request target as sent, query included: "/reservations?date=2031-06-01".
    let path: String
    /// Names lowercased; a repeated header's values are joined with ", ".
    let headers: [String: String]
    /// The Content-Length body, or the decoded chunked body.
    let body: Data
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
/// `reply` runs on the connection's thread, for one request at a time per connection.
final class FaultServer: Sendable {
    let port: Int
    private let core: FaultServerCore

    /// Starts listening on 127.0.0.1 on a free port. `index` counts requests from 0 across all connections.
    init(_ reply: @escaping @Sendable (RecordedRequest, _ index: Int) -> FaultReply) throws {
        core = try FaultServerCore(reply: reply)
        port = core.port
        core.startAccepting()
    }

    deinit { core.stop() }

    /// "http://127.0.0.1:PORT"
    var url: String { "http://127.0.0.1:\(port)" }

    /// Every request read so far, in order (the order of their indexes).
    var requests: [RecordedRequest] { core.state.withLock { $0.requests } }

    /// Closes the listening socket and every open connection (a delayed reply waiting
    /// is cut short), then waits up to two seconds for the server's threads to end.
    /// Idempotent; also done by deinit.
    func stop() { core.stop() }
}

/// A socket call that failed while starting the server.
struct FaultServerError: Error, CustomStringConvertible {
    let call: String
    let code: Int32
    var description: String { "FaultServer: \(call) failed: \(String(cString: strerror(code)))" }
}

// MARK: - Implementation

/// Everything the threads share. FaultServer owns it and stops it in deinit; the
/// threads hold it too, so it outlives them, and it closes the stop channel last.
private final class FaultServerCore: Sendable {
    struct State {
        var stopped = false
        var listenerOpen = true
        /// Open connection sockets, so stop() can shut them down. A socket is closed
        /// only by its own thread, with the lock held, after leaving this set: stop()
        /// never touches a closed (or reused) descriptor.
        var connections: Set<Int32> = []
        /// The server's own threads, so stop() called from `reply` does not wait for itself.
        var workers: Set<ObjectIdentifier> = []
        var requests: [RecordedRequest] = []
    }

    let state = Mutex(State())
    let reply: @Sendable (RecordedRequest, Int) -> FaultReply
    let listener: Int32
    let port: Int
    /// Written once by stop(); every wait of every thread polls its read end too.
    let stopReader: Int32
    let stopWriter: Int32
    let threads = DispatchGroup()

    init(reply: @escaping @Sendable (RecordedRequest, Int) -> FaultReply) throws {
        self.reply = reply
        let fd = socket(AF_INET, SocketCalls.streamType, 0)
        guard fd >= 0 else { throw FaultServerError(call: "socket", code: errno) }
        #if !canImport(Glibc)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        #endif
        func fail(_ call: String) -> FaultServerError {
            let error = FaultServerError(call: call, code: errno)
            close(fd)
            return error
        }
        var address = sockaddr_in()
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)  // 127.0.0.1
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw fail("bind") }
        guard listen(fd, 128) == 0 else { throw fail("listen") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw fail("getsockname") }
        // Non-blocking, so an accept after a poll never blocks (the connection may be gone by then).
        guard fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0 else { throw fail("fcntl") }
        guard let channel = SocketCalls.makeStopChannel() else { throw fail("socketpair") }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        stopReader = channel.reader
        stopWriter = channel.writer
    }

    deinit {
        state.withLock { state in
            if state.listenerOpen { close(listener) }
        }
        close(stopReader)
        close(stopWriter)
    }

    func startAccepting() {
        threads.enter()
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "FaultServer accept :\(port)"
        thread.start()
    }

    func stop() {
        let first = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.stopped = true
            if state.listenerOpen { _ = shutdown(listener, SocketCalls.shutBoth) }
            for fd in state.connections { _ = shutdown(fd, SocketCalls.shutBoth) }
            return true
        }
        if first {
            var byte: UInt8 = 1
            _ = write(stopWriter, &byte, 1)
        }
        let onOwnThread = state.withLock { $0.workers.contains(ObjectIdentifier(Thread.current)) }
        if !onOwnThread { _ = threads.wait(timeout: .now() + 2) }
    }

    // MARK: Threads

    private func acceptLoop() {
        let me = ObjectIdentifier(Thread.current)
        state.withLock { _ = $0.workers.insert(me) }
        defer {
            state.withLock { state in
                state.workers.remove(me)
                state.listenerOpen = false
                close(listener)
            }
            threads.leave()
        }
        while true {
            guard wait(for: listener, timeout: nil) == .ready else { return }
            let fd = SocketCalls.accept(listener)
            guard fd >= 0 else {
                let code = errno
                if code == EAGAIN || code == EWOULDBLOCK || code == EINTR || code == ECONNABORTED { continue }
                // Out of descriptors, say: wait a little rather than spin (or end, if stopped).
                if wait(for: nil, timeout: 0.05) == .stopped { return }
                continue
            }
            let admitted = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                state.connections.insert(fd)
                return true
            }
            guard admitted else {
                close(fd)
                return
            }
            threads.enter()
            let thread = Thread { [self] in serve(fd) }
            thread.name = "FaultServer connection \(fd)"
            thread.start()
        }
    }

    private func serve(_ fd: Int32) {
        let me = ObjectIdentifier(Thread.current)
        state.withLock { _ = $0.workers.insert(me) }
        defer {
            state.withLock { state in
                state.workers.remove(me)
                state.connections.remove(fd)
                close(fd)
            }
            threads.leave()
        }
        var reader = RequestReader(fd: fd, core: self)
        while true {
            let request: RecordedRequest
            let clientCloses: Bool
            do {
                (request, clientCloses) = try reader.next()
            } catch {
                switch error {
                case .closed:
                    return
                case .malformed(let reason):
                    let body = Array(reason.utf8)
                    let head = Self.head(
                        status: 400,
                        fields: [
                            ("Content-Type", "text/plain"), ("Content-Length", "\(body.count)"),
                            ("Connection", "close"),
                        ])
                    _ = sendAll(fd, head + body)
                    closeGracefully(fd)
                    return
                }
            }
            let index = state.withLock { state -> Int in
                state.requests.append(request)
                return state.requests.count - 1
            }
            let keepOpen = perform(reply(request, index), method: request.method, clientCloses: clientCloses, on: fd)
            guard keepOpen else {
                closeGracefully(fd)
                return
            }
        }
    }

    /// Does `reply`; returns whether the connection stays open for another request.
    private func perform(_ reply: FaultReply, method: String, clientCloses: Bool, on fd: Int32) -> Bool {
        switch reply {
        case .respond(let status, let headers, let body):
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
            let sent = sendAll(
                fd, Self.head(status: status, fields: fields) + (bodiless || method == "HEAD" ? [] : bodyBytes))
            return sent && !closes
        case .truncated(let status, let body, let declaredLength):
            let fields = [("Content-Type", "application/json"), ("Content-Length", "\(declaredLength)")]
            _ = sendAll(fd, Self.head(status: status, fields: fields) + Array(body.utf8))
            return false
        case .drop:
            return false
        case .delayed(let seconds, let inner):
            guard wait(for: nil, timeout: seconds) == .timedOut else { return false }  // stopped
            return perform(inner, method: method, clientCloses: clientCloses, on: fd)
        }
    }

    // MARK: Sockets

    enum Readiness { case ready, stopped, timedOut }

    /// Waits until `fd` is readable (or hung up), stop() is called, or `timeout` seconds pass.
    func wait(for fd: Int32?, timeout: Double?) -> Readiness {
        let deadline = timeout.map { ProcessInfo.processInfo.systemUptime + max(0, $0) }
        var fds = [pollfd(fd: stopReader, events: Int16(POLLIN), revents: 0)]
        if let fd { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
        while true {
            var milliseconds: Int32 = -1
            if let deadline {
                let remaining = (deadline - ProcessInfo.processInfo.systemUptime) * 1000
                milliseconds = Int32(min(max(0, remaining.rounded(.up)), Double(Int32.max)))
            }
            let count = poll(&fds, nfds_t(fds.count), milliseconds)
            if count < 0 {
                if errno == EINTR { continue }
                return .stopped  // cannot wait: treat as the end
            }
            if fds[0].revents != 0 { return .stopped }
            if count > 0 { return .ready }
            if let deadline, ProcessInfo.processInfo.systemUptime < deadline { continue }
            return .timedOut
        }
    }

    /// Sends all of `bytes`; false if the peer is gone (EPIPE and ECONNRESET raise no signal).
    func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes {
                send(fd, $0.baseAddress! + offset, $0.count - offset, SocketCalls.sendFlags)
            }
            if sent > 0 {
                offset += sent
            } else if sent < 0 && errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }

    /// Sends FIN and reads until the client closes (at most a second), so that bytes
    /// the client sent and nobody read do not turn the close into a reset, which
    /// could discard the reply before the client reads it.
    private func closeGracefully(_ fd: Int32) {
        _ = shutdown(fd, SocketCalls.shutWrite)
        let deadline = ProcessInfo.processInfo.systemUptime + 1
        var scratch = [UInt8](repeating: 0, count: 4096)
        while case let remaining = deadline - ProcessInfo.processInfo.systemUptime, remaining > 0 {
            guard wait(for: fd, timeout: remaining) == .ready else { return }
            let count = recv(fd, &scratch, scratch.count, 0)
            if count == 0 || (count < 0 && errno != EINTR) { return }
        }
    }

    private static func head(status: Int, fields: [(String, String)]) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(reason(status))\r\n"
        for (name, value) in fields { text += "\(name): \(value)\r\n" }
        return Array((text + "\r\n").utf8)
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Status \(status)"
        }
    }
}

/// Reads requests off one connection, keeping bytes that arrived early for the next one.
private struct RequestReader {
    enum Failure: Error {
        /// The client closed (or reset) the connection, or the server was stopped.
        case closed
        case malformed(String)
    }

    let fd: Int32
    let core: FaultServerCore
    private var buffer: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 64 * 1024)

    init(fd: Int32, core: FaultServerCore) {
        self.fd = fd
        self.core = core
    }

    /// The next request, and whether the client asked to close the connection after it.
    mutating func next() throws(Failure) -> (RecordedRequest, Bool) {
        var headerEnd: Int
        while true {
            while buffer.starts(with: [13, 10]) { buffer.removeFirst(2) }  // empty lines before a request are allowed
            if let end = find([13, 10, 13, 10]) {
                headerEnd = end
                break
            }
            guard buffer.count <= 1 << 20 else { throw .malformed("header section too large") }
            try fill()
        }
        let lines = String(decoding: buffer[..<headerEnd], as: UTF8.self).components(separatedBy: "\r\n")
        buffer.removeFirst(headerEnd + 4)

        let requestLine = lines[0].split(separator: " ")
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else {
            throw .malformed("bad request line: \(lines[0])")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { throw .malformed("bad header line: \(line)") }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { throw .malformed("bad header line: \(line)") }
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }

        let chunked = headers["transfer-encoding"]?.lowercased().contains("chunked") ?? false
        var length = 0
        if !chunked, let text = headers["content-length"] {
            guard let value = Int(text), value >= 0 else { throw .malformed("bad Content-Length: \(text)") }
            length = value
        }
        if headers["expect"]?.lowercased() == "100-continue", chunked || buffer.count < length {
            guard core.sendAll(fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else { throw .closed }
        }
        let body = chunked ? try readChunkedBody() : try read(count: length)

        let tokens = (headers["connection"] ?? "").lowercased().split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }
        // HTTP/1.0 connections are not kept alive, even when asked (the reply would have to say so).
        let closes = requestLine[2] == "HTTP/1.0" || tokens.contains("close")
        let request = RecordedRequest(
            method: String(requestLine[0]), path: String(requestLine[1]), headers: headers, body: Data(body))
        return (request, closes)
    }

    private mutating func readChunkedBody() throws(Failure) -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let line = String(decoding: try readLine(), as: UTF8.self)
            let sizeText = line.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
                .trimmingCharacters(in: .whitespaces)
            guard let size = Int(sizeText, radix: 16), size >= 0 else { throw .malformed("bad chunk size: \(line)") }
            if size == 0 {
                while try !readLine().isEmpty {}  // trailer fields, up to the empty line
                return body
            }
            body += try read(count: size)
            guard try readLine().isEmpty else { throw .malformed("chunk data not followed by CRLF") }
        }
    }

    private mutating func readLine() throws(Failure) -> [UInt8] {
        while true {
            if let end = find([13, 10]) {
                let line = Array(buffer[..<end])
                buffer.removeFirst(end + 2)
                return line
            }
            guard buffer.count <= 64 * 1024 else { throw .malformed("line too long") }
            try fill()
        }
    }

    private mutating func read(count: Int) throws(Failure) -> [UInt8] {
        while buffer.count < count { try fill() }
        let bytes = Array(buffer[..<count])
        buffer.removeFirst(count)
        return bytes
    }

    private func find(_ pattern: [UInt8]) -> Int? {
        guard buffer.count >= pattern.count else { return nil }
        for start in 0...(buffer.count - pattern.count)
        where buffer[start] == pattern[0] && buffer[start..<start + pattern.count].elementsEqual(pattern) {
            return start
        }
        return nil
    }

    /// Appends what the client sends next; throws `.closed` at end of stream, on error, or on stop().
    private mutating func fill() throws(Failure) {
        guard core.wait(for: fd, timeout: nil) == .ready else { throw .closed }
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count > 0 {
                buffer += chunk[..<count]
                return
            }
            if count < 0 && errno == EINTR { continue }
            throw .closed
        }
    }
}

/// The few calls that differ between glibc and Darwin.
private enum SocketCalls {
    #if canImport(Glibc)
        /// Not inherited by the processes the tests start (curl, the CLI).
        static let streamType = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        static let sendFlags = Int32(MSG_NOSIGNAL)
        static let shutBoth = Int32(SHUT_RDWR)
        static let shutWrite = Int32(SHUT_WR)

        static func accept(_ listener: Int32) -> Int32 {
            accept4(listener, nil, nil, Int32(SOCK_CLOEXEC.rawValue))
        }

        /// A connected pair: stop() writes a byte to one end, the threads poll the other.
        static func makeStopChannel() -> (reader: Int32, writer: Int32)? {
            var fds: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, streamType, 0, &fds) == 0 else { return nil }
            return (fds[0], fds[1])
        }

        /// accept4 needs _GNU_SOURCE, which the Glibc module does not define; it is
        /// in libc all the same, so look it up by name (a null handle is RTLD_DEFAULT).
        private typealias Accept4 =
            @convention(c) (
                Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32
            ) -> Int32
        private static let accept4: Accept4 = {
            guard let symbol = dlsym(nil, "accept4") else { fatalError("libc has no accept4") }
            return unsafeBitCast(symbol, to: Accept4.self)
        }()
    #else
        static let streamType = SOCK_STREAM
        static let sendFlags: Int32 = 0
        static let shutBoth = SHUT_RDWR
        static let shutWrite = SHUT_WR

        static func accept(_ listener: Int32) -> Int32 {
            let fd = Darwin.accept(listener, nil, nil)
            if fd >= 0 {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)  // inherited from the listener
                var one: Int32 = 1
                _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            }
            return fd
        }

        static func makeStopChannel() -> (reader: Int32, writer: Int32)? {
            var fds: [Int32] = [-1, -1]
            guard pipe(&fds) == 0 else { return nil }
            _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
            return (fds[0], fds[1])
        }
    #endif
}
