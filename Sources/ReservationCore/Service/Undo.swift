import Foundation

/// What `undo` did: the command it took back, and the compensating changes it
/// recorded (each an `undone` entry whose `undoes` names that command); or
/// what `redo` did: the undo it took back, and its changes (each `redone`,
/// its `undoes` naming that undo).
public struct UndoResult: Sendable, Hashable {
    public let command: String
    public let changes: [HistoryEntry]
    /// Whether this is a redo's answer (`command` is then the undo it took back).
    public let isRedo: Bool
    /// Stored changes read on the way that could not be read (lines of a file's
    /// journal another program wrote), and were skipped. Not part of the JSON.
    public var skippedHistory = 0

    public init(command: String, changes: [HistoryEntry], isRedo: Bool = false) {
        self.command = command
        self.changes = changes
        self.isRedo = isRedo
    }

    /// `{"undid": command, "changes": [entries]}` (a redo: `"redid"`): the server's answer
    /// and `resv undo --json` (`resv redo --json`).
    public var json: JSONValue {
        .object([isRedo ? "redid" : "undid": .string(command), "changes": .array(changes.map(\.json))])
    }

    /// Reads an answer; nil when it is not one.
    public init?(json: JSONValue) {
        let isRedo: Bool
        let command: String
        if case .string(let undid)? = json["undid"] {
            (command, isRedo) = (undid, false)
        } else if case .string(let redid)? = json["redid"] {
            (command, isRedo) = (redid, true)
        } else {
            return nil
        }
        guard case .array(let items)? = json["changes"] else { return nil }
        var changes: [HistoryEntry] = []
        for item in items {
            guard let entry = HistoryEntry(json: item) else { return nil }
            changes.append(entry)
        }
        self.init(command: command, changes: changes, isRedo: isRedo)
    }
}

/// The rules of `undo`, written once for every backend: which command it takes
/// back, what each of its reservations returns to, and which days must have
/// room for that. A backend supplies the history, the reservations as they are
/// now and the people booked per day, and writes the steps in one atomic change.
public enum Undo {
    /// One reservation's compensating change: from `current` to `target` (the next version).
    public struct Step: Sendable, Hashable {
        public let id: Reservation.ID
        public let current: ReservationApiModel
        public let target: ReservationApiModel
    }

    /// The changes of the newest command that is neither an undo nor undone,
    /// oldest first; empty when there is none. `history` is oldest first, and
    /// already only this user's.
    public static func lastCommand(in history: [HistoryEntry]) -> [HistoryEntry] {
        var taken = Taken()
        var found: String?
        for entry in history.reversed() where isUndoable(entry, taken: &taken) {
            found = entry.command
            break
        }
        guard let found else { return [] }
        return history.filter { $0.command == found }
    }

    /// What a reader of the history from its newest entry has seen taken back so
    /// far: the commands undos took back, and the undos redos took back.
    public struct Taken: Sendable {
        public var undone: Set<String> = []
        public var redone: Set<String> = []

        public init() {}

        /// Notes what `entry` takes back, when it is an undo's or a redo's: an undo
        /// a later redo took back takes nothing back any more (its command is in
        /// effect again). A redo itself is never taken back (an undo after it
        /// takes back the command anew).
        mutating func read(_ entry: HistoryEntry) {
            guard let target = entry.undoes else { return }
            if entry.change == .redone {
                redone.insert(target)
            } else if !redone.contains(entry.command) {
                undone.insert(target)
            }
        }
    }

    /// The rule of which change an undo takes back, for a reader of the history
    /// from its newest entry: whether `entry` belongs to a command that can be
    /// undone, given what the undos and redos read so far took back (`taken`,
    /// which this adds to). Undos, redos, undone commands and the system's
    /// changes (promotions, expiries) cannot.
    public static func isUndoable(_ entry: HistoryEntry, taken: inout Taken) -> Bool {
        if entry.undoes != nil {
            taken.read(entry)
            return false
        }
        return entry.change != .undone && entry.change != .redone && !entry.change.isSystem
            && !taken.undone.contains(entry.command)
    }

    /// What a redo makes of an entry, read from the newest: passes over it, takes
    /// its command (an undo), or stops (nothing to redo).
    public enum RedoReading: Sendable, Equatable {
        case skip, take, stop
    }

    /// The rule of which undo a redo takes back, for a reader of the history from
    /// its newest entry: the newest undo not yet redone, as long as no command
    /// but undos and redos came after it. The system's changes (promotions,
    /// expiries) are passed over; any other change of the user stops the search.
    public static func redoReading(_ entry: HistoryEntry, taken: inout Taken) -> RedoReading {
        if entry.change.isSystem { return .skip }
        guard entry.undoes != nil, entry.change == .undone || entry.change == .redone else { return .stop }
        if entry.change == .redone {
            taken.read(entry)
            return .skip
        }
        return taken.redone.contains(entry.command) ? .skip : .take
    }

    /// The changes, oldest first, of the undo a redo takes back now
    /// (`redoReading`'s rule); empty when none. `history` is oldest first, and
    /// only this user's (at least every entry after their newest command that
    /// is neither an undo nor a redo).
    public static func undoToRedo(in history: [HistoryEntry]) -> [HistoryEntry] {
        var taken = Taken()
        var found: String?
        for entry in history.reversed() {
            switch redoReading(entry, taken: &taken) {
            case .skip: continue
            case .stop: return []
            case .take: found = entry.command
            }
            break
        }
        guard let found else { return [] }
        return history.filter { $0.command == found }
    }

