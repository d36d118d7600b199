import Foundation
import Testing

@testable import ReservationCore

/// Date strings shared by the parser tests and the mapping tests. Expected epoch
/// seconds were computed independently with Python's `datetime`.
enum DateFixtures {
    struct Accepted: Sendable, CustomTestStringConvertible {
        let text: String
        let epoch: Double
        var testDescription: String { text }
    }

    struct Rejected: Sendable, CustomTestStringConvertible {
        let text: String
        let reason: DateParseError.Reason
        var testDescription: String { "\"\(text)\"" }
    }

    static let accepted: [Accepted] = [
        Accepted(text: "2026-12-01T10:00:00Z", epoch: 1_796_119_200),
        Accepted(text: "2026-12-01t10:00:00z", epoch: 1_796_119_200),
        Accepted(text: "2026-12-01T10:00:00+00:00", epoch: 1_796_119_200),
        Accepted(text: "2026-12-01T10:00:00+02:00", epoch: 1_796_112_000),
        Accepted(text: "2026-12-01T10:00:00-05:30", epoch: 1_796_139_000),
        // Fractions are dropped: a reservation is to the second, and nothing rounds up.
        Accepted(text: "2026-12-01T10:00:00.5Z", epoch: 1_796_119_200),
        Accepted(text: "2026-12-01T10:00:00.123Z", epoch: 1_796_119_200),
        Accepted(text: "2026-12-01T10:00:00.123456Z", epoch: 1_796_119_200),
        Accepted(text: "2026-12-01T10:00:00.500+02:00", epoch: 1_796_112_000),
        Accepted(text: "2026-12-01T10:00:00.9999999Z", epoch: 1_796_119_200),
        Accepted(text: "9999-12-31T23:59:59.9999999Z", epoch: 253_402_300_799),
        Accepted(text: "9999-12-31T23:59:59Z", epoch: 253_402_300_799),
        Accepted(text: "9999-12-31T23:59:59+14:00", epoch: 253_402_250_399),
        Accepted(text: "0000-01-01T00:00:00Z", epoch: -62_167_219_200),
        Accepted(text: "0000-01-01T10:00:00+10:00", epoch: -62_167_219_200),
        Accepted(text: "2026-12-01T00:00:00Z", epoch: 1_796_083_200),
        Accepted(text: "2028-02-29T12:00:00Z", epoch: 1_835_438_400),
        Accepted(text: "2000-02-29T00:00:00Z", epoch: 951_782_400),
        Accepted(text: "2100-03-01T00:00:00Z", epoch: 4_107_542_400),
        Accepted(text: "2026-12-31T23:59:59Z", epoch: 1_798_761_599),
        Accepted(text: "2027-01-01T00:00:00Z", epoch: 1_798_761_600),
        Accepted(text: "2026-01-01T01:30:00+02:00", epoch: 1_767_223_800),
        Accepted(text: "2026-12-31T20:00:00-05:00", epoch: 1_798_765_200),
        Accepted(text: "1970-01-01T00:00:00Z", epoch: 0),
        Accepted(text: "1969-12-31T23:59:59Z", epoch: -1),
    ]

    static let rejected: [Rejected] = [
        Rejected(text: "", reason: .empty),
        Rejected(text: "   ", reason: .empty),
        Rejected(text: "tomorrow", reason: .notADateTime),
        Rejected(text: "2026-12-01", reason: .missingTime),
        Rejected(text: "2026-12-01T10:00:00", reason: .missingZone),
        Rejected(text: "2026-12-01T10:00Z", reason: .missingSeconds),
        Rejected(text: "2026-12-01T10:00", reason: .missingSeconds),
        Rejected(text: "2026-02-30T10:00:00Z", reason: .dayOutOfRange(30, month: 2, year: 2026)),
        Rejected(text: "2027-02-29T10:00:00Z", reason: .dayOutOfRange(29, month: 2, year: 2027)),
        Rejected(text: "2100-02-29T10:00:00Z", reason: .dayOutOfRange(29, month: 2, year: 2100)),
        Rejected(text: "2026-04-31T10:00:00Z", reason: .dayOutOfRange(31, month: 4, year: 2026)),
        Rejected(text: "2026-12-00T10:00:00Z", reason: .dayOutOfRange(0, month: 12, year: 2026)),
        Rejected(text: "2026-13-01T10:00:00Z", reason: .monthOutOfRange(13)),
        Rejected(text: "2026-00-10T10:00:00Z", reason: .monthOutOfRange(0)),
        Rejected(text: "2026-12-01T25:00:00Z", reason: .hourOutOfRange(25)),
        Rejected(text: "2026-12-01T24:00:00Z", reason: .hourOutOfRange(24)),
        Rejected(text: "2026-12-01T10:60:00Z", reason: .minuteOutOfRange(60)),
        Rejected(text: "2026-12-01T10:00:60Z", reason: .secondOutOfRange(60)),
        Rejected(text: "2026-12-01T10:00:00+25:00", reason: .invalidZone),
        Rejected(text: "2026-12-01T10:00:00+02:60", reason: .invalidZone),
        Rejected(text: "2026-12-01T10:00:00+0200", reason: .invalidZone),
        Rejected(text: "2026-12-01T10:00:00+02", reason: .invalidZone),
        Rejected(text: "2026-12-01 10:00:00Z", reason: .notADateTime),
        Rejected(text: "2026-12-01T10:00:00Zjunk", reason: .notADateTime),
        Rejected(text: "2026-12-01T10:00:00+02:00 ", reason: .notADateTime),
        Rejected(text: " 2026-12-01T10:00:00Z", reason: .notADateTime),
        Rejected(text: "2026-12-01T10:00:00.Z", reason: .notADateTime),
        Rejected(text: "2026-12-01T10:00:00+02:00[Europe/Paris]", reason: .notADateTime),
        Rejected(text: "26-12-01T10:00:00Z", reason: .notADateTime),
        Rejected(text: "2026-1-01T10:00:00Z", reason: .notADateTime),
        Rejected(text: "2026-12-01T1O:00:00Z", reason: .notADateTime),
        Rejected(text: "1796119200", reason: .notADateTime),
        // Past 9999 or before 0000 in UTC: such a date could not be written back in four digits.
        Rejected(text: "9999-12-31T23:59:59-14:00", reason: .outsideFourDigitYears),
        Rejected(text: "9999-12-31T23:00:00-01:00", reason: .outsideFourDigitYears),
        Rejected(text: "0000-01-01T00:00:00+00:01", reason: .outsideFourDigitYears),
    ]
}

