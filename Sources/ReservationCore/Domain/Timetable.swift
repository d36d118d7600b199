import Foundation

/// A time on a landmark's wall clock, `HH:MM` from 00:00 to 23:59.
public struct WallTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Minutes after midnight, 0 ..< 1440.
    public let minutes: Int

    /// Parses `HH:MM` strictly: two digits each, hours 00 to 23, minutes 00 to 59.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 5, bytes[2] == UInt8(ascii: ":"),
            bytes.indices.allSatisfy({ $0 == 2 || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[$0]) })
        else { return nil }
        let digit = { (index: Int) in Int(bytes[index] - UInt8(ascii: "0")) }
        let (hour, minute) = (digit(0) * 10 + digit(1), digit(3) * 10 + digit(4))
        guard hour < 24, minute < 60 else { return nil }
        minutes = hour * 60 + minute
    }

    public init?(minutes: Int) {
        guard (0..<1440).contains(minutes) else { return nil }
        self.minutes = minutes
    }

    public var hour: Int { minutes / 60 }
    public var minute: Int { minutes % 60 }
    public var description: String { String(format: "%02d:%02d", hour, minute) }

    public static func < (lhs: WallTime, rhs: WallTime) -> Bool { lhs.minutes < rhs.minutes }
}

/// When a landmark lets visits start on one day: opening hours (a visit starts
/// inside them, the day's capacity counts) or timed-entry slots (a visit starts
/// at a slot's start, each slot its own capacity).
public enum DayPlan: Sendable, Hashable {
    /// Visits start from `open` up to, not including, `close`.
    case hours(open: WallTime, close: WallTime)
    /// A slot starts every `every` minutes from `first` to `last` (both starts), each taking `capacity` people.
    case slots(every: Int, first: WallTime, last: WallTime, capacity: Int)

    /// The slots' lengths a plan may have, in minutes: 15 minutes to 24 hours.
    public static let slotLengths = 15...1440

    /// The wall times slots start at; empty for opening hours.
    public var starts: [WallTime] {
        guard case .slots(let every, let first, let last, _) = self else { return [] }
        return stride(from: first.minutes, through: last.minutes, by: every).compactMap { WallTime(minutes: $0) }
    }

    /// The places of one slot; nil for opening hours.
    public var slotCapacity: Int? {
        if case .slots(_, _, _, let capacity) = self { capacity } else { nil }
    }

    /// How it reads in a message: "every hour 08:00–15:00", "open 08:00–17:00".
    public var summary: String {
        switch self {
        case .hours(let open, let close): return "open \(open)–\(close)"
        case .slots(let every, let first, let last, _):
            let length =
                switch every {
                case 60: "hour"
                case let minutes where minutes % 60 == 0: "\(minutes / 60) hours"
                default: "\(every) minutes"
                }
            return "every \(length) \(first)–\(last)"
        }
    }
}

/// A landmark's hours or slots: one plan for every day, or one per weekday
/// (a weekday without one is closed), all on its wall clock.
public struct Timetable: Sendable, Hashable {
    /// The weekdays' keys, Sunday first as `Calendar` numbers them (1 … 7).
    public static let weekdays = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    /// The plan of every day; nil when given by weekday.
    public let daily: DayPlan?
    /// The plan of each weekday, by `Calendar` weekday number (1 Sunday … 7 Saturday).
    public let byWeekday: [Int: DayPlan]

    public init(daily: DayPlan) {
        self.daily = daily
        self.byWeekday = [:]
    }

    public init(byWeekday: [Int: DayPlan]) {
        self.daily = nil
        self.byWeekday = byWeekday
    }

    /// Whether its plans are slots (else opening hours).
    public var isSlotted: Bool { plans.contains { $0.slotCapacity != nil } }

    /// Every plan it holds.
    public var plans: [DayPlan] { daily.map { [$0] } ?? byWeekday.keys.sorted().compactMap { byWeekday[$0] } }

    /// The plan of the day `date` falls on in `calendar`; nil when that weekday is closed.
    public func plan(on date: Date, in calendar: Calendar) -> DayPlan? {
        daily ?? byWeekday[calendar.component(.weekday, from: date)]
    }
}
