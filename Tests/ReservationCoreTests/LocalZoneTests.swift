import Foundation
import Testing

@testable import ReservationCore

/// `TZ` as the C library reads it: POSIX forms are zones, not UTC; their offsets count west.
@Suite("TZ as the C library reads it", .timeLimit(.minutes(30)))
struct LocalZoneTests {
    let now = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-18
    let utc = TimeZone(identifier: "UTC")!

    func offset(_ tz: String?, at stamp: String, system: TimeZone? = nil) throws -> Int {
        let zone = LocalZone.resolve(tz, now: now, system: system ?? utc)
        return zone.secondsFromGMT(for: try DateTime.parse(stamp)) / 3600
    }

    @Test func fixedOffsetsCountHoursWest() throws {
        #expect(try offset("UTC+5", at: "2026-12-01T00:00:00Z") == -5)
        #expect(try offset("<-05>5", at: "2026-12-01T00:00:00Z") == -5)
        #expect(try offset("<+0330>-3:30", at: "2026-12-01T00:00:00Z") == 3)
        #expect(try offset("JST-9", at: "2026-12-01T00:00:00Z") == 9)
        #expect(try offset("", at: "2026-12-01T00:00:00Z") == 0, "empty: UTC")
        #expect(try offset("Nonsense", at: "2026-12-01T00:00:00Z") == 0, "no offset: UTC, as glibc")
    }

    @Test func aColonAndAPathNameTheDatabasesZone() throws {
        #expect(try offset(":America/New_York", at: "2026-12-01T00:00:00Z") == -5)
        #expect(try offset(":America/New_York", at: "2026-07-01T00:00:00Z") == -4)
        #expect(try offset("/usr/share/zoneinfo/Europe/Paris", at: "2026-07-01T00:00:00Z") == 2)
        #expect(LocalZone.resolve(":America/New_York", now: now).identifier == "America/New_York")
        let tokyo = TimeZone(identifier: "Asia/Tokyo")!
        #expect(LocalZone.resolve(nil, now: now, system: tokyo) == tokyo, "unset: the system's zone")
    }

    @Test func rulesBecomeAZoneWithTheSameClock() throws {
        for tz in ["EST5EDT,M3.2.0/2,M11.1.0/2", "EST5EDT"] {
            #expect(try offset(tz, at: "2026-12-01T00:00:00Z") == -5, "\(tz)")
            #expect(try offset(tz, at: "2026-07-01T00:00:00Z") == -4, "\(tz)")
            // 2026-03-08 02:00 EST is 07:00Z: an hour before and after.
            #expect(try offset(tz, at: "2026-03-08T06:59:00Z") == -5, "\(tz)")
            #expect(try offset(tz, at: "2026-03-08T07:00:00Z") == -4, "\(tz)")
        }
        // The southern hemisphere: daylight saving across the new year.
        #expect(try offset("AEST-10AEDT,M10.1.0,M4.1.0/3", at: "2026-01-15T00:00:00Z") == 11)
        #expect(try offset("AEST-10AEDT,M10.1.0,M4.1.0/3", at: "2026-07-15T00:00:00Z") == 10)
        #expect(try offset("CET-1CEST,M3.5.0,M10.5.0/3", at: "2026-07-15T00:00:00Z") == 2)
    }

    @Test func rulesOfEveryFormAreRead() throws {
        let zone = try #require(PosixZone("XST3XDT,J60/1,300"))
        #expect(zone.standardOffset == -3 * 3600 && zone.daylightOffset == -2 * 3600)
        // J60 is March 1 (February 29 never counted), even in a leap year; 01:00 XST is 04:00Z.
        let march1 = try DateTime.parse("2028-03-01T04:00:00Z").timeIntervalSince1970
        #expect(zone.offset(at: Int(march1) - 1) == -3 * 3600)
        #expect(zone.offset(at: Int(march1)) == -2 * 3600)
        #expect(PosixZone("EST5EDT,M3.2.0") == nil, "a start without an end")
        #expect(PosixZone("EST5EDT,M13.1.0,M11.1.0") == nil)
        #expect(PosixZone("ES5") == nil, "a name of fewer than three letters")
    }

    @Test func utcIsNamedUTC() {
        #expect(TimeZone(identifier: "UTC")!.name == "UTC")
        #expect(TimeZone(identifier: "Europe/London")!.name == "Europe/London")
    }

    @Test func dayZeroOfTheYearZeroIsADay() throws {
        let day = try #require(CalendarDay("0000-01-01"))
        #expect(DateTime.format(TypedDate.start(of: day, in: utc)) == "0000-01-01T00:00:00Z")
        #expect(try TypedDate.day("0000-02-29", now: now, zone: utc) != nil, "0000 is a leap year")
    }
}
