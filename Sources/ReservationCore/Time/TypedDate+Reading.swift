import Foundation

/// Reading the words of a typed date: the grammar `TypedDate` describes.
extension TypedDate {
    /// A day as a person names it: a calendar day, or one counted from today.
    enum NamedDay: Equatable {
        case absolute(year: Int, month: Int, day: Int)
        case relative(days: Int)
        case weekday(Int)  // 1 = Sunday, as Calendar counts
        /// `dec 24`, `24 december`: the next such day from today (this year's, else next year's).
        case monthDay(month: Int, day: Int, year: Int?)

        /// The words of a day, or nil: `2026-12-01`, `today`, `+3d`, `in 2 days`, `fri`,
        /// `next fri`, `dec 24`, `24 dec 2027`.
        init?(_ words: [String]) {
            switch words.count {
            case 1:
                let word = words[0]
                if let (year, month, day) = TypedDate.isoDay(word) {
                    self = .absolute(year: year, month: month, day: day)
                } else if let days = TypedDate.relativeDays(word, allowPast: true) {
                    self = .relative(days: days)
                } else if let weekday = TypedDate.weekday(word) {
                    self = .weekday(weekday)
                } else {
                    return nil
                }
            case 2 where words[0] == "next":
                // "next friday": the next Friday, never today (as "fri").
                guard let weekday = TypedDate.weekday(words[1]) else { return nil }
                self = .weekday(weekday)
            case 3 where words[0] == "in":
                // in 2 days, in 3 weeks (a hundred years at most, as +Nd).
                let unit = ["day": 1, "days": 1, "week": 7, "weeks": 7][words[2]]
                guard let unit, words[1].allSatisfy({ $0.isASCII && $0.isNumber }), words[1].count <= 5,
                    let count = Int(words[1]), count * unit <= 36_600
                else { return nil }
                self = .relative(days: count * unit)
            default:
                guard (2...3).contains(words.count), let (month, day, year) = TypedDate.monthDay(words) else {
                    return nil
                }
                self = .monthDay(month: month, day: day, year: year)
            }
        }

        /// The calendar day named, counted from `now` in `zone`.
        func day(_ text: String, now: Date, zone: TimeZone) throws(ReservationError) -> CalendarDay {
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
            let today = TypedDate.today(now, zone)
            switch self {
            case .absolute(let year, let month, let dayNumber):
                return try checked(year, month, dayNumber)
            case .relative(let days):
                return today.adding(days: days)
            case .weekday(let weekday):
                let ahead = (weekday - today.weekday + 7) % 7
                return today.adding(days: ahead == 0 ? 7 : ahead)
            case .monthDay(let month, let dayNumber, let year?):
                return try checked(year, month, dayNumber)
            case .monthDay(let month, let dayNumber, nil):
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
                return CalendarDay(year: year, month: month, day: dayNumber)
            }
        }
    }

    /// What a person typed, read as a day and a second of the day, either of which may be
    /// missing; words that are neither are refused, the first such word named.
    struct Phrase {
        var day: NamedDay?
        var time: Int?

