import Foundation
import ReservationCore

/// The rules of `undo` and `redo` as a table, run on every backend (memory, file, SQLite,
/// PostgreSQL) through the few operations each one's test adapts: a script of
/// my commands on a 120-place landmark (`ModifyCase.hall()`, days of
/// `ModifyCase.date`), undos with the answer each must get, and what must hold
/// afterwards.
public struct UndoCase: Sendable, CustomStringConvertible {
    /// What a backend answered to an undo.
    public enum Answer: Sendable, Equatable {
        /// Took back a command of this many reservations.
        case undone(Int)
        /// Took back an undo of this many reservations.
        case redone(Int)
        case nothingToUndo
        case nothingToRedo
        case conflict
        case noCapacity(booked: Int, requested: Int)
        case other(String)
    }

    /// A reservation as the table checks it.
    public struct State: Sendable, Equatable, CustomStringConvertible {
        public var day: Int
        public var party: Int
        public var status: Reservation.Status
        public var note: String?

        public init(day: Int, party: Int, status: Reservation.Status, note: String? = nil) {
            self.day = day
            self.party = party
            self.status = status
            self.note = note
        }

        public var description: String { "day \(day) party \(party) \(status.rawValue) note \(note ?? "-")" }
    }

    /// One step of a script. Reservations are named by their place in the order
    /// I booked them (0, 1, …).
    public enum Step: Sendable {
        /// One command: a batch of (day, party, pending).
        case reserve([(day: Int, party: Int, pending: Bool)])
        case cancel([Int])
        case confirm([Int])
        case modify(Int, day: Int?, party: Int?, note: String?)
        /// Someone else books (another user of a server; another program writing the file):
        /// it is no command of mine.
        case elsewhere(day: Int, party: Int)
        /// Someone else changes my reservation's party size behind the history's back.
        case edit(Int, party: Int)
        case undo(Answer)
        case redo(Answer)
    }

    /// The operations a backend's test adapts; `elsewhere` and `edit` are nil where a
    /// backend has no such thing (memory), and the cases that need them are skipped.
    public struct Backend: Sendable {
        public var reserve:
            @Sendable (_ landmark: Landmark, _ requests: [(date: Date, party: Int, pending: Bool)]) async throws
                -> [String]
        public var cancel: @Sendable (_ ids: [String]) async throws -> Void
        public var confirm: @Sendable (_ ids: [String]) async throws -> Void
        public var modify:
            @Sendable (_ id: String, _ landmark: Landmark, _ date: Date?, _ party: Int?, _ note: String?) async throws
                -> Void
        public var undo: @Sendable () async throws -> Answer
        public var redo: @Sendable () async throws -> Answer
        public var state: @Sendable (_ id: String) async throws -> State
        /// People on the day of `date` at the landmark.
        public var booked: @Sendable (_ landmark: Landmark, _ date: Date) async throws -> Int
        public var elsewhere: (@Sendable (_ landmark: Landmark, _ date: Date, _ party: Int) async throws -> Void)?
        public var edit: (@Sendable (_ id: String, _ party: Int) async throws -> Void)?

        public init(
            reserve: @escaping @Sendable (Landmark, [(date: Date, party: Int, pending: Bool)]) async throws -> [String],
            cancel: @escaping @Sendable ([String]) async throws -> Void,
            confirm: @escaping @Sendable ([String]) async throws -> Void,
            modify: @escaping @Sendable (String, Landmark, Date?, Int?, String?) async throws -> Void,
            undo: @escaping @Sendable () async throws -> Answer,
            redo: @escaping @Sendable () async throws -> Answer,
            state: @escaping @Sendable (String) async throws -> State,
            booked: @escaping @Sendable (Landmark, Date) async throws -> Int,
            elsewhere: (@Sendable (Landmark, Date, Int) async throws -> Void)? = nil,
            edit: (@Sendable (String, Int) async throws -> Void)? = nil
        ) {
            self.reserve = reserve
            self.cancel = cancel
            self.confirm = confirm
            self.modify = modify
            self.undo = undo
            self.redo = redo
            self.state = state
            self.booked = booked
            self.elsewhere = elsewhere
            self.edit = edit
        }
    }

    public var description: String
    public var steps: [Step]
    /// My reservations afterwards, in booking order.
    public var mine: [State]
    /// People on each day afterwards: (day, booked).
    public var after: [(day: Int, booked: Int)]

