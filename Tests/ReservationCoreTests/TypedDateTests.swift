import Foundation
import Testing

@testable import ReservationCore

/// Dates as a person types them, case by case like the mapping: the input, the
/// clock, the landmark's zone, and the instant (or the refusal's words). The
/// clock is handed in; expected instants were worked out by hand and checked
/// with Python's `zoneinfo`.
@Suite(.timeLimit(.minutes(30)))
struct TypedDateTests {
    /// Tuesday 2026-11-24 16:00 UTC: 08:00 in Los Angeles, 17:00 in Berlin.
    static let tuesday = Date(timeIntervalSince1970: 1_795_536_000)
    /// Tuesday 2026-11-24 22:00 in Los Angeles, already Wednesday in UTC.
    static let lateTuesday = Date(timeIntervalSince1970: 1_795_586_400)

    struct Case: Sendable, CustomTestStringConvertible {
        let text: String
        let zone: String
        var now: Date = TypedDateTests.tuesday
        /// The instant, as `DateTime.format` writes it; or the words of the refusal.
        let expected: String

        var testDescription: String { "\"\(text)\" in \(zone)" }
    }

    static let la = "America/Los_Angeles"
    static let berlin = "Europe/Berlin"

    static let cases: [Case] = [
        // A zone given is read exactly as a record is, wherever the landmark is.
        Case(text: "2026-12-01T10:00:00Z", zone: la, expected: "2026-12-01T10:00:00Z"),
        Case(text: "2026-12-01T10:00:00+02:00", zone: la, expected: "2026-12-01T08:00:00Z"),
        // Without a zone: a wall time at the landmark, seconds optional, a space for the T.
        Case(text: "2026-12-01T08:00", zone: la, expected: "2026-12-01T16:00:00Z"),
        Case(text: "2026-12-01T08:00:00", zone: la, expected: "2026-12-01T16:00:00Z"),
        Case(text: "2026-12-01 08:00", zone: la, expected: "2026-12-01T16:00:00Z"),
        Case(text: "  2026-12-01   08:00  ", zone: la, expected: "2026-12-01T16:00:00Z"),
        Case(text: "2026-12-01 08:00", zone: berlin, expected: "2026-12-01T07:00:00Z"),
        Case(text: "2026-12-01 08:00", zone: "UTC", expected: "2026-12-01T08:00:00Z"),
        Case(text: "2026-07-01 08:00", zone: la, expected: "2026-07-01T15:00:00Z"),  // summer: PDT
        // Relative days, counted at the landmark.
        Case(text: "today 18:00", zone: la, expected: "2026-11-25T02:00:00Z"),
        Case(text: "TODAY 18:00", zone: la, expected: "2026-11-25T02:00:00Z"),
        Case(text: "tomorrow 09:30", zone: la, expected: "2026-11-25T17:30:00Z"),
        Case(text: "+3d 14:00", zone: la, expected: "2026-11-27T22:00:00Z"),
        Case(text: "+2w 10:00", zone: la, expected: "2026-12-08T18:00:00Z"),
        Case(text: "+0d 23:59:59", zone: la, expected: "2026-11-25T07:59:59Z"),
        // A weekday: the next one, never today (it is Tuesday).
        Case(text: "fri 09:00", zone: la, expected: "2026-11-27T17:00:00Z"),
        Case(text: "Friday 09:00", zone: la, expected: "2026-11-27T17:00:00Z"),
        Case(text: "tue 09:00", zone: la, expected: "2026-12-01T17:00:00Z"),
        Case(text: "wed 09:00", zone: la, expected: "2026-11-25T17:00:00Z"),
        // Late on Tuesday at the landmark is Wednesday in UTC: "today" is the landmark's.
        Case(text: "today 23:00", zone: la, now: lateTuesday, expected: "2026-11-25T07:00:00Z"),
        Case(text: "today 23:00", zone: "UTC", now: lateTuesday, expected: "2026-11-25T23:00:00Z"),
        Case(text: "wed 09:00", zone: la, now: lateTuesday, expected: "2026-11-25T17:00:00Z"),
        // Spring forward: the skipped hour does not exist; fall back: the repeated hour is the earlier.
        Case(
            text: "2027-03-14 02:30", zone: la,
            expected: "that time does not exist in America/Los_Angeles (the clocks jump forward over it)"),
        Case(text: "2027-03-14 03:00", zone: la, expected: "2027-03-14T10:00:00Z"),
        Case(text: "2027-03-14 01:59", zone: la, expected: "2027-03-14T09:59:00Z"),
        Case(text: "2026-11-01 01:30", zone: la, expected: "2026-11-01T08:30:00Z"),
        Case(text: "2026-11-01 02:00", zone: la, expected: "2026-11-01T10:00:00Z"),
        Case(
            text: "2026-03-29 02:30", zone: berlin,
            expected: "that time does not exist in Europe/Berlin (the clocks jump forward over it)"),
        Case(text: "2026-10-25 02:30", zone: berlin, expected: "2026-10-25T00:30:00Z"),
        // The same strict rules as records: no Feb 30, no hour 25.
        Case(text: "2026-02-30 10:00", zone: la, expected: "day 30 does not exist in February 2026"),
        Case(text: "2026-13-01 10:00", zone: la, expected: "there is no month 13"),
        Case(text: "2026-12-01 25:00", zone: la, expected: "hour 25 is out of range (00-23)"),
        Case(text: "2026-12-01 10:60", zone: la, expected: "minute 60 is out of range (00-59)"),
        Case(text: "2026-12-01 10:00:60", zone: la, expected: "second 60 is out of range (00-59)"),
        Case(text: "9999-12-31 23:00", zone: la, expected: "in UTC it falls outside the years 0000 to 9999"),
        // What is not a form says which forms there are.
        Case(text: "2026-12-01", zone: la, expected: "a day alone is not enough: add a time"),
        Case(text: "tomorrow", zone: la, expected: "a day alone is not enough: add a time"),
        Case(text: "fri", zone: la, expected: "a day alone is not enough: add a time"),
        Case(text: "next week", zone: la, expected: "'next week' is not a day or a time resv reads"),
        Case(text: "+3x 10:00", zone: la, expected: "'+3x' is not a day or a time resv reads"),
        // A day past is read (the caller says it is in the past), not refused as no form.
        Case(text: "-1d 10:00", zone: la, expected: "2026-11-23T18:00:00Z"),
        Case(text: "yesterday 10:00", zone: la, expected: "2026-11-23T18:00:00Z"),
        // What people type: next Friday, a month's name, am and pm.
        Case(text: "next friday 10:00", zone: la, expected: "2026-11-27T18:00:00Z"),
        Case(text: "next tue 10:00", zone: la, expected: "2026-12-01T18:00:00Z"),
        Case(text: "Dec 24 10:00", zone: la, expected: "2026-12-24T18:00:00Z"),
        Case(text: "24 December 10:00", zone: la, expected: "2026-12-24T18:00:00Z"),
        Case(text: "december 24th 10am", zone: la, expected: "2026-12-24T18:00:00Z"),
        Case(text: "Nov 20 10:00", zone: la, expected: "2027-11-20T18:00:00Z"),  // passed this year: next year's
        Case(text: "Nov 24 10:00", zone: la, expected: "2026-11-24T18:00:00Z"),  // today is still this year's
        Case(text: "Jan 5 2028 10:00", zone: la, expected: "2028-01-05T18:00:00Z"),
        Case(text: "feb 29 10:00", zone: la, expected: "2028-02-29T18:00:00Z"),
        Case(text: "feb 30 10:00", zone: la, expected: "day 30 does not exist in February 2026"),
        Case(text: "tomorrow 10am", zone: la, expected: "2026-11-25T18:00:00Z"),
        Case(text: "tomorrow 10 AM", zone: la, expected: "2026-11-25T18:00:00Z"),
        Case(text: "tomorrow 12am", zone: la, expected: "2026-11-25T08:00:00Z"),
        Case(text: "tomorrow 12pm", zone: la, expected: "2026-11-25T20:00:00Z"),
        Case(text: "tomorrow 9:30pm", zone: la, expected: "2026-11-26T05:30:00Z"),
        Case(text: "tomorrow 13pm", zone: la, expected: "hour 13 is out of range"),
        Case(text: "tomorrow 10", zone: la, expected: "'10' is not a time: write 10:00 or 10am"),
        Case(text: "fr 10:00", zone: la, expected: "'fr' is not a day or a time resv reads"),
        Case(text: "tomorrow 9:30", zone: la, expected: "2026-11-25T17:30:00Z"),
        Case(text: "tomorrow 9:3", zone: la, expected: "'9:3' is not a day or a time resv reads"),
        Case(text: "tomorrow 123:30", zone: la, expected: "'123:30' is not a day or a time resv reads"),
        Case(text: "2026-12-01T10:00Z", zone: la, expected: "'10:00z' is not a day or a time resv reads"),
        Case(text: "", zone: la, expected: "a date is required"),
        Case(text: "2026-12-01T25:00:00Z", zone: la, expected: "hour 25 is out of range (00-23)"),
        Case(text: "2026-12-01T10:00:00+25:00", zone: la, expected: "the time zone must be Z or an offset"),
        Case(text: "2026-12-01 9:00", zone: la, expected: "2026-12-01T17:00:00Z"),
        // One grammar (issue 60): tmrw, at, noon and midnight, a time before its day, in N days or weeks,
        // a 12-hour time after an ISO day. It is Tuesday 2026-11-24, 08:00 in Los Angeles (PST).
        Case(text: "tmrw 09:30", zone: la, expected: "2026-11-25T17:30:00Z"),
        Case(text: "TMRW 9:30 PM", zone: la, expected: "2026-11-26T05:30:00Z"),
        Case(text: "tomorrow at 10am", zone: la, expected: "2026-11-25T18:00:00Z"),
        Case(text: "tomorrow at 10:00", zone: la, expected: "2026-11-25T18:00:00Z"),
        Case(text: "tomorrow at 10 am", zone: la, expected: "2026-11-25T18:00:00Z"),
        Case(text: "10am tomorrow", zone: la, expected: "2026-11-25T18:00:00Z"),
        Case(text: "10 am tomorrow", zone: la, expected: "2026-11-25T18:00:00Z"),
        Case(text: "at 10am tomorrow", zone: la, expected: "2026-11-25T18:00:00Z"),
        Case(text: "9:30 pm tmrw", zone: la, expected: "2026-11-26T05:30:00Z"),
        Case(text: "tomorrow noon", zone: la, expected: "2026-11-25T20:00:00Z"),
        Case(text: "tomorrow at noon", zone: la, expected: "2026-11-25T20:00:00Z"),
        Case(text: "noon tomorrow", zone: la, expected: "2026-11-25T20:00:00Z"),
        Case(text: "Noon Fri", zone: la, expected: "2026-11-27T20:00:00Z"),
        // Midnight is the day's first moment (00:00), as 12am is.
        Case(text: "tomorrow midnight", zone: la, expected: "2026-11-25T08:00:00Z"),
        Case(text: "midnight fri", zone: la, expected: "2026-11-27T08:00:00Z"),
        Case(text: "dec 24 at midnight", zone: la, expected: "2026-12-24T08:00:00Z"),
        Case(text: "in 2 days 10:00", zone: la, expected: "2026-11-26T18:00:00Z"),
        Case(text: "in 2 days at 10am", zone: la, expected: "2026-11-26T18:00:00Z"),
        Case(text: "10am in 2 days", zone: la, expected: "2026-11-26T18:00:00Z"),
        Case(text: "in 1 day noon", zone: la, expected: "2026-11-25T20:00:00Z"),
        Case(text: "in 0 days 18:00", zone: la, expected: "2026-11-25T02:00:00Z"),
        Case(text: "in 3 weeks 10:00", zone: la, expected: "2026-12-15T18:00:00Z"),
        Case(text: "in 1 week at 9:30 am", zone: la, expected: "2026-12-01T17:30:00Z"),
        Case(text: "2026-12-24 9:30 pm", zone: la, expected: "2026-12-25T05:30:00Z"),
        Case(text: "2026-12-24 9:30pm", zone: la, expected: "2026-12-25T05:30:00Z"),
        Case(text: "2026-12-24 at 9:30 p.m.", zone: la, expected: "2026-12-25T05:30:00Z"),
        Case(text: "2026-12-24 noon", zone: la, expected: "2026-12-24T20:00:00Z"),
        Case(text: "9:30 pm 2026-12-24", zone: la, expected: "2026-12-25T05:30:00Z"),
        Case(text: "2026-12-24T9:30", zone: la, expected: "2026-12-24T17:30:00Z"),
        Case(text: "dec 24 9:30 pm", zone: la, expected: "2026-12-25T05:30:00Z"),
        Case(text: "next fri at 9 a.m.", zone: la, expected: "2026-11-27T17:00:00Z"),
        Case(text: "at noon next tue", zone: la, expected: "2026-12-01T20:00:00Z"),
        // A day alone where a time is needed asks for one, in the words typed.
        Case(text: "tmrw", zone: la, expected: "a day alone is not enough: add a time, like 'tmrw 10:00'"),
        Case(text: "next fri", zone: la, expected: "a day alone is not enough: add a time, like 'next fri 10:00'"),
        Case(text: "dec 24", zone: la, expected: "a day alone is not enough: add a time, like 'dec 24 10:00'"),
        Case(text: "in 2 days", zone: la, expected: "a day alone is not enough: add a time"),
        Case(text: "tomorrow at", zone: la, expected: "add a time, like 'tomorrow 10:00' or 'tomorrow at 9:30 pm'"),
        // A time alone asks for a day.
        Case(text: "noon", zone: la, expected: "a time alone is not enough: add a day, like 'today noon'"),
        Case(text: "10:00", zone: la, expected: "a time alone is not enough: add a day, like 'today 10:00'"),
        Case(text: "at 9:30 pm", zone: la, expected: "add a day, like 'today at 9:30 pm'"),
        // Words that are none of these are named, one at a time.
        Case(text: "in 2 hours", zone: la, expected: "'hours' is not a day or a time resv reads"),
        Case(text: "in two days 10:00", zone: la, expected: "'two' is not a day or a time resv reads"),
        Case(text: "in 99999 days 10:00", zone: la, expected: "'99999' is not a day or a time resv reads"),
        Case(text: "tomorow at 10am", zone: la, expected: "'tomorow' is not a day or a time resv reads"),
        Case(text: "2026-12-01 10:00 PST", zone: la, expected: "'pst' is not a day or a time resv reads"),
        Case(text: "tomorrow at at 10am", zone: la, expected: "'at' is not a day or a time resv reads"),
        Case(text: "13pm tomorrow", zone: la, expected: "hour 13 is out of range"),
        Case(text: "noonish tomorrow", zone: la, expected: "'noonish' is not a day or a time resv reads"),
        Case(text: "in 2 days 10", zone: la, expected: "'10' is not a time: write 10:00 or 10am"),
        Case(text: "feb 30 at noon", zone: la, expected: "day 30 does not exist in February 2026"),
    ]

