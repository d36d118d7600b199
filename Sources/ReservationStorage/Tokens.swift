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

    /// A new token's public id: 8 hex digits of 4 random bytes of their own, so
    /// nothing of the token or its hash can be learnt from it (`token list`,
    /// `token revoke --id`). Tokens made before schema 11 took the first 8 hex
    /// digits of their hash (32 of its 256 bits: no help in finding the token).
    public static func publicID() -> String {
        var generator = SystemRandomNumberGenerator()
        return Hex.string((0..<4).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// Whether `text` has the shape of a public id (8 lowercase hex digits).
    public static func isPublicID(_ text: String) -> Bool {
        text.utf8.count == 8 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}

/// What a token may do (`token create --scope`): `write`, everything (what every
/// token could before scopes); `read`, the reads only; `calendar`, only make and
/// reset its user's calendar address (and `GET /whoami`). Which scope may call
/// which route is `RouteScopes` (ReservationServer), in one table.
public enum TokenScope: String, CaseIterable, Sendable, Hashable {
    case read, write, calendar
}

/// Token hash → its grant (user, scope, expiry), remembered for `lifetime` at most, so a token revoked
/// (or expired) on any instance stops working here within that time. Misses
/// always ask the store (a token created since). A lookup that goes to the
/// store also notes the token's last use, at most once a minute per token.
public final class TokenCache: Sendable {
    /// How long a found token is trusted before the store is asked again: a
    /// token revoked (or expired) on one instance stops on every instance within
    /// it (docs/contracts.md, "Server operations"). Measured (BENCHMARKS.md):
    /// asking on every request costs GET /reservations little on SQLite.
    public static let defaultLifetime: Duration = .seconds(1)

    private struct Entry {
        var grant: TokenGrant
        var checked: Date
    }

    private let tokens: any TokenStore
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

    /// The user of `token`; nil when it is unknown, revoked or expired.
    public func user(for token: some StringProtocol) async throws -> UserID? {
        try await grant(for: token)?.user
    }

    /// What `token` grants (its user and scope); nil when it is unknown, revoked or expired.
    public func grant(for token: some StringProtocol) async throws -> TokenGrant? {
        guard !token.isEmpty, token.utf8.count <= 512 else { return nil }
        let hash = Token.hash(token)
        let date = now()
        if let entry = known.withLock({ $0[hash] }), Self.age(since: entry.checked, at: date) < lifetime {
            return Self.valid(entry.grant, at: date)
        }
        guard let grant = try await tokens.grant(hash), let valid = Self.valid(grant, at: date) else {
            _ = known.withLock { $0.removeValue(forKey: hash) }
            return nil
        }
        known.withLock { entries in
            // Bounded: a flood of distinct tokens cannot grow it without end.
            if entries.count >= 10_000 { entries.removeAll(keepingCapacity: true) }
            entries[hash] = Entry(grant: grant, checked: date)
        }
        noteUse(hash, date: date)
        return valid
    }

    /// How long ago `then` was; a clock set back makes it old at once, never young for longer.
    private static func age(since then: Date, at date: Date) -> Duration {
        let seconds = date.timeIntervalSince(then)
        return seconds < 0 || seconds > 86_400 ? .seconds(86_400) : .milliseconds(Int64(seconds * 1000))
    }

    private static func valid(_ grant: TokenGrant, at date: Date) -> TokenGrant? {
        if let expiry = grant.expiresAt, expiry <= date { return nil }
        return grant
    }

    /// Writes the last use in the background: a request never waits for it.
    private func noteUse(_ hash: String, date: Date) {
        let due = touched.withLock { last -> Bool in
            if let previous = last[hash], Self.age(since: previous, at: date) < .seconds(TokenRows.touchResolution) {
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

/// User names as the server takes and prints them. A name is kept as given, but
/// one with a control character (C0, DEL, C1: a line break, an escape sequence)
/// is refused at `token create`, and any stored before is printed escaped, so a
/// name can never forge a line of a log or move a terminal's cursor.
public enum UserName {
    /// Whether `name` holds a control character (Unicode category Cc: C0, DEL and C1).
    public static func hasControlCharacters(_ name: String) -> Bool {
        name.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// `name` with each control character escaped as Swift writes it (`\r`, `\u{1B}`).
    public static func printable(_ name: String) -> String {
        var text = ""
        for scalar in name.unicodeScalars {
            if scalar.properties.generalCategory == .control {
                text += scalar.escaped(asASCII: true)
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }
}
