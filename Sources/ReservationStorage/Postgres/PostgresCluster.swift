import Foundation
import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The connection pool of a `PostgresTarget`: to the host that takes the sessions asked
/// for, found at start and again by `check` (the server's database probe, every second or
/// two). When another host has become the primary (a failover, a switchover), a pool to it
/// replaces the old one, whose requests under way fail as a lost connection does (503,
/// retried by resv). Everything asks for `client` each time, so it reaches the new primary.
public final class PostgresCluster: Sendable {
    public let target: PostgresTarget
    private let connections: Int
    private let logger: Logger

    private struct State {
        var host: PostgresTarget.Host
        var client: PostgresClient
        var running: Task<Void, Never>?
        var stopped = false
        var stop: CheckedContinuation<Void, Never>?
        /// How many times the pool moved, and what to do after each move.
        var moves = 0
        var whenMoved: [@Sendable () -> Void] = []
    }
    private let state: Mutex<State>
    /// Those waiting for the next move (`moved(since:)`).
    private let moving = Waiters()

    /// The fences (`confirm`): the one not yet begun that reads join, whether one is under way.
    private let fences = Mutex<(next: Task<Void, any Error>?, running: Bool)>((nil, false))
    /// The fence waiting for the one under way to end.
    private let fenceEnded = Waiters()
    /// How long a read waits for its fence before it is refused (503).
    let fenceTimeout: Duration

    /// Finds the host (within `timeout`) and starts a pool to it; `run` keeps it running.
    public init(
        _ target: PostgresTarget, connections: Int, logger: Logger, timeout: Duration = .seconds(10),
        fenceTimeout: Duration = .seconds(5)
    )
        async throws(DatabaseError)
    {
        self.target = target
        self.fenceTimeout = fenceTimeout
        self.connections = connections
        self.logger = logger
        let host = try await target.locate(timeout: timeout, logger: logger)
        let client = Self.client(target, host: host, connections: connections, logger: logger)
        state = Mutex(State(host: host, client: client, running: Task { await client.run() }))
        if target.hosts.count > 1 { logger.info("using the database at \(host)") }
    }

    private static func client(
        _ target: PostgresTarget, host: PostgresTarget.Host, connections: Int, logger: Logger
    ) -> PostgresClient {
        var configuration = target.clientConfiguration(for: host)
        configuration.options.maximumConnections = connections
        return PostgresClient(configuration: configuration, backgroundLogger: logger)
    }

    /// The pool of the host in use now.
    public var client: PostgresClient { state.withLock { $0.client } }

    /// The host in use now.
    public var host: PostgresTarget.Host { state.withLock { $0.host } }

    /// How many times the pool has moved to another host.
    public var moves: Int { state.withLock { $0.moves } }

    /// Returns once the pool has moved more than `count` times (or when cancelled).
    public func moved(since count: Int) async { await moving.wait { self.moves > count } }

    /// Runs `action` after each move (what was under way on the old pool may never end).
    public func whenMoved(_ action: @escaping @Sendable () -> Void) {
        state.withLock { $0.whenMoved.append(action) }
    }

