import Foundation

/// The places taken and left at one landmark on one day.
public struct DayAvailability: Sendable, Hashable {
    public let day: CalendarDay
    /// The landmark's daily limit; nil when it takes everyone.
    public let capacity: Int?
    /// People in the reservations that take places that day (`Reservation.takesPlaces(at:)`:
    /// pending, confirmed and live holds; never the waitlisted).
    public let taken: Int

    public init(day: CalendarDay, capacity: Int?, taken: Int) {
        self.day = day
        self.capacity = capacity
        self.taken = taken
    }

    /// Places still free; nil without a limit.
    public var left: Int? { capacity.map { max($0 - taken, 0) } }

    /// The stable JSON shape: `{"capacity":300,"date":"2026-12-01","left":2,"taken":298}`,
    /// `capacity` and `left` null for a landmark without a limit.
    public var json: JSONValue {
        .object([
            "date": .string(day.description),
            "capacity": capacity.map { .integer(Int64($0)) } ?? .null,
            "taken": .integer(Int64(taken)),
            "left": left.map { .integer(Int64($0)) } ?? .null,
        ])
    }

    /// Reads the JSON shape back (what a server answered); nil when it is not one.
    public init?(json: JSONValue) {
        guard case .string(let text)? = json["date"], let day = CalendarDay(text),
            case .integer(let taken)? = json["taken"], taken >= 0, let taken = Int(exactly: taken)
        else { return nil }
        switch json["capacity"] {
        case nil, .null?: capacity = nil
        case .integer(let value)? where value > 0: capacity = Int(exactly: value)
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
        of landmark: Landmark, on days: [CalendarDay], reservations: [Reservation], at now: Date
    ) -> [DayAvailability] {
        let parties = reservations.lazy.filter { $0.landmark.id == landmark.id && $0.countsTowardCapacity(at: now) }
            .map { (date: $0.date, partySize: $0.partySize) }
        return availability(of: landmark, on: days, parties: Array(parties))
    }

    /// Places taken and left at `landmark` on each of `days`, from the date and
    /// party size of each active reservation there, counted in its zone.
    public static func availability(
        of landmark: Landmark, on days: [CalendarDay], parties: [(date: Date, partySize: Int)]
    ) -> [DayAvailability] {
        let index = DayIndex(parties)
        let calendar = calendar(for: landmark)
        return days.map { day in
            let taken = day.interval(in: calendar).map { index.booked(from: $0.start, to: $0.end) } ?? 0
            return DayAvailability(day: day, capacity: landmark.capacity, taken: taken)
        }
    }
}
