import ReservationCore
import Testing

@testable import ResvCLI

/// CSV's reservation columns against the one description of a reservation's
/// fields (`ReservationField.stored`): every field an answer carries has its
/// column, beside the landmark's name and location.
@Suite("CSV has a column for every answered field")
struct CSVColumnsTests {
    @Test func theReservationColumnsAreTheAnsweredFields() {
        let answered = ReservationField.stored.filter(\.answered).compactMap(\.key)
        #expect(
            Set(CSVShape.reservationColumns)
                == Set(answered).union(ReservationField.countedKeys).union(["landmark", "location"]))
        #expect(Set(CSVShape.reservationColumns).count == CSVShape.reservationColumns.count)
    }
}
