import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One HTTP request as the backend sends it.
public struct HTTPRequestData: Sendable, Hashable {
    public var method: String
    public var url: URL
    public var headers: [String: String]
    public var body: Data?

    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
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
}

/// The HTTP exchange the backend runs on: a closure, so tests can swap it
/// (the stateful-mock habit of the Landmarks app), and `.urlSession` for real.
public struct HTTPTransport: Sendable {
    public var send: @Sendable (HTTPRequestData) async throws -> HTTPResponseData

    public init(send: @escaping @Sendable (HTTPRequestData) async throws -> HTTPResponseData) {
        self.send = send
    }

    /// The toolchain's URLSession (no extra packages to build). `idleTimeout`
    /// bounds connecting and every wait for data; `requestTimeout` the whole request.
    public static func urlSession(idleTimeout: TimeInterval, requestTimeout: TimeInterval) -> HTTPTransport {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = idleTimeout
        configuration.timeoutIntervalForResource = requestTimeout
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let session = URLSession(configuration: configuration)
        return HTTPTransport { request in
            var urlRequest = URLRequest(url: request.url)
            urlRequest.httpMethod = request.method
            urlRequest.timeoutInterval = idleTimeout
            for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
            urlRequest.httpBody = request.body
            let data: Data
            let response: URLResponse
            do {
                (data, response) = try await session.data(for: urlRequest)
            } catch let error as URLError {
                throw TransportFailure(error)
            }
            guard let http = response as? HTTPURLResponse else {
                throw TransportFailure.connectionLost("the answer is not HTTP")
            }
            var headers: [String: String] = [:]
            for (name, value) in http.allHeaderFields {
                if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
            }
            if let declared = headers["content-length"].flatMap(Int.init), declared != data.count {
                throw TransportFailure.truncated("the body ended after \(data.count) of \(declared) bytes")
            }
            return HTTPResponseData(status: http.statusCode, headers: headers, body: data)
        }
    }
}

extension TransportFailure {
    init(_ error: URLError) {
        // FoundationNetworking runs on libcurl and reports a body cut short
        // (CURLE_PARTIAL_FILE) with curl's own words and no code of its own.
        if error.localizedDescription.contains("transfer closed with") {
            self = .truncated(error.localizedDescription)
            return
        }
        switch error.code {
        case .timedOut:
            self = .timedOut
        case .networkConnectionLost, .badServerResponse, .zeroByteResource, .cannotParseResponse,
            .cannotDecodeRawData, .cannotDecodeContentData:
            self = .connectionLost(error.localizedDescription)
        default:
            self = .cannotConnect(error.localizedDescription)
        }
    }
}
