import Foundation

/// One HTTP request as the backend sends it.
public struct HTTPRequestData: Sendable, Hashable {
    public var method: String
    public var url: URL
    public var headers: [String: String]
    public var body: Data?
    /// The most seconds this exchange may take in all (connecting, waiting, reading
    /// the body): what is left of the command's deadline. Nil: the transport's own limit.
    public var timeout: TimeInterval?
    /// Seconds the server may send nothing before the exchange counts as stalled:
    /// a long poll's wait and more. Nil: the transport's own (the connect timeout).
    public var quietTime: TimeInterval?

    public init(
        method: String, url: URL, headers: [String: String] = [:], body: Data? = nil, timeout: TimeInterval? = nil,
        quietTime: TimeInterval? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.quietTime = quietTime
    }
}

/// One HTTP response: status, headers (names lowercased) and the whole body.
public struct HTTPResponseData: Sendable, Hashable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        self.body = body
    }
}

/// Why a request got no response.
public enum TransportFailure: Error, Sendable, Equatable {
    /// No connection: refused, unknown host, no route.
    case cannotConnect(String)
    /// No progress within the timeout, or the whole request took too long.
    case timedOut
    /// The connection closed before a whole response arrived.
    case connectionLost(String)
    /// A response began but its body ended early.
    case truncated(String)
    /// The body is larger than `HTTPTransport.largestBody`: declared so, or sent so.
    case tooLarge
    /// The server's certificate did not verify (or the TLS handshake failed): nothing was sent.
    case untrusted(String)
}

/// The HTTP exchange the backend runs on: a closure, so tests can swap it
/// (the stateful-mock habit of the Landmarks app), and `.libcurl` for real.
public struct HTTPTransport: Sendable {
    public var send: @Sendable (HTTPRequestData) async throws -> HTTPResponseData

    public init(send: @escaping @Sendable (HTTPRequestData) async throws -> HTTPResponseData) {
        self.send = send
    }

    /// The largest response body the client accepts: 64 MiB, far above any list a
    /// server has reason to send, and low enough that a server (or a proxy) that
    /// sends without end cannot fill the memory.
    public static let largestBody = 64 << 20

    /// "64 MiB", for messages.
    public static var largestBodyDescription: String { "\(largestBody >> 20) MiB" }
}
