import CapacityModel
import Foundation
import Testing

/// Dates as people type them, through the built `resv`: a time is the landmark's,
/// whatever `TZ` says, and so is a day of `list` (the date its table shows); a day of `log` is the reader's (`TZ`).
@Suite("Dates as typed", .ownThreads, .timeLimit(.minutes(15)))
struct TypedDateEndToEndTests {
    func date(_ run: Run) throws -> String {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        return try #require(object["date"] as? String)
    }

    @Test func aTimeIsTheLandmarksWhereverTheReaderIs() throws {
        let sandbox = try Sandbox()
        for zone in ["Europe/Berlin", "Asia/Tokyo", "UTC"] {
            let run = try sandbox.resv(
                ["reserve", "-l", "half dome", "-d", "2030-12-01 08:00", "-n", "1", "--json"],
                environment: ["TZ": zone])
            #expect(run.status == 0, "\(zone): \(run.stderr)")
            #expect(try date(run) == "2030-12-01T16:00:00Z", "08:00 in Yosemite (PST), read in \(zone)")
        }
        // A move to New York reads the new time there; a move of time alone, at the landmark it is at.
        let made = try sandbox.resv(["reserve", "-l", "half dome", "-d", "2030-07-01T08:00", "-n", "1", "--json"])
        #expect(try date(made) == "2030-07-01T15:00:00Z", "summer: PDT")
        let id = String(try #require(made.stdout.firstMatch(of: /"id" : "([0-9a-f]{8})/)?.1))
        let moved = try sandbox.resv(["modify", id, "-d", "2030-12-02 8:00", "-l", "Brooklyn Bridge", "--json"])
        #expect(try date(moved) == "2030-12-02T13:00:00Z", "\(moved.stderr)")
        let later = try sandbox.resv(
            ["modify", id, "-d", "2030-12-03 08:00", "--json"], environment: ["TZ": "Asia/Tokyo"])
        #expect(try date(later) == "2030-12-03T13:00:00Z", "still at the Brooklyn Bridge: \(later.stderr)")
        let skipped = try sandbox.resv(["reserve", "-l", "half dome", "-d", "2031-03-09 02:30", "-n", "1"])
        #expect(skipped.status == 64)
        #expect(skipped.stderr.contains("that time does not exist in America/Los_Angeles"), "\(skipped.stderr)")
    }

    /// Days of `list` are the days the table shows: the visit's date at its landmark, whatever `TZ` says.
    @Test func daysOfAListAreTheLandmarksDays() throws {
        let sandbox = try Sandbox()
        // Lake Tahoe is in PST: 2030-12-02T07:30Z is 2030-12-01 23:30 there; 2030-12-02T10:00Z is 02:00 on the 2nd.
        for stamp in ["2030-12-01T18:00:00Z", "2030-12-02T07:30:00Z", "2030-12-02T10:00:00Z"] {
            #expect(try sandbox.resv("reserve", "-l", "Lake Tahoe", "-d", stamp, "-n", "1").status == 0)
        }
        func count(_ arguments: [String], zone: String) throws -> Int {
            let run = try sandbox.resv(["list", "--json"] + arguments, environment: ["TZ": zone])
            #expect(run.status == 0, "\(run.stderr)")
            return (try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [Any])?.count ?? -1
        }
        for zone in ["UTC", "Europe/Berlin", "Asia/Tokyo"] {
            #expect(try count(["--from", "2030-12-01", "--to", "2030-12-01"], zone: zone) == 2, "\(zone)")
            #expect(try count(["--from", "2030-12-02", "--to", "2030-12-02"], zone: zone) == 1, "\(zone)")
            #expect(try count(["--from", "2030-12-02"], zone: zone) == 1, "\(zone)")
        }
        // A time is the landmark's too; --tz shows (and so counts) the days of another zone.
        #expect(try count(["--to", "2030-12-01 20:00"], zone: "UTC") == 1)
        #expect(try count(["--from", "2030-12-02", "--to", "2030-12-02", "--tz", "utc"], zone: "UTC") == 2)
        #expect(try count(["--from", "today"], zone: "UTC") == 3, "all are ahead")
        #expect(try count(["--to", "-1d"], zone: "UTC") == 0)
        // The table and the range agree: each row listed for a day shows that day.
        let table = try sandbox.resv(
            ["list", "--from", "2030-12-01", "--to", "2030-12-01"], environment: ["TZ": "UTC"])
        let rows = table.stdout.split(separator: "\n").dropFirst()
        #expect(rows.count == 2 && rows.allSatisfy { $0.contains("2030-12-01") }, "\(table.stdout)")
    }

    /// The case typed dates (7ad6f55) were made for: booked for tomorrow evening at Half Dome, listed
    /// as tomorrow's under UTC, where it is already the day after.
    @Test func tomorrowEveningAtTheLandmarkIsListedAsTomorrow() throws {
        let sandbox = try Sandbox()
        let made = try sandbox.resv(["reserve", "-l", "half dome", "-d", "tomorrow 20:00", "-n", "2"])
        #expect(made.status == 0, "\(made.stderr)")
        let listed = try sandbox.resv(["list", "--from", "tomorrow", "--to", "tomorrow", "--json"])
        let array = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [Any]
        #expect(array?.count == 1, "\(listed.stdout) \(listed.stderr)")
    }

    @Test func aLogRangeIsOfWhenChangesWereMade() throws {
        let sandbox = try Sandbox()
        for _ in 0..<3 {
            #expect(try sandbox.resv("reserve", "-l", "Lake Tahoe", "-d", "+3d 10:00", "-n", "1").status == 0)
        }
        func count(_ arguments: [String]) throws -> Int {
            let run = try sandbox.resv(["log", "--json"] + arguments)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            return (try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [Any])?.count ?? -1
        }
        #expect(try count(["--from", "today"]) == 3)
        #expect(try count(["--from", "today", "--limit", "2"]) == 2)
        #expect(try count(["--to", "-1d"]) == 0)
        #expect(try count(["--from", "+1d"]) == 0)
        #expect(try count(["--from", "-7d", "--to", "today"]) == 3)
        let empty = try sandbox.resv("log", "--from", "today", "--to", "-1d")
        #expect(empty.status == 64, "\(empty.stderr)")
    }

    /// `reserve --note` and a batch line's "note" keep it; too long a note is refused before anything is booked.
    @Test func aNoteIsKeptFromTheStart() throws {
        let sandbox = try Sandbox()
        let made = try sandbox.resv([
            "reserve", "-l", "Lake Tahoe", "-d", "+3d 10:00", "-n", "1", "--note", "ramp", "--json",
        ])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stdout.contains(#""note" : "ramp""#))
        let line =
            #"{"landmarkId": "Lake Tahoe", "date": "2031-01-01T10:00:00Z", "partySize": 1, "note": "from a batch"}"#
        let batch = try sandbox.resv(["reserve", "--batch", "-", "--json"], stdin: line)
        #expect(batch.stdout.contains(#""note" : "from a batch""#), "\(batch.stderr)")
        let long = try sandbox.resv(
            ["reserve", "-l", "Lake Tahoe", "-d", "+3d 10:00", "-n", "1", "--note", String(repeating: "n", count: 501)])
        #expect(long.status == 64)
        #expect(long.stderr == "resv: the note has 501 characters: at most 500 are kept\n")
        let both = try sandbox.resv(["reserve", "--batch", "-", "--note", "x"], stdin: line)
        #expect(both.status == 64 && both.stderr.contains("leave out --note"), "\(both.stderr)")
        #expect(
            (try JSONSerialization.jsonObject(with: Data(try sandbox.resv("list", "--json").stdout.utf8)) as? [Any])?
                .count == 2)
    }
}

/// `TZ` as the C library reads it, through the built `resv`: the times of changes are shown in it.
@Suite("TZ in POSIX forms", .ownThreads, .timeLimit(.minutes(15)))
struct PosixTZEndToEndTests {
    @Test func changesAreShownInTheZoneTZNames() throws {
        let sandbox = try Sandbox()
        #expect(try sandbox.resv("reserve", "-l", "Lake Tahoe", "-d", "2030-12-01T18:00:00Z", "-n", "1").status == 0)
        let eastern = #/^\d{4}-\d\d-\d\d \d\d:\d\d E[SD]T /#
        let fiveBehind = #/^\d{4}-\d\d-\d\d \d\d:\d\d GMT-5 /#
        let cases = [
            (":America/New_York", eastern), ("EST5EDT,M3.2.0/2,M11.1.0/2", eastern), ("<-05>5", fiveBehind),
            ("UTC+5", fiveBehind),
        ]
        for (tz, shape) in cases {
            let run = try sandbox.resv(["log"], environment: ["TZ": tz])
            #expect(run.status == 0, "\(tz): \(run.stderr)")
            let row = run.stdout.split(separator: "\n").dropFirst().first.map(String.init) ?? ""
            #expect(row.contains(shape), "\(tz): \(run.stdout)")
        }
    }

