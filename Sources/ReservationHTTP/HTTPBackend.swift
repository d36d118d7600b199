import Foundation
import ReservationCore

/// Failures talking to a server, each with its own exit code in the CLI.
public enum HTTPBackendError: Error, Sendable, LocalizedError {
    /// No answer: refused, unknown host, timed out, connection dropped (after retries).
    case unavailable(URL, String)
    /// A change went, no answer came, and the server says it was not made (nor ever will be).
    case notMade(URL, String)
    /// A change went, no answer came, and the server could not be asked what became of it.
    case outcomeUnknown(URL, String, asked: String, key: String)
    /// 401 or 403: no token, a wrong one, or not allowed.
    case notAuthorised(URL, Int, String?)
    /// An https server whose certificate did not verify (or no TLS handshake): nothing was sent.
    case untrusted(URL, String)
    /// 429 after every retry.
    case rateLimited(URL, retriedFor: String? = nil)
    /// 5xx after every retry.
    case serverError(URL, Int, String?)
    /// 503 `databaseUnavailable` after every retry: the server answers, its database does not.
    case databaseUnavailable(URL, retriedFor: String? = nil)
    /// 503 `serverBusy` after every retry: the database kept breaking the transaction (deadlocks).
    case serverBusy(URL, retriedFor: String? = nil)
    /// A body that is not the JSON expected: truncated, HTML, the wrong shape.
    case badResponse(URL, String)
    /// A create, cancel or confirm answered with a record that does not map.
    case invalidReservation(String)
    /// Another refusal the server explained (400, 404, 409, 413, 422 …) without a code this client knows.
    case refused(Int, String)
    /// The server has no such route: it is older than this client.
    case missingRoute(URL, String)
    /// `--offline` (or an unreachable server) and nothing cached for this server and token.
    case nothingCached(URL)
    /// `--offline` with a command that changes reservations.
    case offlineChange
    /// `--offline` with `availability`, which counts every user's reservations.
    case offlineAvailability

    public var errorDescription: String? {
        switch self {
        case .unavailable(let url, let why):
            return "cannot reach the server at \(url.redacted): \(why)"
        case .notMade(let url, let why):
            return "no answer from the server at \(url.redacted) (\(why)); it says the change was not made, and "
                + "never will be from what was sent: nothing changed, run the command again"
        case .outcomeUnknown(let url, let why, let asked, let key):
            return "no answer from the server at \(url.redacted) (\(why)), nor to asking what became of the change "
                + "(\(asked)): whether it was made is unknown; run the same command again with --idempotency-key "
                + "\(key), which makes it at most once"
        case .notAuthorised(let url, let status, let reason):
            let origin = ServerOrigin(url).map(\.description) ?? url.redacted
            if status == 401, let reason, reason.lowercased().contains("expired") {
                return "the server at \(url.redacted) says the token has expired (401): run 'resv login \(origin)' "
                    + "with a new one from 'resv-server token create'"
            }
            if status == 401 {
                // The server does not say why: no token, an unknown one, a revoked or an expired one.
                return "the server at \(url.redacted) refused the token (401): it is unknown, revoked or expired; "
                    + "run 'resv login \(origin)' with a token from 'resv-server token create'"
            }
            // 403: the token works, but its scope (or its user's role) does not allow this.
            if status == 403, let reason, reason.hasPrefix("this token's scope is ") {
                return "the server at \(url.redacted) refused: \(reason) (403); run 'resv login \(origin)' with a "
                    + "token whose scope allows it ('resv-server token create NAME --scope write')"
            }
            return "the server at \(url.redacted) forbids this (\(status)\(reason.map { ": \($0)" } ?? ""))"
        case .untrusted(let url, let why):
            let host = ServerOrigin(url).map(\.description) ?? url.redacted
            return "cannot trust \(host): \(why); nothing was sent (if it uses a private CA, give its certificate "
                + "with --cacert FILE or 'cacert' in the config file's entry for it)"
        case .rateLimited(let url, let retried):
            return "the server at \(url.redacted) is rate limiting (429)\(retried.map { " to \($0)" } ?? "") "
                + "and did not recover; retry later"
        case .serverError(let url, let status, let reason):
            return "the server at \(url.redacted) failed (\(status)\(reason.map { ": \($0)" } ?? ""))"
        case .databaseUnavailable(let url, let retried):
            // The server answered every try: named as it answered, with how long resv kept asking.
            return "the server at \(url.redacted) answered that its database is unavailable (503)"
                + "\(retried.map { " to \($0)" } ?? ""); retry later"
        case .serverBusy(let url, let retried):
            return "the server at \(url.redacted) is busy (503: its database broke the request under load)"
                + "\(retried.map { " to \($0)" } ?? ""); retry later"
        case .badResponse(let url, let why):
            return "the server at \(url.redacted) sent an invalid response: \(why)"
        case .invalidReservation(let why):
            return "the server returned an invalid reservation: \(why)"
        case .refused(_, let reason):
            return reason
        case .missingRoute(let url, let route):
            return
                "the server at \(url.redacted) has no route \(route): it is older than this resv; upgrade resv-server"
        case .nothingCached(let url):
            return "nothing cached for \(url.redacted) yet: run 'resv list' once while the server is reachable"
        case .offlineChange:
            return "--offline reads the cache only: reserving, cancelling and confirming need the server"
        case .offlineAvailability:
            return "--offline reads the cache only: availability counts every user's reservations and needs the server"
        }
    }
}

