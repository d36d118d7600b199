import Foundation

/// A time zone as a calendar file defines it (`VTIMEZONE`), so that its events'
/// wall times are read with the file's own offsets even where the zone's name is
/// an IANA zone whose rules differ. Read: `STANDARD` and `DAYLIGHT` observances
/// with `DTSTART` (a wall time), `TZOFFSETFROM`, `TZOFFSETTO`, and either no rule
/// (one change) or `RRULE:FREQ=YEARLY;BYMONTH=M;BYDAY=nDD` (`n` 1 to 5, or -1 to
/// -5 from the month's end; `UNTIL` or `COUNT` may end it). Anything else (`RDATE`,
/// other rule parts) is not read: `init` says what.
public struct DefinedTimeZone: Sendable {
    struct Onset: Sendable {
        var day: CalendarDay
        var seconds: Int
        var from: Int
        var to: Int
        /// Yearly on the `week`th `weekday` (Sunday 1) of `month`, up to `lastYear`.
        var yearly: (month: Int, week: Int, weekday: Int)?
        var until: Date?
        var lastYear: Int?
    }

    let onsets: [Onset]

    /// The zone `definition` defines, or why it cannot be read.
    public init(_ definition: ICalendarReader.TimeZoneDefinition) throws(ReservationError) {
        func refuse(_ why: String) -> ReservationError {
            .invalidRequestField("VTIMEZONE '\((definition.tzid ?? "").prefix(64))' (line \(definition.line))", why)
        }
        var onsets: [Onset] = []
        for (kind, properties) in definition.observances where kind == "STANDARD" || kind == "DAYLIGHT" {
            func value(_ name: String) -> String? { properties.first { $0.name == name }?.value }
            if properties.contains(where: { $0.name == "RDATE" }) {
                throw refuse("lists its changes (RDATE), which resv does not read")
            }
            guard let start = value("DTSTART"), let (day, seconds) = Self.wall(start),
                let from = value("TZOFFSETFROM").flatMap(Self.offset), let to = value("TZOFFSETTO").flatMap(Self.offset)
            else { throw refuse("has a \(kind) without DTSTART, TZOFFSETFROM and TZOFFSETTO as resv reads them") }
            var onset = Onset(day: day, seconds: seconds, from: from, to: to)
            if let rule = value("RRULE") {
                var parts: [String: String] = [:]
                for part in rule.split(separator: ";") {
                    let pair = part.split(separator: "=", maxSplits: 1)
                    if pair.count == 2 { parts[pair[0].uppercased()] = pair[1].uppercased() }
                }
                guard parts["FREQ"] == "YEARLY", let month = parts["BYMONTH"].flatMap({ Int($0) }),
                    (1...12).contains(month), let byDay = parts["BYDAY"], byDay.count >= 2,
                    let weekday = Self.weekdays[String(byDay.suffix(2))],
                    Set(parts.keys).isSubset(of: ["FREQ", "BYMONTH", "BYDAY", "UNTIL", "COUNT", "WKST", "INTERVAL"]),
                    (parts["INTERVAL"] ?? "1") == "1"
                else { throw refuse("changes by the rule '\(rule.prefix(80))', which resv does not read") }
                let count = byDay.dropLast(2)
                let week = count.isEmpty ? 1 : Int(count.hasPrefix("+") ? count.dropFirst() : count) ?? 0
                guard (1...5).contains(abs(week)) else {
                    throw refuse("changes by the rule '\(rule.prefix(80))', which resv does not read")
                }
                onset.yearly = (month, week, weekday)
                if let text = parts["UNTIL"] {
                    let iso = text.count >= 15 ? Self.isoText(text) : nil
                    onset.until = iso.flatMap { try? DateTime.parse($0) }
                    if onset.until == nil, let (untilDay, _) = Self.wall(text + (text.count == 8 ? "T235959" : "")) {
                        onset.lastYear = untilDay.year
                    }
                }
                if let count = parts["COUNT"].flatMap({ Int($0) }) { onset.lastYear = day.year + count - 1 }
            }
            onsets.append(onset)
        }
        guard !onsets.isEmpty else { throw refuse("has no STANDARD or DAYLIGHT") }
        self.onsets = onsets
    }

