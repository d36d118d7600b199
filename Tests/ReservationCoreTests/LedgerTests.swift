import Foundation
import ResvTestKit
import Testing

@testable import ReservationCore

/// `ReservationLedger` edits stored records in place: unknown fields and
/// records that do not map survive every change.
@Suite("Reservation ledger", .timeLimit(.minutes(30)))
struct LedgerTests {
    static let keptID = "5a1b2c3d-0000-4000-8000-000000000001"

    static func storedRecord() -> JSONValue {
        Fixture.record(
            id: keptID,
            [
                "note": .string("window seat"),
                "audit": .object(["by": .string("ops"), "at": .array([.integer(1), .double(2.5), .null])]),
                "status": .string("pending"),
            ])
    }

    @Test func cancelKeepsUnknownFieldsOfTheRecord() async throws {
        var ledger = ReservationLedger(records: [Self.storedRecord()], catalog: .builtIn)

        let change = try await ledger.cancel(Fixture.reservationID(Self.keptID), now: Fixture.now)

        #expect(change.changed)
        var expected = Self.storedRecord()
        expected["status"] = .string("cancelled")
        expected["version"] = .integer(2)
        expected["updatedAt"] = .string(DateTime.format(Fixture.now))
        #expect(ledger.records == [expected])
        #expect(ledger.records.first?["note"] == .string("window seat"))
    }

    @Test func cancellingSeveralIsAllOrNothing() async throws {
        let other = Fixture.record(id: "5a1b2c3d-0000-4000-8000-000000000002")
        var ledger = ReservationLedger(records: [Self.storedRecord(), other], catalog: .builtIn)
        let ids = [
            try Fixture.reservationID(Self.keptID), try Fixture.reservationID("5a1b2c3d-0000-4000-8000-000000000002"),
        ]
        let unknown = try Fixture.reservationID("5a1b2c3d-0000-4000-8000-0000000000ff")

        let error = try await #require(throws: ReservationError.self) { () async throws in
            _ = try await ledger.cancel([ids[0], unknown, ids[1]])
        }
        guard case .reservationNotFound(let missing) = error else {
            Issue.record("expected reservationNotFound, got \(error)")
            return
        }
        #expect(missing == unknown.description)
        #expect(ledger.records == [Self.storedRecord(), other])
        #expect(ledger.revision == 0)

