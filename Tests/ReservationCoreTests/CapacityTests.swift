import Foundation
import ResvTestKit
import Testing

@testable import ReservationCore

/// The per-day capacity of docs/contracts.md, on Half Dome (300 people a day, America/Los_Angeles).
@Suite("Capacity", .timeLimit(.minutes(30)))
struct CapacityTests {
    /// Reserves `party` people at Half Dome on `date` and expects a refusal with these numbers.
    func expectRefusal(
        _ service: ReservationService, on date: String, party: Int, day: String, booked: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let request = try Fixture.request(on: date, party: party)
        let error = try await #require(throws: ReservationError.self, sourceLocation: sourceLocation) {
            try await service.reserve(request)
        }
        guard case .noCapacity(let landmark, let refusedDay, let requested, let alreadyBooked) = error else {
            Issue.record("expected .noCapacity, got \(error)", sourceLocation: sourceLocation)
            return
        }
        #expect(landmark.name == "Half Dome", sourceLocation: sourceLocation)
        #expect(refusedDay == day, sourceLocation: sourceLocation)
        #expect(requested == party, sourceLocation: sourceLocation)
        #expect(alreadyBooked == booked, sourceLocation: sourceLocation)
    }

    @Test func halfDomeTakes300PeopleADayInCalifornia() throws {
        let halfDome = try Fixture.halfDomeLandmark
        #expect(halfDome.capacity == 300)
        #expect(halfDome.timeZone?.identifier == "America/Los_Angeles")
    }

    @Test func aPartyThatWouldExceedTheDayIsRefusedAndFitsTheNextDay() async throws {
        let service = Fixture.service()
        _ = try await service.reserve(Fixture.request(on: "2026-12-01T10:00:00-08:00", party: 200))

        // 23:30 in California is already December 2 in UTC, but still December 1 at Half Dome.
        try await expectRefusal(service, on: "2026-12-01T23:30:00-08:00", party: 150, day: "2026-12-01", booked: 200)
        let nextDay = try await service.reserve(Fixture.request(on: "2026-12-02T09:00:00-08:00", party: 150))

        #expect(nextDay.partySize == 150)
        #expect(try await service.fetch().reservations.map(\.partySize) == [200, 150])
    }

    @Test func theDayIsTheLandmarksLocalDayNotTheUTCDay() async throws {
        let service = Fixture.service()
        // 2026-12-02T07:30Z is 23:30 on December 1 in California.
        _ = try await service.reserve(Fixture.request(on: "2026-12-02T07:30:00Z", party: 200))

        try await expectRefusal(service, on: "2026-12-01T18:00:00Z", party: 150, day: "2026-12-01", booked: 200)
        // Same UTC day as the first, but 01:00 on December 2 in California.
        _ = try await service.reserve(Fixture.request(on: "2026-12-02T09:00:00Z", party: 150))
    }

    @Test func aDayCanBeFilledExactly() async throws {
        let service = Fixture.service()
        _ = try await service.reserve(Fixture.request(on: "2026-12-01T08:00:00-08:00", party: 200))
        _ = try await service.reserve(Fixture.request(on: "2026-12-01T16:00:00-08:00", party: 100))

        try await expectRefusal(service, on: "2026-12-01T12:00:00-08:00", party: 1, day: "2026-12-01", booked: 300)
    }

    @Test func aSinglePartyLargerThanTheCapacityIsRefused() async throws {
        try await expectRefusal(
            Fixture.service(), on: "2026-12-01T10:00:00-08:00", party: 301, day: "2026-12-01", booked: 0)
    }

    @Test func cancelledReservationsFreeTheirPlaces() async throws {
        let service = Fixture.service()
        let full = try await service.reserve(Fixture.request(on: "2026-12-01T10:00:00-08:00", party: 300))
        try await expectRefusal(service, on: "2026-12-01T11:00:00-08:00", party: 150, day: "2026-12-01", booked: 300)

        _ = try await service.cancel(full.id)
        let again = try await service.reserve(Fixture.request(on: "2026-12-01T11:00:00-08:00", party: 150))

        #expect(again.status == .confirmed)
        #expect(try await service.fetch().reservations.active.map(\.partySize) == [150])
    }

    @Test func pendingReservationsTakePlaces() async throws {
        let service = Fixture.service()
        _ = try await service.reserve(Fixture.request(on: "2026-12-01T10:00:00-08:00", party: 250, status: .pending))
        try await expectRefusal(service, on: "2026-12-01T11:00:00-08:00", party: 51, day: "2026-12-01", booked: 250)
    }

    @Test func storedReservationsCount() async throws {
        let records = [
            Fixture.record(["date": .string("2026-12-01T10:00:00-08:00"), "partySize": .integer(290)])
        ]
        try await expectRefusal(
            Fixture.service(records: records), on: "2026-12-01T20:00:00-08:00", party: 20, day: "2026-12-01",
            booked: 290)
    }

    /// Local midnight starts a new calendar day: a visit at 00:00 on December 2
    /// takes no place on December 1.
    @Test func aReservationAtLocalMidnightBelongsToTheNewDay() async throws {
        let service = Fixture.service()
        _ = try await service.reserve(Fixture.request(on: "2026-12-02T00:00:00-08:00", party: 200))

        await #expect(throws: Never.self) {
            try await service.reserve(Fixture.request(on: "2026-12-01T12:00:00-08:00", party: 150))
        }
        try await expectRefusal(service, on: "2026-12-02T10:00:00-08:00", party: 101, day: "2026-12-02", booked: 200)
    }

    @Test func aReservationJustBeforeMidnightBelongsToItsDay() async throws {
        let service = Fixture.service()
        _ = try await service.reserve(Fixture.request(on: "2026-12-01T23:59:59-08:00", party: 200))

        try await expectRefusal(service, on: "2026-12-01T00:00:00-08:00", party: 150, day: "2026-12-01", booked: 200)
        _ = try await service.reserve(Fixture.request(on: "2026-12-02T00:00:00-08:00", party: 150))
    }

    /// November 1, 2026 has 25 hours in California (the clocks go back at 02:00).
    @Test func theDayWhenClocksGoBackIsOneDay() async throws {
        let service = Fixture.service()
        _ = try await service.reserve(Fixture.request(on: "2026-11-01T00:30:00-07:00", party: 200))

        try await expectRefusal(service, on: "2026-11-01T23:30:00-08:00", party: 150, day: "2026-11-01", booked: 200)
        _ = try await service.reserve(Fixture.request(on: "2026-11-02T00:30:00-08:00", party: 150))
    }

    @Test func landmarksWithoutCapacityTakeAnyNumberOfTheLargestParties() async throws {
        let service = Fixture.service()
        let tahoe = Fixture.lakeTahoeID
        for hour in 10..<15 {
            _ = try await service.reserve(Fixture.request(tahoe, on: "2026-12-01T\(hour):00:00Z", party: 10_000))
        }
        #expect(try await service.fetch().reservations.map(\.partySize).reduce(0, +) == 50_000)
    }

    @Test func otherLandmarksDoNotCount() async throws {
        let service = Fixture.service()
        _ = try await service.reserve(Fixture.request(Fixture.lakeTahoeID, on: "2026-12-01T10:00:00-08:00", party: 299))
        let halfDome = try await service.reserve(Fixture.request(on: "2026-12-01T10:00:00-08:00", party: 300))
        #expect(halfDome.partySize == 300)
    }

    @Test func aDayIsInUTCWhenTheLandmarkHasNoTimeZone() async throws {
        let id = "aaaa0000-0000-4000-8000-000000000001"
        let catalog = LandmarkCatalog(records: [Fixture.landmarkRecord(id: id, ["capacity": .integer(10)])])
        let service = Fixture.service(catalog: catalog)
        _ = try await service.reserve(Fixture.request(id, on: "2026-12-01T23:30:00Z", party: 8))

        _ = try await service.reserve(Fixture.request(id, on: "2026-12-02T00:30:00Z", party: 5))
        let error = try await #require(throws: ReservationError.self) {
            try await service.reserve(Fixture.request(id, on: "2026-12-01T00:00:00Z", party: 5))
        }
        guard case .noCapacity(_, "2026-12-01", 5, 8) = error else {
            Issue.record("expected .noCapacity(_, \"2026-12-01\", 5, 8), got \(error)")
            return
        }
    }

    @Test func refusalMessageGivesTheNumbers() async throws {
        let service = Fixture.service()
        _ = try await service.reserve(Fixture.request(on: "2026-12-01T10:00:00-08:00", party: 280))
        let error = try await #require(throws: ReservationError.self) {
            try await service.reserve(Fixture.request(on: "2026-12-01T11:00:00-08:00", party: 30))
        }
        let message = try #require(error.errorDescription)
        #expect(message == "Half Dome is full on 2026-12-01: 280 of 300 places taken, 30 requested")
    }

    @Test func aPartyLargerThanTheDaysCapacitySaysSo() async throws {
        let error = try await #require(throws: ReservationError.self) {
            try await Fixture.service().reserve(Fixture.request(on: "2026-12-01T11:00:00-08:00", party: 301))
        }
        #expect(error.errorDescription == "a party of 301 is larger than Half Dome's capacity of 300 a day")
    }

    @Test func concurrentReservesNeverExceedTheCapacity() async throws {
        let service = Fixture.service()
        let request = try Fixture.request(on: "2026-12-01T10:00:00-08:00", party: 7)

        let booked = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<100 {
                group.addTask { (try? await service.reserve(request))?.partySize ?? 0 }
            }
            return await group.reduce(0, +)
        }

        #expect(booked == 294)
        #expect(try await service.fetch().reservations.map(\.partySize).reduce(0, +) == 294)
    }
}
