import Foundation
import ResvTestKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A raw TCP server on 127.0.0.1 and a free port, for libcurl's transport tests (the kit's
/// `LoopbackListener`): `handle` gets each accepted connection on a thread of its own and
/// writes whatever bytes the test needs, well-formed or not. It counts the connections.
final class LoopbackServer: Sendable {
    private let listener: LoopbackListener

    init(_ handle: @escaping @Sendable (LoopbackConnection) -> Void) throws {
        listener = try LoopbackListener { handle(LoopbackConnection(fd: $0)) }
    }

    var port: Int { listener.port }

    /// "http://127.0.0.1:PORT"
    var url: String { listener.url }

    /// Connections accepted so far.
    var accepted: Int { listener.accepted }

    /// Stops accepting (open connections go on until their handlers return).
    func stop() { listener.stop() }
}

/// One accepted connection: read a request, write bytes.
final class LoopbackConnection: @unchecked Sendable {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(fd: Int32) { self.fd = fd }

    /// The next request's head (request line and headers), its body read past
    /// per Content-Length; nil once the client has closed.
    func request() -> String? {
        let end: Int
        while true {
            if let found = find([13, 10, 13, 10]) {
                end = found
                break
            }
            guard fill() else { return nil }
        }
        let head = String(decoding: buffer[..<end], as: UTF8.self)
        buffer.removeFirst(end + 4)
        let length =
            head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
        while buffer.count < length {
            guard fill() else { return nil }
        }
        buffer.removeFirst(length)
        return head
    }

    /// Writes all of `text`; false once the client is gone.
    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    /// A 200 response with `body` and its length, on a connection kept open.
    @discardableResult
    func respond(_ body: String, status: String = "200 OK", headers: String = "") -> Bool {
        send("HTTP/1.1 \(status)\r\nContent-Length: \(body.utf8.count)\r\n\(headers)\r\n\(body)")
    }

    /// More bytes than a client's receive buffer and this connection's small send buffer
    /// (`keepSendBufferSmall`) hold between them: a blocking send of this many returns only once
    /// the client has read some of them. The kernel's largest receive buffer (autotuned, or set),
    /// and a MiB more; within what the client takes (`HTTPTransport.largestBody`).
    static let pastTheBuffers: Int = {
        func number(_ file: String, field: Int) -> Int {
            let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
            let fields = text.split(whereSeparator: \.isWhitespace)
            return fields.count > field ? Int(fields[field]) ?? 0 : 0
        }
        let receive = max(
            number("/proc/sys/net/ipv4/tcp_rmem", field: 2), 2 * number("/proc/sys/net/core/rmem_max", field: 0),
            8 << 20)
        return receive + (1 << 20)
    }()

    /// Asks for the smallest send buffer, so what this side holds unsent is small.
    func keepSendBufferSmall() {
        var size: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Makes the close at the handler's end a reset (RST), not an orderly end.
    func reset() {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
    }

    /// Waits until the client closes (or `seconds` pass).
    func waitForClose(seconds: Int32 = 30) {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        var byte: UInt8 = 0
        while poll(&descriptor, 1, seconds * 1000) > 0, recv(fd, &byte, 1, 0) > 0 {}
    }

    private func find(_ pattern: [UInt8]) -> Int? {
        guard buffer.count >= pattern.count else { return nil }
        for index in 0...(buffer.count - pattern.count)
        where buffer[index..<index + pattern.count].elementsEqual(pattern) {
            return index
        }
        return nil
    }

    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            buffer.append(contentsOf: chunk[..<count])
            return true
        }
    }
}

/// What a server's handlers saw, shared with the test.
final class Recorder<Value: Sendable>: Sendable {
    private let state: Mutex<Value>

    init(_ value: Value) { state = Mutex(value) }

    var value: Value { state.withLock { $0 } }

    func change(_ body: @Sendable (inout Value) -> Void) { state.withLock { body(&$0) } }
}