        let changes = try await ledger.cancel(ids + [ids[0]])
        #expect(changes.map(\.changed) == [true, true, false])
        #expect(ledger.snapshot.reservations.map(\.status) == [.cancelled, .cancelled])
    }

    @Test func confirmKeepsUnknownFieldsOfTheRecord() async throws {
        var ledger = ReservationLedger(records: [Self.storedRecord()], catalog: .builtIn)

        _ = try await ledger.confirm(Fixture.reservationID(Self.keptID), now: Fixture.now)

        var expected = Self.storedRecord()
        expected["status"] = .string("confirmed")
        expected["version"] = .integer(2)
        expected["updatedAt"] = .string(DateTime.format(Fixture.now))
        #expect(ledger.records == [expected])
        #expect(ledger.snapshot.reservations.map(\.status) == [.confirmed])
    }

    @Test func recordsThatDoNotMapAreKeptVerbatimThroughEveryChange() async throws {
        let bad: [JSONValue] = [
            .string("garbage"),
            Fixture.record(id: "5a1b2c3d-0000-4000-8000-000000000002", ["partySize": .integer(0), "x": .bool(true)]),
            Fixture.record(id: Self.keptID, ["partySize": .integer(9)]),  // a duplicate of record 0's id
        ]
        let records = [Self.storedRecord()] + bad
        var ledger = ReservationLedger(records: records, catalog: .builtIn)
        let rejectedBefore = ledger.snapshot.rejected

        let addedID = try Fixture.reservationID("5a1b2c3d-0000-4000-8000-0000000000ad")
        let added = try #require(
            try await ledger.reserve([Fixture.request(on: "2026-12-05T10:00:00Z", party: 3)], now: Fixture.now) {
                addedID
            }
            .first)
        _ = try await ledger.cancel(Fixture.reservationID(Self.keptID))
        _ = try await ledger.confirm(added.id)
        _ = try await ledger.cancel(added.id)

        #expect(ledger.records.count == 5)
        #expect(Array(ledger.records[1...3]) == bad)
        #expect(ledger.snapshot.rejected == rejectedBefore)
        #expect(rejectedBefore.map(\.index) == [1, 2, 3])
        #expect(
            rejectedBefore.map(\.reason) == [
                rejectedBefore[0].reason, .invalidPartySize(0), .duplicateReservationID(Self.keptID),
            ])
        #expect(rejectedBefore.first?.reason.code == "malformed")
        #expect(ledger.records[0]["status"] == .string("cancelled"))
        #expect(ledger.records[0]["partySize"] == .integer(4))
    }

    @Test func reserveAppendsTheWireFormOfTheNewReservation() async throws {
        var ledger = ReservationLedger(records: [Self.storedRecord()], catalog: .builtIn)
        let id = try Fixture.reservationID("5a1b2c3d-0000-4000-8000-0000000000ad")

        let created = try await ledger.reserve(
            [Fixture.request(on: "2026-12-05T10:00:00.500+01:00", party: 3, status: .pending)], now: Fixture.now
        ) { id }
        let reservation = try #require(created.first)
        #expect(created.count == 1)

        #expect(reservation.id == id)
        #expect(
            ledger.records.last
                == .object([
                    "id": .string("5a1b2c3d-0000-4000-8000-0000000000ad"),
                    "landmarkId": .string(Fixture.halfDomeID),
                    "date": .string("2026-12-05T09:00:00Z"),
                    "partySize": .integer(3),
                    "status": .string("pending"),
                    "createdAt": .string(DateTime.format(Fixture.now)),
                    "updatedAt": .string(DateTime.format(Fixture.now)),
                    "version": .integer(1),
                ]))
        #expect(ledger.snapshot.reservations.last == reservation)
        // What the ledger writes maps back to what it returned.
        #expect(ReservationSnapshot(records: ledger.records, catalog: .builtIn).reservations.last == reservation)
    }

    @Test func ledgerAndSnapshotMapTheSameRecordsTheSameWay() throws {
        let records: [JSONValue] = [
            Self.storedRecord(), .null, Fixture.record(id: "5a1b2c3d-0000-4000-8000-000000000002"),
        ]
        let ledger = ReservationLedger(records: records, catalog: .builtIn)
        let snapshot = ReservationSnapshot(records: records, catalog: .builtIn)
        #expect(ledger.snapshot.reservations == snapshot.reservations)
        #expect(ledger.snapshot.rejected == snapshot.rejected)
        #expect(ledger.records == records)
    }

    @Test func cancellingAfterAReserveChangesTheRightRecord() async throws {
        // Records that do not map come first, so record positions and reservation positions differ.
        let records: [JSONValue] = [.string("garbage"), .integer(3), Self.storedRecord()]
        var ledger = ReservationLedger(records: records, catalog: .builtIn)
        let addedID = try Fixture.reservationID("5a1b2c3d-0000-4000-8000-0000000000ad")
        let added = try #require(
            try await ledger.reserve([Fixture.request(on: "2026-12-05T10:00:00Z")], now: Fixture.now) { addedID }.first)

        _ = try await ledger.cancel(added.id)

        #expect(ledger.records[0] == .string("garbage"))
        #expect(ledger.records[1] == .integer(3))
        #expect(ledger.records[2]["status"] == .string("pending"))
        #expect(ledger.records[3]["status"] == .string("cancelled"))
        #expect(ledger.snapshot.reservations.map(\.status) == [.pending, .cancelled])
    }
}