    @Test(arguments: cases)
    func aTypedDateIsOneInstantOrARefusal(typed: Case) throws {
        let zone = try #require(TimeZone(identifier: typed.zone))
        let outcome = Result { () throws(ReservationError) in
            try TypedDate.resolve(typed.text, now: typed.now, zone: zone)
        }
        switch outcome {
        case .success(let date):
            #expect(DateTime.format(date) == typed.expected)
        case .failure(let error):
            #expect(error.code == .invalidDate)
            #expect(error.localizedDescription.contains(typed.expected), "\(error.localizedDescription)")
        }
    }

    @Test(arguments: [
        ("2026-12-05", "2026-12-05"), ("today", "2026-11-24"), ("TOMORROW", "2026-11-25"), ("yesterday", "2026-11-23"),
        ("+7d", "2026-12-01"), ("-7d", "2026-11-17"), ("+2w", "2026-12-08"), ("-1w", "2026-11-17"),
        // The words reserve reads, alone: a whole day for a filter.
        ("tmrw", "2026-11-25"), ("fri", "2026-11-27"), ("Friday", "2026-11-27"), ("tue", "2026-12-01"),
        ("next fri", "2026-11-27"), ("next tuesday", "2026-12-01"), ("dec 24", "2026-12-24"),
        ("24 December", "2026-12-24"), ("nov 20", "2027-11-20"), ("jan 5 2028", "2028-01-05"),
        ("in 2 days", "2026-11-26"), ("in 0 days", "2026-11-24"), ("in 1 week", "2026-12-01"),
        ("in 3 weeks", "2026-12-15"), ("  in  2  DAYS ", "2026-11-26"),
    ])
    func aTypedDayIsADay(text: String, expected: String) throws {
        let zone = try #require(TimeZone(identifier: Self.la))
        #expect(try TypedDate.day(text, now: Self.tuesday, zone: zone)?.description == expected)
    }

