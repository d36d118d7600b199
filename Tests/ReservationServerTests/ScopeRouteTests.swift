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

/// Token scopes at the routes: every route behind a token, called with a read, a
/// calendar and a write token of one user, is allowed or 403 `forbidden` as this
/// table says (written here, apart from the server's `RouteScopes`, which it checks).
@Suite("Token scopes at the routes", .timeLimit(.minutes(30)))
struct ScopeRouteTests {
    /// One route: its method, a path and body to call it with (`ID` becomes a
    /// reservation of the user), and the scopes allowed to call it.
    struct Route: Sendable, CustomTestStringConvertible {
        let method: HTTPRequest.Method
        let path: String
        let body: String?
        let allowed: Set<TokenScope>
        /// The end of the 403's reason: "it cannot …".
        let action: String

        var testDescription: String { "\(method) \(path)" }
    }

    static let booking = Fixture.body(Fixture.goldenGate, "2100-06-01T10:00:00Z", 2)

    static let routes: [Route] = [
        Route(
            method: .get, path: "/whoami", body: nil, allowed: [.read, .write, .calendar], action: "ask whose it is"),
        Route(method: .get, path: "/landmarks", body: nil, allowed: [.read, .write], action: "read landmarks"),
        Route(
            method: .get, path: "/landmarks/\(Fixture.goldenGate)/availability", body: nil, allowed: [.read, .write],
            action: "read availability"),
        Route(
            method: .get, path: "/landmarks/\(Fixture.goldenGate)/day/2100-01-01", body: nil, allowed: [.read, .write],
            action: "read a day's parties"),
        Route(method: .get, path: "/reservations", body: nil, allowed: [.read, .write], action: "read reservations"),
        Route(
            method: .get, path: "/reservations/ID", body: nil, allowed: [.read, .write], action: "read reservations"),
        Route(method: .get, path: "/history", body: nil, allowed: [.read, .write], action: "read the history"),
        Route(method: .get, path: "/changes", body: nil, allowed: [.read, .write], action: "read the change feed"),
        Route(method: .post, path: "/reservations", body: booking, allowed: [.write], action: "change reservations"),
        Route(
            method: .post, path: "/reservations/batch", body: #"{"reservations":[\#(booking)]}"#, allowed: [.write],
            action: "change reservations"),
        Route(
            method: .post, path: "/reservations/batch/dry-run", body: #"{"reservations":[\#(booking)]}"#,
            allowed: [.write], action: "change reservations"),
        Route(
            method: .post, path: "/reservations/confirm", body: #"{"ids":["ID"]}"#, allowed: [.write],
            action: "change reservations"),
        Route(
            method: .post, path: "/reservations/ID/confirm", body: nil, allowed: [.write],
            action: "change reservations"),
        Route(
            method: .patch, path: "/reservations/ID", body: #"{"partySize":3}"#, allowed: [.write],
            action: "change reservations"),
        Route(
            method: .post, path: "/reservations/cancel", body: #"{"ids":["ID"]}"#, allowed: [.write],
            action: "change reservations"),
        Route(method: .delete, path: "/reservations/ID", body: nil, allowed: [.write], action: "change reservations"),
        Route(
            method: .post, path: "/reservations/ID/checkin", body: nil, allowed: [.write], action: "check parties in"),
        Route(method: .post, path: "/reservations/ID/noshow", body: nil, allowed: [.write], action: "mark no-shows"),
        Route(
            method: .post, path: "/landmarks/\(Fixture.goldenGate)/days", body: #"{"from":"2100-01-01","open":true}"#,
            allowed: [.write], action: "change a landmark's days"),
        // The catalog's changes, by calls that change nothing (a landmark shared by every test): an
        // add of no landmark (400), a set to what is, a retire of an id not in the catalog (a
        // reservation's, 404).
        Route(method: .post, path: "/landmarks", body: "{}", allowed: [.write], action: "change the catalog"),
        Route(
            method: .patch, path: "/landmarks/\(Fixture.goldenGate)", body: #"{"isFeatured":true}"#, allowed: [.write],
            action: "change the catalog"),
        Route(
            method: .post, path: "/landmarks/ID/retire", body: nil, allowed: [.write], action: "change the catalog"),
        Route(method: .post, path: "/undo", body: nil, allowed: [.write], action: "change reservations"),
        Route(method: .post, path: "/redo", body: nil, allowed: [.write], action: "change reservations"),
        Route(
            method: .post, path: "/settle", body: #"{"key":"k-1"}"#, allowed: [.write],
            action: "settle a change's key"),
        Route(
            method: .post, path: "/calendar", body: nil, allowed: [.write, .calendar],
            action: "make a calendar address"),
        Route(
            method: .post, path: "/calendar/reset", body: nil, allowed: [.write, .calendar],
            action: "reset the calendar address"),
    ]

