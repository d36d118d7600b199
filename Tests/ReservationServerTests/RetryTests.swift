import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import MemoryEngine
import PostgresNIO
import ReservationCore
import ResvTestKit
import Synchronization
import Testing

@testable import ReservationServer
@testable import ReservationStorage

/// A transaction PostgreSQL breaks (a deadlock, a serialization failure) runs
/// again inside the server; a request never answers 500 for one, and when the
/// retries run out it answers 503 with `Retry-After` (docs/contracts.md, "At team scale (several instances, one database)").
@Suite("Deadlocks and retries", .timeLimit(.minutes(30)))
struct RetryTests {
    /// Two transactions that lock two keys in opposite orders, each waiting for
    /// the other to hold its first: PostgreSQL breaks the deadlock by failing
    /// one, whose error arrives while its lock statement's answer is read. That
    /// one runs again and both commit.
    @Test(.enabled(if: Engine.postgresURL != nil, "needs RESV_TEST_POSTGRES_URL (scripts/with-postgres)"))
    func aDeadlockedTransactionRunsAgainAndBothCommit() async throws {
        let url = try #require(Engine.postgresURL)
        let logger = {
            var logger = Logger(label: "resv-test-deadlock")
            logger.logLevel = .critical
            return logger
        }()
        let clock: @Sendable () -> Date = { Date() }
        try await Database.withStore(url, logger: logger, connections: 4, now: clock) { store in
            let user = try await store.addToken("deadlock-\(UUID().uuidString.prefix(8))", Token.hash(Token.generate()))
            let keys = (UInt64.random(in: 1..<UInt64(Int64.max)), UInt64.random(in: 1..<UInt64(Int64.max)))
            let meeting = Rendezvous(parties: 2)
            let runs = Runs()
            @Sendable func lock(_ first: UInt64, then second: UInt64, as number: Int) async throws -> Int {
                let written = try await store.transaction(user, catalog: .builtIn) { transaction in
                    let db = try #require((transaction as? PostgresTransaction)?.db)
                    let run = runs.next(number)
                    try await db.run("SELECT pg_advisory_xact_lock(\(Int64(first)))", logger: logger)
                    // Only the first runs meet: the one that runs again finds the other gone.
                    if run == 1 { await meeting.arrive() }
                    try await db.run("SELECT pg_advisory_xact_lock(\(Int64(second)))", logger: logger)
                    return run
                }
                guard case .done(let run) = written else { throw ModelFailure("no answer") }
                return run
            }
            let finals = try await withThrowingTaskGroup(of: Int.self) { group in
                group.addTask { try await lock(keys.0, then: keys.1, as: 0) }
                group.addTask { try await lock(keys.1, then: keys.0, as: 1) }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(finals.sorted() == [1, 2], "one transaction ran once, the other twice: \(finals)")
        }
    }

    /// The retries used up: 503 `serverBusy` with `Retry-After`, not 500.
    @Test func retriesUsedUpAnswer503WithRetryAfter() async throws {
        var store = MemoryStore.open(catalog: .builtIn, now: { Date() })
        store.engine = BusyEngine(base: store.engine)
        let token = Token.generate()
        _ = try await store.addToken("busy", Token.hash(token))
        let app = Application(router: buildRouter(store: store, catalog: .builtIn, now: { Date() }))
        try await app.test(.router) { client in
            let body = #"{"landmarkId":"\#(Fixture.goldenGate)","date":"\#(Fixture.futureDate())","partySize":2}"#
            for (method, uri) in [(HTTPRequest.Method.post, "/reservations"), (.post, "/undo")] {
                let response = try await client.executeRequest(
                    uri: uri, method: method,
                    headers: [.authorization: "Bearer \(token)", .contentType: "application/json"],
                    body: ByteBuffer(string: body))
                let reply = Reply(
                    status: response.status, headers: response.headers, text: String(buffer: response.body))
                #expect(reply.status == .serviceUnavailable, "\(uri): \(reply.text)")
                #expect(reply.code == .serverBusy && reply.reason != nil, "\(reply.text)")
                #expect(reply.headers[.retryAfter] == "1")
            }
        }
    }

    /// The pause before each attempt is random, within a ceiling that doubles and stops growing.
    @Test func pausesAreJitteredUnderADoublingCeiling() {
        for attempt in 2...12 {
            let ceiling = Duration.milliseconds(5 << min(attempt - 2, 6))
            let pauses = (0..<200).map { _ in PostgresStore.pause(before: attempt) }
            #expect(pauses.allSatisfy { $0 >= .zero && $0 <= ceiling }, "attempt \(attempt)")
            #expect(Set(pauses).count > 100, "attempt \(attempt): pauses vary")
        }
    }
}

/// How many times each of two transactions has run.
final class Runs: Sendable {
    private let counts = Mutex([0, 0])
    func next(_ number: Int) -> Int {
        counts.withLock { counts in
            counts[number] += 1
            return counts[number]
        }
    }
}

/// Lets `parties` tasks go on only once all of them have arrived.
final class Rendezvous: Sendable {
    private let state: Mutex<(arrived: Int, waiting: [CheckedContinuation<Void, Never>])>
    private let parties: Int

