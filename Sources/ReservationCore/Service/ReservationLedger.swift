import Foundation

/// The records of a store and the rules that change them, shared by the
/// in-memory and file backends. It edits records in place, so fields the tool
/// does not know and records that do not map survive every change.
public struct ReservationLedger: Sendable {
    /// The records exactly as stored, valid or not.
    public private(set) var records: [JSONValue]
    /// Counts changes, so a store writes only when there is something to write.
    public private(set) var revision = 0
    /// Every change, oldest first, as stored (entries this version cannot read are kept as they are).
    public private(set) var history: [JSONValue]
    public let catalog: LandmarkCatalog
    private var reservations: [Reservation]
    private let rejected: [RejectedRecord]
    /// For each reservation, the index of the record it maps from. A change finds
    /// its reservation by a scan, which costs less than building an index of
    /// every id for a command that changes one or two.
    private var positions: [Int]

    public init(records: [JSONValue], history: [JSONValue] = [], catalog: LandmarkCatalog) {
        let mapped = ReservationSnapshot.map(records, catalog: catalog)
        self.records = records
        self.history = history
        self.catalog = catalog
        self.reservations = mapped.reservations
        self.rejected = mapped.rejected
        self.positions = mapped.positions
    }

    /// What the records map to now.
    public var snapshot: ReservationSnapshot {
        ReservationSnapshot(reservations: reservations, rejected: rejected, catalog: catalog)
    }

    /// Appends new reservations, all or none: each request's landmark is
    /// resolved in this ledger's catalog and its day checked against the
    /// landmark's capacity, counting the requests before it. When any request
    /// fails, the ledger is unchanged and the error lists every failure.
    public mutating func reserve(
        _ requests: [NewReservation], now: Date, newID: () -> Reservation.ID = { Reservation.ID(UUID()) }
    ) throws(ReservationError) -> [Reservation] {
        var draft = self
        let command = UUID().uuidString.lowercased()
        var tally = Capacity.Tally(existing: reservations)
        var created: [Reservation] = []
        var failures: [BatchFailure] = []
        created.reserveCapacity(requests.count)
        draft.records.reserveCapacity(records.count + requests.count)
        draft.reservations.reserveCapacity(reservations.count + requests.count)
        draft.positions.reserveCapacity(reservations.count + requests.count)
        for (index, request) in requests.enumerated() {
            do {
                let reservation = try draft.append(request, id: newID(), now: now, tally: &tally)
                draft.log(.created, before: nil, after: reservation, at: now, command: command)
                created.append(reservation)
            } catch {
                failures.append(BatchFailure(index: index, error: error))
            }
        }
        guard failures.isEmpty else { throw .batchRejected(failures, total: requests.count) }
        self = draft
        return created
    }

    private mutating func append(
        _ request: NewReservation, id: Reservation.ID, now: Date, tally: inout Capacity.Tally
    ) throws(ReservationError) -> Reservation {
        // Checked again here, by the backend's own clock: a request validated long ago may be stale.
        guard request.date > now else { throw .dateInPast(request.date) }
        let landmark = try catalog.landmark(matching: request.landmark)
        try tally.book(request, at: landmark)
        let created = Timestamp.whole(now)
        let reservation = Reservation(
            id: id, landmark: landmark, date: request.date, partySize: request.partySize, status: request.status,
            createdAt: created, updatedAt: created, version: 1)
        positions.append(records.count)
        records.append(ReservationApiModel(reservation).json)
        reservations.append(reservation)
        revision += 1
        return reservation
    }

    /// Sets the status to cancelled; cancelling twice succeeds and reports no change.
    public mutating func cancel(_ id: Reservation.ID, now: Date = Date()) throws(ReservationError) -> StatusChange {
        try setStatus(.cancelled, of: id, now: now)
    }

    /// Cancels several reservations, all or none: an unknown id changes nothing.
    public mutating func cancel(_ ids: [Reservation.ID], now: Date = Date()) throws(ReservationError)
        -> [StatusChange]
    {
        var draft = self
        var changes: [StatusChange] = []
        let command = UUID().uuidString.lowercased()
        for id in ids { changes.append(try draft.setStatus(.cancelled, of: id, now: now, command: command)) }
        self = draft
        return changes
    }

