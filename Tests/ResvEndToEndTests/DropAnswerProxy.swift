import Foundation
import ResvTestKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP proxy on 127.0.0.1 in front of a real server that forwards each request and, for
/// the requests `drops` picks, reads the server's whole answer and then closes the client's
/// connection without it: the server has acted and the client never hears so, as behind a
/// flaky Wi-Fi or a load balancer's idle cut. Plain threads and blocking sockets; keep-alive
/// both ways (one upstream connection per client connection).
final class DropAnswerProxy: Sendable {
    private let listener: LoopbackListener
    private let shared: Shared

    private final class Shared: Sendable {
        let state = Mutex<(seen: [String], dropped: [String], swallowed: [String])>(([], [], []))
    }

    /// `drops` gets each request line ("POST /undo HTTP/1.1") and how many requests with that
    /// line came before it; true drops its answer.
    /// `swallows` picks requests that are never forwarded: the client's connection is closed
    /// once the request is read, as a link that dies on the way there.
    /// `port` 0 takes any free one.
    init(
        upstream: Int, port wanted: Int = 0, swallows: @escaping @Sendable (_ line: String) -> Bool = { _ in false },
        drops: @escaping @Sendable (_ line: String, _ earlier: Int) -> Bool
    ) throws {
        let shared = Shared()
        self.shared = shared
        listener = try LoopbackListener(port: wanted) { client in
            guard let server = Loopback.connect(port: upstream) else { return }
            defer { close(server) }
            let fromClient = Stream(fd: client)
            let fromServer = Stream(fd: server)
            while let request = fromClient.message() {
                let line = String(decoding: request.prefix { $0 != 13 }, as: UTF8.self)
                let earlier = shared.state.withLock { state in
                    defer { state.seen.append(line) }
                    return state.seen.filter { $0 == line }.count
                }
                if swallows(line) {
                    shared.state.withLock { $0.swallowed.append(line) }
                    return
                }
                guard Stream.write(server, request), let answer = fromServer.message() else { return }
                if drops(line, earlier) {
                    shared.state.withLock { $0.dropped.append(line) }
                    return  // the answer read and thrown away; the client's connection closed
                }
                guard Stream.write(client, answer) else { return }
            }
        }
    }

    var port: Int { listener.port }

    /// "http://127.0.0.1:PORT"
    var url: String { listener.url }
    /// Every request line read from a client, in order (the swallowed too).
    var seen: [String] { shared.state.withLock { $0.seen } }
    /// The request lines never forwarded.
    var swallowed: [String] { shared.state.withLock { $0.swallowed } }
    /// The request lines whose answers were dropped.
    var dropped: [String] { shared.state.withLock { $0.dropped } }

    func stop() { listener.stop() }

    /// HTTP/1.1 messages read whole off a socket: a head, then a Content-Length body.
    private final class Stream {
        let fd: Int32
        var buffer: [UInt8] = []

        init(fd: Int32) { self.fd = fd }

        /// The next message's bytes, head and body; nil when the peer has closed.
        func message() -> [UInt8]? {
            var end: Int?
            while end == nil {
                end = find([13, 10, 13, 10])
                if end == nil, !fill() { return nil }
            }
            let headEnd = end! + 4
            let head = String(decoding: buffer[..<headEnd], as: UTF8.self).lowercased()
            let length =
                head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            while buffer.count < headEnd + length {
                guard fill() else { return nil }
            }
            let message = Array(buffer[..<(headEnd + length)])
            buffer.removeFirst(headEnd + length)
            return message
        }

        static func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
            var sent = 0
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBytes {
                    Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                sent += count
            }
            return true
        }

        private func fill() -> Bool {
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                buffer.append(contentsOf: chunk[..<count])
                return true
            }
        }

        private func find(_ pattern: [UInt8]) -> Int? {
            guard buffer.count >= pattern.count else { return nil }
            for start in 0...(buffer.count - pattern.count)
            where buffer[start..<(start + pattern.count)].elementsEqual(pattern) {
                return start
            }
            return nil
        }
    }
}
