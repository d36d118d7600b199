import Foundation
import ResvTestKit
import Testing

@testable import ReservationCore
@testable import ReservationFile

/// The store's history in its journal (`NAME.history`), on real files: what a
/// write appends, what a kill leaves and the next write replaces, an older
/// store's history moved, lines another program wrote, and the size limit.
@Suite("Store journal", .timeLimit(.minutes(30)))
struct JournalTests {
    /// Removed with the suite's value, after each test.
    let folder: TemporaryDirectory
    var directory: URL { folder.url }
    let url: URL
    var journal: URL { url.appendingPathExtension("history") }
    let now = Date(timeIntervalSince1970: 1_780_000_000)  // 2026-05-28

    init() throws {
        folder = try TemporaryDirectory("journal")
        url = folder.url.appendingPathComponent("store.json")
    }

    func service(maxBytes: Int = JSONFileStore.defaultMaxBytes) -> ReservationService {
        .jsonFile(JSONFileStore(url: url, maxBytes: maxBytes), now: { [now] in now }, clock: .continuous)
    }

    func request(_ landmark: String = "Half Dome", partySize: Int = 2) throws -> NewReservation {
        let id = try LandmarkCatalog.builtIn.landmark(matching: landmark).id
        return try NewReservation(
            landmarkID: id, date: DateTime.parse("2030-06-01T16:00:00Z"), partySize: partySize, now: now)
    }

