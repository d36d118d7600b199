import Foundation
import Hummingbird
import Logging
import NIOCore
import ReservationCore
import ReservationStorage
import ServiceLifecycle

/// The router of every route, over one store. Tests drive it with
/// `app.test(.router)`; `buildApplication` serves it.
public func buildRouter(
    store: ServerStore, catalog: LandmarkCatalog = .builtIn, now: @escaping @Sendable () -> Date,
    options: ServerOptions = ServerOptions()
) -> Router<ServerContext> {
    buildRouter(
        store: store, catalogs: CatalogCache(catalog), now: now, options: options,
        lists: store.exclusive ? ListCache() : nil)
}

/// `catalogs` begins with the catalog the instance was started with, which it serves
/// until the database holds one (`CatalogCache`).
func buildRouter(
    store: ServerStore, catalogs: CatalogCache, now: @escaping @Sendable () -> Date, options: ServerOptions,
    lists: ListCache?
) -> Router<ServerContext> {
    let router = Router(context: ServerContext.self)
    // Outermost first: the access line sees the status an error was answered with.
    router.add(middleware: AccessLogMiddleware())
    router.add(middleware: ErrorMiddleware())
    if options.metrics != nil { router.add(middleware: MetricsMiddleware()) }
    let operations = OperationsRoutes(store: store, metrics: options.metrics)
    router.addRoutes(operations.endpoints)
    let tokens = TokenCache(store: store, lifetime: options.tokenLifetime, now: now)
    let authenticated = router.group()
        .add(middleware: DatabaseGate(reachability: store.reachability))
        .add(middleware: AuthMiddleware(tokens: tokens))
        .group(context: AuthenticatedContext.self)
        .add(middleware: ScopeMiddleware())
        .add(middleware: CatalogRefresh<AuthenticatedContext>(catalogs: catalogs, store: store))
    // The change feed's long polls: behind a token, not the rate limit (see `ChangeRoutes`).
    router.group()
        .add(middleware: DatabaseGate(reachability: store.reachability))
        .add(middleware: AuthMiddleware(tokens: tokens))
        .group(context: AuthenticatedContext.self)
        .add(middleware: ScopeMiddleware())
        .add(middleware: AnswerPollsAtShutdown())
        .addRoutes(ChangeRoutes(store: store).endpoints)
    // One limiter: the tokens' buckets and the calendar addresses' side by side, bounded together.
    let limiter = options.rateLimit.map(RateLimiter.init)
    if let limiter { authenticated.add(middleware: RateLimitMiddleware.perToken(limiter)) }
    authenticated.addRoutes(operations.authenticatedEndpoints)
    // Calendar feeds: no token (the secret in the path is the key), the rate limit per address.
    let calendars = CalendarRoutes(store: store, catalogs: catalogs, now: now)
    authenticated.addRoutes(calendars.authenticatedEndpoints)
    let feeds = router.group().add(middleware: DatabaseGate(reachability: store.reachability))
    if let limiter { feeds.add(middleware: RateLimitMiddleware.perCalendar(limiter)) }
    feeds.add(middleware: CatalogRefresh<ServerContext>(catalogs: catalogs, store: store))
    feeds.addRoutes(calendars.endpoints)
    let groups = store.dayGrouping.flatMap { engine in
        options.groupCommit
            ? DayGroups(limits: options.dayGroups, clock: options.waitClock) {
                try await engine.transactDay($0, catalogs.current, $1, $2)
            }
            : nil
    }
    authenticated.addRoutes(
        ReservationRoutes(
            store: store, catalogs: catalogs, now: now, lists: lists, maxHolds: options.maxHoldsPerUser, groups: groups
        ).endpoints)
    return router
}

