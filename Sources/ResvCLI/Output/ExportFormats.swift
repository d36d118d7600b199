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
        "version", "expiresAt", "waitlistPosition", "series",
    ]

    static func fields(_ reservation: Reservation) -> [String?] {
        [
            reservation.id.description, DateTime.format(reservation.date), reservation.landmark.name,
            reservation.landmark.id.description, String(reservation.partySize), reservation.status.rawValue,
            reservation.landmark.location, reservation.note, reservation.createdAt.map(DateTime.format),
            reservation.updatedAt.map(DateTime.format), String(reservation.version),
            reservation.expiresAt.map(DateTime.format), reservation.waitlistPosition.map(String.init),
            reservation.series?.description,
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