    /// Each scope on the route: the narrower ones first, so a refused change has changed nothing
    /// the write token's call then sees.
    @Test(arguments: Engine.available, routes)
    func eachScopeIsAllowedOrForbiddenAsTheTableSays(engine: Engine, route: Route) async throws {
        try await withHarness(engine) { h in
            let name = "scoped-\(UUID().uuidString.prefix(8))"
            // An admin, so that a route only a landmark's managers may call (`requireManager(of:)`)
            // is refused here by the scope alone: roles have their own table (RoleRouteTests).
            _ = try await h.store.tokens.setAccess(name, UserAccess(role: .admin), create: true, mustBeNew: true)
            var tokens: [TokenScope: String] = [:]
            for scope in TokenScope.allCases {
                let token = Token.generate()
                _ = try await h.store.tokens.create(NewToken(name: name, hash: Token.hash(token), scope: scope))
                tokens[scope] = token
            }
            let write = try #require(tokens[.write])
            let id = try #require(try await h.reserve(write)["id"] as? String)
            let path = route.path.replacingOccurrences(of: "ID", with: id)
            let body = route.body?.replacingOccurrences(of: "\"ID\"", with: "\"\(id)\"")
            let before = try await h.call(.get, "/history", token: write).text
            for scope in [TokenScope.read, .calendar, .write] {
                if scope == .write {
                    // The narrower scopes' refused calls changed nothing the history would show.
                    #expect(try await h.call(.get, "/history", token: write).text == before)
                }
                let reply = try await h.call(route.method, path, token: tokens[scope], body: body)
                if route.allowed.contains(scope) {
                    #expect(reply.status != .forbidden && reply.status.code < 500, "\(scope): \(reply.text)")
                    #expect(reply.status != .unauthorized, "\(scope): \(reply.text)")
                } else {
                    #expect(reply.status == .forbidden, "\(scope): \(reply.text)")
                    #expect(reply.code == .forbidden)
                    #expect(reply.object["error"] as? Bool == true)
                    #expect(
                        reply.object["reason"] as? String == "this token's scope is \(scope): it cannot \(route.action)"
                    )
                    #expect(reply.object["scope"] as? String == scope.rawValue)
                    #expect(Set(reply.object.keys) == ["error", "reason", "code", "scope"])
                }
            }
        }
    }

    /// `GET /whoami` names the user and the token's scope.
    @Test(arguments: Engine.available)
    func whoamiSaysTheScope(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let name = "who-\(UUID().uuidString.prefix(8))"
            for scope in TokenScope.allCases {
                let token = Token.generate()
                _ = try await h.store.tokens.create(NewToken(name: name, hash: Token.hash(token), scope: scope))
                let reply = try await h.call(.get, "/whoami", token: token)
                #expect(reply.status == .ok)
                #expect(Set(reply.object.keys) == ["user", "scope"])
                #expect(reply.object["user"] as? String == name)
                #expect(reply.object["scope"] as? String == scope.rawValue)
            }
        }
    }

    /// The server's table names exactly the routes behind a token, and this test's table each of them.
    @Test func theTableNamesEveryRouteBehindAToken() throws {
        let router = buildRouter(store: MemoryStore.open(catalog: .builtIn, now: { Date() }), now: { Date() })
        let open: Set<String> = ["GET /health", "GET /calendar/{secret}.ics", "HEAD /calendar/{secret}.ics"]
        let registered = Set(router.routes.map { "\($0.method) \($0.path)" }).subtracting(open)
        let ruled = Set(RouteScopes.rules.map { "\($0.method) \(RouterPath($0.path))" })
        #expect(registered == ruled)
        #expect(Self.routes.count == ruled.count)
        for rule in RouteScopes.rules {
            let tested = Self.routes.filter {
                $0.method == rule.method
                    && RouterPath(
                        $0.path.replacingOccurrences(of: Fixture.goldenGate, with: ":id")
                            .replacingOccurrences(of: "ID", with: ":id").replacingOccurrences(
                                of: "2100-01-01", with: ":day")
                    ).description == RouterPath(rule.path).description
            }
            #expect(tested.map(\.allowed) == [rule.scopes], "\(rule.method) \(rule.path)")
        }
    }
}