    public static let all: [UndoCase] = [
        UndoCase(
            description: "nothing to undo in a new store", steps: [.undo(.nothingToUndo)], mine: [], after: [(0, 0)]),
        UndoCase(
            description: "a batch is taken back in one step: every booking of it cancelled, records kept",
            steps: [.reserve([(0, 10, false), (0, 20, true), (1, 5, false)]), .undo(.undone(3))],
            mine: [
                .init(day: 0, party: 10, status: .cancelled), .init(day: 0, party: 20, status: .cancelled),
                .init(day: 1, party: 5, status: .cancelled),
            ],
            after: [(0, 0), (1, 0)]),
        UndoCase(
            description: "repeated undo walks further back, one command each, then there is nothing left",
            steps: [
                .reserve([(0, 10, false)]), .reserve([(0, 20, false)]), .undo(.undone(1)), .undo(.undone(1)),
                .undo(.nothingToUndo),
            ],
            mine: [.init(day: 0, party: 10, status: .cancelled), .init(day: 0, party: 20, status: .cancelled)],
            after: [(0, 0)]),
        UndoCase(
            description: "a multi-id cancel is one step, and each gets back its own status",
            steps: [.reserve([(0, 10, true)]), .reserve([(0, 20, false)]), .cancel([0, 1]), .undo(.undone(2))],
            mine: [.init(day: 0, party: 10, status: .pending), .init(day: 0, party: 20, status: .confirmed)],
            after: [(0, 30)]),
        UndoCase(
            description: "a cancel that changed nothing is no command: undo takes back the one that did",
            steps: [.reserve([(0, 10, false)]), .cancel([0]), .cancel([0]), .undo(.undone(1))],
            mine: [.init(day: 0, party: 10, status: .confirmed)], after: [(0, 10)]),
        UndoCase(
            description: "undoing a confirm makes it pending again",
            steps: [.reserve([(0, 10, true)]), .confirm([0]), .undo(.undone(1))],
            mine: [.init(day: 0, party: 10, status: .pending)], after: [(0, 10)]),
        UndoCase(
            description: "undoing a modify restores date, party and note, freeing the new day",
            steps: [.reserve([(0, 10, false)]), .modify(0, day: 1, party: 20, note: "late"), .undo(.undone(1))],
            mine: [.init(day: 0, party: 10, status: .confirmed)], after: [(0, 10), (1, 0)]),
        UndoCase(
            description: "undo, then undo again, restores what was there before both",
            steps: [
                .reserve([(0, 10, false)]), .modify(0, day: nil, party: 12, note: nil), .cancel([0]),
                .undo(.undone(1)), .undo(.undone(1)),
            ],
            mine: [.init(day: 0, party: 10, status: .confirmed)], after: [(0, 10)]),
        UndoCase(
            description: "undoing a cancel is refused when the day filled since, and changes nothing",
            steps: [
                .reserve([(0, 10, false)]), .cancel([0]), .elsewhere(day: 0, party: 115),
                .undo(.noCapacity(booked: 115, requested: 10)),
            ],
            mine: [.init(day: 0, party: 10, status: .cancelled)], after: [(0, 115)]),
        UndoCase(
            description: "undoing a move is refused when the old day filled since",
            steps: [
                .reserve([(0, 10, false)]), .modify(0, day: 1, party: nil, note: nil), .elsewhere(day: 0, party: 115),
                .undo(.noCapacity(booked: 115, requested: 10)),
            ],
            mine: [.init(day: 1, party: 10, status: .confirmed)], after: [(0, 115), (1, 10)]),
        UndoCase(
            description: "undoing a shrink counts the day without the party's own places",
            steps: [
                .reserve([(0, 50, false)]), .modify(0, day: nil, party: 10, note: nil), .elsewhere(day: 0, party: 100),
                .undo(.noCapacity(booked: 100, requested: 50)),
            ],
            mine: [.init(day: 0, party: 10, status: .confirmed)], after: [(0, 110)]),
        UndoCase(
            description: "a batch whose undo would refill a full day is refused as a whole",
            steps: [
                .reserve([(0, 10, false), (1, 10, false)]), .cancel([0, 1]), .elsewhere(day: 1, party: 111),
                .undo(.noCapacity(booked: 111, requested: 10)),
            ],
            mine: [.init(day: 0, party: 10, status: .cancelled), .init(day: 1, party: 10, status: .cancelled)],
            after: [(0, 0), (1, 111)]),
        UndoCase(
            description: "undoing a booking is never refused, whatever the day holds",
            steps: [.reserve([(0, 20, false)]), .elsewhere(day: 0, party: 100), .undo(.undone(1))],
            mine: [.init(day: 0, party: 20, status: .cancelled)], after: [(0, 100)]),
        UndoCase(
            description: "a reservation changed behind the history's back is not undone, and nothing changes",
            steps: [
                .reserve([(0, 10, false), (1, 5, false)]), .edit(1, party: 7), .undo(.conflict),
            ],
            mine: [.init(day: 0, party: 10, status: .confirmed), .init(day: 1, party: 7, status: .confirmed)],
            after: [(0, 10), (1, 7)]),
        // redo
        UndoCase(
            description: "nothing to redo in a new store", steps: [.redo(.nothingToRedo)], mine: [], after: [(0, 0)]),
        UndoCase(
            description: "nothing to redo after a command that no undo followed",
            steps: [.reserve([(0, 10, false)]), .redo(.nothingToRedo)],
            mine: [.init(day: 0, party: 10, status: .confirmed)], after: [(0, 10)]),
        UndoCase(
            description: "redo takes back an undo: a booking the undo cancelled is active again, then nothing is left",
            steps: [.reserve([(0, 10, false)]), .undo(.undone(1)), .redo(.redone(1)), .redo(.nothingToRedo)],
            mine: [.init(day: 0, party: 10, status: .confirmed)], after: [(0, 10)]),
        UndoCase(
            description: "a change after the undo ends what can be redone",
            steps: [
                .reserve([(0, 10, false)]), .undo(.undone(1)), .reserve([(1, 5, false)]), .redo(.nothingToRedo),
            ],
            mine: [.init(day: 0, party: 10, status: .cancelled), .init(day: 1, party: 5, status: .confirmed)],
            after: [(0, 0), (1, 5)]),
        UndoCase(
            description: "a redone modify gets its new date, party and note back, freeing the old day",
            steps: [
                .reserve([(0, 10, false)]), .modify(0, day: 1, party: 20, note: "late"), .undo(.undone(1)),
                .redo(.redone(1)),
            ],
            mine: [.init(day: 1, party: 20, status: .confirmed, note: "late")], after: [(0, 0), (1, 20)]),
        UndoCase(
            description: "repeated redo takes back the undos newest first, then there is nothing left",
            steps: [
                .reserve([(0, 10, false)]), .modify(0, day: nil, party: 12, note: nil), .undo(.undone(1)),
                .undo(.undone(1)), .redo(.redone(1)), .redo(.redone(1)), .redo(.nothingToRedo),
            ],
            mine: [.init(day: 0, party: 12, status: .confirmed)], after: [(0, 12)]),
        UndoCase(
            description: "a multi-id cancel undone and redone is cancelled again, as one step",
            steps: [
                .reserve([(0, 10, true)]), .reserve([(0, 20, false)]), .cancel([0, 1]), .undo(.undone(2)),
                .redo(.redone(2)),
            ],
            mine: [.init(day: 0, party: 10, status: .cancelled), .init(day: 0, party: 20, status: .cancelled)],
            after: [(0, 0)]),
        UndoCase(
            description: "undo after a redo takes the command back anew, and further undos go on back",
            steps: [
                .reserve([(0, 10, false)]), .reserve([(0, 20, false)]), .undo(.undone(1)), .redo(.redone(1)),
                .undo(.undone(1)), .undo(.undone(1)), .undo(.nothingToUndo), .redo(.redone(1)),
            ],
            mine: [.init(day: 0, party: 10, status: .confirmed), .init(day: 0, party: 20, status: .cancelled)],
            after: [(0, 10)]),
        UndoCase(
            description: "a redo is refused when the day filled since the undo, and changes nothing",
            steps: [
                .reserve([(0, 10, false)]), .undo(.undone(1)), .elsewhere(day: 0, party: 115),
                .redo(.noCapacity(booked: 115, requested: 10)),
            ],
            mine: [.init(day: 0, party: 10, status: .cancelled)], after: [(0, 115)]),
        UndoCase(
            description: "a redo of a reservation changed behind the history's back is refused, and nothing changes",
            steps: [.reserve([(0, 10, false)]), .undo(.undone(1)), .edit(0, party: 7), .redo(.conflict)],
            mine: [.init(day: 0, party: 7, status: .cancelled)], after: [(0, 0)]),
    ]

