import Foundation

/// A booked visit. Every field is present and valid: values come only from
/// the mapping of a `ReservationApiModel` or from a backend creating one.
public struct Reservation: Sendable, Hashable, Identifiable {
    /// A reservation's identity; distinct from a landmark's so the two cannot be swapped.
    public typealias ID = EntityID<Reservation>
    /// What a series' id names: the reservations one `reserve --every` made (docs/contracts.md, "Series").
    public enum Series {}
    public typealias SeriesID = EntityID<Series>

    public enum Status: String, Sendable, Hashable, CaseIterable, Codable {
        case pending, confirmed, cancelled
        /// Places kept until `expiresAt`, then `expired` (docs/contracts.md, "Holds and waitlists").
        case held, expired
        /// Waiting for places on a full day; counts nothing until promoted.
        case waitlisted
        /// The party arrived (`resv checkin`), or did not come by its visit's time (`resv noshow`):
        /// docs/contracts.md, "Check-in and no-shows". Both keep the places they took (`Capacity.takesPlaces`).
        case checkedIn = "checked-in"
        case noShow = "no-show"

        /// Pending, confirmed, held and waitlisted reservations are active;
        /// cancelled, expired, checked-in and no-show ones are history (the visit is
        /// settled: nothing about it changes but by `undo`).
        public var isActive: Bool { self != .cancelled && self != .expired && !isAttendance }

        /// Whether the status records the visit: `checked-in` or `no-show`.
        public var isAttendance: Bool { self == .checkedIn || self == .noShow }

        /// Whether a reservation with this status takes places on its day (a
        /// held one only while its hold lasts: see `Reservation.takesPlaces(at:)`);
        /// the rule is `Capacity.takesPlaces`.
        public var takesPlaces: Bool { Capacity.takesPlaces(self) }

        /// Whether the status lasts only until the reservation's `expiresAt` (a
        /// hold), after which it reads `expired`.
        public var endsByClock: Bool { self == .held }

        /// The statuses that take places whatever the time.
        public static let takingPlaces = allCases.filter { $0.takesPlaces && !$0.endsByClock }
        /// The statuses that take places until `expiresAt`.
        public static let takingPlacesUntilExpiry = allCases.filter { $0.takesPlaces && $0.endsByClock }

        /// The statuses a new reservation may be asked for (a hold and the
        /// waitlist are asked for with their own options).
        public static let initial: [Status] = [.pending, .confirmed]
    }

    // Set by `init`, and changed only here (`with(status:)`, `changed`), which copy what they do
    // not change: a new field is its property and its parameter of `init`.
    public let id: ID
    public private(set) var landmark: Landmark
    public private(set) var date: Date
    public private(set) var partySize: Int
    public private(set) var status: Status
    /// Free text the user attached, at most `noteLimit` characters; nil when none.
    public private(set) var note: String?
    /// When the reservation was made and last changed, in whole seconds; nil in
    /// records written before these were kept (a server's rows always have them).
    public let createdAt: Date?
    public private(set) var updatedAt: Date?
    /// Grows by one with every change; 1 when created, and for records written
    /// before versions were kept (they count as never changed since).
    public private(set) var version: Int
    /// When a `held` reservation's hold ends (nil for every other status).
    public private(set) var expiresAt: Date?
    /// A waitlisted reservation's place in the order its day's list was joined
    /// (smaller joined first; ties by id), and the status it takes when promoted.
    public private(set) var waitlistOrder: Int?
    public private(set) var requestedStatus: Status?
    /// A waitlisted reservation's position on its day's list, from 1, as the
    /// backend that holds the whole list counts it; nil when not known.
    public var waitlistPosition: Int?
    /// The series it was booked in (`reserve --every`), set once; nil for a booking of its own.
    public let series: SeriesID?

    /// The longest note, in characters: a line or two, not a document.
    public static let noteLimit = 500

    /// The documented party sizes (docs/contracts.md): 1 to 10,000, on every path and in the
    /// mapping. The bound also keeps every sum of party sizes far from overflowing.
    public static let partySizes: ClosedRange<Int> = 1...10_000

    package init(
        id: ID, landmark: Landmark, date: Date, partySize: Int, status: Status, note: String? = nil,
        createdAt: Date? = nil, updatedAt: Date? = nil, version: Int = 1, expiresAt: Date? = nil,
        waitlistOrder: Int? = nil, requestedStatus: Status? = nil, waitlistPosition: Int? = nil,
        series: SeriesID? = nil
    ) {
        self.id = id
        self.landmark = landmark
        self.date = date
        self.partySize = partySize
        self.status = status
        self.note = note
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.version = version
        self.expiresAt = expiresAt
        self.waitlistOrder = waitlistOrder
        self.requestedStatus = requestedStatus
        self.waitlistPosition = waitlistPosition
        self.series = series
    }

    /// The same reservation with another status (the same version: see `changed`).
    package func with(status: Status) -> Reservation {
        var copy = self
        copy.status = status
        return copy
    }

