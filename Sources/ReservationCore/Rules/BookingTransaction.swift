import Foundation

/// What an engine (the file store, memory, SQLite, PostgreSQL) supplies to the
/// booking rules: the reads and writes of one transaction, scoped to one user,
/// all of which land together or not at all. The rules themselves are written
/// once, in `Booking`; an engine only stores.
///
/// Locks: an engine with several writers (PostgreSQL) serialises what must not
/// interleave; one with a single writer (a locked file, SQLite's one
/// connection) needs nothing. `Booking` takes them in one order: the user's
/// history first, then reservations in id order, then days in `BookingDay`
/// order, so no two transactions wait on each other crosswise.
public protocol BookingTransaction {
    /// The landmarks requests are resolved in and records are mapped with.
    var catalog: LandmarkCatalog { get }
    /// Orders the user's changes against their undos until the transaction
    /// ends: shared for a change (they run side by side), exclusive for an
    /// undo, which so waits for the changes under way and holds off new ones.
    func lockHistory(exclusive: Bool) async throws
    /// The user's reservations with these ids (sorted, no repeats), each locked
    /// until the transaction ends, mapped or not; an id the user has no record of is absent.
    func recordsForUpdate(_ ids: [Reservation.ID]) async throws -> [Reservation.ID: StoredReservation]
    /// Of these ids (sorted, no repeats), those a reservation of any user has:
    /// a client's id another user's booking took is refused before the insert.
    func takenIDs(_ ids: [Reservation.ID]) async throws -> Set<Reservation.ID>
    /// Locks each day (given sorted, no repeats) until the transaction ends and
    /// counts the people booked there at `now`: every user's pending, confirmed
    /// and held reservations with a valid party size, a hold only until its
    /// `expiresAt` (`Reservation.takesPlaces(at:)`).
    func booked(_ days: [BookingDay], at now: Date) async throws -> [BookingDay: Int]
    /// Locks each day (given sorted, no repeats; the lock `booked` takes) until the
    /// transaction ends and reads its rule (`DayRule`: an override capacity, a
    /// closure); a day without one is absent. Read in the transaction that counts,
    /// so a booking is decided by the rule in force at its commit.
    func dayRules(_ days: [BookingDay]) async throws -> [BookingDay: DayRule]
    /// Stores these days' rules, each replacing the day's; an empty one (`DayRule.isEmpty`) removes it.
    func setDayRules(_ rules: [DayRule]) async throws
    /// Every user's reservations that take places at `now` on these days (locked
    /// by `booked` before), mapped or not, each locked, in the order they were
    /// booked (`createdAt`, then id); a day with none may be absent.
    func takingPlaces(_ days: [BookingDay], at now: Date) async throws -> [BookingDay: [StoredReservation]]
    /// Every user's waitlisted reservations on these days (locked by `booked`
    /// before), mapped or not, each locked, in the order they joined
    /// (`waitlistOrder`, then id); a day with none may be absent.
    func waitlisted(_ days: [BookingDay]) async throws -> [BookingDay: [StoredReservation]]
    /// Every user's `held` reservations whose hold ended by `now`, mapped or
    /// not, each locked: on these days, or with nil on any day, at most `limit`
    /// of them, passing over those another transaction has locked (another
    /// sweep's, a confirm under way).
    func dueHolds(on days: [BookingDay]?, at now: Date, limit: Int) async throws -> [StoredReservation]
    /// How many of the user's holds are live at `now`.
    func liveHolds(at now: Date) async throws -> Int
    /// Stores the system's changes (a promotion, an expiry) to any user's
    /// reservations, and appends each entry to the history of its reservation's owner.
    func updateAny(_ reservations: [Reservation], entries: [HistoryEntry]) async throws
    /// Stores new reservations.
    func insert(_ reservations: [Reservation]) async throws
    /// Stores changed reservations (landmark, date, party size, status, note, change time, version).
    func update(_ reservations: [Reservation]) async throws
    /// Appends changes to the user's history.
    func append(_ entries: [HistoryEntry]) async throws
    /// The changes, oldest first, of the user's newest command that is neither
    /// an undo nor undone (`Undo.lastCommand`'s rule); empty when none.
    func commandToUndo() async throws -> [HistoryEntry]
    /// The user's `undone` and `redone` entries after their newest change that
    /// is neither (nor the system's), oldest first: where `Undo.undoToRedo`
    /// finds the undo a redo takes back. The system's entries among them may
    /// be given too.
    func undosSinceLastCommand() async throws -> [HistoryEntry]
}

/// A landmark's day, as capacity counts it: [start, end) in the landmark's zone.
public struct BookingDay: Hashable, Sendable, Comparable {
    public let landmark: Landmark.ID
    public let day: Capacity.Day

    public init(landmark: Landmark.ID, day: Capacity.Day) {
        self.landmark = landmark
        self.day = day
    }

    /// The day `date` counts against at `landmark`; nil when the landmark has no capacity.
    public init?(_ date: Date, at landmark: Landmark) {
        guard landmark.capacity != nil, let day = Capacity.Day(of: date, in: Capacity.calendar(for: landmark))
        else { return nil }
        self.init(landmark: landmark.id, day: day)
    }

    public var start: Double { day.start.timeIntervalSince1970 }
    public var end: Double { day.end.timeIntervalSince1970 }

    /// Whether a reservation at `date` at this landmark counts on this day.
    public func contains(_ landmark: Landmark.ID, _ date: Date) -> Bool {
        landmark == self.landmark && date >= day.start && date < day.end
    }

    /// The order days are locked in.
    public static func < (a: BookingDay, b: BookingDay) -> Bool {
        (a.landmark.description, a.day.start) < (b.landmark.description, b.day.start)
    }
}
