import Foundation
import ResvTestKit
import Testing

@testable import ReservationCore

/// Capacity by date and closures (`Booking.changeDays`, `DayRule`), rule by rule, on the
/// ledger every in-process engine runs (memory, the file store).
@Suite("Capacity by date and closures", .timeLimit(.minutes(30)))
struct DayRuleTests {
    static let peakID = "aaaa0000-0000-4000-8000-000000000001"
    static let lakeID = "aaaa0000-0000-4000-8000-000000000002"
    static let catalog = LandmarkCatalog(records: [
        Fixture.landmarkRecord(id: peakID, ["name": .string("Test Peak"), "capacity": .integer(10)]),
        Fixture.landmarkRecord(id: lakeID, ["name": .string("Open Lake"), "category": .string("lakes")]),
    ])
    static let day = CalendarDay("2026-12-01")!
    static let visit = "2026-12-01T10:00:00Z"

    /// A ledger with parties at the peak on `day`, booked one second apart in this order.
    static func ledger(parties: [Int], at landmark: String = peakID) async throws -> ReservationLedger {
        var ledger = ReservationLedger(records: [], catalog: catalog)
        for (index, party) in parties.enumerated() {
            _ = try await ledger.apply {
                try await Booking.reserve(
                    Fixture.request(landmark, on: visit, party: party),
                    now: Fixture.now.addingTimeInterval(Double(index)),
                    in: $0)
            }
        }
        return ledger
    }

    static func change(
        _ change: DayChange, _ ledger: inout ReservationLedger, overflow: Overflow = .refuse,
        days: [CalendarDay] = [day],
        at landmark: String = peakID
    ) async throws -> DaysChanged {
        try await ledger.apply {
            try await Booking.changeDays(
                change, at: landmark, days: days, overflow: overflow, now: Fixture.now.addingTimeInterval(60), in: $0)
        }
    }

    static func book(
        _ ledger: inout ReservationLedger, party: Int, at landmark: String = peakID, waitlist: Bool = false
    )
        async throws -> Reservation
    {
        let request = try NewReservation(
            landmark: landmark, date: Fixture.date(visit), partySize: party, waitlist: waitlist, now: Fixture.now)
        return try await ledger.apply {
            try await Booking.reserve(request, now: Fixture.now.addingTimeInterval(120), in: $0)
        }
    }

    static func statuses(_ ledger: ReservationLedger) -> [Reservation.Status] {
        ledger.snapshot.reservations.sorted { ($0.createdAt ?? .distantPast) < ($1.createdAt ?? .distantPast) }
            .map(\.status)
    }

    @Test func anOverrideReplacesTheCatalogsCapacityThatDayOnly() async throws {
        var ledger = try await Self.ledger(parties: [4])
        _ = try await Self.change(.capacity(6), &ledger)
        _ = try await Self.book(&ledger, party: 2)
        let refused = await #expect(throws: ReservationError.self) { try await Self.book(&ledger, party: 1) }
        guard case .noCapacity(let landmark, _, _, let booked)? = refused else {
            Issue.record("expected noCapacity, got \(String(describing: refused))")
            return
        }
        #expect(landmark.capacity == 6 && booked == 6)
        #expect(refused?.localizedDescription.contains("6 of 6 places taken") == true)
        // The next day keeps the catalog's 10.
        let nextDay = try NewReservation(
            landmark: Self.peakID, date: Fixture.date("2026-12-02T10:00:00Z"), partySize: 10, now: Fixture.now)
        _ = try await ledger.apply { try await Booking.reserve(nextDay, now: Fixture.now, in: $0) }
        // Raised above the catalog's, it takes more than the catalog would.
        _ = try await Self.change(.capacity(12), &ledger)
        _ = try await Self.book(&ledger, party: 6)
        #expect(ledger.rules.values.map(\.capacity) == [12])
    }