    /// Whether `backend` can play every step.
    public func runs(on backend: Backend) -> Bool {
        steps.allSatisfy { step in
            switch step {
            case .elsewhere: backend.elsewhere != nil
            case .edit: backend.edit != nil
            default: true
            }
        }
    }

    /// Runs the script on `backend` at `hall` (from `ModifyCase.hall()`, in the
    /// backend's catalog); returns what went wrong (empty when all is well).
    public func run(on backend: Backend, at hall: Landmark) async throws -> [String] {
        var ids: [String] = []
        var problems: [String] = []
        for (number, step) in steps.enumerated() {
            switch step {
            case .reserve(let requests):
                ids += try await backend.reserve(
                    hall, requests.map { (date: ModifyCase.date($0.day), party: $0.party, pending: $0.pending) })
            case .cancel(let which):
                try await backend.cancel(which.map { ids[$0] })
            case .confirm(let which):
                try await backend.confirm(which.map { ids[$0] })
            case .modify(let which, let day, let party, let note):
                try await backend.modify(ids[which], hall, day.map { ModifyCase.date($0) }, party, note)
            case .elsewhere(let day, let party):
                try await backend.elsewhere?(hall, ModifyCase.date(day, hour: 9), party)
            case .edit(let which, let party):
                try await backend.edit?(ids[which], party)
            case .undo(let expected):
                let answer = try await backend.undo()
                if answer != expected {
                    problems.append("\(description): step \(number) answered \(answer), expected \(expected)")
                }
            case .redo(let expected):
                let answer = try await backend.redo()
                if answer != expected {
                    problems.append("\(description): step \(number) (redo) answered \(answer), expected \(expected)")
                }
            }
        }
        for (index, expected) in mine.enumerated() where index < ids.count {
            let found = try await backend.state(ids[index])
            if found != expected {
                problems.append("\(description): reservation \(index) is \(found), expected \(expected)")
            }
        }
        if ids.count != mine.count {
            problems.append("\(description): booked \(ids.count), the table has \(mine.count)")
        }
        for (day, booked) in after {
            let found = try await backend.booked(hall, ModifyCase.date(day))
            if found != booked { problems.append("\(description): day \(day) holds \(found), expected \(booked)") }
        }
        return problems
    }

