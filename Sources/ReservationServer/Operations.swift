import Foundation
import HTTPTypes
import Hummingbird
import Metrics
import Prometheus
import ReservationCore
import ReservationStorage
import Synchronization

/// What an operator sets on `serve` beyond the address and the database.
public struct ServerOptions: Sendable {
    public var limits = ConnectionLimits()
    /// Requests a second per token; nil for no limit.
    public var rateLimit: RateLimit?
    /// Where `/metrics` reads from; nil serves no `/metrics`.
    public var metrics: ServerMetrics?
    /// How long a found token is trusted before the database is asked again.
    public var tokenLifetime: Duration = TokenCache.defaultLifetime
    /// The most live holds one user may have at once.
    public var maxHoldsPerUser = 20
    /// How often ended holds are recorded and their places given to waitlists.
    public var holdSweepInterval: Duration = .seconds(1)
    /// Whether the bookings of one landmark-day are decided in groups, one
    /// transaction a group (`DayGroups`), where the engine can (PostgreSQL).
    public var groupCommit = true
    /// How large a group grows, how many wait for a day, and how long each waits before 503.
    public var dayGroups = DayGroups.Limits()
    /// What waits for a day's group measure time on (a test holds one and moves it).
    public var waitClock = WaitClock.continuous
    /// HTTPS (`--tls-cert`, `--tls-key`), reloaded on SIGHUP; nil serves plain HTTP.
    public var tls: TLSOptions?

    public init() {}
}

/// The Prometheus registry behind `/metrics`, fed through swift-metrics by
/// Hummingbird's `MetricsMiddleware` (requests, latency) and by the routes
/// (bookings). swift-metrics has one backend per process: `bootstrap()` once.
public struct ServerMetrics: Sendable {
    let registry: PrometheusCollectorRegistry

    /// Bookings made, and refused because the landmark's day was full.
    static let bookingsMade = Counter(label: "resv_bookings_total", dimensions: [("outcome", "made")])
    static let bookingsRefused = Counter(label: "resv_bookings_total", dimensions: [("outcome", "no_capacity")])

    /// Makes a registry the process's metrics backend, with Prometheus names
    /// for Hummingbird's OpenTelemetry-style labels.
    public static func bootstrap() -> ServerMetrics {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.nameAndLabelSanitizer = { name, labels in
            let names = [
                "hb.requests": "resv_http_requests_total",
                "hb.request.errors": "resv_http_request_errors_total",
                "http.server.request.duration": "resv_http_request_duration_seconds",
                "http.server.active_requests": "resv_http_active_requests",
            ]
            let keys = [
                "http.route": "route", "http.request.method": "method", "http.response.status_code": "status",
                "error.type": "status",
            ]
            func clean(_ text: String) -> String {
                String(text.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" })
            }
            return (names[name] ?? clean(name), labels.map { (keys[$0.0] ?? clean($0.0), $0.1) })
        }
        MetricsSystem.bootstrap(factory)
        return ServerMetrics(registry: registry)
    }

    /// The registry in Prometheus's text format.
    var text: [UInt8] {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }
}

/// `serve --rate-limit N`: each token may make N requests a second on
/// average, and N at once after a quiet second (a token bucket).
public struct RateLimit: Sendable {
    public var perSecond: Double

    public init?(perSecond: Double) {
        guard perSecond.isFinite, perSecond > 0 else { return nil }
        self.perSecond = perSecond
    }
}

/// The routes an operator uses: `/health` and `/metrics` (no token), and `/whoami`.
struct OperationsRoutes: Sendable {
    let store: ServerStore
    let metrics: ServerMetrics?

    /// `/health`, and `/metrics` unless `serve --no-metrics`: no token.
    var endpoints: RouteCollection<ServerContext> {
        let routes = RouteCollection(context: ServerContext.self).get("/health", use: health)
        if let metrics {
            routes.get("/metrics") { _, _ in
                var headers = HTTPFields()
                headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
                return Response(
                    status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: metrics.text)))
            }
        }
        return routes
    }

    /// `/whoami`, behind a token.
    var authenticatedEndpoints: RouteCollection<AuthenticatedContext> {
        RouteCollection(context: AuthenticatedContext.self).get("/whoami", use: whoami)
    }

    /// 200 when the database answers a trivial query within two seconds, else 503.
    @Sendable func health(_ request: Request, context: ServerContext) async throws -> Response {
        let ping = store.tokens.ping
        let reachable = await withTaskGroup(of: Bool.self) { group in
            group.addTask { (try? await ping()) != nil }
            group.addTask {
                try? await Task.sleep(for: .seconds(2))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        return reachable
            ? .json(status: .ok, body: Array(#"{"status":"ok","database":"reachable"}"#.utf8))
            : .json(
                status: .serviceUnavailable, body: Array(#"{"status":"unavailable","database":"unreachable"}"#.utf8))
    }

    @Sendable func whoami(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        guard let name = try await store.tokens.name(context.user) else { throw APIError.unauthorized }
        return .json(
            status: .ok,
            body: Array(JSONValue.object(["user": .string(name), "scope": .string(context.scope.rawValue)]).encoded()))
    }
}

/// Answers 429 with `Retry-After` once a token, or a calendar's address, has used up its requests.
struct RateLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    let limiter: RateLimiter
    /// The bucket a request takes from; a hash, so the limiter keeps no secret.
    let key: @Sendable (Request) -> String
    /// Whose requests, in the 429's reason ("with this token").
    let whose: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        if let wait = limiter.take(key(request), now: .now) {
            var headers = HTTPFields()
            headers[.retryAfter] = String(wait)
            return .json(
                status: .tooManyRequests,
                body: Array(
                    JSONValue.object([
                        "error": .bool(true), "code": .string("rateLimited"),
                        "reason": .string(
                            "more than \(RateLimiter.format(limiter.limit.perSecond)) requests a second \(whose); retry in \(wait) s"
                        ),
                    ]).encoded()),
                headers: headers)
        }
        return try await next(request, context)
    }
}

extension RateLimitMiddleware where Context == AuthenticatedContext {
    /// Keyed by the token's hash (the context says it is valid): a limit per token, not per user.
    static func perToken(_ limiter: RateLimiter) -> Self {
        Self(limiter: limiter, key: { Token.hash($0.headers[.authorization] ?? "") }, whose: "with this token")
    }
}

extension RateLimitMiddleware where Context == ServerContext {
    /// Keyed by the path's hash: a limit per calendar address (its secret), which has no token.
    static func perCalendar(_ limiter: RateLimiter) -> Self {
        Self(limiter: limiter, key: { "calendar:" + Token.hash($0.uri.path) }, whose: "for this calendar")
    }
}

/// A token bucket per key, holding up to `perSecond` requests (at least one).
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    let limit: RateLimit
    private let buckets = Mutex<[String: Bucket]>([:])

    init(_ limit: RateLimit) { self.limit = limit }

    /// Takes one request from the key's bucket; nil when allowed, else whole seconds to wait.
    func take(_ key: String, now: ContinuousClock.Instant) -> Int? {
        let rate = limit.perSecond
        let burst = max(rate, 1)
        return buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: burst, updated: now)
            let elapsed = Double((now - bucket.updated) / .milliseconds(1)) / 1000
            bucket.tokens = min(burst, bucket.tokens + max(0, elapsed) * rate)
            bucket.updated = now
            defer {
                // Bounded: forgetting every bucket only lets each token start afresh.
                if buckets.count >= 10_000 && buckets[key] == nil { buckets.removeAll(keepingCapacity: true) }
                buckets[key] = bucket
            }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return nil
            }
            return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
        }
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
