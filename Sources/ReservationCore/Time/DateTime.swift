import Foundation

/// The one ISO 8601 / RFC 3339 date-time parser, for stored records, server
/// responses and every date a user types, so they can never disagree.
///
/// Accepts `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`. Rejects a date without
/// a time, a time without a zone, and impossible values (February 30, hour 25,
/// month 13, second 60) instead of rolling them over as Foundation does.
///
/// One rule for every backend: a date must be writable and readable back
/// exactly. Dates are whole seconds (a fraction is accepted and dropped, never
/// rounded up into the next second, day or year), and in UTC they must fall
/// in the years 0000 to 9999, so `format` always writes `YYYY-MM-DDTHH:MM:SSZ`
/// (what jq's `fromdateiso8601` reads).
public enum DateTime {
    /// Parses a date-time with a zone designator.
    public static func parse(_ text: String) throws(DateParseError) -> Date {
        var utf8 = text
        let result = utf8.withUTF8 { utf8 in Result { () throws(DateParseError) in try parse(utf8) } }
        switch result {
        case .success(let date): return date
        case .failure(var error):
            error.input = text
            throw error
        }
    }

    /// The parse itself, on the text's bytes; errors get their input from `parse(_:)`.
    private static func parse(_ utf8: UnsafeBufferPointer<UInt8>) throws(DateParseError) -> Date {
        var scanner = Scanner(utf8)
        let fail = { (reason: DateParseError.Reason) in DateParseError(input: "", reason: reason) }
        if utf8.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { throw fail(.empty) }

        guard let year = scanner.digits(4), scanner.take(UInt8(ascii: "-")),
            let month = scanner.digits(2), scanner.take(UInt8(ascii: "-")),
            let day = scanner.digits(2)
        else { throw fail(.notADateTime) }
        if scanner.isAtEnd { throw fail(.missingTime) }
        guard scanner.take(UInt8(ascii: "T")) || scanner.take(UInt8(ascii: "t")) else { throw fail(.notADateTime) }
        guard let hour = scanner.digits(2), scanner.take(UInt8(ascii: ":")),
            let minute = scanner.digits(2)
        else { throw fail(.notADateTime) }
        guard scanner.take(UInt8(ascii: ":")), let second = scanner.digits(2) else { throw fail(.missingSeconds) }

        if scanner.take(UInt8(ascii: ".")) || scanner.take(UInt8(ascii: ",")) {
            guard let digits = scanner.digitRun(), !digits.isEmpty else { throw fail(.notADateTime) }
        }

        let offsetSeconds: Int
        if scanner.take(UInt8(ascii: "Z")) || scanner.take(UInt8(ascii: "z")) {
            offsetSeconds = 0
        } else if let sign = scanner.takeSign() {
            guard let offsetHours = scanner.digits(2), scanner.take(UInt8(ascii: ":")),
                let offsetMinutes = scanner.digits(2)
            else { throw fail(.invalidZone) }
            guard offsetHours <= 23, offsetMinutes <= 59 else { throw fail(.invalidZone) }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        } else if scanner.isAtEnd {
            throw fail(.missingZone)
        } else {
            throw fail(.notADateTime)
        }
        guard scanner.isAtEnd else { throw fail(.notADateTime) }

        guard (1...12).contains(month) else { throw fail(.monthOutOfRange(month)) }
        let daysInMonth = Self.daysIn(month: month, year: year)
        guard (1...daysInMonth).contains(day) else { throw fail(.dayOutOfRange(day, month: month, year: year)) }
        guard hour <= 23 else { throw fail(.hourOutOfRange(hour)) }
        guard minute <= 59 else { throw fail(.minuteOutOfRange(minute)) }
        guard second <= 59 else { throw fail(.secondOutOfRange(second)) }

        let days = Self.daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        guard Self.writableSeconds.contains(seconds) else { throw fail(.outsideFourDigitYears) }
        return Date(timeIntervalSince1970: Double(seconds))
    }

    /// 0000-01-01T00:00:00Z through 9999-12-31T23:59:59Z, in seconds since 1970.
    static let writableSeconds = -62_167_219_200...253_402_300_799

