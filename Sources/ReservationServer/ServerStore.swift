import Foundation
import ReservationCore

/// A user of the server: every token belongs to one, and every reservation.
public struct UserID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int64
    public init(_ rawValue: Int64) { self.rawValue = rawValue }
    public var description: String { String(rawValue) }
}

/// A reservation as the server stores and serves it: the wire fields of
/// `ReservationApiModel`, all present and valid, written by the server itself.
public struct StoredReservation: Sendable, Hashable {
    public var id: Reservation.ID
    public var landmarkID: Landmark.ID
    /// ISO 8601 in UTC, as `DateTime.format` writes it.
    public var date: String
    public var partySize: Int
    public var status: Reservation.Status
    public var note: String?
    /// Seconds since 1970, whole: when it was made and last changed.
    public var createdAt: Double
    public var updatedAt: Double
    /// 1 when created (and for rows older than versions); one more with every change.
    public var version: Int

    public init(
        id: Reservation.ID, landmarkID: Landmark.ID, date: String, partySize: Int, status: Reservation.Status,
        note: String? = nil, createdAt: Double = 0, updatedAt: Double = 0, version: Int = 1
    ) {
        self.id = id
        self.landmarkID = landmarkID
        self.date = date
        self.partySize = partySize
        self.status = status
        self.note = note
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.version = version
    }
}

/// A checked create request, ready to store.
public struct NewRecord: Sendable {
    public var reservation: StoredReservation
    /// The date as seconds since 1970, for the capacity sums.
    public var startsAt: Double
    /// The landmark's daily limit and the day this reservation counts against, when it has one.
    public var capacity: CapacityCheck?
}

/// The capacity rule for one create: at most `limit` people at this landmark in [day.start, day.end).
public struct CapacityCheck: Sendable {
    public var limit: Int
    public var day: Capacity.Day
}

/// An `Idempotency-Key` and the hash of the request it came with.
public struct IdempotencyKey: Sendable, Hashable {
    public var key: String
    public var requestHash: String
}

/// A response kept for an idempotency key, replayed byte for byte.
public struct StoredResponse: Sendable, Hashable {
    public var status: Int
    public var body: [UInt8]
    public var requestHash: String
}

/// The server's storage, one value per database: a struct of closures with a
/// factory per engine (`SQLiteStore.open`, `PostgresStore.open`), like the
/// client's `ReservationService`. Every closure is scoped to one user, except
/// the token calls.
public struct ServerStore: Sendable {
    /// True when this process is the only writer (an SQLite file under its
    /// server lock), so reads may be cached between this process's writes.
    public var exclusive: Bool = false
    public var list: @Sendable (UserID) async throws -> [StoredReservation]
    public var get: @Sendable (UserID, Reservation.ID) async throws -> StoredReservation?
    /// Date and party size of every user's active reservations at a landmark in [from, to).
    public var parties: @Sendable (Landmark.ID, _ from: Date, _ to: Date) async throws -> [(date: Date, partySize: Int)]
    /// The response kept for this user's key, if any (a read; `create` checks again when it writes).
    public var storedResponse: @Sendable (UserID, _ key: String) async throws -> StoredResponse?
    /// Books `records` for the user, all or none, in one transaction: the
    /// idempotency key (a replay when it was used before), the capacity checks,
    /// the inserts, and `response` (the body of the answer) kept for the key.
    /// The rules are `Booking.create`'s.
    public var create:
        @Sendable (
            UserID, [NewRecord], IdempotencyKey?, _ response: @escaping @Sendable ([StoredReservation]) -> [UInt8]
        )
            async throws -> CreateOutcome
    /// Sets the status (cancelled or confirmed) of the user's reservations, all
    /// or none, in one transaction, by `Booking.setStatus`'s rules.
    public var setStatus: @Sendable (UserID, [Reservation.ID], Reservation.Status) async throws -> StatusOutcome
    /// Changes one of the user's reservations in one transaction, by `Booking.modify`'s
    /// rules; with an expected version, only if it still has that version.
    public var modify:
        @Sendable (UserID, Reservation.ID, ModifyRequest, _ expectedVersion: Int?) async throws
            -> ModifyOutcome
    /// The user's changes, newest first: every one, or one reservation's; the newest `limit` when given.
    public var history: @Sendable (UserID, Reservation.ID?, _ limit: Int?) async throws -> [HistoryEntry]
    /// Takes back the user's newest command not yet undone, in one transaction,
    /// by `Booking.undo`'s rules (the catalog gives the capacity of the days).
    public var undo: @Sendable (UserID, LandmarkCatalog) async throws -> UndoResult
    /// Deletes idempotency keys older than the date; returns how many.
    public var purgeKeys: @Sendable (_ olderThan: Date) async throws -> Int
    public var close: @Sendable () async throws -> Void
    /// Creating, listing, revoking and checking tokens, and the health check.
    public var tokens: TokenStore = .unavailable
}

/// Failures of the server's database (opening, schema, rows), with what to do next.
public enum DatabaseError: Error, LocalizedError, Sendable {
    case cannotOpen(String, String)
    case badDatabaseURL(String, String)
    case newerSchema(String, found: Int, supported: Int)
    case corruptRow(String)
    case inUse(String)

    public var errorDescription: String? {
        switch self {
        case .cannotOpen(let what, let why): "cannot open the database \(what): \(why)"
        case .badDatabaseURL(let url, let why): "'\(url)' is not a usable database URL: \(why)"
        case .newerSchema(let what, let found, let supported):
            "the database \(what) has schema version \(found), newer than this resv-server's \(supported): upgrade resv-server"
        case .corruptRow(let detail): "a stored row is not valid: \(detail)"
        case .inUse(let path): "another resv-server is serving \(path): stop it first, or give another --database"
        }
    }
}