/// The server: the router on `host:port` with `options.limits`, and the hourly
/// purge of idempotency keys older than `keyLifetime`. `onListening` receives
/// the bound port (useful with port 0).
public func buildApplication(
    store: ServerStore, host: String, port: Int, logger: Logger, catalog: LandmarkCatalog = .builtIn,
    now: @escaping @Sendable () -> Date, options: ServerOptions = ServerOptions(),
    keyLifetime: Duration = .seconds(24 * 3600),
    onListening: @escaping @Sendable (Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    let lists = store.exclusive ? ListCache() : nil
    let catalogs = CatalogCache(catalog)
    return Application(
        router: buildRouter(store: store, catalogs: catalogs, now: now, options: options, lists: lists),
        server: options.limits.server(tls: options.tls?.identity),
        // A burst of connections waits in the kernel's queue, not in dropped SYNs retried a
        // second or more later (Hummingbird's 256 dropped some of 1,000 at once; Linux caps
        // the queue at net.core.somaxconn, 4096 by default).
        configuration: .init(address: .hostname(host, port: port), serverName: "resv-server", backlog: 4096),
        services: [
            KeyPurge(store: store, lifetime: keyLifetime, logger: logger, now: now),
            HoldSweep(
                store: store, catalogs: catalogs, interval: options.holdSweepInterval, logger: logger, now: now,
                lists: lists),
        ]
            + (store.listener.map { engine in
                [ChangeListener(listen: { try await engine.listen() }, signal: store.signal, logger: logger)]
            } ?? [])
            + (store.reachability.probe.map {
                [DatabaseProbe(probe: $0, reachability: store.reachability, logger: logger)]
            } ?? [])
            + (options.tls.flatMap { tls in
                tls.reloads.map { [TLSReload(identity: tls.identity, signals: $0, report: tls.report)] }
            } ?? []),
        onServerRunning: { channel in await onListening(channel.localAddress?.port ?? port) },
        logger: logger
    )
}

/// The line a server that cannot listen says: the address and port, and why in
/// words (`cannot listen on 127.0.0.1:8080: the address is in use`), rather
/// than the socket call's own text; nil for any other failure.
public func listenFailure(_ error: any Error, host: String, port: Int) -> String? {
    guard let error = error as? IOError, error.description.hasPrefix("bind") || error.errnoCode == EADDRINUSE
    else { return nil }
    let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    let why =
        switch error.errnoCode {
        case EADDRINUSE: "the address is in use (another resv-server, or another program, listens there)"
        case EACCES: "permission denied (ports below 1024 need privileges)"
        case EADDRNOTAVAIL: "no interface of this machine has that address"
        default: String(cString: strerror(error.errnoCode)).lowercased()
        }
    return "cannot listen on \(address): \(why)"
}

/// Lets a server told to stop (SIGTERM) stop at once while long polls wait: each
/// poll's wait is cancelled when the graceful shutdown begins (or at once, for a
/// poll that arrives after), and a cancelled poll answers what it has, 200 with
/// its changes or none and the cursor it was asked with. The server has stopped
/// accepting by then; each connection closes after its answer.
struct AnswerPollsAtShutdown<Context: RequestContext & Sendable>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        try await withoutActuallyEscaping(next) { next in
            let poll = Poll(next: next)
            return try await cancelWhenGracefulShutdown { try await poll.next(request, context) }
        }
    }

    /// `next`, called once, inside `handle`: it escapes into the child task of
    /// `cancelWhenGracefulShutdown`, which ends before `handle` returns.
    private struct Poll: @unchecked Sendable {
        let next: (Request, Context) async throws -> Response
    }
}

/// Deletes idempotency keys past their lifetime, at start and then every hour.
struct KeyPurge: Service {
    let store: ServerStore
    let lifetime: Duration
    let logger: Logger
    let now: @Sendable () -> Date

    func run() async throws {
        while true {
            do {
                let cutoff = now().addingTimeInterval(-Double(lifetime.components.seconds))
                // A database that does not answer must not hold the server's stop (the store's calls end when cancelled).
                let purged = try await cancelWhenGracefulShutdown { try await store.purgeKeys(cutoff) }
                if purged > 0 { logger.info("purged expired idempotency keys", metadata: ["count": "\(purged)"]) }
            } catch {
                if Task.isShuttingDownGracefully || Task.isCancelled { return }
                logger.warning("could not purge idempotency keys", metadata: ["error": "\(error)"])
            }
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(3600)) }
            } catch {
                return
            }
        }
    }
}

/// Hears other instances' commits (PostgreSQL's notifications) and wakes this
/// one's long polls; listens again a second after a lost connection, waking
/// every poll then (what was committed meanwhile was not heard).
struct ChangeListener: Service {
    let listen: @Sendable () async throws -> Void
    let signal: ChangeSignal
    let logger: Logger

