import CapacityModel
import Foundation
import ReservationCore
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Capacity as users meet it: many `resv` processes at once on a small
/// landmark, a server hit by 100 concurrent creates, `resv availability`,
/// and the capacity model driven through the binary against a server.
@Suite("Capacity, end to end")
struct CapacityEndToEndTests {
    /// A catalog with a 10-place landmark in Auckland (UTC+13 in December) and
    /// one without a limit; `towerID` fresh when PostgreSQL is shared.
    static func catalog(towerID: String = "11111111-2222-4333-8444-555555555555") -> String {
        """
        [{"id": "\(towerID)", "name": "Tiny Tower", "location": "Auckland", "category": "mountains", \
        "capacity": 10, "timeZone": "Pacific/Auckland"},
         {"id": "22222222-2222-4333-8444-555555555555", "name": "Open Field", "location": "Nowhere", "category": "lakes"}]
        """
    }

    static func storeWithCatalog() -> String {
        #"{"version": 1, "landmarks": \#(catalog()), "reservations": []}"#
    }

    // MARK: The file store

    @Test func fortyProcessesOnATenPlaceDayBookExactlyTen() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Self.storeWithCatalog())
        let script = """
            for i in $(seq 40); do
              ( resv reserve -l "Tiny Tower" -d 2030-12-01T10:00:00+13:00 -n 1 --format ndjson \
                  > "out.$i" 2> "err.$i"; echo $? > "rc.$i" ) &
            done
            wait
            """
        let run = try sandbox.shell("cd '\(sandbox.directory.path)' && " + script)
        #expect(run.status == 0, "\(run.stderr)")
        var booked: [String] = []
        var refusals: [String] = []
        for index in 1...40 {
            func read(_ name: String) throws -> String {
                try String(contentsOf: sandbox.directory.appendingPathComponent("\(name).\(index)"), encoding: .utf8)
            }
            switch try read("rc").trimmingCharacters(in: .whitespacesAndNewlines) {
            case "0": booked.append(try read("out"))
            case "1": refusals.append(try read("err"))
            case let other: Issue.record("process \(index) exited \(other): \(try read("err"))")
            }
        }
        #expect(booked.count == 10)
        #expect(refusals.count == 30)
        for refusal in refusals {
            #expect(refusal == "resv: Tiny Tower is full on 2030-12-01: 10 of 10 places taken, 1 requested\n")
        }
        let stored = try #require(sandbox.storeJSON()["reservations"] as? [[String: Any]])
        #expect(stored.count == 10)
        #expect(stored.compactMap { $0["partySize"] as? Int }.reduce(0, +) == 10)
    }

    @Test func aLateEveningReservationCountsOnItsLocalDayNotTheUTCOne() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Self.storeWithCatalog())
        // 23:30 on December 1 in Auckland is 10:30 UTC on December 1; 00:30 on
        // December 2 is 11:30 UTC, still December 1 in UTC, but another day at the tower.
        #expect(
            try sandbox.resv("reserve", "-l", "Tiny Tower", "-d", "2030-12-01T23:30:00+13:00", "-n", "9").status == 0)
        #expect(try sandbox.resv("reserve", "-l", "Tiny Tower", "-d", "2030-12-01T11:30:00Z", "-n", "10").status == 0)
        let refused = try sandbox.resv("reserve", "-l", "Tiny Tower", "-d", "2030-12-01T08:00:00+13:00", "-n", "2")
        #expect(refused.status == 1)
        #expect(refused.stderr == "resv: Tiny Tower is full on 2030-12-01: 9 of 10 places taken, 2 requested\n")
        let days = try sandbox.resv(
            "availability", "Tiny Tower", "--from", "2030-12-01", "--to", "2030-12-02", "--json")
        #expect(days.status == 0, "\(days.stderr)")
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(days.stdout.utf8)) as? [[String: Any]])
        #expect(parsed.compactMap { $0["taken"] as? Int } == [9, 10])
        #expect(parsed.compactMap { $0["left"] as? Int } == [1, 0])
    }

    @Test func availabilityPrintsATableJSONAndNDJSON() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Self.storeWithCatalog())
        #expect(
            try sandbox.resv("reserve", "-l", "Tiny Tower", "-d", "2030-12-02T10:00:00+13:00", "-n", "10").status == 0)
        #expect(
            try sandbox.resv("reserve", "-l", "Tiny Tower", "-d", "2030-12-03T10:00:00+13:00", "-n", "4").status == 0)

        let table = try sandbox.resv("availability", "tiny tower", "--from", "2030-12-01", "--to", "2030-12-03")
        #expect(table.status == 0)
        #expect(
            table.stdout == """
                DATE        TAKEN  CAPACITY  LEFT
                2030-12-01      0        10    10
                2030-12-02     10        10     0
                2030-12-03      4        10     6

                """)
        #expect(table.stderr == "Tiny Tower: 10 places a day, days in Pacific/Auckland\n")

        let ndjson = try sandbox.resv(
            "availability", "11111111", "--from", "2030-12-02", "--to", "2030-12-03", "--format", "ndjson")
        #expect(
            ndjson.stdout == """
                {"capacity":10,"date":"2030-12-02","left":0,"taken":10}
                {"capacity":10,"date":"2030-12-03","left":6,"taken":4}

                """)
        #expect(ndjson.stderr.isEmpty)

        let open = try sandbox.resv(
            "availability", "Open Field", "--from", "2030-12-01", "--to", "2030-12-01", "--json")
        #expect(
            open.stdout == """
                [
                  {
                    "capacity" : null,
                    "date" : "2030-12-01",
                    "left" : null,
                    "taken" : 0
                  }
                ]

                """)
    }

    @Test func withoutDaysAvailabilityShowsTwoWeeksFromTodayAtTheLandmark() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Self.storeWithCatalog())
        let run = try sandbox.resv("availability", "Tiny Tower", "--format", "ndjson")
        #expect(run.status == 0, "\(run.stderr)")
        let days = run.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["date"] as? String
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "Pacific/Auckland"))
        let today = CalendarDay(Date(), in: calendar).description
        #expect(days.count == 14)
        #expect(days.first == today)
    }

    @Test(arguments: [
        (
            ["availability", "Tiny Tower", "--from", "2030-12-03", "--to", "2030-12-01"],
            "resv: the range 2030-12-03 to 2030-12-01 is empty: the first day comes after the last"
        ),
        (
            ["availability", "Tiny Tower", "--from", "2030-02-30"],
            "resv: --from '2030-02-30' is not a day: give YYYY-MM-DD, e.g. 2026-12-01"
        ),
        (
            ["availability", "Tiny Tower", "--to", "next week"],
            "resv: --to 'next week' is not a day: give YYYY-MM-DD, e.g. 2026-12-01"
        ),
        (
            ["availability", "Tiny Tower", "--from", "2030-01-01", "--to", "2031-06-01"],
            "resv: 2030-01-01 to 2031-06-01 is more than 366 days: ask for a shorter range"
        ),
        (["availability", "Atlantis"], "resv: no landmark matches 'Atlantis' (see 'resv landmarks')"),
        (["availability"], "resv: missing expected argument '<landmark>' (see 'resv availability --help')"),
    ])
    func badAvailabilityArgumentsAreOneLineAnd64(arguments: [String], message: String) throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Self.storeWithCatalog())
        let run = try sandbox.resv(arguments)
        #expect(run.status == 64)
        #expect(run.stderr == message + "\n")
        #expect(run.stdout.isEmpty)
    }

    // MARK: The server

    @Test(arguments: ServerTests.databases)
    func aHundredConcurrentCreatesOnATenPlaceDayBookTen(database: String) async throws {
        let sandbox = try Sandbox()
        let towerID = UUID().uuidString.lowercased()  // PostgreSQL is shared between tests
        let spec =
            database == "sqlite"
            ? sandbox.directory.appendingPathComponent("server.sqlite").path
            : try #require(ProcessInfo.processInfo.environment["RESV_TEST_POSTGRES_URL"])
        let catalog = sandbox.directory.appendingPathComponent("landmarks.json")
        try Data(Self.catalog(towerID: towerID).utf8).write(to: catalog)
        let token = try ServerProcess.createToken("crowd-\(UUID().uuidString.prefix(6))", database: spec)
        let server = try ServerProcess(database: spec, arguments: ["--landmarks", catalog.path])
        defer { server.stop() }

        let answers = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for _ in 0..<100 {
                group.addTask {
                    let (status, body) = try await server.request(
                        "POST", "/reservations", token: token,
                        body: #"{"landmarkId":"\#(towerID)","date":"2030-12-01T10:00:00+13:00","partySize":1}"#)
                    return (status, String(decoding: body, as: UTF8.self))
                }
            }
            return try await group.reduce(into: [(Int, String)]()) { $0.append($1) }
        }
        #expect(answers.filter { $0.0 == 201 }.count == 10)
        let conflicts = answers.filter { $0.0 == 409 }
        #expect(conflicts.count == 90, "\(Set(answers.map(\.0)))")
        for (_, body) in conflicts {
            #expect(
                body
                    == #"{"code":"noCapacity","error":true,"reason":"Tiny Tower is full on 2030-12-01: 10 of 10 places taken, 1 requested"}"#
            )
        }
        // What the database itself holds.
        let query = "SELECT COUNT(*), SUM(party_size) FROM reservations WHERE landmark_id = '\(towerID)'"
        let held =
            database == "sqlite"
            ? try runProcess("/usr/bin/env", ["sqlite3", "-separator", "|", spec, query], environment: [:], stdin: nil)
            : try runProcess("/usr/bin/env", ["psql", spec, "-tAc", query], environment: [:], stdin: nil)
        #expect(held.status == 0, "\(held.stderr)")
        #expect(held.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "10|10")
    }

    @Test func twoUsersFillingASmallLandmarkFromManyTerminalsStopAtItsCapacity() throws {
        let remote = try RemoteTests.Remote(landmarks: Self.catalog())
        let script = """
            for i in $(seq 20); do
              if [ $((i % 2)) = 0 ]; then token="$ALICE"; else token="$BOB"; fi
              ( RESV_TOKEN="$token" resv reserve -l "Tiny Tower" -d 2030-12-01T10:00:00+13:00 -n 1 --json \
                  > "out.$i" 2> "err.$i"; echo $? > "rc.$i" ) &
            done
            wait
            """
        let environment = remote.environment(remote.alice).map { "\($0.key)='\($0.value)'" }.joined(separator: " ")
        let run = try remote.sandbox.shell(
            "cd '\(remote.sandbox.directory.path)' && export \(environment) ALICE='\(remote.alice)' BOB='\(remote.bob)' && "
                + script)
        #expect(run.status == 0, "\(run.stderr)")
        var codes: [String: Int] = [:]
        for index in 1...20 {
            func read(_ name: String) throws -> String {
                try String(
                    contentsOf: remote.sandbox.directory.appendingPathComponent("\(name).\(index)"), encoding: .utf8)
            }
            let code = try read("rc").trimmingCharacters(in: .whitespacesAndNewlines)
            codes[code, default: 0] += 1
            if code == "1" {
                #expect(
                    try read("err") == "resv: Tiny Tower is full on 2030-12-01: 10 of 10 places taken, 1 requested\n")
            }
        }
        #expect(codes == ["0": 10, "1": 10])
        let days = try remote.resv(
            "availability", "Tiny Tower", "--from", "2030-12-01", "--to", "2030-12-01", "--json", token: remote.bob)
        #expect(days.status == 0, "\(days.stderr)")
        #expect(days.stdout.contains(#""taken" : 10"#))
        #expect(days.stdout.contains(#""left" : 0"#))
        // The HTTP backend prints the server's reason as the file backend prints its own.
        let one = try remote.resv("reserve", "-l", "Tiny Tower", "-d", "2030-12-01T22:00:00+13:00", "-n", "3")
        #expect(one.status == 1)
        #expect(one.stderr == "resv: Tiny Tower is full on 2030-12-01: 10 of 10 places taken, 3 requested\n")
        // Offline, availability is refused: the cache holds one user's reservations only.
        let offline = try remote.resv("availability", "Tiny Tower", "--offline")
        #expect(offline.status == 64)
        #expect(offline.stderr.contains("availability counts every user's reservations and needs the server"))
    }

    @Test func randomSequencesThroughResvAgainstAServerNeverPassCapacity() async throws {
        let model = CapacityModel()
        let remote = try RemoteTests.Remote(landmarks: model.catalogJSON)
        let owners = Mutex<[String: String]>([:])
        let turn = Atomic<Int>(0)
        @Sendable func json(_ run: Run) throws -> Any {
            try JSONSerialization.jsonObject(with: Data(run.stdout.utf8))
        }
        let backend = CapacityModel.Backend(
            reserve: { landmark, date, party, pending in
                let token = turn.add(1, ordering: .relaxed).newValue % 2 == 0 ? remote.alice : remote.bob
                var arguments = [
                    "reserve", "-l", landmark.id.description, "-d", DateTime.format(date), "-n", "\(party)", "--json",
                ]
                if pending { arguments.append("--pending") }
                let run = try remote.sandbox.resv(arguments, environment: remote.environment(token))
                switch run.status {
                case 0:
                    let id = try #require((try json(run) as? [String: Any])?["id"] as? String)
                    owners.withLock { $0[id] = token }
                    return .created(id: id)
                case 1:
                    return .refused(String(run.stderr.dropFirst("resv: ".count).dropLast()))
                default:
                    throw ModelFailure("reserve exited \(run.status): \(run.stderr)")
                }
            },
            cancel: { id in
                let token = try #require(owners.withLock { $0[id] })
                let run = try remote.sandbox.resv(["cancel", id], environment: remote.environment(token))
                guard run.status == 0 else { throw ModelFailure("cancel exited \(run.status): \(run.stderr)") }
            },
            confirm: { id in
                let token = try #require(owners.withLock { $0[id] })
                let run = try remote.sandbox.resv(["confirm", id], environment: remote.environment(token))
                if run.status == 0 { return .confirmed }
                guard run.status == 1, run.stderr.contains("is cancelled and cannot be confirmed") else {
                    throw ModelFailure("confirm exited \(run.status): \(run.stderr)")
                }
                return .conflict
            },
            active: {
                var held: [CapacityModel.Held] = []
                for token in [remote.alice, remote.bob] {
                    let run = try remote.sandbox.resv(["list", "--json"], environment: remote.environment(token))
                    for record in try #require(try json(run) as? [[String: Any]]) {
                        held.append(
                            CapacityModel.Held(
                                landmark: (record["landmark"] as? [String: Any])?["id"] as? String ?? "",
                                date: try DateTime.parse(record["date"] as? String ?? ""),
                                partySize: record["partySize"] as? Int ?? 0))
                    }
                }
                return held
            },
            availability: { landmark, first, last in
                let run = try remote.sandbox.resv(
                    ["availability", landmark.id.description, "--from", "\(first)", "--to", "\(last)", "--json"],
                    environment: remote.environment(remote.alice))
                let days = try #require(try json(run) as? [Any])
                return try days.map { day in
                    let data = try JSONSerialization.data(withJSONObject: day)
                    return try #require(DayAvailability(json: try JSONValue.parse(data)))
                }
            }
        )
        let problems = try await model.run(seed: 5, steps: 40, on: backend)
        #expect(problems.count == 0, "\(problems.prefix(5))")
    }
}
