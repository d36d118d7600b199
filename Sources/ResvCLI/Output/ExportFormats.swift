import Foundation
import ReservationCore

/// CSV as RFC 4180 writes it: a header row, then one record per value, every
/// line ended by CRLF. A field is quoted when it holds a comma, a double quote
/// (doubled inside), a CR or an LF, or when it starts with a character a
/// spreadsheet reads as a formula (`=`, `+`, `-`, `@`, tab) or with a space.
/// Values are never changed, so a CSV reader gets exactly what `--json` says;
/// quoting a formula-like field keeps LibreOffice's "quoted field as text" on
/// the safe side, but Excel still evaluates it, so import such files as text.
struct CSVWriter {
    private(set) var text = ""
    let columns: [String]

    init(columns: [String]) {
        self.columns = columns
        row(columns)
    }

    /// One record; nil is an empty field (JSON's null or an absent field).
    mutating func row(_ fields: [String?]) {
        for (index, field) in fields.enumerated() {
            if index > 0 { text.append(",") }
            text.append(Self.field(field ?? ""))
        }
        text.append("\r\n")
    }

    /// Hands over what is written so far (for writing a long list in pieces).
    mutating func take() -> String {
        defer { text = "" }
        return text
    }

    static func field(_ value: String) -> String {
        guard needsQuotes(value) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    private static func needsQuotes(_ value: String) -> Bool {
        if let first = value.unicodeScalars.first, "=+-@\t ".unicodeScalars.contains(first) { return true }
        return value.unicodeScalars.contains { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" }
            || value.unicodeScalars.last == " "
    }
}

/// The columns of each list-shaped output in CSV, named after its JSON fields.
enum CSVShape {
    /// A reservation flattened: its landmark's name, id and location beside it.
    static let reservationColumns = [
        "id", "date", "landmark", "landmarkId", "partySize", "status", "location", "note", "createdAt", "updatedAt",
        "version", "expiresAt", "waitlistPosition",
    ]

    static func fields(_ reservation: Reservation) -> [String?] {
        [
            reservation.id.description, DateTime.format(reservation.date), reservation.landmark.name,
            reservation.landmark.id.description, String(reservation.partySize), reservation.status.rawValue,
            reservation.landmark.location, reservation.note, reservation.createdAt.map(DateTime.format),
            reservation.updatedAt.map(DateTime.format), String(reservation.version),
            reservation.expiresAt.map(DateTime.format), reservation.waitlistPosition.map(String.init),
        ]
    }

    /// Every field of a landmark's JSON, in this order; absent ones empty.
    static let landmarkColumns = [
        "id", "name", "location", "description", "category", "isFeatured", "imageName", "capacity", "timeZone",
    ]

    static func fields(_ landmark: Landmark) -> [String?] {
        guard case .object(let json) = LandmarkApiModel(landmark).json else { return [] }
        return landmarkColumns.map { json[$0].flatMap(text) }
    }

    static let availabilityColumns = ["date", "taken", "capacity", "left"]

    static func fields(_ day: DayAvailability) -> [String?] {
        guard case .object(let json) = day.json else { return [] }
        return availabilityColumns.map { json[$0].flatMap(text) }
    }

    /// A JSON scalar as CSV text: strings as they are, numbers and booleans as JSON writes them, null empty.
    private static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let string): string
        case .null: nil
        default: String(decoding: value.encoded(pretty: false), as: UTF8.self)
        }
    }
}

/// Reservations as an RFC 5545 calendar: one VEVENT per reservation.
///
/// - UID: the reservation id `@resv`, the same in every export, so importing
///   again updates an event instead of adding a second one.
/// - DTSTART in UTC, and DURATION:PT1H: a reservation has a start and no end,
///   and a calendar needs a length to draw it; an hour marks the slot.
/// - STATUS: CONFIRMED, TENTATIVE (pending) or CANCELLED.
/// - DESCRIPTION: the reservation in words, then its note (`Note: …`) on a line of its own.
/// - SEQUENCE: the reservation's version less one (0 when made), so a calendar
///   takes a re-import after a change as a newer revision of the same event;
///   LAST-MODIFIED: when it last changed, for records that know.
/// - Lines end in CRLF and are folded at 75 octets, never inside a UTF-8
///   sequence; TEXT values escape `\`, `;`, `,` and line breaks, and leave out
///   the other control characters, which RFC 5545 does not allow.
struct ICalendarWriter {
    /// When the calendar is made (DTSTAMP of every event).
    let stamp: Date
    private(set) var text = ""

