import Foundation
import ResvTestKit
import Testing

@testable import ReservationCore

/// A landmark's `hours` and `slots` (docs/contracts.md, "Timed entry"): every mapping rule, case by case.
@Suite("Timetable mapping", .timeLimit(.minutes(30)))
struct TimetableMappingTests {
    static func slots(
        every: String = "PT1H", first: String = "08:00", last: String = "15:00", capacity: Int64 = 10
    ) -> JSONValue {
        .object([
            "every": .string(every), "first": .string(first), "last": .string(last), "capacity": .integer(capacity),
        ])
    }

    static func hours(_ open: String = "08:00", _ close: String = "17:00") -> JSONValue {
        .object(["open": .string(open), "close": .string(close)])
    }

    static func map(_ overrides: [String: JSONValue]) throws(LandmarkRejection) -> Landmark {
        try Landmark(LandmarkApiModel(json: Fixture.landmarkRecord(overrides)))
    }

    static func reason(_ overrides: [String: JSONValue]) -> String? {
        do {
            _ = try map(overrides)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func slotsMapWithTheirStartsAndCapacity() throws {
        let landmark = try Self.map(["slots": Self.slots(every: "PT1H30M", first: "08:00", last: "14:00")])
        let plan = try #require(landmark.timetable?.daily)
        #expect(plan.starts.map(\.description) == ["08:00", "09:30", "11:00", "12:30", "14:00"])
        #expect(plan.slotCapacity == 10)
        #expect(plan.summary == "every 90 minutes 08:00–14:00")
        #expect(landmark.capacity == nil)
        #expect(landmark.timetable?.isSlotted == true)
    }

    @Test func hoursMap() throws {
        let landmark = try Self.map(["hours": Self.hours("08:00", "17:00"), "capacity": .integer(300)])
        #expect(landmark.timetable == Timetable(daily: .hours(open: WallTime("08:00")!, close: WallTime("17:00")!)))
        #expect(landmark.timetable?.isSlotted == false)
        #expect(landmark.timetable?.daily?.summary == "open 08:00–17:00")
    }

    @Test func weekdaysMapAndAMissingWeekdayIsClosed() throws {
        let landmark = try Self.map([
            "timeZone": .string("America/Denver"),
            "slots": .object(["mon": Self.slots(), "sat": Self.slots(every: "PT30M", first: "09:00", last: "10:00")]),
        ])
        let timetable = try #require(landmark.timetable)
        #expect(timetable.daily == nil)
        #expect(timetable.byWeekday.keys.sorted() == [2, 7])
        let calendar = Capacity.calendar(for: landmark)
        // 2031-06-02 is a Monday, 2031-06-07 a Saturday, 2031-06-08 a Sunday.
        func plan(_ day: String) -> DayPlan? {
            timetable.plan(
                on: calendar.date(from: DateComponents(year: 2031, month: 6, day: Int(day)!, hour: 12))!,
                in: calendar)
        }
        #expect(plan("2")?.starts.count == 8)
        #expect(plan("7")?.starts.map(\.description) == ["09:00", "09:30", "10:00"])
        #expect(plan("8") == nil)
    }

    @Test func aWireRoundTripKeepsTheTimetable() throws {
        for overrides: [String: JSONValue] in [
            ["slots": Self.slots(every: "PT15M", first: "00:00", last: "23:45")],
            ["slots": Self.slots(every: "P1D", first: "10:00", last: "10:00")],
            ["slots": Self.slots(every: "PT1H45M", first: "08:00", last: "11:30"), "capacity": .integer(40)],
            ["hours": .object(["tue": Self.hours(), "sun": Self.hours("10:00", "12:30")])],
        ] {
            let landmark = try Self.map(overrides)
            #expect(try Landmark(LandmarkApiModel(json: LandmarkApiModel(landmark).json)) == landmark)
        }
    }

    @Test func withoutThemALandmarkHasNoTimetable() throws {
        #expect(try Self.map([:]).timetable == nil)
        #expect(try Self.map(["slots": .null, "hours": .null]).timetable == nil)
        #expect(LandmarkApiModel(try Self.map(["capacity": .integer(5)])).json["slots"] == nil)
    }

    @Test func badTimetablesAreRefusedWithTheirReason() {
        let cases: [([String: JSONValue], String)] = [
            (["hours": Self.hours("17:00", "08:00")], "hours close 08:00 is not after open 17:00"),
            (["hours": Self.hours("08:00", "08:00")], "hours close 08:00 is not after open 08:00"),
            (["hours": Self.hours("8:00", "17:00")], "hours open '8:00' is not a time from 00:00 to 23:59"),
            (["hours": Self.hours("08:00", "24:00")], "hours close '24:00' is not a time from 00:00 to 23:59"),
            (["hours": Self.hours("08:60", "17:00")], "hours open '08:60' is not a time from 00:00 to 23:59"),
            (
                ["hours": .object(["open": .string("08:00")])],
                "hours close is missing or not a string: give a wall time such as 08:00"
            ),
            (["hours": .string("9-5")], "hours is a string, not an object"),
            (
                ["hours": .object(["open": .string("08:00"), "close": .string("17:00"), "lunch": .bool(true)])],
                "hours has an unknown key 'lunch': give close, open"
            ),
            (["slots": Self.slots(first: "15:00", last: "08:00")], "slots last 08:00 is before first 15:00"),
            (
                ["slots": Self.slots(every: "PT10M")],
                "slots every PT10M is not from 15 minutes (PT15M) to 24 hours (PT24H)"
            ),
            (["slots": Self.slots(every: "P2D")], "slots every P2D is not from 15 minutes (PT15M) to 24 hours (PT24H)"),
            (
                ["slots": Self.slots(every: "PT0M")],
                "slots every PT0M is not from 15 minutes (PT15M) to 24 hours (PT24H)"
            ),
            (["slots": Self.slots(every: "PT45M")], "slots every PT45M does not divide the window 08:00–15:00"),
            (["slots": Self.slots(every: "1h")], "slots every '1h' is not a duration in whole minutes such as PT30M"),
            (
                ["slots": Self.slots(every: "PT1H30S")],
                "slots every 'PT1H30S' is not a duration in whole minutes such as PT30M"
            ),
            (["slots": Self.slots(every: "PT")], "slots every 'PT' is not a duration in whole minutes such as PT30M"),
            (
                ["slots": Self.slots(every: "PT30M1H")],
                "slots every 'PT30M1H' is not a duration in whole minutes such as PT30M"
            ),
            (["slots": Self.slots(capacity: 0)], "slots capacity 0 is not from 1 to 1,000,000"),
            (["slots": Self.slots(capacity: 1_000_001)], "slots capacity 1000001 is not from 1 to 1,000,000"),
            (
                [
                    "slots": .object([
                        "every": .string("PT1H"), "first": .string("08:00"), "last": .string("09:00"),
                        "capacity": .double(2.5),
                    ])
                ],
                "slots capacity is not a whole number"
            ),
            (["slots": .object(["mon": .null])], "slots gives no weekday a plan"),
            (
                ["slots": Self.slots(capacity: 50), "capacity": .integer(40)],
                "slots capacity 50 is above the day's capacity 40"
            ),
            (
                ["slots": .object(["every": .string("PT1H"), "first": .string("08:00"), "last": .string("09:00")])],
                "slots capacity is missing or not a number: give each slot's places"
            ),
            (
                [
                    "slots": .object([
                        "mon": Self.slots(), "tue": Self.slots(every: "PT7H", first: "09:00", last: "10:00"),
                    ])
                ],
                "slots.tue every PT7H does not divide the window 09:00–10:00"
            ),
            (
                ["slots": .object(["mon": Self.slots(), "every": .string("PT1H")])],
                "slots mixes weekdays with 'every': give one plan, or one per weekday"
            ),
            (
                ["slots": Self.slots(), "hours": Self.hours()],
                "hours and slots are both given: give one of them"
            ),
        ]
        for (overrides, reason) in cases {
            #expect(Self.reason(overrides) == reason, "\(overrides)")
        }
    }

    @Test func aCatalogDropsABadTimetableAndKeepsTheRest() {
        let good = "aaaa0000-0000-4000-8000-000000000001"
        let bad = "bbbb0000-0000-4000-8000-000000000002"
        let catalog = LandmarkCatalog(records: [
            Fixture.landmarkRecord(id: good, ["slots": Self.slots()]),
            Fixture.landmarkRecord(id: bad, ["slots": Self.slots(every: "PT45M")]),
        ])
        #expect(catalog.landmarks.map(\.id.description) == [good])
        #expect(catalog.rejected.map(\.id) == [bad])
    }
}