extension HTTPBackendError {
    /// The server not reached and no list cached to read instead.
    public var readsNothing: Bool {
        switch self {
        case .unavailable, .nothingCached: true
        default: false
        }
    }
}

extension URL {
    /// The URL as messages show it: without the user name and password it may
    /// carry (`http://ada:secret@host:8080/` → `http://host:8080/`).
    public var redacted: String { Self.redacting(absoluteString) }

    /// `text`, a URL or not, with what may be user-info replaced by `replacement`:
    /// whatever comes between `://` and the last `@` before any `?` or `#`. A `/`
    /// does not end the search, so a password holding one is removed too.
    public static func redacting(_ text: String, with replacement: String = "") -> String {
        guard let scheme = text.range(of: "://") else { return text }
        let end = text[scheme.upperBound...].firstIndex { $0 == "?" || $0 == "#" } ?? text.endIndex
        guard let at = text[scheme.upperBound..<end].lastIndex(of: "@") else { return text }
        return String(text[..<scheme.upperBound]) + replacement + text[text.index(after: at)...]
    }
}

/// Where and how to reach a server.
public struct HTTPBackendConfiguration: Sendable {
    /// Last good answers, for `--offline` and for when the server cannot be reached.
    public var cache: ResponseCache?
    public var cacheMode: CacheMode = .fallback(stale: { _ in })
    /// Called when a change's answer was lost and the server said it was made: the request
    /// ("PATCH /reservations/…") and why no answer came.
    public var lostAnswerNotice: @Sendable (_ request: String, _ why: String) -> Void = { _, _ in }
    /// Called once when `--offline` reads the cache, with the age of what it reads.
    public var offlineNotice: @Sendable (TimeInterval) -> Void = { _ in }
    /// The most seconds one command may spend on the server, retries and slow
    /// bodies included (`RESV_REQUEST_TIMEOUT`); nil: no bound but the transport's.
    public var commandTimeout: TimeInterval?
    /// The server's base URL, e.g. http://127.0.0.1:8080.
    public var baseURL: URL
    /// The bearer token; never printed.
    public var token: String?
    public var retry: RetryPolicy
    /// The `Idempotency-Key` of the creates (request n of a batch adds `-n`);
    /// nil makes a new key for every `reserve` call.
    public var idempotencyKey: String?
    /// The time, handed in by the command's context: a cached answer's age.
    public var now: @Sendable () -> Date
    /// This server's outbox (docs/contracts.md, "Offline"): sent first by any command
    /// that reaches the server; nil where there is none (a test's backend).
    public var outbox: Outbox?
    /// `--queue`: a change the server cannot be reached for goes to the outbox (`Queued`).
    public var queue = false
    /// What the outbox's sending did, when a command sent it first.
    public var outboxReport: @Sendable (OutboxReport) -> Void = { _ in }
    /// The outbox could not be read or written when a command went to send it first.
    public var outboxFailure: @Sendable (any Error) -> Void = { _ in }

