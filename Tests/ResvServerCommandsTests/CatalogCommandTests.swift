import Foundation
import Logging
import ReservationStorage
import ResvTestKit
import Testing

/// `resv-server catalog import`: adds and changes, never deletes, the same file twice changes
/// nothing; records that do not make landmarks are one line each, exit 65, nothing changed.
/// Run in this process on a temporary SQLite file.
@Suite("resv-server catalog import", .timeLimit(.minutes(30)))
struct CatalogCommandTests {
    typealias Sandbox = ServerCommandTests.Sandbox

    static func landmark(_ id: String, _ name: String, capacity: Int) -> String {
        #"{"id":"\#(id)","name":"\#(name)","location":"Nowhere","category":"lakes","capacity":\#(capacity)}"#
    }

    /// The stored catalog, read as a server reads it.
    static func stored(_ sandbox: Sandbox) async throws -> StoredCatalog? {
        var logger = Logger(label: "catalog-test")
        logger.logLevel = .critical
        let now: @Sendable () -> Date = { Date() }
        return try await Database.withStore(sandbox.database, logger: logger, now: now) { store in
            try await store.catalog(newerThan: -1)
        }
    }

    @Test func importIsIdempotentAndNeverDeletes() async throws {
        let sandbox = try Sandbox()
        let db = ["--database", sandbox.database]
        let (a, b) = ("0b4f4d4e-1111-4a1a-8a1a-000000000001", "0b4f4d4e-1111-4a1a-8a1a-000000000002")
        let file = sandbox.directory.url.appendingPathComponent("landmarks.json").path
        try "[\(Self.landmark(a, "Blue Lake", capacity: 10)),\(Self.landmark(b, "Green Lake", capacity: 20))]"
            .write(toFile: file, atomically: true, encoding: .utf8)
        let first = await ServerCommandTests.resvServer(["catalog", "import", file] + db)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr == "resv-server: imported (added 2)\n")
        let again = await ServerCommandTests.resvServer(["catalog", "import", file] + db)
        #expect(again.status == 0)
        #expect(again.stderr == "resv-server: nothing changed (2 the same)\n")
        let version = try #require(try await Self.stored(sandbox)).version

        // One changed, one missing from the file: changed, and left.
        try "[\(Self.landmark(a, "Blue Lake", capacity: 12))]".write(toFile: file, atomically: true, encoding: .utf8)
        let changed = await ServerCommandTests.resvServer(["catalog", "import", file] + db)
        #expect(
            changed.stderr
                == "resv-server: imported (changed 1); 1 landmark of the database not in the file left as it is\n",
            "\(changed.stderr)")
        let catalog = try #require(try await Self.stored(sandbox)).catalog
        #expect(catalog.landmarks.map(\.name) == ["Blue Lake", "Green Lake"])
        #expect(catalog.landmarks.map(\.capacity) == [12, 20])
        #expect(catalog.version == version + 1)
    }

    @Test func invalidRecordsAreOneLineEachAndChangeNothing() async throws {
        let sandbox = try Sandbox()
        let db = ["--database", sandbox.database]
        let file = sandbox.directory.url.appendingPathComponent("bad.json").path
        let good = Self.landmark("0b4f4d4e-2222-4a1a-8a1a-000000000001", "Good Lake", capacity: 5)
        let records = [
            good,
            Self.landmark("0b4f4d4e-2222-4a1a-8a1a-000000000002", "Full Lake", capacity: 1_000_001),
            #"{"id":"not-a-uuid","name":"X","location":"Y","category":"lakes"}"#,
            Self.landmark("0b4f4d4e-2222-4a1a-8a1a-000000000003", String(repeating: "n", count: 201), capacity: 1),
            good,
        ]
        try "[\(records.joined(separator: ","))]".write(toFile: file, atomically: true, encoding: .utf8)
        let run = await ServerCommandTests.resvServer(["catalog", "import", file] + db)
        #expect(run.status == 65)
        let lines = run.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "\(run.stderr)")
        #expect(
            lines.first?.hasPrefix(
                "resv-server: \(file): landmark 2 (0b4f4d4e-2222-4a1a-8a1a-000000000002): capacity 1000001") == true)
        #expect(lines.contains { $0.contains("landmark 3 (not-a-uuid): id 'not-a-uuid' is not a UUID") })
        #expect(lines.contains { $0.contains("landmark 4") && $0.contains("name is 201 characters") })
        #expect(lines.contains { $0.contains("landmark 5") && $0.contains("appears more than once") })
        #expect(lines.last == "resv-server: nothing was imported")
        #expect(try await Self.stored(sandbox) == nil)
        // A file that is not there: one line, 69.
        let missing = await ServerCommandTests.resvServer(["catalog", "import", file + ".none"] + db)
        #expect(missing.status == 69)
        #expect(missing.stderr.split(separator: "\n").count == 1, "\(missing.stderr)")
    }
}
