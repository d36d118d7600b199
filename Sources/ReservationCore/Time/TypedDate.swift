import Foundation

/// Dates as a person types them (`--date` of reserve and modify, `--from` and
/// `--to` of list, log and availability, `--until` of a series), resolved to one
/// instant and then held to the same rules as records (docs/contracts.md, "Dates").
/// Records themselves never come through here: a store, a server or a batch line
/// stays exactly as strict as `DateTime.parse`.
///
/// One grammar for every option: a day and a time, in either order, `at` before the time if
/// one likes. Besides a full date-time with a zone (read exactly as a record):
/// - a day: `2026-12-01`, `today`, `tomorrow` (`tmrw`), `yesterday`, `+3d`, `-1w`,
///   `in 2 days`, `in 3 weeks`, `fri` or `next friday` (the next Friday, never today),
///   `dec 24`, `24 december`, `jan 5 2028` (the next such day, or that year's);
/// - a time: `10:00`, `9:30`, `10:00:30`, `10am`, `10:30 pm`, `noon`, `midnight` (00:00, the
///   day's start);
/// - together: `tomorrow 09:30`, `tomorrow at 10am`, `10am tomorrow`, `2026-12-24 9:30 pm`,
///   `2026-12-01T08:00`: a wall time in `zone` on a day counted from `now` in `zone`.
/// A filter takes a day alone as the whole day (`day`, `bound`); where an instant is needed
/// (`resolve`) a day alone asks for a time, and a time alone for a day.
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
        let phrase = try Phrase(text)
        func fail(_ reason: DateParseError.Reason) -> ReservationError {
            .invalidDate(DateParseError(input: text, reason: reason))
        }
        guard let named = phrase.day else { throw fail(.typedMissingDay) }
        guard let time = phrase.time else { throw fail(.typedMissingTime) }
        let day = try named.day(text, now: now, zone: zone)
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
            case .missingTime, .notADateTime, .missingSeconds, .missingZone:
                guard let phrase = try? Phrase(text) else { return false }
                return phrase.day != nil && phrase.time != nil
            default: return false
            }
        }
    }

    /// The day `text` names in `zone` (`--from`/`--to`, `--until`): a day of the grammar
    /// alone (`2026-12-01`, `today`, `tmrw`, `+7d`, `-7d`, `in 2 weeks`, `fri`, `next fri`,
    /// `dec 24`); nil when it is no day alone (a caller may then read a date-time).
    public static func day(_ text: String, now: Date, zone: TimeZone) throws(ReservationError) -> CalendarDay? {
        if let day = CalendarDay(text.trimmingCharacters(in: .whitespaces)) { return day }
        // A day shaped right but not one (2026-02-30, dec 32) is refused as a date would be.
        guard let phrase = try? Phrase(text), phrase.time == nil, let named = phrase.day else { return nil }
        return try named.day(text, now: now, zone: zone)
    }

    /// The word of `text` that is no day or time of the grammar (`wek` of `next wek`), if one is.
    public static func strangeWord(_ text: String) -> String? {
        do {
            _ = try Phrase(text)
            return nil
        } catch {
            guard case .invalidDate(let refusal) = error else { return nil }
            switch refusal.reason {
            case .unknownWord(let word), .bareHour(let word): return word
            default: return nil
            }
        }
    }

    /// The day words a refusal lists.
    public static let dayForms = "YYYY-MM-DD, today, tmrw, +3d, -1w, in 2 weeks, fri, next fri or dec 24"

    /// An end of a range (`--from`, `--to`): a day means all of it in `zone` (from
    /// its first second, or to its last), anything else a date-time as typed.
    public static func bound(_ text: String, end: Bool, now: Date, zone: TimeZone) throws(ReservationError) -> Date {
        guard let day = try day(text, now: now, zone: zone) else { return try resolve(text, now: now, zone: zone) }
        return end ? start(of: day.next, in: zone) - 1 : start(of: day, in: zone)
    }

    /// The instant whose wall clock in `to` reads what `date`'s reads in `from` (a visit moved to
    /// another landmark keeps the visitor's clock: 09:00 at Half Dome is 09:00 at the Brooklyn
    /// Bridge). A wall time `to` skips is refused, one it repeats is the earlier, as when typed.
    public static func sameWallTime(_ date: Date, from: TimeZone, to: TimeZone) throws(ReservationError) -> Date {
        guard from.identifier != to.identifier else { return date }
        let wall = Int(date.timeIntervalSince1970.rounded(.down)) + from.secondsFromGMT(for: date)
        let day = CalendarDay(daysSince1970: wall.floorDivided(by: 86_400))
        let time = wall - day.daysSince1970 * 86_400
        let text = "\(day) " + String(format: "%02d:%02d", time / 3600, time / 60 % 60)
        return try instant(day: day, time: time, zone: to, text: text)
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
}
