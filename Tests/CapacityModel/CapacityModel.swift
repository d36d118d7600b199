import Foundation
import ReservationCore

/// A model-based check of the capacity rule, shared by the test suites of
/// every backend: a seeded random sequence of reserve, cancel and confirm is
/// run against a backend and against a plain model of what it should hold;
/// every answer must agree with the model, and no day may ever hold more
/// people than its landmark's capacity.
public struct CapacityModel: Sendable {
    /// What a backend answered to a reserve.
    public enum Booking: Sendable {
        case created(id: String)
        /// Refused, with the message a user would read.
        case refused(String)
    }

    /// What a backend answered to a confirm.
    public enum Confirmation: Sendable {
        case confirmed
        /// Refused because the reservation is cancelled.
        case conflict
    }

    /// One active reservation as the backend holds it.
    public struct Held: Sendable {
        public var landmark: String
        public var date: Date
        public var partySize: Int

        public init(landmark: String, date: Date, partySize: Int) {
            self.landmark = landmark
            self.date = date
            self.partySize = partySize
        }
    }

    /// The operations every backend offers, as the test drives it.
    public struct Backend: Sendable {
        public var reserve:
            @Sendable (_ landmark: Landmark, _ date: Date, _ partySize: Int, _ pending: Bool) async throws -> Booking
        public var cancel: @Sendable (_ id: String) async throws -> Void
        public var confirm: @Sendable (_ id: String) async throws -> Confirmation
        /// Every active reservation the backend holds, whoever made it.
        public var active: @Sendable () async throws -> [Held]
        public var availability:
            @Sendable (_ landmark: Landmark, _ first: CalendarDay, _ last: CalendarDay) async throws ->
                [DayAvailability]

        public init(
            reserve: @escaping @Sendable (Landmark, Date, Int, Bool) async throws -> Booking,
            cancel: @escaping @Sendable (String) async throws -> Void,
            confirm: @escaping @Sendable (String) async throws -> Confirmation,
            active: @escaping @Sendable () async throws -> [Held],
            availability: @escaping @Sendable (Landmark, CalendarDay, CalendarDay) async throws -> [DayAvailability]
        ) {
            self.reserve = reserve
            self.cancel = cancel
            self.confirm = confirm
            self.active = active
            self.availability = availability
        }
    }

    /// Two small landmarks with fresh ids (so runs sharing a database never
    /// meet): capacity 5 in Auckland (UTC+13 in December) and 3 in California.
    public let landmarks: [Landmark]
    /// The days the sequence books: December 1 to 3, 2030, local to each landmark.
    public let days: [CalendarDay]

    public init() {
        landmarks = [
            Landmark(
                id: Landmark.ID(UUID()), name: "Tiny Tower \(UUID().uuidString.prefix(6))", location: "Auckland",
                description: "A tower for tests.", category: .mountains, capacity: 5,
                timeZone: TimeZone(identifier: "Pacific/Auckland")),
            Landmark(
                id: Landmark.ID(UUID()), name: "Small Lake \(UUID().uuidString.prefix(6))", location: "California",
                description: "A lake for tests.", category: .lakes, capacity: 3,
                timeZone: TimeZone(identifier: "America/Los_Angeles")),
        ]
        days = ["2030-12-01", "2030-12-02", "2030-12-03"].compactMap(CalendarDay.init)
    }

    /// The landmarks as a JSON array (for a store's `landmarks` or `resv-server --landmarks`).
    public var catalogJSON: String {
        String(decoding: JSONValue.array(landmarks.map { LandmarkApiModel($0).json }).encoded(), as: UTF8.self)
    }

