import Foundation
import ReservationCore

/// A model checker for holds, their ends and waitlists (docs/contracts.md, "Holds and
/// waitlists"), shared by the test suites of every backend: a seeded random
/// sequence of bookings, holds, waitlist requests, cancels, confirms, moves of
/// the clock the test holds and (on a server) sweeps is run against a backend
/// and against a plain model of the rules; after every step each reservation
/// must read as the model says (status, and place on its day's list), no day
/// may hold more people than its capacity, and every hold's end and every
/// promotion must be recorded exactly once.
///
/// The model writes as the rules do: a write that counts a day first ends the
/// holds there that have ended; a change that frees places promotes that
/// day's list in order of joining, each that fits; a refused write keeps
/// nothing. A file store (`settlesEveryWrite`) also ends every ended hold,
/// and promotes, at the start of each write and of each read (no server
/// ends them there); a server does it in its sweep.
public struct HoldModel: Sendable {
    /// How a reservation is asked for.
    public enum Request: Sendable, Hashable {
        case booking(pending: Bool)
        case hold(seconds: Int)
        case waitlist(pending: Bool)
    }

    /// What a backend answered to a request.
    public enum Answer: Sendable, Hashable {
        case created(id: String, status: Reservation.Status)
        /// Refused for capacity, with the message a user would read.
        case refused(String)
        /// Refused: the user has as many live holds as allowed.
        case tooManyHolds
    }

    /// What a backend answered to a confirm.
    public enum Confirmation: Sendable, Hashable {
        case confirmed
        case cancelled
        case holdExpired
        case waitlisted
    }

    /// A reservation as a backend shows it: its status and, when waitlisted,
    /// its place on the list; with its landmark-day and party when the backend tells them.
    public struct Reading: Sendable, Hashable, CustomStringConvertible {
        public var status: Reservation.Status
        public var position: Int?
        /// `landmarkId day-at-the-landmark` (`HoldModel.day`); nil in the model's own readings.
        public var day: String?
        public var party: Int?

        public init(status: Reservation.Status, position: Int?, day: String? = nil, party: Int? = nil) {
            self.status = status
            self.position = position
            self.day = day
            self.party = party
        }

        /// Only what the model predicts: the status and the place on the list.
        var predicted: Reading { Reading(status: status, position: position) }

        public var description: String { status.rawValue + (position.map { " #\($0)" } ?? "") }
    }

    /// One user's client of a backend.
    public struct Backend: Sendable {
        public var reserve:
            @Sendable (_ landmark: Landmark, _ date: Date, _ partySize: Int, _ request: Request) async throws -> Answer
        public var cancel: @Sendable (_ id: String) async throws -> Void
        public var confirm: @Sendable (_ id: String) async throws -> Confirmation
        /// This user's reservations, as read now.
        public var read: @Sendable () async throws -> [String: Reading]
        /// How many `expired` and `promoted` entries this user's history has for each reservation.
        public var systemChanges: @Sendable () async throws -> [String: [HistoryEntry.Change: Int]]

        public init(
            reserve: @escaping @Sendable (Landmark, Date, Int, Request) async throws -> Answer,
            cancel: @escaping @Sendable (String) async throws -> Void,
            confirm: @escaping @Sendable (String) async throws -> Confirmation,
            read: @escaping @Sendable () async throws -> [String: Reading],
            systemChanges: @escaping @Sendable () async throws -> [String: [HistoryEntry.Change: Int]]
        ) {
            self.reserve = reserve
            self.cancel = cancel
            self.confirm = confirm
            self.read = read
            self.systemChanges = systemChanges
        }
    }

    /// The backend as a whole: its users' clients, the clock, and how it ends holds.
    public struct System: Sendable {
        public var users: [Backend]
        /// Moves the clock the backend reads.
        public var advance: @Sendable (_ seconds: Int) -> Void
        /// A server's sweep (nil for a backend that ends holds at each write).
        public var sweep: (@Sendable () async throws -> Void)?
        /// Live holds allowed a user (nil: no limit).
        public var holdLimit: Int?

        public init(
            users: [Backend], advance: @escaping @Sendable (Int) -> Void, sweep: (@Sendable () async throws -> Void)?,
            holdLimit: Int?
        ) {
            self.users = users
            self.advance = advance
            self.sweep = sweep
            self.holdLimit = holdLimit
        }
    }

