import Foundation
import ReservationCore

/// Requests to one server: the token, JSON, retries of what is safe to
/// repeat, and the statuses every route shares (401/403, 429, 5xx) turned into
/// errors. What a route's own refusals mean is its caller's business.
struct ServerClient: Sendable {
    let configuration: HTTPBackendConfiguration
    let transport: HTTPTransport

    func send(
        _ method: String, _ path: String, query: [URLQueryItem] = [], body: JSONValue? = nil,
        idempotencyKey: String? = nil
    ) async throws -> ServerReply {
        var url = configuration.baseURL.appendingPathComponent(path)
        if !query.isEmpty { url.append(queryItems: query) }
        var headers = ["Accept": "application/json"]
        if let token = configuration.token { headers["Authorization"] = "Bearer \(token)" }
        if body != nil { headers["Content-Type"] = "application/json" }
        if let idempotencyKey { headers["Idempotency-Key"] = idempotencyKey }
        let request = HTTPRequestData(method: method, url: url, headers: headers, body: body?.encoded())
        let retryable = method == "GET" || (method == "POST" && idempotencyKey != nil)
        let policy = configuration.retry
        var attempt = 1
        while true {
            let response: HTTPResponseData
            do {
                response = try await transport.send(request)
            } catch let failure as TransportFailure {
                if failure == .tooLarge { throw tooLarge }  // a second try would be as large
                if retryable, attempt < policy.attempts {
                    try await policy.sleep(policy.delay(before: attempt, retryAfter: nil))
                    attempt += 1
                    continue
                }
                if case .truncated(let why) = failure {
                    throw HTTPBackendError.badResponse(configuration.baseURL, "the body was cut short (\(why))")
                }
                throw HTTPBackendError.unavailable(configuration.baseURL, failure.explanation)
            }
            // Whatever the transport: one that read more than this should not have.
            guard response.body.count <= HTTPTransport.largestBody else { throw tooLarge }
            if retryable, attempt < policy.attempts, response.status == 429 || (500..<600).contains(response.status) {
                try await policy.sleep(policy.delay(before: attempt, retryAfter: response.headers["retry-after"]))
                attempt += 1
                continue
            }
            return try reply(response, for: request)
        }
    }

    private func reply(_ response: HTTPResponseData, for request: HTTPRequestData) throws -> ServerReply {
        let json = response.body.isEmpty ? nil : try? JSONValue.parse(response.body)
        let reply = ServerReply(status: response.status, json: json, body: response.body)
        switch response.status {
        case 200..<300:
            if json == nil, !response.body.isEmpty {
                throw HTTPBackendError.badResponse(
                    configuration.baseURL,
                    "\(request.method) \(request.url.path) answered \(response.status) without valid JSON")
            }
            return reply
        case 401, 403:
            throw HTTPBackendError.notAuthorised(configuration.baseURL, response.status, reply.reason)
        case 429:
            throw HTTPBackendError.rateLimited(configuration.baseURL)
        case 500..<600:
            throw HTTPBackendError.serverError(configuration.baseURL, response.status, reply.reason)
        default:
            return reply
        }
    }

    /// An answer larger than the client accepts.
    var tooLarge: HTTPBackendError {
        badShape("the server's answer is larger than \(HTTPTransport.largestBodyDescription), the most resv accepts")
    }

    func refusal(_ reply: ServerReply, _ what: String) -> HTTPBackendError {
        HTTPBackendError.refused(reply.status, reply.reason ?? "\(what) was refused (\(reply.status))")
    }

    func badShape(_ what: String) -> HTTPBackendError {
        HTTPBackendError.badResponse(configuration.baseURL, what)
    }
}

extension TransportFailure {
    var explanation: String {
        switch self {
        case .cannotConnect(let why): why
        case .timedOut: "no answer within the timeout"
        case .connectionLost(let why): "the connection broke: \(why)"
        case .truncated(let why): "the body was cut short: \(why)"
        case .tooLarge: "the answer is larger than \(HTTPTransport.largestBodyDescription)"
        }
    }
}