    init(stamp: Date) {
        self.stamp = stamp
        for line in [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//resv//resv \(Resv.version)//EN", "CALSCALE:GREGORIAN",
        ] {
            append(line)
        }
    }

    mutating func event(_ reservation: Reservation) {
        let landmark = reservation.landmark
        let party = reservation.partySize == 1 ? "party of 1" : "party of \(reservation.partySize)"
        let status: String =
            switch reservation.status {
            case .confirmed: "CONFIRMED"
            // Not yet a visit: places held for a while, or asked for on a full day.
            case .pending, .held, .waitlisted: "TENTATIVE"
            // An ended hold keeps no places, as a cancelled visit.
            case .cancelled, .expired: "CANCELLED"
            }
        let marked: String =
            switch reservation.status {
            case .held: " (held)"
            case .waitlisted: " (waitlisted)"
            default: ""
            }
        append("BEGIN:VEVENT")
        append("UID:\(reservation.id.description)@resv")
        append("DTSTAMP:\(Self.utc(stamp))")
        append("SEQUENCE:\(max(0, reservation.version - 1))")
        if let updated = reservation.updatedAt { append("LAST-MODIFIED:\(Self.utc(updated))") }
        append("DTSTART:\(Self.utc(reservation.date))")
        append("DURATION:PT1H")
        append("SUMMARY:" + Self.escaped("\(landmark.name), \(party)\(marked)"))
        append("LOCATION:" + Self.escaped(landmark.location))
        append(
            "DESCRIPTION:"
                + Self.escaped(
                    "resv reservation \(reservation.id.description): \(landmark.name), \(party), \(reservation.status.rawValue)"
                        + (reservation.note.map { "\nNote: " + $0 } ?? "")))
        append("STATUS:\(status)")
        append("END:VEVENT")
    }

    /// Ends the calendar; call once, after the last event.
    mutating func finish() { append("END:VCALENDAR") }

    /// Hands over what is written so far (for writing a long list in pieces).
    mutating func take() -> String {
        defer { text = "" }
        return text
    }

    private mutating func append(_ line: String) { text += Self.folded(line) }

    /// `20261201T100000Z`: a UTC date-time in RFC 5545's basic format.
    static func utc(_ date: Date) -> String {
        DateTime.format(date).filter { $0 != "-" && $0 != ":" }
    }

    /// A TEXT value escaped (RFC 5545 3.3.11).
    static func escaped(_ value: String) -> String {
        var result = String.UnicodeScalarView()
        var previous: Unicode.Scalar?
        for scalar in value.unicodeScalars {
            defer { previous = scalar }
            switch scalar {
            case "\\": result.append(contentsOf: "\\\\".unicodeScalars)
            case ";": result.append(contentsOf: "\\;".unicodeScalars)
            case ",": result.append(contentsOf: "\\,".unicodeScalars)
            case "\n" where previous == "\r": continue  // CRLF is one line break
            case "\n", "\r": result.append(contentsOf: "\\n".unicodeScalars)
            case "\t": result.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F { continue }
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// The content line folded: at most 75 octets a line, continuation lines
    /// starting with a space, each ended by CRLF; a break falls between
    /// Unicode scalars, never inside one's UTF-8 bytes.
    static func folded(_ line: String) -> String {
        var result = ""
        var octets = 0
        for scalar in line.unicodeScalars {
            let size = UTF8.width(scalar)
            if octets + size > 75 {
                result += "\r\n "
                octets = 1
            }
            result.unicodeScalars.append(scalar)
            octets += size
        }
        return result + "\r\n"
    }
}