    func lines() throws -> [String] {
        try String(contentsOf: journal, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            .map(String.init)
    }

    func store() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func eachChangeIsANumberedLineAndTheStoreCountsThem() async throws {
        let service = service()
        let made = try await service.reserve([request(), request("Crater Lake")])
        _ = try await service.cancel([made[0].id])
        let written = try lines()
        #expect(written.last == "", "every line ends with a newline")
        let entries = try written.dropLast().map(object)
        #expect(entries.map { $0["seq"] as? Int } == [1, 2, 3])
        #expect(entries.map { $0["change"] as? String } == ["created", "created", "cancelled"])
        #expect(try store()["lastChange"] as? Int == 3)
        #expect(try store()["history"] == nil)
        let history = try await service.history(nil, nil)
        #expect(history.map(\.change) == [.cancelled, .created, .created])
        #expect(try await service.history(made[1].id, nil).map(\.change) == [.created])
    }

    /// A kill between the journal's fsync and the store's rename: the line is there, the
    /// store does not count it. It is never shown nor undone, and the next write replaces it.
    @Test func aLineTheStoreDoesNotCountIsNeverReadAndIsReplaced() async throws {
        let service = service()
        let made = try await service.reserve([request()])
        let landed = try String(contentsOf: journal, encoding: .utf8)
        var orphan = try object(try lines()[0])
        orphan["seq"] = 2
        orphan["change"] = "cancelled"
        let orphanLine = String(decoding: try JSONSerialization.data(withJSONObject: orphan), as: UTF8.self)
        try Data((landed + orphanLine + "\n").utf8).write(to: journal)
        #expect(try await service.history(nil, nil).map(\.change) == [.created])
        // The undo takes back the booking, not the change that never landed.
        let undone = try await service.undo()
        #expect(undone.changes.map(\.after.status) == ["cancelled"])
        let entries = try lines().dropLast().map(object)
        #expect(entries.map { $0["seq"] as? Int } == [1, 2])
        #expect(entries.map { $0["change"] as? String } == ["created", "undone"])
        #expect(try await service.fetch().reservations.map(\.id) == made.map(\.id))
    }

    /// A kill in the middle of the journal's write: the torn last line is not a change, and goes.
    @Test func aTornLastLineIsIgnoredAndReplaced() async throws {
        let service = service()
        _ = try await service.reserve([request()])
        let landed = try String(contentsOf: journal, encoding: .utf8)
        try Data((landed + #"{"after":{"id":"#).utf8).write(to: journal)
        #expect(try await service.history(nil, nil).count == 1)
        _ = try await service.reserve([request("Crater Lake")])
        let entries = try lines()
        #expect(entries.count == 3 && entries.last == "")
        #expect(try entries.dropLast().map(object).map { $0["seq"] as? Int } == [1, 2])
    }

    /// Lines another program wrote are skipped when read, and kept by every write.
    @Test func linesThatAreNotChangesAreSkippedAndKept() async throws {
        let service = service()
        _ = try await service.reserve([request()])
        let landed = try String(contentsOf: journal, encoding: .utf8)
        let foreign = ["not json", #"{"seq": "three"}"#, "[1,2]", "", #"{"note": "by hand"}"#]
        try Data((landed + foreign.joined(separator: "\n") + "\n").utf8).write(to: journal)
        #expect(try await service.history(nil, nil).count == 1)
        _ = try await service.reserve([request("Crater Lake")])
        let written = try lines()
        #expect(Array(written[1...5]) == foreign)
        #expect(try object(written[6])["seq"] as? Int == 2)
        #expect(try await service.history(nil, nil).map(\.change) == [.created, .created])
        #expect(try await service.undo().changes.count == 1)
    }

    /// Numbers that go up from the end were edited: reported (a corrupt store, 65),
    /// the journal left as it is. A bounded answer that does not reach them still reads.
    @Test func numbersGoingBackwardsAreReportedAndLeftAlone() async throws {
        let service = service()
        for landmark in ["Half Dome", "Crater Lake", "Mount Rainier"] {
            _ = try await service.reserve([request(landmark)])
        }
        var written = try lines()
        written.swapAt(0, 1)
        let edited = Data(written.joined(separator: "\n").utf8)
        try edited.write(to: journal)
        #expect(try await service.history(nil, 1).count == 1, "the newest change is read from the end alone")
        await #expect {
            _ = try await service.history(nil, nil)
        } throws: { error in
            guard case FileStoreError.corrupt(let path, let detail)? = error as? FileStoreError else { return false }
            return path == journal.path && detail.contains("sequence numbers go backwards")
        }
        #expect(try Data(contentsOf: journal) == edited)
    }

    /// A store an older resv wrote keeps its history in the store: the first write moves it,
    /// whole and in order, unknown fields kept, and numbers it before the new change.
    @Test func anOlderStoresHistoryMovesIntoTheJournalAtItsFirstWrite() async throws {
        let service = service()
        let made = try await service.reserve([request(), request("Crater Lake")])
        _ = try await service.cancel([made[1].id])
        var older = try store()
        older["lastChange"] = nil
        older["history"] = try lines().dropLast().map { line in
            var entry = try object(line)
            entry["seq"] = nil
            entry["fromAnOlderResv"] = true
            return entry
        }
        try JSONSerialization.data(withJSONObject: older).write(to: url)
        try FileManager.default.removeItem(at: journal)
        // Read before any write: the history is there, and nothing is moved yet.
        #expect(try await service.history(nil, nil).map(\.change) == [.cancelled, .created, .created])
        #expect(!FileManager.default.fileExists(atPath: journal.path))
        let undone = try await service.undo()
        #expect(undone.changes.map(\.reservationID) == [made[1].id])
        let entries = try lines().dropLast().map(object)
        #expect(entries.map { $0["seq"] as? Int } == [1, 2, 3, 4])
        #expect(entries.map { $0["change"] as? String } == ["created", "created", "cancelled", "undone"])
        #expect(entries.prefix(3).allSatisfy { $0["fromAnOlderResv"] as? Bool == true })
        #expect(try store()["history"] == nil)
        #expect(try store()["lastChange"] as? Int == 4)
    }

    @Test func aWriteThatWouldPassTheSizeLimitIsRefusedAndChangesNothing() async throws {
        _ = try await service().reserve([request()])
        let before = try Data(contentsOf: url)
        let journalBefore = try Data(contentsOf: journal)
        let limit = before.count + 100
        await #expect {
            _ = try await service(maxBytes: limit).reserve([request("Crater Lake")])
        } throws: { error in
            guard case FileStoreError.wouldBeTooLarge(_, let bytes, let found)? = error as? FileStoreError else {
                return false
            }
            return found == limit && bytes > limit
        }
        #expect(try Data(contentsOf: url) == before)
        #expect(try Data(contentsOf: journal) == journalBefore)
        #expect(try await service(maxBytes: limit).fetch().reservations.count == 1, "and it still reads")
    }

    @Test(arguments: ["directory", "fifo"])
    func aJournalThatIsNotAFileIsRefusedLikeAStore(kind: String) async throws {
        _ = try await service().reserve([request()])
        let before = try Data(contentsOf: url)
        try FileManager.default.removeItem(at: journal)
        if kind == "directory" {
            try FileManager.default.createDirectory(at: journal, withIntermediateDirectories: false)
        } else {
            #expect(mkfifo(journal.path, 0o600) == 0)
        }
        for attempt in [{ _ = try await service().history(nil, 1) }, { _ = try await service().reserve([request()]) }] {
            await #expect {
                try await attempt()
            } throws: { error in
                guard case FileStoreError.unreadable(let path, let reason)? = error as? FileStoreError else {
                    return false
                }
                return path == journal.path && reason.contains("not a store's history")
            }
        }
        #expect(try Data(contentsOf: url) == before)
    }

    /// root changing another user's store leaves the journal it creates that user's, as the store is.
    @Test(.enabled(if: Requirement.root.isMet, "needs root, to give the store to another user"))
    func aJournalRootCreatesBelongsToTheStoresOwner() async throws {
        try Data(#"{"version": 1, "reservations": []}"#.utf8).write(to: url)
        #expect(chown(url.path, 4242, 4343) == 0)
        #expect(chmod(url.path, 0o640) == 0)
        _ = try await service().reserve([request()])
        var info = stat()
        #expect(stat(journal.path, &info) == 0)
        #expect(info.st_uid == 4242 && info.st_gid == 4343)
        #expect(info.st_mode & 0o777 == 0o640, "the store's mode")
    }

    /// A line far longer than any change is skipped without being held whole.
    @Test func aHugeLineIsSkipped() async throws {
        _ = try await service().reserve([request()])
        let handle = try FileHandle(forWritingTo: journal)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(repeating: UInt8(ascii: "x"), count: Journal.maxLine + 10))
        try handle.write(contentsOf: Data("\n".utf8))
        try handle.close()
        #expect(try await service().history(nil, nil).count == 1)
        _ = try await service().reserve([request("Crater Lake")])
        #expect(try await service().history(nil, nil).count == 2)
    }
}

/// Read-only commands map a store's records as the parser reads them; what they
/// see is what the whole-file reading of a write sees, whatever the file's order.
@Suite("Store records mapped as they are read", .timeLimit(.minutes(30)))
struct StreamedSnapshotTests {
    /// Removed with the suite's value, after each test.
    let folder: TemporaryDirectory
    var url: URL { folder.url.appendingPathComponent("store.json") }

