import Foundation
import ResvTestKit
import Testing

/// Commands run as a user runs them, in this process over the JSON file store and in memory.
/// What needs a process (a pipe into jq, no colour on a pipe) is in ResvEndToEndTests.
@Suite("Commands, run as a user runs them", .timeLimit(.minutes(30)))
struct CommandTests {
    @Test(arguments: Backend.allCases)
    func reserveListCancelByPrefixListAll(_ backend: Backend) async throws {
        let sandbox = try Sandbox(backend)
        let reserved = await sandbox.resv(
            "reserve", "--landmark", "half dome", "--date", "2030-01-02T09:30:00-08:00", "--party-size", "3", "--json")
        #expect(reserved.status == 0, "\(reserved.stderr)")
        #expect(reserved.stderr.isEmpty)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(reserved.stdout.utf8)) as? [String: Any])
        let id = try #require(object["id"] as? String)
        #expect(UUID(uuidString: id) != nil)
        #expect(object["date"] as? String == "2030-01-02T17:30:00Z")
        #expect(object["partySize"] as? Int == 3)
        #expect(object["status"] as? String == "confirmed")
        let landmark = try #require(object["landmark"] as? [String: Any])
        #expect(landmark["name"] as? String == "Half Dome")
        #expect(landmark["id"] as? String == Fixture.halfDome)
        #expect(landmark["category"] as? String == "mountains")

        let list = await sandbox.resv("list")
        #expect(list.status == 0)
        #expect(list.stdout.contains(String(id.prefix(8))))
        #expect(list.stdout.contains("Half Dome"))
        // At the landmark's time (Yosemite: PST), whatever TZ says; --tz shows another zone.
        #expect(list.stdout.contains("2030-01-02 09:30 PST"), "\(list.stdout)")
        #expect(await sandbox.resv("list", "--tz", "utc").stdout.contains("2030-01-02 17:30 UTC"))
        #expect(await sandbox.resv("list", "--tz", "Europe/Berlin").stdout.contains("2030-01-02 18:30 CET"))
        let badZone = await sandbox.resv("list", "--tz", "Mars/Olympus")
        #expect(badZone.status == 64)
        #expect(badZone.stderr.contains("--tz 'Mars/Olympus' is not a zone"), "\(badZone.stderr)")

        let cancelled = await sandbox.resv("cancel", String(id.prefix(8)))
        #expect(cancelled.status == 0, "\(cancelled.stderr)")
        #expect(cancelled.stdout.hasPrefix("Cancelled \(id.prefix(8))"))

        let active = await sandbox.resv("list")
        #expect(active.status == 0)
        #expect(!active.stdout.contains(String(id.prefix(8))))

        let all = await sandbox.resv("list", "--all", "--json")
        let records = try #require(try JSONSerialization.jsonObject(with: Data(all.stdout.utf8)) as? [[String: Any]])
        #expect(records.count == 1)
        #expect(records.first?["status"] as? String == "cancelled")

        guard backend == .jsonFile else { return }
        let stored = try #require(try sandbox.storeJSON()["reservations"] as? [[String: Any]])
        #expect(stored.count == 1)
        #expect(stored.first?["status"] as? String == "cancelled")
        #expect(stored.first?["landmarkId"] as? String == Fixture.halfDome)
    }

    @Test(arguments: Backend.allCases)
    func cancellingTwiceSucceedsAndSaysSo(_ backend: Backend) async throws {
        let sandbox = try Sandbox(backend, seed: Fixture.store)
        let again = await sandbox.resv("cancel", "5eed3333")
        #expect(again.status == 0)
        #expect(again.stdout.hasPrefix("Already cancelled: 5eed3333"))
    }

    @Test(arguments: Backend.allCases)
    func cancelSeveralIdsAtOnce(_ backend: Backend) async throws {
        let sandbox = try Sandbox(backend, seed: Fixture.store)
        let run = await sandbox.resv("cancel", "abcd1111", "abcd2222", "--json")
        #expect(run.status == 0, "\(run.stderr)")
        let array = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        #expect(array.map { $0["status"] as? String } == ["cancelled", "cancelled"])
        let list = await sandbox.resv("list", "--json")
        #expect(list.stdout == "[]\n")
    }

