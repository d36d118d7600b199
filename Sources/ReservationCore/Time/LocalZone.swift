import Foundation

/// The local zone as the C library reads `TZ` (docs/contracts.md, "Dates"), which
/// Foundation does not: it takes `:America/New_York`, `EST5EDT,M3.2.0/2,M11.1.0/2`
/// and `<-05>5` for UTC, and `UTC+5` for five hours *ahead* of UTC.
///
/// As glibc: unset is the system's zone; empty is UTC; a leading `:` is dropped;
/// a name of a file of the zone database (or a path to one) is that zone; anything
/// else is a POSIX zone (`std offset [dst [offset] [,start[/time],end[/time]]]`),
/// whose offset counts hours *west* of Greenwich. A POSIX zone with daylight saving
/// becomes the database zone that keeps the same clock (EST5EDT for the US
/// Eastern rules), since a `TimeZone` cannot carry rules of its own; when none
/// does, its offset at `now`.
public enum LocalZone {
    public static func resolve(_ tz: String?, now: Date, system: TimeZone = .current) -> TimeZone {
        guard var text = tz else { return system }
        if text.hasPrefix(":") { text.removeFirst() }
        if text.isEmpty { return utc }
        let folder = ProcessInfo.processInfo.environment["TZDIR"] ?? "/usr/share/zoneinfo"
        if let zone = databaseZone(text, folder: folder) { return zone }
        if let footer = footer(ofFile: text.hasPrefix("/") ? text : folder + "/" + text) {
            text = footer
        }
        guard let posix = PosixZone(text) else { return utc }
        return posix.timeZone(now: now)
    }

    static let utc = TimeZone(identifier: "UTC") ?? .gmt

    /// The zone `name` names when it is a file of the database (`America/New_York`, `EST5EDT`,
    /// `/usr/share/zoneinfo/Europe/Paris`) that Foundation knows too.
    private static func databaseZone(_ name: String, folder: String) -> TimeZone? {
        var relative = name
        if name.hasPrefix("/") {
            let resolved = URL(fileURLWithPath: name).resolvingSymlinksInPath().path
            let base = URL(fileURLWithPath: folder).resolvingSymlinksInPath().path + "/"
            guard let under = [name, resolved].first(where: { $0.hasPrefix(base) || $0.hasPrefix(folder + "/") })
            else { return nil }
            relative = String(under.dropFirst(under.hasPrefix(base) ? base.count : folder.count + 1))
            for prefix in ["posix/", "right/"] where relative.hasPrefix(prefix) {
                relative.removeFirst(prefix.count)
            }
        }
        guard !relative.contains(".."), FileManager.default.fileExists(atPath: folder + "/" + relative),
            let zone = TimeZone(identifier: relative)
        else { return nil }
        return zone
    }

    /// The POSIX zone a TZif file (version 2 or later) ends with: what it says after its last transition.
    private static func footer(ofFile path: String) -> String? {
        guard !path.contains(".."), let handle = FileHandle(forReadingAtPath: path),
            let data = try? handle.read(upToCount: 1 << 20)
        else { return nil }
        try? handle.close()
        let bytes = [UInt8](data)
        guard bytes.count >= 44, bytes[0..<4].elementsEqual("TZif".utf8), bytes.last == 0x0A,
            let start = bytes.dropLast().lastIndex(of: 0x0A)
        else { return nil }
        let footer = String(decoding: bytes[(start + 1)..<(bytes.count - 1)], as: UTF8.self)
        return footer.isEmpty ? nil : footer
    }
}

/// A POSIX `TZ` value: a standard name and offset, and optionally a daylight-saving
/// name, offset and the rules that start and end it.
struct PosixZone: Equatable {
    /// Seconds east of UTC (the text counts west).
    var standardOffset: Int
    var daylightOffset: Int?
    var start: Rule?
    var end: Rule?

    /// The day and time a change of offset happens, at the local time then in force.
    struct Rule: Equatable {
        enum Day: Equatable {
            /// `Jn`: 1 to 365, February 29 never counted.
            case julian(Int)
            /// `n`: 0 to 365, February 29 counted.
            case zeroBased(Int)
            /// `Mm.w.d`: weekday d (0 Sunday) of week w (5: the last) of month m.
            case month(Int, week: Int, weekday: Int)
        }
        var day: Day
        var time = 7200