    @Test func theYearZeroIsADayLikeAnother() throws {
        let sandbox = try Sandbox()
        #expect(try sandbox.resv("reserve", "-l", "Lake Tahoe", "-d", "2030-12-01T18:00:00Z", "-n", "1").status == 0)
        for command in [["list"], ["log"]] {
            let run = try sandbox.resv(command + ["--from", "0000-01-01", "--json"])
            #expect(run.status == 0, "\(command): \(run.stderr)")
            #expect((try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [Any])?.count == 1)
        }
        let none = try sandbox.resv("list", "--to", "0000-12-31", "--json")
        #expect(none.status == 0 && none.stdout == "[]\n", "\(none.stderr)")
    }

    @Test func aCatalogZoneOfUTCIsCalledUTC() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(
            #"{"version": 1, "reservations": [], "landmarks": [{"id": "11111111-1111-1111-1111-111111111111", "#
                + #""name": "Zed Rock", "location": "Nowhere", "description": "", "category": "mountains", "#
                + #""capacity": 10, "timeZone": "UTC"}]}"#)
        let run = try sandbox.resv("availability", "zed", "--from", "2030-01-01", "--to", "2030-01-01")
        #expect(run.stderr.contains("days in UTC"), "\(run.stderr)")
        let listed = try sandbox.resv("landmarks", "--json")
        #expect(listed.stdout.contains(#""timeZone" : "UTC""#), "\(listed.stdout)")
    }
}

/// Date words people type, and a time that has passed said where the visit is.
@Suite("Date words as people type them", .ownThreads, .timeLimit(.minutes(15)))
struct DateWordsEndToEndTests {
    @Test(arguments: ["next friday 10:00", "Dec 24 10:00", "tomorrow 10am", "24 december 9:30 pm"])
    func aDateAsPeopleTypeItBooks(_ typed: String) throws {
        let sandbox = try Sandbox()
        let run = try sandbox.resv("reserve", "-l", "half dome", "-d", typed, "-n", "1")
        #expect(run.status == 0, "\(typed): \(run.stderr)")
        #expect(run.stdout.contains(/Date +\d{4}-\d\d-\d\d (10:00|21:30) P[SD]T/), "\(typed): \(run.stdout)")
    }