    /// Moves pending to confirmed; a cancelled reservation cannot be confirmed.
    public mutating func confirm(_ id: Reservation.ID, now: Date = Date()) throws(ReservationError) -> StatusChange {
        try setStatus(.confirmed, of: id, now: now)
    }

    /// Confirms several reservations, all or none: an unknown or cancelled id changes nothing.
    public mutating func confirm(_ ids: [Reservation.ID], now: Date = Date()) throws(ReservationError)
        -> [StatusChange]
    {
        var draft = self
        var changes: [StatusChange] = []
        let command = UUID().uuidString.lowercased()
        for id in ids { changes.append(try draft.setStatus(.confirmed, of: id, now: now, command: command)) }
        self = draft
        return changes
    }

    private mutating func setStatus(
        _ status: Reservation.Status, of id: Reservation.ID, now: Date,
        command: String = UUID().uuidString.lowercased()
    ) throws(ReservationError) -> StatusChange {
        guard let index = reservations.firstIndex(where: { $0.id == id }) else {
            throw .reservationNotFound(id.description)
        }
        let current = reservations[index]
        if status == .confirmed, current.status == .cancelled { throw .cannotConfirmCancelled(current) }
        guard current.status != status else { return StatusChange(reservation: current, previous: current.status) }
        let updated = current.changed(status: status, at: now)
        write(updated, at: index)
        log(status == .cancelled ? .cancelled : .confirmed, before: current, after: updated, at: now, command: command)
        return StatusChange(reservation: updated, previous: current.status)
    }

    /// Changes a reservation's date, party size, landmark or note in one step.
    /// Capacity is counted without the reservation's own places, so a party may
    /// grow into what it holds and a move frees its old day at once. With
    /// `expectedVersion`, a reservation changed since (another version) is refused.
    /// A change to the values it already has changes nothing (same version).
    public mutating func modify(
        _ id: Reservation.ID, _ change: ReservationChange, expectedVersion: Int? = nil, now: Date
    ) throws(ReservationError) -> Reservation {
        guard let index = reservations.firstIndex(where: { $0.id == id }) else {
            throw .reservationNotFound(id.description)
        }
        let current = reservations[index]
        if let expectedVersion, expectedVersion != current.version {
            throw .versionMismatch(id, expected: expectedVersion, current: current.version)
        }
        guard current.status.isActive else { throw .cannotModifyCancelled(current) }
        let landmark = try change.landmark.map { text throws(ReservationError) in try catalog.landmark(matching: text) }
        if let date = change.date, date <= now { throw .dateInPast(date) }
        let note = change.note.map { $0.isEmpty ? nil : $0 } ?? current.note
        let target = current.changed(
            landmark: landmark, date: change.date, partySize: change.partySize, note: .some(note), at: now)
        guard
            target.landmark.id != current.landmark.id || target.date != current.date
                || target.partySize != current.partySize || target.note != current.note
        else { return current }
        // A note, or a smaller party on the same day, takes no place from anyone.
        let takesMore =
            target.landmark.id != current.landmark.id || target.date != current.date
            || target.partySize > current.partySize
        if takesMore, let capacity = target.landmark.capacity,
            let day = Capacity.Day(of: target.date, in: Capacity.calendar(for: target.landmark))
        {
            // The other active reservations of the day: this one's own places are released.
            let booked = booked(at: target.landmark.id, on: day, except: id)
            guard Capacity.fits(target.partySize, booked: booked, capacity: capacity) else {
                throw .noCapacity(target.landmark, day: day.text, requested: target.partySize, booked: booked)
            }
        }
        write(target, at: index)
        log(.modified, before: current, after: target, at: now, command: UUID().uuidString.lowercased())
        return target
    }