    /// The landmarks (capacity 5 and 3), days and times of the capacity model.
    public let base = CapacityModel()

    public init() {}

    /// A reservation's landmark-day, as `Reading.day` names it: nil for a landmark not the model's.
    public func day(landmarkID: String, date: Date) -> String? {
        guard let landmark = base.landmarks.first(where: { $0.id.description == landmarkID }) else { return nil }
        return "\(landmarkID) \(CalendarDay(date, in: Capacity.calendar(for: landmark)))"
    }

    /// Runs `steps` random operations from `seed`, the clock starting at `start`
    /// (whole seconds); returns every disagreement with the model.
    public func run(seed: UInt64, steps: Int, start: Date, on system: System) async throws -> [String] {
        guard !system.users.isEmpty else { return ["no backend to run on"] }
        var random = SeededRandom(seed: seed)
        var model = Model(now: start, capacities: base.landmarks.map { $0.capacity ?? .max })
        var problems: [String] = []
        let settlesEveryWrite = system.sweep == nil
        var seen: Set<Reservation.Status> = []
        var capped = 0
        for step in 0..<steps {
            let choice = random.next(below: 20)
            let operation =
                model.entries.isEmpty
                ? 0 : choice < 9 ? 0 : choice < 12 ? 1 : choice < 14 ? 2 : choice < 18 ? 3 : 4
            switch operation {
            case 0:
                let user = random.next(below: system.users.count)
                let landmark = random.next(below: base.landmarks.count)
                let day = random.next(below: base.days.count)
                guard let date = base.date(landmark, day, time: random.next(below: 3)) else { continue }
                let party = 1 + random.next(below: 3)
                let request: Request =
                    switch random.next(below: 3) {
                    case 0: .hold(seconds: 30 + random.next(below: 10) * 60)
                    case 1: .waitlist(pending: random.next(below: 2) == 0)
                    default: .booking(pending: random.next(below: 2) == 0)
                    }
                let expected = model.reserve(
                    user: user, landmark: landmark, day: day, party: party, request: request,
                    settle: settlesEveryWrite, holdLimit: system.holdLimit,
                    refusal: { base.refusal(base.landmarks[landmark], base.days[day], requested: party, booked: $0) })
                let answer = try await system.users[user].reserve(base.landmarks[landmark], date, party, request)
                switch (answer, expected) {
                case (.created(let id, let status), .created(_, let modelled)) where status == modelled:
                    model.adopt(id)
                case (.refused(let message), .refused(let modelled)) where message == modelled: break
                case (.tooManyHolds, .tooManyHolds): capped += 1
                default:
                    problems.append(
                        "step \(step): \(request) of \(party) on day \(day) at landmark \(landmark) answered \(answer), "
                            + "expected \(expected)")
                    return problems
                }
            case 1:
                let id = model.ids[random.next(below: model.ids.count)]
                model.cancel(id, settle: settlesEveryWrite)
                try await system.users[model.entries[id]?.user ?? 0].cancel(id)
            case 2:
                let id = model.ids[random.next(below: model.ids.count)]
                let expected = model.confirm(id, settle: settlesEveryWrite)
                let answer = try await system.users[model.entries[id]?.user ?? 0].confirm(id)
                if answer != expected {
                    problems.append("step \(step): confirm of \(id) answered \(answer), expected \(expected)")
                    return problems
                }
            case 3:
                // Mostly less than a hold, now and then past several.
                let seconds = random.next(below: 4) == 0 ? 600 + random.next(below: 600) : random.next(below: 120)
                model.now += Double(seconds)
                system.advance(seconds)
            default:
                guard let sweep = system.sweep else { continue }
                model.settle()
                try await sweep()
            }
            // The check reads: on a store without a sweep, a read records what ended first.
            if settlesEveryWrite { model.settle() }
            problems += try await check(
                "step \(step) (\(["reserve", "cancel", "confirm", "clock", "sweep"][operation]))",
                system: system, model: model)
            if !problems.isEmpty { return problems }
            seen.formUnion(model.readings().values.map(\.status))
        }
        // Check-in and no-show are no step of this model (AttendanceTests and AttendanceRouteTests
        // try them); every other status must have been reached.
        for status in Reservation.Status.allCases where !seen.contains(status) && !status.isAttendance {
            problems.append("no reservation was ever \(status.rawValue): the run did not test it")
        }
        if model.promotions == 0 { problems.append("nothing was promoted: the run did not test it") }
        if system.holdLimit != nil, capped == 0 { problems.append("no hold met the limit: the run did not test it") }
        return problems
    }

