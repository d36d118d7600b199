import Foundation
import MemoryEngine
import ResvTestKit
import Testing

@testable import ReservationCore
@testable import ReservationFile

/// Random holds, waitlist requests, bookings, cancels, confirms and moves of
/// the clock, checked step by step against the hold model: on the file store
/// and in memory, where each write first ends the holds that have ended.
@Suite("Hold model: file and memory", .timeLimit(.minutes(30)))
struct HoldModelTests {
    static let seeds: [UInt64] = [1, 2, 3, 20_261_124]

    /// The model's operations over one `ReservationService`.
    static func backend(_ service: ReservationService, model: HoldModel, now: @escaping @Sendable () -> Date)
        -> HoldModel.Backend
    {
        @Sendable func id(_ text: String) throws -> Reservation.ID {
            Reservation.ID(try #require(UUID(uuidString: text)))
        }
        return HoldModel.Backend(
            reserve: { landmark, date, party, request in
                let made: NewReservation
                switch request {
                case .booking(let pending):
                    made = try NewReservation(
                        landmark: landmark.id.description, date: date, partySize: party,
                        status: pending ? .pending : .confirmed, now: now())
                case .waitlist(let pending):
                    made = try NewReservation(
                        landmark: landmark.id.description, date: date, partySize: party,
                        status: pending ? .pending : .confirmed, waitlist: true, now: now())
                case .hold(let seconds):
                    made = try NewReservation(
                        landmark: landmark.id.description, date: date, partySize: party, hold: seconds, now: now())
                }
                do {
                    let reservation = try await service.reserve([made])[0]
                    return .created(id: reservation.id.description, status: reservation.status)
                } catch ReservationError.batchRejected(let failures, _) where failures.count == 1 {
                    switch failures[0].error {
                    case .noCapacity: return .refused(failures[0].error.localizedDescription)
                    case .tooManyHolds: return .tooManyHolds
                    default: throw failures[0].error
                    }
                } catch ReservationError.tooManyHolds {
                    return .tooManyHolds
                }
            },
            cancel: { text in _ = try await service.cancel([try id(text)]) },
            confirm: { text in
                do {
                    _ = try await service.confirm([try id(text)])
                    return .confirmed
                } catch ReservationError.cannotConfirmCancelled {
                    return .cancelled
                } catch ReservationError.holdExpired {
                    return .holdExpired
                } catch ReservationError.cannotConfirmWaitlisted {
                    return .waitlisted
                }
            },
            read: {
                var read: [String: HoldModel.Reading] = [:]
                for reservation in try await service.fetch().reservations {
                    read[reservation.id.description] = HoldModel.Reading(
                        status: reservation.status, position: reservation.waitlistPosition,
                        day: model.day(landmarkID: reservation.landmark.id.description, date: reservation.date),
                        party: reservation.partySize)
                }
                return read
            },
            systemChanges: {
                var counts: [String: [HistoryEntry.Change: Int]] = [:]
                for entry in try await service.history(nil, nil) where entry.change.isSystem {
                    counts[entry.reservationID.description, default: [:]][entry.change, default: 0] += 1
                }
                return counts
            }
        )
    }

    static func start() -> Date { Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)) }

    @Test(arguments: seeds)
    func inMemory(seed: UInt64) async throws {
        let model = HoldModel()
        let clock = TestClock(Self.start())
        let service = ReservationService.inMemory(
            catalog: LandmarkCatalog(model.base.landmarks), now: clock.now, clock: .continuous)
        let system = HoldModel.System(
            users: [Self.backend(service, model: model, now: clock.now)], advance: { clock.advance(by: Double($0)) },
            sweep: nil,
            holdLimit: nil)
        let problems = try await model.run(seed: seed, steps: 300, start: clock.now(), on: system)
        #expect(problems.isEmpty, "\(problems.prefix(5))")
    }

    @Test(arguments: seeds)
    func jsonFile(seed: UInt64) async throws {
        let model = HoldModel()
        let clock = TestClock(Self.start())
        let problems = try await CapacityPropertyTests.withStore(model.base) { url in
            let service = ReservationService.jsonFile(JSONFileStore(url: url), now: clock.now, clock: .continuous)
            let system = HoldModel.System(
                users: [Self.backend(service, model: model, now: clock.now)],
                advance: { clock.advance(by: Double($0)) },
                sweep: nil, holdLimit: nil)
            return try await model.run(seed: seed, steps: 150, start: clock.now(), on: system)
        }
        #expect(problems.isEmpty, "\(problems.prefix(5))")
    }

    /// Four clients of one file, each with its own `JSONFileStore` (as four
    /// processes would be), holding, joining lists and cancelling at once while the clock moves.
    @Test func clientsOfOneFileHoldAndWaitAtOnce() async throws {
        let model = HoldModel()
        let clock = TestClock(Self.start())
        let problems = try await CapacityPropertyTests.withStore(model.base) { url in
            let services = (0..<4).map { _ in
                ReservationService.jsonFile(JSONFileStore(url: url), now: clock.now, clock: .continuous)
            }
            let clients = services.map { Self.backend($0, model: model, now: clock.now) }
            let system = HoldModel.System(
                users: [clients[0]], advance: { clock.advance(by: Double($0)) }, sweep: nil, holdLimit: nil)
            return try await model.runConcurrently(
                seed: 5, steps: 40, clients: clients, system: system,
                settle: { _ = try await services[0].cancel([]) })
        }
        #expect(problems.isEmpty, "\(problems.prefix(5))")
    }

    /// Four clients of one service in memory at once.
    @Test func clientsOfOneMemoryBackendHoldAndWaitAtOnce() async throws {
        let model = HoldModel()
        let clock = TestClock(Self.start())
        let service = ReservationService.inMemory(
            catalog: LandmarkCatalog(model.base.landmarks), now: clock.now, clock: .continuous)
        let client = Self.backend(service, model: model, now: clock.now)
        let system = HoldModel.System(
            users: [client], advance: { clock.advance(by: Double($0)) }, sweep: nil, holdLimit: nil)
        let problems = try await model.runConcurrently(
            seed: 6, steps: 60, clients: Array(repeating: client, count: 4), system: system,
            settle: { _ = try await service.cancel([]) })
        #expect(problems.isEmpty, "\(problems.prefix(5))")
    }

    /// A waitlisted reservation moved to a landmark without a capacity has nothing
    /// to wait for: it takes the status it asked for in the change itself (the
    /// user's `modified`, no promotion), and its undo puts it back on the list.
    @Test func aWaitlistedOneMovedWhereThereIsNoCapacityIsBookedByTheChange() async throws {
        let model = HoldModel()
        let open = Landmark(
            id: Landmark.ID(UUID()), name: "Open Field", location: "Nowhere", description: "No limit.",
            category: .lakes, capacity: nil, timeZone: TimeZone(identifier: "UTC"))
        let clock = TestClock(Self.start())
        let service = ReservationService.inMemory(
            catalog: LandmarkCatalog(model.base.landmarks + [open]), now: clock.now, clock: .continuous)
        let tower = model.base.landmarks[0]  // 5 a day
        let date = try #require(model.base.date(0, 0, time: 1))
        _ = try await service.reserve([
            try NewReservation(landmark: tower.id.description, date: date, partySize: 5, now: clock.now())
        ])
        let waiting = try await service.reserve([
            try NewReservation(
                landmark: tower.id.description, date: date, partySize: 2, status: .pending, waitlist: true,
                now: clock.now())
        ])[0]
        #expect(waiting.status == .waitlisted)
        let moved = try await service.modify(waiting.id, try ReservationChange(landmark: open.id.description), nil)
        #expect(moved.status == .pending, "the status it asked for")
        #expect(moved.landmark.id == open.id)
        #expect(moved.waitlistPosition == nil)
        let history = try await service.history(waiting.id, nil).map(\.change)
        #expect(history == [.modified, .created], "the user's own change, not the system's")
        let undone = try await service.undo()
        #expect(undone.changes.map { $0.after.status } == ["waitlisted"])
        let back = try #require(try await service.fetch().reservations.first { $0.id == waiting.id })
        #expect(back.status == .waitlisted && back.landmark.id == tower.id && back.waitlistPosition == 1)
    }
}