    /// What each reservation of `command` (its changes, oldest first) returns
    /// to: a booking is cancelled (the record stays); anything else gets back
    /// the landmark, date, party size, status and note it had before the
    /// command. Refuses (`undoConflict`) when a reservation is no longer as the
    /// command left it: a later change touched it; and (`undoInPast`) when it
    /// would make a reservation active again on a date that has passed.
    ///
    /// A redo plans with the same rule (`redo`), over the undo it takes back:
    /// each reservation returns to what it was before that undo.
    public static func plan(
        _ command: [HistoryEntry], current: (Reservation.ID) -> ReservationApiModel?, now: Date, redo: Bool = false
    ) throws(ReservationError) -> [Step] {
        var order: [Reservation.ID] = []
        var first: [Reservation.ID: HistoryEntry] = [:]
        var last: [Reservation.ID: HistoryEntry] = [:]
        for entry in command {
            if first[entry.reservationID] == nil {
                order.append(entry.reservationID)
                first[entry.reservationID] = entry
            }
            last[entry.reservationID] = entry
        }
        var steps: [Step] = []
        for id in order {
            guard let earliest = first[id], let latest = last[id] else { continue }
            guard let record = current(id) else { throw .reservationNotFound(id.description) }
            guard sameValues(record, latest.after) else {
                throw redo ? .redoConflict(id, undo: latest.command) : .undoConflict(id, command: latest.command)
            }
            var target = record
            if let before = earliest.before {
                target.landmarkId = before.landmarkId
                target.date = before.date
                target.partySize = before.partySize
                target.status = before.status
                target.note = before.note
                target.expiresAt = before.expiresAt
                target.waitlistOrder = before.waitlistOrder
                target.requestedStatus = before.requestedStatus
            } else {
                target.status = Reservation.Status.cancelled.rawValue
            }
            guard !sameValues(target, record) else { continue }
            // An undo never makes a reservation active on a date that has passed (as a modify
            // never moves one there): a move taken back after the old day, a cancel after its day.
            if target.status != Reservation.Status.cancelled.rawValue,
                target.date != record.date || record.status == Reservation.Status.cancelled.rawValue,
                let text = target.date, let date = try? DateTime.parse(text), date <= now
            {
                throw redo
                    ? .redoInPast(id, date, undo: latest.command) : .undoInPast(id, date, command: latest.command)
            }
            target.updatedAt = DateTime.format(Timestamp.whole(now))
            target.version = (record.version ?? 1) + 1
            steps.append(Step(id: id, current: record, target: target))
        }
        return steps
    }

    /// A day an undo adds people to: the people its steps take from the day
    /// (`removed`, their places now) and give it (`added`).
    public struct DayChange: Sendable {
        public let landmark: Landmark
        /// The day's limit (its own capacity when it has one); nil when it takes everyone.
        public var capacity: Int?
        public let day: Capacity.Day
        /// Why the day is closed, when it is.
        public var closed: String?
        public var removed = 0
        public var added = 0

        public init(landmark: Landmark, capacity: Int?, day: Capacity.Day) {
            self.landmark = landmark
            self.capacity = capacity
            self.day = day
        }

        /// Checks the day is open and has room, given the people `booked` there
        /// now (the steps' own current places included); a day the undo does not
        /// add to is never refused, even over its capacity.
        public func check(booked: Int) throws(ReservationError) {
            guard added > removed else { return }
            if let closed { throw .closed(landmark, day: day.text, reason: closed) }
            guard let capacity else { return }
            let others = max(0, booked - removed)
            guard Capacity.fits(added, booked: others, capacity: capacity) else {
                throw .noCapacity(landmark.with(capacity: capacity), day: day.text, requested: added, booked: others)
            }
        }
    }

    /// The days the steps add people to (a day's rule may limit or close any of them),
    /// in a stable order (landmark, then day).
    public static func dayChanges(_ steps: [Step], catalog: LandmarkCatalog, now: Date) -> [DayChange] {
        var days: [String: DayChange] = [:]
        func count(_ record: ReservationApiModel, _ update: (inout DayChange, Int) -> Void) {
            guard takesPlaces(record, at: now), let partySize = record.partySize,
                Reservation.partySizes.contains(partySize), let landmarkText = record.landmarkId,
                let landmarkID = Landmark.ID(landmarkText), let landmark = catalog[landmarkID],
                let dateText = record.date,
                let date = try? DateTime.parse(dateText),
                let day = Capacity.Day(of: date, in: Capacity.calendar(for: landmark))
            else { return }
            let key = "\(landmarkID) \(day.start.timeIntervalSince1970)"
            var change = days[key] ?? DayChange(landmark: landmark, capacity: landmark.capacity, day: day)
            update(&change, partySize)
            days[key] = change
        }
        for step in steps {
            count(step.current) { $0.removed += $1 }
            count(step.target) { $0.added += $1 }
        }
        return days.values.filter { $0.added > $0.removed }.sorted {
            ($0.landmark.id.description, $0.day.start) < ($1.landmark.id.description, $1.day.start)
        }
    }

    /// Whether a record takes places at `now` (`Reservation.takesPlaces(at:)`, on a record that may not map).
    static func takesPlaces(_ record: ReservationApiModel, at now: Date) -> Bool {
        guard let raw = record.status, let status = Reservation.Status(rawValue: raw) else { return false }
        return Reservation.takesPlaces(status, expiresAt: record.expiresAt.flatMap { try? DateTime.parse($0) }, at: now)
    }

    /// Whether two records hold the same landmark, date, party size, status and note.
    static func sameValues(_ a: ReservationApiModel, _ b: ReservationApiModel) -> Bool {
        a.landmarkId == b.landmarkId && a.date == b.date && a.partySize == b.partySize && a.status == b.status
            && a.note == b.note
    }
}
