import Foundation
import ResvTestKit
import Testing

@testable import ReservationCore

/// `.active`, `.pending`, `.confirmed`, `.cancelled` and `.sortedByDate`.
@Suite("Derived views", .timeLimit(.minutes(30)))
struct DerivedViewTests {
    /// Five reservations out of date order, with every status.
    static func mixed() throws -> [Reservation] {
        [
            try Fixture.reservation(
                "00000000-0000-4000-8000-000000000001", date: "2026-12-05T10:00:00Z", status: .confirmed),
            try Fixture.reservation(
                "00000000-0000-4000-8000-000000000002", date: "2026-12-01T10:00:00Z", status: .cancelled),
            try Fixture.reservation(
                "00000000-0000-4000-8000-000000000003", date: "2026-12-03T10:00:00Z", status: .pending),
            try Fixture.reservation(
                "00000000-0000-4000-8000-000000000004", date: "2026-12-02T10:00:00Z", status: .confirmed),
            try Fixture.reservation(
                "00000000-0000-4000-8000-000000000005", date: "2026-12-04T10:00:00Z", status: .cancelled),
        ]
    }

    static func suffixes(_ reservations: [Reservation]) -> [String] {
        reservations.map { String($0.id.description.suffix(1)) }
    }

    @Test func activeIsEverythingButCancelledInOrder() throws {
        #expect(Self.suffixes(try Self.mixed().active) == ["1", "3", "4"])
    }

    @Test func pendingIsOnlyPending() throws {
        #expect(Self.suffixes(try Self.mixed().pending) == ["3"])
    }

    @Test func confirmedIsOnlyConfirmed() throws {
        #expect(Self.suffixes(try Self.mixed().confirmed) == ["1", "4"])
    }

    @Test func cancelledIsOnlyCancelled() throws {
        #expect(Self.suffixes(try Self.mixed().cancelled) == ["2", "5"])
    }

    @Test func viewsPartitionTheReservations() throws {
        let all = try Self.mixed()
        #expect(all.pending.count + all.confirmed.count + all.cancelled.count == all.count)
        #expect(Set(all.active) == Set(all.pending + all.confirmed))
    }

    @Test(arguments: Reservation.Status.allCases)
    func isActiveIsNotCancelledOrExpired(_ status: Reservation.Status) {
        // A recorded visit (checked in, a no-show) is not active either: `list` shows it with --all.
        #expect(status.isActive == ![.cancelled, .expired, .checkedIn, .noShow].contains(status))
        // It keeps its places: a visit that happened (or was missed) gives nothing back.
        #expect(status.takesPlaces == [.pending, .confirmed, .held, .checkedIn, .noShow].contains(status))
    }

    @Test func sortedByDateOrdersByInstant() throws {
        #expect(Self.suffixes(try Self.mixed().sortedByDate) == ["2", "4", "3", "5", "1"])
    }

    @Test func sortedByDateComparesInstantsNotLocalTimes() throws {
        let early = try Fixture.reservation("00000000-0000-4000-8000-00000000000b", date: "2026-12-01T10:00:00+05:00")
        let late = try Fixture.reservation("00000000-0000-4000-8000-00000000000a", date: "2026-12-01T08:00:00Z")
        #expect([late, early].sortedByDate == [early, late])
    }

    @Test func equalDatesAreOrderedByID() throws {
        let ids = [
            "c0000000-0000-4000-8000-000000000000", "0a000000-0000-4000-8000-000000000000",
            "b0000000-0000-4000-8000-000000000000",
        ]
        let reservations = try ids.map { try Fixture.reservation($0, date: "2026-12-01T10:00:00Z") }

        let sorted = reservations.sortedByDate

        #expect(sorted.map(\.id.description) == ids.sorted())
        #expect(reservations.reversed().sortedByDate == sorted)
    }

    @Test func viewsOfAnEmptyListAreEmpty() {
        let none: [Reservation] = []
        #expect(none.active.isEmpty && none.pending.isEmpty && none.confirmed.isEmpty)
        #expect(none.cancelled.isEmpty && none.sortedByDate.isEmpty)
    }

    @Test func viewsWorkOnAnyCollection() throws {
        let all = try Self.mixed()
        let slice = all[1...3]
        #expect(Self.suffixes(slice.active) == ["3", "4"])
        #expect(Self.suffixes(slice.sortedByDate) == ["2", "4", "3"])
    }
}
