import Foundation
import MemoryEngine
import ResvTestKit
import Testing

@testable import ReservationCore
@testable import ReservationFile

/// Random reserve/cancel/confirm/modify/undo sequences never leave a day above
/// capacity, and every answer agrees with the model: on the file store and in
/// memory; and several clients of one store at once keep every day's sum.
@Suite("Capacity model: file and memory", .timeLimit(.minutes(30)))
struct CapacityPropertyTests {
    static let now = Date(timeIntervalSince1970: 1_780_000_000)  // 2026-05-28
    static let seeds: [UInt64] = [1, 2, 3, 20_261_121]

    /// The model's operations over one `ReservationService`.
    static func backend(_ service: ReservationService) -> CapacityModel.Backend {
        @Sendable func id(_ text: String) throws -> Reservation.ID {
            Reservation.ID(try #require(UUID(uuidString: text)))
        }
        return CapacityModel.Backend(
            reserve: { landmark, date, party, pending in
                let request = try NewReservation(
                    landmarkID: landmark.id, date: date, partySize: party, status: pending ? .pending : .confirmed,
                    now: now)
                do {
                    return .created(id: try await service.reserve(request).id.description)
                } catch let error as ReservationError {
                    guard case .noCapacity = error else { throw error }
                    return .refused(error.localizedDescription)
                }
            },
            cancel: { text in _ = try await service.cancel(try id(text)) },
            confirm: { text in
                do {
                    _ = try await service.confirm(try id(text))
                    return .confirmed
                } catch ReservationError.cannotConfirmCancelled {
                    return .conflict
                }
            },
            active: {
                try await service.fetch().reservations.active.map {
                    CapacityModel.Held(landmark: $0.landmark.id.description, date: $0.date, partySize: $0.partySize)
                }
            },
            availability: { landmark, first, last in
                try await service.availability(landmark.id.description) { _ in
                    try Capacity.days(from: first, through: last)
                }.days
            },
            modify: { text, date, party in
                let change = try ReservationChange(date: date, partySize: party)
                let reservation = try id(text)
                return try await .of { try await service.modify(reservation, change, nil) }
            },
            undo: { try await .of { try await service.undo() } }
        )
    }

    /// A store file in a new directory, with the model's landmarks as its own catalog
    /// (its landmarks list sets the capacities and zones), removed when `body` returns.
    static func withStore<T>(_ model: CapacityModel, _ body: (URL) async throws -> T) async throws -> T {
        return try await TemporaryDirectory.with("model") { folder in
            let directory = folder.url
            let url = directory.appendingPathComponent("store.json")
            try Data(#"{"version": 1, "landmarks": \#(model.catalogJSON), "reservations": []}"#.utf8).write(to: url)
            return try await body(url)
        }
    }

    @Test(arguments: seeds)
    func inMemory(seed: UInt64) async throws {
        let model = CapacityModel()
        let service = ReservationService.inMemory(
            catalog: LandmarkCatalog(model.landmarks), now: { Self.now }, clock: .continuous)
        let problems = try await model.run(seed: seed, steps: 300, on: Self.backend(service))
        #expect(problems.count == 0, "\(problems.prefix(5))")
    }

    @Test(arguments: seeds)
    func jsonFile(seed: UInt64) async throws {
        let model = CapacityModel()
        let problems = try await Self.withStore(model) { url in
            let service = ReservationService.jsonFile(JSONFileStore(url: url), now: { Self.now }, clock: .continuous)
            return try await model.run(seed: seed, steps: 100, on: Self.backend(service))
        }
        #expect(problems.count == 0, "\(problems.prefix(5))")
    }

    /// Four clients of one service in memory at once: the actor takes their changes one at a time.
    @Test func clientsOfOneMemoryBackendModifyAndUndoAtOnce() async throws {
        let model = CapacityModel()
        let service = ReservationService.inMemory(
            catalog: LandmarkCatalog(model.landmarks), now: { Self.now }, clock: .continuous)
        let client = Self.backend(service)
        let problems = try await model.runConcurrently(seed: 7, steps: 40, users: [Array(repeating: client, count: 4)])
        #expect(problems.count == 0, "\(problems.prefix(5))")
    }

    /// Four clients of one file, each with its own `JSONFileStore` (as four
    /// processes would be): only the file's lock keeps their changes apart.
    @Test func clientsOfOneFileModifyAndUndoAtOnce() async throws {
        let model = CapacityModel()
        let problems = try await Self.withStore(model) { url in
            let clients = (0..<4).map { _ in
                Self.backend(
                    ReservationService.jsonFile(JSONFileStore(url: url), now: { Self.now }, clock: .continuous))
            }
            return try await model.runConcurrently(seed: 11, steps: 25, users: [clients])
        }
        #expect(problems.count == 0, "\(problems.prefix(5))")
    }
}
