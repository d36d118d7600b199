import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import ReservationCore
import ResvTestKit
import Testing

@testable import ReservationServer
@testable import ReservationStorage

/// Roles at the routes: role (member, staff of the reservation's landmark, staff of another,
/// admin) × scope (read, write) × route, on one engine per test, against a reservation of
/// another user (the harness's alice). Written here as a table of its own, apart from the
/// server's rule (`RouteBackend.acting(on:)`, `AuthenticatedContext.mayManage`), which it checks.
@Suite("Roles at the routes", .timeLimit(.minutes(30)))
struct RoleRouteTests {
    enum Role: String, CaseIterable, Sendable {
        case member
        case staffHere = "staff-here"
        case staffThere = "staff-there"
        case admin

        var access: UserAccess {
            switch self {
            case .member: .member
            case .staffHere: UserAccess(role: .staff, landmarks: [Landmark.ID(Fixture.goldenGate)!])
            case .staffThere: UserAccess(role: .staff, landmarks: [Landmark.ID(Fixture.halfDome)!])
            case .admin: UserAccess(role: .admin)
            }
        }

        /// Whether this role may act on the reservations at Golden Gate (every reservation here is there).
        var manages: Bool { self == .staffHere || self == .admin }
    }

    /// One caller: a role's user and one of their tokens.
    struct Caller: Sendable {
        let role: Role
        let scope: TokenScope
        let name: String
        let token: String
        let tokenID: String
    }

    /// What a route answers a caller: a status, and for a change whether it was made.
    struct Route: Sendable {
        let name: String
        let method: HTTPRequest.Method
        let path: String
        let body: String?
        /// Whether the route changes the reservation (only a write token may; read: 403).
        let changes: Bool
        /// The status a write token of the role gets when the route is allowed; else 404 (a reservation
        /// that is not theirs does not exist to them) or, for `history`, 403.
        let allowed: @Sendable (Role) -> Bool
        let refusal: HTTPResponse.Status
        let success: HTTPResponse.Status
        /// Whether a change made lands on the owner's reservation (its history, its feed); a change of
        /// the landmark's days that touches no party does not.
        var touchesReservation = true
    }

    static let routes: [Route] = [
        Route(
            name: "GET one", method: .get, path: "/reservations/ID", body: nil, changes: false,
            allowed: { $0.manages }, refusal: .notFound, success: .ok),
        Route(
            name: "PATCH", method: .patch, path: "/reservations/ID", body: #"{"note":"seen by staff"}"#, changes: true,
            allowed: { $0.manages }, refusal: .notFound, success: .ok),
        Route(
            name: "confirm", method: .post, path: "/reservations/ID/confirm", body: nil, changes: true,
            allowed: { $0.manages }, refusal: .notFound, success: .ok),
        Route(
            name: "DELETE", method: .delete, path: "/reservations/ID", body: nil, changes: true,
            allowed: { $0.manages }, refusal: .notFound, success: .ok),
        // The batch routes (what `resv cancel` and `resv confirm` send): the landmark's managers may
        // name another user's reservations there, as for one; to anyone else they are not found.
        Route(
            name: "cancel several", method: .post, path: "/reservations/cancel", body: #"{"ids":["ID"]}"#,
            changes: true, allowed: { $0.manages }, refusal: .notFound, success: .ok),
        Route(
            name: "confirm several", method: .post, path: "/reservations/confirm", body: #"{"ids":["ID"]}"#,
            changes: true, allowed: { $0.manages }, refusal: .notFound, success: .ok),
        Route(
            name: "history of another", method: .get, path: "/history?user=OWNER", body: nil, changes: false,
            allowed: { $0 == .admin }, refusal: .forbidden, success: .ok),
        // Check-in is the landmark's managers' (`requireManager(of:)`); to anyone else another's
        // reservation does not exist. A no-show of a visit still ahead is refused whoever asks
        // (AttendanceRouteTests), so the table checks it is refused the same way before that.
        Route(
            name: "checkin", method: .post, path: "/reservations/ID/checkin", body: nil, changes: true,
            allowed: { $0.manages }, refusal: .notFound, success: .ok),
        // A day's manifest: every user's parties there; a read token may, a member or other staff not.
        Route(
            name: "manifest", method: .get, path: "/landmarks/\(Fixture.goldenGate)/day/DAY", body: nil,
            changes: false, allowed: { $0.manages }, refusal: .forbidden, success: .ok),
        // A landmark's days (`resv admin open|close|capacity`): its managers', 403 to anyone else. An
        // opening of a day far off, which no party is on: it changes nothing of the reservation.
        Route(
            name: "days", method: .post, path: "/landmarks/\(Fixture.goldenGate)/days",
            body: #"{"from":"2100-01-01","open":true}"#, changes: true, allowed: { $0.manages },
            refusal: .forbidden, success: .ok, touchesReservation: false),
        // The catalog (`resv admin landmark`): an admin's alone, 403 to anyone else, staff of the
        // landmark too. A change to what the landmark is already: it writes nothing (add and retire,
        // which would change a landmark other tests book, are in CatalogRouteTests).
        Route(
            name: "catalog set", method: .patch, path: "/landmarks/\(Fixture.goldenGate)",
            body: #"{"isFeatured":true}"#, changes: true, allowed: { $0 == .admin }, refusal: .forbidden,
            success: .ok, touchesReservation: false),
        // The list is one's own, whatever the role: the other's reservation is not in it.
        Route(
            name: "GET list", method: .get, path: "/reservations", body: nil, changes: false, allowed: { _ in true },
            refusal: .ok, success: .ok),
    ]

