import Foundation
import ReservationCore

/// The rules of a modify as a table, run on every backend (memory, file,
/// SQLite, PostgreSQL) through the few operations each one's test adapts: a
/// 120-place landmark, other parties already on its days, one reservation of
/// "mine", one change, and what must follow.
public struct ModifyCase: Sendable, CustomStringConvertible {
    /// A 120-place landmark in UTC, with a fresh id (a shared PostgreSQL database keeps other tests' rows).
    public static func hall() -> Landmark {
        Landmark(
            id: Landmark.ID(UUID()), name: "Small Hall", location: "Testville", description: "", category: .lakes,
            capacity: 120)
    }

    /// Day `n` of the table at 10:00 UTC (2100-03-01 is day 0).
    public static func date(_ day: Int, hour: Int = 10) -> Date {
        Date(timeIntervalSince1970: 4_107_542_400 + Double(day) * 86_400 + Double(hour) * 3_600)
    }

    /// What a backend answered to a modify.
    public enum Answer: Sendable, Equatable {
        case modified(day: Int, partySize: Int, note: String?, version: Int)
        case noCapacity(booked: Int, requested: Int)
        case cancelled
        case stale
        case other(String)
    }

    /// The operations a backend's test adapts.
    public struct Backend: Sendable {
        public var reserve: @Sendable (_ landmark: Landmark, _ date: Date, _ partySize: Int) async throws -> String
        public var cancel: @Sendable (_ id: String) async throws -> Void
        public var modify:
            @Sendable (_ id: String, _ date: Date?, _ partySize: Int?, _ note: String?, _ version: Int?) async throws
                -> Answer
        /// People on the day of `date` at the landmark.
        public var booked: @Sendable (_ landmark: Landmark, _ date: Date) async throws -> Int

        public init(
            reserve: @escaping @Sendable (Landmark, Date, Int) async throws -> String,
            cancel: @escaping @Sendable (String) async throws -> Void,
            modify: @escaping @Sendable (String, Date?, Int?, String?, Int?) async throws -> Answer,
            booked: @escaping @Sendable (Landmark, Date) async throws -> Int
        ) {
            self.reserve = reserve
            self.cancel = cancel
            self.modify = modify
            self.booked = booked
        }
    }

    public var description: String
    /// Parties of others already booked: (day, party).
    public var others: [(day: Int, party: Int)]
    public var mine: (day: Int, party: Int)
    public var cancelledFirst = false
    public var change: (day: Int?, party: Int?, note: String?)
    /// Sent as the expected version: nil for the version just read, else this one.
    public var version: Int? = nil
    public var expected: Answer
    /// People on each day afterwards: (day, booked).
    public var after: [(day: Int, booked: Int)]

    public static let all: [ModifyCase] = [
        ModifyCase(
            description: "a party of 100 on a 120-place day grows to 110", others: [], mine: (0, 100),
            change: (nil, 110, nil), expected: .modified(day: 0, partySize: 110, note: nil, version: 2),
            after: [(0, 110)]),
        ModifyCase(
            description: "a party grows to fill the day exactly", others: [(0, 20)], mine: (0, 50),
            change: (nil, 100, nil), expected: .modified(day: 0, partySize: 100, note: nil, version: 2),
            after: [(0, 120)]),
        ModifyCase(
            description: "a party that would pass the day is refused with the numbers", others: [(0, 15)],
            mine: (0, 100), change: (nil, 110, nil), expected: .noCapacity(booked: 15, requested: 110),
            after: [(0, 115)]),
        ModifyCase(
            description: "a move to a full day is refused and changes nothing", others: [(1, 115)], mine: (0, 10),
            change: (1, nil, nil), expected: .noCapacity(booked: 115, requested: 10), after: [(0, 10), (1, 115)]),
        ModifyCase(
            description: "a move frees the old day at once", others: [(0, 110), (1, 100)], mine: (0, 10),
            change: (1, 20, nil), expected: .modified(day: 1, partySize: 20, note: nil, version: 2),
            after: [(0, 110), (1, 120)]),
        ModifyCase(
            description: "a smaller party on an overfull day is no refusal", others: [(0, 110)], mine: (0, 10),
            change: (nil, 5, nil), expected: .modified(day: 0, partySize: 5, note: nil, version: 2),
            after: [(0, 115)]),
        ModifyCase(
            description: "a note alone is a change", others: [(0, 120 - 4)], mine: (0, 4),
            change: (nil, nil, "wheelchair \u{1B}[31m access"),
            expected: .modified(day: 0, partySize: 4, note: "wheelchair \u{1B}[31m access", version: 2),
            after: [(0, 120)]),
        ModifyCase(
            description: "a cancelled reservation cannot be modified", others: [], mine: (0, 4), cancelledFirst: true,
            change: (1, nil, nil), expected: .cancelled, after: [(0, 0), (1, 0)]),
        ModifyCase(
            description: "a stale version is refused and changes nothing", others: [], mine: (0, 4),
            change: (nil, 8, nil), version: 7, expected: .stale, after: [(0, 4)]),
    ]

    /// Runs the case on `backend` at `hall` (from `hall()`, in the backend's catalog); returns what went wrong (empty when all is well).
    public func run(on backend: Backend, at hall: Landmark) async throws -> [String] {
        for other in others { _ = try await backend.reserve(hall, Self.date(other.day, hour: 9), other.party) }
        let id = try await backend.reserve(hall, Self.date(mine.day), mine.party)
        var version = 1
        if cancelledFirst {
            try await backend.cancel(id)
            version = 2
        }
        let answer = try await backend.modify(
            id, change.day.map { Self.date($0) }, change.party, change.note, self.version ?? version)
        var problems: [String] = []
        if answer != expected { problems.append("\(description): answered \(answer), expected \(expected)") }
        for (day, booked) in after {
            let found = try await backend.booked(hall, Self.date(day))
            if found != booked { problems.append("\(description): day \(day) holds \(found), expected \(booked)") }
        }
        return problems
    }

    /// The answer of a `ReservationService.modify`, as the table states it.
    public static func answer(_ body: () async throws -> Reservation) async -> Answer {
        do {
            let reservation = try await body()
            let day = Int((reservation.date.timeIntervalSince1970 - 4_107_542_400) / 86_400)
            return .modified(
                day: day, partySize: reservation.partySize, note: reservation.note, version: reservation.version)
        } catch ReservationError.noCapacity(_, _, let requested, let booked) {
            return .noCapacity(booked: booked, requested: requested)
        } catch ReservationError.cannotModifyCancelled {
            return .cancelled
        } catch ReservationError.versionMismatch {
            return .stale
        } catch {
            return .other("\(error)")
        }
    }

    /// The adapter of a `ReservationService` (memory, file).
    public static func backend(_ service: ReservationService) -> Backend {
        Backend(
            reserve: { landmark, date, party in
                try await service.reserve(
                    NewReservation(landmarkID: landmark.id, date: date, partySize: party, now: Date())
                ).id.description
            },
            cancel: { id in _ = try await service.cancel(Reservation.ID(id)!) },
            modify: { id, date, party, note, version in
                await answer {
                    try await service.modify(
                        Reservation.ID(id)!, ReservationChange(date: date, partySize: party, note: note), version)
                }
            },
            booked: { landmark, date in
                let calendar = Capacity.calendar(for: landmark)
                guard let day = Capacity.Day(of: date, in: calendar) else { return 0 }
                return try await service.fetch().reservations.filter {
                    $0.landmark.id == landmark.id && $0.status.isActive && $0.date >= day.start && $0.date < day.end
                }.reduce(0) { $0 + $1.partySize }
            })
    }
}
