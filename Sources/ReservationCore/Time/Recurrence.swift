import Foundation

/// How often a series repeats (`reserve --every`), and the dates of its visits:
/// the first visit's wall time at the landmark on every day, week or month after
/// it, so a visit at 10:00 stays at 10:00 when the landmark's clocks change
/// (docs/contracts.md, "Series").
public enum Recurrence: String, Sendable, Hashable, CaseIterable {
    case day, week, month

    /// The most visits one series books: a batch a person means, not a calendar's worth.
    public static let longest = 1_000

    /// Where a series stops: after `count` visits, or with the last on or before `until`
    /// (a day at the landmark).
    public enum End: Sendable, Hashable {
        case count(Int)
        case until(CalendarDay)
    }

    /// The instants of the visits from `first`, at its wall time in `zone`, up to `end`.
    /// A day the wall time does not exist on (the hour the clocks skip) refuses the
    /// series, as the same time typed for that day would be (`TypedDate`); on a day it
    /// exists twice, the earlier. Monthly, a month without the first visit's day (the
    /// 31st, February 29) has no visit, as in iCalendar's RRULE. More than `longest`
    /// visits is `invalidSeries`.
    public func dates(from first: Date, to end: End, in zone: TimeZone) throws(ReservationError) -> [Date] {
        let seconds = Int(first.timeIntervalSince1970.rounded(.down)) + zone.secondsFromGMT(for: first)
        let firstDay = CalendarDay(daysSince1970: seconds.floorDivided(by: 86_400))
        let time = seconds - seconds.floorDivided(by: 86_400) * 86_400
        switch end {
        case .count(let count):
            guard (1...Self.longest).contains(count) else {
                throw .invalidSeries("--count must be from 1 to \(Self.longest), not \(count)")
            }
        case .until(let last):
            guard last >= firstDay else {
                throw .invalidSeries("--until \(last) is before the first visit, on \(firstDay)")
            }
        }
        var dates: [Date] = []
        var step = 0
        while true {
            let day = self.day(step, after: firstDay)
            step += 1
            guard let day else { continue }  // A month without that day.
            if case .count(let count) = end, dates.count == count { break }
            if case .until(let last) = end, day > last { break }
            guard dates.count < Self.longest else {
                throw .invalidSeries("a series books at most \(Self.longest) visits; give an earlier --until")
            }
            let wall = "\(day) " + String(format: "%02d:%02d", time / 3600, time / 60 % 60)
            dates.append(try TypedDate.instant(day: day, time: time, zone: zone, text: wall))
        }
        return dates
    }

    /// The day of the `step`th visit after `first` (0 is `first`); nil for a month without its day.
    private func day(_ step: Int, after first: CalendarDay) -> CalendarDay? {
        switch self {
        case .day: return first.adding(days: step)
        case .week: return first.adding(days: 7 * step)
        case .month:
            let months = first.month - 1 + step
            let year = first.year + months / 12
            let month = months % 12 + 1
            guard first.day <= DateTime.daysIn(month: month, year: year) else { return nil }
            return CalendarDay(year: year, month: month, day: first.day)
        }
    }
}