    init() throws { folder = try TemporaryDirectory("stream") }

    func read(_ text: String) throws -> (streamed: ReservationSnapshot, whole: ReservationSnapshot) {
        try Data(text.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let store = JSONFileStore(url: url)
        return (try store.snapshot(), try store.read().ledger.snapshot)
    }

    static let hall =
        #"{"id": "11111111-2222-4333-8444-555555555555", "name": "Small Hall", "location": "Testville", "description": "", "category": "lakes", "capacity": 120}"#
    static func record(_ id: String, landmark: String = "11111111-2222-4333-8444-555555555555", party: Int = 2)
        -> String
    {
        #"{"id": "\#(id)", "landmarkId": "\#(landmark)", "date": "2030-06-01T10:00:00Z", "partySize": \#(party), "status": "confirmed"}"#
    }

    @Test(arguments: [true, false])
    func aCatalogBeforeOrAfterTheRecordsMapsThem(catalogFirst: Bool) throws {
        let landmarks = #""landmarks": [\#(Self.hall)]"#
        let reservations = #""reservations": [\#(Self.record("aaaaaaaa-0000-4000-8000-000000000001"))]"#
        let fields = catalogFirst ? [landmarks, reservations] : [reservations, landmarks]
        let (streamed, whole) = try read("{\"version\": 1, " + fields.joined(separator: ", ") + "}")
        #expect(streamed.reservations.map(\.landmark.name) == ["Small Hall"])
        #expect(streamed.rejected.isEmpty)
        #expect(streamed.reservations == whole.reservations)
    }

    @Test func recordsThatDoNotMapAreRejectedAtTheSamePlaces() throws {
        let records = [
            Self.record("aaaaaaaa-0000-4000-8000-000000000001"), #"{"id": "nope"}"#, "42",
            Self.record("aaaaaaaa-0000-4000-8000-000000000001"),
            Self.record("aaaaaaaa-0000-4000-8000-000000000002", landmark: "99999999-2222-4333-8444-555555555555"),
            Self.record("aaaaaaaa-0000-4000-8000-000000000003", party: 0),
            Self.record("aaaaaaaa-0000-4000-8000-000000000004"),
        ]
        let (streamed, whole) = try read(
            #"{"landmarks": [\#(Self.hall)], "version": 1, "reservations": [\#(records.joined(separator: ","))], "x": 1}"#
        )
        #expect(streamed.reservations.count == 2)
        #expect(streamed.reservations == whole.reservations)
        #expect(streamed.rejected.map(\.index) == [1, 2, 3, 4, 5])
        #expect(streamed.rejected.map(\.index) == whole.rejected.map(\.index))
        #expect(streamed.rejected.map(\.id) == whole.rejected.map(\.id))
    }

    @Test(arguments: [
        #"{"version": 1, "reservations": null}"#, #"{"version": 1}"#, #"{"version": 1, "reservations": []}"#,
    ])
    func noRecordsIsAnEmptyStore(text: String) throws {
        let (streamed, whole) = try read(text)
        #expect(streamed.reservations.isEmpty && streamed.rejected.isEmpty)
        #expect(whole.reservations.isEmpty)
    }

    @Test(arguments: [
        #"{"version": 1, "reservations": {}}"#, #"{"version": 2, "reservations": []}"#,
        #"{"version": 1, "reservations": [], "reservations": []}"#, #"{"version": 1, "reservations": [1,]}"#,
    ])
    func aBadStoreIsRefusedAsAWriteWouldRefuseIt(text: String) throws {
        try Data(text.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let store = JSONFileStore(url: url)
        let streamed = Result { try store.snapshot() }
        let whole = Result { try store.read() }
        guard case .failure(let a) = streamed, case .failure(let b) = whole else {
            Issue.record("both readings must refuse \(text)")
            return
        }
        #expect(a.localizedDescription == b.localizedDescription)
    }
}
