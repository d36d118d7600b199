import Foundation
import ReservationCore
import ReservationStorage

/// The memory engine's tokens.
struct MemoryTokens: TokenStore {
    let state: MemoryState
    let now: @Sendable () -> Date

    func create(_ token: NewToken) async throws -> UserID {
        state.withLock { data in
            let user = data.user(named: token.name, at: now())
            data.tokens[token.hash] = (
                TokenGrant(user: user, scope: token.scope, expiresAt: token.expiresAt),
                TokenInfo(
                    id: token.id, user: token.name, scope: token.scope, createdAt: now(), lastUsedAt: nil,
                    expiresAt: token.expiresAt)
            )
            return user
        }
    }

    func grant(_ hash: String) async throws -> TokenGrant? {
        state.withLock { data in
            guard var grant = data.tokens[hash]?.grant else { return nil }
            grant.name = data.names[grant.user]
            grant.tokenID = data.tokens[hash]?.info.id
            grant.access = data.access[grant.user] ?? .member
            return grant
        }
    }

    func list() async throws -> [TokenInfo] {
        state.withLock { data in
            data.tokens.values.map { $0.info }.sorted {
                ($0.user, $0.createdAt, $0.id) < ($1.user, $1.createdAt, $1.id)
            }
        }
    }

    func revoke(_ name: String, _ id: String?) async throws -> Int {
        state.withLock { data in
            let revoked = data.tokens.filter {
                $0.value.info.user == name && (id == nil || $0.value.info.id == id)
            }
            .map { $0.key }
            for hash in revoked { data.tokens[hash] = nil }
            return revoked.count
        }
    }

    func touch(_ hash: String, _ date: Date) async throws {
        state.withLock { data in
            guard let last = data.tokens[hash]?.info.lastUsedAt else {
                if data.tokens[hash] != nil { data.tokens[hash]?.info.lastUsedAt = date }
                return
            }
            if last < date.addingTimeInterval(-TokenRows.touchResolution) {
                data.tokens[hash]?.info.lastUsedAt = date
            }
        }
    }

    func name(_ user: UserID) async throws -> String? {
        state.withLock { $0.names[user] }
    }

    func user(named name: String) async throws -> UserID? { state.withLock { $0.users[name] } }

    func setAccess(_ name: String, _ access: UserAccess, create: Bool, mustBeNew: Bool) async throws -> AccessChange {
        state.withLock { data in
            let found = data.users[name]
            if found == nil && !create { return .unknownUser }
            if found != nil && mustBeNew { return .exists }
            let before = found.map { data.access[$0] ?? .member }
            if before?.role == .admin, access.role != .admin,
                data.access.values.count(where: { $0.role == .admin }) <= 1
            {
                return .lastAdmin
            }
            data.access[data.user(named: name, at: now())] = access
            return .changed(before: before)
        }
    }

    func users() async throws -> [UserInfo] {
        state.withLock { data in
            data.users.map { name, user in
                UserInfo(
                    name: name, access: data.access[user] ?? .member, createdAt: data.createdAt[user] ?? .distantPast,
                    tokens: data.tokens.values.count { $0.grant.user == user })
            }.sorted { $0.name < $1.name }
        }
    }

    func ping() async throws {}
}

/// The memory engine's calendars.
struct MemoryCalendars: CalendarStore {
    let state: MemoryState
    let now: @Sendable () -> Date

    func secret(_ user: UserID, _ make: Bool) async throws -> CalendarSecret? {
        state.withLock { data in
            if let found = data.calendars[user] { return found }
            guard make else { return nil }
            let made = CalendarSecret(secret: CalendarSecret.newSecret(), createdAt: Timestamp.whole(now()))
            data.calendars[user] = made
            return made
        }
    }

    func reset(_ user: UserID) async throws -> CalendarSecret {
        state.withLock { data in
            let made = CalendarSecret(secret: CalendarSecret.newSecret(), createdAt: Timestamp.whole(now()))
            data.calendars[user] = made
            return made
        }
    }

    func owner(_ secret: String) async throws -> CalendarOwner? {
        state.withLock { data in
            data.calendars.first { $0.value.secret == secret }.map {
                CalendarOwner(user: $0.key, createdAt: $0.value.createdAt, changedAt: data.changedAt[$0.key])
            }
        }
    }
}
