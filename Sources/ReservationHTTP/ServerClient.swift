import Foundation
import ReservationCore
import Synchronization

/// Requests to one server: the token, JSON, retries of what is safe to
/// repeat, and the statuses every route shares (401/403, 429, 5xx) turned into
/// errors. What a route's own refusals mean is its caller's business.
struct ServerClient: Sendable {
    let configuration: HTTPBackendConfiguration
    let transport: HTTPTransport

    func send(
        _ method: String, _ path: String, query: [URLQueryItem] = [], body: JSONValue? = nil,
        idempotencyKey: String? = nil, ifMatch: Int? = nil, quietTime: TimeInterval? = nil
    ) async throws -> ServerReply {
        let request = try request(
            method, path, query: query, body: body, idempotencyKey: idempotencyKey, ifMatch: ifMatch,
            quietTime: quietTime)
        // One deadline for the whole command: every try, every wait between tries and every body.
        var tries = Tries(
            request: request, key: idempotencyKey,
            deadline: configuration.commandTimeout.map { CommandDeadline.deadline(after: $0) })
        while true {
            if case .done(let reply) = try await oneTry(&tries) { return reply }
        }
    }

    /// The request: JSON both ways, the token and the key checked as header values first.
    private func request(
        _ method: String, _ path: String, query: [URLQueryItem], body: JSONValue?, idempotencyKey: String?,
        ifMatch: Int?, quietTime: TimeInterval?
    ) throws -> HTTPRequestData {
        var url = configuration.baseURL.appendingPathComponent(path)
        if !query.isEmpty { url.append(queryItems: query) }
        var headers = ["Accept": "application/json"]
        if let token = configuration.token {
            guard HeaderValue.isValid(token, longest: HeaderValue.longestToken) else { throw HeaderValue.badToken }
            headers["Authorization"] = "Bearer \(token)"
        }
        if body != nil { headers["Content-Type"] = "application/json" }
        if let ifMatch { headers["If-Match"] = "\"\(ifMatch)\"" }
        if let idempotencyKey {
            guard HeaderValue.isValid(idempotencyKey, longest: HeaderValue.longestKey) else {
                throw HeaderValue.badKey
            }
            headers["Idempotency-Key"] = idempotencyKey
        }
        return HTTPRequestData(
            method: method, url: url, headers: headers, body: body?.encoded(), quietTime: quietTime)
    }

    /// What a try leads to: another (after a wait), or the command's answer.
    private enum Step {
        case again
        case done(ServerReply)
    }

    /// One try within the time left: its answer or its failure judged.
    private func oneTry(_ tries: inout Tries) async throws -> Step {
        if let left = tries.left() {
            guard left > 0 else { return .done(try await timeUp(tries)) }
            tries.request.timeout = left
        }
        let response: HTTPResponseData
        do {
            response = try await transport.send(tries.request)
            ArrivalTrace.current?.note()
        } catch let failure as TransportFailure {
            return try await failed(failure, &tries)
        }
        return try await answered(response, &tries)
    }

    /// A try with no whole answer: tried again while the policy and the time allow; else named,
    /// or, for a keyed change that may have arrived, settled (`lost`).
    private func failed(_ failure: TransportFailure, _ tries: inout Tries) async throws -> Step {
        tries.answered = nil
        if failure == .tooLarge { throw tooLarge }  // a second try would be as large
        // A certificate that did not verify will not verify on a second try; nothing was sent.
        if case .untrusted(let why) = failure {
            throw HTTPBackendError.untrusted(configuration.baseURL, why)
        }
        if case .cannotConnect = failure {
        } else {
            tries.mayHaveArrived = true
            ArrivalTrace.current?.note()
        }
        if tries.retryable, tries.attempt < configuration.retry.attempts {
            let delay = configuration.retry.delay(before: tries.attempt, retryAfter: nil)
            if (tries.left(after: delay) ?? 1) > 0 { return try await again(after: delay, &tries) }
        }
        if failure == .timedOut, let left = tries.left(), left <= 0.05 { return .done(try await lost(timedOut, tries)) }
        if case .truncated(let why) = failure {
            throw HTTPBackendError.badResponse(configuration.baseURL, "the body was cut short (\(why))")
        }
        return .done(try await lost(HTTPBackendError.unavailable(configuration.baseURL, failure.explanation), tries))
    }