    func run() async throws {
        while !Task.isCancelled {
            do {
                try await cancelWhenGracefulShutdown { try await listen() }
                if Task.isCancelled || Task.isShuttingDownGracefully { return }
                logger.warning("the change notifications ended; listening again")
            } catch {
                if Task.isCancelled || Task.isShuttingDownGracefully { return }
                logger.warning("lost the change notifications; listening again", metadata: ["error": "\(error)"])
            }
            signal.ring(nil)
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(1)) }
            } catch {
                return
            }
        }
    }
}

/// Ends the holds whose time has passed and gives their places to waitlists,
/// without waiting for a request: every `interval`, in transactions of the
/// system's. Several servers on one PostgreSQL database sweep side by side;
/// each ended hold is recorded once (a row another sweep holds is passed over,
/// and one already expired is no longer due).
struct HoldSweep: Service {
    let store: ServerStore
    let catalogs: CatalogCache
    let interval: Duration
    let logger: Logger
    let now: @Sendable () -> Date
    let lists: ListCache?

    func run() async throws {
        while true {
            do {
                let ended = try await cancelWhenGracefulShutdown {
                    try await sweepHolds(store: store, catalog: catalogs.current, now: now())
                }
                if ended > 0 {
                    lists?.invalidate()
                    logger.debug("ended holds", metadata: ["count": "\(ended)"])
                }
            } catch {
                if Task.isShuttingDownGracefully || Task.isCancelled { return }
                logger.warning("could not end holds", metadata: ["error": "\(error)"])
            }
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                return
            }
        }
    }
}

/// One sweep: records every hold ended by `now` (in transactions of at most
/// 500) with the promotions it makes; returns how many ended.
public func sweepHolds(store: ServerStore, catalog: LandmarkCatalog, now: Date) async throws -> Int {
    let batch = 500
    var total = 0
    while true {
        let written = try await store.transaction(.system, catalog: catalog) {
            try await Booking.expireHolds(now: now, limit: batch, in: $0).count
        }
        guard case .done(let ended) = written else { return total }
        total += ended
        if ended < batch { return total }
    }
}

/// Answers 503 `databaseUnavailable` while the newest probe found the database
/// unreachable (after waiting `Reachability.patience` for a probe to find it
/// again: a failover's new primary), and for a request under way when a probe finds it
/// gone, instead of letting it wait for the connection pool to give up
/// (docs/contracts.md, "At team scale (several instances, one database)").
/// A request so answered changed nothing it acknowledged: its answer is the 503.
struct DatabaseGate<Context: RequestContext>: RouterMiddleware {
    let reachability: Reachability

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        guard await reachability.regained() else { throw APIError.databaseUnavailable }
        guard reachability.probe != nil else { return try await next(request, context) }
        return try await withoutActuallyEscaping(next) { next in
            let call = Call(next: next)
            return try await withThrowingTaskGroup(of: Response?.self) { group in
                group.addTask { try await call.next(request, context) }
                group.addTask {
                    await reachability.lost()
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let response = first else {
                    throw APIError.databaseUnavailable
                }
                return response
            }
        }
    }

    /// `next`, called once, inside `handle`: it escapes into a child task of the
    /// group, which ends before `handle` returns.
    private struct Call: @unchecked Sendable {
        let next: (Request, Context) async throws -> Response
    }
}

/// Probes the database with a connection of its own (bounded at 2 s): every
/// 2 s while it answers, every second while it does not, so `DatabaseGate`
/// knows within seconds when it went and when it came back.
struct DatabaseProbe: Service {
    let probe: @Sendable () async -> Bool
    let reachability: Reachability
    let logger: Logger
    var whileUp: Duration = .seconds(2)
    var whileDown: Duration = .seconds(1)

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let reachable = await probe()
            if reachability.record(reachable) {
                if reachable {
                    logger.info("the database can be reached again")
                } else {
                    logger.warning("the database cannot be reached: answering 503 until it can")
                }
            }
            do {
                let pause = reachable ? whileUp : whileDown
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: pause) }
            } catch {
                return
            }
        }
    }
}
