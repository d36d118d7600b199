import Foundation
import ReservationCore

/// A model-based check of the capacity rule, shared by the test suites of
/// every backend: a seeded random sequence of reserve, cancel, confirm and,
/// where the backend offers them, modify and undo is run against a backend and
/// against a plain model of what it should hold; every answer must agree with
/// the model, and no day may ever hold more people than its landmark's
/// capacity. `runConcurrently` lets several clients loose on one backend at
/// once: their answers cannot be predicted, but the days must still add up.
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

    /// A reservation's values, as a backend reports them after a modify or an undo.
    public struct Values: Sendable, Hashable, CustomStringConvertible {
        public var id: String
        public var landmark: String
        public var date: Date
        public var partySize: Int
        public var status: Reservation.Status

        public init(id: String, landmark: String, date: Date, partySize: Int, status: Reservation.Status) {
            self.id = id
            self.landmark = landmark
            self.date = date
            self.partySize = partySize
            self.status = status
        }

        /// The values of a wire record; nil when one is missing or not valid.
        public init?(_ record: ReservationApiModel) {
            guard let landmark = record.landmarkId, let text = record.date, let date = try? DateTime.parse(text),
                let partySize = record.partySize,
                let status = record.status.flatMap(Reservation.Status.init(rawValue:))
            else { return nil }
            self.init(id: record.id, landmark: landmark, date: date, partySize: partySize, status: status)
        }

        public init(_ reservation: Reservation) {
            self.init(
                id: reservation.id.description, landmark: reservation.landmark.id.description, date: reservation.date,
                partySize: reservation.partySize, status: reservation.status)
        }

        public var description: String {
            "\(id.prefix(8)) at \(landmark.prefix(8)) \(DateTime.format(date)) party \(partySize) \(status.rawValue)"
        }
    }

    /// What a backend answered to a modify.
    public enum Modification: Sendable, Equatable {
        /// Changed (or already so), with the values it has now.
        case modified(Values)
        /// Refused for capacity, with the message a user would read.
        case refused(String)
        /// Refused because the reservation is cancelled.
        case cancelled
        /// Refused because it changed since the client read it (a client that reads first, as `resv modify` does).
        case stale

        /// The answer of a `ReservationService.modify` (memory, file); other errors are thrown.
        public static func of(_ body: () async throws -> Reservation) async throws -> Modification {
            do {
                return .modified(Values(try await body()))
            } catch ReservationError.cannotModifyCancelled {
                return .cancelled
            } catch ReservationError.versionMismatch {
                return .stale
            } catch let error as ReservationError {
                guard case .noCapacity = error else { throw error }
                return .refused(error.localizedDescription)
            }
        }
    }

    /// What a backend answered to an undo.
    public enum Undoing: Sendable, Equatable {
        /// Took back a command: each reservation it changed, as the undo left it.
        case undone([Values])
        case nothingToUndo
        /// Refused because a reservation of the command changed since.
        case conflict
        /// Refused for capacity, with the message a user would read.
        case refused(String)

        /// The changes of an undo's result (`ReservationService.undo`, `POST /undo`, `resv undo --json`).
        public static func undone(_ result: UndoResult) throws -> Undoing {
            var values: [Values] = []
            for change in result.changes {
                guard let value = Values(change.after) else {
                    throw ModelFailure("undo answered a change without valid values: \(change.after)")
                }
                values.append(value)
            }
            return .undone(values)
        }

        /// The answer of a `ReservationService.undo` (memory, file); other errors are thrown.
        public static func of(_ body: () async throws -> UndoResult) async throws -> Undoing {
            do {
                return try undone(try await body())
            } catch ReservationError.nothingToUndo {
                return .nothingToUndo
            } catch ReservationError.undoConflict {
                return .conflict
            } catch let error as ReservationError {
                guard case .noCapacity = error else { throw error }
                return .refused(error.localizedDescription)
            }
        }

        /// The same answer, whatever order the changes were listed in.
        var sorted: Undoing {
            guard case .undone(let values) = self else { return self }
            return .undone(values.sorted { $0.id < $1.id })
        }
    }

    /// The operations a backend offers, as the test drives it: one user's client.
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
        /// Changes the date or the party size (nil: unchanged) of a reservation of this user;
        /// nil when the backend has no modify.
        public var modify: (@Sendable (_ id: String, _ date: Date?, _ partySize: Int?) async throws -> Modification)?
        /// Takes back this user's newest command; nil when the backend has no undo.
        public var undo: (@Sendable () async throws -> Undoing)?

        public init(
            reserve: @escaping @Sendable (Landmark, Date, Int, Bool) async throws -> Booking,
            cancel: @escaping @Sendable (String) async throws -> Void,
            confirm: @escaping @Sendable (String) async throws -> Confirmation,
            active: @escaping @Sendable () async throws -> [Held],
            availability: @escaping @Sendable (Landmark, CalendarDay, CalendarDay) async throws -> [DayAvailability],
            modify: (@Sendable (String, Date?, Int?) async throws -> Modification)? = nil,
            undo: (@Sendable () async throws -> Undoing)? = nil
        ) {
            self.reserve = reserve
            self.cancel = cancel
            self.confirm = confirm
            self.active = active
            self.availability = availability
            self.modify = modify
            self.undo = undo
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

    /// Runs `steps` random operations from `seed` on one user's backend; returns
    /// every disagreement with the model (empty when the backend kept the rule throughout).
    public func run(seed: UInt64, steps: Int, on backend: Backend) async throws -> [String] {
        try await run(seed: seed, steps: steps, on: [backend])
    }

    /// Runs `steps` random operations from `seed`, each user's through that
    /// user's backend (`users[0]` also answers the checks: its `active` and
    /// `availability` must count every user's reservations). A reservation's
    /// cancel, confirm and modify go through the user who booked it, and each
    /// user's undo takes back that user's commands only, as on a server; a
    /// backend with one history for everyone (a file, memory) is one user.
    public func run(seed: UInt64, steps: Int, on users: [Backend]) async throws -> [String] {
        guard let checker = users.first else { return ["no backend to run on"] }
        var random = SeededRandom(seed: seed)
        var model = Model()
        var problems: [String] = []
        // With modify and undo, the old mix of reserve, cancel and confirm is drawn from 20, not 10.
        let extended = users.contains { $0.modify != nil || $0.undo != nil }

        for step in 0..<steps {
            let choice = random.next(below: extended ? 20 : 10)
            let operation: Operation =
                switch (model.ids.isEmpty, extended, choice) {
                case (true, _, _): .reserve
                case (false, false, 0..<6), (false, true, 0..<8): .reserve
                case (false, false, 6..<8), (false, true, 8..<10): .cancel
                case (false, false, _), (false, true, 10..<12): .confirm
                case (false, true, 12..<16): .modify
                default: .undo
                }
            switch operation {
            case .reserve:
                let user = users.count > 1 ? random.next(below: users.count) : 0
                let landmarkIndex = random.next(below: landmarks.count)
                let dayIndex = random.next(below: days.count)
                let landmark = landmarks[landmarkIndex]
                guard let date = date(landmarkIndex, dayIndex, time: random.next(below: 3)) else { continue }
                let party = 1 + random.next(below: 3)
                let pending = random.next(below: 2) == 0
                let before = model.taken(landmarkIndex, dayIndex)
                let fits = before + party <= (landmark.capacity ?? .max)
                switch try await users[user].reserve(landmark, date, party, pending) {
                case .created(let id):
                    if !fits {
                        problems.append(
                            "step \(step): booked \(party) at \(landmark.name) on \(days[dayIndex]) with \(before) taken"
                        )
                    }
                    let entry = Entry(
                        landmark: landmarkIndex, day: dayIndex, date: date, party: party,
                        status: pending ? .pending : .confirmed)
                    model.book(id, entry, user: user)
                case .refused(let message):
                    let expected = refusal(landmark, days[dayIndex], requested: party, booked: before)
                    if fits { problems.append("step \(step): refused \(party) with \(before) taken: \(message)") }
                    if message != expected { problems.append("step \(step): '\(message)', expected '\(expected)'") }
                }
            case .cancel:
                let id = model.ids[random.next(below: model.ids.count)]
                try await users[model.owner[id] ?? 0].cancel(id)
                model.change(id) { $0.status = .cancelled }
            case .confirm:
                let id = model.ids[random.next(below: model.ids.count)]
                let answer = try await users[model.owner[id] ?? 0].confirm(id)
                switch (answer, model.held[id]?.status) {
                case (.conflict, .cancelled?): break
                case (.confirmed, .pending?), (.confirmed, .confirmed?): model.change(id) { $0.status = .confirmed }
                default:
                    problems.append(
                        "step \(step): confirm \(id) answered \(answer) for \(String(describing: model.held[id]?.status))"
                    )
                }
            case .modify:
                // Mostly an active one; sometimes any, a cancelled one included (which must be refused).
                let active = model.ids.filter { model.held[$0]?.status.isActive == true }
                let candidates = active.isEmpty || random.next(below: 4) == 0 ? model.ids : active
                let id = candidates[random.next(below: candidates.count)]
                let kind = random.next(below: 3)  // 0: the date, 1: the party, 2: both
                let dayIndex = random.next(below: days.count)
                let time = random.next(below: 3)
                let party = 1 + random.next(below: 3)
                guard let modify = users[model.owner[id] ?? 0].modify, let current = model.held[id],
                    let newDate = date(current.landmark, dayIndex, time: time)
                else { continue }
                var target = current
                if kind != 1 {
                    target.date = newDate
                    target.day = dayIndex
                }
                if kind != 0 { target.party = party }
                let expected = predictModify(current, to: target, id: id, model: model)
                let answer = try await modify(id, kind != 1 ? newDate : nil, kind != 0 ? party : nil)
                if answer != expected {
                    problems.append(
                        "step \(step): modify \(id) to \(values(id, target)) answered \(answer), expected \(expected)")
                }
                switch answer {
                case .modified(let now) where now == values(id, target): model.change(id) { $0 = target }
                case .modified(let now) where now == values(id, current): break
                case .refused, .cancelled, .stale: break
                case .modified:
                    problems.append("step \(step): the model cannot follow the modify of \(id)")
                    return problems
                }
            case .undo:
                let user = users.count > 1 ? random.next(below: users.count) : 0
                guard let undo = users[user].undo else { continue }
                // Now and then several in a row, walking further back.
                let times = random.next(below: 4) == 0 ? 2 + random.next(below: 6) : 1
                for _ in 0..<times {
                    let (expected, outcome) = predictUndo(user: user, model: model)
                    let answer = try await undo()
                    if answer.sorted != expected.sorted {
                        problems.append("step \(step): undo of user \(user) answered \(answer), expected \(expected)")
                        // What the backend did instead is unknown to the model: its later answers would only repeat this.
                        return problems
                    }
                    if let outcome { model.undo(outcome.command, to: outcome.target) }
                }
            }
            if step % 10 == 9 || step == steps - 1 {
                problems += try await check("step \(step)", backend: checker, expected: model.taken)
            }
        }
        return problems
    }

    /// What a modify of `current` to `target` must answer: capacity counted
    /// with the reservation's own places released; a cancelled one is refused.
    private func predictModify(_ current: Entry, to target: Entry, id: String, model: Model) -> Modification {
        guard current.status.isActive else { return .cancelled }
        guard target != current else { return .modified(values(id, current)) }
        let landmark = landmarks[target.landmark]
        let own = current.landmark == target.landmark && current.day == target.day ? current.party : 0
        let others = model.taken(target.landmark, target.day) - own
        guard others + target.party <= (landmark.capacity ?? .max) else {
            return .refused(refusal(landmark, days[target.day], requested: target.party, booked: others))
        }
        return .modified(values(id, target))
    }

    /// What `user`'s undo must answer (`Undo`'s rules, for commands of one
    /// reservation each), and on success the command it takes back and what
    /// its reservation becomes.
    private func predictUndo(user: Int, model: Model) -> (Undoing, (command: Int, target: Entry)?) {
        guard let index = model.commands.lastIndex(where: { $0.user == user && !$0.undone }) else {
            return (.nothingToUndo, nil)
        }
        let command = model.commands[index]
        // Never so through these operations alone (a reservation changes only by its owner's
        // commands, and they are undone newest first): a backend that answers conflict is wrong.
        guard let current = model.held[command.id], current == command.after else { return (.conflict, nil) }
        var target = command.before ?? command.after
        if command.before == nil { target.status = .cancelled }
        guard target != current else { return (.undone([]), (index, target)) }
        // Only a day the undo adds people to is checked, with the people it takes from that day released.
        let removed =
            current.status.isActive && current.landmark == target.landmark && current.day == target.day
            ? current.party : 0
        let added = target.status.isActive ? target.party : 0
        if added > removed {
            let landmark = landmarks[target.landmark]
            let others = max(0, model.taken(target.landmark, target.day) - removed)
            if others + added > (landmark.capacity ?? .max) {
                return (.refused(refusal(landmark, days[target.day], requested: added, booked: others)), nil)
            }
        }
        return (.undone([values(command.id, target)]), (index, target))
    }

    /// What a client did in a concurrent run.
    private struct ClientReport: Sendable {
        var problems: [String] = []
        var booked: [String] = []
        /// The reservations its undos changed.
        var undone: [String] = []
        var modifies = 0
        var modified = 0
        var undos = 0
        var undid = 0
    }

    /// Lets every client of every user run `steps` random operations at once on
    /// one backend (`users[u]` are user u's clients: processes, connections; a
    /// backend with one history for everyone is one user). Each client works on
    /// the reservations it booked. Answers cannot be predicted, but each must be
    /// one the rules allow; afterwards no day may pass its capacity, the
    /// backend's count of each day must be the sum of its active parties, an
    /// undo may only have changed its own user's reservations, and modifies and
    /// undos must have been tried and some of them done. Then each user undoes
    /// until nothing is left, and when every user got there, nothing may be
    /// active. With one history (one user), every change is one locked step of
    /// the backend, so an undo is never refused, there or at the end.
    public func runConcurrently(seed: UInt64, steps: Int, users: [[Backend]]) async throws -> [String] {
        guard let checker = users.first?.first else { return ["no backend to run on"] }
        let reports = try await withThrowingTaskGroup(of: (user: Int, report: ClientReport).self) { group in
            for (user, clients) in users.enumerated() {
                for (number, client) in clients.enumerated() {
                    let clientSeed = seed &+ UInt64(user * 100 + number) &* 0x9E37_79B9
                    group.addTask {
                        (
                            user,
                            try await runClient(
                                seed: clientSeed, steps: steps, on: client, oneHistory: users.count == 1)
                        )
                    }
                }
            }
            return try await group.reduce(into: [(user: Int, report: ClientReport)]()) { $0.append($1) }
        }
        var problems = reports.flatMap(\.report.problems)
        problems += try await check("after the concurrent run", backend: checker, expected: nil)
        let total = reports.reduce(into: ClientReport()) {
            $0.modifies += $1.report.modifies
            $0.modified += $1.report.modified
            $0.undos += $1.report.undos
            $0.undid += $1.report.undid
        }
        if total.modifies == 0 || total.undos == 0 {
            problems.append("\(total.modifies) modifies and \(total.undos) undos tried: the run tested nothing of them")
        }
        if total.modified + total.undid == 0 { problems.append("no modify and no undo changed anything") }
        for user in users.indices where users.count > 1 {
            let mine = Set(reports.filter { $0.user == user }.flatMap(\.report.booked))
            for id in Set(reports.filter { $0.user == user }.flatMap(\.report.undone)) where !mine.contains(id) {
                problems.append("an undo of user \(user) changed \(id), another user's reservation")
            }
        }

        // Each user undoes until nothing is left; with several users one may wait for another's undo to make room.
        var finished = Set<Int>()
        var budget = users.count * users.map(\.count).reduce(0, +) * steps + 10
        var progress = true
        while progress && finished.count < users.count && budget > 0 {
            progress = false
            for (user, clients) in users.enumerated() where !finished.contains(user) {
                guard let undo = clients.first?.undo else {
                    finished.insert(user)
                    continue
                }
                budget -= 1
                switch try await undo() {
                case .undone: progress = true
                case .nothingToUndo: finished.insert(user)
                case .conflict: problems.append("undoing user \(user)'s commands one by one met a conflict")
                case .refused(let message):
                    if users.count == 1 {
                        problems.append("undoing one history back to its start was refused: \(message)")
                    }
                }
            }
        }
        if users.count == 1, finished.isEmpty {
            problems.append("undo never answered that nothing is left, after \(steps) steps of each client")
        }
        problems += try await check("after undoing everything", backend: checker, expected: nil)
        if finished.count == users.count {
            if try await !checker.active().isEmpty {
                problems.append("every command was undone, yet reservations are still active")
            }
            for (user, clients) in users.enumerated() {
                guard let undo = clients.first?.undo else { continue }
                let again = try await undo()
                if again != .nothingToUndo { problems.append("user \(user)'s undo after the last answered \(again)") }
            }
        }
        return problems
    }

    /// One client of a concurrent run.
    private func runClient(seed: UInt64, steps: Int, on client: Backend, oneHistory: Bool) async throws
        -> ClientReport
    {
        var random = SeededRandom(seed: seed)
        var report = ClientReport()
        var landmarkOf: [String: Int] = [:]
        func isCapacityRefusal(_ message: String) -> Bool {
            message.contains(" is full on ") || message.contains(" capacity of ")
        }
        for step in 0..<steps {
            let choice = random.next(below: 20)
            if choice < 8 || report.booked.isEmpty {
                let landmarkIndex = random.next(below: landmarks.count)
                let dayIndex = random.next(below: days.count)
                guard let date = date(landmarkIndex, dayIndex, time: random.next(below: 3)) else { continue }
                let party = 1 + random.next(below: 3)
                switch try await client.reserve(landmarks[landmarkIndex], date, party, random.next(below: 2) == 0) {
                case .created(let id):
                    report.booked.append(id)
                    landmarkOf[id] = landmarkIndex
                case .refused(let message) where isCapacityRefusal(message): break
                case .refused(let message): report.problems.append("step \(step): reserve refused: \(message)")
                }
                continue
            }
            let id = report.booked[random.next(below: report.booked.count)]
            switch choice {
            case 8..<10: try await client.cancel(id)
            case 10..<12: _ = try await client.confirm(id)
            case 12..<16:
                let kind = random.next(below: 3)
                let dayIndex = random.next(below: days.count)
                let time = random.next(below: 3)
                let party = 1 + random.next(below: 3)
                guard let modify = client.modify, let landmarkIndex = landmarkOf[id] else { continue }
                let date = kind != 1 ? date(landmarkIndex, dayIndex, time: time) : nil
                report.modifies += 1
                switch try await modify(id, date, kind != 0 ? party : nil) {
                case .modified(let now):
                    report.modified += 1
                    if now.id != id || (date != nil && now.date != date) || (kind != 0 && now.partySize != party)
                        || !now.status.isActive
                    {
                        report.problems.append("step \(step): modify of \(id) answered \(now)")
                    }
                case .refused(let message) where isCapacityRefusal(message): break
                case .refused(let message): report.problems.append("step \(step): modify refused: \(message)")
                case .cancelled, .stale: break
                }
            default:
                guard let undo = client.undo else { continue }
                report.undos += 1
                switch try await undo() {
                case .undone(let changes):
                    report.undid += 1
                    report.undone += changes.map(\.id)
                case .nothingToUndo: break
                // Every command's undo finds the state it left (nothing newer is done: on a server an
                // undo waits for the user's changes under way and holds off new ones), so a conflict is
                // always wrong; on a server another user's party may take a day back.
                case .refused(let message) where !oneHistory && isCapacityRefusal(message): break
                case let answer: report.problems.append("step \(step): undo answered \(answer)")
                }
            }
        }
        return report
    }

    /// What the backend holds, day by day, against the capacity and the model
    /// (`expected` people per landmark and day; nil where the model cannot know).
    private func check(_ when: String, backend: Backend, expected: ((Int, Int) -> Int)?) async throws -> [String] {
        var problems: [String] = []
        let active = try await backend.active()
        for (landmarkIndex, landmark) in landmarks.enumerated() {
            let calendar = Capacity.calendar(for: landmark)
            let availability = try await backend.availability(landmark, days[0], days[days.count - 1])
            if availability.map(\.day) != days {
                problems.append("\(when): availability of \(landmark.name) covers \(availability.map(\.day))")
            }
            for (dayIndex, day) in days.enumerated() {
                let stored = active.filter {
                    $0.landmark == landmark.id.description && CalendarDay($0.date, in: calendar) == day
                }.reduce(0) { $0 + $1.partySize }
                let capacity = landmark.capacity ?? .max
                if stored > capacity {
                    problems.append("\(when): \(landmark.name) holds \(stored) on \(day), over \(capacity)")
                }
                if let expected, stored != expected(landmarkIndex, dayIndex) {
                    problems.append(
                        "\(when): \(landmark.name) holds \(stored) on \(day), model \(expected(landmarkIndex, dayIndex))"
                    )
                }
                if let shown = availability.first(where: { $0.day == day }),
                    shown.taken != stored || shown.capacity != landmark.capacity
                {
                    problems.append(
                        "\(when): availability says \(shown) for \(landmark.name) on \(day), stored \(stored)")
                }
            }
        }
        return problems
    }

    /// Day `dayIndex` at landmark `landmarkIndex`, at local midnight, noon or
    /// 23:30 (`time` 0, 1, 2): the first and the last minutes of the local day.
    public func date(_ landmarkIndex: Int, _ dayIndex: Int, time: Int) -> Date? {
        let (hour, minute) = [(0, 0), (12, 0), (23, 30)][time]
        let day = days[dayIndex]
        return Capacity.calendar(for: landmarks[landmarkIndex]).date(
            from: DateComponents(year: day.year, month: day.month, day: day.day, hour: hour, minute: minute))
    }

    /// The message of a capacity refusal, as every backend words it.
    func refusal(_ landmark: Landmark, _ day: CalendarDay, requested: Int, booked: Int) -> String {
        let capacity = landmark.capacity ?? 0
        return requested > capacity
            ? "a party of \(requested) is larger than \(landmark.name)'s capacity of \(capacity) a day"
            : "\(landmark.name) is full on \(day): \(booked) of \(capacity) places taken, \(requested) requested"
    }

    private func values(_ id: String, _ entry: Entry) -> Values {
        Values(
            id: id, landmark: landmarks[entry.landmark].id.description, date: entry.date, partySize: entry.party,
            status: entry.status)
    }

    private enum Operation { case reserve, cancel, confirm, modify, undo }

    /// A reservation as the model holds it.
    private struct Entry: Equatable {
        var landmark: Int
        var day: Int
        var date: Date
        var party: Int
        var status: Reservation.Status
    }

    /// What the backend should hold, and every user's commands, oldest first.
    private struct Model {
        /// A command that changed one reservation (the model books, cancels,
        /// confirms and modifies one at a time); an undo is none.
        struct Command {
            var user: Int
            var id: String
            /// Nil for a booking.
            var before: Entry?
            var after: Entry
            var undone = false
        }

        var held: [String: Entry] = [:]
        var owner: [String: Int] = [:]
        var ids: [String] = []
        var commands: [Command] = []

        /// People at a landmark on a day: the active reservations' parties.
        func taken(_ landmark: Int, _ day: Int) -> Int {
            held.values.filter { $0.landmark == landmark && $0.day == day && $0.status.isActive }.reduce(0) {
                $0 + $1.party
            }
        }

        mutating func book(_ id: String, _ entry: Entry, user: Int) {
            held[id] = entry
            owner[id] = user
            ids.append(id)
            commands.append(Command(user: user, id: id, before: nil, after: entry))
        }

        /// Changes a reservation; a change that changes nothing is no command.
        mutating func change(_ id: String, _ body: (inout Entry) -> Void) {
            guard let before = held[id] else { return }
            var after = before
            body(&after)
            guard after != before else { return }
            held[id] = after
            commands.append(Command(user: owner[id] ?? 0, id: id, before: before, after: after))
        }

        mutating func undo(_ index: Int, to target: Entry) {
            commands[index].undone = true
            held[commands[index].id] = target
        }
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