    /// The day of a table date.
    public static func day(of date: Date) -> Int { Int((date.timeIntervalSince1970 - 4_107_542_400) / 86_400) }

    /// The answer of a `ReservationService.undo` (or `redo`), as the table states it.
    public static func answer(_ body: () async throws -> UndoResult) async -> Answer {
        do {
            let result = try await body()
            return result.isRedo ? .redone(result.changes.count) : .undone(result.changes.count)
        } catch ReservationError.nothingToUndo {
            return .nothingToUndo
        } catch ReservationError.nothingToRedo {
            return .nothingToRedo
        } catch ReservationError.undoConflict, ReservationError.redoConflict {
            return .conflict
        } catch ReservationError.noCapacity(_, _, let requested, let booked) {
            return .noCapacity(booked: booked, requested: requested)
        } catch {
            return .other("\(error)")
        }
    }

    /// The adapter of a `ReservationService` (memory, file); the file's test adds `elsewhere` and `edit`.
    public static func backend(_ service: ReservationService) -> Backend {
        Backend(
            reserve: { landmark, requests in
                try await service.reserve(
                    requests.map { request in
                        try NewReservation(
                            landmarkID: landmark.id, date: request.date, partySize: request.party,
                            status: request.pending ? .pending : .confirmed, now: Date())
                    }
                ).map(\.id.description)
            },
            cancel: { ids in _ = try await service.cancel(ids.map { Reservation.ID($0)! }) },
            confirm: { ids in _ = try await service.confirm(ids.map { Reservation.ID($0)! }) },
            modify: { id, _, date, party, note in
                _ = try await service.modify(
                    Reservation.ID(id)!, ReservationChange(date: date, partySize: party, note: note), nil)
            },
            undo: { await answer { try await service.undo() } },
            redo: { await answer { try await service.redo() } },
            state: { id in
                guard let found = try await service.fetch().reservations.first(where: { $0.id.description == id })
                else { throw ModelFailure("no reservation \(id)") }
                return State(day: day(of: found.date), party: found.partySize, status: found.status, note: found.note)
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