    /// Lets every client loose at once on one backend, each booking, holding,
    /// joining lists, cancelling and confirming its own reservations while the
    /// clock moves (and, on a server, sweeps run): answers cannot be predicted,
    /// but afterwards, once every ended hold is recorded (`settle`: a sweep, or
    /// any write of a file), no day may hold more than its capacity, no waiting
    /// party may fit in what its day has left, every ended hold must be
    /// recorded expired exactly once, and no reservation promoted more than once.
    public func runConcurrently(
        seed: UInt64, steps: Int, clients: [Backend], system: System, settle: @Sendable () async throws -> Void
    ) async throws -> [String] {
        let counts = try await withThrowingTaskGroup(of: [String: Int].self) { group in
            for (number, client) in clients.enumerated() {
                let clientSeed = seed &+ UInt64(number + 1) &* 0x9E37_79B9
                group.addTask {
                    var random = SeededRandom(seed: clientSeed)
                    var mine: [String] = []
                    var counts: [String: Int] = [:]
                    for _ in 0..<steps {
                        let choice = random.next(below: 20)
                        if choice < 9 || mine.isEmpty {
                            let landmark = random.next(below: base.landmarks.count)
                            let day = random.next(below: base.days.count)
                            guard let date = base.date(landmark, day, time: random.next(below: 3)) else { continue }
                            // Mostly holds and lists: plain bookings would soon fill the few days for good.
                            let request: Request =
                                switch random.next(below: 5) {
                                case 0, 1: .hold(seconds: 30 + random.next(below: 10) * 60)
                                case 2, 3: .waitlist(pending: random.next(below: 2) == 0)
                                default: .booking(pending: random.next(below: 2) == 0)
                                }
                            switch try await client.reserve(
                                base.landmarks[landmark], date, 1 + random.next(below: 3), request)
                            {
                            case .created(let id, let status):
                                mine.append(id)
                                counts[status.rawValue, default: 0] += 1
                            case .refused: counts["refused", default: 0] += 1
                            case .tooManyHolds: counts["tooManyHolds", default: 0] += 1
                            }
                        } else if choice < 13 {
                            try await client.cancel(mine[random.next(below: mine.count)])
                        } else if choice < 15 {
                            counts["\(try await client.confirm(mine[random.next(below: mine.count)]))", default: 0] += 1
                        } else if choice < 19 {
                            system.advance(random.next(below: 300))
                        } else if let sweep = system.sweep {
                            try await sweep()
                        }
                    }
                    return counts
                }
            }
            return try await group.reduce(into: [String: Int]()) { $0.merge($1, uniquingKeysWith: +) }
        }
        var problems: [String] = []
        for outcome in ["held", "waitlisted"] where counts[outcome, default: 0] == 0 {
            problems.append("no \(outcome) answer in the run: it did not test it (\(counts))")
        }
        try await settle()
        var read: [String: Reading] = [:]
        var recorded: [String: [HistoryEntry.Change: Int]] = [:]
        for user in system.users {
            read.merge(try await user.read()) { first, _ in first }
            recorded.merge(try await user.systemChanges()) { first, _ in first }
        }
        for (id, changes) in recorded {
            if changes[.promoted, default: 0] > 1 {
                problems.append("\(id.prefix(8)) was promoted \(changes[.promoted]!) times")
            }
            if changes[.expired, default: 0] > 1 {
                problems.append("\(id.prefix(8)) expired \(changes[.expired]!) times")
            }
            if changes[.expired] != nil, read[id]?.status != .expired {
                problems.append(
                    "\(id.prefix(8)) was recorded expired, reads \(read[id].map(\.description) ?? "nothing")")
            }
        }
        for (id, reading) in read where reading.status == .expired && recorded[id]?[.expired] == nil {
            problems.append("\(id.prefix(8)) reads expired, but its end was never recorded")
        }
        for change in [HistoryEntry.Change.promoted, .expired]
        where !recorded.values.contains(where: { $0[change] != nil }) {
            problems.append("nothing was \(change.rawValue): the run did not test it")
        }
        problems += try await checkDays(system: system)
        return problems
    }

