import Foundation
import MemoryEngine
import ResvTestKit
import Synchronization
import Testing

@testable import ReservationCore

/// Check-in and no-shows (docs/contracts.md, "Check-in and no-shows"): each transition from
/// each status, before and after the visit's time; the places they keep; undo and redo.
@Suite("Check-in and no-shows", .ownThreads, .timeLimit(.minutes(30)))
struct AttendanceTests {
    static let id = "5a1b2c3d-0000-4000-8000-0000000000c1"
    /// The visit: an hour after the fixed clock.
    static let visit = Fixture.now.addingTimeInterval(3600)

    /// One reservation with `status`, its visit at `visit`, alone in a service whose clock is `now`.
    static func service(_ status: Reservation.Status, now: Date) -> ReservationService {
        var fields: [String: JSONValue] = [
            "date": .string(DateTime.format(visit)), "status": .string(status.rawValue),
            "updatedAt": .string("2026-06-01T11:00:00Z"),
        ]
        // A hold that lasts past both clocks; an expired one whose end has passed.
        if status == .held { fields["expiresAt"] = .string(DateTime.format(visit.addingTimeInterval(86_400))) }
        if status == .expired { fields["expiresAt"] = .string("2026-06-01T11:30:00Z") }
        return .inMemory(records: [Fixture.record(id: id, fields)], now: { now }, clock: .continuous)
    }

    enum Outcome: Equatable, CustomStringConvertible {
        case recorded, cannotAttend, alreadyAttended, visitAhead
        var description: String { "\(self)" }
    }

    /// The rule as the contract words it, independent of `Booking.checkAttendance`.
    static func expected(from status: Reservation.Status, to target: Reservation.Status, afterVisit: Bool) -> Outcome {
        if status == target { return .alreadyAttended }
        guard status == .pending || status == .confirmed else { return .cannotAttend }
        if target == .noShow, !afterVisit { return .visitAhead }
        return .recorded
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let from: Reservation.Status
        let to: Reservation.Status
        let afterVisit: Bool
        var testDescription: String {
            "\(to.rawValue) of a \(from.rawValue) one \(afterVisit ? "after" : "before") the visit"
        }
    }

    static let cases: [Case] = Reservation.Status.allCases.flatMap { from in
        [Reservation.Status.checkedIn, .noShow].flatMap { to in
            [false, true].map { Case(from: from, to: to, afterVisit: $0) }
        }
    }

    @Test(arguments: cases)
    func eachTransitionIsRecordedOrRefusedAsTheContractSays(_ transition: Case) async throws {
        let now = transition.afterVisit ? Self.visit.addingTimeInterval(60) : Fixture.now
        let service = Self.service(transition.from, now: now)
        let id = try Fixture.reservationID(Self.id)
        let outcome: Outcome
        var message = ""
        do {
            let recorded = try await service.attend(id, transition.to)
            #expect(recorded.status == transition.to)
            #expect(recorded.updatedAt == Timestamp.whole(now))
            outcome = .recorded
        } catch let error as ReservationError {
            message = error.localizedDescription
            switch error {
            case .cannotAttend(_, let asked):
                #expect(asked == transition.to)
                #expect(message.contains("is \(transition.from.rawValue) and cannot be"), "\(message)")
                outcome = .cannotAttend
            case .alreadyAttended:
                // When the first was: the record's last change.
                #expect(message.contains("at 2026-06-01T11:00:00Z"), "\(message)")
                outcome = .alreadyAttended
            case .visitAhead:
                #expect(message.contains(DateTime.format(Self.visit)), "\(message)")
                outcome = .visitAhead
            default:
                Issue.record("unexpected \(error)")
                return
            }
            #expect(error.code.kind == .refused)
        }
        #expect(outcome == Self.expected(from: transition.from, to: transition.to, afterVisit: transition.afterVisit))
        // A refusal changes nothing, and nothing is written to the history.
        if outcome != .recorded {
            let now = try await service.fetch().reservations
            #expect(now.first?.status == transition.from)
            #expect(try await service.history(nil, nil).isEmpty, "\(message)")
        }
    }

