import Foundation
import MemoryEngine
import ResvTestKit
import Testing

@testable import ReservationCore

/// `ReservationService.inMemory` behaves like a real backend on a fixed clock.
@Suite("In-memory service", .timeLimit(.minutes(30)))
struct ServiceTests {
    @Test func cancellingTheMiddleOfThreeKeepsTheOthersActiveAndTheHistory() async throws {
        let service = Fixture.service()
        let first = try await service.reserve(Fixture.request(on: "2026-12-01T10:00:00Z"))
        let middle = try await service.reserve(Fixture.request(Fixture.lakeTahoeID, on: "2026-12-02T10:00:00Z"))
        let last = try await service.reserve(Fixture.request(on: "2026-12-03T10:00:00Z", party: 5))

        let change = try await service.cancel(middle.id)
        let snapshot = try await service.fetch()

        #expect(change.changed)
        #expect(change.previous == .confirmed)
        #expect(change.reservation.status == .cancelled)
        #expect(snapshot.reservations.map(\.id) == [first.id, middle.id, last.id])
        #expect(snapshot.reservations.active.map(\.id) == [first.id, last.id])
        #expect(snapshot.reservations.active.allSatisfy { $0.status == .confirmed })
        let cancelled = try #require(snapshot.reservations.first { $0.id == middle.id })
        #expect(cancelled == middle.changed(status: .cancelled, at: Fixture.now))
        #expect(snapshot.rejected.isEmpty)
    }

    @Test func reservedValuesAreWhatFetchReturns() async throws {
        let service = Fixture.service()
        let reserved = try await service.reserve(
            Fixture.request(on: "2026-12-01T10:00:00+02:00", party: 3, status: .pending))

        #expect(reserved.landmark == (try Fixture.halfDomeLandmark))
        #expect(reserved.date == Date(timeIntervalSince1970: 1_796_112_000))
        #expect(reserved.partySize == 3)
        #expect(reserved.status == .pending)
        #expect(try await service.fetch().reservations == [reserved])
    }

    @Test func newReservationIsConfirmedByDefault() async throws {
        let service = Fixture.service()
        let request = try NewReservation(
            landmarkID: Fixture.landmarkID(Fixture.halfDomeID), date: Fixture.date("2026-12-01T10:00:00Z"),
            partySize: 2, now: Fixture.now)
        #expect(try await service.reserve(request).status == .confirmed)
    }

    @Test func cancellingAnUnknownIDThrowsNotFound() async throws {
        let service = Fixture.service()
        _ = try await service.reserve(Fixture.request(on: "2026-12-01T10:00:00Z"))
        let unknown = try Fixture.reservationID("5a1b2c3d-0000-4000-8000-00000000dead")

        let error = try await #require(throws: ReservationError.self) { try await service.cancel(unknown) }

        guard case .reservationNotFound(let text) = error else {
            Issue.record("expected .reservationNotFound, got \(error)")
            return
        }
        #expect(text == unknown.description)
    }

    @Test func reservingTheSameLandmarkTwiceGivesTwoReservations() async throws {
        let service = Fixture.service()
        let request = try Fixture.request(on: "2026-12-01T10:00:00Z")

        let one = try await service.reserve(request)
        let two = try await service.reserve(request)

        #expect(one.id != two.id)
        #expect(Set(try await service.fetch().reservations.map(\.id)) == [one.id, two.id])
    }

    @Test func cancellingTwiceSucceedsWithoutAChange() async throws {
        let service = Fixture.service()
        let reservation = try await service.reserve(Fixture.request(on: "2026-12-01T10:00:00Z"))

        let first = try await service.cancel(reservation.id)
        let second = try await service.cancel(reservation.id)

        #expect(first.changed)
        #expect(!second.changed)
        #expect(second.previous == .cancelled)
        #expect(second.reservation.status == .cancelled)
        #expect(try await service.fetch().reservations.map(\.status) == [.cancelled])
    }

    @Test func confirmMovesPendingToConfirmed() async throws {
        let service = Fixture.service()
        let reservation = try await service.reserve(Fixture.request(on: "2026-12-01T10:00:00Z", status: .pending))

        let change = try await service.confirm(reservation.id)

        #expect(change.changed)
        #expect(change.previous == .pending)
        #expect(change.reservation == reservation.changed(status: .confirmed, at: Fixture.now))
        #expect(try await service.fetch().reservations.map(\.status) == [.confirmed])
    }