    /// Keeps the pools running until the task is cancelled, then closes them.
    public func run() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let stopped = state.withLock { state -> Bool in
                    if !state.stopped { state.stop = continuation }
                    return state.stopped
                }
                if stopped { continuation.resume() }
            }
        } onCancel: {
            stop()
        }
        // The pool closes its connections; one that waits on a statement the database will never
        // answer (abandoned: see `abandonable`) would hold the process for ever: two seconds at most.
        guard let running = state.withLock({ $0.running }) else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await running.value }
            group.addTask { try? await Task.sleep(for: .seconds(2)) }
            await group.next()
            group.cancelAll()
        }
    }

    private func stop() {
        let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.stopped = true
            state.running?.cancel()
            defer { state.stop = nil }
            return state.stop
        }
        continuation?.resume()
    }

    /// Whether a host can be used now (each asked within `timeout`): the one in use while it
    /// still answers and takes the sessions asked for, else the first in the list that does,
    /// which gets a new pool (the old one is shut down). A cluster's primary does not move
    /// back merely because an earlier host in the list came back.
    public func check(timeout: Duration = .seconds(2)) async -> Bool {
        if await target.refusal(host, timeout: timeout, logger: logger) == nil { return true }
        guard let found = try? await target.locate(timeout: timeout, logger: logger) else { return false }
        let (connections, logger, target) = (self.connections, self.logger, self.target)
        let moved = state.withLock { state -> (PostgresTarget.Host, [@Sendable () -> Void])? in
            guard found != state.host, !state.stopped else { return nil }
            let old = (host: state.host, running: state.running)
            let client = Self.client(target, host: found, connections: connections, logger: logger)
            state.host = found
            state.client = client
            state.running = Task { await client.run() }
            old.running?.cancel()
            state.moves += 1
            return (old.host, state.whenMoved)
        }
        guard let (old, actions) = moved else { return true }
        logger.warning("the database's primary moved from \(old) to \(found)")
        moving.wakeAll()
        for action in actions { action() }
        return true
    }

    /// Returns once the host in use has shown it is still the primary since this call began,
    /// else throws (`DatabaseError.unconfirmed` within `fenceTimeout`, or the fence's error).
    ///
    /// A read answered from a primary that has been deposed (paused past its lease, cut from
    /// the cluster's DCS while this server still reaches it) would be stale: the new primary
    /// takes writes it never sees. So every read, once it has its rows, waits for a fence: a
    /// commit with `synchronous_commit` on, which returns only when the host's synchronous
    /// standby has it, and a standby stops acknowledging once it is promoted or cut off. A
    /// fence begun after the read's rows were taken proves the host was still the primary
    /// then, and that every commit those rows show (one a deposed leader made visible before
    /// it was replicated) is on the standby too. Reads under way together share one fence,
    /// one at a time. A host with no synchronous standby named (one PostgreSQL, asynchronous
    /// replication) has nothing to ask: the fence writes nothing there, as its commits wait for no one.
    public func confirm() async throws {
        let fence = fences.withLock { fences -> Task<Void, any Error> in
            if let next = fences.next { return next }
            let next = Task { try await self.fence() }
            fences.next = next
            return next
        }
        let timeout = fenceTimeout
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                // Awaiting a task's value does not end on cancellation: abandoned when the time is up.
                try await abandonable { try await fence.value }
                return true
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            defer { group.cancelAll() }
            guard try await group.next() == true else {
                throw DatabaseError.unconfirmed(host.description)
            }
        }
    }

    /// The next fence: once the one under way has ended, one statement on the pool in use,
    /// abandoned (failed) if the pool moves first.
    private func fence() async throws {
        // Claims the turn: later reads then start the next fence, which waits for this one.
        while !fences.withLock({ fences in
            guard !fences.running else { return false }
            fences.running = true
            fences.next = nil
            return true
        }) {
            await fenceEnded.wait { !self.fences.withLock { $0.running } }
        }
        defer {
            fences.withLock { $0.running = false }
            fenceEnded.wakeAll()
        }
        let (moves, client, logger) = (self.moves, self.client, self.logger)
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                // A standby (a demoted primary the pool connected to again) is refused at once. Else,
                // where a synchronous standby is named, a message into the WAL (no table) whose commit
                // waits for it: set_config(…, true) holds to the end of the statement's own transaction.
                let answer = try await abandonable {
                    try await client.query(
                        """
                        SELECT CASE WHEN pg_is_in_recovery() THEN 'standby'
                            WHEN current_setting('synchronous_standby_names') = '' THEN 'alone'
                            ELSE set_config('synchronous_commit', 'on', true)
                                || pg_logical_emit_message(true, 'resv-fence', '')::TEXT END
                        """, logger: logger
                    ).collect().first?.decode(String.self)
                }
                return answer != "standby"
            }
            group.addTask {
                await self.moved(since: moves)
                return false
            }
            defer { group.cancelAll() }
            // A standby, or the pool moved first.
            guard try await group.next() == true else { throw DatabaseError.unconfirmed(host.description) }
        }
    }
}