    /// `YYYY-MM-DDTHH:MM:SSZ` in UTC: the whole second (a fraction is dropped).
    /// Every date `parse` gives is within four-digit years; any other date (only
    /// arithmetic could make one) is written at the nearest end of that range,
    /// never a trap or a text that `parse` would refuse.
    public static func format(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        let whole = interval.isNaN ? 0 : interval.rounded(.down)
        let seconds = Int(
            min(max(whole, Double(writableSeconds.lowerBound)), Double(writableSeconds.upperBound)))
        let days = seconds.floorDivided(by: 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civilFromDays(days)
        return format(year: year, month: month, day: day, secondOfDay: secondOfDay)
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, written into the string's own storage.
    private static func format(year: Int, month: Int, day: Int, secondOfDay: Int) -> String {
        String(unsafeUninitializedCapacity: 20) { text in
            var position = 0
            func put(_ value: Int, _ width: Int) {
                var value = value
                for offset in stride(from: width - 1, through: 0, by: -1) {
                    text[position + offset] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
                position += width
            }
            func put(_ character: Unicode.Scalar) {
                text[position] = UInt8(ascii: character)
                position += 1
            }
            put(year, 4)
            put("-")
            put(month, 2)
            put("-")
            put(day, 2)
            put("T")
            put(secondOfDay / 3600, 2)
            put(":")
            put(secondOfDay % 3600 / 60, 2)
            put(":")
            put(secondOfDay % 60, 2)
            put("Z")
            return position
        }
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    static func isLeap(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    // Howard Hinnant's days_from_civil / civil_from_days: exact proleptic
    // Gregorian arithmetic without Calendar, which is both lenient and slow.
    /// Days since 1970-01-01 of a proleptic Gregorian date.
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = y.floorDivided(by: 400)
        let yearOfEra = y - era * 400
        let monthIndex = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * monthIndex + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day since 1970-01-01.
    public static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = z.floorDivided(by: 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

}

/// A date the parser refused, with the reason in words.
public struct DateParseError: Error, Sendable, Equatable, LocalizedError {
    public enum Reason: Sendable, Equatable {
        case empty
        case notADateTime
        case missingTime
        case missingSeconds
        case missingZone
        case invalidZone
        case monthOutOfRange(Int)
        case dayOutOfRange(Int, month: Int, year: Int)
        case hourOutOfRange(Int)
        case minuteOutOfRange(Int)
        case secondOutOfRange(Int)
        /// In UTC the date is before the year 0000 or after 9999: it could not be written back.
        case outsideFourDigitYears
        /// A wall time the zone skips (its clocks jump forward over it).
        case skippedByZone(String)
        /// Typed by a person, and none of the forms a person may type.
        case notTyped
        /// Typed by a person: this word (or these words) is no day or time resv reads.
        case unknownWord(String)
        /// Typed by a person: a number alone where a time goes (`tomorrow 10`).
        case bareHour(String)
        /// Typed by a person: a day without a time.
        case typedMissingTime
        /// Typed by a person: a time without a day.
        case typedMissingDay
    }

    public var input: String
    public var reason: Reason

    /// Why the date was refused, without the input.
    public var explanation: String {
        switch reason {
        case .empty: "a date is required"
        case .notADateTime: "expected an ISO 8601 date-time like 2026-12-01T10:00:00Z"
        case .missingTime: "a date alone is not enough: add a time and zone, like 2026-12-01T10:00:00Z"
        case .missingSeconds: "add seconds, like 2026-12-01T10:00:00Z"
        case .missingZone: "add a time zone: Z for UTC or an offset like +02:00"
        case .invalidZone: "the time zone must be Z or an offset like +02:00"
        case .monthOutOfRange(let month): "there is no month \(month)"
        case .dayOutOfRange(let day, let month, let year):
            "day \(day) does not exist in \(DateParseError.monthNames[month - 1]) \(year)"
        case .hourOutOfRange(let hour): "hour \(hour) is out of range (00-23)"
        case .minuteOutOfRange(let minute): "minute \(minute) is out of range (00-59)"
        case .secondOutOfRange(let second): "second \(second) is out of range (00-59)"
        case .outsideFourDigitYears: "in UTC it falls outside the years 0000 to 9999"
        case .notTyped: Self.forms
        case .unknownWord(let word):
            "'\(word.quoted(limit: 40))' is not a day or a time resv reads; \(Self.forms)"
        case .bareHour(let hour): "'\(hour.quoted(limit: 40))' is not a time: write \(hour):00 or \(hour)am"
        case .typedMissingTime:
            "a day alone is not enough: add a time, like '\(Self.example(input, time: "10:00"))' or "
                + "'\(Self.example(input, time: "at 9:30 pm"))'"
        case .typedMissingDay:
            "a time alone is not enough: add a day, like 'today \(Self.example(input, time: ""))' or "
                + "'tomorrow \(Self.example(input, time: ""))'"
        case .skippedByZone(let zone):
            "that time does not exist in \(zone) (the clocks jump forward over it): give another"
        }
    }

    public var errorDescription: String? {
        reason == .empty ? explanation : "invalid date '\(input.quoted())': \(explanation)"
    }

    /// The forms a person may type, as the words of a refusal.
    static let forms =
        "expected a date and time like 2026-12-01 10:00 (at the landmark), tomorrow 09:30, +3d 14:00, "
        + "next friday 10am, dec 24 at noon, 10am in 2 days or 2026-12-01T10:00:00Z"

    /// What was typed (cut short), with `time` after it: the example a refusal gives.
    static func example(_ input: String, time: String) -> String {
        var words = input.split(separator: " ")
        if words.last?.lowercased() == "at" { words.removeLast() }
        let typed = words.joined(separator: " ").quoted(limit: 40)
        return time.isEmpty ? typed : typed + " " + time
    }

    static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
        "November", "December",
    ]
}

private struct Scanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    var isAtEnd: Bool { index == bytes.count }

    mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    mutating func takeSign() -> Int? {
        if take(UInt8(ascii: "+")) { return 1 }
        if take(UInt8(ascii: "-")) { return -1 }
        return nil
    }

    /// Exactly `count` ASCII digits as a number, or nil without consuming.
    mutating func digits(_ count: Int) -> Int? {
        guard index + count <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[index..<index + count] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        index += count
        return value
    }

    mutating func digitRun() -> [Int]? {
        var run: [Int] = []
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            run.append(Int(bytes[index] - UInt8(ascii: "0")))
            index += 1
        }
        return run
    }
}

extension Int {
    /// Division rounded toward minus infinity (days before 1970 included).
    func floorDivided(by divisor: Int) -> Int {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