    @Test(arguments: Backend.allCases)
    func listIsSortedByDateAndActiveByDefault(_ backend: Backend) async throws {
        let sandbox = try Sandbox(backend, seed: Fixture.store)
        let run = await sandbox.resv("list", "--format", "ndjson")
        #expect(run.status == 0)
        let ids = run.stdout.split(separator: "\n").map { line -> String? in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return object?["id"] as? String
        }
        #expect(ids == [Fixture.second, Fixture.first])
    }

    @Test(arguments: Backend.allCases)
    func listFilters(_ backend: Backend) async throws {
        let sandbox = try Sandbox(backend, seed: Fixture.store)
        func ids(_ arguments: String...) async throws -> [String] {
            let run = await sandbox.resv(arguments + ["--json"])
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            let array = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]] ?? []
            return array.compactMap { $0["id"] as? String }
        }
        #expect(try await ids("list", "--all") == [Fixture.second, Fixture.first, Fixture.third])
        #expect(try await ids("list", "--status", "cancelled") == [Fixture.third])
        #expect(
            try await ids("list", "--status", "pending", "--status", "cancelled") == [Fixture.second, Fixture.third])
        #expect(try await ids("list", "--status", "confirmed") == [Fixture.first])
        #expect(try await ids("list", "--landmark", "Golden Gate Bridge", "--all") == [Fixture.second, Fixture.third])
        #expect(try await ids("list", "--landmark", "937fea60") == [Fixture.first])
        #expect(try await ids("list", "--from", "2030-05-15T00:00:00Z") == [Fixture.first])
        #expect(try await ids("list", "--to", "2030-05-01T10:00:00Z") == [Fixture.second])
        #expect(
            try await ids("list", "--from", "2030-05-01T00:00:00Z", "--to", "2030-06-30T00:00:00+02:00", "--all") == [
                Fixture.second, Fixture.first,
            ])
    }

    @Test(arguments: Backend.allCases)
    func showAndConfirm(_ backend: Backend) async throws {
        let sandbox = try Sandbox(backend, seed: Fixture.store)
        let show = await sandbox.resv("show", "abcd2222")
        #expect(show.status == 0)
        #expect(show.stdout.contains(Fixture.second))
        #expect(show.stdout.contains("Golden Gate Bridge"))
        #expect(show.stdout.contains("pending"))

        let confirm = await sandbox.resv("confirm", "abcd2222", "--json")
        #expect(confirm.status == 0, "\(confirm.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(confirm.stdout.utf8)) as? [String: Any])
        #expect(object["status"] as? String == "confirmed")
        let again = await sandbox.resv("confirm", "abcd2222")
        #expect(again.status == 0)
        #expect(again.stdout.hasPrefix("Already confirmed"))

        let cancelled = await sandbox.resv("confirm", "5eed")
        #expect(cancelled.status == 1)
        #expect(cancelled.stderr.contains("cancelled"))
    }

    @Test(arguments: Backend.allCases)
    func pendingReservation(_ backend: Backend) async throws {
        let sandbox = try Sandbox(backend)
        let run = await sandbox.resv(
            "reserve", "-l", "Turtle Rock", "-d", "2031-03-01T08:00:00Z", "-n", "2", "--pending", "--format", "ndjson")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").count == 1)
        #expect(run.stdout.contains(#""status":"pending""#))
    }

    @Test(arguments: Backend.allCases)
    func landmarks(_ backend: Backend) async throws {
        let sandbox = try Sandbox(backend)
        let table = await sandbox.resv("landmarks")
        #expect(table.status == 0)
        for name in [
            "Golden Gate Bridge", "Lake Tahoe", "Half Dome", "Yosemite Valley", "Brooklyn Bridge", "Mount Rainier",
            "Crater Lake",
        ] {
            #expect(table.stdout.contains(name))
        }
        let json = await sandbox.resv("landmarks", "--json")
        let array = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        let halfDome = try #require(array.first { $0["name"] as? String == "Half Dome" })
        #expect(halfDome["id"] as? String == Fixture.halfDome)
        #expect(halfDome["capacity"] as? Int == 300)
    }

    @Test(arguments: Backend.allCases)
    func storeCatalogReplacesBuiltIn(_ backend: Backend) async throws {
        let sandbox = try Sandbox(
            backend,
            seed: """
                {"version": 1, "landmarks": [
                  {"id": "0a0a0a0a-0000-4000-8000-000000000001", "name": "Old Bridge", "location": "Mostar", "category": "bridges"},
                  {"id": "0a0a0a0a-0000-4000-8000-000000000002", "name": "", "location": "Nowhere", "category": "lakes"}
                ], "reservations": [
                  {"id": "0b0b0b0b-0000-4000-8000-000000000001", "landmarkId": "0a0a0a0a-0000-4000-8000-000000000002", "date": "2030-01-01T00:00:00Z", "partySize": 1, "status": "confirmed"}
                ]}
                """)
        let run = await sandbox.resv("landmarks", "--json")
        #expect(run.status == 0)
        let array = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        #expect(array.map { $0["name"] as? String } == ["Old Bridge"])
        #expect(run.stderr.contains("skipped 1 landmark"))

        let list = await sandbox.resv("list", "--verbose")
        #expect(
            list.stderr.contains("landmark 0a0a0a0a-0000-4000-8000-000000000002 is invalid: name is missing or blank"))
        let reserve = await sandbox.resv("reserve", "-l", "half dome", "-d", "2030-01-01T00:00:00Z", "-n", "1")
        #expect(reserve.status == 64)
        let old = await sandbox.resv("reserve", "-l", "old bridge", "-d", "2030-01-01T00:00:00Z", "-n", "1")
        #expect(old.status == 0, "\(old.stderr)")
    }

    @Test(arguments: Backend.allCases)
    func fetchCountsValidAndSkippedByReason(_ backend: Backend) async throws {
        let sandbox = try Sandbox(
            backend,
            seed: """
                {"version": 1, "reservations": [
                  {"id": "\(Fixture.first)", "landmarkId": "\(Fixture.halfDome)", "date": "2030-06-01T16:00:00Z", "partySize": 4, "status": "confirmed"},
                  {"id": "\(Fixture.second)", "landmarkId": "\(Fixture.halfDome)", "date": "2030-02-30T16:00:00Z", "partySize": 4, "status": "confirmed"},
                  {"id": "\(Fixture.third)", "landmarkId": "\(Fixture.halfDome)", "date": "2030-06-01T16:00:00Z", "partySize": 0, "status": "confirmed"},
                  {"id": "5eed4444-3333-4333-8333-333333333333", "landmarkId": "\(Fixture.halfDome)", "date": "2030-06-01T16:00:00Z", "partySize": 2, "status": "archived"},
                  {"id": "5eed5555-3333-4333-8333-333333333333", "date": "2030-06-01T16:00:00Z", "partySize": 2, "status": "pending"},
                  "just a string",
                  {"landmarkId": "\(Fixture.halfDome)"}
                ]}
                """)
        let run = await sandbox.resv("fetch", "--json")
        #expect(run.status == 0, "\(run.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(report["valid"] as? Int == 1)
        #expect(report["skipped"] as? Int == 6)
        let reasons = try #require(report["skippedByReason"] as? [String: Int])
        #expect(
            reasons == [
                "invalidDate": 1, "invalidPartySize": 1, "unknownStatus": 1, "missingLandmarkId": 1, "malformed": 2,
            ])

        let human = await sandbox.resv("fetch")
        #expect(human.stdout.contains("1 valid"))
        #expect(human.stdout.contains("6 skipped: 2 malformed record"))
        let verbose = await sandbox.resv("fetch", "--verbose")
        #expect(verbose.stderrLines.count == 6)
        #expect(verbose.stderr.contains("day 30 does not exist in February 2030"))
    }

    @Test(arguments: Backend.allCases)
    func skippedRecordsAreReportedAndKept(_ backend: Backend) async throws {
        let sandbox = try Sandbox(backend, seed: Fixture.store)
        let list = await sandbox.resv("list")
        #expect(list.status == 0)
        #expect(list.stderrLines.count == 1)
        #expect(list.stderr.contains("skipped 1 reservation record"))
        let verbose = await sandbox.resv("list", "-v")
        #expect(verbose.stderr.contains("record #4 (id not-a-uuid): id 'not-a-uuid' is not a UUID"))

        let cancel = await sandbox.resv("cancel", "abcd1111")
        #expect(cancel.status == 0)
        guard backend == .jsonFile else { return }
        // The file keeps what resv does not know: the owner, the note, the record that does not map.
        let json = try sandbox.storeJSON()
        #expect(json["owner"] as? String == "team-a")
        let records = try #require(json["reservations"] as? [[String: Any]])
        #expect(records.count == 4)
        #expect(records[0]["note"] as? String == "bring water")
        #expect(records[0]["status"] as? String == "cancelled")
        #expect(records[3]["id"] as? String == "not-a-uuid")
    }

    @Test(arguments: Backend.allCases)
    func emptyStoreIsNotAnError(_ backend: Backend) async throws {
        let sandbox = try Sandbox(backend)
        let run = await sandbox.resv("list", "--json")
        #expect(run.status == 0)
        #expect(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [Any] != nil)
        #expect(!FileManager.default.fileExists(atPath: sandbox.store.path), "reading must not create the store")
    }

    @Test func defaultStoreIsUnderXDGDataHome() async throws {
        let sandbox = try Sandbox()
        let dataHome = sandbox.directory.appendingPathComponent("data")
        let run = await sandbox.resv(
            ["reserve", "-l", "Lake Tahoe", "-d", "2030-01-01T00:00:00Z", "-n", "2"],
            environment: ["RESV_STORE": "", "XDG_DATA_HOME": dataHome.path])
        #expect(run.status == 0, "\(run.stderr)")
        let file = dataHome.appendingPathComponent("resv/reservations.json")
        #expect(FileManager.default.fileExists(atPath: file.path))
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test func storeFlagBeatsEnvironment() async throws {
        let sandbox = try Sandbox()
        let other = sandbox.directory.appendingPathComponent("other.json")
        let run = await sandbox.resv(
            "reserve", "-l", "Crater Lake", "-d", "2030-01-01T00:00:00Z", "-n", "2", "--store", other.path)
        #expect(run.status == 0)
        #expect(FileManager.default.fileExists(atPath: other.path))
        #expect(!FileManager.default.fileExists(atPath: sandbox.store.path))
    }

    @Test(arguments: Backend.allCases)
    func capacityIsEnforced(_ backend: Backend) async throws {
        let sandbox = try Sandbox(backend)
        let first = await sandbox.resv("reserve", "-l", "Half Dome", "-d", "2030-08-01T15:00:00Z", "-n", "250")
        #expect(first.status == 0)
        let before = try await sandbox.state()
        let second = await sandbox.resv("reserve", "-l", "Half Dome", "-d", "2030-08-01T20:00:00Z", "-n", "51")
        #expect(second.status == 1)
        #expect(second.stderr == "resv: Half Dome is full on 2030-08-01: 250 of 300 places taken, 51 requested\n")
        #expect(second.stdout.isEmpty)
        #expect(try await sandbox.state() == before)
        let nextDay = await sandbox.resv("reserve", "-l", "Half Dome", "-d", "2030-08-02T15:00:00Z", "-n", "51")
        #expect(nextDay.status == 0)
    }
}

