import Foundation

/// Dates as a person types them (`--date` of reserve and modify, `--from` and
/// `--to` of list), resolved to one instant and then held to the same rules as
/// records (DESIGN.md, "Dates"). Records themselves never come through here:
/// a store, a server or a batch line stays exactly as strict as `DateTime.parse`.
///
/// Forms, besides a full date-time with a zone (read exactly as a record):
/// - `2026-12-01T08:00`, `2026-12-01T08:00:00`, `2026-12-01 08:00`: a wall time in `zone`;
/// - `today 18:00`, `tomorrow 09:30`, `+3d 14:00`, `+2w 10:00`, `fri 09:00`
///   (the next Friday, never today): a day counted from `now` in `zone`, and a time.
/// A wall time that does not exist in the zone (the hour the clocks skip) is
/// refused; one that exists twice (the hour they repeat) is the earlier.
public enum TypedDate {
    /// The instant `text` names, a wall time read in `zone` (the landmark's).
    public static func resolve(_ text: String, now: Date, zone: TimeZone) throws(ReservationError) -> Date {
        let strict: DateParseError
        do { return try DateTime.parse(text) } catch { strict = error }
        // A full date-time with a value out of range keeps the strict parser's words.
        switch strict.reason {
        case .missingTime, .notADateTime, .missingSeconds, .missingZone: break
        default: throw .invalidDate(strict)
        }
        guard let typed = Typed(text) else {
            switch strict.reason {
            case .missingTime: throw .invalidDate(DateParseError(input: text, reason: .typedMissingTime))
            case .notADateTime, .missingSeconds, .missingZone:
                // A relative day without a time says so; anything else gets the forms.
                let word = text.trimmingCharacters(in: .whitespaces).lowercased()
                let dayAlone = relativeDays(word, allowPast: false) != nil || weekday(word) != nil
                throw .invalidDate(DateParseError(input: text, reason: dayAlone ? .typedMissingTime : .notTyped))
            default: throw .invalidDate(strict)
            }
        }
        let (day, time) = try typed.parts(text, now: now, zone: zone)
        return try instant(day: day, time: time, zone: zone, text: text)
    }

    /// Whether `text` needs a zone to be read (a wall time or a relative day),
    /// so that a caller need not look one up for a full date-time.
    public static func needsZone(_ text: String) -> Bool {
        do {
            _ = try DateTime.parse(text)
            return false
        } catch {
            switch error.reason {
            case .missingTime, .notADateTime, .missingSeconds, .missingZone: return Typed(text) != nil
            default: return false
            }
        }
    }

    /// The day `text` names in `zone` (`--from`/`--to`): `2026-12-01`, `today`,
    /// `tomorrow`, `+7d`, `-7d`, `+2w`; nil when it is no day (a caller may then
    /// read a date-time).
    public static func day(_ text: String, now: Date, zone: TimeZone) throws(ReservationError) -> CalendarDay? {
        let word = text.trimmingCharacters(in: .whitespaces).lowercased()
        if let day = CalendarDay(word) { return day }
        let fields = word.split(separator: "-", omittingEmptySubsequences: false)
        if word.count == 10, fields.count == 3, let year = Int(fields[0]), let month = Int(fields[1]),
            let dayNumber = Int(fields[2])
        {
            // Shaped like a day but not one (2026-02-30): said as a date would be.
            let reason: DateParseError.Reason =
                (1...12).contains(month) ? .dayOutOfRange(dayNumber, month: month, year: year) : .monthOutOfRange(month)
            throw .invalidDate(DateParseError(input: text, reason: reason))
        }
        guard let offset = relativeDays(word, allowPast: true) else { return nil }
        return today(now, zone).adding(days: offset)
    }

    /// An end of a range (`--from`, `--to`): a day means all of it in `zone` (from
    /// its first second, or to its last), anything else a date-time as typed.
    public static func bound(_ text: String, end: Bool, now: Date, zone: TimeZone) throws(ReservationError) -> Date {
        guard let day = try day(text, now: now, zone: zone) else { return try resolve(text, now: now, zone: zone) }
        return end ? start(of: day.next, in: zone) - 1 : start(of: day, in: zone)
    }