    /// An answer: tried again after a 429 or a 5xx while the policy and the time allow, else the reply.
    private func answered(_ response: HTTPResponseData, _ tries: inout Tries) async throws -> Step {
        // Whatever the transport: one that read more than this should not have.
        guard response.body.count <= HTTPTransport.largestBody else { throw tooLarge }
        let policy = configuration.retry
        // A 503 with Retry-After: the server is up and says when its database is back.
        let backSoon = response.status == 503 && response.headers["retry-after"] != nil
        let most = backSoon ? max(policy.attempts, policy.attemptsWhileUnavailable) : policy.attempts
        if tries.retryable, tries.attempt < most, response.status == 429 || (500..<600).contains(response.status) {
            let delay = policy.delay(before: tries.attempt, retryAfter: response.headers["retry-after"])
            if (tries.left(after: delay) ?? 1) > 0 {
                tries.answered = response
                return try await again(after: delay, &tries)
            }
        }
        return .done(try reply(response, for: tries.request, retriedFor: tries.attempt > 1 ? tries.retried() : nil))
    }

    /// The wait the retry policy gives before the next try.
    private func again(after delay: Double, _ tries: inout Tries) async throws -> Step {
        try await configuration.retry.sleep(delay)
        tries.attempt += 1
        return .again
    }

    /// The command's time ran out before another try: the answer a retry followed, when the
    /// last try had one (what the server said rather than "no answer"), else `lost`.
    private func timeUp(_ tries: Tries) async throws -> ServerReply {
        if let answered = tries.answered { return try reply(answered, for: tries.request, retriedFor: tries.retried()) }
        return try await lost(timedOut, tries)
    }

    /// Every try of a keyed change went and no whole answer came back: the server is asked
    /// what became of it (`settle`) rather than left unknown. Queued, or the outbox's own
    /// sending: the outbox keeps it and sends it again under its key, which the message says.
    private func lost(_ error: HTTPBackendError, _ tries: Tries) async throws -> ServerReply {
        guard tries.mayHaveArrived, let key = tries.key, tries.request.method != "GET",
            case .unavailable(let url, let why) = error
        else { throw error }
        guard !configuration.queue, !HTTPCalls.sendingOutbox else {
            throw HTTPBackendError.unavailable(
                url,
                "\(why); the change may have been made: sent again under its key \(key), it is made at most once")
        }
        return try await settle(key, of: tries.request, url: url, why: why)
    }

    /// The most seconds asking what became of a lost change may take, tries and waits between
    /// them, past the command's own bound.
    static let settleTime: TimeInterval = 10