    @Test func confirmingAConfirmedReservationChangesNothing() async throws {
        let service = Fixture.service()
        let reservation = try await service.reserve(Fixture.request(on: "2026-12-01T10:00:00Z"))

        let change = try await service.confirm(reservation.id)

        #expect(!change.changed)
        #expect(change.reservation == reservation)
    }

    @Test func confirmingACancelledReservationThrows() async throws {
        let service = Fixture.service()
        let reservation = try await service.reserve(Fixture.request(on: "2026-12-01T10:00:00Z", status: .pending))
        _ = try await service.cancel(reservation.id)

        let error = try await #require(throws: ReservationError.self) { try await service.confirm(reservation.id) }

        guard case .cannotConfirmCancelled(let refused) = error else {
            Issue.record("expected .cannotConfirmCancelled, got \(error)")
            return
        }
        #expect(refused == reservation.changed(status: .cancelled, at: Fixture.now))
        #expect(try await service.fetch().reservations.map(\.status) == [.cancelled])
    }

    @Test func confirmingAnUnknownIDThrowsNotFound() async throws {
        let service = Fixture.service()
        let unknown = try Fixture.reservationID("5a1b2c3d-0000-4000-8000-00000000dead")
        let error = try await #require(throws: ReservationError.self) { try await service.confirm(unknown) }
        guard case .reservationNotFound = error else {
            Issue.record("expected .reservationNotFound, got \(error)")
            return
        }
    }

