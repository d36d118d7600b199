import Foundation
import ResvTestKit
import Testing

/// Values another program, a full disk or a careless script can hand resv:
/// each gets a one-line message and its documented exit code, and stored
/// data is never changed behind the user's back.
@Suite(
    "Hostile input: numbers, dates, output and stores that resv did not write", .ownThreads, .timeLimit(.minutes(30)))
struct HostileInputTests {
    static let tahoe = "Lake Tahoe"

    // MARK: Output that cannot be written

    @Test func aFullDiskBehindStdoutIsExit74AndTheBookingIsStillMade() throws {
        let sandbox = try Sandbox()
        let reserve = try sandbox.shell("resv reserve -l 'Lake Tahoe' -d 2030-01-01T10:00:00Z -n 2 --json > /dev/full")
        #expect(reserve.status == 74)
        // JSON was asked for: the failure is JSON too.
        let full =
            #"{"error":{"code":"cannotWriteOutput","exitCode":74,"message":"cannot write the output: No space left on device"}}"#
        #expect(reserve.stderrLines == [Substring(full)])
        let list = try sandbox.shell("resv list --json > /dev/full")
        #expect(list.status == 74)
        #expect(list.stderrLines == [Substring(full)])
        let text = try sandbox.shell("resv list > /dev/full")
        #expect(text.stderrLines == ["resv: cannot write the output: No space left on device"])
        #expect((try sandbox.storeJSON()["reservations"] as? [Any])?.count == 1, "the booking was made")
    }

