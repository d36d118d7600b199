import Crypto
import Foundation
import ReservationCore
import Synchronization

/// Bearer tokens: 32 random bytes as text, stored only as their SHA-256.
/// (A token is random and long, so a fast hash is enough: there is nothing
/// to guess that a slow hash would protect.)
public enum Token {
    /// A new token, `resv_` and 64 hex digits.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        return "resv_" + Hex.string((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// What the database keeps of a token.
    public static func hash(_ token: some StringProtocol) -> String {
        Hex.string(SHA256.hash(data: Array(token.utf8)))
    }
}

/// Token hash → user, remembered for `lifetime` at most, so a token revoked
/// (or expired) on any instance stops working here within that time. Misses
/// always ask the store (a token created since). A lookup that goes to the
/// store also notes the token's last use, at most once a minute per token.
public final class TokenCache: Sendable {
    /// How long a found token is trusted before the store is asked again.
    /// Measured (BENCHMARKS.md): asking on every request costs GET /reservations
    /// little on SQLite, but the default keeps revocation well inside 5 s.
    public static let defaultLifetime: Duration = .seconds(2)

    private struct Entry {
        var grant: TokenGrant
        var checked: Date
    }

    private let tokens: TokenStore
    private let lifetime: Duration
    private let known = Mutex<[String: Entry]>([:])
    /// When this process last wrote each token's last use.
    private let touched = Mutex<[String: Date]>([:])

    /// The time, handed in: a token's expiry, and how long a found one is trusted.
    private let now: @Sendable () -> Date

    public init(
        store: ServerStore, lifetime: Duration = TokenCache.defaultLifetime, now: @escaping @Sendable () -> Date
    ) {
        tokens = store.tokens
        self.now = now
        self.lifetime = lifetime
    }

    public func user(for token: some StringProtocol) async throws -> UserID? {
        guard !token.isEmpty, token.utf8.count <= 512 else { return nil }
        let hash = Token.hash(token)
        let date = now()
        if let entry = known.withLock({ $0[hash] }), Self.age(since: entry.checked, at: date) < lifetime {
            return Self.valid(entry.grant, at: date)
        }
        guard let grant = try await tokens.grant(hash), let user = Self.valid(grant, at: date) else {
            _ = known.withLock { $0.removeValue(forKey: hash) }
            return nil
        }
        known.withLock { entries in
            // Bounded: a flood of distinct tokens cannot grow it without end.
            if entries.count >= 10_000 { entries.removeAll(keepingCapacity: true) }
            entries[hash] = Entry(grant: grant, checked: date)
        }
        noteUse(hash, date: date)
        return user
    }

    /// How long ago `then` was; a clock set back makes it old at once, never young for longer.
    private static func age(since then: Date, at date: Date) -> Duration {
        let seconds = date.timeIntervalSince(then)
        return seconds < 0 || seconds > 86_400 ? .seconds(86_400) : .milliseconds(Int64(seconds * 1000))
    }

    private static func valid(_ grant: TokenGrant, at date: Date) -> UserID? {
        if let expiry = grant.expiresAt, expiry <= date { return nil }
        return grant.user
    }

    /// Writes the last use in the background: a request never waits for it.
    private func noteUse(_ hash: String, date: Date) {
        let due = touched.withLock { last -> Bool in
            if let previous = last[hash], Self.age(since: previous, at: date) < .seconds(TokenStore.touchResolution) {
                return false
            }
            if last.count >= 10_000 { last.removeAll(keepingCapacity: true) }
            last[hash] = date
            return true
        }
        guard due else { return }
        let tokens = tokens
        Task { try? await tokens.touch(hash, date) }
    }
}
