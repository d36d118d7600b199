import Foundation
import Testing

@testable import ReservationCore

/// The dates of a series (`reserve --every`), rule by rule: the first visit's wall
/// time at the landmark on each day, week or month, across the landmark's clock
/// changes; a skipped time refuses; a repeated one is the earlier; a month without
/// the day has no visit; `--count` and `--until` bounds.
@Suite("Series dates", .timeLimit(.minutes(30)))
struct RecurrenceTests {
    let losAngeles = TimeZone(identifier: "America/Los_Angeles")!
    let paris = TimeZone(identifier: "Europe/Paris")!

    func instant(_ text: String) throws -> Date { try DateTime.parse(text) }

    /// The dates as ISO 8601 text in UTC, as records hold them.
    func texts(_ dates: [Date]) -> [String] { dates.map(DateTime.format) }

    @Test func weeklyAcrossSpringForwardKeepsTheWallTime() throws {
        // 10:00 PST is 18:00Z; after 2027-03-14 10:00 PDT is 17:00Z.
        let dates = try Recurrence.week.dates(
            from: try instant("2027-03-07T18:00:00Z"), to: .count(3), in: losAngeles)
        #expect(texts(dates) == ["2027-03-07T18:00:00Z", "2027-03-14T17:00:00Z", "2027-03-21T17:00:00Z"])
    }

    @Test func dailyAcrossFallBackKeepsTheWallTime() throws {
        // Paris leaves summer time on 2027-10-31: 09:30 CEST is 07:30Z, 09:30 CET 08:30Z.
        let dates = try Recurrence.day.dates(
            from: try instant("2027-10-30T07:30:00Z"), to: .count(3), in: paris)
        #expect(texts(dates) == ["2027-10-30T07:30:00Z", "2027-10-31T08:30:00Z", "2027-11-01T08:30:00Z"])
    }

    @Test func aTimeTheClocksSkipRefusesTheSeries() throws {
        // 02:30 on 2027-03-07 exists; on 2027-03-14 Los Angeles jumps from 02:00 to 03:00.
        #expect {
            try Recurrence.week.dates(from: try instant("2027-03-07T10:30:00Z"), to: .count(3), in: losAngeles)
        } throws: { error in
            guard case ReservationError.invalidDate(let parse) = error else { return false }
            return parse.input == "2027-03-14 02:30" && "\(ReservationError.invalidDate(parse))".contains("Los_Angeles")
        }
    }

    @Test func aTimeTheClocksRepeatIsTheEarlier() throws {
        // 01:30 on 2027-11-07 happens twice in Los Angeles: first at PDT (08:30Z).
        let dates = try Recurrence.week.dates(
            from: try instant("2027-10-31T08:30:00Z"), to: .count(2), in: losAngeles)
        #expect(texts(dates) == ["2027-10-31T08:30:00Z", "2027-11-07T08:30:00Z"])
    }

    @Test func monthlySkipsMonthsWithoutTheDay() throws {
        let dates = try Recurrence.month.dates(from: try instant("2027-01-31T10:00:00Z"), to: .count(4), in: .gmt)
        #expect(
            texts(dates) == [
                "2027-01-31T10:00:00Z", "2027-03-31T10:00:00Z", "2027-05-31T10:00:00Z", "2027-07-31T10:00:00Z",
            ])
    }

    @Test func monthlyOnTheTwentyNinthOfFebruaryWaitsForLeapYears() throws {
        let dates = try Recurrence.month.dates(
            from: try instant("2028-02-29T10:00:00Z"), to: .until(CalendarDay("2032-03-01")!), in: .gmt)
        // 49 months from 2028-02 to 2032-02, all with a 29th but the Februaries of 2029, 2030 and 2031.
        #expect(dates.count == 46)
        #expect(texts(dates).filter { $0.contains("-02-29") } == ["2028-02-29T10:00:00Z", "2032-02-29T10:00:00Z"])
        #expect(
            !texts(dates).contains { $0.hasPrefix("2029-02") || $0.hasPrefix("2030-02") || $0.hasPrefix("2031-02") })
    }

    @Test func monthlyCrossesTheYear() throws {
        let dates = try Recurrence.month.dates(from: try instant("2027-11-15T10:00:00Z"), to: .count(3), in: .gmt)
        #expect(texts(dates) == ["2027-11-15T10:00:00Z", "2027-12-15T10:00:00Z", "2028-01-15T10:00:00Z"])
    }

    @Test func untilIsTheLastDayIncludedAtTheLandmark() throws {
        // 03:00Z on 2027-06-01 is 20:00 on May 31 in Los Angeles: the days that count are the landmark's,
        // so --until 2027-06-03 takes its evenings of May 31 to June 3, the last at 03:00Z on June 4.
        let dates = try Recurrence.day.dates(
            from: try instant("2027-06-01T03:00:00Z"), to: .until(CalendarDay("2027-06-03")!), in: losAngeles)
        #expect(
            texts(dates) == [
                "2027-06-01T03:00:00Z", "2027-06-02T03:00:00Z", "2027-06-03T03:00:00Z", "2027-06-04T03:00:00Z",
            ])
        let first = try Recurrence.week.dates(
            from: try instant("2027-06-01T03:00:00Z"), to: .until(CalendarDay("2027-05-31")!), in: losAngeles)
        #expect(texts(first) == ["2027-06-01T03:00:00Z"])
    }

    @Test func untilBeforeTheFirstVisitIsRefused() throws {
        #expect {
            try Recurrence.week.dates(
                from: try instant("2027-06-01T10:00:00Z"), to: .until(CalendarDay("2027-05-31")!), in: .gmt)
        } throws: { error in
            guard case ReservationError.invalidSeries(let why) = error else { return false }
            return why.contains("before the first visit")
        }
    }

    @Test(arguments: [0, -1, Recurrence.longest + 1])
    func aCountOutOfRangeIsRefused(count: Int) throws {
        #expect(throws: ReservationError.self) {
            try Recurrence.day.dates(from: try instant("2027-06-01T10:00:00Z"), to: .count(count), in: .gmt)
        }
    }

    @Test func theLongestSeriesIsBookableAndOneMoreIsNot() throws {
        let start = try instant("2027-06-01T10:00:00Z")
        let longest = try Recurrence.day.dates(from: start, to: .count(Recurrence.longest), in: .gmt)
        #expect(longest.count == Recurrence.longest)
        #expect(Set(longest).count == longest.count)
        #expect {
            try Recurrence.day.dates(from: start, to: .until(CalendarDay("2030-06-01")!), in: .gmt)
        } throws: { error in
            guard case ReservationError.invalidSeries(let why) = error else { return false }
            return why.contains("at most \(Recurrence.longest)")
        }
    }

    @Test func secondsOfTheFirstVisitAreKept() throws {
        let dates = try Recurrence.day.dates(from: try instant("2027-06-01T10:15:30Z"), to: .count(2), in: .gmt)
        #expect(texts(dates) == ["2027-06-01T10:15:30Z", "2027-06-02T10:15:30Z"])
    }
}
