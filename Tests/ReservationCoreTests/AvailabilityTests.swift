import Foundation
import ResvTestKit
import Testing

@testable import ReservationCore

/// Calendar days, ranges of them, and the places taken and left per day.
@Suite("Availability", .timeLimit(.minutes(30)))
struct AvailabilityTests {
    // MARK: Calendar days, case by case

    @Test(arguments: [
        ("2026-12-01", "2026-12-01"), ("2024-02-29", "2024-02-29"), ("2000-02-29", "2000-02-29"),
        ("0001-01-01", "0001-01-01"), ("9999-12-31", "9999-12-31"), ("2026-04-30", "2026-04-30"),
    ])
    func aRealDayParsesAndPrintsTheSame(text: String, printed: String) throws {
        #expect(try #require(CalendarDay(text)).description == printed)
    }

    @Test(arguments: [
        "2026-02-29", "1900-02-29", "2026-04-31", "2026-13-01", "2026-00-10", "2026-12-00", "2026-12-32",
        "2026-4-01", "2026-12-1", "26-12-01", "2026/12/01", "2026-12-01T10:00:00Z", " 2026-12-01",
        "2026-12-01 ", "", "today", "2026-1a-01", "+026-12-01", "２０２６-12-01",
    ])
    func anythingElseIsNotADay(text: String) {
        #expect(CalendarDay(text) == nil)
    }

    @Test(arguments: [
        ("2026-12-01", "2026-12-02"), ("2026-11-30", "2026-12-01"), ("2026-12-31", "2027-01-01"),
        ("2024-02-28", "2024-02-29"), ("2024-02-29", "2024-03-01"), ("2026-02-28", "2026-03-01"),
    ])
    func nextCrossesMonthsYearsAndLeapDays(day: String, next: String) throws {
        #expect(try #require(CalendarDay(day)).next.description == next)
    }

    @Test func daysOrderByTheCalendar() throws {
        let days = try ["2027-01-01", "2026-12-31", "2026-02-01", "2026-01-31"].map { try #require(CalendarDay($0)) }
        #expect(days.sorted().map(\.description) == ["2026-01-31", "2026-02-01", "2026-12-31", "2027-01-01"])
    }

    @Test func aDateFallsOnItsDayInTheLandmarksZone() throws {
        let halfDome = try Fixture.halfDomeLandmark
        // 07:30 UTC on December 2 is 23:30 on December 1 in California.
        let date = try Fixture.date("2026-12-02T07:30:00Z")
        #expect(CalendarDay(date, in: Capacity.calendar(for: halfDome)).description == "2026-12-01")
        #expect(
            CalendarDay(date, in: Capacity.calendar(for: Landmark.builtIn[0].with(zone: .some(nil)))).description
                == "2026-12-02")
    }

    // MARK: Ranges

    @Test func aRangeRunsFromTheFirstThroughTheLastDay() throws {
        let days = try Capacity.days(from: day("2026-12-30"), through: day("2027-01-02"))
        #expect(days.map(\.description) == ["2026-12-30", "2026-12-31", "2027-01-01", "2027-01-02"])
        #expect(try Capacity.days(from: day("2026-12-01"), through: day("2026-12-01")).count == 1)
    }

    @Test func withoutALastDayARangeIsTwoWeeksFromTheFirstOrToday() throws {
        let fromToday = try Capacity.days(from: nil, through: nil, today: day("2026-12-25"))
        #expect(fromToday.count == 14)
        #expect(fromToday.first?.description == "2026-12-25")
        #expect(fromToday.last?.description == "2027-01-07")
        let fromFirst = try Capacity.days(from: day("2026-03-01"), through: nil, today: day("2026-12-25"))
        #expect(fromFirst.first?.description == "2026-03-01")
        #expect(fromFirst.count == 14)
        let toLast = try Capacity.days(from: nil, through: day("2026-12-27"), today: day("2026-12-25"))
        #expect(toLast.map(\.description) == ["2026-12-25", "2026-12-26", "2026-12-27"])
    }

    @Test func aDefaultRangeStopsAtTheLastDayWithAFourDigitYear() throws {
        let days = try Capacity.days(from: day("9999-12-25"), through: nil, today: day("2026-12-01"))
        #expect(days.map(\.description) == (25...31).map { "9999-12-\($0)" })
    }

