import Foundation
import Testing

@testable import ReservationCore

/// The wire model and the ledger against the one description of a reservation's
/// fields (`ReservationField.stored`); the SQL engines are checked in
/// `ReservationServerTests`.
@Suite("The wire model and the ledger follow ReservationField", .timeLimit(.minutes(30)))
struct ReservationFieldTests {
    let landmark = LandmarkCatalog.builtIn.landmarks[0]
    let at = Date(timeIntervalSince1970: 1_900_000_000)

    /// A reservation with every field the wire model has a value for.
    var full: Reservation {
        Reservation(
            id: Reservation.ID(UUID()), landmark: landmark, date: at.addingTimeInterval(86_400), partySize: 2,
            status: .waitlisted, note: "a note", createdAt: at, updatedAt: at, version: 3,
            expiresAt: at.addingTimeInterval(600), waitlistOrder: 4, requestedStatus: .pending, waitlistPosition: 1,
            series: Reservation.SeriesID(UUID()))
    }

    @Test func theWireModelHasAKeyForEveryField() {
        let keys = Set(ReservationApiModel(full).json.objectKeys)
        #expect(keys == Set(ReservationField.stored.compactMap(\.key)).union(ReservationField.countedKeys))
    }

    @Test func keysAndColumnsAreNamedOnce() {
        let keys = ReservationField.stored.compactMap(\.key)
        let columns = ReservationField.stored.map(\.column)
        #expect(Set(keys).count == keys.count)
        #expect(Set(columns).count == columns.count)
    }

    @Test func theLedgerWritesEveryStoredKey() async throws {
        let original = Reservation(
            id: Reservation.ID(UUID()), landmark: landmark, date: at.addingTimeInterval(86_400), partySize: 2,
            status: .confirmed, createdAt: at, updatedAt: at, version: 1)
        var ledger = ReservationLedger(records: [ReservationApiModel(original).json], catalog: .builtIn)
        var changed = full
        changed.waitlistPosition = nil
        let target = Reservation(
            id: original.id, landmark: changed.landmark, date: changed.date, partySize: changed.partySize,
            status: changed.status, note: changed.note, createdAt: changed.createdAt, updatedAt: changed.updatedAt,
            version: changed.version, expiresAt: changed.expiresAt, waitlistOrder: changed.waitlistOrder,
            requestedStatus: changed.requestedStatus)
        try await ledger.apply { try await $0.update([target]) }
        #expect(ledger.records == [ReservationApiModel(target).json])
    }
}

extension JSONValue {
    fileprivate var objectKeys: [String] {
        if case .object(let fields) = self { Array(fields.keys) } else { [] }
    }
}

extension ReservationFieldTests {
    @Test func theDecoderReadsEveryKeyTheWriterWrites() throws {
        let record = ReservationApiModel(full)
        #expect(try ReservationApiModel(json: record.json) == record)
    }
}
