import Foundation
import Testing

@testable import ReservationCore

/// A calendar file's own time zones: Windows' names mapped to IANA zones by CLDR's table,
/// and a `VTIMEZONE` read as the file defines it (yearly rules by the nth weekday, a fixed
/// offset, the skipped and repeated hours), or refused naming what is not read.
@Suite("Calendar time zones", .timeLimit(.minutes(30)))
struct CalendarZoneTests {
    @Test(arguments: [
        ("W. Europe Standard Time", "Europe/Berlin"), ("Eastern Standard Time", "America/New_York"),
        ("Pacific Standard Time", "America/Los_Angeles"), ("GMT Standard Time", "Europe/London"),
        ("Romance Standard Time", "Europe/Paris"), ("Tokyo Standard Time", "Asia/Tokyo"),
        ("India Standard Time", "Asia/Calcutta"), ("AUS Eastern Standard Time", "Australia/Sydney"),
        ("UTC", "Etc/UTC"), ("w. europe standard time", "Europe/Berlin"),
    ])
    func windowsNamesAreCLDRsZones(_ name: String, _ iana: String) throws {
        let zone = try #require(WindowsZones.zone(named: name))
        #expect(zone == TimeZone(identifier: iana)!)
    }

    @Test func everyZoneOfTheTableExistsAndAnUnknownNameIsNone() {
        for (name, iana) in WindowsZones.table { #expect(TimeZone(identifier: iana) != nil, "\(name) → \(iana)") }
        #expect(WindowsZones.table.count >= 100)
        #expect(WindowsZones.zone(named: "Mars Standard Time") == nil)
    }

    static func definition(_ tzid: String, _ observances: [(String, [String])]) -> ICalendarReader.TimeZoneDefinition {
        ICalendarReader.TimeZoneDefinition(
            line: 3, tzid: tzid,
            observances: observances.map { kind, lines in (kind, lines.map { ICalendarReader.parse($0)! }) })
    }

    /// New York as Outlook and Google write it: its instants are the IANA zone's, across both changes.
    static let newYork = definition(
        "Eastern",
        [
            (
                "STANDARD",
                [
                    "DTSTART:16011104T020000", "RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=11", "TZOFFSETFROM:-0400",
                    "TZOFFSETTO:-0500",
                ]
            ),
            (
                "DAYLIGHT",
                [
                    "DTSTART:16010311T020000", "RRULE:FREQ=YEARLY;BYDAY=2SU;BYMONTH=3", "TZOFFSETFROM:-0500",
                    "TZOFFSETTO:-0400",
                ]
            ),
        ])

    func instant(_ zone: DefinedTimeZone, _ wall: String) -> String? {
        let (day, seconds) = DefinedTimeZone.wall(wall)!
        return zone.instant(day: day, seconds: seconds).map(DateTime.format)
    }

    @Test func aYearlyRuleGivesTheSameInstantsAsTheZone() throws {
        let zone = try DefinedTimeZone(Self.newYork)
        #expect(instant(zone, "20310110T100000") == "2031-01-10T15:00:00Z")
        #expect(instant(zone, "20310701T100000") == "2031-07-01T14:00:00Z")
        #expect(instant(zone, "20310309T015959") == "2031-03-09T06:59:59Z", "before the change, EST")
        #expect(instant(zone, "20310309T023000") == nil, "the skipped hour")
        #expect(instant(zone, "20310309T030000") == "2031-03-09T07:00:00Z", "EDT")
        #expect(instant(zone, "20311102T013000") == "2031-11-02T05:30:00Z", "the repeated hour: the earlier")
        #expect(instant(zone, "20311102T020000") == "2031-11-02T07:00:00Z")
    }

    @Test func aRedefinedZoneIsTheFilesNotTheIANAOne() throws {
        // The file calls it America/New_York but says it is UTC+1 all year.
        let zone = try DefinedTimeZone(
            Self.definition(
                "America/New_York",
                [("STANDARD", ["DTSTART:19700101T000000", "TZOFFSETFROM:+0100", "TZOFFSETTO:+0100"])]))
        #expect(instant(zone, "20310701T100000") == "2031-07-01T09:00:00Z")
    }

    @Test func theLastSundayCountsFromTheMonthsEnd() throws {
        #expect(DefinedTimeZone.day(-1, 1, of: 3, in: 2031).map(\.description) == "2031-03-30")
        #expect(DefinedTimeZone.day(-1, 1, of: 10, in: 2031).map(\.description) == "2031-10-26")
        #expect(DefinedTimeZone.day(5, 1, of: 2, in: 2031) == nil, "no fifth Sunday in February 2031")
        let paris = try DefinedTimeZone(
            Self.definition(
                "Paris",
                [
                    (
                        "DAYLIGHT",
                        [
                            "DTSTART:19810329T020000", "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU", "TZOFFSETFROM:+0100",
                            "TZOFFSETTO:+0200",
                        ]
                    ),
                    (
                        "STANDARD",
                        [
                            "DTSTART:19961027T030000", "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU", "TZOFFSETFROM:+0200",
                            "TZOFFSETTO:+0100",
                        ]
                    ),
                ]))
        #expect(instant(paris, "20310329T100000") == "2031-03-29T09:00:00Z")
        #expect(instant(paris, "20310330T100000") == "2031-03-30T08:00:00Z")
    }

    @Test(arguments: [
        ("RDATE:20310330T020000", "lists its changes (RDATE)"),
        ("RRULE:FREQ=MONTHLY;BYDAY=1SU", "changes by the rule 'FREQ=MONTHLY;BYDAY=1SU'"),
        ("RRULE:FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=8,9,10,11,12,13,14;BYDAY=SU", "which resv does not read"),
    ])
    func aRuleNotReadIsNamed(_ line: String, _ message: String) {
        let definition = Self.definition(
            "Odd", [("DAYLIGHT", ["DTSTART:19810329T020000", line, "TZOFFSETFROM:+0100", "TZOFFSETTO:+0200"])])
        #expect(throws: ReservationError.self) { try DefinedTimeZone(definition) }
        do {
            _ = try DefinedTimeZone(definition)
        } catch {
            #expect(error.localizedDescription.contains(message), "\(error.localizedDescription)")
            #expect(error.localizedDescription.contains("VTIMEZONE 'Odd' (line 3)"))
        }
    }

    @Test func theReaderKeepsTimeZonesApartFromEvents() throws {
        let text = [
            "BEGIN:VCALENDAR", "BEGIN:VTIMEZONE", "TZID:Custom", "BEGIN:STANDARD", "DTSTART:19700101T000000",
            "TZOFFSETFROM:+0300", "TZOFFSETTO:+0300", "END:STANDARD", "END:VTIMEZONE", "BEGIN:VEVENT", "UID:x",
            "DTSTART;TZID=Custom:20310701T100000", "END:VEVENT", "END:VCALENDAR",
        ].joined(separator: "\r\n")
        let calendar = try ICalendarReader.calendar(Data(text.utf8))
        #expect(calendar.events.count == 1)
        #expect(calendar.events[0].properties.map(\.name) == ["UID", "DTSTART"])
        #expect(calendar.timeZones.count == 1)
        #expect(calendar.timeZones[0].tzid == "Custom")
        #expect(calendar.timeZones[0].observances.map(\.kind) == ["STANDARD"])
        #expect(calendar.timeZones[0].observances[0].properties.count == 3)
    }
}
