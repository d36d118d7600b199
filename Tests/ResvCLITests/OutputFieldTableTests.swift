import Foundation
import ReservationCore
import Testing

@testable import ResvCLI

/// resv's hand-written CSV (`CSVShape`) and `--json` (`ReservationJSONWriter`) held to the
/// one field table (`ReservationField.stored`), field by field: each field's column or key
/// is there with the field's value. Each check is a function of the table, so a copy of it
/// with a field more shows it fails when a writer misses one.
@Suite("CSV and --json follow the field table, field by field", .timeLimit(.minutes(30)))
struct OutputFieldTableTests {
    /// A reservation with every field that is written when it has a value, with one.
    static let full: Reservation = {
        let at = Date(timeIntervalSince1970: 1_900_000_000)
        return Reservation(
            id: Reservation.ID(UUID()), landmark: LandmarkCatalog.builtIn.landmarks[0],
            date: at.addingTimeInterval(86_400), partySize: 2, status: .held, note: "a note", createdAt: at,
            updatedAt: at.addingTimeInterval(60), version: 2, expiresAt: at.addingTimeInterval(600),
            waitlistPosition: 1, series: Reservation.SeriesID(UUID()))
    }()

    static let withAField =
        ReservationField.stored + [
            ReservationField(
                key: "colour", column: "colour", kind: .text, optional: true, csv: "colour", ics: "X-RESV-COLOUR",
                since: 99, value: { _ in .text("blue") })
        ]

    /// The landmark's own columns and keys, beside the fields.
    static let landmarkColumns: Set = ["landmark", "location"]

    /// What CSV misses of `table`: a field's column absent or with another value, or a
    /// column that is in no field.
    static func csvMisses(_ table: [ReservationField], _ reservation: Reservation = full) -> [String] {
        let columns = CSVShape.reservationColumns
        let cells = CSVShape.fields(reservation)
        var misses: [String] = []
        for field in table {
            guard let column = field.csv else { continue }
            guard let index = columns.firstIndex(of: column) else {
                misses.append("no column \(column)")
                continue
            }
            let expected = field.value(reservation).written
            if cells[index] != expected {
                misses.append("\(column) is \(cells[index] ?? "empty"), not \(expected ?? "empty")")
            }
        }
        let described = Set(table.compactMap(\.csv)).union(ReservationField.countedKeys).union(landmarkColumns)
        misses += columns.filter { !described.contains($0) }.map { "column \($0) is in no field" }
        if cells.count != columns.count { misses.append("\(cells.count) cells for \(columns.count) columns") }
        return misses
    }

    @Test func theCSVHasEveryFieldsColumn() {
        #expect(Self.csvMisses(ReservationField.stored) == [])
    }

    @Test func aColumnTheCSVLacksFailsTheCheck() {
        #expect(Self.csvMisses(Self.withAField) == ["no column colour"])
    }

    /// What resv's `--json` misses of `table`: a field's key absent or with another value
    /// (the landmark written out in full, its id the field's), or a key in no field.
    static func jsonMisses(_ table: [ReservationField], _ reservation: Reservation = full) throws -> [String] {
        var writer = JSONWriter(pretty: false)
        var reservations = ReservationJSONWriter()
        reservations.write(reservation, to: &writer, depth: 0)
        let object = try JSONValue.parse(Data(writer.bytes))
        guard case .object(let keys) = object else { return ["not an object"] }
        var misses: [String] = []
        for field in table {
            guard let output = field.output else { continue }
            let expected = field.value(reservation).written
            let written: String? =
                switch keys[output] {
                case .string(let text)?: text
                case .integer(let number)?: String(number)
                case .object(let landmark)?: landmark["id"].flatMap { if case .string(let id) = $0 { id } else { nil } }
                default: nil
                }
            if written != expected { misses.append("\(output) is \(written ?? "absent"), not \(expected ?? "absent")") }
        }
        let described = Set(table.compactMap(\.output)).union(ReservationField.countedKeys)
        misses += keys.keys.filter { !described.contains($0) }.sorted().map { "key \($0) is in no field" }
        return misses
    }

    @Test func theJSONHasEveryAnsweredField() throws {
        #expect(try Self.jsonMisses(ReservationField.stored) == [])
    }

    @Test func aKeyTheJSONLacksFailsTheCheck() throws {
        #expect(try Self.jsonMisses(Self.withAField) == ["colour is absent, not blue"])
    }
}

extension StoredValue {
    /// As text and CSV write it: text as it is, whole numbers in decimal, seconds as a date.
    fileprivate var written: String? {
        switch self {
        case .text(let text): text
        case .integer(let integer): String(integer)
        case .real(let seconds): DateTime.format(Date(timeIntervalSince1970: seconds))
        case .null: nil
        }
    }
}
