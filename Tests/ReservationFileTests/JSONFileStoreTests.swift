import FilePrimitives
import Foundation
import ResvTestKit
import Testing

@testable import ReservationCore
@testable import ReservationFile

@Suite("JSON file store", .timeLimit(.minutes(30)))
struct JSONFileStoreTests {
    /// Removed with the suite's value, after each test.
    let folder: TemporaryDirectory
    var directory: URL { folder.url }
    let url: URL
    let now = Date(timeIntervalSince1970: 1_780_000_000)  // 2026-05-28
    let future = "2030-06-01T16:00:00Z"

    init() throws {
        folder = try TemporaryDirectory("file")
        url = folder.url.appendingPathComponent("store.json")
    }

    func service(lockTimeout: Duration = .seconds(5)) -> ReservationService {
        .jsonFile(JSONFileStore(url: url, lockTimeout: lockTimeout), now: { [now] in now }, clock: .continuous)
    }

    func request(_ landmark: String = "Half Dome", partySize: Int = 2) throws -> NewReservation {
        let id = try LandmarkCatalog.builtIn.landmark(matching: landmark).id
        return try NewReservation(
            landmarkID: id, date: DateTime.parse(future), partySize: partySize, now: now)
    }

    func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test func missingFileIsAnEmptyStoreAndReadingDoesNotCreateIt() async throws {
        let snapshot = try await service().fetch()
        #expect(snapshot.reservations.isEmpty)
        #expect(snapshot.rejected.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test func reserveWritesANewStoreOwnerOnlyAndRereadsIt() async throws {
        let created = try await service().reserve(request())
        #expect(try mode(url.path) == 0o600)
        let reread = try await service().fetch()
        #expect(reread.reservations == [created])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        #expect(root["version"] as? Int == 1)
    }

    @Test func anExistingStoreKeepsItsMode() async throws {
        try Data(#"{"version": 1, "reservations": []}"#.utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: url.path)
        _ = try await service().reserve(request())
        #expect(try mode(url.path) == 0o640)
    }

    @Test func aRefusedBatchLeavesTheFileUntouched() async throws {
        let service = service()
        _ = try await service.reserve(request())
        let before = try Data(contentsOf: url)
        let inode = try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? Int

        await #expect(throws: ReservationError.self) {
            _ = try await service.reserve([try request(), try request(partySize: 1000), try request()])
        }

        #expect(try Data(contentsOf: url) == before)
        #expect(try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? Int == inode)
    }

    @Test func severalCancelsAreOneWriteAndAnUnknownIDCancelsNothing() async throws {
        let service = service()
        let first = try await service.reserve(request())
        let second = try await service.reserve(request())
        let before = try Data(contentsOf: url)
        let inode = try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? Int
        let unknown = try #require(Reservation.ID("abcd9999-9999-4999-8999-999999999999"))

        let error = try await #require(throws: ReservationError.self) {
            _ = try await service.cancel([first.id, unknown, second.id])
        }
        guard case .reservationNotFound(let missing) = error else {
            Issue.record("expected reservationNotFound, got \(error)")
            return
        }
        #expect(missing == unknown.description)
        #expect(try Data(contentsOf: url) == before)
        #expect(try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? Int == inode)

        let changes = try await service.cancel([second.id, first.id])
        #expect(changes.map(\.reservation.id) == [second.id, first.id])
        #expect(changes.map(\.changed) == [true, true])
        let statuses = try await service.fetch().reservations.map(\.status)
        #expect(statuses == [.cancelled, .cancelled])
    }

    @Test func noTemporaryFilesAreLeftBehind() async throws {
        let service = service()
        for _ in 0..<5 { _ = try await service.reserve(request()) }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(names == ["store.json", "store.json.history", "store.json.lock"])
    }

    @Test func unknownFieldsAndUnmappableRecordsSurviveEveryRewrite() async throws {
        let text = """
            {"version": 1, "owner": {"team": "a", "n": 12345678901, "ratio": 0.25, "tags": [true, null]},
             "reservations": [
              {"id": "abcd1111-1111-4111-8111-111111111111", "landmarkId": "937fea60-bb7b-4ee8-85da-c79962987917",
               "date": "2030-06-01T16:00:00Z", "partySize": 4, "status": "pending", "note": {"text": "water"}},
              {"id": "abcd2222-2222-4222-8222-222222222222", "landmarkId": "nope", "partySize": "x"},
              "junk", 7
            ]}
            """
        try Data(text.utf8).write(to: url)
        let original = try JSONValue.parse(Data(text.utf8))
        let service = service()
        let id = Reservation.ID(try #require(UUID(uuidString: "abcd1111-1111-4111-8111-111111111111")))
        _ = try await service.confirm(id)
        _ = try await service.reserve(request())
        _ = try await service.cancel(id)

        let rewritten = try JSONValue.parse(Data(contentsOf: url))
        #expect(rewritten["owner"] == original["owner"])
        guard case .array(let before)? = original["reservations"], case .array(let after)? = rewritten["reservations"]
        else {
            Issue.record("reservations is not an array")
            return
        }
        #expect(after.count == 5)
        var expectedFirst = before[0]
        expectedFirst["status"] = .string("cancelled")
        // Confirmed, then cancelled: version 3, changed at the store's clock; its own "note" (not text) kept.
        expectedFirst["version"] = .integer(3)
        expectedFirst["updatedAt"] = .string(DateTime.format(now))
        #expect(after[0] == expectedFirst)
        #expect(Array(after[1...3]) == Array(before[1...3]))
        #expect(try await service.fetch().rejected.map(\.index) == [1, 2, 3])
    }

    @Test func aCorruptStoreIsRefusedAndLeftAlone() async throws {
        let text = "{\"version\": 1, \"reservations\": [}"
        try Data(text.utf8).write(to: url)
        await #expect(throws: FileStoreError.self) { try await service().reserve(request()) }
        await #expect(throws: FileStoreError.self) { try await service().fetch() }
        #expect(try Data(contentsOf: url) == Data(text.utf8))
    }

    @Test func aHeldLockTimesOutWithinItsBound() async throws {
        let service = service(lockTimeout: .milliseconds(300))
        let lock = try await FileLock.acquire(url.path + ".lock", timeout: .seconds(1))
        defer { lock.release() }
        let start = ContinuousClock.now
        do {
            _ = try await service.reserve(request())
            Issue.record("reserve succeeded while another holder had the lock")
        } catch FileStoreError.lockTimeout(let path, _) {
            #expect(path == url.path)
        }
        let waited = ContinuousClock.now - start
        #expect(waited >= .milliseconds(300))
        #expect(waited < .seconds(3))
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test func aReleasedLockLetsTheNextWriterIn() async throws {
        let lock = try await FileLock.acquire(url.path + ".lock", timeout: .seconds(1))
        lock.release()
        let created = try await service(lockTimeout: .milliseconds(100)).reserve(request())
        #expect(try await service().fetch().reservations == [created])
    }

    @Test func concurrentReservesInOneProcessAreAllKept() async throws {
        let service = service()
        let request = try request("Lake Tahoe")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<40 { group.addTask { _ = try await service.reserve(request) } }
            try await group.waitForAll()
        }
        #expect(try await service.fetch().reservations.count == 40)
    }
}
