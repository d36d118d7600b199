import Foundation

/// The places taken and left at one landmark on one day.
public struct DayAvailability: Sendable, Hashable {
    public let day: CalendarDay
    /// The day's limit (its own capacity when it has one); nil when it takes everyone.
    public let capacity: Int?
    /// People in the reservations that take places that day (`Reservation.takesPlaces(at:)`:
    /// pending, confirmed and live holds; never the waitlisted).
    public let taken: Int
    /// Why the day is closed (`resv admin close`); nil when it is open.
    public let closed: String?
    /// Whether `capacity` is the day's own (`resv admin capacity`), not the catalog's.
    public let override: Bool

    public init(day: CalendarDay, capacity: Int?, taken: Int, closed: String? = nil, override: Bool = false) {
        self.day = day
        self.capacity = capacity
        self.taken = taken
        self.closed = closed
        self.override = override
    }

    /// Places still free; nil without a limit; none on a closed day.
    public var left: Int? {
        if closed != nil { return 0 }
        return capacity.map { max($0 - taken, 0) }
    }

    /// The stable JSON shape: `{"capacity":300,"date":"2026-12-01","left":2,"taken":298}`,
    /// `capacity` and `left` null for a landmark without a limit; a closed day adds
    /// `"closed": REASON`, a day with a capacity of its own `"override": true`.
    public var json: JSONValue {
        var fields: [String: JSONValue] = [
            "date": .string(day.description),
            "capacity": capacity.map { .integer(Int64($0)) } ?? .null,
            "taken": .integer(Int64(taken)),
            "left": left.map { .integer(Int64($0)) } ?? .null,
        ]
        if let closed { fields["closed"] = .string(closed) }
        if override { fields["override"] = .bool(true) }
        return .object(fields)
    }

    /// Reads the JSON shape back (what a server answered); nil when it is not one.
    public init?(json: JSONValue) {
        guard case .string(let text)? = json["date"], let day = CalendarDay(text),
            case .integer(let taken)? = json["taken"], taken >= 0, let taken = Int(exactly: taken)
        else { return nil }
        switch json["override"] {
        case nil, .null?: override = false
        case .bool(let value)?: override = value
        default: return nil
        }
        switch json["capacity"] {
        case nil, .null?: capacity = nil
        // A day's own capacity may be 0; the catalog's never is.
        case .integer(let value)? where value > 0 || (override && value == 0): capacity = Int(exactly: value)
        default: return nil
        }
        switch json["closed"] {
        case nil, .null?: closed = nil
        case .string(let reason)?: closed = reason
        default: return nil
        }
        self.day = day
        self.taken = taken
    }
}

/// A landmark's places, day by day.
public struct LandmarkAvailability: Sendable, Hashable {
    public let landmark: Landmark
    public let days: [DayAvailability]

    public init(landmark: Landmark, days: [DayAvailability]) {
        self.landmark = landmark
        self.days = days
    }
}

extension Capacity {
    /// The most days one availability request covers.
    public static let longestRange = 366
    /// Days shown when no last day is given: the first and the 13 after it.
    public static let defaultDays = 14

    /// The days asked for: from `first` (default `today`) through `last`
    /// (default `defaultDays` in all); refused when reversed or too long.
    public static func days(from first: CalendarDay?, through last: CalendarDay?, today: CalendarDay)
        throws(ReservationError) -> [CalendarDay]
    {
        let start = first ?? today
        guard let last else {
            var days = [start]
            while days.count < defaultDays, days[days.count - 1] < CalendarDay.latest {
                days.append(days[days.count - 1].next)
            }
            return days
        }
        return try days(from: start, through: last)
    }

    /// The days from `first` through `last`; refused when reversed or longer than `longestRange`.
    public static func days(from first: CalendarDay, through last: CalendarDay) throws(ReservationError)
        -> [CalendarDay]
    {
        guard first <= last else {
            throw .invalidDays("the range \(first) to \(last) is empty: the first day comes after the last")
        }
        var days = [first]
        while days[days.count - 1] < last {
            guard days.count < longestRange else {
                throw .invalidDays("\(first) to \(last) is more than \(longestRange) days: ask for a shorter range")
            }
            days.append(days[days.count - 1].next)
        }
        return days
    }

    /// Places taken and left at `landmark` on each of `days`, from the
    /// reservations given: those at that landmark that take places at `now`,
    /// as capacity counts them (a waitlisted party takes none).
    public static func availability(
        of landmark: Landmark, on days: [CalendarDay], reservations: [Reservation], at now: Date,
        rules: [DayRule] = []
    ) -> [DayAvailability] {
        let parties = reservations.lazy.filter { $0.landmark.id == landmark.id && $0.countsTowardCapacity(at: now) }
            .map { (date: $0.date, partySize: $0.partySize) }
        return availability(of: landmark, on: days, parties: Array(parties), rules: rules)
    }

    /// Places taken and left at `landmark` on each of `days`, from the date and
    /// party size of each active reservation there, counted in its zone, under
    /// the days' own rules (`rules`: a closure, a capacity of the day's own).
    public static func availability(
        of landmark: Landmark, on days: [CalendarDay], parties: [(date: Date, partySize: Int)],
        rules: [DayRule] = []
    ) -> [DayAvailability] {
        let index = DayIndex(parties)
        let calendar = calendar(for: landmark)
        var byDay: [CalendarDay: DayRule] = [:]
        for rule in rules where rule.landmark == landmark.id { byDay[rule.day] = rule }
        return days.map { day in
            let taken = day.interval(in: calendar).map { index.booked(from: $0.start, to: $0.end) } ?? 0
            let rule = byDay[day]
            let own = landmark.capacity != nil ? rule?.capacity : nil
            return DayAvailability(
                day: day, capacity: own ?? landmark.capacity, taken: taken, closed: rule?.closed, override: own != nil)
        }
    }
}