        /// The instant this rule names in `year`, with `offset` the local time's offset then.
        func instant(year: Int, offset: Int) -> Int {
            let first = DateTime.daysFromCivil(year: year, month: 1, day: 1)
            let dayNumber: Int
            switch day {
            case .julian(let n):
                dayNumber = first + n - 1 + (DateTime.isLeap(year) && n >= 60 ? 1 : 0)
            case .zeroBased(let n):
                dayNumber = first + n
            case .month(let month, let week, let weekday):
                let firstOfMonth = DateTime.daysFromCivil(year: year, month: month, day: 1)
                let firstWeekday = (firstOfMonth + 4) - (firstOfMonth + 4).floorDivided(by: 7) * 7
                var day = firstOfMonth + (weekday - firstWeekday + 7) % 7 + (week - 1) * 7
                while week == 5, day >= firstOfMonth + DateTime.daysIn(month: month, year: year) { day -= 7 }
                dayNumber = day
            }
            return dayNumber * 86_400 + time - offset
        }
    }

    init?(_ text: String) {
        var rest = Substring(text)
        guard Self.name(&rest) != nil, let standard = Self.offset(&rest) else { return nil }
        standardOffset = -standard
        guard !rest.isEmpty else { return }
        guard Self.name(&rest) != nil else { return nil }
        if let daylight = Self.offset(&rest) {
            daylightOffset = -daylight
        } else {
            daylightOffset = standardOffset + 3600
        }
        if rest.isEmpty {
            // No rules: glibc's default, the United States' since 2007.
            start = Rule(day: .month(3, week: 2, weekday: 0))
            end = Rule(day: .month(11, week: 1, weekday: 0))
            return
        }
        guard Self.take(",", &rest), let start = Self.rule(&rest), Self.take(",", &rest), let end = Self.rule(&rest),
            rest.isEmpty
        else { return nil }
        self.start = start
        self.end = end
    }

    /// Seconds east of UTC at `instant` (seconds since 1970).
    func offset(at instant: Int) -> Int {
        guard let daylightOffset, let start, let end else { return standardOffset }
        let year = DateTime.civilFromDays((instant + standardOffset).floorDivided(by: 86_400)).year
        let begins = start.instant(year: year, offset: standardOffset)
        let ends = end.instant(year: year, offset: daylightOffset)
        let inDaylight = begins < ends ? (begins <= instant && instant < ends) : (instant < ends || instant >= begins)
        return inDaylight ? daylightOffset : standardOffset
    }

    /// Instants that tell this zone's clock apart from another's: around each change of
    /// offset, and in the middle of each season, over three years from `now`'s.
    func samples(now: Date) -> [Int] {
        let year = DateTime.civilFromDays(Int(now.timeIntervalSince1970).floorDivided(by: 86_400)).year
        var instants: [Int] = []
        for year in (year - 1)...(year + 1) {
            for (month, day) in [(1, 15), (4, 15), (7, 15), (10, 15)] {
                instants.append(DateTime.daysFromCivil(year: year, month: month, day: day) * 86_400)
            }
            guard let start, let end, let daylightOffset else { continue }
            for change in [
                start.instant(year: year, offset: standardOffset), end.instant(year: year, offset: daylightOffset),
            ] {
                instants += [change - 3600, change, change + 3600]
            }
        }
        return instants
    }

