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

/// Token hash → user, remembered once found: tokens are never reassigned, so
/// a hit stays true; misses always ask the store (a token created since).
final class TokenCache: Sendable {
    private let store: ServerStore
    private let known = Mutex<[String: UserID]>([:])

    init(store: ServerStore) { self.store = store }

    func user(for token: some StringProtocol) async throws -> UserID? {
        guard !token.isEmpty, token.utf8.count <= 512 else { return nil }
        let hash = Token.hash(token)
        if let user = known.withLock({ $0[hash] }) { return user }
        guard let user = try await store.user(hash) else { return nil }
        known.withLock { $0[hash] = user }
        return user
    }
}
