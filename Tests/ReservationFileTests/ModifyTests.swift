import Foundation
import MemoryEngine
import ResvTestKit
import Testing

@testable import ReservationCore
@testable import ReservationFile

/// The modify table (Tests/ResvTestKit/ModifyCases.swift) on the memory and
/// file backends, and what the file keeps of a change.
@Suite("Modify on memory and file", .timeLimit(.minutes(30)))
struct ModifyTests {
    /// Where the file backend's store is, removed after each test.
    let folder: TemporaryDirectory

    init() throws { folder = try TemporaryDirectory("modify") }

    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case memory, file
        var testDescription: String { rawValue }
    }

    static func service(_ kind: Kind, hall: Landmark, in folder: TemporaryDirectory) throws -> (
        ReservationService, URL?
    ) {
        try service(kind, landmarks: [hall], in: folder)
    }

    static func service(
        _ kind: Kind, landmarks: [Landmark], in folder: TemporaryDirectory
    ) throws -> (ReservationService, URL?) {
        switch kind {
        case .memory:
            return (.inMemory(catalog: LandmarkCatalog(landmarks), now: { Date() }, clock: .continuous), nil)
        case .file:
            let url = folder.url.appendingPathComponent("store.json")
            let document = JSONValue.object([
                "version": .integer(1), "reservations": .array([]),
                "landmarks": .array(landmarks.map { LandmarkApiModel($0).json }),
            ])
            try Data(document.encoded()).write(to: url)
            return (.jsonFile(JSONFileStore(url: url), now: { Date() }, clock: .continuous), url)
        }
    }

    @Test(arguments: Kind.allCases, ModifyCase.all.indices)
    func modifyRules(kind: Kind, index: Int) async throws {
        let hall = ModifyCase.hall()
        let (service, _) = try Self.service(kind, hall: hall, in: folder)
        let problems = try await ModifyCase.all[index].run(on: ModifyCase.backend(service), at: hall)
        #expect(problems.isEmpty, "\(problems)")
    }

    /// A hall in `zone`, with a fresh id.
    static func hall(_ name: String, zone: String) -> Landmark {
        Landmark(
            id: Landmark.ID(UUID()), name: name, location: "Testville", description: "", category: .lakes,
            capacity: 120, timeZone: TimeZone(identifier: zone))
    }

    /// A move to another landmark without a date keeps the visitor's clock (issue 60): 09:00 in
    /// Los Angeles is 09:00 in New York, by the core's rule (`Booking.modify`), and recorded so.
    @Test(arguments: Kind.allCases)
    func aMoveKeepsTheTimeOfDay(kind: Kind) async throws {
        let west = Self.hall("West Hall", zone: "America/Los_Angeles")
        let east = Self.hall("East Hall", zone: "America/New_York")
        let berlin = Self.hall("Berlin Hall", zone: "Europe/Berlin")
        let (service, _) = try Self.service(kind, landmarks: [west, east, berlin], in: folder)
        // 2100-03-01 09:00 PST (17:00 UTC).
        let nine = ModifyCase.date(0, hour: 17)
        let created = try await service.reserve(
            NewReservation(landmarkID: west.id, date: nine, partySize: 4, now: Date()))
        let moved = try await service.modify(created.id, ReservationChange(landmark: east.id.description), 1)
        #expect(moved.landmark.id == east.id)
        #expect(DateTime.format(moved.date) == "2100-03-01T14:00:00Z", "09:00 EST")
        // A date given is the date kept; a party change alone moves nothing.
        let grown = try await service.modify(created.id, ReservationChange(partySize: 5), nil)
        #expect(grown.date == moved.date)
        let back = try await service.modify(
            created.id, ReservationChange(date: nine, landmark: berlin.id.description), nil)
        #expect(back.date == nine, "a date given is not moved")
        let entries = try await service.history(created.id, nil)
        let first = try #require(entries.last { $0.change == .modified })
        #expect(first.before?.date == DateTime.format(nine) && first.after.date == DateTime.format(moved.date))
    }

    @Test(arguments: Kind.allCases)
    func aChangeIsTheNextVersionWithItsTimes(kind: Kind) async throws {
        let hall = ModifyCase.hall()
        let (service, url) = try Self.service(kind, hall: hall, in: folder)
        let created = try await service.reserve(
            NewReservation(landmarkID: hall.id, date: ModifyCase.date(0), partySize: 4, now: Date()))
        #expect(created.version == 1)
        let createdAt = try #require(created.createdAt)
        #expect(createdAt.timeIntervalSince1970 == createdAt.timeIntervalSince1970.rounded(.down))
        #expect(created.updatedAt == createdAt)
        let modified = try await service.modify(created.id, ReservationChange(note: "bring water"), 1)
        #expect(modified.version == 2)
        #expect(modified.note == "bring water")
        #expect(modified.createdAt == createdAt)
        let cancelled = try await service.cancel(created.id)
        #expect(cancelled.reservation.version == 3)
        #expect(cancelled.reservation.note == "bring water")
        let read = try #require(try await service.fetch().reservations.first)
        #expect(read == cancelled.reservation)
        // An empty note removes it; a cancelled reservation refuses even that.
        await #expect(throws: ReservationError.self) {
            try await service.modify(created.id, ReservationChange(note: ""), nil)
        }
        if let url {
            let text = try String(contentsOf: url, encoding: .utf8)
            #expect(text.contains("\"version\""))
            #expect(text.contains("\"createdAt\""))
            #expect(text.contains("bring water"))
        }
    }

    @Test func anOldRecordMapsAtVersionOneAndKeepsUnknownFieldsThroughAModify() async throws {
        let hall = ModifyCase.hall()
        let (_, optionalURL) = try Self.service(.file, hall: hall, in: folder)
        let url = try #require(optionalURL)
        let id = UUID().uuidString.lowercased()
        let old = JSONValue.object([
            "id": .string(id), "landmarkId": .string(hall.id.description),
            "date": .string(DateTime.format(ModifyCase.date(0))), "partySize": .integer(3),
            "status": .string("confirmed"), "colour": .string("teal"),
        ])
        let document = JSONValue.object([
            "version": .integer(1), "reservations": .array([old]), "landmarks": .array([LandmarkApiModel(hall).json]),
        ])
        try Data(document.encoded()).write(to: url)
        let service = ReservationService.jsonFile(JSONFileStore(url: url), now: { Date() }, clock: .continuous)
        let read = try #require(try await service.fetch().reservations.first)
        #expect(read.version == 1)
        #expect(read.createdAt == nil)
        let modified = try await service.modify(read.id, ReservationChange(partySize: 5), 1)
        #expect(modified.version == 2)
        #expect(modified.updatedAt != nil)
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.contains("teal"))
        // A stale version is refused by the store, under its lock.
        await #expect(throws: ReservationError.self) {
            try await service.modify(read.id, ReservationChange(partySize: 6), 1)
        }
    }

    @Test(arguments: Kind.allCases)
    func everyChangeIsInTheHistoryNewestFirst(kind: Kind) async throws {
        let hall = ModifyCase.hall()
        let (service, url) = try Self.service(kind, hall: hall, in: folder)
        let batch = try await service.reserve(
            (0..<3).map { _ in
                try NewReservation(landmarkID: hall.id, date: ModifyCase.date(0), partySize: 50, now: Date())
            }
            .prefix(2).map { $0 })
        let one = batch[0].id
        _ = try await service.modify(one, ReservationChange(partySize: 60, note: "n"), 1)
        // A refused change writes nothing, in the history either.
        await #expect(throws: ReservationError.self) {
            try await service.modify(one, ReservationChange(partySize: 80), 2)
        }
        _ = try await service.cancel(batch.map(\.id))
        let all = try await service.history(nil, nil)
        #expect(all.map(\.change) == [.cancelled, .cancelled, .modified, .created, .created])
        // One command, one id: a batch and a multi-id cancel are one step each.
        #expect(Set(all[0...1].map(\.command)).count == 1)
        #expect(Set(all[3...4].map(\.command)).count == 1)
        #expect(all[2].before?.partySize == 50)
        #expect(all[2].after.partySize == 60)
        #expect(all[2].after.note == "n")
        let mine = try await service.history(one, nil)
        #expect(mine.map(\.change) == [.cancelled, .modified, .created])
        // A limit keeps the newest, of all or of one reservation's; past the count, all.
        #expect(try await service.history(nil, 2) == Array(all.prefix(2)))
        #expect(try await service.history(one, 2) == Array(mine.prefix(2)))
        #expect(try await service.history(one, .max) == mine)
        if let url {
            // Kept in the journal beside the store file, one change a line, numbered; never in the store.
            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
            #expect(document["history"] == nil)
            #expect(document["lastChange"] as? Int == 5)
            let lines = try String(contentsOf: url.appendingPathExtension("history"), encoding: .utf8)
                .split(separator: "\n")
            #expect(lines.count == 5)
            #expect(lines.map { $0.contains("\"seq\":") } == Array(repeating: true, count: 5))
        }
    }

    @Test func aChangeIsCheckedBeforeAnyBackend() {
        #expect(throws: ReservationError.self) { try ReservationChange() }
        #expect(throws: ReservationError.self) { try ReservationChange(partySize: 0) }
        #expect(throws: ReservationError.self) { try ReservationChange(partySize: 10_001) }
        #expect(throws: ReservationError.self) {
            try ReservationChange(note: String(repeating: "x", count: Reservation.noteLimit + 1))
        }
        #expect((try? ReservationChange(note: String(repeating: "é", count: Reservation.noteLimit))) != nil)
    }

    /// Twelve concurrent moves of 10 people onto a 120-place day holding 30: exactly nine fit.
    @Test(arguments: Kind.allCases)
    func concurrentMovesNeverOverfillTheDay(kind: Kind) async throws {
        let hall = ModifyCase.hall()
        let (service, _) = try Self.service(kind, hall: hall, in: folder)
        _ = try await service.reserve(
            NewReservation(landmarkID: hall.id, date: ModifyCase.date(1), partySize: 30, now: Date()))
        var ids: [Reservation.ID] = []
        for _ in 0..<12 {
            ids.append(
                try await service.reserve(
                    NewReservation(landmarkID: hall.id, date: ModifyCase.date(0), partySize: 10, now: Date())
                ).id)
        }
        let moved = try await withThrowingTaskGroup(of: Bool.self) { group in
            for id in ids {
                group.addTask {
                    do {
                        _ = try await service.modify(id, ReservationChange(date: ModifyCase.date(1, hour: 12)), 1)
                        return true
                    } catch ReservationError.noCapacity { return false }
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(moved == 9)
        let backend = ModifyCase.backend(service)
        #expect(try await backend.booked(hall, ModifyCase.date(1)) == 120)
        #expect(try await backend.booked(hall, ModifyCase.date(0)) == 30)
    }
}
