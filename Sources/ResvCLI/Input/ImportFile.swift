import ArgumentParser
import Foundation
import ReservationCore

/// What `resv import` reads: the events of an iCalendar file or the rows of a
/// CSV file, each an `Entry` (its id, landmark, start, party, status, note as
/// the file says them), then, against a catalog and a time, an `Outcome`: a
/// request to book, an event that has ended (skipped), or a refusal.
///
/// Ids: resv's own export keeps its reservation's id (`UID:<id>@resv`, the CSV's
/// `id`), so it comes back as itself; another calendar's event gets a name-based
/// UUID (`NameBasedID`) of the user and its UID (and `RECURRENCE-ID`), the same
/// at every import, so importing twice finds it there; the user is folded in
/// because an id is unique across a server's users.
enum ImportFile {
    enum Format: String, CaseIterable, Sendable {
        case ics, csv

        /// The format a file's name says; nil for another extension.
        init?(path: String) {
            switch (path as NSString).pathExtension.lowercased() {
            case "ics", "ical", "ifb", "icalendar": self = .ics
            case "csv": self = .csv
            default: return nil
            }
        }
    }

    /// The most a file may hold: room for far more events than a batch takes (10,000).
    static let maxBytes = 16 << 20

    /// Why a file is not of its format (exit 65): the line, and what is wrong there.
    struct NotTheFormat: Error {
        var line: Int
        var reason: String
    }

    /// One event or row, as the file says it.
    struct Entry {
        /// The line it starts on (a refusal names it), and how to name it: `event 'UID'`, `row 3`.
        var line: Int
        var origin: String
        var id: Reservation.ID
        var landmark: LandmarkHint
        var start: Start?
        var partySize: Int
        /// As the file says it: a cancelled or expired one has ended.
        var status: Reservation.Status
        var note: String?
        /// resv's series it was booked in (`X-RESV-SERIES`, the CSV's `series`), kept as it was.
        var series: Reservation.SeriesID?
        /// Why it cannot be booked, whatever the catalog and the time (a value that does not read).
        var problem: ReservationError?
        /// What kind of reason `problem` is, as the skipped events are counted.
        var kind = Unbookable.unreadable
        /// A repeating event's rule (RRULE that `--every` can book): `visits(in:now:)` makes its visits.
        var rule: Rule?
        /// The text its name-based id is made of (the UID; with --new-ids the user and the UID),
        /// and its visits' ids and series'.
        var idBase = ""
        /// The id the other choice of --new-ids makes (and the text of its visits' ids), when it is
        /// another: an event booked under it is already there.
        var otherID: Reservation.ID?
        var otherBase: String?
        /// The event's UID, as the file says it (a CSV row has none).
        var uid: String?
        /// It has an RRULE, RDATE or EXRULE: its start alone does not say whether it has ended.
        var repeats = false
        /// It has a RECURRENCE-ID: it changes one visit of a repeating event.
        var changesVisit = false
    }

    /// Why an event is not booked (skipped and counted, or, with --strict, refused), in the
    /// words of the count `import` prints.
    enum Unbookable: String, CaseIterable, Sendable {
        case allDay = "all-day"
        case recurrence = "repeating beyond --every"
        case landmark = "landmark not found"
        case zone = "time zone not read"
        case twoStarts = "two DTSTARTs"
        case party = "party out of range"
        case unreadable = "unreadable"
        case refused = "refused"
    }

    /// An RRULE that `reserve --every` can book: FREQ DAILY, WEEKLY or MONTHLY, INTERVAL 1,
    /// COUNT or UNTIL, BYDAY or BYMONTHDAY only as the start's own day, and EXDATEs.
    struct Rule {
        var every: Recurrence
        var count: Int?
        /// UNTIL as written (a date or a date-time, UTC or floating).
        var until: String?
        /// BYDAY (two letters, WEEKLY) or BYMONTHDAY (MONTHLY) as given: each must be the first visit's.
        var byDay: String?
        var byMonthDay: Int?
        var exdates: [ICalendarReader.Property]
    }

    /// How an entry names its landmark.
    enum LandmarkHint {
        /// resv's own: the landmark's id, and its name when the id is not in this catalog.
        case id(Landmark.ID, name: String?)
        /// A CSV's `landmark` column: an id, a name or its words, as `--landmark` reads it.
        case typed(String)
        /// Another calendar's event: a landmark whose name is in LOCATION, else in SUMMARY,
        /// else whose location LOCATION is.
        case words(location: String?, summary: String?)
    }

    /// When it starts.
    enum Start {
        case instant(Date)
        /// An instant read in the file's own VTIMEZONE, which differs from the zone of that name.
        case defined(Date)
        /// A wall time (`2026-12-01T08:00:00`) in this zone, or the landmark's (nil).
        case wall(String, zone: TimeZone?)
    }

    /// Why an event is skipped as ended.
    enum Ended: String, CaseIterable {
        case cancelled, past
    }

    enum Outcome {
        case book(NewReservation)
        case ended(Ended)
        case refused(ReservationError, Unbookable)
    }
}