    /// The instant of a wall time in this zone; of two (the hour the clocks repeat), the
    /// earlier; nil for a wall time the clocks skip.
    public func instant(day: CalendarDay, seconds: Int) -> Date? {
        let wall = day.daysSince1970 * 86_400 + seconds
        var offsets = Set(onsets.map(\.to))
        offsets.insert(first.from)
        let fitting = offsets.map { wall - $0 }.filter { offset(at: $0) == wall - $0 }
        guard let earliest = fitting.min() else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(earliest))
    }

    /// The onset that comes first (its `TZOFFSETFROM` is the offset before any change).
    private var first: Onset { onsets.min { Self.start($0) < Self.start($1) }! }

    private static func start(_ onset: Onset) -> Int { onset.day.daysSince1970 * 86_400 + onset.seconds - onset.from }

    /// The offset in force at `instant` (seconds since 1970, UTC).
    private func offset(at instant: Int) -> Int {
        let year = DateTime.civilFromDays(instant.floorDivided(by: 86_400)).year
        var latest: (at: Int, to: Int)?
        for onset in onsets {
            var changes = [Self.start(onset)]
            if let (month, week, weekday) = onset.yearly {
                for candidate in (year - 1)...(year + 1) where candidate > onset.day.year {
                    if let last = onset.lastYear, candidate > last { continue }
                    guard let day = Self.day(week, weekday, of: month, in: candidate) else { continue }
                    let at = day.daysSince1970 * 86_400 + onset.seconds - onset.from
                    if let until = onset.until, TimeInterval(at) > until.timeIntervalSince1970 { continue }
                    changes.append(at)
                }
            }
            for at in changes where at <= instant && at > (latest?.at ?? Int.min) { latest = (at, onset.to) }
        }
        return latest?.to ?? first.from
    }

    /// The `week`th `weekday` of a month (from its end when negative); nil when it has none.
    static func day(_ week: Int, _ weekday: Int, of month: Int, in year: Int) -> CalendarDay? {
        let length = DateTime.daysIn(month: month, year: year)
        if week > 0 {
            let firstWeekday = CalendarDay(year: year, month: month, day: 1).weekday
            let day = 1 + (weekday - firstWeekday + 7) % 7 + 7 * (week - 1)
            return day <= length ? CalendarDay(year: year, month: month, day: day) : nil
        }
        let lastWeekday = CalendarDay(year: year, month: month, day: length).weekday
        let day = length - (lastWeekday - weekday + 7) % 7 - 7 * (-week - 1)
        return day >= 1 ? CalendarDay(year: year, month: month, day: day) : nil
    }

    static let weekdays = ["SU": 1, "MO": 2, "TU": 3, "WE": 4, "TH": 5, "FR": 6, "SA": 7]

    /// `19701025T030000` as a day and seconds into it; nil when it is not one.
    public static func wall(_ text: String) -> (CalendarDay, Int)? {
        let chars = Array(text)
        guard chars.count == 15, chars[8] == "T",
            chars.enumerated().allSatisfy({ $0.offset == 8 || ($0.element.isASCII && $0.element.isNumber) }),
            let day = CalendarDay("\(String(chars[0..<4]))-\(String(chars[4..<6]))-\(String(chars[6..<8]))"),
            let hour = Int(String(chars[9..<11])), let minute = Int(String(chars[11..<13])),
            let second = Int(String(chars[13..<15])), hour < 24, minute < 60, second < 60
        else { return nil }
        return (day, hour * 3600 + minute * 60 + second)
    }

    /// `20261201T100000Z` as ISO 8601 (`2026-12-01T10:00:00Z`).
    static func isoText(_ text: String) -> String? {
        let chars = Array(text)
        guard chars.count == 16, chars[15] == "Z" || chars[15] == "z", wall(String(chars[0..<15])) != nil else {
            return nil
        }
        return "\(String(chars[0..<4]))-\(String(chars[4..<6]))-\(String(chars[6..<8]))T"
            + "\(String(chars[9..<11])):\(String(chars[11..<13])):\(String(chars[13..<15]))Z"
    }

    /// `+0100`, `-0500`, `+053000` as seconds east of UTC.
    static func offset(_ text: String) -> Int? {
        let sign: Int
        switch text.first {
        case "+"?: sign = 1
        case "-"?: sign = -1
        default: return nil
        }
        let digits = text.dropFirst()
        guard digits.count == 4 || digits.count == 6, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            return nil
        }
        let numbers = Array(digits).map { Int(String($0))! }
        let hours = numbers[0] * 10 + numbers[1]
        let minutes = numbers[2] * 10 + numbers[3]
        let seconds = digits.count == 6 ? numbers[4] * 10 + numbers[5] : 0
        guard hours < 24, minutes < 60, seconds < 60 else { return nil }
        return sign * (hours * 3600 + minutes * 60 + seconds)
    }
}