    /// Every role × scope × route: allowed, not found, or forbidden as the table says; a change made
    /// by another user lands in the owner's history and change feed, naming the actor (user and
    /// token id, never the token); a refused one changes nothing.
    @Test(arguments: Engine.available)
    func eachRoleAndScopeOnEachRoute(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let suffix = UUID().uuidString.prefix(8)
            let alice = try #require(try await h.grant(h.alice))
            let owner = try #require(try await h.store.tokens.name(alice.user))
            var callers: [Caller] = []
            for role in Role.allCases {
                let name = "\(role.rawValue)-\(suffix)"
                _ = try await h.store.tokens.setAccess(name, role.access, create: true, mustBeNew: true)
                for scope in [TokenScope.read, .write] {
                    let token = Token.generate()
                    let new = NewToken(name: name, hash: Token.hash(token), scope: scope)
                    _ = try await h.store.tokens.create(new)
                    callers.append(Caller(role: role, scope: scope, name: name, token: token, tokenID: new.id))
                }
            }
            for route in Self.routes {
                for caller in callers {
                    let what = "\(route.name) by \(caller.role.rawValue) (\(caller.scope))"
                    let made = try await h.reserve(h.alice, status: "pending")
                    let id = try #require(made["id"] as? String)
                    // Golden Gate's zone is Los Angeles, the fixture's time 10:00 UTC: the same day there.
                    let day = String(try #require(made["date"] as? String).prefix(10))
                    let cursor = try #require(
                        try await h.call(.get, "/changes", token: h.alice).object["cursor"] as? String)
                    let before = try await h.call(.get, "/history?reservation=\(id)", token: h.alice).text
                    let path = route.path.replacingOccurrences(of: "ID", with: id)
                        .replacingOccurrences(of: "OWNER", with: owner).replacingOccurrences(of: "DAY", with: day)
                    let body = route.body?.replacingOccurrences(of: "\"ID\"", with: "\"\(id)\"")
                    let reply = try await h.call(route.method, path, token: caller.token, body: body)
                    let expected: HTTPResponse.Status =
                        route.changes && caller.scope == .read
                        ? .forbidden : route.allowed(caller.role) ? route.success : route.refusal
                    #expect(reply.status == expected, "\(what): \(reply.text)")
                    #expect(!reply.text.contains(caller.token), "\(what): the token never appears")
                    let after = try await h.call(.get, "/history?reservation=\(id)", token: h.alice)
                    guard route.changes, route.touchesReservation, reply.status == .ok else {
                        #expect(after.text == before, "\(what): refused, nothing changed")
                        if route.name == "GET list" {
                            #expect(!reply.text.contains(id), "\(what): another's reservation is not listed")
                        }
                        if route.name == "manifest" && reply.status == .ok {
                            #expect(reply.text.contains(id), "\(what): the owner's party is in it: \(reply.text)")
                        }
                        if route.name == "GET one" && reply.status == .ok {
                            #expect(reply.object["id"] as? String == id)
                        }
                        if route.name == "history of another" && reply.status == .ok {
                            #expect(reply.array.contains { $0["reservationId"] as? String == id }, "\(what)")
                            #expect(reply.array.allSatisfy { $0["user"] as? String == owner }, "\(what)")
                        }
                        continue
                    }
                    // Made: in the owner's history, naming the actor.
                    let newest = try #require(after.array.first, "\(what)")
                    let actor = newest["actor"] as? [String: Any]
                    #expect(actor?["user"] as? String == caller.name, "\(what): \(after.text)")
                    #expect(actor?["token"] as? String == caller.tokenID, "\(what): \(after.text)")
                    #expect(newest["user"] as? String == owner)
                    #expect(!after.text.contains(caller.token) && !after.text.contains(Token.hash(caller.token)))
                    // And once in the owner's change feed.
                    let feed = try await h.call(.get, "/changes?after=\(cursor)", token: h.alice)
                    let changes = feed.object["changes"] as? [[String: Any]] ?? []
                    #expect(changes.count == 1, "\(what): \(feed.text)")
                    #expect((changes.first?["actor"] as? [String: Any])?["user"] as? String == caller.name)
                    // Not in the actor's own history.
                    let own = try await h.call(.get, "/history?reservation=\(id)", token: caller.token)
                    #expect(own.array.isEmpty, "\(what): \(own.text)")
                }
            }
        }
    }

    /// `requireManager(of:)`, the check the manager routes (a day's manifest, check-in, capacity) ask:
    /// staff of the landmark and admins pass with a read or write token; a member, staff of another
    /// landmark, and any calendar token (the scope narrows the role) get 403 `forbidden`.
    @Test(arguments: Engine.available)
    func requireManagerLetsStaffOfTheLandmarkAndAdminsThrough(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let router = Router(context: ServerContext.self)
            router.add(middleware: ErrorMiddleware())
            router.group()
                .add(middleware: AuthMiddleware(tokens: TokenCache(store: h.store, now: { Date() })))
                .group(context: AuthenticatedContext.self)
                .get("/manage/:landmark") { request, context -> Response in
                    let landmark = try #require(context.parameters.get("landmark").flatMap(Landmark.ID.init))
                    try context.requireManager(of: landmark)
                    return Response(status: .ok)
                }
            let app = Application(router: router)
            let suffix = UUID().uuidString.prefix(8)
            try await app.test(.router) { client in
                for role in Role.allCases {
                    let name = "manager-\(role.rawValue)-\(suffix)"
                    _ = try await h.store.tokens.setAccess(name, role.access, create: true, mustBeNew: true)
                    for scope in TokenScope.allCases {
                        let token = Token.generate()
                        _ = try await h.store.tokens.create(NewToken(name: name, hash: Token.hash(token), scope: scope))
                        for landmark in [Fixture.goldenGate, Fixture.halfDome] {
                            let reply = try await client.execute(
                                uri: "/manage/\(landmark)", method: .get, headers: [.authorization: "Bearer \(token)"])
                            let manages =
                                scope != .calendar
                                && (role == .admin
                                    || (landmark == Fixture.goldenGate ? role == .staffHere : role == .staffThere))
                            #expect(
                                reply.status == (manages ? .ok : .forbidden),
                                "\(role.rawValue) \(scope) at \(landmark): \(String(buffer: reply.body))")
                        }
                    }
                }
            }
        }
    }

    /// Staff may not move another user's reservation to a landmark they do not manage (403, nothing
    /// changed); the owner moving it away first makes it not found to them.
    @Test(arguments: Engine.available)
    func staffCannotMoveAReservationOutOfTheirLandmarks(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let token = try await h.newUser("mover", Role.staffHere.access)
            let id = try #require(try await h.reserve(h.alice)["id"] as? String)
            let moved = try await h.call(
                .patch, "/reservations/\(id)", token: token, body: #"{"landmarkId":"\#(Fixture.halfDome)"}"#)
            #expect(moved.status == .forbidden, "\(moved.text)")
            #expect(moved.code == .forbidden)
            let kept = try await h.call(.get, "/reservations/\(id)", token: h.alice)
            #expect(kept.object["landmarkId"] as? String == Fixture.goldenGate)
            // The owner moves it: now it is at a landmark the staff do not manage.
            let away = try await h.call(
                .patch, "/reservations/\(id)", token: h.alice, body: #"{"landmarkId":"\#(Fixture.halfDome)"}"#)
            #expect(away.status == .ok, "\(away.text)")
            #expect(try await h.call(.delete, "/reservations/\(id)", token: token).status == .notFound)
        }
    }

    /// A cancel of several by staff (what `resv cancel A B` sends): another user's reservations at
    /// their landmark, all one user's, are cancelled together; ids of two users are refused (400),
    /// one at a landmark they do not manage is not found (404); a refused batch changes nothing.
    @Test(arguments: Engine.available)
    func staffCancelSeveralOfOneUsersReservationsAtTheirLandmark(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let staff = try await h.newUser("batcher", Role.staffHere.access)
            func book(_ token: String, _ landmark: String = Fixture.goldenGate) async throws -> String {
                try #require(try await h.reserve(token, landmark: landmark)["id"] as? String)
            }
            let (first, second, third) = (try await book(h.alice), try await book(h.alice), try await book(h.alice))
            let (bobs, elsewhere, own) = (
                try await book(h.bob), try await book(h.alice, Fixture.halfDome), try await book(staff)
            )
            func cancel(_ ids: [String]) async throws -> Reply {
                let body = #"{"ids":[\#(ids.map { "\"\($0)\"" }.joined(separator: ","))]}"#
                return try await h.call(.post, "/reservations/cancel", token: staff, body: body)
            }
            func status(_ id: String, _ token: String) async throws -> String? {
                try await h.call(.get, "/reservations/\(id)", token: token).object["status"] as? String
            }
            let both = try await cancel([first, second])
            #expect(both.status == .ok, "\(both.text)")
            #expect(try await status(first, h.alice) == "cancelled")
            #expect(try await status(second, h.alice) == "cancelled")
            let cases: [(ids: [String], status: HTTPResponse.Status, reason: String)] = [
                ([third, bobs], .badRequest, "these reservations are 2 users'"),
                ([own, third], .badRequest, "these reservations are 2 users'"),
                ([third, elsewhere], .notFound, elsewhere),
            ]
            for item in cases {
                let reply = try await cancel(item.ids)
                #expect(reply.status == item.status, "\(item.ids): \(reply.text)")
                #expect(reply.reason?.contains(item.reason) == true, "\(item.ids): \(reply.text)")
            }
            #expect(try await status(third, h.alice) == "confirmed", "refused batches changed nothing")
            #expect(try await status(elsewhere, h.alice) == "confirmed")
            #expect(try await status(bobs, h.bob) == "confirmed")
            #expect(try await status(own, staff) == "confirmed")
        }
    }

    /// The last admin cannot be made something else; with another admin, they can. On PostgreSQL
    /// the tests share one database, whose other tests make admins meanwhile: there only the
    /// demotion beside another admin is checked (the last one on a fresh database: memory, SQLite,
    /// and `UserCommandTests` through the command line).
    @Test(arguments: Engine.available)
    func theLastAdminStays(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let suffix = UUID().uuidString.prefix(8)
            let tokens = h.store.tokens
            let existing = engine == .postgres ? 1 : try await tokens.users().filter { $0.access.role == .admin }.count
            #expect(engine == .postgres || existing == 0, "a fresh database has no admin")
            if engine == .postgres {
                _ = try await tokens.setAccess(
                    "other-admin-\(suffix)", UserAccess(role: .admin), create: true, mustBeNew: true)
            }
            let first = "first-admin-\(suffix)"
            #expect(
                try await tokens.setAccess(first, UserAccess(role: .admin), create: true, mustBeNew: true)
                    == .changed(before: nil))
            #expect(
                try await tokens.setAccess(first, .member, create: false, mustBeNew: false)
                    == (existing == 0 ? .lastAdmin : .changed(before: UserAccess(role: .admin))))
            if existing == 0 {
                #expect(try await tokens.users().first { $0.name == first }?.access.role == .admin)
                let second = "second-admin-\(suffix)"
                _ = try await tokens.setAccess(second, UserAccess(role: .admin), create: true, mustBeNew: true)
                #expect(
                    try await tokens.setAccess(first, .member, create: false, mustBeNew: false)
                        == .changed(before: UserAccess(role: .admin)))
                #expect(try await tokens.setAccess(second, .member, create: false, mustBeNew: false) == .lastAdmin)
            }
            #expect(
                try await tokens.setAccess("nobody-\(suffix)", .member, create: false, mustBeNew: false) == .unknownUser
            )
            #expect(try await tokens.setAccess(first, .member, create: true, mustBeNew: true) == .exists)
        }
    }
}

extension Harness {
    /// What a token grants, as the server reads it.
    func grant(_ token: String) async throws -> TokenGrant? { try await store.tokens.grant(Token.hash(token)) }

    /// A token of a new user (named `prefix` and a fresh suffix) with `access`.
    func newUser(_ prefix: String, _ access: UserAccess) async throws -> String {
        let name = "\(prefix)-\(UUID().uuidString.prefix(8))"
        _ = try await store.tokens.setAccess(name, access, create: true, mustBeNew: true)
        let token = Token.generate()
        _ = try await store.tokens.create(NewToken(name: name, hash: Token.hash(token)))
        return token
    }

    /// `token` once its user is made an admin (`resv-server user set NAME --role admin`), before
    /// the token is first used (the server reads a user's role with their token).
    func admin(_ token: String) async throws -> String {
        let user = try #require(try await grant(token)).user
        let name = try #require(try await store.tokens.name(user))
        _ = try await store.tokens.setAccess(name, UserAccess(role: .admin), create: false, mustBeNew: false)
        return token
    }
}