    /// Every day's places against its capacity, and its list against what is left, as the users read them.
    private func checkDays(system: System) async throws -> [String] {
        var problems: [String] = []
        var records: [Reading] = []
        for user in system.users { records += try await user.read().values }
        if records.contains(where: { $0.day == nil || $0.party == nil }) {
            return ["a reading without its day or party: the backend must tell them"]
        }
        for (place, entries) in Dictionary(grouping: records, by: { $0.day ?? "" }) {
            let capacity = base.landmarks.first { place.hasPrefix($0.id.description) }?.capacity ?? .max
            let taken = entries.filter { $0.status.takesPlaces }.reduce(0) { $0 + ($1.party ?? 0) }
            if taken > capacity { problems.append("\(place) holds \(taken), over \(capacity)") }
            let waiting = entries.filter { $0.status == .waitlisted }
            for entry in waiting where taken + (entry.party ?? 0) <= capacity {
                problems.append("\(place): a waiting party of \(entry.party ?? 0) fits in \(capacity - taken) left")
            }
            let positions = waiting.compactMap(\.position).sorted()
            if positions != Array(0..<waiting.count).map({ $0 + 1 }) {
                problems.append("\(place): list positions \(positions)")
            }
        }
        return problems
    }

    /// Every reservation as each user reads it, against the model.
    private func check(_ when: String, system: System, model: Model) async throws -> [String] {
        var problems: [String] = []
        var read: [String: Reading] = [:]
        var recorded: [String: [HistoryEntry.Change: Int]] = [:]
        for user in system.users {
            read.merge(try await user.read()) { first, _ in first }
            recorded.merge(try await user.systemChanges()) { first, _ in first }
        }
        let expected = model.readings()
        for (id, reading) in expected where read[id]?.predicted != reading {
            problems.append(
                "\(when): \(id.prefix(8)) reads \(read[id].map(\.description) ?? "nothing"), model \(reading)")
        }
        for id in read.keys where expected[id] == nil { problems.append("\(when): \(id.prefix(8)) is not the model's") }
        for (id, entry) in model.entries {
            let counts = recorded[id] ?? [:]
            if counts[.expired, default: 0] != entry.expiries || counts[.promoted, default: 0] != entry.promotions {
                problems.append(
                    "\(when): \(id.prefix(8)) has \(counts[.expired, default: 0]) expired and "
                        + "\(counts[.promoted, default: 0]) promoted entries, model \(entry.expiries) and \(entry.promotions)"
                )
            }
        }
        for landmark in base.landmarks.indices {
            for day in base.days.indices where model.taken(landmark, day) > (base.landmarks[landmark].capacity ?? .max)
            {
                problems.append("\(when): landmark \(landmark) holds \(model.taken(landmark, day)) on day \(day)")
            }
        }
        return problems
    }

    /// A reservation as the model holds it: its status as last written.
    struct Entry: Equatable {
        var user: Int
        var landmark: Int
        var day: Int
        var party: Int
        var status: Reservation.Status
        var expiresAt: Date?
        var order: Int?
        var requested: Reservation.Status?
        var expiries = 0
        var promotions = 0
    }

    struct Model {
        var now: Date
        let capacities: [Int]
        var entries: [String: Entry] = [:]
        var ids: [String] = []
        var promotions = 0
        /// The reservation a reserve is about to create, adopted under the id the backend gives it.
        var pending: Entry?

        init(now: Date, capacities: [Int]) {
            self.now = now
            self.capacities = capacities
        }

        /// Whether it takes places at `now`: booked, or held and not ended.
        func takesPlaces(_ entry: Entry) -> Bool {
            switch entry.status {
            case .pending, .confirmed: true
            case .held: (entry.expiresAt ?? now) > now
            default: false
            }
        }

        /// Its status as read at `now`: a hold that has ended reads expired.
        func reading(_ entry: Entry) -> Reservation.Status {
            entry.status == .held && !takesPlaces(entry) ? .expired : entry.status
        }

        func taken(_ landmark: Int, _ day: Int) -> Int {
            entries.values.filter { $0.landmark == landmark && $0.day == day && takesPlaces($0) }.reduce(0) {
                $0 + $1.party
            }
        }