    /// A zone with this clock: a fixed offset, or a zone of the database that keeps the same rules.
    func timeZone(now: Date) -> TimeZone {
        guard daylightOffset != nil else {
            return TimeZone(secondsFromGMT: standardOffset) ?? LocalZone.utc
        }
        let instants = samples(now: now)
        let wanted = instants.map(offset(at:))
        func keeps(_ identifier: String) -> TimeZone? {
            guard let zone = TimeZone(identifier: identifier) else { return nil }
            let same = instants.indices.allSatisfy {
                zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(instants[$0]))) == wanted[$0]
            }
            return same ? zone : nil
        }
        // The US zones named like their POSIX rules first (EST5EDT), then every other.
        let preferred = ["EST5EDT", "CST6CDT", "MST7MDT", "PST8PDT"]
        for identifier in preferred + TimeZone.knownTimeZoneIdentifiers.sorted() {
            if let zone = keeps(identifier) { return zone }
        }
        let current = offset(at: Int(now.timeIntervalSince1970))
        return TimeZone(secondsFromGMT: current) ?? LocalZone.utc
    }

    // MARK: - Reading

    /// `EST`, or `<-05>` (letters, digits and signs between angle brackets).
    private static func name(_ text: inout Substring) -> Substring? {
        if text.first == "<" {
            guard let close = text.firstIndex(of: ">") else { return nil }
            let name = text[text.index(after: text.startIndex)..<close]
            guard name.count >= 3,
                name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-") })
            else { return nil }
            text = text[text.index(after: close)...]
            return name
        }
        let name = text.prefix { $0.isASCII && $0.isLetter }
        guard name.count >= 3 else { return nil }
        text = text.dropFirst(name.count)
        return name
    }

    /// `[+-]hh[:mm[:ss]]` in seconds (hours up to 24 for an offset, 167 for a rule's time).
    private static func offset(_ text: inout Substring, maximumHours: Int = 24) -> Int? {
        var sign = 1
        var rest = text
        if rest.first == "+" || rest.first == "-" {
            sign = rest.first == "-" ? -1 : 1
            rest = rest.dropFirst()
        }
        var fields: [Int] = []
        while fields.count < 3 {
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard (1...3).contains(digits.count), let value = Int(digits) else { break }
            fields.append(value)
            rest = rest.dropFirst(digits.count)
            guard fields.count < 3, rest.first == ":" else { break }
            rest = rest.dropFirst()
        }
        guard let hours = fields.first, hours <= maximumHours, fields.dropFirst().allSatisfy({ $0 <= 59 }) else {
            return nil
        }
        text = rest
        let minutes = fields.count > 1 ? fields[1] : 0
        let seconds = fields.count > 2 ? fields[2] : 0
        return sign * (hours * 3600 + minutes * 60 + seconds)
    }

    /// Takes `character` from the start of `text`, if it is there.
    private static func take(_ character: Character, _ text: inout Substring) -> Bool {
        guard text.first == character else { return false }
        text = text.dropFirst()
        return true
    }

    /// `Jn`, `n` or `Mm.w.d`, then optionally `/time`.
    private static func rule(_ text: inout Substring) -> Rule? {
        var rest = text
        func number() -> Int? {
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard (1...3).contains(digits.count) else { return nil }
            rest = rest.dropFirst(digits.count)
            return Int(digits)
        }
        var rule: Rule
        switch rest.first {
        case "J":
            rest = rest.dropFirst()
            guard let day = number(), (1...365).contains(day) else { return nil }
            rule = Rule(day: .julian(day))
        case "M":
            rest = rest.dropFirst()
            guard let month = number(), (1...12).contains(month), take(".", &rest), let week = number(),
                (1...5).contains(week), take(".", &rest), let weekday = number(), (0...6).contains(weekday)
            else { return nil }
            rule = Rule(day: .month(month, week: week, weekday: weekday))
        default:
            guard let day = number(), (0...365).contains(day) else { return nil }
            rule = Rule(day: .zeroBased(day))
        }
        if rest.first == "/" {
            rest = rest.dropFirst()
            guard let time = offset(&rest, maximumHours: 167) else { return nil }
            rule.time = time
        }
        text = rest
        return rule
    }
}

extension TimeZone {
    /// The zone's name as a person or a catalog wrote it: `UTC` stays `UTC` (Foundation on
    /// Linux calls it `GMT`), every other zone its identifier.
    public var name: String {
        ["GMT", "Etc/UTC", "Etc/GMT", "Universal", "Zulu", "Etc/Universal", "Etc/Zulu"].contains(identifier)
            ? "UTC" : identifier
    }
}