    @Test func aPastTimeIsSaidAtTheLandmark() throws {
        let sandbox = try Sandbox()
        let yesterday = try sandbox.resv("reserve", "-l", "half dome", "-d", "yesterday 10:00", "-n", "1")
        #expect(yesterday.status == 64)
        #expect(
            yesterday.stderr.contains(/^resv: \d{4}-\d\d-\d\d 10:00 P[SD]T is in the past: a new reservation needs/),
            "\(yesterday.stderr)")
        let stamped = try sandbox.resv("reserve", "-l", "half dome", "-d", "2020-01-01T10:00:00Z", "-n", "1")
        #expect(stamped.stderr.hasPrefix("resv: 2020-01-01 02:00 PST is in the past"), "\(stamped.stderr)")

        let made = try sandbox.resv("reserve", "-l", "half dome", "-d", "+3d 10:00", "-n", "1", "--json")
        let id = String(try #require(made.stdout.firstMatch(of: /"id" : "([0-9a-f]{8})/)?.1))
        let moved = try sandbox.resv("modify", id, "-d", "2020-01-01T10:00:00Z", "-l", "brooklyn bridge")
        #expect(moved.status == 64)
        #expect(
            moved.stderr
                == "resv: 2020-01-01 05:00 EST is in the past: the new date of reservation \(id) must be in the future\n",
            "\(moved.stderr)")
        let json = try sandbox.resv("modify", id, "-d", "yesterday 10:00", "--json")
        #expect(json.stderr.contains(#""code":"dateInPast""#), "\(json.stderr)")
    }
}
