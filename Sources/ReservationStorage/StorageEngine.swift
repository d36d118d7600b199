import Foundation
import ReservationCore

/// One storage engine of the server: a type per database (`SQLiteEngine`,
/// `PostgresEngine`, and the tests' `MemoryEngine`) with one method per operation, holding the
/// operation's query. It stores; the rules are `Booking`'s, run inside
/// `transact`. Every call is scoped to one user, except `parties`, `manifest`,
/// `waitlists` and `purgeKeys`. The server holds it in a `ServerStore`, beside the parts
/// every engine shares (the change signal, the cursor key, the probe).
///
/// Adding an operation: a requirement here, a method in each engine
/// (`SQLite/SQLiteStore.swift`, `Postgres/PostgresEngine.swift`, and
/// `Tests/MemoryEngine/MemoryStore.swift`), a forwarding method in `Abandoning`
/// (`Postgres/Abandonable.swift`) and in `ServerStore`, and in the tests'
/// doubles that wrap an engine.
public protocol StorageEngine: Sendable {
    /// The user's reservations as stored, by date.
    func list(_ user: UserID) async throws -> [ReservationApiModel]
    func get(_ user: UserID, _ id: Reservation.ID) async throws -> ReservationApiModel?
    /// Any user's reservation of this id, with its owner: for a manager acting on it (`RouteBackend.owner`).
    func locate(_ id: Reservation.ID) async throws -> (owner: UserID, record: ReservationApiModel)?
    /// Date and party size of every user's reservations at a landmark in [from, to) that take places at `now`.
    func parties(_ landmark: Landmark.ID, _ from: Date, _ to: Date, _ now: Date) async throws
        -> [(date: Date, partySize: Int)]
    /// Every user's reservations at a landmark in [from, to), whatever their status, each with
    /// its owner's name, by date then id: a day's manifest (`resv day`).
    func manifest(_ landmark: Landmark.ID, _ from: Date, _ to: Date) async throws
        -> [(user: String, record: ReservationApiModel)]
    /// The landmark's days' own rules (`DayRule`) from `from` through `to`: a read, for availability.
    func dayRules(_ landmark: Landmark.ID, _ from: CalendarDay, _ to: CalendarDay) async throws -> [DayRule]
    /// The ids on each day's waitlist (every user's), in the list's order: a read, for positions.
    func waitlists(_ days: [BookingDay]) async throws -> [BookingDay: [String]]
    /// The catalog as stored (`StoredCatalog`) when its version is neither `version` nor 0
    /// (no landmark stored); nil when it is: a read, for the catalog an instance keeps.
    func catalog(newerThan version: Int64) async throws -> StoredCatalog?
    /// One change of the stored catalog, in one write transaction, alone against every
    /// other change and every booking's transaction (which reads the catalog): `edit` is
    /// given the catalog as stored and gives the records to write, each numbered one
    /// version higher; nothing is written when it gives none or throws. Returns the
    /// catalog as it is after.
    func changeCatalog(_ edit: @escaping @Sendable (StoredCatalog) throws -> [CatalogWrite]) async throws
        -> StoredCatalog
    /// The response kept for this user's key, if any (a read; `transact` checks again under the key's lock).
    func storedResponse(_ user: UserID, _ key: String) async throws -> StoredResponse?
    /// Runs `work` in one write transaction of the user's, with the catalog
    /// in force in it (the stored one, read in the transaction, when its version is
    /// not `catalog`'s; `catalog` when none is stored): all of it lands, or nothing (a refusal rolls
    /// back). With an idempotency key: a replay when the key was used before,
    /// else the answer `work` gives to keep is kept for it in the same transaction.
    func transact(
        _ user: UserID, _ catalog: LandmarkCatalog, _ key: IdempotencyKey?, _ work: @escaping ServerStore.Work
    )
        async throws -> Written<any Sendable>
    /// The user's changes, newest first: every one, or one reservation's; the newest `limit` when given.
    func history(_ user: UserID, _ id: Reservation.ID?, _ limit: Int?) async throws -> [HistoryEntry]
    /// Deletes idempotency keys older than the date; returns how many.
    func purgeKeys(_ olderThan: Date) async throws -> Int
    func close() async throws
    /// The user's changes numbered after `after`, oldest first, at most `limit`,
    /// each with its number: 1, 2, 3… in the order they committed, so none can
    /// still appear below a number served (the feed never skips; docs/feed.md).
    func changes(_ user: UserID, _ after: Int64, _ limit: Int) async throws -> [(sequence: Int64, entry: HistoryEntry)]
    /// The number of the user's newest change; 0 when none.
    func newestChange(_ user: UserID) async throws -> Int64
    /// The number of the user's newest change at or before `history.seq` value
    /// `sequence`: what a cursor from before schema 7 (which carried `seq`) is now.
    func positionAfter(_ user: UserID, _ sequence: Int64) async throws -> Int64
}

