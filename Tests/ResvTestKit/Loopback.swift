import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The sockets of the tests' hand-made servers and clients on 127.0.0.1: a listening socket,
/// a connection to a port, ports nothing listens on. A test server gives `Loopback.serve`
/// what to do with each connection; the bytes are the test's.
public enum Loopback {
    /// A socket bound to 127.0.0.1:`port` (0: one the kernel picks) and its port; listening
    /// when `listening` (a backlog of 64). SO_REUSEADDR when a fixed port is asked for (a
    /// server started again on the port of one just stopped).
    public static func bind(port wanted: Int = 0, listening: Bool = true) throws -> (socket: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(wanted).bigEndian)
        if wanted != 0 {
            var reuse: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound, !listening || listen(fd, 64) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// `count` different ports nothing listens on now: each bound (all at once, so they differ),
    /// read and let go, for a server started on it later or a connection that must be refused.
    public static func freePorts(_ count: Int) throws -> [Int] {
        var sockets: [Int32] = []
        defer { for socket in sockets { close(socket) } }
        return try (0..<count).map { _ in
            let (socket, port) = try bind(listening: false)
            sockets.append(socket)
            return port
        }
    }

    /// A port nothing listens on now.
    public static func freePort() throws -> Int { try freePorts(1)[0] }

    /// A TCP connection to 127.0.0.1:`port`, or nil when refused.
    public static func connect(port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        return fd
    }
}

/// A listening socket on 127.0.0.1 whose connections are each handed, on a thread of their
/// own, to the test's handler, then closed; it counts them. Stopped at `stop()` or when let go
/// (connections open then go on until their handlers return).
public final class LoopbackListener: Sendable {
    public let port: Int
    private let listener: Int32
    private let state = State()

    private final class State: Sendable {
        let accepted = Atomic<Int>(0)
        let stopped = Atomic<Bool>(false)
    }

    /// Listens on `port` (0: any free one) and hands each connection's socket to `handle`.
    public init(port: Int = 0, _ handle: @escaping @Sendable (Int32) -> Void) throws {
        (listener, self.port) = try Loopback.bind(port: port)
        let (fd, state) = (listener, self.state)
        Thread.detachNewThread {
            while !state.stopped.load(ordering: .acquiring) {
                let client = accept(fd, nil, nil)
                guard client >= 0 else {
                    if errno == EINTR { continue }
                    break
                }
                state.accepted.add(1, ordering: .relaxed)
                Thread.detachNewThread {
                    defer { close(client) }
                    handle(client)
                }
            }
        }
    }

    deinit { stop() }

    /// "http://127.0.0.1:PORT"
    public var url: String { "http://127.0.0.1:\(port)" }

    /// Connections accepted so far.
    public var accepted: Int { state.accepted.load(ordering: .relaxed) }

    /// Stops accepting.
    public func stop() {
        guard !state.stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        shutdown(listener, Int32(SHUT_RDWR))  // wakes the accept
        close(listener)
    }
}
