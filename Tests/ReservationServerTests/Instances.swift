import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ReservationCore
import ResvTestKit
import Testing

@testable import ReservationServer
@testable import ReservationStorage

/// Several instances of the server on one database. On PostgreSQL each is a router over a
/// store of its own, with its own pool (as several `resv-server` processes run), so their
/// writes meet only in the database. SQLite has one server per file (its lock refuses a
/// second, `DatabaseError.inUse`), so there the instances are routers over the one store
/// and its one writer, as a client's retries reach that server. (Three stores of their own on
/// one file in one process, which no deployment has, answered most batches 500 after
/// SQLite's 10-second busy wait when tried.)
enum Instances {
    /// The engines several instances can share: SQLite, and PostgreSQL when there is one.
    static var engines: [Engine] { Engine.postgresURL == nil ? [.sqlite] : [.sqlite, .postgres] }

    /// Runs `body` with `count` instances on a new database of `engine` (a new SQLite file; on
    /// PostgreSQL the shared test database, where each test makes users of its own, or with
    /// `ownDatabase` a new one, for a test that changes what a database's servers share).
    static func with(
        _ count: Int, engine: Engine, clock: TestClock, catalog: LandmarkCatalog = .builtIn, ownDatabase: Bool = false,
        _ body: @escaping @Sendable ([TeamScaleTests.Instance]) async throws -> Void
    ) async throws {
        @Sendable func onPostgres(_ url: String) async throws {
            try await start(count, catalog: catalog, clock: clock, body) { serve in
                try await Database.withStore(
                    url, logger: OnSaleTests.quiet, connections: 4, serving: true, now: clock.now, serve)
            }
        }
        switch engine {
        case .memory:
            Issue.record("the memory engine lives in one process: it has no second instance")
        case .postgres where ownDatabase:
            try await Engine.withOwnPostgresDatabase { url in try await onPostgres(url) }
        case .postgres:
            try await onPostgres(try #require(Engine.postgresURL))
        case .sqlite:
            try await TemporaryDirectory.with("instances") { directory in
                try await Database.withStore(
                    directory.path("db.sqlite"), logger: OnSaleTests.quiet, serving: true, now: clock.now
                ) { store in
                    try await start(count, catalog: catalog, clock: clock, body) { serve in try await serve(store) }
                }
            }
        }
    }

    /// Starts routers until there are `count`, each over the store `open` hands to what it serves.
    private static func start(
        _ count: Int, catalog: LandmarkCatalog, clock: TestClock, started: [TeamScaleTests.Instance] = [],
        _ body: @escaping @Sendable ([TeamScaleTests.Instance]) async throws -> Void,
        open: @escaping @Sendable (_ serve: @escaping @Sendable (ServerStore) async throws -> Void) async throws -> Void
    ) async throws {
        guard started.count < count else { return try await body(started) }
        try await open { store in
            // The day's patience on a held clock, as in `withHarness`: a loaded machine is no 503.
            var options = ServerOptions()
            options.waitClock = HeldWaitClock().clock
            let app = Application(
                router: buildRouter(store: store, catalog: catalog, now: clock.now, options: options),
                logger: OnSaleTests.quiet)
            try await app.test(.router) { client in
                try await start(
                    count, catalog: catalog, clock: clock,
                    started: started + [TeamScaleTests.Instance(client: client, store: store)], body, open: open)
            }
        }
    }
}

extension TeamScaleTests.Instance {
    /// A request of `user`'s to this instance, with a JSON body when given.
    func call(
        _ method: HTTPRequest.Method, _ uri: String, as user: User, body: String? = nil, headers extra: HTTPFields = [:]
    ) async throws -> Reply {
        var headers = extra
        headers[.authorization] = "Bearer \(user.token)"
        if body != nil { headers[.contentType] = "application/json" }
        let response = try await client.executeRequest(
            uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
        return Reply(status: response.status, headers: response.headers, text: String(buffer: response.body))
    }
}

extension TeamScaleTests.Instance {
    /// `POST /reservations`, sent again while the answer is a 503 (which booked nothing), as resv
    /// does, up to 30 tries; no pause between, as a 503 comes after the server's own bound was
    /// waited out. The last answer.
    func book(headers: HTTPFields, body: String) async throws -> TestResponse {
        var response = try await client.executeRequest(
            uri: "/reservations", method: .post, headers: headers, body: ByteBuffer(string: body))
        var tries = 1
        while response.status == .serviceUnavailable, tries < 30 {
            response = try await client.executeRequest(
                uri: "/reservations", method: .post, headers: headers, body: ByteBuffer(string: body))
            tries += 1
        }
        return response
    }
}