@Suite("Date parsing and formatting", .timeLimit(.minutes(30)))
struct DateTimeTests {
    @Test(arguments: DateFixtures.accepted)
    func acceptedDateParsesToItsInstant(_ example: DateFixtures.Accepted) throws {
        let date = try DateTime.parse(example.text)
        #expect(date.timeIntervalSince1970 == example.epoch)
        // And what is written reads back as the same instant, in the one JSON form.
        let written = DateTime.format(date)
        #expect(try DateTime.parse(written) == date)
        #expect(written.utf8.count == 20 && written.hasSuffix("Z") && !written.contains("."), "\(written)")
    }

    @Test(arguments: DateFixtures.rejected)
    func rejectedDateNamesItsReason(_ example: DateFixtures.Rejected) throws {
        let error = try #require(throws: DateParseError.self) { try DateTime.parse(example.text) }
        #expect(error.reason == example.reason)
        #expect(error.input == example.text)
        #expect(error.errorDescription?.isEmpty == false)
    }

    @Test func impossibleDateExplainsWhichDayDoesNotExist() throws {
        let error = try #require(throws: DateParseError.self) { try DateTime.parse("2026-02-30T10:00:00Z") }
        #expect(error.explanation == "day 30 does not exist in February 2026")
        #expect(error.errorDescription == "invalid date '2026-02-30T10:00:00Z': day 30 does not exist in February 2026")
    }

    @Test func sameInstantInDifferentZonesIsEqual() throws {
        let utc = try DateTime.parse("2026-12-01T08:00:00Z")
        #expect(try DateTime.parse("2026-12-01T10:00:00+02:00") == utc)
        #expect(try DateTime.parse("2026-12-01T02:30:00-05:30") == utc)
    }

    // MARK: format

    @Test(arguments: [
        (1_796_119_200.0, "2026-12-01T10:00:00Z"),
        (1_796_119_200.5, "2026-12-01T10:00:00Z"),
        (1_796_119_200.999, "2026-12-01T10:00:00Z"),
        (1_796_083_200.0, "2026-12-01T00:00:00Z"),
        (1_835_438_400.0, "2028-02-29T12:00:00Z"),
        (1_798_761_599.0, "2026-12-31T23:59:59Z"),
        (1_798_761_600.0, "2027-01-01T00:00:00Z"),
        (0.0, "1970-01-01T00:00:00Z"),
        (-1.0, "1969-12-31T23:59:59Z"),
        (-0.5, "1969-12-31T23:59:59Z"),
        (-2_208_988_800.0, "1900-01-01T00:00:00Z"),
        (-62_135_596_800.0, "0001-01-01T00:00:00Z"),
        (253_402_300_799.0, "9999-12-31T23:59:59Z"),
        (253_402_300_799.9, "9999-12-31T23:59:59Z"),
        // Only arithmetic can make these; they are written at the ends of the range, never trap.
        (253_402_300_800.0, "9999-12-31T23:59:59Z"),
        (1e300, "9999-12-31T23:59:59Z"),
        (-.infinity, "0000-01-01T00:00:00Z"),
        (.nan, "1970-01-01T00:00:00Z"),
    ])
    func formatGivesTheWholeSecondInUTC(_ epoch: Double, _ expected: String) {
        #expect(DateTime.format(Date(timeIntervalSince1970: epoch)) == expected)
    }

    @Test func formatOfAnOffsetDateIsInUTC() throws {
        #expect(DateTime.format(try DateTime.parse("2026-12-01T10:00:00-05:30")) == "2026-12-01T15:30:00Z")
        #expect(DateTime.format(try DateTime.parse("2027-01-01T01:00:00+02:00")) == "2026-12-31T23:00:00Z")
    }

    @Test func parseOfFormatIsTheSameDateOverCenturies() throws {
        // Whole seconds from year 1 to year 9999, in steps that visit every month, hour and second.
        var epoch: Int64 = -62_135_596_800
        var count = 0
        while epoch <= 253_402_300_799 {
            let date = Date(timeIntervalSince1970: Double(epoch))
            let text = DateTime.format(date)
            #expect(try DateTime.parse(text) == date, "\(text)")
            epoch += 7_919_993
            count += 1
        }
        #expect(count > 39_000)
    }

    @Test func formatOfParseIsTheSameTextForEveryDayOfALeapYear() throws {
        var date = try DateTime.parse("2028-01-01T00:00:00Z")
        var days = 0
        while DateTime.format(date).hasPrefix("2028") {
            let text = DateTime.format(date)
            #expect(try DateTime.format(DateTime.parse(text)) == text)
            date += 86_400
            days += 1
        }
        #expect(days == 366)
    }
}