    /// `POST /settle` for a change sent under `key` whose answer never came (docs/contracts.md,
    /// "Exactly once"): made, its first answer (said on stderr, `lostAnswerNotice`); not made,
    /// `notMade` (the server also makes sure a copy arriving later never is); the server not
    /// answering that either, `outcomeUnknown` with the key to send it again under.
    private func settle(_ key: String, of change: HTTPRequestData, url: URL, why: String) async throws -> ServerReply {
        var headers = ["Accept": "application/json", "Content-Type": "application/json"]
        if let authorization = change.headers["Authorization"] { headers["Authorization"] = authorization }
        var request = HTTPRequestData(
            method: "POST", url: configuration.baseURL.appendingPathComponent("settle"), headers: headers,
            body: JSONValue.object(["key": .string(key)]).encoded())
        let policy = configuration.retry
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(Self.settleTime)
        var failure = "no answer"
        for attempt in 1...max(1, policy.attempts) {
            if attempt > 1 {
                let delay = policy.delay(before: attempt - 1, retryAfter: nil)
                guard clock.now + .milliseconds(Int(delay * 1000)) < deadline else { break }
                try await policy.sleep(delay)
            }
            request.timeout = Double((deadline - clock.now) / .milliseconds(1)) / 1000
            guard (request.timeout ?? 0) > 0 else { break }
            let response: HTTPResponseData
            do {
                response = try await transport.send(request)
            } catch let error as TransportFailure {
                failure = error.explanation
                continue
            }
            guard response.status == 200, let json = try? JSONValue.parse(response.body),
                case .bool(let made)? = json["made"]
            else {
                failure =
                    response.status == 404
                    ? "it has no route POST /settle (it is older than this resv)" : "it answered \(response.status)"
                if response.status == 429 || (500..<600).contains(response.status) { continue }
                break
            }
            guard made else { throw HTTPBackendError.notMade(url, why) }
            guard case .integer(let status)? = json["status"], (200..<300).contains(status), let answer = json["answer"]
            else {
                throw badShape("POST /settle said the change was made without its answer")
            }
            configuration.lostAnswerNotice("\(change.method) \(change.url.path)", why)
            return try reply(HTTPResponseData(status: Int(status), body: answer.encoded()), for: change)
        }
        throw HTTPBackendError.outcomeUnknown(url, why, asked: failure, key: key)
    }

    /// The command's time on the server is up.
    private var timedOut: HTTPBackendError {
        let seconds = configuration.commandTimeout.map { $0 == $0.rounded() ? "\(Int(min($0, 1e9)))" : "\($0)" } ?? ""
        return HTTPBackendError.unavailable(
            configuration.baseURL, "no answer within \(seconds) s (RESV_REQUEST_TIMEOUT bounds each command)")
    }

    /// `retriedFor`: how long tries went on before this answer, said with a failure that retries followed.
    private func reply(_ response: HTTPResponseData, for request: HTTPRequestData, retriedFor: String? = nil)
        throws -> ServerReply
    {
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
            throw HTTPBackendError.rateLimited(configuration.baseURL, retriedFor: retriedFor)
        case 500..<600:
            // A server that answers is never "unreachable": its own failures are named as such.
            if reply.code == .databaseUnavailable {
                throw HTTPBackendError.databaseUnavailable(configuration.baseURL, retriedFor: retriedFor)
            }
            if reply.code == .serverBusy {
                throw HTTPBackendError.serverBusy(configuration.baseURL, retriedFor: retriedFor)
            }
            throw HTTPBackendError.serverError(configuration.baseURL, response.status, reply.reason)
        default:
            return reply
        }
    }

    /// An answer larger than the client accepts.
    var tooLarge: HTTPBackendError {
        badShape("the server's answer is larger than \(HTTPTransport.largestBodyDescription), the most resv accepts")
    }

    /// A route's refusal, by its code: the reservation layer's own error when the
    /// server named one this client knows, so both backends give the same exit
    /// code; a route the server lacks (an older server); else by status.
    func refusal(_ reply: ServerReply, _ what: String) -> any Error {
        let reason = reply.reason ?? "\(what) was refused (\(reply.status))"
        if let code = reply.code { return ReservationError.refusedByServer(code, reason) }
        if reply.status == 404 || reply.status == 405, reply.json?["code"] == nil,
            reply.reason?.hasPrefix("no route") ?? (reply.json == nil)
        {
            return HTTPBackendError.missingRoute(configuration.baseURL, what)
        }
        return HTTPBackendError.refused(reply.status, reason)
    }

    func badShape(_ what: String) -> HTTPBackendError {
        HTTPBackendError.badResponse(configuration.baseURL, what)
    }
}