    init(parties: Int) {
        self.parties = parties
        state = Mutex((0, []))
    }

    func arrive() async {
        await withCheckedContinuation { continuation in
            let release: [CheckedContinuation<Void, Never>] = state.withLock { state in
                state.arrived += 1
                state.waiting.append(continuation)
                guard state.arrived == parties else { return [] }
                defer { state.waiting = [] }
                return state.waiting
            }
            for waiting in release { waiting.resume() }
        }
    }
}

/// While the newest probe found the database unreachable, every route behind
/// a token answers 503 `databaseUnavailable` with `Retry-After` once its patience
/// has passed (none here), without touching the store; when a probe finds it
/// again, requests are served.
@Suite("A database that cannot be reached", .timeLimit(.minutes(30)))
struct DatabaseGateTests {
    @Test func whileTheProbeFailsRequestsAre503AndServedWhenItAnswersAgain() async throws {
        var store = MemoryStore.open(catalog: .builtIn, now: { Date() })
        let answers = Probes()
        let reachability = Reachability(probe: { answers.next() }, patience: .zero)
        store.reachability = reachability
        let token = Token.generate()
        _ = try await store.addToken("gate", Token.hash(token))
        let router = buildRouter(store: store, catalog: .builtIn, now: { Date() })
        try await Application(router: router).test(.router) { client in
            func get(_ uri: String) async throws -> Reply {
                let response = try await client.executeRequest(
                    uri: uri, method: .get, headers: [.authorization: "Bearer \(token)"], body: nil)
                return Reply(status: response.status, headers: response.headers, text: String(buffer: response.body))
            }
            #expect(try await get("/reservations").status == .ok)
            #expect(reachability.record(await reachability.probe?() ?? true))
            for uri in ["/reservations", "/changes?wait=0", "/whoami"] {
                let reply = try await get(uri)
                #expect(
                    reply.status == .serviceUnavailable && reply.code == .databaseUnavailable, "\(uri): \(reply.text)")
                #expect(reply.headers[.retryAfter] == "2")
            }
            #expect(reachability.record(await reachability.probe?() ?? false))
            #expect(try await get("/reservations").status == .ok)
        }
    }
}

extension DatabaseGateTests {
    /// A request under way when a probe finds the database gone is answered 503 then, not when it ends.
    @Test func aRequestUnderWayWhenTheDatabaseGoesIsAnswered503() async throws {
        var store = MemoryStore.open(catalog: .builtIn, now: { Date() })
        let reachability = Reachability(probe: { true })
        store.reachability = reachability
        let token = Token.generate()
        _ = try await store.addToken("gate", Token.hash(token))
        let router = buildRouter(store: store, catalog: .builtIn, now: { Date() })
        let signal = store.signal
        try await Application(router: router).test(.router) { client in
            let start = try await client.executeRequest(
                uri: "/changes", method: .get, headers: [.authorization: "Bearer \(token)"], body: nil)
            let cursor = try #require(
                (try JSONValue.parse(Data(String(buffer: start.body).utf8)))["cursor"].flatMap {
                    if case .string(let text) = $0 { text } else { nil }
                })
            async let poll = client.executeRequest(
                uri: "/changes?after=\(cursor)&wait=60", method: .get, headers: [.authorization: "Bearer \(token)"],
                body: nil)
            // Until the poll waits in the feed: then the database goes.
            try await waitUntil("the poll waiting in the feed") { signal.waiting > 0 }
            reachability.record(false)
            let response = try await poll
            let reply = Reply(status: response.status, headers: response.headers, text: String(buffer: response.body))
            #expect(reply.status == .serviceUnavailable && reply.code == .databaseUnavailable, "\(reply.text)")
        }
    }
}

