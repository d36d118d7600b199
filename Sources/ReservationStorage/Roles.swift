import Foundation
import ReservationCore

/// A server user's role (docs/contracts.md, "Roles"): `member`, what every user
/// was before roles (their own reservations only); `staff` of named landmarks
/// (every user's reservations there); `admin` (every user's, everywhere).
public enum UserRole: String, CaseIterable, Sendable, Hashable {
    case member, staff, admin
}

/// A user's role and, for staff, the landmarks they manage.
public struct UserAccess: Sendable, Hashable {
    public var role: UserRole
    /// The landmarks a `staff` user manages; empty for the other roles.
    public var landmarks: Set<Landmark.ID>

    public init(role: UserRole = .member, landmarks: Set<Landmark.ID> = []) {
        self.role = role
        self.landmarks = role == .staff ? landmarks : []
    }

    public static let member = UserAccess()

    /// Whether this user may manage `landmark`: its staff, and admins.
    public func manages(_ landmark: Landmark.ID) -> Bool {
        switch role {
        case .admin: true
        case .staff: landmarks.contains(landmark)
        case .member: false
        }
    }

    /// The landmarks as stored: their ids, sorted, one space between.
    var storedLandmarks: String { landmarks.map(\.description).sorted().joined(separator: " ") }

    /// Reads a stored role and landmarks; a role this server does not know is a corrupt row, never a grant.
    init(stored role: String?, landmarks: String?) throws {
        guard let role, let known = UserRole(rawValue: role) else {
            throw DatabaseError.corruptRow("a user of an unknown role \(role ?? "(none)")")
        }
        let ids = try (landmarks ?? "").split(separator: " ").map { text in
            guard let id = Landmark.ID(String(text)) else {
                throw DatabaseError.corruptRow("a staff landmark that is not an id: \(text.prefix(64))")
            }
            return id
        }
        self.init(role: known, landmarks: Set(ids))
    }
}

/// A user as `resv-server user list` shows them.
public struct UserInfo: Sendable, Hashable {
    public var name: String
    public var access: UserAccess
    public var createdAt: Date
    /// How many tokens they hold.
    public var tokens: Int

    public init(name: String, access: UserAccess, createdAt: Date, tokens: Int) {
        self.name = name
        self.access = access
        self.createdAt = createdAt
        self.tokens = tokens
    }
}

/// What `TokenStore.setAccess` did.
public enum AccessChange: Sendable, Hashable {
    /// Done: the user's role and landmarks before.
    case changed(before: UserAccess?)
    /// `create` was false and there is no user of that name.
    case unknownUser
    /// `mustBeNew` was true and the user exists.
    case exists
    /// Refused: the change would leave the server without an admin (it had one).
    case lastAdmin
}

/// What every engine's user rows share.
enum UserRows {
    /// The columns `users()` reads, in both engines.
    static let listQuery = """
        SELECT users.name, users.role, users.landmarks, users.created_at,
        (SELECT COUNT(*) FROM tokens WHERE tokens.user_id = users.id) AS token_count
        FROM users ORDER BY users.name
        """
}