        init(_ text: String) throws(ReservationError) {
            func fail(_ reason: DateParseError.Reason) -> ReservationError {
                .invalidDate(DateParseError(input: text, reason: reason))
            }
            var trimmed = text.trimmingCharacters(in: .whitespaces)
            // 2026-12-01T08:00 is 2026-12-01 08:00.
            if TypedDate.isoDay(String(trimmed.prefix(10))) != nil, trimmed.count > 10,
                let separator = trimmed.dropFirst(10).first, separator == "T" || separator == "t"
            {
                trimmed = String(trimmed.prefix(10)) + " " + String(trimmed.dropFirst(11))
            }
            var words = trimmed.lowercased().split(separator: " ").map(String.init)
            guard !words.isEmpty else { throw fail(.empty) }
            // The time: last (tomorrow 10am, tomorrow at 9:30 pm) or first (10am tomorrow, at noon fri).
            var timeWords: [String] = []
            if let count = TypedDate.timeLength(words.suffix(2)) {
                timeWords = Array(words.suffix(count))
                words.removeLast(count)
                if words.last == "at" { words.removeLast() }
            } else if words.last == "at" {
                // "tomorrow at": the time is missing, as in "tomorrow".
                words.removeLast()
            } else {
                if words.first == "at" { words.removeFirst() }
                if let count = TypedDate.timeLength(words.prefix(2), first: true) {
                    timeWords = Array(words.prefix(count))
                    words.removeFirst(count)
                }
            }
            if !timeWords.isEmpty { time = try TypedDate.secondOfDay(Substring(timeWords.joined()), fail: fail) }
            guard !words.isEmpty else {
                if timeWords.isEmpty { throw fail(.typedMissingDay) }
                return
            }
            if let named = NamedDay(words) {
                day = named
                return
            }
            // Not a day: name the first word that is no word of a day, or the ones that do not go together.
            if timeWords.isEmpty, let last = words.last, (1...2).contains(last.count),
                last.allSatisfy({ $0.isASCII && $0.isNumber }), NamedDay(Array(words.dropLast())) != nil
            {
                throw fail(.bareHour(last))
            }
            let stranger = words.first {
                !TypedDate.isDayWord($0) && !TypedDate.isTimeWord($0) && !TypedDate.meridiems.contains($0)
            }
            throw fail(.unknownWord(stranger ?? words.joined(separator: " ")))
        }
    }

    /// How many of `words` (the last two, or with `first` the first two) are a time:
    /// `10:00`, `10am`, `noon`, or a number and `am`/`pm` (`9:30 pm`).
    static func timeLength(_ words: ArraySlice<String>, first: Bool = false) -> Int? {
        let pair = Array(words)
        if pair.count == 2, startsWithDigit(pair[0]), meridiems.contains(pair[1]) { return 2 }
        guard let word = first ? pair.first : pair.last, isTimeWord(word) else { return nil }
        return 1
    }

    static let meridiems = ["am", "pm", "a.m.", "p.m."]

    static func startsWithDigit(_ word: String) -> Bool { word.first.map { $0.isASCII && $0.isNumber } ?? false }

    /// A word shaped as a time (`10:00`, `10am`, `noon`), its numbers unchecked.
    static func isTimeWord(_ word: String) -> Bool {
        word == "noon" || word == "midnight"
            || (startsWithDigit(word) && (word.contains(":") || meridiems.contains { word.hasSuffix($0) }))
    }

    /// A word that may be part of a day: a day's word, a month's, a number, `next`, `in`, a unit.
    static func isDayWord(_ word: String) -> Bool {
        if ["next", "in", "day", "days", "week", "weeks"].contains(word) { return true }
        if isoDay(word) != nil || relativeDays(word, allowPast: true) != nil || weekday(word) != nil { return true }
        return monthDay([word, "1"]) != nil || monthDay(["jan", word]) != nil || monthDay(["jan", "1", word]) != nil
    }

    /// `YYYY-MM-DD` shaped (four, two and two digits), its numbers unchecked.
    static func isoDay(_ word: String) -> (Int, Int, Int)? {
        let fields = word.split(separator: "-", omittingEmptySubsequences: false)
        guard word.count == 10, fields.count == 3, fields[0].count == 4, fields[1].count == 2, fields[2].count == 2,
            fields.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let year = Int(fields[0]), let month = Int(fields[1]), let day = Int(fields[2])
        else { return nil }
        return (year, month, day)
    }

    /// `10:00`, `9:30`, `10:00:30`, `10am`, `10:30pm`, `12am` and `midnight` (00:00), `noon`:
    /// the second of the day.
    static func secondOfDay(_ text: Substring, fail: (DateParseError.Reason) -> ReservationError)
        throws(ReservationError)
        -> Int
    {
        var clock = text.lowercased().replacingOccurrences(of: ".", with: "")
        if clock == "noon" { return 12 * 3600 }
        if clock == "midnight" { return 0 }
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
        else { throw fail(.unknownWord(String(text))) }
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

    /// `today` 0, `tomorrow` (`tmrw`) 1, `+Nd` N, `+Nw` 7N; `-Nd`, `-Nw` and `yesterday` too when `allowPast`.
    static func relativeDays(_ word: String, allowPast: Bool) -> Int? {
        switch word {
        case "today": return 0
        case "tomorrow", "tmrw": return 1
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