    @Test(arguments: ["2026-06-01T11:59:59Z", "2026-06-01T12:00:00Z", "2020-01-01T00:00:00Z"])
    func reservingInThePastThrows(_ text: String) throws {
        let date = try Fixture.date(text)
        let error = try #require(throws: ReservationError.self) {
            try NewReservation(
                landmarkID: Fixture.landmarkID(Fixture.halfDomeID), date: date, partySize: 2, now: Fixture.now)
        }
        guard case .dateInPast(let refused) = error else {
            Issue.record("expected .dateInPast, got \(error)")
            return
        }
        #expect(refused == date)
    }

    @Test func aSecondAfterNowIsTheFuture() async throws {
        let service = Fixture.service()
        let reserved = try await service.reserve(Fixture.request(on: "2026-06-01T12:00:01Z"))
        #expect(reserved.date == Fixture.now + 1)
    }

    /// The service has its own clock: a request checked against an older clock
    /// (a request validated, then held, or built by a caller with a stale `now`)
    /// must still be refused when its date is past by the service's clock.
    @Test func serviceRefusesADateInThePastByItsOwnClock() async throws {
        let service = Fixture.service()
        let yearBefore = Fixture.now - 366 * 86_400
        let stale = try NewReservation(
            landmarkID: Fixture.landmarkID(Fixture.halfDomeID), date: Fixture.date("2026-01-15T10:00:00Z"),
            partySize: 2, now: yearBefore)

        let error = await #expect(throws: ReservationError.self) { try await service.reserve(stale) }

        if let error {
            guard case .dateInPast = error else {
                Issue.record("expected .dateInPast, got \(error)")
                return
            }
        }
        #expect(try await service.fetch().reservations.isEmpty)
    }

    @Test(arguments: [0, -1, 10_001, Int.max])
    func partySizeOutsideOneToTenThousandThrows(_ size: Int) throws {
        let error = try #require(throws: ReservationError.self) {
            try Fixture.request(on: "2026-12-01T10:00:00Z", party: size)
        }
        guard case .invalidPartySize(let refused) = error else {
            Issue.record("expected .invalidPartySize, got \(error)")
            return
        }
        #expect(refused == size)
    }

    @Test func aNewReservationCannotStartCancelled() throws {
        let error = try #require(throws: ReservationError.self) {
            try Fixture.request(on: "2026-12-01T10:00:00Z", status: .cancelled)
        }
        guard case .invalidInitialStatus("cancelled") = error else {
            Issue.record("expected .invalidInitialStatus(\"cancelled\"), got \(error)")
            return
        }
    }

    @Test func reservingAnUnknownLandmarkThrows() async throws {
        let service = Fixture.service()
        let request = try Fixture.request(Fixture.unknownLandmarkID, on: "2026-12-01T10:00:00Z")

        let error = try await #require(throws: ReservationError.self) { try await service.reserve(request) }

        guard case .unknownLandmark(let text) = error else {
            Issue.record("expected .unknownLandmark, got \(error)")
            return
        }
        #expect(text == Fixture.unknownLandmarkID)
        #expect(try await service.fetch().reservations.isEmpty)
    }

    @Test func landmarksAreTheCatalogOfTheBackend() async throws {
        #expect(try await Fixture.service().landmarks().landmarks == Landmark.builtIn)
        let own = LandmarkCatalog(records: [Fixture.landmarkRecord()])
        #expect(try await Fixture.service(catalog: own).landmarks().landmarks.map(\.name) == ["Test Peak"])
    }

    @Test func recordsThatDoNotMapStayReportedAfterReservesAndCancels() async throws {
        let records: [JSONValue] = [
            Fixture.record(id: "5a1b2c3d-0000-4000-8000-000000000001"),
            .string("garbage"),
            Fixture.record(id: "5a1b2c3d-0000-4000-8000-000000000002", ["date": .string("2026-02-30T10:00:00Z")]),
            Fixture.record(
                id: "5a1b2c3d-0000-4000-8000-000000000003", ["landmarkId": .string(Fixture.unknownLandmarkID)]),
        ]
        let service = Fixture.service(records: records)
        let before = try await service.fetch().rejected
        let existing = try Fixture.reservationID("5a1b2c3d-0000-4000-8000-000000000001")

        let added = try await service.reserve(Fixture.request(on: "2026-12-05T10:00:00Z"))
        _ = try await service.cancel(existing)
        _ = try await service.cancel(added.id)
        let after = try await service.fetch()

        #expect(before.map(\.index) == [1, 2, 3])
        #expect(before.map(\.reason.code) == ["malformed", "invalidDate", "unknownLandmark"])
        #expect(
            before.map(\.id) == [nil, "5a1b2c3d-0000-4000-8000-000000000002", "5a1b2c3d-0000-4000-8000-000000000003"])
        #expect(after.rejected == before)
        #expect(after.reservations.map(\.id) == [existing, added.id])
        #expect(after.reservations.map(\.status) == [.cancelled, .cancelled])
    }

    @Test func aRejectedRecordsIDCannotBeCancelled() async throws {
        let id = "5a1b2c3d-0000-4000-8000-000000000002"
        let service = Fixture.service(records: [Fixture.record(id: id, ["status": .string("archived")])])
        let error = try await #require(throws: ReservationError.self) {
            try await service.cancel(Fixture.reservationID(id))
        }
        guard case .reservationNotFound = error else {
            Issue.record("expected .reservationNotFound, got \(error)")
            return
        }
        #expect(try await service.fetch().rejected.map(\.reason) == [.unknownStatus("archived")])
    }
}

/// `NewReservation` from a wire request: the same rules and the one date parser.
@Suite("Create requests", .timeLimit(.minutes(30)))
struct CreateRequestTests {
    @Test func wireRequestBecomesANewReservation() throws {
        let request = CreateReservationRequest(
            landmarkId: Fixture.halfDomeID, date: "2026-12-01T10:00:00+02:00", partySize: 4, status: "pending")

        let new = try NewReservation(request, now: Fixture.now)

        #expect(new.landmark == Fixture.halfDomeID)
        #expect(new.date == Date(timeIntervalSince1970: 1_796_112_000))
        #expect(new.partySize == 4)
        #expect(new.status == .pending)
        #expect(new.request.date == "2026-12-01T08:00:00Z")
    }

    @Test func wireRequestWithoutStatusIsConfirmed() throws {
        let request = CreateReservationRequest(
            landmarkId: Fixture.halfDomeID, date: "2026-12-01T10:00:00Z", partySize: 1)
        #expect(try NewReservation(request, now: Fixture.now).status == .confirmed)
    }

