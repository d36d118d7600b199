import Foundation
import Testing

@Suite("Commands, run as a user runs them")
struct CommandTests {
    @Test func reserveListCancelByPrefixListAll() throws {
        let sandbox = try Sandbox()
        let reserved = try sandbox.resv(
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

        let list = try sandbox.resv("list")
        #expect(list.status == 0)
        #expect(list.stdout.contains(String(id.prefix(8))))
        #expect(list.stdout.contains("Half Dome"))
        #expect(list.stdout.contains("2030-01-02 17:30"))

        let cancelled = try sandbox.resv("cancel", String(id.prefix(8)))
        #expect(cancelled.status == 0, "\(cancelled.stderr)")
        #expect(cancelled.stdout.hasPrefix("Cancelled \(id.prefix(8))"))

        let active = try sandbox.resv("list")
        #expect(active.status == 0)
        #expect(!active.stdout.contains(String(id.prefix(8))))

        let all = try sandbox.resv("list", "--all", "--json")
        let records = try #require(try JSONSerialization.jsonObject(with: Data(all.stdout.utf8)) as? [[String: Any]])
        #expect(records.count == 1)
        #expect(records.first?["status"] as? String == "cancelled")

        let stored = try #require(try sandbox.storeJSON()["reservations"] as? [[String: Any]])
        #expect(stored.count == 1)
        #expect(stored.first?["status"] as? String == "cancelled")
        #expect(stored.first?["landmarkId"] as? String == Fixture.halfDome)
    }

    @Test func cancellingTwiceSucceedsAndSaysSo() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Fixture.store)
        let again = try sandbox.resv("cancel", "5eed3333")
        #expect(again.status == 0)
        #expect(again.stdout.hasPrefix("Already cancelled: 5eed3333"))
    }

    @Test func cancelSeveralIdsAtOnce() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Fixture.store)
        let run = try sandbox.resv("cancel", "abcd1111", "abcd2222", "--json")
        #expect(run.status == 0, "\(run.stderr)")
        let array = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        #expect(array.map { $0["status"] as? String } == ["cancelled", "cancelled"])
        let list = try sandbox.resv("list", "--json")
        #expect(list.stdout == "[]\n")
    }

    @Test func listIsSortedByDateAndActiveByDefault() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Fixture.store)
        let run = try sandbox.resv("list", "--format", "ndjson")
        #expect(run.status == 0)
        let ids = run.stdout.split(separator: "\n").map { line -> String? in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return object?["id"] as? String
        }
        #expect(ids == [Fixture.second, Fixture.first])
    }

    @Test func listFilters() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Fixture.store)
        func ids(_ arguments: String...) throws -> [String] {
            let run = try sandbox.resv(arguments + ["--json"])
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            let array = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]] ?? []
            return array.compactMap { $0["id"] as? String }
        }
        #expect(try ids("list", "--all") == [Fixture.second, Fixture.first, Fixture.third])
        #expect(try ids("list", "--status", "cancelled") == [Fixture.third])
        #expect(try ids("list", "--status", "pending", "--status", "cancelled") == [Fixture.second, Fixture.third])
        #expect(try ids("list", "--status", "confirmed") == [Fixture.first])
        #expect(try ids("list", "--landmark", "Golden Gate Bridge", "--all") == [Fixture.second, Fixture.third])
        #expect(try ids("list", "--landmark", "937fea60") == [Fixture.first])
        #expect(try ids("list", "--from", "2030-05-15T00:00:00Z") == [Fixture.first])
        #expect(try ids("list", "--to", "2030-05-01T10:00:00Z") == [Fixture.second])
        #expect(
            try ids("list", "--from", "2030-05-01T00:00:00Z", "--to", "2030-06-30T00:00:00+02:00", "--all") == [
                Fixture.second, Fixture.first,
            ])
    }

    @Test func showAndConfirm() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Fixture.store)
        let show = try sandbox.resv("show", "abcd2222")
        #expect(show.status == 0)
        #expect(show.stdout.contains(Fixture.second))
        #expect(show.stdout.contains("Golden Gate Bridge"))
        #expect(show.stdout.contains("pending"))

        let confirm = try sandbox.resv("confirm", "abcd2222", "--json")
        #expect(confirm.status == 0, "\(confirm.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(confirm.stdout.utf8)) as? [String: Any])
        #expect(object["status"] as? String == "confirmed")
        let again = try sandbox.resv("confirm", "abcd2222")
        #expect(again.status == 0)
        #expect(again.stdout.hasPrefix("Already confirmed"))

        let cancelled = try sandbox.resv("confirm", "5eed")
        #expect(cancelled.status == 1)
        #expect(cancelled.stderr.contains("cancelled"))
    }

    @Test func pendingReservation() throws {
        let sandbox = try Sandbox()
        let run = try sandbox.resv(
            "reserve", "-l", "Turtle Rock", "-d", "2031-03-01T08:00:00Z", "-n", "2", "--pending", "--format", "ndjson")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").count == 1)
        #expect(run.stdout.contains(#""status":"pending""#))
    }

    @Test func landmarks() throws {
        let sandbox = try Sandbox()
        let table = try sandbox.resv("landmarks")
        #expect(table.status == 0)
        for name in [
            "Golden Gate Bridge", "Lake Tahoe", "Half Dome", "Yosemite Valley", "Brooklyn Bridge", "Mount Rainier",
            "Crater Lake",
        ] {
            #expect(table.stdout.contains(name))
        }
        let json = try sandbox.resv("landmarks", "--json")
        let array = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        let halfDome = try #require(array.first { $0["name"] as? String == "Half Dome" })
        #expect(halfDome["id"] as? String == Fixture.halfDome)
        #expect(halfDome["capacity"] as? Int == 300)
    }

    @Test func storeCatalogReplacesBuiltIn() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(
            """
            {"version": 1, "landmarks": [
              {"id": "0a0a0a0a-0000-4000-8000-000000000001", "name": "Old Bridge", "location": "Mostar", "category": "bridges"},
              {"id": "0a0a0a0a-0000-4000-8000-000000000002", "name": "", "location": "Nowhere", "category": "lakes"}
            ], "reservations": [
              {"id": "0b0b0b0b-0000-4000-8000-000000000001", "landmarkId": "0a0a0a0a-0000-4000-8000-000000000002", "date": "2030-01-01T00:00:00Z", "partySize": 1, "status": "confirmed"}
            ]}
            """)
        let run = try sandbox.resv("landmarks", "--json")
        #expect(run.status == 0)
        let array = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        #expect(array.map { $0["name"] as? String } == ["Old Bridge"])
        #expect(run.stderr.contains("skipped 1 landmark"))

        let list = try sandbox.resv("list", "--verbose")
        #expect(
            list.stderr.contains("landmark 0a0a0a0a-0000-4000-8000-000000000002 is invalid: name is missing or blank"))
        let reserve = try sandbox.resv("reserve", "-l", "half dome", "-d", "2030-01-01T00:00:00Z", "-n", "1")
        #expect(reserve.status == 64)
        let old = try sandbox.resv("reserve", "-l", "old bridge", "-d", "2030-01-01T00:00:00Z", "-n", "1")
        #expect(old.status == 0, "\(old.stderr)")
    }

    @Test func fetchCountsValidAndSkippedByReason() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(
            """
            {"version": 1, "reservations": [
              {"id": "\(Fixture.first)", "landmarkId": "\(Fixture.halfDome)", "date": "2030-06-01T16:00:00Z", "partySize": 4, "status": "confirmed"},
              {"id": "\(Fixture.second)", "landmarkId": "\(Fixture.halfDome)", "date": "2030-02-30T16:00:00Z", "partySize": 4, "status": "confirmed"},
              {"id": "\(Fixture.third)", "landmarkId": "\(Fixture.halfDome)", "date": "2030-06-01T16:00:00Z", "partySize": 0, "status": "confirmed"},
              {"id": "5eed4444-3333-4333-8333-333333333333", "landmarkId": "\(Fixture.halfDome)", "date": "2030-06-01T16:00:00Z", "partySize": 2, "status": "expired"},
              {"id": "5eed5555-3333-4333-8333-333333333333", "date": "2030-06-01T16:00:00Z", "partySize": 2, "status": "pending"},
              "just a string",
              {"landmarkId": "\(Fixture.halfDome)"}
            ]}
            """)
        let run = try sandbox.resv("fetch", "--json")
        #expect(run.status == 0, "\(run.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(report["valid"] as? Int == 1)
        #expect(report["skipped"] as? Int == 6)
        let reasons = try #require(report["skippedByReason"] as? [String: Int])
        #expect(
            reasons == [
                "invalidDate": 1, "invalidPartySize": 1, "unknownStatus": 1, "missingLandmarkId": 1, "malformed": 2,
            ])

        let human = try sandbox.resv("fetch")
        #expect(human.stdout.contains("1 valid"))
        #expect(human.stdout.contains("6 skipped: 2 malformed record"))
        let verbose = try sandbox.resv("fetch", "--verbose")
        #expect(verbose.stderrLines.count == 6)
        #expect(verbose.stderr.contains("day 30 does not exist in February 2030"))
    }

    @Test func skippedRecordsAreReportedAndKept() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Fixture.store)
        let list = try sandbox.resv("list")
        #expect(list.status == 0)
        #expect(list.stderrLines.count == 1)
        #expect(list.stderr.contains("skipped 1 reservation record"))
        let verbose = try sandbox.resv("list", "-v")
        #expect(verbose.stderr.contains("record #4 (id not-a-uuid): id 'not-a-uuid' is not a UUID"))

        let cancel = try sandbox.resv("cancel", "abcd1111")
        #expect(cancel.status == 0)
        let json = try sandbox.storeJSON()
        #expect(json["owner"] as? String == "team-a")
        let records = try #require(json["reservations"] as? [[String: Any]])
        #expect(records.count == 4)
        #expect(records[0]["note"] as? String == "bring water")
        #expect(records[0]["status"] as? String == "cancelled")
        #expect(records[3]["id"] as? String == "not-a-uuid")
    }

    @Test func listJSONPipesIntoJq() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Fixture.store)
        let run = try sandbox.shell("resv list --json | jq -r '.[].landmark.name'")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "Golden Gate Bridge\nHalf Dome\n")
    }

    @Test func noColourWithoutATerminal() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Fixture.store)
        let run = try sandbox.resv("list")
        #expect(!run.stdout.contains("\u{1B}["))
        #expect(run.stdout.hasPrefix("ID"))
    }

    @Test func emptyStoreIsNotAnError() throws {
        let sandbox = try Sandbox()
        let run = try sandbox.resv("list", "--json")
        #expect(run.status == 0)
        #expect(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [Any] != nil)
        #expect(!FileManager.default.fileExists(atPath: sandbox.store.path), "reading must not create the store")
    }

    @Test func defaultStoreIsUnderXDGDataHome() throws {
        let sandbox = try Sandbox()
        let dataHome = sandbox.directory.appendingPathComponent("data")
        let run = try sandbox.resv(
            ["reserve", "-l", "Lake Tahoe", "-d", "2030-01-01T00:00:00Z", "-n", "2"],
            environment: ["RESV_STORE": "", "XDG_DATA_HOME": dataHome.path])
        #expect(run.status == 0, "\(run.stderr)")
        let file = dataHome.appendingPathComponent("resv/reservations.json")
        #expect(FileManager.default.fileExists(atPath: file.path))
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test func storeFlagBeatsEnvironment() throws {
        let sandbox = try Sandbox()
        let other = sandbox.directory.appendingPathComponent("other.json")
        let run = try sandbox.resv(
            "reserve", "-l", "Crater Lake", "-d", "2030-01-01T00:00:00Z", "-n", "2", "--store", other.path)
        #expect(run.status == 0)
        #expect(FileManager.default.fileExists(atPath: other.path))
        #expect(!FileManager.default.fileExists(atPath: sandbox.store.path))
    }

    @Test func capacityIsEnforced() throws {
        let sandbox = try Sandbox()
        let first = try sandbox.resv("reserve", "-l", "Half Dome", "-d", "2030-08-01T15:00:00Z", "-n", "250")
        #expect(first.status == 0)
        let before = try sandbox.storeBytes()
        let second = try sandbox.resv("reserve", "-l", "Half Dome", "-d", "2030-08-01T20:00:00Z", "-n", "51")
        #expect(second.status == 1)
        #expect(second.stderr == "resv: Half Dome is full on 2030-08-01: 250 of 300 places taken, 51 requested\n")
        #expect(second.stdout.isEmpty)
        #expect(try sandbox.storeBytes() == before)
        let nextDay = try sandbox.resv("reserve", "-l", "Half Dome", "-d", "2030-08-02T15:00:00Z", "-n", "51")
        #expect(nextDay.status == 0)
    }
}