    /// Runs `steps` random operations from `seed`; returns every disagreement
    /// with the model (empty when the backend kept the rule throughout).
    public func run(seed: UInt64, steps: Int, on backend: Backend) async throws -> [String] {
        var random = SeededRandom(seed: seed)
        var problems: [String] = []
        // id -> (landmark index, day index, party, status)
        var held: [String: (landmark: Int, day: Int, party: Int, status: Reservation.Status)] = [:]
        var ids: [String] = []

        func taken(_ landmark: Int, _ day: Int) -> Int {
            held.values.filter { $0.landmark == landmark && $0.day == day && $0.status.isActive }.reduce(0) {
                $0 + $1.party
            }
        }

        for step in 0..<steps {
            let choice = random.next(below: 10)
            if choice < 6 || ids.isEmpty {
                let landmarkIndex = random.next(below: landmarks.count)
                let dayIndex = random.next(below: days.count)
                let landmark = landmarks[landmarkIndex]
                // Local midnight, noon, or 23:30, the last minutes of the local day.
                let (hour, minute) = [(0, 0), (12, 0), (23, 30)][random.next(below: 3)]
                let day = days[dayIndex]
                let calendar = Capacity.calendar(for: landmark)
                guard
                    let date = calendar.date(
                        from: DateComponents(year: day.year, month: day.month, day: day.day, hour: hour, minute: minute)
                    )
                else { continue }
                let party = 1 + random.next(below: 3)
                let pending = random.next(below: 2) == 0
                let before = taken(landmarkIndex, dayIndex)
                let fits = before + party <= (landmark.capacity ?? .max)
                switch try await backend.reserve(landmark, date, party, pending) {
                case .created(let id):
                    if !fits {
                        problems.append(
                            "step \(step): booked \(party) at \(landmark.name) on \(day) with \(before) taken")
                    }
                    held[id] = (landmarkIndex, dayIndex, party, pending ? .pending : .confirmed)
                    ids.append(id)
                case .refused(let message):
                    let capacity = landmark.capacity ?? 0
                    let expected =
                        party > capacity
                        ? "a party of \(party) is larger than \(landmark.name)'s capacity of \(capacity) a day"
                        : "\(landmark.name) is full on \(day): \(before) of \(capacity) places taken, \(party) requested"
                    if fits { problems.append("step \(step): refused \(party) with \(before) taken: \(message)") }
                    if message != expected { problems.append("step \(step): '\(message)', expected '\(expected)'") }
                }
            } else if choice < 8 {
                let id = ids[random.next(below: ids.count)]
                try await backend.cancel(id)
                held[id]?.status = .cancelled
            } else {
                let id = ids[random.next(below: ids.count)]
                let answer = try await backend.confirm(id)
                switch (answer, held[id]?.status) {
                case (.conflict, .cancelled?): break
                case (.confirmed, .pending?), (.confirmed, .confirmed?): held[id]?.status = .confirmed
                default:
                    problems.append(
                        "step \(step): confirm \(id) answered \(answer) for \(String(describing: held[id]?.status))")
                }
            }
            if step % 10 == 9 || step == steps - 1 {
                problems += try await check(after: step, backend: backend, expected: taken)
            }
        }
        return problems
    }

    /// What the backend holds, day by day, against the capacity and the model.
    private func check(after step: Int, backend: Backend, expected: (Int, Int) -> Int) async throws -> [String] {
        var problems: [String] = []
        let active = try await backend.active()
        for (landmarkIndex, landmark) in landmarks.enumerated() {
            let calendar = Capacity.calendar(for: landmark)
            let availability = try await backend.availability(landmark, days[0], days[days.count - 1])
            if availability.map(\.day) != days {
                problems.append("step \(step): availability of \(landmark.name) covers \(availability.map(\.day))")
            }
            for (dayIndex, day) in days.enumerated() {
                let stored = active.filter {
                    $0.landmark == landmark.id.description && CalendarDay($0.date, in: calendar) == day
                }.reduce(0) { $0 + $1.partySize }
                let capacity = landmark.capacity ?? .max
                if stored > capacity {
                    problems.append("step \(step): \(landmark.name) holds \(stored) on \(day), over \(capacity)")
                }
                if stored != expected(landmarkIndex, dayIndex) {
                    problems.append(
                        "step \(step): \(landmark.name) holds \(stored) on \(day), model \(expected(landmarkIndex, dayIndex))"
                    )
                }
                if let shown = availability.first(where: { $0.day == day }),
                    shown.taken != stored || shown.capacity != landmark.capacity
                {
                    problems.append(
                        "step \(step): availability says \(shown) for \(landmark.name) on \(day), stored \(stored)")
                }
            }
        }
        return problems
    }
}

/// A backend answered what none of the model's outcomes allows (a status, an exit code).
public struct ModelFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// SplitMix64: the same sequence for the same seed on every machine.
public struct SeededRandom: Sendable, RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public mutating func next(below bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