    @Test func aDayIsCountedInTheZoneGiven() throws {
        let la = try #require(TimeZone(identifier: Self.la))
        #expect(try TypedDate.day("today", now: Self.lateTuesday, zone: la)?.description == "2026-11-24")
        #expect(try TypedDate.day("today", now: Self.lateTuesday, zone: .gmt)?.description == "2026-11-25")
    }

    @Test(arguments: [
        "banana", "2026-12-05T10:00:00Z", "+3x", "tomorrow 10:00", "", "tomorrow at 10am", "10am fri", "noon",
        "in 2 hours", "next week",
    ])
    func whatIsNoDayIsNil(text: String) throws {
        #expect(try TypedDate.day(text, now: Self.tuesday, zone: .gmt) == nil)
    }

    @Test(arguments: [
        ("2026-02-30", "day 30 does not exist in February 2026"), ("2026-13-01", "there is no month 13"),
        ("feb 30", "day 30 does not exist in February 2026"), ("dec 32", "day 32 does not exist in December 2026"),
    ])
    func aDayThatDoesNotExistIsRefused(text: String, words: String) {
        #expect {
            _ = try TypedDate.day(text, now: Self.tuesday, zone: .gmt)
        } throws: { error in
            (error as? ReservationError)?.localizedDescription.contains(words) == true
        }
    }

    @Test func onlyWallTimesAndRelativeDaysNeedAZone() {
        #expect(!TypedDate.needsZone("2026-12-01T10:00:00Z"))
        #expect(!TypedDate.needsZone("banana"))
        #expect(TypedDate.needsZone("2026-12-01 10:00"))
        #expect(TypedDate.needsZone("tomorrow 09:30"))
        #expect(TypedDate.needsZone("fri 09:00"))
        #expect(TypedDate.needsZone("tomorrow at 10am"))
        #expect(TypedDate.needsZone("10am tomorrow"))
        #expect(!TypedDate.needsZone("fri"))
        #expect(!TypedDate.needsZone("noon"))
    }

    /// A range's ends: a day word alone is all of that day at the landmark, a day and a time that instant.
    @Test(arguments: [
        ("fri", false, "2026-11-27T08:00:00Z"), ("fri", true, "2026-11-28T07:59:59Z"),
        ("next fri", true, "2026-11-28T07:59:59Z"), ("dec 24", false, "2026-12-24T08:00:00Z"),
        ("in 2 days", false, "2026-11-26T08:00:00Z"), ("tmrw", true, "2026-11-26T07:59:59Z"),
        ("tomorrow at 10am", false, "2026-11-25T18:00:00Z"), ("10am tomorrow", true, "2026-11-25T18:00:00Z"),
        ("2026-12-24 9:30 pm", true, "2026-12-25T05:30:00Z"),
    ])
    func aRangeEndIsADayOrAnInstant(text: String, end: Bool, expected: String) throws {
        let zone = try #require(TimeZone(identifier: Self.la))
        #expect(DateTime.format(try TypedDate.bound(text, end: end, now: Self.tuesday, zone: zone)) == expected)
    }

    /// A visit moved to another landmark keeps the visitor's clock (issue 60): the same day and time
    /// of day in the new landmark's zone, each zone's own offset on that day; a time the new zone
    /// skips is refused, as typed.
    @Test(arguments: [
        ("2026-12-01T17:00:00Z", la, "America/New_York", "2026-12-01T14:00:00Z"),  // 09:00 PST → 09:00 EST
        ("2026-12-01T17:00:00Z", la, berlin, "2026-12-01T08:00:00Z"),  // 09:00 PST → 09:00 CET
        ("2026-07-01T16:00:00Z", la, "America/New_York", "2026-07-01T13:00:00Z"),  // PDT → EDT
        ("2027-03-20T16:00:00Z", la, berlin, "2027-03-20T08:00:00Z"),  // PDT already, CET still
        ("2026-12-02T07:30:00Z", la, "Asia/Tokyo", "2026-12-01T14:30:00Z"),  // 23:30 on the 1st stays the 1st
        ("2026-12-01T17:00:00Z", la, "UTC", "2026-12-01T09:00:00Z"),
        ("2026-12-01T17:00:00Z", la, la, "2026-12-01T17:00:00Z"),
        (
            "2027-03-14T01:30:00Z", berlin, "America/New_York",
            "that time does not exist in America/New_York (the clocks jump forward over it)"
        ),
    ])
    func aMoveKeepsTheWallTime(stamp: String, from: String, to: String, expected: String) throws {
        let date = try DateTime.parse(stamp)
        let source = try #require(TimeZone(identifier: from))
        let target = try #require(TimeZone(identifier: to))
        let outcome = Result { () throws(ReservationError) in try TypedDate.sameWallTime(date, from: source, to: target)
        }
        switch outcome {
        case .success(let moved): #expect(DateTime.format(moved) == expected)
        case .failure(let error):
            #expect(error.localizedDescription.contains("invalid date '2027-03-14 02:30': \(expected)"), "\(error)")
        }
    }

    @Test func aBadWordOfARangeIsNamed() throws {
        let zone = try #require(TimeZone(identifier: Self.la))
        #expect {
            _ = try TypedDate.bound("next wek", end: false, now: Self.tuesday, zone: zone)
        } throws: { error in
            (error as? ReservationError)?.localizedDescription.hasPrefix(
                "invalid date 'next wek': 'wek' is not a day or a time resv reads") == true
        }
    }
}
