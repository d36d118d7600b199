import CapacityModel
import Foundation
import HTTPTypes
import ReservationCore
import Testing

@testable import ReservationServer
@testable import ReservationStorage

/// Tokens as the routes see them, on a clock the test moves: an expired token
/// is refused at its expiry, and a revoked one within the cache's lifetime. The clock
/// starts on a whole second and moves by halves, so every time is exact in a `Double`.
@Suite("Token routes")
struct TokenRouteTests {
    @Test(arguments: Engine.available)
    func aTokenStopsAtItsExpiry(engine: Engine) async throws {
        let clock = TestClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        try await withHarness(engine, now: clock.now) { h in
            let token = Token.generate()
            _ = try await h.store.tokens.create(
                "short-\(UUID().uuidString.prefix(8))", Token.hash(token), clock.now().addingTimeInterval(3))
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
            _ = try await h.store.tokens.create(name, Token.hash(token), nil)
            #expect(try await h.call(.get, "/whoami", token: token).status == .ok)
            #expect(try await h.store.tokens.revoke(name) == 1)
            // Trusted from the cache for its lifetime (2 s) at most, then asked again.
            clock.advance(by: 1.5)
            #expect(try await h.call(.get, "/whoami", token: token).status == .ok)
            clock.advance(by: 0.5)
            #expect(try await h.call(.get, "/whoami", token: token).status == .unauthorized)
            // A clock set back does not make the cache trust an old answer longer.
            _ = try await h.store.tokens.create(name, Token.hash(token), nil)
            #expect(try await h.call(.get, "/whoami", token: token).status == .ok)
            #expect(try await h.store.tokens.revoke(name) == 1)
            clock.advance(by: -60)
            #expect(try await h.call(.get, "/whoami", token: token).status == .unauthorized)
        }
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
