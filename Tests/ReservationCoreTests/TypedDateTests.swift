import Foundation
import Testing

@testable import ReservationCore

/// Dates as a person types them, case by case like the mapping: the input, the
/// clock, the landmark's zone, and the instant (or the refusal's words). The
/// clock is handed in; expected instants were worked out by hand and checked
/// with Python's `zoneinfo`.
@Suite(.timeLimit(.minutes(15)))
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
        Case(text: "next week", zone: la, expected: "expected a date and time like 2026-12-01 10:00"),
        Case(text: "+3x 10:00", zone: la, expected: "expected a date and time like 2026-12-01 10:00"),
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
        Case(text: "tomorrow 10", zone: la, expected: "expected a date and time like 2026-12-01 10:00"),
        Case(text: "fr 10:00", zone: la, expected: "expected a date and time like 2026-12-01 10:00"),
        Case(text: "tomorrow 9:30", zone: la, expected: "2026-11-25T17:30:00Z"),
        Case(text: "tomorrow 9:3", zone: la, expected: "expected a date and time like 2026-12-01 10:00"),
        Case(text: "tomorrow 123:30", zone: la, expected: "expected a date and time like 2026-12-01 10:00"),
        Case(text: "2026-12-01T10:00Z", zone: la, expected: "expected a date and time like 2026-12-01 10:00"),
        Case(text: "", zone: la, expected: "a date is required"),
        Case(text: "2026-12-01T25:00:00Z", zone: la, expected: "hour 25 is out of range (00-23)"),
        Case(text: "2026-12-01T10:00:00+25:00", zone: la, expected: "the time zone must be Z or an offset"),
        Case(text: "2026-12-01 9:00", zone: la, expected: "2026-12-01T17:00:00Z"),
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

    @Test(arguments: ["banana", "2026-12-05T10:00:00Z", "+3x", "tomorrow 10:00", ""])
    func whatIsNoDayIsNil(text: String) throws {
        #expect(try TypedDate.day(text, now: Self.tuesday, zone: .gmt) == nil)
    }

    @Test(arguments: [("2026-02-30", "day 30 does not exist in February 2026"), ("2026-13-01", "there is no month 13")])
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
    }
}