extension DatabaseGateTests {
    /// A request that finds the database gone waits for the probe (a failover's new primary
    /// takes seconds): when the probe finds it within the patience, the request is served.
    @Test func aRequestWhileTheDatabaseIsGoneIsServedWhenAProbeFindsItAgain() async throws {
        var store = MemoryStore.open(catalog: .builtIn, now: { Date() })
        let reachability = Reachability(probe: { true }, patience: .seconds(3_600))
        store.reachability = reachability
        let token = Token.generate()
        _ = try await store.addToken("gate", Token.hash(token))
        let router = buildRouter(store: store, catalog: .builtIn, now: { Date() })
        try await Application(router: router).test(.router) { client in
            reachability.record(false)
            async let waiting = client.executeRequest(
                uri: "/reservations", method: .get, headers: [.authorization: "Bearer \(token)"], body: nil)
            try await waitUntil("the request waiting for the database") { reachability.waitingForReturn > 0 }
            #expect(reachability.record(true))
            let response = try await waiting
            #expect(response.status == .ok, "\(String(buffer: response.body))")
            #expect(reachability.waitingForReturn == 0)
        }
    }
}

/// A probe that answers false, then true.
final class Probes: Sendable {
    private let count = Mutex(0)
    func next() -> Bool {
        count.withLock { count in
            count += 1
            return count % 2 == 0
        }
    }
}

/// A test double: an engine whose every write transaction the database broke
/// until the retries ran out (`transact` throws `busy`); every read is its base's.
struct BusyEngine: StorageEngine {
    let base: any StorageEngine

    func transact(
        _ user: UserID, _ catalog: LandmarkCatalog, _ key: IdempotencyKey?, _ work: @escaping ServerStore.Work
    )
        async throws -> Written<any Sendable>
    {
        throw DatabaseError.busy(attempts: PostgresStore.attempts)
    }

    func list(_ user: UserID) async throws -> [ReservationApiModel] { try await base.list(user) }
    func get(_ user: UserID, _ id: Reservation.ID) async throws -> ReservationApiModel? {
        try await base.get(user, id)
    }
    func locate(_ id: Reservation.ID) async throws -> (owner: UserID, record: ReservationApiModel)? {
        try await base.locate(id)
    }

    func dayRules(_ landmark: Landmark.ID, _ from: CalendarDay, _ to: CalendarDay) async throws -> [DayRule] {
        try await base.dayRules(landmark, from, to)
    }

    func catalog(newerThan version: Int64) async throws -> StoredCatalog? {
        try await base.catalog(newerThan: version)
    }

    func changeCatalog(_ edit: @escaping @Sendable (StoredCatalog) throws -> [CatalogWrite]) async throws
        -> StoredCatalog
    {
        throw DatabaseError.busy(attempts: PostgresStore.attempts)
    }

    func parties(_ landmark: Landmark.ID, _ from: Date, _ to: Date, _ now: Date) async throws
        -> [(date: Date, partySize: Int)]
    {
        try await base.parties(landmark, from, to, now)
    }
    func manifest(_ landmark: Landmark.ID, _ from: Date, _ to: Date) async throws
        -> [(user: String, record: ReservationApiModel)]
    {
        try await base.manifest(landmark, from, to)
    }
    func waitlists(_ days: [BookingDay]) async throws -> [BookingDay: [String]] { try await base.waitlists(days) }
    func storedResponse(_ user: UserID, _ key: String) async throws -> StoredResponse? {
        try await base.storedResponse(user, key)
    }
    func history(_ user: UserID, _ id: Reservation.ID?, _ limit: Int?) async throws -> [HistoryEntry] {
        try await base.history(user, id, limit)
    }
    func purgeKeys(_ olderThan: Date) async throws -> Int { try await base.purgeKeys(olderThan) }
    func close() async throws { try await base.close() }
    func changes(_ user: UserID, _ after: Int64, _ limit: Int) async throws -> [(sequence: Int64, entry: HistoryEntry)]
    {
        try await base.changes(user, after, limit)
    }
    func newestChange(_ user: UserID) async throws -> Int64 { try await base.newestChange(user) }
    func positionAfter(_ user: UserID, _ sequence: Int64) async throws -> Int64 {
        try await base.positionAfter(user, sequence)
    }
}
