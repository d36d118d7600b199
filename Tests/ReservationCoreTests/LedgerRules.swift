import Foundation
import ReservationCore
import ResvTestKit

/// `Booking`'s rules on a ledger, as the in-memory and file engines run them.
extension ReservationLedger {
    mutating func reserve(
        _ requests: [NewReservation], now: Date, newID: () -> Reservation.ID = { Reservation.ID(UUID()) }
    ) async throws -> [Reservation] {
        try await apply { try await Booking.reserve(requests, now: now, newID: newID, in: $0) }
    }

    mutating func cancel(_ id: Reservation.ID, now: Date = Fixture.now) async throws -> StatusChange {
        try await cancel([id], now: now)[0]
    }

    mutating func cancel(_ ids: [Reservation.ID], now: Date = Fixture.now) async throws -> [StatusChange] {
        try await apply { try await Booking.setStatus(.cancelled, of: ids, now: now, in: $0) }
    }

    mutating func confirm(_ id: Reservation.ID, now: Date = Fixture.now) async throws -> StatusChange {
        try await apply { try await Booking.setStatus(.confirmed, of: [id], now: now, in: $0) }[0]
    }
}