/// An engine that decides a landmark-day's bookings in groups (`DayGroups`):
/// SQLite's (its one writer) and PostgreSQL's. The memory engine, one write at
/// a time anyway, is not one.
public protocol DayGrouping: StorageEngine {
    /// Runs several users' `work`s on one landmark-day in one write transaction
    /// (group commit, `DayGroups`): the day locked and settled once, each work
    /// run in order against the day as the ones before it left it, each with its
    /// own outcome (a refusal leaves nothing of its own), all accepted written and
    /// committed together. `more` gives the requests that arrived since (once the
    /// day is locked: a group grows while it waits for the day); an outcome of nil
    /// is a request that could not join (a lock of its own held elsewhere), to
    /// wait for the next group.
    func transactDay(
        _ day: BookingDay, _ catalog: LandmarkCatalog, _ requests: [DayRequest],
        _ more: @escaping @Sendable () -> [DayRequest]
    ) async throws -> [DayOutcome?]
}

/// An engine other processes write to as well (PostgreSQL): it hears their commits.
public protocol ChangeListening: StorageEngine {
    /// Rings the store's signal for other processes' commits until cancelled.
    func listen() async throws
}

/// The token calls an operator and the authentication need, one type per
/// engine (`SQLiteTokens`, `PostgresTokens`, the tests' `MemoryTokens`; `ServerStore.tokens`).
/// Tokens are kept only as their SHA-256.
public protocol TokenStore: Sendable {
    /// Adds a token (by its hash) for its user, creating the user when new.
    func create(_ token: NewToken) async throws -> UserID
    /// What a token hash grants, expired or not; nil when unknown or revoked.
    func grant(_ tokenHash: String) async throws -> TokenGrant?
    /// Every token, by user name and then age.
    func list() async throws -> [TokenInfo]
    /// Deletes the user `name`'s token of public id `id`, or every one of theirs
    /// when `id` is nil; returns how many there were.
    func revoke(_ name: String, _ id: String?) async throws -> Int
    /// Notes that the token was used at `date` (at most once a minute is kept).
    func touch(_ tokenHash: String, _ date: Date) async throws
    /// A user's name.
    func name(_ user: UserID) async throws -> String?
    /// The user of this name; nil when there is none.
    func user(named name: String) async throws -> UserID?
    /// Sets the user `name`'s role and landmarks, creating the user when new if `create`, refusing an
    /// existing one if `mustBeNew`; refuses (`lastAdmin`) a change that leaves no admin where there was
    /// one. One transaction: two changes at once cannot both remove the last admins.
    func setAccess(_ name: String, _ access: UserAccess, create: Bool, mustBeNew: Bool) async throws -> AccessChange
    /// Every user, by name.
    func users() async throws -> [UserInfo]
    /// A cheap query, for `/health`: throws when the database cannot answer.
    func ping() async throws
}

/// The calendar secrets, one type per engine (`ServerStore.calendars`), as
/// `TokenStore` is for tokens. A secret is the only key to a read-only feed of
/// one user's reservations. It is kept as given, not hashed like a token: `resv
/// calendar url` prints the same address again, and whoever can read the table
/// can read the reservations the feed shows anyway. Never logged.
public protocol CalendarStore: Sendable {
    /// The user's secret; when there is none, one is made and kept if `make`, else nil.
    func secret(_ user: UserID, _ make: Bool) async throws -> CalendarSecret?
    /// Replaces the user's secret with a new one (made if there was none): the
    /// old one opens nothing from the moment this returns.
    func reset(_ user: UserID) async throws -> CalendarSecret
    /// Whose secret this is; nil for none.
    func owner(_ secret: String) async throws -> CalendarOwner?
}
