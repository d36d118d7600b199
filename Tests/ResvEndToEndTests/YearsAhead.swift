import Foundation
import Testing

/// The end-to-end tests' fixed dates (the years 2030 to 2039) kept ahead of the real date.
///
/// The built binaries read the machine's clock and refuse a visit in the past, so a
/// date written into a test would one day stop being bookable. Until 2028 nothing moves;
/// from then on the years move ahead by 28, or a multiple of it, enough to stay two
/// years ahead: 28 Gregorian years (none of them crossing 2100) bring back the same
/// weekdays, leap years and daylight-saving Sundays, so every expected table, calendar
/// and zone abbreviation stays true. The text a child is given (arguments, stdin, a
/// seeded store) is moved forward, what it prints and stores is moved back, in
/// `runProcess` and `Sandbox`. `RESV_TEST_YEARS_AHEAD=28` moves them today, to try it.
enum YearsAhead {
    static let years: Int = {
        if let forced = ProcessInfo.processInfo.environment["RESV_TEST_YEARS_AHEAD"].flatMap(Int.init) {
            return forced
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let behind = calendar.component(.year, from: Date()) + 2 - 2030
        return behind <= 0 ? 0 : (behind + 27) / 28 * 28
    }()

    /// `text` with its years from 2030 to 2039 moved ahead.
    static func forward(_ text: String) -> String { shift(text, from: 2030, by: years) }

    /// `text` with the years `forward` gives moved back. With `checked` (what
    /// `resv` or `resv-server` printed: they read the clock) while years are
    /// moved, a year from 2030 to 2039 in it reached the child unmoved (a date
    /// handed over around `forward`, which that child will refuse once it is
    /// past): recorded as the test's issue, so a missed shift is found now
    /// (`RESV_TEST_YEARS_AHEAD=28`), not in 2028. Other children (python
    /// reading an answer already moved back, groff) are not checked.
    static func back(_ text: String, checked: Bool = false) -> String {
        if checked, years != 0, let unmoved = firstYear(in: text, from: 2030) {
            Issue.record("a date of \(unmoved) reached a child without YearsAhead.forward: \(text.prefix(300))")
        }
        return shift(text, from: 2030 + years, by: -years)
    }

    /// `data` with the years `forward` gives moved back, when it is UTF-8 text (other bytes stay as they are).
    static func back(_ data: Data) -> Data {
        guard years != 0, let text = String(data: data, encoding: .utf8) else { return data }
        return Data(back(text).utf8)
    }

    /// Whether `executable` is one of the binaries that read the clock (`resv`, `resv-server`).
    static func readsTheClock(_ executable: String) -> Bool {
        ["resv", "resv-server"].contains(URL(fileURLWithPath: executable).lastPathComponent)
    }

    /// Writes `text` to `file` for a child to read (a batch, a seed, a store), its years moved ahead.
    static func write(_ text: String, to file: URL) throws { try Data(forward(text).utf8).write(to: file) }

    /// The text a child wrote to `file`, its years moved back.
    static func read(_ file: URL) throws -> String { back(try String(contentsOf: file, encoding: .utf8)) }

    /// A year in a date (2030-12-01, 20301201T10…) or after a month's name (January 2030);
    /// never a group of an id (…-2030-…) nor part of a longer number.
    private static let year = try! NSRegularExpression(
        pattern: #"(?<![0-9A-Za-z-])(\d{4})(?=-[01]\d-[0-3]\d|[01]\d[0-3]\dT)"#
            + #"|(?<=(?:January|February|March|April|May|June|July|August|September|October|November|December) )"#
            + #"(\d{4})(?![0-9])"#)

    /// The first year from `first` to `first + 9` in `text` (as `year` finds years), if any.
    private static func firstYear(in text: String, from first: Int) -> Int? {
        let source = text as NSString
        for match in year.matches(in: text, range: NSRange(location: 0, length: source.length)) {
            let range = match.range(at: 1).location != NSNotFound ? match.range(at: 1) : match.range(at: 2)
            if let value = Int(source.substring(with: range)), (first..<first + 10).contains(value) { return value }
        }
        return nil
    }

    private static func shift(_ text: String, from first: Int, by delta: Int) -> String {
        guard delta != 0 else { return text }
        let source = text as NSString
        let result = NSMutableString(string: text)
        for match in year.matches(in: text, range: NSRange(location: 0, length: source.length)).reversed() {
            let range = match.range(at: 1).location != NSNotFound ? match.range(at: 1) : match.range(at: 2)
            guard let value = Int(source.substring(with: range)), (first..<first + 10).contains(value) else {
                continue
            }
            result.replaceCharacters(in: range, with: String(value + delta))
        }
        return result as String
    }
}