        /// A day's list: in order of joining, ties by id.
        func waiting(_ landmark: Int, _ day: Int) -> [String] {
            entries.filter { $0.value.landmark == landmark && $0.value.day == day && $0.value.status == .waitlisted }
                .sorted { ($0.value.order ?? 0, $0.key) < ($1.value.order ?? 0, $1.key) }.map(\.key)
        }

        func readings() -> [String: Reading] {
            var readings: [String: Reading] = [:]
            for (id, entry) in entries { readings[id] = Reading(status: reading(entry), position: nil) }
            for landmark in capacities.indices {
                for day in 0..<3 {
                    for (index, id) in waiting(landmark, day).enumerated() { readings[id]?.position = index + 1 }
                }
            }
            return readings
        }

        /// Records the end of the holds that have ended (on one day, or all), promoting where they were.
        mutating func settle(landmark: Int? = nil, day: Int? = nil) {
            var freed: Set<[Int]> = []
            for (id, entry) in entries
            where entry.status == .held && !takesPlaces(entry)
                && (landmark == nil || (entry.landmark == landmark && entry.day == day))
            {
                entries[id]?.status = .expired
                entries[id]?.expiries += 1
                freed.insert([entry.landmark, entry.day])
            }
            for place in freed { promote(place[0], place[1]) }
        }

        /// Gives the day's free places to its list: in order, each that fits.
        mutating func promote(_ landmark: Int, _ day: Int) {
            var taken = taken(landmark, day)
            for id in waiting(landmark, day) {
                guard let entry = entries[id], taken + entry.party <= capacities[landmark] else { continue }
                taken += entry.party
                entries[id]?.status = entry.requested ?? .confirmed
                entries[id]?.promotions += 1
                promotions += 1
            }
        }

        mutating func reserve(
            user: Int, landmark: Int, day: Int, party: Int, request: Request, settle settleAll: Bool,
            holdLimit: Int?, refusal: (Int) -> String
        ) -> Answer {
            let before = self
            if settleAll { settle() }
            settle(landmark: landmark, day: day)
            let taken = taken(landmark, day)
            var entry = Entry(user: user, landmark: landmark, day: day, party: party, status: .confirmed)
            if taken + party <= capacities[landmark] {
                switch request {
                case .booking(let pending): entry.status = pending ? .pending : .confirmed
                case .waitlist(let pending): entry.status = pending ? .pending : .confirmed
                case .hold(let seconds):
                    let live = entries.values.count { $0.user == user && $0.status == .held && takesPlaces($0) }
                    if let holdLimit, live + 1 > holdLimit {
                        self = before
                        return .tooManyHolds
                    }
                    entry.status = .held
                    entry.expiresAt = now.addingTimeInterval(Double(seconds))
                }
            } else if case .waitlist(let pending) = request {
                entry.status = .waitlisted
                entry.requested = pending ? .pending : .confirmed
                let orders = waiting(landmark, day).compactMap { entries[$0]?.order }
                entry.order = (orders.max() ?? 0) + 1
            } else {
                self = before
                return .refused(refusal(taken))
            }
            self.pending = entry
            return .created(id: "", status: entry.status)
        }

        mutating func adopt(_ id: String) {
            guard let entry = pending else { return }
            entries[id] = entry
            ids.append(id)
            pending = nil
        }

        mutating func cancel(_ id: String, settle settleAll: Bool) {
            if settleAll { settle() }
            guard let entry = entries[id], reading(entry) != .cancelled, reading(entry) != .expired else { return }
            let freed = takesPlaces(entry)
            entries[id]?.status = .cancelled
            if freed { promote(entry.landmark, entry.day) }
        }

        mutating func confirm(_ id: String, settle settleAll: Bool) -> Confirmation {
            let before = self
            if settleAll { settle() }
            guard let entry = entries[id] else { return .cancelled }
            let refusal: Confirmation? =
                switch reading(entry) {
                case .cancelled: .cancelled
                case .expired: .holdExpired
                case .waitlisted: .waitlisted
                default: nil
                }
            if let refusal {
                self = before
                return refusal
            }
            if entry.status != .confirmed {
                entries[id]?.status = .confirmed
                entries[id]?.expiresAt = nil
            }
            return .confirmed
        }
    }
}