    @Test func wireRequestWithAnImpossibleDateNamesTheReason() throws {
        let request = CreateReservationRequest(
            landmarkId: Fixture.halfDomeID, date: "2026-12-01T25:00:00Z", partySize: 1)
        let error = try #require(throws: ReservationError.self) { try NewReservation(request, now: Fixture.now) }
        guard case .invalidDate(let parseError) = error else {
            Issue.record("expected .invalidDate, got \(error)")
            return
        }
        #expect(parseError.reason == .hourOutOfRange(25))
    }

    @Test func wireRequestMayNameTheLandmarkAndTheBackendResolvesIt() async throws {
        let request = CreateReservationRequest(landmarkId: "half dome", date: "2026-12-01T10:00:00Z", partySize: 1)
        let service = ReservationService.inMemory(now: { Fixture.now }, clock: .continuous)

        let reservation = try await service.reserve(try NewReservation(request, now: Fixture.now))

        #expect(reservation.landmark.id == (try Fixture.landmarkID(Fixture.halfDomeID)))
    }

    @Test func wireRequestWithAnUnknownLandmarkIsRefusedByTheBackend() async throws {
        let request = CreateReservationRequest(landmarkId: "nowhere", date: "2026-12-01T10:00:00Z", partySize: 1)
        let service = ReservationService.inMemory(now: { Fixture.now }, clock: .continuous)
        let new = try NewReservation(request, now: Fixture.now)

        let error = await #expect(throws: ReservationError.self) { try await service.reserve(new) }
        guard case .unknownLandmark("nowhere")? = error else {
            Issue.record("expected .unknownLandmark(\"nowhere\"), got \(String(describing: error))")
            return
        }
        #expect(try await service.fetch().reservations.isEmpty)
    }

    @Test func wireRequestWithoutStatusTakesTheGivenDefault() throws {
        let request = CreateReservationRequest(landmarkId: "half dome", date: "2026-12-01T10:00:00Z", partySize: 1)
        #expect(try NewReservation(request, defaultStatus: .pending, now: Fixture.now).status == .pending)
    }

    @Test(arguments: ["expired", "cancelled", "held", "waitlisted", "archived"])
    func wireRequestWithABadStatusIsRefused(_ status: String) throws {
        let request = CreateReservationRequest(
            landmarkId: Fixture.halfDomeID, date: "2026-12-01T10:00:00Z", partySize: 1, status: status)
        let error = try #require(throws: ReservationError.self) { try NewReservation(request, now: Fixture.now) }
        guard case .invalidInitialStatus(let refused) = error else {
            Issue.record("expected .invalidInitialStatus, got \(error)")
            return
        }
        #expect(refused == status)
    }
}

/// `ReservationService.unimplemented`: every endpoint fails loudly, naming itself.
@Suite("Unimplemented service", .timeLimit(.minutes(30)))
struct UnimplementedServiceTests {
    enum Endpoint: String, CaseIterable, Sendable {
        case landmarks, fetch, reserve, cancel, confirm

        func call(_ service: ReservationService) async throws {
            let id = Reservation.ID(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)))
            switch self {
            case .landmarks: _ = try await service.landmarks()
            case .fetch: _ = try await service.fetch()
            case .reserve: _ = try await service.reserve(Fixture.request(on: "2026-12-01T10:00:00Z"))
            case .cancel: _ = try await service.cancel(id)
            case .confirm: _ = try await service.confirm(id)
            }
        }
    }

    @Test(arguments: Endpoint.allCases)
    func endpointThrowsUnimplementedWithItsName(_ endpoint: Endpoint) async throws {
        let error = try await #require(throws: ReservationError.self) {
            try await endpoint.call(.unimplemented)
        }
        guard case .unimplemented(let name) = error else {
            Issue.record("expected .unimplemented, got \(error)")
            return
        }
        #expect(name == "ReservationService.\(endpoint.rawValue)")
        #expect(error.errorDescription == "ReservationService.\(endpoint.rawValue) is not implemented")
    }

    @Test func overridingOneEndpointLeavesTheOthersUnimplemented() async throws {
        var service = ReservationService.unimplemented
        service.landmarks = { .builtIn }

        #expect(try await service.landmarks().landmarks.count == Landmark.builtIn.count)
        await #expect(throws: ReservationError.self) { try await service.fetch() }
    }
}