    @Test func aReaderThatStopsEarlyIsNoError() throws {
        let sandbox = try Sandbox()
        for hour in 10..<16 {
            try sandbox.resv("reserve", "-l", Self.tahoe, "-d", "2030-01-01T\(hour):00:00Z", "-n", "2")
        }
        let run = try sandbox.shell("resv list --json | head -c 1 >/dev/null; exit ${PIPESTATUS[0]}")
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty)
    }

    // MARK: Numbers

    @Test func partiesBeyondTheBoundInAStoreAreSkippedNeverATrap() throws {
        let sandbox = try Sandbox()
        let huge = (1...2).map { n in
            #"{"id": "9a9a000\#(n)-0000-4000-8000-000000000000", "landmarkId": "\#(Fixture.halfDome)", "date": "2030-06-01T16:00:00Z", "partySize": 9223372036854775807, "status": "confirmed"}"#
        }
        try sandbox.seed(#"{"version": 1, "reservations": [\#(huge.joined(separator: ", "))]}"#)
        let availability = try sandbox.resv(
            "availability", "Half Dome", "--from", "2030-06-01", "--to", "2030-06-01", "--json")
        #expect(availability.status == 0, "\(availability.stderr)")
        #expect(availability.stdout.contains(#""taken" : 0"#), "\(availability.stdout)")
        let list = try sandbox.resv("list")
        #expect(list.status == 0)
        #expect(list.stderr.contains("skipped 2 reservation records that do not map (2 invalid party size)"))
        let reserve = try sandbox.resv(
            "reserve", "-l", "Half Dome", "-d", "2030-06-01T17:00:00Z", "-n", "300", "--json")
        #expect(reserve.status == 0, "\(reserve.stderr)")
        let refused = try sandbox.resv("reserve", "-l", Self.tahoe, "-d", "2030-06-01T17:00:00Z", "-n", "10001")
        #expect(refused.status == 64)
        #expect(refused.stderrLines == ["resv: party size 10001 is invalid: it must be from 1 to 10,000"])
    }

    @Test func numbersResvDoesNotKnowSurviveARewriteExactly() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(
            """
            {"version": 1, "serial": 3.14159265358979323846, "limits": [1.50, 1e2, -0.0],
             "reservations": [{"id": "\(Fixture.first)", "landmarkId": "\(Fixture.halfDome)", "date": "2030-06-01T16:00:00Z",
               "partySize": 4, "status": "confirmed", "ticket": 12345678901234567890123}]}
            """)
        let run = try sandbox.resv("cancel", String(Fixture.first.prefix(8)))
        #expect(run.status == 0, "\(run.stderr)")
        let text = String(decoding: try sandbox.storeBytes(), as: UTF8.self)
        #expect(text.contains(#""ticket" : 12345678901234567890123"#), "\(text)")
        #expect(text.contains(#""serial" : 3.14159265358979323846"#), "\(text)")
        #expect(text.contains("1.50"), "\(text)")
        #expect(text.contains(#""status" : "cancelled""#), "\(text)")
    }

    @Test func aStoreWithARepeatedKeyIsRefusedAndLeftAlone() throws {
        let sandbox = try Sandbox()
        let text = """
            {"version": 1, "reservations": [],
             "reservations": [{"id": "\(Fixture.first)", "landmarkId": "\(Fixture.halfDome)", "date": "2030-06-01T16:00:00Z", "partySize": 4, "status": "confirmed"}]}
            """
        try sandbox.seed(text)
        for arguments in [["list"], ["reserve", "-l", Self.tahoe, "-d", "2030-01-01T10:00:00Z", "-n", "2"]] {
            let run = try sandbox.resv(arguments)
            #expect(run.status == 65)
            #expect(run.stderrLines.count == 1)
            #expect(run.stderr.contains(#"the key "reservations" appears twice in this object"#), "\(run.stderr)")
        }
        #expect(try sandbox.storeBytes() == Data(text.utf8))
    }

    // MARK: Terminals

    @Test func controlCharactersFromAStoreNeverReachTheTerminalRaw() throws {
        let sandbox = try Sandbox()
        let landmark = "aaaa0000-0000-4000-8000-000000000001"
        let name = #"Tower\u001b]0;owned\u0007\r\nX"#
        try sandbox.seed(
            """
            {"version": 1, "landmarks": [{"id": "\(landmark)", "name": "\(name)", "location": "A\\u009b2J",
              "category": "mountains", "description": "", "isFeatured": false}],
             "reservations": [{"id": "\(Fixture.first)", "landmarkId": "\(landmark)", "date": "2030-06-01T16:00:00Z",
               "partySize": 4, "status": "confirmed"}]}
            """)
        let commands = [
            ["list"], ["landmarks"], ["show", "abcd"], ["availability", "aaaa0000"],
            ["reserve", "-l", "aaaa0000", "-d", "2030-06-01T16:00:00Z", "-n", "1"], ["cancel", "abcd"],
        ]
        for arguments in commands {
            let run = try sandbox.resv(arguments)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            let raw = (run.stdout + run.stderr).unicodeScalars.filter {
                $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B || $0 == "\r"
            }
            #expect(raw.isEmpty, "\(arguments): \((run.stdout + run.stderr).debugDescription)")
            #expect((run.stdout + run.stderr).contains(#"Tower\e]0;owned\u{7}\r\nX"#), "\(arguments): \(run.stdout)")
        }
        // JSON keeps the data as it is, escaped the JSON way.
        let json = try sandbox.resv("list", "--all", "--json")
        #expect(json.stdout.contains(name), "\(json.stdout)")
    }

    // MARK: Dates

    @Test func aDateThatCouldNotBeReadBackIsRefused() throws {
        let sandbox = try Sandbox()
        let run = try sandbox.resv("reserve", "-l", Self.tahoe, "-d", "9999-12-31T23:59:59-14:00", "-n", "2")
        #expect(run.status == 64)
        #expect(
            run.stderrLines == [
                "resv: invalid date '9999-12-31T23:59:59-14:00': in UTC it falls outside the years 0000 to 9999"
            ])
        #expect(!FileManager.default.fileExists(atPath: sandbox.store.path))
    }

    @Test func fractionsOfASecondAreDroppedNeverRoundedUpAndJqReadsEveryDate() throws {
        let sandbox = try Sandbox()
        for date in ["2030-01-01T10:00:00.9999999Z", "2030-01-01T10:00:00.5+02:00", "9999-12-31T23:59:59.999Z"] {
            let run = try sandbox.resv("reserve", "-l", Self.tahoe, "-d", date, "-n", "2")
            #expect(run.status == 0, "\(date): \(run.stderr)")
        }
        let dates = try sandbox.shell("resv list --json | jq -r '.[].date'")
        #expect(dates.stdout == "2030-01-01T08:00:00Z\n2030-01-01T10:00:00Z\n9999-12-31T23:59:59Z\n")
        let parsed = try sandbox.shell("resv list --json | jq '[.[].date | fromdateiso8601] | length'")
        #expect(parsed.status == 0, "\(parsed.stderr)")
        #expect(parsed.stdout == "3\n")
    }
}

