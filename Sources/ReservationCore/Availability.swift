import Foundation

/// A day of the calendar, `YYYY-MM-DD`, with no time and no zone: which
/// instants it covers depends on the landmark's zone.
public struct CalendarDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// Parses `YYYY-MM-DD` strictly: four-digit year, real month and day (no February 30).
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), year >= 1,
            (1...12).contains(month), day >= 1, day <= Self.length(of: month, in: year)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The day `date` falls on in `calendar`.
    public init(_ date: Date, in calendar: Calendar) {
        let components = calendar.dateComponents([.year, .month, .day], from: date)
        year = components.year ?? 1
        month = components.month ?? 1
        day = components.day ?? 1
    }

    private init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// 9999-12-31: a later day has no four-digit year to write.
    public static let latest = CalendarDay(year: 9999, month: 12, day: 31)

    public var description: String { String(format: "%04d-%02d-%02d", year, month, day) }

    public static func < (lhs: CalendarDay, rhs: CalendarDay) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    /// The next day of the calendar.
    public var next: CalendarDay {
        if day < Self.length(of: month, in: year) { return CalendarDay(year: year, month: month, day: day + 1) }
        if month < 12 { return CalendarDay(year: year, month: month + 1, day: 1) }
        return CalendarDay(year: year + 1, month: 1, day: 1)
    }

    /// The instants of this day in `calendar`: from its first moment to the next day's.
    public func interval(in calendar: Calendar) -> Capacity.Day? {
        guard let start = calendar.date(from: DateComponents(year: year, month: month, day: day)) else { return nil }
        return Capacity.Day(of: start, in: calendar)
    }

    private static func length(of month: Int, in year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

/// The places taken and left at one landmark on one day.
public struct DayAvailability: Sendable, Hashable {
    public let day: CalendarDay
    /// The landmark's daily limit; nil when it takes everyone.
    public let capacity: Int?
    /// People in pending and confirmed reservations that day.
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
    /// reservations given (only active ones at that landmark count).
    public static func availability(
        of landmark: Landmark, on days: [CalendarDay], reservations: [Reservation]
    ) -> [DayAvailability] {
        let parties = reservations.lazy.filter { $0.landmark.id == landmark.id && $0.status.isActive }
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