extension CommandTests {
    /// A cancel taken back after its day would bring the reservation back in the past:
    /// refused with one line and exit 1 (a refusal, not bad input), the store byte for byte.
    @Test func undoThatWouldBringAReservationBackInThePastIsRefusedWithExit1() async throws {
        let id = Fixture.third
        let record = { (status: String, version: Int) in
            #"{"id": "\#(id)", "landmarkId": "\#(Fixture.goldenGate)", "date": "2021-07-01T10:00:00Z", "partySize": 1, "status": "\#(status)", "version": \#(version)}"#
        }
        let sandbox = try Sandbox(
            .jsonFile,
            seed: """
                {"version": 1, "reservations": [\(record("cancelled", 2))], "history": [
                  {"at": "2021-06-01T10:00:00Z", "change": "created", "reservationId": "\(id)", "after": \(record("confirmed", 1)), "command": "c0ffee00-0000-4000-8000-000000000001"},
                  {"at": "2021-06-02T10:00:00Z", "change": "cancelled", "reservationId": "\(id)", "before": \(record("confirmed", 1)), "after": \(record("cancelled", 2)), "command": "c0ffee00-0000-4000-8000-000000000002"}
                ]}
                """)
        let before = try sandbox.storeBytes()
        let run = await sandbox.resv("undo")
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(
            run.stderrLines == [
                "resv: cannot undo command c0ffee00: reservation 5eed3333 would be active again on "
                    + "2021-07-01T10:00:00Z, which has passed; nothing changed"
            ])
        #expect(try sandbox.storeBytes() == before)
    }
}
