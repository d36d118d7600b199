import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import MemoryEngine
import ReservationCore
import ResvTestKit
import Testing

@testable import ReservationServer
@testable import ReservationStorage

/// The storage engines every route test runs against: memory (no database),
/// SQLite and PostgreSQL, which needs `RESV_TEST_POSTGRES_URL` (`scripts/with-postgres`
/// sets it; `make test` uses it).
enum Engine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory, sqlite, postgres

    static var postgresURL: String? { ProcessInfo.processInfo.environment["RESV_TEST_POSTGRES_URL"] }
    static var available: [Engine] { postgresURL == nil ? [.memory, .sqlite] : [.memory, .sqlite, .postgres] }
    var testDescription: String { rawValue }
}

/// Two users of one fresh store, and the router over it.
struct Harness: Sendable {
    let client: any TestClientProtocol
    let store: ServerStore
    let alice: String
    let bob: String
    /// What `--database` would be: the SQLite file's path, or the PostgreSQL URL.
    var database = ""
}

/// Runs `body` against a new database of `engine` (a new SQLite file; on
/// PostgreSQL, new users, so tests never see each other's reservations; with `ownDatabase`, a
/// new PostgreSQL database, for a test that changes what a database's servers share).
func withHarness(
    _ engine: Engine, catalog: LandmarkCatalog = .builtIn, now: @escaping @Sendable () -> Date = { Date() },
    options: ServerOptions = ServerOptions(), ownDatabase: Bool = false,
    _ body: @escaping @Sendable (Harness) async throws -> Void
) async throws {
    try await TemporaryDirectory.with("server") { folder in
        let directory = folder.url
        let logger = {
            var logger = Logger(label: "resv-server-test")
            logger.logLevel = .critical
            return logger
        }()
        @Sendable func serve(_ store: ServerStore, database spec: String) async throws {
            let alice = Token.generate()
            let bob = Token.generate()
            let suffix = UUID().uuidString.prefix(8)
            _ = try await store.addToken("alice-\(suffix)", Token.hash(alice))
            _ = try await store.addToken("bob-\(suffix)", Token.hash(bob))
            // A day's group waits for its turn on a clock the test holds and never moves: a loaded
            // machine makes requests slower, never 503 (the patience bound has its own test).
            var options = options
            options.waitClock = HeldWaitClock().clock
            let app = Application(
                router: buildRouter(store: store, catalog: catalog, now: now, options: options), logger: logger)
            try await app.test(.router) { client in
                try await body(Harness(client: client, store: store, alice: alice, bob: bob, database: spec))
            }
        }
        @Sendable func serveDatabase(_ spec: String) async throws {
            // Tests run side by side, each with its own pool: keep the pools small.
            try await Database.withStore(spec, logger: logger, connections: 4, serving: true, now: now) { store in
                try await serve(store, database: spec)
            }
        }
        switch engine {
        case .memory: try await serve(MemoryStore.open(catalog: catalog, now: now), database: "")
        case .sqlite:
            try await serveDatabase(directory.appendingPathComponent("db.sqlite").path)
        case .postgres where ownDatabase:
            try await Engine.withOwnPostgresDatabase { url in try await serveDatabase(url) }
        case .postgres:
            try await serveDatabase(try #require(Engine.postgresURL))
        }
    }
}

/// A response with its body as text and parsed JSON.
struct Reply: Sendable {
    let status: HTTPResponse.Status
    let headers: HTTPFields
    let text: String

    var json: Any? { try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) }
    var object: [String: Any] { json as? [String: Any] ?? [:] }
    var array: [[String: Any]] { json as? [[String: Any]] ?? [] }
    /// The `reason` of an error body; nil unless the body is `{"error": true, "reason": …, "code": …}`
    /// (and, for a batch, `failures`), with a code of the one vocabulary.
    var reason: String? {
        guard object["error"] as? Bool == true, code != nil,
            Set(object.keys).isSubset(of: ["error", "reason", "code", "failures"])
        else { return nil }
        return object["reason"] as? String
    }

    /// The `code` of an error body, when it is one of `ErrorCode`'s.
    var code: ErrorCode? { (object["code"] as? String).flatMap(ErrorCode.init(rawValue:)) }
}

/// Serves `store` on a router in this process (the built-in catalog, the wall clock) and runs
/// `body` with requests as a new user `name`: for a store a test opens itself (a cluster's).
func withRouter(over store: ServerStore, user name: String, _ body: @escaping @Sendable (Caller) async throws -> Void)
    async throws
{
    let token = Token.generate()
    _ = try await store.addToken(name, Token.hash(token))
    let router = buildRouter(store: store, catalog: .builtIn, now: { Date() })
    try await Application(router: router).test(.router) { client in
        try await body(Caller(client: client, token: token))
    }
}

/// Requests to a router served in this process, with a user's token (or none).
struct Caller: Sendable {
    let client: any TestClientProtocol
    let token: String?

    func callAsFunction(
        _ method: HTTPRequest.Method, _ uri: String, body: String? = nil, headers extra: HTTPFields = [:]
    ) async throws -> Reply {
        var headers = extra
        if let token { headers[.authorization] = "Bearer \(token)" }
        if body != nil { headers[.contentType] = "application/json" }
        let response = try await client.executeRequest(
            uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
        return Reply(status: response.status, headers: response.headers, text: String(buffer: response.body))
    }
}

extension Harness {
    func call(
        _ method: HTTPRequest.Method, _ uri: String, token: String?, body: String? = nil,
        headers extra: HTTPFields = [:]
    ) async throws -> Reply {
        try await Caller(client: client, token: token)(method, uri, body: body, headers: extra)
    }

    /// Creates a reservation for `token` and returns its JSON.
    @discardableResult
    func reserve(
        _ token: String, landmark: String = Fixture.goldenGate, date: String = Fixture.futureDate(),
        partySize: Int = 2, status: String? = nil
    ) async throws -> [String: Any] {
        let reply = try await call(
            .post, "/reservations", token: token, body: Fixture.body(landmark, date, partySize, status))
        #expect(reply.status == .created, "\(reply.text)")
        return reply.object
    }
}
