import Foundation
import ReservationCore
import Testing

@testable import ResvCLI

/// `availability --calendar`: months as grids from Monday, each day's places left,
/// coloured on a terminal and marked without colour, a legend after.
@Suite("Availability as a month calendar", .timeLimit(.minutes(30)))
struct CalendarGridTests {
    static func day(_ text: String, taken: Int, capacity: Int? = 300) -> DayAvailability {
        DayAvailability(day: CalendarDay(text)!, capacity: capacity, taken: taken)
    }

    /// The days from `first` through `last`, `taken` by day number (0 when not given).
    static func days(_ first: String, _ last: String, capacity: Int? = 300, taken: [String: Int] = [:])
        -> [DayAvailability]
    {
        var days: [DayAvailability] = []
        var day = CalendarDay(first)!
        while day <= CalendarDay(last)! {
            days.append(DayAvailability(day: day, capacity: capacity, taken: taken[day.description] ?? 0))
            day = day.next
        }
        return days
    }

    let plain = Renderer(format: .table, colour: false, timeZone: .gmt, now: Date(timeIntervalSince1970: 1_780_315_200))
    let coloured = Renderer(
        format: .table, colour: true, timeZone: .gmt, now: Date(timeIntervalSince1970: 1_780_315_200))

    @Test(arguments: [
        (0, 300, Renderer.Fullness.plenty), (149, 300, .plenty), (150, 300, .filling), (269, 300, .filling),
        (270, 300, .few), (299, 300, .few), (300, 300, .full), (400, 300, .full), (0, 1, .plenty), (1, 1, .full),
        (0, 0, .full), (9, 10, .few), (5, 10, .filling), (Int.max / 2, Int.max / 2, .full),
    ])
    func howFullADayIs(taken: Int, capacity: Int, fullness: Renderer.Fullness) {
        #expect(Renderer.Fullness(Self.day("2026-12-01", taken: taken, capacity: capacity)) == fullness)
    }

    @Test func withoutALimitADayHasNoFullness() {
        #expect(Renderer.Fullness(Self.day("2026-12-01", taken: 5, capacity: nil)) == nil)
    }

    @Test func aMonthWithoutColourHasMarksAndALegend() {
        let days = Self.days(
            "2026-12-01", "2026-12-10",
            taken: ["2026-12-02": 152, "2026-12-03": 282, "2026-12-04": 300])
        let text = plain.calendar(days, today: CalendarDay("2026-12-01")!)
        #expect(
            text == """
                December 2026
                Mon   Tue   Wed   Thu   Fri   Sat   Sun
                        1     2     3     4     5     6
                      300   148+   18!    0x  300   300
                  7     8     9    10    11    12    13
                300   300   300   300

                (no mark) under half taken  + half or more taken  ! nine tenths or more taken  x full

                """)
    }

    @Test func weeksOutsideTheRangeAreLeftOutAndMonthsFollowAcrossAYear() {
        let text = plain.calendar(Self.days("2026-12-30", "2027-01-02"), today: CalendarDay("2026-12-30")!)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[0] == "December 2026")
        #expect(lines[2] == " 28    29    30    31", "only the last week of December")
        #expect(lines[3] == "            300   300")
        #expect(lines[5] == "January 2027")
        #expect(lines[7] == "                          1     2     3", "1 January 2027 is a Friday")
        #expect(lines[8] == "                        300   300")
        #expect(lines.count == 12)
    }

    @Test func aMonthThatStartsOnMondayOrSunday() {
        // February 2027 starts on a Monday, August 2027 on a Sunday.
        let february = plain.calendar(Self.days("2027-02-01", "2027-02-01"), today: CalendarDay("2027-02-01")!)
        #expect(february.split(separator: "\n")[2] == "  1     2     3     4     5     6     7")
        let august = plain.calendar(Self.days("2027-08-01", "2027-08-01"), today: CalendarDay("2027-08-01")!)
        #expect(august.split(separator: "\n")[2] == "                                      1")
    }

    @Test func colourOnATerminalAndTodayInBold() {
        let days = Self.days(
            "2026-12-01", "2026-12-04",
            taken: ["2026-12-02": 152, "2026-12-03": 282, "2026-12-04": 300])
        let text = coloured.calendar(days, today: CalendarDay("2026-12-02")!)
        #expect(text.contains("\u{1B}[32m300\u{1B}[0m"), "under half: green")
        #expect(text.contains("\u{1B}[33m148\u{1B}[0m"), "half or more: yellow")
        #expect(text.contains("\u{1B}[31m 18\u{1B}[0m"), "nine tenths: red")
        #expect(text.contains("\u{1B}[1;31m  0\u{1B}[0m"), "full: bold red")
        #expect(text.contains("\u{1B}[1m  2\u{1B}[0m"), "today in bold")
        #expect(!text.contains("148+") && !text.contains("0x"), "no marks where colour says it")
        #expect(text.contains("\u{1B}[32m■\u{1B}[0m under half taken"))
    }

    @Test func largeCapacitiesWidenEveryColumnAndNoLimitIsADash() {
        let wide = plain.calendar(
            Self.days("2026-12-07", "2026-12-07", capacity: 1_000_000), today: CalendarDay("2026-12-07")!)
        let lines = wide.split(separator: "\n")
        #expect(lines[1].hasPrefix("    Mon       Tue"))
        #expect(lines[3] == "1000000")
        let unlimited = plain.calendar(
            Self.days("2026-12-07", "2026-12-08", capacity: nil), today: CalendarDay("2026-12-07")!)
        #expect(unlimited.contains("  -     -"))
        #expect(unlimited.hasSuffix("- no daily limit: every day takes everyone\n"))
    }

    @Test func theLastMonthThereIs() {
        let text = plain.calendar(Self.days("9999-12-30", "9999-12-31"), today: CalendarDay("9999-12-30")!)
        #expect(text.hasPrefix("December 9999\n"))
        #expect(text.contains(" 27    28    29    30    31"))
    }

    @Test(arguments: [
        ("2026-11-24", "2026-12-31"), ("2026-12-31", "2027-01-31"), ("2026-01-31", "2026-02-28"),
        ("2028-01-15", "2028-02-29"), ("9999-11-05", "9999-12-31"), ("9999-12-20", "9999-12-31"),
    ])
    func theDefaultRangeEndsWithTheNextMonth(_ from: String, _ end: String) {
        #expect(AvailabilityCommand.endOfNextMonth(after: CalendarDay(from)!) == CalendarDay(end)!)
    }
}