    public init(
        baseURL: URL, token: String?, retry: RetryPolicy = RetryPolicy(), idempotencyKey: String? = nil,
        now: @escaping @Sendable () -> Date
    ) {
        self.now = now
        self.baseURL = baseURL
        self.token = token
        self.retry = retry
        self.idempotencyKey = idempotencyKey
    }
}

/// Retries of what is safe to repeat (GET, and POST with an Idempotency-Key):
/// on no answer, a 5xx or a 429; at most `attempts` tries (more for a 503 with
/// Retry-After, within the command's deadline), waiting a random time up to
/// `base · 2^n` (full jitter), or what Retry-After asks.
public struct RetryPolicy: Sendable {
    public var attempts = 3
    /// Tries while the server answers 503 with a Retry-After: it is up and says when to come
    /// back (its database failing over, about 15 s on a Patroni cluster): as many as the
    /// command's deadline (RESV_REQUEST_TIMEOUT) allows, at most this many.
    public var attemptsWhileUnavailable = 30
    public var base: Double = 0.2
    public var cap: Double = 5
    /// The longest Retry-After honoured. A longer one, or one that is not a number
    /// of seconds (an HTTP-date, `-1`, `nan`, `1e309`), is ignored: the usual backoff applies.
    public var longestWait: Double = 60
    public var sleep: @Sendable (Double) async throws -> Void = { try await RetryPolicy.pause($0) }
    public var random: @Sendable (Double) -> Double = { Double.random(in: 0...$0) }

    public init() {}

    /// Sleeps `seconds`; nothing for a wait that is not a positive number, and at most an hour,
    /// so no value can trap converting it to a duration.
    public static func pause(_ seconds: Double) async throws {
        guard seconds > 0 else { return }  // false for nan too
        try await Task.sleep(for: .milliseconds(Int(min(seconds, 3600) * 1000)))
    }

    /// The wait before retry number `retry` (1, 2, …), given the answer's Retry-After header.
    func delay(before retry: Int, retryAfter: String?) -> Double {
        if let seconds = retryAfter.flatMap(Self.seconds(retryAfter:)), seconds <= longestWait { return seconds }
        let top = min(cap, base * pow(2, Double(max(0, retry - 1))))
        return top.isFinite && top > 0 ? random(top) : 0
    }

    /// A Retry-After in seconds: digits, perhaps a fraction (RFC 9110's delay-seconds, leniently).
    /// Nil for anything else: an HTTP-date, a sign, an exponent, `inf`, `nan`.
    static func seconds(retryAfter text: String) -> Double? {
        let text = text.trimmingCharacters(in: .whitespaces)
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let digits = { (part: Substring) in !part.isEmpty && part.allSatisfy { $0 >= "0" && $0 <= "9" } }
        guard parts.allSatisfy(digits), let seconds = Double(text), seconds.isFinite else { return nil }
        return seconds
    }
}

/// The answer's body as the client reads it.
struct ServerReply {
    let status: Int
    let json: JSONValue?
    let body: Data

    /// The `reason` of an error body.
    var reason: String? {
        // A server's words, which quote values of their own: bounded like one, however long.
        if case .string(let reason)? = json?["reason"] { return reason.quoted(limit: 600) }
        return nil
    }

    /// The `code` of an error body, when it is one this client knows.
    var code: ErrorCode? {
        if case .string(let code)? = json?["code"] { return ErrorCode(rawValue: code) }
        return nil
    }
}
