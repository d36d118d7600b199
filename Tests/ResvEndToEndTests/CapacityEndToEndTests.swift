import Foundation
import ReservationCore
import ResvTestKit
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Capacity as users meet it: many `resv` processes at once on a small
/// landmark, a server hit by 100 concurrent creates, `resv availability`,
/// and the capacity model driven through the binary against a server.
@Suite("Capacity, end to end", .ownThreads, .timeLimit(.minutes(30)))
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
                let file = sandbox.directory.appendingPathComponent("\(name).\(index)")
                return YearsAhead.back(try String(contentsOf: file, encoding: .utf8))
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
            #expect(
                plainError(refusal) == "resv: Tiny Tower is full on 2030-12-01: 10 of 10 places taken, 1 requested\n")
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
            "resv: invalid date '2030-02-30': day 30 does not exist in February 2030"
        ),
        (
            ["availability", "Tiny Tower", "--to", "next week"],
            "resv: --to 'next week' is not a day ('next week' is no word of a day): give YYYY-MM-DD, today, "
                + "tmrw, +3d, -1w, in 2 weeks, fri, next fri or dec 24"
        ),
        (
            ["availability", "Tiny Tower", "--from", "next wek"],
            "resv: --from 'next wek' is not a day ('wek' is no word of a day): give YYYY-MM-DD, today, "
                + "tmrw, +3d, -1w, in 2 weeks, fri, next fri or dec 24"
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
                YearsAhead.back(
                    try String(
                        contentsOf: remote.sandbox.directory.appendingPathComponent("\(name).\(index)"),
                        encoding: .utf8))
            }
            let code = try read("rc").trimmingCharacters(in: .whitespacesAndNewlines)
            codes[code, default: 0] += 1
            if code == "1" {
                #expect(
                    plainError(try read("err"))
                        == "resv: Tiny Tower is full on 2030-12-01: 10 of 10 places taken, 1 requested\n")
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

    // MARK: The capacity model through the binary

    /// Runs `resv` on a thread of its own: many at once must not hold the cooperative threads.
    static func resv(_ arguments: [String], environment: [String: String]) async throws -> Run {
        try await runProcessAsync(Binary.resv.path, arguments, environment: environment, stdin: nil)
    }

    /// What `sandbox.resv` runs with: its store, in UTC, without a terminal.
    static func environment(_ sandbox: Sandbox) -> [String: String] {
        [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": sandbox.directory.path,
            "TZ": "UTC", "RESV_STORE": sandbox.store.path,
        ]
    }

    /// The model's operations as `resv` runs them with `environment` (a store
    /// file, or a server and one user's token); `everyone` holds one environment
    /// per user, whose reservations the model checks the days against.
    static func backend(environment: [String: String], everyone: [[String: String]]) -> CapacityModel.Backend {
        @Sendable func resv(_ arguments: String...) async throws -> Run {
            try await Self.resv(arguments, environment: environment)
        }
        @Sendable func json(_ run: Run) throws -> JSONValue { try JSONValue.parse(Data(run.stdout.utf8)) }
        /// The message of a refusal, without "resv: " and the newline.
        @Sendable func message(_ run: Run) -> String {
            String(plainError(run.stderr).dropFirst("resv: ".count).trimmingCharacters(in: .newlines))
        }
        return CapacityModel.Backend(
            reserve: { landmark, date, party, pending in
                var arguments = [
                    "reserve", "-l", landmark.id.description, "-d", DateTime.format(date), "-n", "\(party)", "--json",
                ]
                if pending { arguments.append("--pending") }
                let run = try await Self.resv(arguments, environment: environment)
                switch run.status {
                case 0:
                    guard case .string(let id)? = try json(run)["id"] else {
                        throw ModelFailure("reserve printed \(run.stdout)")
                    }
                    return .created(id: id)
                case 1: return .refused(message(run))
                default: throw ModelFailure("reserve exited \(run.status): \(run.stderr)")
                }
            },
            cancel: { id in
                let run = try await resv("cancel", id)
                guard run.status == 0 else { throw ModelFailure("cancel exited \(run.status): \(run.stderr)") }
            },
            confirm: { id in
                let run = try await resv("confirm", id)
                if run.status == 0 { return .confirmed }
                guard run.status == 1, run.stderr.contains("is cancelled and cannot be confirmed") else {
                    throw ModelFailure("confirm exited \(run.status): \(run.stderr)")
                }
                return .conflict
            },
            active: {
                var held: [CapacityModel.Held] = []
                for environment in everyone {
                    let run = try await Self.resv(["list", "--json"], environment: environment)
                    guard run.status == 0, case .array(let records) = try json(run) else {
                        throw ModelFailure("list exited \(run.status): \(run.stderr)")
                    }
                    for record in records {
                        guard case .string(let landmark)? = record["landmark"]?["id"],
                            case .string(let date)? = record["date"], case .integer(let party)? = record["partySize"]
                        else { throw ModelFailure("list printed \(record)") }
                        held.append(
                            CapacityModel.Held(
                                landmark: landmark, date: try DateTime.parse(date), partySize: Int(party)))
                    }
                }
                return held
            },
            availability: { landmark, first, last in
                let run = try await resv(
                    "availability", landmark.id.description, "--from", "\(first)", "--to", "\(last)", "--json")
                guard run.status == 0, case .array(let days) = try json(run) else {
                    throw ModelFailure("availability exited \(run.status): \(run.stderr)")
                }
                return try days.map { try #require(DayAvailability(json: $0), "\($0)") }
            },
            modify: { id, date, party in
                var arguments = ["modify", id, "--json"]
                if let date { arguments += ["-d", DateTime.format(date)] }
                if let party { arguments += ["-n", "\(party)"] }
                let run = try await Self.resv(arguments, environment: environment)
                switch run.status {
                case 0:
                    let record = try json(run)
                    guard case .string(let landmark)? = record["landmark"]?["id"],
                        case .string(let date)? = record["date"],
                        case .integer(let party)? = record["partySize"], case .string(let status)? = record["status"],
                        let status = Reservation.Status(rawValue: status)
                    else { throw ModelFailure("modify printed \(run.stdout)") }
                    return .modified(
                        CapacityModel.Values(
                            id: id, landmark: landmark, date: try DateTime.parse(date), partySize: Int(party),
                            status: status))
                case 1 where run.stderr.contains("is cancelled and cannot be modified"): return .cancelled
                case 1 where run.stderr.contains("changed since it was read"): return .stale
                case 1: return .refused(message(run))
                default: throw ModelFailure("modify exited \(run.status): \(run.stderr)")
                }
            },
            undo: {
                let run = try await resv("undo", "--json")
                switch run.status {
                case 0:
                    return try .undone(try #require(UndoResult(json: try json(run)), "\(run.stdout)"))
                case 1 where plainError(run.stderr).hasPrefix("resv: nothing to undo"): return .nothingToUndo
                case 1 where plainError(run.stderr).hasPrefix("resv: cannot undo command"): return .conflict
                case 1:
                    // The capacity refusal, said as the undo's: the model's words are inside.
                    let said = message(run)
                    let (opening, closing) = (
                        "cannot undo your last command: the places it would take back are taken now (",
                        "); nothing changed"
                    )
                    guard said.hasPrefix(opening), said.hasSuffix(closing) else { return .refused(said) }
                    return .refused(String(said.dropFirst(opening.count).dropLast(closing.count)))
                default: throw ModelFailure("undo exited \(run.status): \(run.stderr)")
                }
            }
        )
    }

    /// A store file with the model's landmarks as its catalog.
    static func modelStore(_ model: CapacityModel) throws -> Sandbox {
        let sandbox = try Sandbox()
        try sandbox.seed(#"{"version": 1, "landmarks": \#(model.catalogJSON), "reservations": []}"#)
        return sandbox
    }

    @Test func randomSequencesThroughResvOnAStoreFileNeverPassCapacity() async throws {
        let model = CapacityModel()
        let sandbox = try Self.modelStore(model)
        let environment = Self.environment(sandbox)
        let backend = Self.backend(environment: environment, everyone: [environment])
        let problems = try await model.run(seed: 3, steps: 30, on: backend)
        #expect(problems.count == 0, "\(problems.prefix(5))")
    }

    /// Four `resv` processes at a time on one store file, booking, modifying and
    /// undoing; then `resv undo` until nothing is left.
    @Test func resvProcessesModifyAndUndoOneStoreFileAtOnce() async throws {
        let model = CapacityModel()
        let sandbox = try Self.modelStore(model)
        let environment = Self.environment(sandbox)
        let backend = Self.backend(environment: environment, everyone: [environment])
        let problems = try await model.runConcurrently(
            seed: 8, steps: 10, users: [Array(repeating: backend, count: 4)])
        #expect(problems.count == 0, "\(problems.prefix(5))")
    }

    @Test func randomSequencesThroughResvAgainstAServerNeverPassCapacity() async throws {
        let model = CapacityModel()
        let remote = try RemoteTests.Remote(landmarks: model.catalogJSON)
        let everyone = [remote.alice, remote.bob].map {
            Self.environment(remote.sandbox).merging(remote.environment($0)) { _, new in new }
        }
        let users = everyone.map { Self.backend(environment: $0, everyone: everyone) }
        let problems = try await model.run(seed: 5, steps: 40, on: users)
        #expect(problems.count == 0, "\(problems.prefix(5))")
    }

    /// Two `resv` processes each of Alice and Bob at a time against one server.
    @Test func resvProcessesOfTwoUsersModifyAndUndoAtOnceOnAServer() async throws {
        let model = CapacityModel()
        let remote = try RemoteTests.Remote(landmarks: model.catalogJSON)
        let everyone = [remote.alice, remote.bob].map {
            Self.environment(remote.sandbox).merging(remote.environment($0)) { _, new in new }
        }
        let users = everyone.map { Array(repeating: Self.backend(environment: $0, everyone: everyone), count: 2) }
        let problems = try await model.runConcurrently(seed: 6, steps: 10, users: users)
        #expect(problems.count == 0, "\(problems.prefix(5))")
    }
}