/// One `ServerClient.send`'s tries: the request, how many went, the command's one deadline
/// and what the tries told.
private struct Tries {
    var request: HTTPRequestData
    /// The change's `Idempotency-Key`, if it has one.
    let key: String?
    let deadline: ContinuousClock.Instant?
    let clock = ContinuousClock()
    let began = ContinuousClock.now
    var attempt = 1
    /// The answer the last try had, when it is one a retry followed (429, 5xx): what the server
    /// said, named when the command's time runs out, rather than "no answer".
    var answered: HTTPResponseData?
    /// Whether a try may have reached the server (sent, then no whole answer).
    var mayHaveArrived = false

    /// A change under a key is answered once by the server however often it is sent.
    var retryable: Bool { request.method == "GET" || key != nil }

    /// Seconds left before the deadline (nil: none), after `extra` more.
    func left(after extra: Double = 0) -> Double? {
        deadline.map { Double(($0 - clock.now) / .milliseconds(1)) / 1000 - extra }
    }

    /// "5 tries over 20 s": how often and how long the server was asked.
    func retried() -> String {
        let seconds = Int(((clock.now - began) / .milliseconds(1) / 1000).rounded())
        return "\(attempt) tries " + (seconds == 0 ? "within a second" : "over \(seconds) s")
    }
}

/// When the command that runs began: the start of its one deadline on the
/// server (`HTTPBackendConfiguration.commandTimeout`). Set by the command line
/// for each command (a REPL line too); without it a request starts its own.
public enum CommandDeadline {
    @TaskLocal public static var start: ContinuousClock.Instant?

    static func deadline(after seconds: TimeInterval) -> ContinuousClock.Instant {
        // At most a day: a larger bound is no bound, and would not fit a duration.
        let bounded = seconds.isFinite ? min(max(seconds, 0), 86_400) : 86_400
        return (start ?? .now) + .milliseconds(Int((bounded * 1000).rounded()))
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
        case .untrusted(let why): "its certificate did not verify: \(why)"
        }
    }
}

/// Text from the user that becomes a request header: the token, the
/// `Idempotency-Key`. Only printable ASCII without spaces goes, so no value
/// can end a header and start another (`k\r\nX-Injected: yes`) or reach the
/// server other than as typed.
public enum HeaderValue {
    /// The longest `Idempotency-Key`, as resv-server takes it.
    public static let longestKey = 255
    /// The longest token.
    public static let longestToken = 4096

    /// Whether `text` is 1 to `longest` printable ASCII characters (0x21–0x7E).
    public static func isValid(_ text: String, longest: Int) -> Bool {
        (1...longest).contains(text.utf8.count) && text.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }

    /// What an `Idempotency-Key` must be, for messages.
    public static let keyRule = "1 to \(longestKey) printable ASCII characters, without spaces or line breaks"
    /// What a token must be, for messages.
    public static let tokenRule = "printable ASCII characters, without spaces or line breaks"

    /// Refused before anything is sent, as the server would refuse it (400).
    static let badKey = HTTPBackendError.refused(
        400, "the Idempotency-Key must be \(keyRule)")
    static let badToken = HTTPBackendError.refused(
        400,
        "the token must be \(tokenRule): set RESV_TOKEN (or 'resv config set token') to what "
            + "'resv-server token create' printed")
}

/// Whether a request sent in a scope may have reached the server (it was
/// answered, or sent and then not answered whole): what the outbox must know
/// before it treats a queued booking as never sent.
final class ArrivalTrace: Sendable {
    private let arrived = Mutex(false)
    @TaskLocal static var current: ArrivalTrace?

    func note() { arrived.withLock { $0 = true } }
    var mayHaveArrived: Bool { arrived.withLock { $0 } }

    /// Runs `body` traced: its result, and whether anything it sent may have arrived.
    static func tracing<T>(_ body: () async throws -> T) async -> (Result<T, any Error>, arrived: Bool) {
        let trace = ArrivalTrace()
        let result = await $current.withValue(trace) { () async -> Result<T, any Error> in
            do { return .success(try await body()) } catch { return .failure(error) }
        }
        return (result, trace.mayHaveArrived)
    }
}