    /// Which statuses take places, the one rule (`Capacity.takesPlaces`), status by status.
    @Test func checkedInAndNoShowPartiesKeepTheirPlaces() {
        let taking: [Reservation.Status: Bool] = [
            .pending: true, .confirmed: true, .held: true, .checkedIn: true, .noShow: true,
            .cancelled: false, .expired: false, .waitlisted: false,
        ]
        for status in Reservation.Status.allCases {
            #expect(Capacity.takesPlaces(status) == taking[status], "\(status)")
            #expect(status.takesPlaces == taking[status], "\(status)")
        }
        #expect(Reservation.Status.takingPlaces.contains(.checkedIn))
        #expect(Reservation.Status.takingPlaces.contains(.noShow))
        #expect(!Reservation.Status.checkedIn.isActive && !Reservation.Status.noShow.isActive)
    }

    /// A full day stays full when its parties are checked in or marked no-shows: nobody is booked
    /// into places a no-show left (a day that has passed gives nothing back), and nobody waiting is promoted.
    @Test func aFullDayStaysFullThroughCheckInAndNoShow() async throws {
        let small = "aaaa0000-0000-4000-8000-0000000000f1"
        let catalog = LandmarkCatalog(records: [Fixture.landmarkRecord(id: small, ["capacity": .integer(4)])])
        let clock = Mutex(Fixture.now)
        let service = ReservationService.inMemory(catalog: catalog, now: { clock.withLock { $0 } }, clock: .continuous)
        let visit = DateTime.format(Self.visit)
        let first = try await service.reserve(
            NewReservation(landmark: small, date: Self.visit, partySize: 2, now: Fixture.now))
        let second = try await service.reserve(
            NewReservation(landmark: small, date: Self.visit, partySize: 2, now: Fixture.now))
        let waiting = try await service.reserve(
            NewReservation(landmark: small, date: Self.visit, partySize: 1, waitlist: true, now: Fixture.now))
        #expect(waiting.status == .waitlisted)
        _ = try await service.attend(first.id, .checkedIn)
        await #expect(throws: ReservationError.self, "a checked-in party's places are not free: \(visit)") {
            try await service.reserve(NewReservation(landmark: small, date: Self.visit, partySize: 1, now: Fixture.now))
        }
        clock.withLock { $0 = Self.visit.addingTimeInterval(60) }
        _ = try await service.attend(second.id, .noShow)
        let after = try await service.fetch().reservations
        #expect(after.first { $0.id == waiting.id }?.status == .waitlisted, "a no-show promotes nobody")
        let day = try await service.availability(small) { place in
            [CalendarDay(Self.visit, in: Capacity.calendar(for: place))]
        }
        #expect(day.days.first?.taken == 4)
    }

    /// Both are taken back by undo, and given again by redo; a recorded visit is neither
    /// cancelled nor confirmed (only undone).
    @Test func undoTakesBackACheckInAndRedoGivesItAgain() async throws {
        let clock = Mutex(Fixture.now)
        let service = ReservationService.inMemory(
            records: [
                Fixture.record(
                    id: Self.id, ["date": .string(DateTime.format(Self.visit)), "status": .string("pending")])
            ], now: { clock.withLock { $0 } }, clock: .continuous)
        let id = try Fixture.reservationID(Self.id)
        _ = try await service.attend(id, .checkedIn)
        await #expect(throws: ReservationError.self) { try await service.cancel(id) }
        await #expect(throws: ReservationError.self) { try await service.confirm(id) }
        let history = try await service.history(id, 1)
        #expect(history.first?.change == .checkedIn)
        let undone = try await service.undo()
        #expect(undone.changes.first?.after.status == "pending")
        #expect(try await service.fetch().reservations.first?.status == .pending)
        _ = try await service.redo()
        #expect(try await service.fetch().reservations.first?.status == .checkedIn)
        _ = try await service.undo()
        // After the visit: a no-show, undone the same way.
        clock.withLock { $0 = Self.visit.addingTimeInterval(60) }
        _ = try await service.attend(id, .noShow)
        #expect(try await service.history(id, 1).first?.change == .noShow)
        _ = try await service.undo()
        #expect(try await service.fetch().reservations.first?.status == .pending)
    }
}