    /// Takes back the newest command that is neither an undo nor undone, as one
    /// step of compensating changes (`Undo`'s rules), recorded as `undone`
    /// entries of a new command. Nothing changes when a reservation of that
    /// command changed since, or a day it gives people back to has no room.
    public mutating func undo(now: Date) throws(ReservationError) -> UndoResult {
        let command = Undo.lastCommand(in: history.compactMap(HistoryEntry.init(json:)))
        guard let taken = command.first?.command else { throw .nothingToUndo }
        let current = Dictionary(reservations.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let steps = try Undo.plan(command, current: { current[$0].map(ReservationApiModel.init) }, now: now)
        for change in Undo.dayChanges(steps, catalog: catalog) {
            try change.check(booked: booked(at: change.landmark.id, on: change.day))
        }
        var draft = self
        let undo = UUID().uuidString.lowercased()
        var entries: [HistoryEntry] = []
        for step in steps {
            guard let index = draft.reservations.firstIndex(where: { $0.id == step.id }) else {
                throw .reservationNotFound(step.id.description)
            }
            let target: Reservation
            do {
                target = try Reservation(step.target, catalog: catalog)
            } catch {
                // The values it had do not map now: a landmark gone from the catalog, an entry another program wrote.
                throw .invalidRequestField("the history of reservation \(step.id.short)", error.description)
            }
            draft.write(target, at: index)
            let entry = HistoryEntry(
                at: Timestamp.whole(now), change: .undone, reservationID: step.id, before: step.current,
                after: ReservationApiModel(target), command: undo, undoes: taken)
            draft.history.append(entry.json)
            entries.append(entry)
        }
        self = draft
        return UndoResult(command: taken, changes: entries)
    }

    /// People booked at a landmark in a day: active reservations with a valid party size, but `except`.
    private func booked(at landmark: Landmark.ID, on day: Capacity.Day, except: Reservation.ID? = nil) -> Int {
        reservations.reduce(0) { sum, other in
            guard other.id != except, other.status.isActive, other.landmark.id == landmark,
                other.date >= day.start, other.date < day.end, Reservation.partySizes.contains(other.partySize)
            else { return sum }
            return sum + other.partySize
        }
    }

    /// Appends a change to the history, in the same write as the change.
    private mutating func log(
        _ change: HistoryEntry.Change, before: Reservation?, after: Reservation, at now: Date, command: String
    ) {
        let entry = HistoryEntry(
            at: Timestamp.whole(now), change: change, reservationID: after.id,
            before: before.map(ReservationApiModel.init),
            after: ReservationApiModel(after), command: command)
        history.append(entry.json)
    }

    /// The changes that can be read, newest first; only `id`'s when given, the newest `limit` when given.
    public func changes(of id: Reservation.ID? = nil, limit: Int? = nil) -> [HistoryEntry] {
        let newestFirst = history.reversed().lazy.compactMap(HistoryEntry.init(json:)).filter {
            id == nil || $0.reservationID == id
        }
        return Array(newestFirst.prefix(max(0, limit ?? .max)))
    }

    /// Puts a changed reservation in its record, editing only the fields the
    /// tool owns, so unknown fields stay.
    private mutating func write(_ reservation: Reservation, at index: Int) {
        let position = positions[index]
        let fields = ReservationApiModel(reservation).json
        for key in ["landmarkId", "date", "partySize", "status", "createdAt", "updatedAt", "version"] {
            records[position][key] = fields[key]
        }
        // A "note" that is not text belongs to someone else (an older tool): left as it is.
        if let note = reservation.note {
            records[position]["note"] = .string(note)
        } else if case .string? = records[position]["note"] {
            records[position]["note"] = nil
        }
        reservations[index] = reservation
        revision += 1
    }
}

/// What a modify changes: each field given replaces the reservation's; an
/// empty note removes it. Checked without a backend (party size, note length,
/// at least one field); the landmark stays as the user gave it and the backend
/// resolves it.
public struct ReservationChange: Sendable, Hashable {
    public let date: Date?
    public let partySize: Int?
    public let landmark: String?
    public let note: String?

    public init(date: Date? = nil, partySize: Int? = nil, landmark: String? = nil, note: String? = nil)
        throws(ReservationError)
    {
        guard date != nil || partySize != nil || landmark != nil || note != nil else { throw .nothingToModify }
        if let partySize, !Reservation.partySizes.contains(partySize) { throw .invalidPartySize(partySize) }
        if let note, !Reservation.isValidNote(note) { throw .invalidNote(note.count) }
        self.date = date
        self.partySize = partySize
        self.landmark = landmark
        self.note = note
    }
}
