import Foundation
import MemoryEngine
import ResvTestKit
import Testing

@testable import ReservationCore

/// Values shared by the core's suites, beside the kit's (`ResvTestKit`'s `Fixture`).
/// Everything here is immutable: each test builds its own service, ledger or snapshot from these.
extension Fixture {
    static let halfDomeID = "937fea60-bb7b-4ee8-85da-c79962987917"
    static let lakeTahoeID = "938e63b1-f467-476b-b442-edcb1b3bc450"
    /// A UUID that names no landmark in the built-in catalog.
    static let unknownLandmarkID = "00000000-0000-4000-8000-000000000001"

    /// 2026-06-01T12:00:00Z: the fixed clock of every service test.
    static let now = Date(timeIntervalSince1970: 1_780_315_200)

    static var halfDomeLandmark: Landmark {
        get throws { try #require(LandmarkCatalog.builtIn[landmarkID(halfDomeID)]) }
    }

    static func landmarkID(_ text: String) throws -> Landmark.ID {
        Landmark.ID(try #require(UUID(uuidString: text)))
    }

    static func reservationID(_ text: String) throws -> Reservation.ID {
        Reservation.ID(try #require(UUID(uuidString: text)))
    }

    static func date(_ text: String) throws -> Date {
        try DateTime.parse(text)
    }

    /// A reservation record that maps on the built-in catalog, with some fields
    /// replaced (`.null` stays a JSON null) and some removed.
    static func record(
        id: String = "5a1b2c3d-0000-4000-8000-000000000001",
        _ overrides: [String: JSONValue] = [:],
        removing removed: Set<String> = []
    ) -> JSONValue {
        var fields: [String: JSONValue] = [
            "id": .string(id),
            "landmarkId": .string(halfDomeID),
            "date": .string("2026-12-01T10:00:00Z"),
            "partySize": .integer(4),
            "status": .string("confirmed"),
        ]
        fields.merge(overrides) { _, new in new }
        for key in removed { fields[key] = nil }
        return .object(fields)
    }

    /// A landmark record that maps, with some fields replaced and some removed.
    static func landmarkRecord(
        id: String = "aaaa0000-0000-4000-8000-000000000001",
        _ overrides: [String: JSONValue] = [:],
        removing removed: Set<String> = []
    ) -> JSONValue {
        var fields: [String: JSONValue] = [
            "id": .string(id),
            "name": .string("Test Peak"),
            "location": .string("Nowhere, NV"),
            "description": .string("A peak for tests."),
            "category": .string("mountains"),
        ]
        fields.merge(overrides) { _, new in new }
        for key in removed { fields[key] = nil }
        return .object(fields)
    }

    /// Maps one record on `catalog` and returns why it was rejected, or nil when it mapped.
    static func rejection(of record: JSONValue, catalog: LandmarkCatalog = .builtIn) -> RejectionReason? {
        do {
            _ = try Reservation(ReservationApiModel(json: record), catalog: catalog)
            return nil
        } catch {
            return error
        }
    }

    /// A reservation built directly, for tests of views and lookups.
    static func reservation(
        _ id: String, date: String = "2026-12-01T10:00:00Z", partySize: Int = 2,
        status: Reservation.Status = .confirmed
    ) throws -> Reservation {
        Reservation(
            id: try reservationID(id), landmark: try halfDomeLandmark, date: try self.date(date), partySize: partySize,
            status: status)
    }

    /// A request validated against the fixed clock; the landmark as a user gives it.
    static func request(
        _ landmark: String = halfDomeID, on date: String, party: Int = 2, status: Reservation.Status = .confirmed
    ) throws -> NewReservation {
        try NewReservation(landmark: landmark, date: self.date(date), partySize: party, status: status, now: now)
    }

    /// An in-memory service on the fixed clock.
    static func service(records: [JSONValue] = [], catalog: LandmarkCatalog = .builtIn) -> ReservationService {
        .inMemory(records: records, catalog: catalog, now: { Fixture.now }, clock: .continuous)
    }
}
