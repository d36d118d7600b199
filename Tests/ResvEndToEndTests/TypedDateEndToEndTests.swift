import Foundation
import ResvTestKit
import Testing

/// Dates as people type them, through the built `resv`: a time is the landmark's,
/// whatever `TZ` says, and so is a day of `list` (the date its table shows); a day of `log` is the reader's (`TZ`).
@Suite("Dates as typed", .ownThreads, .timeLimit(.minutes(30)))
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

    /// Issue 60: a move to another landmark without --date keeps the visitor's clock, and says so.
    @Test func aMoveKeepsTheTimeOfDayAndSaysSo() throws {
        let sandbox = try Sandbox()
        let made = try sandbox.resv(["reserve", "-l", "half dome", "-d", "2030-12-01 09:00", "-n", "1", "--json"])
        let id = String(try #require(made.stdout.firstMatch(of: /"id" : "([0-9a-f]{8})/)?.1))
        let moved = try sandbox.resv(["modify", id, "-l", "brooklyn"], environment: ["TZ": "Asia/Tokyo"])
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(moved.stdout.contains("2030-12-01 09:00 EST"), "\(moved.stdout)")
        #expect(
            moved.stderr
                == "Kept the time of day at Brooklyn Bridge: 2030-12-01 09:00 EST (was 2030-12-01 09:00 PST at Half Dome).\n"
        )
        let shown = try sandbox.resv(["show", id, "--json"])
        #expect(try date(shown) == "2030-12-01T14:00:00Z")
        // A date given is read at the new landmark, and nothing more is said.
        let both = try sandbox.resv(["modify", id, "-l", "half dome", "-d", "2030-12-02 10:00"])
        #expect(both.status == 0 && both.stderr.isEmpty, "\(both.stderr)")
        #expect(try date(try sandbox.resv(["show", id, "--json"])) == "2030-12-02T18:00:00Z")
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
@Suite("TZ in POSIX forms", .ownThreads, .timeLimit(.minutes(30)))
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
@Suite("Date words as people type them", .ownThreads, .timeLimit(.minutes(30)))
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

/// Issue 60: one grammar of dates through the built `resv`: the words `reserve` reads are the words
/// `list`, `log` and `availability` filter by and `--until` ends a series with; a day word alone is
/// all of that day, and where a time is needed a day alone asks for one.
@Suite("One grammar of dates", .ownThreads, .timeLimit(.minutes(30)))
struct OneDateGrammarEndToEndTests {
    static func records(_ run: Run) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]], "\(run)")
    }

    /// The day an instant falls on in Yosemite (Half Dome's zone).
    static func yosemiteDay(_ stamp: String) throws -> String {
        let date = try #require(try? Date(stamp, strategy: .iso8601))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "America/Los_Angeles"))
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    /// Each word booked with a time (after it, before it, with `at`), then listed alone as a day:
    /// its visit is there, and only visits of that day are.
    @Test func aDayWordOfReserveIsADayOfList() throws {
        let sandbox = try Sandbox()
        let words: [(day: String, typed: String)] = [
            ("tmrw", "tmrw at noon"), ("fri", "9:30 pm fri"), ("next fri", "next fri 10am"),
            ("in 2 days", "10am in 2 days"), ("in 3 weeks", "in 3 weeks at midnight"),
            ("dec 24 2030", "dec 24 2030 9:30 pm"), ("2030-12-24", "2030-12-24 9:30 pm"),
            ("tomorrow", "noon tomorrow"),
        ]
        var booked: [(day: String, id: String, date: String)] = []
        for (day, typed) in words {
            let made = try sandbox.resv(["reserve", "-l", "half dome", "-d", typed, "-n", "1", "--json"])
            #expect(made.status == 0, "\(typed): \(made.stderr)")
            let record = try #require(try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: Any])
            booked.append((day, try #require(record["id"] as? String), try #require(record["date"] as? String)))
        }
        // 9:30 pm on December 24 in Yosemite is 05:30 on the 25th in UTC.
        #expect(booked.last { $0.day == "2030-12-24" }?.date == "2030-12-25T05:30:00Z")
        for (day, id, date) in booked {
            let listed = try sandbox.resv(["list", "--from", day, "--to", day, "--json"])
            #expect(listed.status == 0, "\(day): \(listed.stderr)")
            let rows = try Self.records(listed)
            #expect(rows.contains { $0["id"] as? String == id }, "\(day): \(listed.stdout)")
            let wanted = try Self.yosemiteDay(date)
            for row in rows {
                #expect(try Self.yosemiteDay(row["date"] as? String ?? "") == wanted, "\(day): \(row)")
            }
        }
        // A day and a time bound a range at that instant: noon tomorrow is in, 9:30 pm the day after not.
        let noon = try Self.records(
            try sandbox.resv(["list", "--from", "tomorrow at noon", "--to", "noon tomorrow", "--json"]))
        #expect(
            Set(noon.compactMap { $0["id"] as? String })
                == Set(booked.filter { $0.day == "tmrw" || $0.day == "tomorrow" }.map(\.id)))
        // Availability reads the same days; a series ends on one.
        let week = try sandbox.resv(["availability", "half dome", "--from", "fri", "--to", "next fri", "--json"])
        let days = try Self.records(week)
        let friday = try Self.yosemiteDay(booked[1].date)
        #expect(days.map { $0["date"] as? String } == [friday], "\(week.stdout) \(week.stderr)")
        #expect(days.first?["taken"] as? Int ?? 0 >= 2, "the Friday visits: \(week.stdout)")
        let series = try sandbox.resv([
            "reserve", "-l", "lake tahoe", "-d", "tmrw at 8am", "-n", "1", "--every", "week", "--until", "in 3 weeks",
            "--json",
        ])
        #expect(series.status == 0, "\(series.stderr)")
        #expect(try Self.records(series).count == 3, "tomorrow, a week and two weeks after: \(series.stdout)")
    }

    /// `log` reads the same words for when changes were made, in `TZ`.
    @Test func aDayWordOfLogIsADayOfChanges() throws {
        let sandbox = try Sandbox()
        for _ in 0..<2 {
            #expect(try sandbox.resv("reserve", "-l", "Lake Tahoe", "-d", "tmrw at noon", "-n", "1").status == 0)
        }
        func count(_ arguments: [String]) throws -> Int {
            let run = try sandbox.resv(["log", "--json"] + arguments, environment: ["TZ": "Europe/Berlin"])
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            return try Self.records(run).count
        }
        #expect(try count(["--from", "tmrw"]) == 0)
        #expect(try count(["--from", "yesterday at noon", "--to", "in 1 week"]) == 2)
        #expect(try count(["--to", "in 0 days"]) == 2)
        #expect(try count(["--to", "yesterday"]) == 0)
    }

    /// A word the grammar does not read is named, in one line, exit 64; a day alone where a
    /// time is needed asks for one; nothing is stored.
    @Test(arguments: [
        (["list", "--from", "next wek"], "resv: invalid date 'next wek': 'wek' is not a day or a time resv reads; "),
        (["list", "--to", "in 2 hours"], "resv: invalid date 'in 2 hours': 'hours' is not a day or a time resv reads"),
        (["log", "--from", "tomorow"], "resv: invalid date 'tomorow': 'tomorow' is not a day or a time resv reads"),
        (
            ["reserve", "-l", "half dome", "-d", "fri", "-n", "1"],
            "resv: invalid date 'fri': a day alone is not enough: add a time, like 'fri 10:00' or 'fri at 9:30 pm'"
        ),
        (
            ["reserve", "-l", "half dome", "-d", "noon", "-n", "1"],
            "resv: invalid date 'noon': a time alone is not enough: add a day, like 'today noon' or 'tomorrow noon'"
        ),
        (["reserve", "-l", "half dome", "-d", "tomorrow 10", "-n", "1"], "'10' is not a time: write 10:00 or 10am"),
        (
            ["reserve", "-l", "half dome", "-d", "tmrw 10am", "-n", "1", "--every", "week", "--until", "in 3 wekks"],
            "--until takes a day (YYYY-MM-DD, today, tmrw, +3d, -1w, in 2 weeks, fri, next fri or dec 24), "
                + "not 'in 3 wekks' ('wekks' is no word of a day)"
        ),
        (
            ["availability", "half dome", "--to", "dec 32"],
            "resv: invalid date 'dec 32': day 32 does not exist in December"
        ),
    ])
    func aWordNotReadIsNamed(arguments: [String], message: String) throws {
        let sandbox = try Sandbox()
        let run = try sandbox.resv(arguments)
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.store.path), "nothing stored")
    }
}