    @Test func aReversedRangeIsRefused() throws {
        let error = try #require(throws: ReservationError.self) {
            try Capacity.days(from: day("2026-12-02"), through: day("2026-12-01"))
        }
        #expect(
            error.localizedDescription
                == "the range 2026-12-02 to 2026-12-01 is empty: the first day comes after the last")
    }

    @Test func aRangeOfAtMost366DaysIsAllowed() throws {
        // 2028 is a leap year: 366 days from January 1 through December 31.
        #expect(try Capacity.days(from: day("2028-01-01"), through: day("2028-12-31")).count == 366)
        let error = try #require(throws: ReservationError.self) {
            try Capacity.days(from: day("2028-01-01"), through: day("2029-01-01"))
        }
        #expect(error.localizedDescription == "2028-01-01 to 2029-01-01 is more than 366 days: ask for a shorter range")
    }

    // MARK: Counting

    @Test func onlyReservationsThatTakePlacesAtThatLandmarkCount() throws {
        let halfDome = try Fixture.halfDomeLandmark
        let tahoe = try #require(LandmarkCatalog.builtIn[Fixture.landmarkID(Fixture.lakeTahoeID)])
        let now = try Fixture.date("2026-11-01T00:00:00Z")
        let reservations = [
            Reservation(
                id: try Fixture.reservationID("5a1b2c3d-0000-4000-8000-000000000001"), landmark: halfDome,
                date: try Fixture.date("2026-12-01T10:00:00-08:00"), partySize: 4, status: .confirmed),
            Reservation(
                id: try Fixture.reservationID("5a1b2c3d-0000-4000-8000-000000000002"), landmark: halfDome,
                date: try Fixture.date("2026-12-01T11:00:00-08:00"), partySize: 3, status: .pending),
            Reservation(
                id: try Fixture.reservationID("5a1b2c3d-0000-4000-8000-000000000003"), landmark: halfDome,
                date: try Fixture.date("2026-12-01T12:00:00-08:00"), partySize: 50, status: .cancelled),
            Reservation(
                id: try Fixture.reservationID("5a1b2c3d-0000-4000-8000-000000000004"), landmark: tahoe,
                date: try Fixture.date("2026-12-01T12:00:00-08:00"), partySize: 7, status: .confirmed),
            // Waiting for places takes none; nor does a hold that has ended, recorded or not.
            Reservation(
                id: try Fixture.reservationID("5a1b2c3d-0000-4000-8000-000000000005"), landmark: halfDome,
                date: try Fixture.date("2026-12-01T13:00:00-08:00"), partySize: 20, status: .waitlisted,
                waitlistOrder: 1),
            Reservation(
                id: try Fixture.reservationID("5a1b2c3d-0000-4000-8000-000000000006"), landmark: halfDome,
                date: try Fixture.date("2026-12-01T14:00:00-08:00"), partySize: 30, status: .held,
                expiresAt: now.addingTimeInterval(-1)),
            Reservation(
                id: try Fixture.reservationID("5a1b2c3d-0000-4000-8000-000000000007"), landmark: halfDome,
                date: try Fixture.date("2026-12-01T15:00:00-08:00"), partySize: 2, status: .held,
                expiresAt: now.addingTimeInterval(60)),
        ]
        let days = try Capacity.days(from: day("2026-11-30"), through: day("2026-12-02"))
        let counted = Capacity.availability(of: halfDome, on: days, reservations: reservations, at: now)
        #expect(counted.map(\.taken) == [0, 9, 0])
        #expect(counted.map(\.left) == [300, 291, 300])
        #expect(counted.allSatisfy { $0.capacity == 300 })
        let open = Capacity.availability(of: tahoe, on: days, reservations: reservations, at: now)
        #expect(open.map(\.taken) == [0, 7, 0])
        #expect(open.allSatisfy { $0.capacity == nil && $0.left == nil })
    }

    @Test func aReservationAt2330LocalCountsOnItsLocalDayNotTheUTCOne() throws {
        let halfDome = try Fixture.halfDomeLandmark
        // 07:30Z on December 2, still December 1 in California; then the first instant of December 2 there.
        let late = (date: try Fixture.date("2026-12-01T23:30:00-08:00"), partySize: 5)
        let early = (date: try Fixture.date("2026-12-02T00:00:00-08:00"), partySize: 2)
        let days = try Capacity.days(from: day("2026-12-01"), through: day("2026-12-02"))
        let counted = Capacity.availability(of: halfDome, on: days, parties: [late, early])
        #expect(counted.map(\.taken) == [5, 2])
    }

    @Test func aDaylightSavingDayIsItsWholeLocalDay() throws {
        // November 1, 2026 has 25 hours in California; 23:30 PST is still that day.
        let halfDome = try Fixture.halfDomeLandmark
        let parties = [
            (date: try Fixture.date("2026-11-01T00:30:00-07:00"), partySize: 1),
            (date: try Fixture.date("2026-11-01T23:30:00-08:00"), partySize: 2),
            (date: try Fixture.date("2026-11-02T00:00:00-08:00"), partySize: 4),
        ]
        let days = try Capacity.days(from: day("2026-11-01"), through: day("2026-11-02"))
        #expect(Capacity.availability(of: halfDome, on: days, parties: parties).map(\.taken) == [3, 4])
    }

    @Test func aDayOverItsCapacityHasNoPlacesLeftNeverANegativeNumber() throws {
        // A store may hold more than the capacity (written before a limit was set).
        let small = Landmark.builtIn[2].with(capacity: 5)
        let days = try [day("2026-12-01")]
        let over = Capacity.availability(
            of: small, on: days, parties: [(date: try Fixture.date("2026-12-01T10:00:00-08:00"), partySize: 8)])
        #expect(over.map(\.left) == [0])
        #expect(over.map(\.taken) == [8])
    }

    @Test func partiesBeyondTheBoundStoredByAnOlderServerNeverTrapAndDoNotCount() throws {
        // Two parties of Int.max overflowed the running sum (a trap that took the server down).
        let date = try Fixture.date("2026-12-01T10:00:00-08:00")
        let parties = [(date: date, partySize: Int.max), (date: date, partySize: Int.max), (date: date, partySize: 3)]
        for landmark in [try Fixture.halfDomeLandmark, Landmark.builtIn[1].with(capacity: .some(nil))] {
            let counted = Capacity.availability(of: landmark, on: [try day("2026-12-01")], parties: parties)
            #expect(counted.map(\.taken) == [3])
        }
    }

    // MARK: The JSON shape

    @Test func theJSONShapeIsStableAndReadsBack() throws {
        let limited = DayAvailability(day: try day("2026-12-01"), capacity: 300, taken: 298)
        #expect(
            String(decoding: limited.json.encoded(), as: UTF8.self)
                == #"{"capacity":300,"date":"2026-12-01","left":2,"taken":298}"#)
        let open = DayAvailability(day: try day("2026-12-01"), capacity: nil, taken: 7)
        #expect(
            String(decoding: open.json.encoded(), as: UTF8.self)
                == #"{"capacity":null,"date":"2026-12-01","left":null,"taken":7}"#)
        #expect(DayAvailability(json: limited.json) == limited)
        #expect(DayAvailability(json: open.json) == open)
    }

    @Test(arguments: [
        #"{"date":"2026-02-30","capacity":3,"taken":1}"#, #"{"capacity":3,"taken":1}"#,
        #"{"date":"2026-12-01","capacity":3}"#, #"{"date":"2026-12-01","capacity":3,"taken":-1}"#,
        #"{"date":"2026-12-01","capacity":0,"taken":1}"#, #"{"date":"2026-12-01","capacity":"3","taken":1}"#,
        #"{"date":"2026-12-01","capacity":3,"taken":1.5}"#, #"[]"#,
    ])
    func aServerDayThatIsNotTheShapeIsRefused(text: String) throws {
        #expect(DayAvailability(json: try JSONValue.parse(Data(text.utf8))) == nil)
    }

    // MARK: The built-in catalog

    @Test func everyBuiltInLandmarkHasItsZoneAndPermitPlacesHaveACapacity() {
        for landmark in Landmark.builtIn {
            #expect(landmark.timeZone != nil, "\(landmark.name) has no time zone")
        }
        let capacities = Dictionary(uniqueKeysWithValues: Landmark.builtIn.map { ($0.name, $0.capacity) })
        #expect(capacities["Half Dome"] == 300)
        #expect(capacities["Golden Gate Bridge"] == .some(nil))
        #expect(capacities["Lake Tahoe"] == .some(nil))
        #expect(Landmark.builtIn.filter { $0.capacity != nil }.count == 8)
        #expect(Landmark.builtIn.first { $0.name == "Brooklyn Bridge" }?.timeZone?.identifier == "America/New_York")
        #expect(Landmark.builtIn.first { $0.name == "St. Mary Lake" }?.timeZone?.identifier == "America/Denver")
    }

    // MARK: Services

    @Test func theInMemoryServiceCountsWhatItHolds() async throws {
        let service = Fixture.service()
        _ = try await service.reserve(Fixture.request(on: "2026-12-01T23:30:00-08:00", party: 298))
        let (first, last) = (try day("2026-12-01"), try day("2026-12-02"))
        let answer = try await service.availability("half dome") { landmark in
            #expect(landmark.name == "Half Dome", "the range is asked for the landmark named")
            return try Capacity.days(from: first, through: last)
        }
        #expect(answer.landmark.name == "Half Dome")
        #expect(answer.days.map(\.taken) == [298, 0])
        #expect(answer.days.map(\.left) == [2, 300])
        await #expect(throws: ReservationError.self) {
            try await service.availability("Half Dome") { _ in try Capacity.days(from: last, through: first) }
        }
        await #expect(throws: ReservationError.self) {
            try await service.availability("Atlantis") { _ in [first] }
        }
    }

    func day(_ text: String) throws -> CalendarDay { try #require(CalendarDay(text)) }
}

extension Landmark {
    /// This landmark with another zone or capacity.
    func with(zone: TimeZone?? = .none, capacity: Int?? = .none) -> Landmark {
        Landmark(
            id: id, name: name, location: location, description: description, category: category,
            isFeatured: isFeatured, imageName: imageName, capacity: capacity ?? self.capacity,
            timeZone: zone ?? timeZone)
    }
}