    /// This reservation after one change made at `now`: the next version. A
    /// new status other than `held` drops the hold's end, and one other than
    /// `waitlisted` the place on a list; `waitlistOrder` places it on one.
    package func changed(
        landmark: Landmark? = nil, date: Date? = nil, partySize: Int? = nil, status: Status? = nil,
        note: String?? = .none, waitlistOrder: Int? = nil, at now: Date
    ) -> Reservation {
        var next = self
        next.landmark = landmark ?? self.landmark
        next.date = date ?? self.date
        next.partySize = partySize ?? self.partySize
        next.status = status ?? self.status
        next.note = note ?? self.note
        next.updatedAt = Timestamp.whole(now)
        next.version = version + 1
        next.expiresAt = next.status == .held || next.status == .expired ? expiresAt : nil
        next.waitlistOrder = next.status == .waitlisted ? waitlistOrder ?? self.waitlistOrder : nil
        next.requestedStatus = next.status == .waitlisted ? requestedStatus : nil
        // A position is counted by the backend that holds the whole list, for the value it answers.
        next.waitlistPosition = nil
        return next
    }

    /// Whether this reservation takes places on its day at `now`: pending and
    /// confirmed ones, and a hold until it ends.
    public func takesPlaces(at now: Date) -> Bool {
        Self.takesPlaces(status, expiresAt: expiresAt, at: now)
    }

    /// The one definition of taking places: a status that takes places, and for
    /// one that ends by the clock (a hold), only before its end. The servers' SQL
    /// (`SharedSQL.countsTowardCapacity`) is made from the same statuses and checked against this.
    public static func takesPlaces(_ status: Status, expiresAt: Date?, at now: Date) -> Bool {
        guard status.takesPlaces else { return false }
        return status.endsByClock ? (expiresAt.map { $0 > now } ?? false) : true
    }

    /// Whether it counts toward its day's capacity at `now`: it takes places and
    /// has a party size the domain allows (records stored before the bound count nothing).
    public func countsTowardCapacity(at now: Date) -> Bool {
        Self.countsTowardCapacity(status, expiresAt: expiresAt, partySize: partySize, at: now)
    }

    /// `countsTowardCapacity(at:)` of any values, a stored row's that may not map among them.
    public static func countsTowardCapacity(_ status: Status, expiresAt: Date?, partySize: Int, at now: Date) -> Bool {
        takesPlaces(status, expiresAt: expiresAt, at: now) && partySizes.contains(partySize)
    }

    /// Whether a hold is live at `now`: it ends by the clock and has not ended.
    public static func isLiveHold(_ status: Status, expiresAt: Date?, at now: Date) -> Bool {
        status.endsByClock && takesPlaces(status, expiresAt: expiresAt, at: now)
    }

    /// Whether a hold ended by `now`: `held`, with an end at or before it.
    public static func holdEnded(_ status: Status, expiresAt: Date?, at now: Date) -> Bool {
        status.endsByClock && (expiresAt.map { $0 <= now } ?? false)
    }

    /// As it reads at `now`: a hold that has ended is `expired`, whether or not
    /// its expiry has been recorded yet.
    public func settled(at now: Date) -> Reservation {
        guard Self.holdEnded(status, expiresAt: expiresAt, at: now) else { return self }
        return with(status: .expired)
    }

    /// The order a day's waitlist is served in: by `waitlistOrder` (none counts
    /// as 0), then by id. The servers' SQL (`SharedSQL.waitlistOrder`) is checked against this.
    public static func waitlistPrecedes(order a: Int?, id idA: String, _ b: Int?, id idB: String) -> Bool {
        (a ?? 0, idA) < (b ?? 0, idB)
    }

    /// Whether `note` may be stored: at most `noteLimit` characters.
    public static func isValidNote(_ note: String) -> Bool { note.count <= noteLimit }

    /// Checks a note given for a new reservation or a change: its length, and no NUL,
    /// which PostgreSQL's text cannot hold (every engine refuses it alike; stored
    /// records are read as they are).
    public static func checkNewNote(_ note: String) throws(ReservationError) {
        guard isValidNote(note) else { throw .invalidNote(note.count) }
        guard !note.utf8.contains(0) else { throw .noteWithNUL }
    }
}

/// Times of records are kept in whole seconds, as they are written.
public enum Timestamp {
    public static func whole(_ date: Date) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }
}

extension EntityID where Entity == Reservation {
    /// The first eight hex digits, enough to name a reservation in most stores.
    public var short: String { String(description.prefix(8)) }
}

extension EntityID where Entity == Reservation.Series {
    /// The first eight hex digits, as a reservation's.
    public var short: String { String(description.prefix(8)) }
}

extension Collection where Element == Reservation {
    /// Reservations that are not cancelled.
    public var active: [Reservation] { filter { $0.status.isActive } }
    public var pending: [Reservation] { filter { $0.status == .pending } }
    public var confirmed: [Reservation] { filter { $0.status == .confirmed } }
    public var cancelled: [Reservation] { filter { $0.status == .cancelled } }

    /// Sorted by date, then by id so equal dates keep a stable order.
    public var sortedByDate: [Reservation] {
        // Sorting small keys and gathering once moves each reservation (and its
        // landmark's fields) once instead of at every step of the sort.
        let reservations = Array(self)
        var keys = reservations.indices.map { (date: reservations[$0].date, id: reservations[$0].id, index: $0) }
        keys.sort { ($0.date, $0.id) < ($1.date, $1.id) }
        return keys.map { reservations[$0.index] }
    }
}
