import Foundation

/// A day of the calendar, `YYYY-MM-DD`, with no time and no zone: which
/// instants it covers depends on the landmark's zone.
public struct CalendarDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// Parses `YYYY-MM-DD` strictly: four-digit year (0000 too), real month and day (no February 30).
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
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            (1...12).contains(month), day >= 1, day <= Self.length(of: month, in: year)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The day `date` falls on in `calendar`.
    public init(_ date: Date, in calendar: Calendar) {
        let components = calendar.dateComponents([.era, .year, .month, .day], from: date)
        // The year before 1 AD is 1 BC to the calendar, 0000 in ISO 8601.
        year = components.era == 0 ? 1 - (components.year ?? 1) : components.year ?? 1
        month = components.month ?? 1
        day = components.day ?? 1
    }

    init(year: Int, month: Int, day: Int) {
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

    /// The first day of this day's month.
    public var firstOfMonth: CalendarDay { CalendarDay(year: year, month: month, day: 1) }

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

extension CalendarDay {
    /// Days since 1970-01-01 (negative before).
    var daysSince1970: Int { DateTime.daysFromCivil(year: year, month: month, day: day) }

    init(daysSince1970 days: Int) {
        let (year, month, day) = DateTime.civilFromDays(days)
        self.init(year: year, month: month, day: day)
    }

    func adding(days: Int) -> CalendarDay { CalendarDay(daysSince1970: daysSince1970 + days) }

    /// 1 for Sunday through 7 for Saturday, as `Calendar` counts.
    /// 1970-01-01 was a Thursday (5).
    public var weekday: Int { (daysSince1970 + 4) - (daysSince1970 + 4).floorDivided(by: 7) * 7 + 1 }
}
