import CapacityModel
import Foundation
import Testing

@testable import ReservationCore
@testable import ReservationFile

/// Random reserve/cancel/confirm sequences never leave a day above capacity,
/// and every answer agrees with the model: on the file store and in memory.
@Suite("Capacity model: file and memory")
struct CapacityPropertyTests {
    static let now = Date(timeIntervalSince1970: 1_780_000_000)  // 2026-05-28
    static let seeds: [UInt64] = [1, 2, 3, 20_261_121]

    /// The model's operations over one `ReservationService`.
    static func backend(_ service: ReservationService) -> CapacityModel.Backend {
        CapacityModel.Backend(
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
            cancel: { id in _ = try await service.cancel(Reservation.ID(try #require(UUID(uuidString: id)))) },
            confirm: { id in
                do {
                    _ = try await service.confirm(Reservation.ID(try #require(UUID(uuidString: id))))
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
            }
        )
    }

    @Test(arguments: seeds)
    func inMemory(seed: UInt64) async throws {
        let model = CapacityModel()
        let service = ReservationService.inMemory(catalog: LandmarkCatalog(model.landmarks), now: { Self.now })
        let problems = try await model.run(seed: seed, steps: 300, on: Self.backend(service))
        #expect(problems.count == 0, "\(problems.prefix(5))")
    }

    @Test(arguments: seeds)
    func jsonFile(seed: UInt64) async throws {
        let model = CapacityModel()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("resv-model-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("store.json")
        // The store's own catalog: its landmarks list sets the capacities and zones.
        try Data(#"{"version": 1, "landmarks": \#(model.catalogJSON), "reservations": []}"#.utf8).write(to: url)
        let service = ReservationService.jsonFile(JSONFileStore(url: url), now: { Self.now })
        let problems = try await model.run(seed: seed, steps: 150, on: Self.backend(service))
        #expect(problems.count == 0, "\(problems.prefix(5))")
    }
}