/// Small answers that were wrong or unclear, each as a user met it.
@Suite("Clear answers to small mistakes", .ownThreads, .timeLimit(.minutes(30)))
struct SmallMistakeTests {
    @Test func anUnknownOptionIsNamedEvenWhenRequiredOnesAreMissing() throws {
        let run = try Sandbox().resv("reserve", "--bogus")
        #expect(run.status == 64)
        #expect(run.stderrLines == ["resv: unknown option '--bogus' (see 'resv reserve --help')"])
    }

    @Test func helpForACommandThatDoesNotExistIsAUsageError() throws {
        let run = try Sandbox().resv("help", "nonexistent")
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        #expect(run.stderrLines == ["resv: unknown command 'nonexistent' (see 'resv --help')"])
    }

    @Test func aPartyLargerThanTheDaySaysSoAndOneVisitIsSingular() throws {
        let sandbox = try Sandbox()
        let large = try sandbox.resv("reserve", "-l", "Half Dome", "-d", "2030-01-01T10:00:00Z", "-n", "301")
        #expect(large.status == 1)
        #expect(large.stderrLines == ["resv: a party of 301 is larger than Half Dome's capacity of 300 a day"])
        let one = try sandbox.resv(
            ["reserve", "--batch", "-"],
            stdin: #"{"landmarkId": "Lake Tahoe", "date": "2030-01-01T10:00:00Z", "partySize": 1}"#)
        #expect(one.status == 0)
        #expect(one.stderrLines == ["Reserved 1 visit."])
    }

    @Test func configValuesAreCheckedAndUnknownKeysWarnedAbout() throws {
        let sandbox = try Sandbox()
        let config = sandbox.directory.appendingPathComponent("config.json")
        let environment = ["RESV_CONFIG": config.path, "RESV_STORE": ""]
        let missing = try sandbox.resv(["config", "set", "store"], environment: environment)
        #expect(missing.status == 64)
        #expect(missing.stderrLines == ["resv: store='' is invalid: expected a value after the key"])

        try Data(#"{"store": 5}"#.utf8).write(to: config)
        let wrongType = try sandbox.resv(["list"], environment: environment)
        #expect(wrongType.status == 64)
        #expect(
            wrongType.stderrLines == [
                "resv: the config file \(config.path) is invalid: store must be a string, not a number"
            ])

        try Data(#"{"stor": "x.json"}"#.utf8).write(to: config)
        let typo = try sandbox.resv(["list", "--json"], environment: environment)
        #expect(typo.status == 0)
        #expect(
            typo.stderrLines == [
                "resv: warning: \(config.path) has a key 'stor' that is no setting (store, server, token, connectTimeout, requestTimeout, queue); it is ignored"
            ])
    }

    @Test func tildeIsHomeAndAStoreSetInTheConfigIsAbsolute() throws {
        let sandbox = try Sandbox()
        let config = sandbox.directory.appendingPathComponent("config.json").path
        let home = sandbox.directory.appendingPathComponent("home")
        // A store named by hand must be in a folder there is (none is made for a typo).
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let reserve = try sandbox.resv(
            ["reserve", "--store", "~/tilde.json", "-l", "Lake Tahoe", "-d", "2030-01-01T10:00:00Z", "-n", "1"],
            environment: ["HOME": home.path])
        #expect(reserve.status == 0, "\(reserve.stderr)")
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent("tilde.json").path))

        let set = try sandbox.shell(
            "cd '\(sandbox.directory.path)' && RESV_CONFIG='\(config)' resv config set store rel.json")
        #expect(set.status == 0, "\(set.stderr)")
        let stored = try sandbox.shell("RESV_CONFIG='\(config)' RESV_STORE= resv config get store")
        #expect(stored.stdout == sandbox.directory.appendingPathComponent("rel.json").path + "\n")
    }
}
