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

/// Tokens as the routes see them, on a clock the test moves: an expired token
/// is refused at its expiry, and a revoked one within the cache's lifetime. The clock
/// starts on a whole second and moves by halves, so every time is exact in a `Double`.
@Suite("Token routes", .timeLimit(.minutes(30)))
struct TokenRouteTests {
    @Test(arguments: Engine.available)
    func aTokenStopsAtItsExpiry(engine: Engine) async throws {
        let clock = TestClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        try await withHarness(engine, now: clock.now) { h in
            let token = Token.generate()
            _ = try await h.store.tokens.create(
                NewToken(
                    name: "short-\(UUID().uuidString.prefix(8))", hash: Token.hash(token), scope: .read,
                    expiresAt: clock.now().addingTimeInterval(3)))
            #expect(try await h.call(.get, "/whoami", token: token).status == .ok)
            clock.advance(by: 2.5)
            #expect(try await h.call(.get, "/whoami", token: token).status == .ok, "still valid, and cached")
            clock.advance(by: 0.5)
            let expired = try await h.call(.get, "/whoami", token: token)
            #expect(expired.status == .unauthorized, "at its expiry, though the cache still holds it")
            #expect(try await h.call(.get, "/reservations", token: token).status == .unauthorized)
            #expect(try await h.call(.get, "/whoami", token: h.alice).status == .ok, "a token without expiry lasts")
        }
    }

    @Test(arguments: Engine.available)
    func aRevokedTokenStopsWithinTheCachesLifetime(engine: Engine) async throws {
        let clock = TestClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        try await withHarness(engine, now: clock.now) { h in
            let token = Token.generate()
            let name = "revoked-\(UUID().uuidString.prefix(8))"
            _ = try await h.store.tokens.create(NewToken(name: name, hash: Token.hash(token)))
            #expect(try await h.call(.get, "/whoami", token: token).status == .ok)
            #expect(try await h.store.tokens.revoke(name, nil) == 1)
            // Trusted from the cache for its lifetime (1 s) at most, then asked again.
            clock.advance(by: 0.5)
            #expect(try await h.call(.get, "/whoami", token: token).status == .ok)
            clock.advance(by: 0.5)
            #expect(try await h.call(.get, "/whoami", token: token).status == .unauthorized)
            // A clock set back does not make the cache trust an old answer longer.
            _ = try await h.store.tokens.create(NewToken(name: name, hash: Token.hash(token)))
            #expect(try await h.call(.get, "/whoami", token: token).status == .ok)
            #expect(try await h.store.tokens.revoke(name, nil) == 1)
            clock.advance(by: -60)
            #expect(try await h.call(.get, "/whoami", token: token).status == .unauthorized)
        }
    }

    /// `token revoke NAME --id ID`: that token stops (within the cache's second), the user's other goes on.
    @Test(arguments: Engine.available)
    func revokingOneTokenOfTwoLeavesTheOther(engine: Engine) async throws {
        let clock = TestClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        try await withHarness(engine, now: clock.now) { h in
            let name = "two-\(UUID().uuidString.prefix(8))"
            let first = NewToken(name: name, hash: Token.hash(Token.generate()))
            let (one, two) = (Token.generate(), Token.generate())
            let kept = NewToken(name: name, hash: Token.hash(two), scope: .read)
            let revoked = NewToken(name: name, hash: Token.hash(one), id: first.id)
            _ = try await h.store.tokens.create(revoked)
            _ = try await h.store.tokens.create(kept)
            #expect(try await h.call(.get, "/reservations", token: one).status == .ok)
            #expect(try await h.call(.get, "/reservations", token: two).status == .ok)
            #expect(try await h.store.tokens.revoke(name, "00000000") == 0, "an unknown id revokes nothing")
            #expect(try await h.store.tokens.revoke("nobody-\(name)", revoked.id) == 0, "another user's id: nothing")
            #expect(try await h.store.tokens.revoke(name, revoked.id) == 1)
            clock.advance(by: 1)
            #expect(try await h.call(.get, "/reservations", token: one).status == .unauthorized)
            #expect(try await h.call(.get, "/reservations", token: two).status == .ok)
            let listed = try await h.store.tokens.list().filter { $0.user == name }
            #expect(listed.map(\.id) == [kept.id] && listed.map(\.scope) == [.read])
        }
    }

