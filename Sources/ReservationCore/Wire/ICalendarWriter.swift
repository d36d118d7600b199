import Foundation

/// Reservations as an RFC 5545 calendar: one VEVENT per reservation.
///
/// - UID: the reservation id `@resv`, the same in every export, so importing
///   again updates an event instead of adding a second one.
/// - DTSTART in UTC, and DURATION:PT1H: a reservation has a start and no end,
///   and a calendar needs a length to draw it; an hour marks the slot.
/// - STATUS: CONFIRMED, TENTATIVE (pending) or CANCELLED.
/// - DESCRIPTION: the reservation in words, then its note (`Note: …`) on a line of its own.
/// - X-RESV-LANDMARK (the landmark's id), X-RESV-PARTY-SIZE, X-RESV-STATUS (resv's
///   word), X-RESV-SERIES (a series' id, when in one), and X-RESV-NOTE (base64 of its UTF-8) for a note DESCRIPTION cannot
///   carry exactly (a CR, a control character): what `resv import` reads back,
///   exactly; calendars pass over X- properties.
/// - SEQUENCE: the reservation's version less one (0 when made), so a calendar
///   takes a re-import after a change as a newer revision of the same event;
///   LAST-MODIFIED: when it last changed, for records that know.
/// - Lines end in CRLF and are folded at 75 octets, never inside a UTF-8
///   sequence; TEXT values escape `\`, `;`, `,` and line breaks, and leave out
///   the other control characters, which RFC 5545 does not allow.
///
/// One writer for `resv list --format ics` (an export) and the server's
/// calendar subscription (`GET /calendar/{secret}.ics`).
public struct ICalendarWriter {
    /// Each event's DTSTAMP.
    public enum Stamp: Sendable {
        /// When the calendar is made: an export.
        case at(Date)
        /// When the event last changed (else when made, else its start): a subscription,
        /// whose bytes, and so its ETag, stay the same while the reservations do.
        case lastChange
    }

    let stamp: Stamp
    public private(set) var text = ""

    /// `product` names the writer (PRODID); `properties` are calendar-level lines
    /// written as given after CALSCALE (NAME, REFRESH-INTERVAL, …).
    public init(product: String, stamp: Stamp, properties: [String] = []) {
        self.stamp = stamp
        for line in ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//resv//\(product)//EN", "CALSCALE:GREGORIAN"]
            + properties
        {
            append(line)
        }
    }

    public mutating func event(_ reservation: Reservation) {
        let landmark = reservation.landmark
        let party = reservation.partySize == 1 ? "party of 1" : "party of \(reservation.partySize)"
        let status: String =
            switch reservation.status {
            // A visit that took place, or was booked and missed: the event stands as booked, not
            // cancelled (the summary says which); its places stay taken.
            case .confirmed, .checkedIn, .noShow: "CONFIRMED"
            // Not yet a visit: places held for a while, or asked for on a full day.
            case .pending, .held, .waitlisted: "TENTATIVE"
            // An ended hold keeps no places, as a cancelled visit.
            case .cancelled, .expired: "CANCELLED"
            }
        let marked: String =
            switch reservation.status {
            case .held: " (held)"
            case .waitlisted: " (waitlisted)"
            case .checkedIn: " (checked in)"
            case .noShow: " (no-show)"
            default: ""
            }
        append("BEGIN:VEVENT")
        append("UID:\(reservation.id.description)@resv")
        let stamped: Date =
            switch stamp {
            case .at(let date): date
            case .lastChange: reservation.updatedAt ?? reservation.createdAt ?? reservation.date
            }
        append("DTSTAMP:\(Self.utc(stamped))")
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
        append("X-RESV-LANDMARK:\(landmark.id.description)")
        append("X-RESV-PARTY-SIZE:\(reservation.partySize)")
        append("X-RESV-STATUS:\(reservation.status.rawValue)")
        if let series = reservation.series { append("X-RESV-SERIES:\(series.description)") }
        if let note = reservation.note, ICalendarReader.unescaped(Self.escaped(note)) != note {
            append("X-RESV-NOTE;ENCODING=BASE64;VALUE=BINARY:" + Data(note.utf8).base64EncodedString())
        }
        append("END:VEVENT")
    }

    /// Ends the calendar; call once, after the last event.
    public mutating func finish() { append("END:VCALENDAR") }

    /// Hands over what is written so far (for writing a long list in pieces).
    public mutating func take() -> String {
        defer { text = "" }
        return text
    }

    private mutating func append(_ line: String) { text += Self.folded(line) }

    /// `20261201T100000Z`: a UTC date-time in RFC 5545's basic format.
    static func utc(_ date: Date) -> String {
        DateTime.format(date).filter { $0 != "-" && $0 != ":" }
    }

    /// A TEXT value escaped (RFC 5545 3.3.11).
    public static func escaped(_ value: String) -> String {
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
