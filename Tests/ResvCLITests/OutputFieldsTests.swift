import Foundation
import ReservationCore
import Testing

@testable import ResvCLI

/// resv's CSV columns and `--json` keys against the one description of a
/// reservation's fields (`ReservationField.stored`): every field an answer
/// carries is there, beside the landmark written out.
@Suite("CSV and --json carry every answered field", .timeLimit(.minutes(30)))
struct OutputFieldsTests {
    let answered = Set(ReservationField.stored.filter(\.answered).compactMap(\.key))

    @Test func theCSVColumnsAreTheAnsweredFields() {
        #expect(
            Set(CSVShape.reservationColumns)
                == answered.union(ReservationField.countedKeys).union(["landmark", "location"]))
        #expect(Set(CSVShape.reservationColumns).count == CSVShape.reservationColumns.count)
    }

    @Test func theJSONKeysAreTheAnsweredFields() throws {
        let at = Date(timeIntervalSince1970: 1_900_000_000)
        // Every field that is written when it has a value, with one.
        let reservation = Reservation(
            id: Reservation.ID(UUID()), landmark: LandmarkCatalog.builtIn.landmarks[0],
            date: at.addingTimeInterval(86_400), partySize: 2, status: .held, note: "a note", createdAt: at,
            updatedAt: at, version: 2, expiresAt: at.addingTimeInterval(600), waitlistPosition: 1,
            series: Reservation.SeriesID(UUID()))
        var writer = JSONWriter(pretty: false)
        var reservations = ReservationJSONWriter()
        reservations.write(reservation, to: &writer, depth: 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(writer.bytes)) as? [String: Any])
        var expected = answered.union(ReservationField.countedKeys)
        expected.remove("landmarkId")
        expected.insert("landmark")
        #expect(Set(object.keys) == expected)
    }
}