    /// The first instant of `day` in `zone` (its midnight, or the first time after it that exists).
    /// By the calendar's arithmetic, not `Calendar`'s, which has no year 0000.
    public static func start(of day: CalendarDay, in zone: TimeZone) -> Date {
        let wall = day.daysSince1970 * 86_400
        let probe = Date(timeIntervalSince1970: Double(wall))
        let offsets = Set([-86_400, 0, 86_400].map { zone.secondsFromGMT(for: probe.addingTimeInterval(Double($0))) })
        let exact = offsets.map { wall - $0 }.filter {
            zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double($0))) == wall - $0
        }
        // Midnight skipped (clocks jump forward over it): the day starts when they jump.
        let start = exact.min() ?? (wall - (offsets.min() ?? 0))
        return Date(timeIntervalSince1970: Double(start))
    }

    // MARK: - Reading

    /// The shape of a typed date: a calendar day or a relative one, and a time.
    private enum Typed {
        case absolute(year: Int, month: Int, day: Int, time: Substring)
        case relative(days: Int, time: Substring)
        case weekday(Int, time: Substring)  // 1 = Sunday, as Calendar counts

        init?(_ text: String) {
            let text = text.trimmingCharacters(in: .whitespaces)
            // YYYY-MM-DD, then T or a space (or several), then the time.
            if text.count >= 15, let separator = text.dropFirst(10).first,
                separator == "T" || separator == "t" || separator == " "
            {
                let date = text.prefix(10).split(separator: "-", omittingEmptySubsequences: false)
                guard date.count == 3, date[0].count == 4, date[1].count == 2, date[2].count == 2,
                    let year = Int(date[0]), let month = Int(date[1]), let day = Int(date[2]),
                    date.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) })
                else { return nil }
                self = .absolute(
                    year: year, month: month, day: day,
                    time: text.dropFirst(11).drop { $0 == " " })
                return
            }
            let words = text.split(separator: " ", omittingEmptySubsequences: true)
            guard words.count == 2 else { return nil }
            let word = words[0].lowercased()
            if let days = TypedDate.relativeDays(word, allowPast: false) {
                self = .relative(days: days, time: words[1])
            } else if let weekday = TypedDate.weekday(word) {
                self = .weekday(weekday, time: words[1])
            } else {
                return nil
            }
        }

        /// The calendar day and the second of the day.
        func parts(_ text: String, now: Date, zone: TimeZone) throws(ReservationError) -> (CalendarDay, Int) {
            func fail(_ reason: DateParseError.Reason) -> ReservationError {
                .invalidDate(DateParseError(input: text, reason: reason))
            }
            let timeText: Substring
            let day: CalendarDay
            switch self {
            case .absolute(let year, let month, let dayNumber, let time):
                guard (1...12).contains(month) else { throw fail(.monthOutOfRange(month)) }
                guard (1...DateTime.daysIn(month: month, year: year)).contains(dayNumber) else {
                    throw fail(.dayOutOfRange(dayNumber, month: month, year: year))
                }
                day = CalendarDay(year: year, month: month, day: dayNumber)
                timeText = time
            case .relative(let days, let time):
                day = TypedDate.today(now, zone).adding(days: days)
                timeText = time
            case .weekday(let weekday, let time):
                let today = TypedDate.today(now, zone)
                let ahead = (weekday - today.weekday + 7) % 7
                day = today.adding(days: ahead == 0 ? 7 : ahead)
                timeText = time
            }
            let fields = timeText.split(separator: ":", omittingEmptySubsequences: false)
            // The hour may have one digit (9:30), as people write it; minutes and seconds two.
            guard (2...3).contains(fields.count), (1...2).contains(fields[0].count),
                fields.dropFirst().allSatisfy({ $0.count == 2 }), fields.allSatisfy({ $0.allSatisfy(\.isASCII) }),
                let hour = Int(fields[0]), let minute = Int(fields[1])
            else { throw fail(.notTyped) }
            let second = fields.count == 3 ? Int(fields[2]) : 0
            guard let second else { throw fail(.notTyped) }
            guard hour <= 23 else { throw fail(.hourOutOfRange(hour)) }
            guard minute <= 59 else { throw fail(.minuteOutOfRange(minute)) }
            guard second <= 59 else { throw fail(.secondOutOfRange(second)) }
            return (day, hour * 3600 + minute * 60 + second)
        }
    }

    static let weekdays = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]

    /// 1 (Sunday) to 7 for a weekday's name or its first three letters or more.
    static func weekday(_ word: String) -> Int? {
        guard word.count >= 3 else { return nil }
        return weekdays.firstIndex { $0.hasPrefix(word) }.map { $0 + 1 }
    }

    /// `today` 0, `tomorrow` 1, `+Nd` N, `+Nw` 7N; `-Nd`, `-Nw` and `yesterday` only for days of a range.
    static func relativeDays(_ word: String, allowPast: Bool) -> Int? {
        switch word {
        case "today": return 0
        case "tomorrow": return 1
        case "yesterday": return allowPast ? -1 : nil
        default: break
        }
        guard word.count >= 3, let sign = word.first, sign == "+" || (allowPast && sign == "-"),
            let unit = word.last, unit == "d" || unit == "w",
            let count = Int(word.dropFirst().dropLast()), word.dropFirst().dropLast().allSatisfy(\.isNumber),
            count <= 36_600
        else { return nil }
        return (sign == "-" ? -1 : 1) * count * (unit == "w" ? 7 : 1)
    }

    /// The calendar day `now` falls on in `zone`.
    static func today(_ now: Date, _ zone: TimeZone) -> CalendarDay {
        let seconds = Int(now.timeIntervalSince1970.rounded(.down)) + zone.secondsFromGMT(for: now)
        return CalendarDay(daysSince1970: seconds.floorDivided(by: 86_400))
    }

    /// The instant a wall time in `zone` names: refused in a gap, the earlier in a repeat.
    static func instant(day: CalendarDay, time: Int, zone: TimeZone, text: String) throws(ReservationError) -> Date {
        let wall = day.daysSince1970 * 86_400 + time
        let probe = Date(timeIntervalSince1970: Double(wall))
        // Every offset the zone has within a day of it (a change of offset is never closer twice).
        let offsets = Set([-86_400, 0, 86_400].map { zone.secondsFromGMT(for: probe.addingTimeInterval(Double($0))) })
        let candidates = offsets.map { wall - $0 }.filter {
            zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double($0))) == wall - $0
        }
        guard let earliest = candidates.min() else {
            throw .invalidDate(DateParseError(input: text, reason: .skippedByZone(zone.name)))
        }
        guard DateTime.writableSeconds.contains(earliest) else {
            throw .invalidDate(DateParseError(input: text, reason: .outsideFourDigitYears))
        }
        return Date(timeIntervalSince1970: Double(earliest))
    }
}
