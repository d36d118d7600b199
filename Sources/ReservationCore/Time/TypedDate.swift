import Foundation

/// Dates as a person types them (`--date` of reserve and modify, `--from` and
/// `--to` of list), resolved to one instant and then held to the same rules as
/// records (docs/contracts.md, "Dates"). Records themselves never come through here:
/// a store, a server or a batch line stays exactly as strict as `DateTime.parse`.
///
/// Forms, besides a full date-time with a zone (read exactly as a record):
/// - `2026-12-01T08:00`, `2026-12-01T08:00:00`, `2026-12-01 08:00`: a wall time in `zone`;
/// - `today 18:00`, `tomorrow 09:30`, `+3d 14:00`, `+2w 10:00`, `fri 09:00` or `next friday 09:00`
///   (the next Friday, never today), `dec 24 10:00` or `24 december 10:00` (the next December 24):
///   a day counted from `now` in `zone`, and a time (`10:00`, `9:30`, `10am`, `10:30 pm`).
/// `yesterday` and `-1d` are read too: a caller then says the time is in the past.
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
                let dayAlone = relativeDays(word, allowPast: true) != nil || weekday(word) != nil
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
        /// `dec 24`, `24 december`: the next such day from today (this year's, else next year's).
        case monthDay(month: Int, day: Int, year: Int?, time: Substring)

        init?(_ text: String) {
            let text = text.trimmingCharacters(in: .whitespaces)
            // YYYY-MM-DD, then T or a space (or several), then the time.
            if text.count >= 15, let separator = text.dropFirst(10).first,
                separator == "T" || separator == "t" || separator == " "
            {
                let date = text.prefix(10).split(separator: "-", omittingEmptySubsequences: false)
                if date.count == 3, date[0].count == 4, date[1].count == 2, date[2].count == 2,
                    let year = Int(date[0]), let month = Int(date[1]), let day = Int(date[2]),
                    date.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) })
                {
                    self = .absolute(
                        year: year, month: month, day: day,
                        time: text.dropFirst(11).drop { $0 == " " })
                    return
                }
                // Not YYYY-MM-DD (`Jan 5 2028 10:00`): words.
            }
            var words = text.lowercased().split(separator: " ", omittingEmptySubsequences: true)
            // The time is the last word, with its am or pm when that is a word of its own (10 am).
            guard words.count >= 2, let last = words.popLast() else { return nil }
            var time = last
            if last == "am" || last == "pm" || last == "a.m." || last == "p.m.", let hour = words.popLast() {
                time = Substring(String(hour) + last)
            }
            let day = words.map(String.init)
            if day.count == 1, let days = TypedDate.relativeDays(day[0], allowPast: true) {
                self = .relative(days: days, time: time)
            } else if day.count == 1, let weekday = TypedDate.weekday(day[0]) {
                self = .weekday(weekday, time: time)
            } else if day.count == 2, day[0] == "next", let weekday = TypedDate.weekday(day[1]) {
                // "next friday": the next Friday, never today (as "fri").
                self = .weekday(weekday, time: time)
            } else if (2...3).contains(day.count), let (month, dayNumber, year) = TypedDate.monthDay(day) {
                self = .monthDay(month: month, day: dayNumber, year: year, time: time)
            } else {
                return nil
            }
        }

        /// The calendar day and the second of the day.
        func parts(_ text: String, now: Date, zone: TimeZone) throws(ReservationError) -> (CalendarDay, Int) {
            func fail(_ reason: DateParseError.Reason) -> ReservationError {
                .invalidDate(DateParseError(input: text, reason: reason))
            }
            func checked(_ year: Int, _ month: Int, _ dayNumber: Int) throws(ReservationError) -> CalendarDay {
                guard (1...12).contains(month) else { throw fail(.monthOutOfRange(month)) }
                guard (1...DateTime.daysIn(month: month, year: year)).contains(dayNumber) else {
                    throw fail(.dayOutOfRange(dayNumber, month: month, year: year))
                }
                return CalendarDay(year: year, month: month, day: dayNumber)
            }
            let timeText: Substring
            let day: CalendarDay
            switch self {
            case .absolute(let year, let month, let dayNumber, let time):
                day = try checked(year, month, dayNumber)
                timeText = time
            case .relative(let days, let time):
                day = TypedDate.today(now, zone).adding(days: days)
                timeText = time
            case .weekday(let weekday, let time):
                let today = TypedDate.today(now, zone)
                let ahead = (weekday - today.weekday + 7) % 7
                day = today.adding(days: ahead == 0 ? 7 : ahead)
                timeText = time
            case .monthDay(let month, let dayNumber, let year?, let time):
                day = try checked(year, month, dayNumber)
                timeText = time
            case .monthDay(let month, let dayNumber, nil, let time):
                let today = TypedDate.today(now, zone)
                // A day no year has (February 30) is refused as this year's would be.
                guard DateTime.daysIn(month: month, year: 2000) >= dayNumber else {
                    throw fail(.dayOutOfRange(dayNumber, month: month, year: today.year))
                }
                // February 29 waits for a leap year; any other day is this year's unless it has passed.
                var year = today.year
                while !(DateTime.daysIn(month: month, year: year) >= dayNumber
                    && CalendarDay(year: year, month: month, day: dayNumber) >= today)
                {
                    year += 1
                    guard year <= today.year + 8 else {
                        throw fail(.dayOutOfRange(dayNumber, month: month, year: year))
                    }
                }
                day = CalendarDay(year: year, month: month, day: dayNumber)
                timeText = time
            }
            return (day, try TypedDate.secondOfDay(timeText, fail: fail))
        }
    }

    /// `10:00`, `9:30`, `10:00:30`, `10am`, `10:30pm`, `12am` (midnight): the second of the day.
    static func secondOfDay(_ text: Substring, fail: (DateParseError.Reason) -> ReservationError)
        throws(ReservationError)
        -> Int
    {
        var clock = text.lowercased().replacingOccurrences(of: ".", with: "")
        var half: Int?  // 0 before noon, 12 after
        for (suffix, hours) in [("am", 0), ("pm", 12)] where clock.hasSuffix(suffix) {
            clock.removeLast(2)
            half = hours
        }
        let fields = clock.split(separator: ":", omittingEmptySubsequences: false)
        // The hour may have one digit (9:30), as people write it; minutes and seconds two.
        guard (half != nil ? 1...3 : 2...3).contains(fields.count), (1...2).contains(fields[0].count),
            fields.dropFirst().allSatisfy({ $0.count == 2 }),
            fields.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            var hour = Int(fields[0])
        else { throw fail(.notTyped) }
        let minute = fields.count > 1 ? Int(fields[1]) ?? 0 : 0
        let second = fields.count > 2 ? Int(fields[2]) ?? 0 : 0
        if let half {
            guard (1...12).contains(hour) else { throw fail(.hourOutOfRange(hour)) }
            hour = hour % 12 + half
        }
        guard hour <= 23 else { throw fail(.hourOutOfRange(hour)) }
        guard minute <= 59 else { throw fail(.minuteOutOfRange(minute)) }
        guard second <= 59 else { throw fail(.secondOutOfRange(second)) }
        return hour * 3600 + minute * 60 + second
    }

    /// `dec 24`, `december 24`, `24 dec`, and either with a four-digit year after: month, day, year.
    static func monthDay(_ words: [String]) -> (Int, Int, Int?)? {
        func month(_ word: String) -> Int? {
            guard word.count >= 3 else { return nil }
            return DateParseError.monthNames.firstIndex { $0.lowercased().hasPrefix(word) }.map { $0 + 1 }
        }
        func number(_ word: String, digits: ClosedRange<Int>) -> Int? {
            var word = word
            if word.hasSuffix(",") { word.removeLast() }
            for suffix in ["st", "nd", "rd", "th"] where word.hasSuffix(suffix) && digits.upperBound == 2 {
                word.removeLast(2)
            }
            guard digits.contains(word.count), word.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int(word)
        }
        var year: Int?
        if words.count == 3 {
            guard let given = number(words[2], digits: 4...4) else { return nil }
            year = given
        }
        if let month = month(words[0]), let day = number(words[1], digits: 1...2) { return (month, day, year) }
        if let day = number(words[0], digits: 1...2), let month = month(words[1]) { return (month, day, year) }
        return nil
    }

    static let weekdays = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]

    /// 1 (Sunday) to 7 for a weekday's name or its first three letters or more.
    static func weekday(_ word: String) -> Int? {
        guard word.count >= 3 else { return nil }
        return weekdays.firstIndex { $0.hasPrefix(word) }.map { $0 + 1 }
    }

    /// `today` 0, `tomorrow` 1, `+Nd` N, `+Nw` 7N; `-Nd`, `-Nw` and `yesterday` too when `allowPast`.
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