    /// Two instances on one database (a second router and token cache on the same SQLite
    /// file or PostgreSQL database): a token revoked through one stops at the other
    /// once the clock has moved by a second, as does one that expires.
    @Test(arguments: Engine.available.filter { $0 != .memory })
    func aRevocationReachesEveryInstanceWithinASecond(engine: Engine) async throws {
        let clock = TestClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        try await withHarness(engine, now: clock.now) { h in
            let name = "shared-\(UUID().uuidString.prefix(8))"
            let token = Token.generate()
            let expiring = Token.generate()
            _ = try await h.store.tokens.create(NewToken(name: name, hash: Token.hash(token)))
            _ = try await h.store.tokens.create(
                NewToken(name: name + "-x", hash: Token.hash(expiring), expiresAt: clock.now().addingTimeInterval(10)))
            let logger = Logger(label: "second") { _ in SwiftLogNoOpLogHandler() }
            try await Database.withStore(h.database, logger: logger, connections: 2, now: clock.now) { store in
                let app = Application(router: buildRouter(store: store, now: clock.now), logger: logger)
                try await app.test(.router) { (second: any TestClientProtocol) async throws in
                    #expect(try await Self.status(h.client, token) == .ok)
                    #expect(try await Self.status(second, token) == .ok)
                    #expect(try await Self.status(second, expiring) == .ok)
                    #expect(try await Self.status(h.client, expiring) == .ok)
                    #expect(try await store.tokens.revoke(name, nil) == 1, "revoked through the second instance")
                    clock.advance(by: 1)
                    #expect(
                        try await Self.status(h.client, token) == .unauthorized, "the first instance knows within 1 s")
                    #expect(try await Self.status(second, token) == .unauthorized)
                    #expect(try await Self.status(h.client, expiring) == .ok)
                    clock.advance(by: 9)
                    #expect(try await Self.status(h.client, expiring) == .unauthorized, "expired on the held clock")
                    #expect(try await Self.status(second, expiring) == .unauthorized)
                }
            }
        }
    }

    /// What `GET /whoami` with `token` answers on `client`'s router.
    static func status(_ client: any TestClientProtocol, _ token: String) async throws -> HTTPResponse.Status {
        try await client.executeRequest(
            uri: "/whoami", method: .get, headers: [.authorization: "Bearer \(token)"], body: nil
        ).status
    }

    /// A token's bucket: `perSecond` requests at once, then a wait of whole seconds, refilled as time passes.
    @Test func theRateLimiterRefillsAsTimePasses() throws {
        let limiter = RateLimiter(try #require(RateLimit(perSecond: 2)))
        let start = ContinuousClock.now
        #expect(limiter.take("a", now: start) == nil)
        #expect(limiter.take("a", now: start) == nil)
        #expect(limiter.take("a", now: start) == 1)
        #expect(limiter.take("b", now: start) == nil, "another token has its own bucket")
        #expect(limiter.take("a", now: start + .milliseconds(400)) == 1)
        #expect(limiter.take("a", now: start + .milliseconds(500)) == nil, "half a second refills one")
        #expect(limiter.take("a", now: start + .milliseconds(500)) == 1)
        #expect(limiter.take("a", now: start + .seconds(10)) == nil, "a long pause refills only to the burst")
        #expect(limiter.take("a", now: start + .seconds(10)) == nil)
        #expect(limiter.take("a", now: start + .seconds(10)) == 1)
    }
}