    @Test func aClosedDayRefusesEveryBookingWithItsReasonAtAnyLandmark() async throws {
        for landmark in [Self.peakID, Self.lakeID] {
            var ledger = try await Self.ledger(parties: [], at: landmark)
            _ = try await Self.change(.close(reason: "rockfall"), &ledger, at: landmark)
            let before = ledger.records
            let refused = await #expect(throws: ReservationError.self) {
                try await Self.book(&ledger, party: 1, at: landmark, waitlist: true)
            }
            #expect(refused?.code == .closed)
            #expect(refused?.localizedDescription.hasSuffix("is closed on 2026-12-01: rockfall") == true)
            #expect(ledger.records == before)
            // Opened again, it books.
            _ = try await Self.change(.open, &ledger, at: landmark)
            #expect(ledger.dayRules.isEmpty)
            _ = try await Self.book(&ledger, party: 1, at: landmark)
        }
    }

    @Test func aModifyOntoAClosedDayIsRefusedButANoteThereIsNot() async throws {
        var ledger = try await Self.ledger(parties: [2])
        let other = try NewReservation(
            landmark: Self.peakID, date: Fixture.date("2026-12-02T10:00:00Z"), partySize: 2, now: Fixture.now)
        let moving = try await ledger.apply { try await Booking.reserve(other, now: Fixture.now, in: $0) }
        _ = try await Self.change(.close(reason: "storm"), &ledger, overflow: .cancel)
        let change = try ReservationChange(date: Fixture.date("2026-12-01T11:00:00Z"))
        let refused = await #expect(throws: ReservationError.self) {
            _ = try await ledger.apply {
                try await Booking.modify(moving.id, change, expectedVersion: nil, now: Fixture.now, in: $0)
            }
        }
        #expect(refused?.code == .closed)
        let noted = try await ledger.apply {
            try await Booking.modify(
                moving.id, try ReservationChange(note: "bring rope"), expectedVersion: nil, now: Fixture.now, in: $0)
        }
        #expect(noted.note == "bring rope")
    }

    @Test func loweringOrClosingBelowWhatIsTakenIsRefusedNamingThePlacesOver() async throws {
        var ledger = try await Self.ledger(parties: [4, 3, 2])
        let before = ledger.records
        let lowered = await #expect(throws: ReservationError.self) { try await Self.change(.capacity(5), &ledger) }
        #expect(lowered?.code == .noCapacity)
        #expect(lowered?.localizedDescription.hasPrefix("4 places are over at Test Peak on 2026-12-01") == true)
        let closed = await #expect(throws: ReservationError.self) {
            try await Self.change(.close(reason: "storm"), &ledger)
        }
        #expect(closed?.localizedDescription.hasPrefix("9 places are over") == true)
        #expect(ledger.records == before)
        #expect(ledger.dayRules.isEmpty)
        // Down to what is taken is no change of anyone's: allowed.
        _ = try await Self.change(.capacity(9), &ledger)
    }

    @Test func cancelTakesTheLatestBookedUntilTheDayFitsEachWithTheReason() async throws {
        var ledger = try await Self.ledger(parties: [4, 3, 2])
        let changed = try await Self.change(.capacity(5), &ledger, overflow: .cancel)
        #expect(changed.cancelled.count == 2)
        #expect(Self.statuses(ledger) == [.confirmed, .cancelled, .cancelled])
        let entries = ledger.history.compactMap(HistoryEntry.init(json:)).filter { $0.change == .cancelled }
        #expect(entries.count == 2)
        #expect(entries.allSatisfy { $0.reason == "capacity lowered to 5" })
        #expect(Set(entries.map(\.reservationID)) == Set(changed.cancelled))
        // Each party changed once: one entry per reservation.
        #expect(Set(entries.map(\.reservationID)).count == entries.count)
    }

    @Test func waitlistMovesTheLatestToTheHeadInBookingOrder() async throws {
        var ledger = try await Self.ledger(parties: [4, 3, 2])
        // Someone already waiting: the moved parties go before them.
        let waiting = try await Self.book(&ledger, party: 5, waitlist: true)
        #expect(waiting.status == .waitlisted)
        let changed = try await Self.change(.close(reason: "trail work"), &ledger, overflow: .waitlist)
        #expect(changed.waitlisted.count == 3)
        let list = try await LedgerTransaction(ledger).waitlisted([
            BookingDay(try Fixture.date(Self.visit), at: Self.catalog.landmarks.first { $0.capacity != nil }!)!
        ])
        let order = list.values.first?.compactMap(\.reservation?.id) ?? []
        let booked = ledger.snapshot.reservations.filter { $0.id != waiting.id }
            .sorted {
                ($0.createdAt ?? .distantPast, $0.id.description) < ($1.createdAt ?? .distantPast, $1.id.description)
            }
        #expect(order == booked.map(\.id) + [waiting.id])
        #expect(
            ledger.history.compactMap(HistoryEntry.init(json:)).filter { $0.reason == "closed: trail work" }.count == 3)
        // Opened again, the waitlist is served in its order: the three, then the 5 that fits no more.
        let opened = try await Self.change(.open, &ledger)
        #expect(Set(opened.promoted) == Set(booked.map(\.id)))
        #expect(ledger.snapshot.reservations.first { $0.id == waiting.id }?.status == .waitlisted)
    }

    @Test func raisingACapacityPromotesTheWaitlist() async throws {
        var ledger = try await Self.ledger(parties: [10])
        let waiting = try await Self.book(&ledger, party: 3, waitlist: true)
        let changed = try await Self.change(.capacity(13), &ledger)
        #expect(changed.promoted == [waiting.id])
    }

    @Test func undoOfAClosuresCancelIsRefusedWhileClosedAndGivesThePlacesBackOnceOpen() async throws {
        var ledger = try await Self.ledger(parties: [4, 3])
        _ = try await Self.change(.close(reason: "storm"), &ledger, overflow: .cancel)
        let refused = await #expect(throws: ReservationError.self) {
            _ = try await ledger.apply { try await Booking.undo(now: Fixture.now.addingTimeInterval(90), in: $0) }
        }
        #expect(refused?.code == .closed)
        _ = try await Self.change(.open, &ledger)
        _ = try await ledger.apply { try await Booking.undo(now: Fixture.now.addingTimeInterval(90), in: $0) }
        #expect(Self.statuses(ledger) == [.confirmed, .confirmed])
    }

    @Test func anUndoThatAddsPeopleCountsTheDaysOwnCapacity() async throws {
        var ledger = try await Self.ledger(parties: [4, 3])
        let first = ledger.snapshot.reservations[0].id
        _ = try await ledger.cancel([first], now: Fixture.now.addingTimeInterval(30))
        _ = try await Self.change(.capacity(5), &ledger)
        let refused = await #expect(throws: ReservationError.self) {
            _ = try await ledger.apply { try await Booking.undo(now: Fixture.now.addingTimeInterval(90), in: $0) }
        }
        #expect(refused?.localizedDescription.contains("of 5 places") == true)
    }

    @Test func badInputIsRefusedBeforeAnythingChanges() async throws {
        var ledger = try await Self.ledger(parties: [1])
        let before = ledger.records
        let cases: [(DayChange, [CalendarDay], String)] = [
            (.capacity(-1), [Self.day], "capacity -1 is out of range"),
            (.capacity(1_000_001), [Self.day], "capacity 1000001 is out of range"),
            (.close(reason: String(repeating: "x", count: 501)), [Self.day], "reason has 501 characters"),
            (.close(reason: "line\nbreak"), [Self.day], "reason holds a control character"),
            (.close(reason: "  "), [Self.day], "reason is empty"),
            (.close(reason: "x"), [], "give from 1 to 366 days"),
        ]
        for (change, days, message) in cases {
            let error = await #expect(throws: ReservationError.self) {
                try await Self.change(change, &ledger, days: days)
            }
            #expect(error?.localizedDescription.hasPrefix(message) == true, "\(message): \(String(describing: error))")
            #expect(error?.code.kind == .invalidInput)
        }
        let unknown = await #expect(throws: ReservationError.self) {
            try await Self.change(.close(reason: "x"), &ledger, at: "no such place")
        }
        #expect(unknown?.code == .unknownLandmark)
        // A landmark that takes everyone has no capacity by day.
        let unlimited = await #expect(throws: ReservationError.self) {
            try await Self.change(.capacity(5), &ledger, at: Self.lakeID)
        }
        #expect(unlimited?.code == .invalidRequest)
        #expect(throws: ReservationError.self) {
            try Capacity.days(from: Self.day, through: CalendarDay("2027-12-02")!)
        }
        #expect(throws: ReservationError.self) {
            try Capacity.days(from: Self.day, through: CalendarDay("2026-11-30")!)
        }
        #expect(ledger.records == before)
        #expect(ledger.dayRules.isEmpty)
    }

    @Test func aRangeSetsEveryDayAndRulesKeepUnknownFields() async throws {
        var ledger = ReservationLedger(
            records: [], catalog: Self.catalog,
            dayRules: [
                .object([
                    "landmarkId": .string(Self.peakID), "date": .string("2026-12-02"), "capacity": .integer(3),
                    "by": .string("ops"),
                ])
            ])
        let days = try Capacity.days(from: Self.day, through: CalendarDay("2026-12-03")!)
        let changed = try await Self.change(.close(reason: "ice"), &ledger, days: days)
        #expect(changed.rules.map(\.day.description) == ["2026-12-01", "2026-12-02", "2026-12-03"])
        #expect(changed.rules.allSatisfy { $0.closed == "ice" })
        let kept = ledger.dayRules.first { $0["date"] == .string("2026-12-02") }
        #expect(kept?["by"] == .string("ops"))
        #expect(kept?["capacity"] == .integer(3))
        #expect(DayRule(json: changed.rules[1].json) == changed.rules[1])
        #expect(DaysChanged(json: changed.json) == changed)
    }

    @Test func availabilityShowsClosedDaysAndOverrides() async throws {
        var ledger = try await Self.ledger(parties: [4])
        _ = try await Self.change(.capacity(6), &ledger)
        _ = try await Self.change(.close(reason: "ice"), &ledger, days: [CalendarDay("2026-12-02")!])
        let peak = try #require(Self.catalog.landmarks.first { $0.capacity != nil })
        let days = Capacity.availability(
            of: peak, on: try Capacity.days(from: Self.day, through: CalendarDay("2026-12-03")!),
            reservations: ledger.snapshot.reservations, at: Fixture.now, rules: Array(ledger.rules.values))
        #expect(days.map(\.capacity) == [6, 10, 10])
        #expect(days.map(\.left) == [2, 0, 10])
        #expect(days.map(\.closed) == [nil, "ice", nil])
        #expect(days.map(\.override) == [true, false, false])
        #expect(
            String(decoding: days[1].json.encoded(), as: UTF8.self)
                == #"{"capacity":10,"closed":"ice","date":"2026-12-02","left":0,"taken":0}"#)
        #expect(days.allSatisfy { DayAvailability(json: $0.json) == $0 })
    }
}
