import Foundation

/// The booking rules, written once for every engine: reserve (one or a batch,
/// all or nothing), cancel and confirm of several ids, modify, undo, and the
/// capacity of a landmark-day. Each runs inside one transaction of an engine
/// (`BookingTransaction`), at a time the caller hands in; refusals are
/// `ReservationError`, and nothing a refused call did is kept.
public enum Booking {
    /// Books `requests`, all or none: each request's landmark resolved in the
    /// catalog, its date still ahead of `now`, its day's capacity checked counting
    /// the requests before it. When any is refused, the error
    /// (`batchRejected`) names every refused request and nothing is stored.
    public static func reserve(
        _ requests: [NewReservation], now: Date, command: String = newCommand(),
        newID: () -> Reservation.ID = { Reservation.ID(UUID()) }, in transaction: some BookingTransaction
    ) async throws -> [Reservation] {
        try await transaction.lockHistory(exclusive: false)
        let catalog = transaction.catalog
        var failures: [BatchFailure] = []
        var resolved: [(request: NewReservation, landmark: Landmark, day: BookingDay?)?] = []
        resolved.reserveCapacity(requests.count)
        var landmarks: [String: Landmark] = [:]
        for (index, request) in requests.enumerated() {
            do throws(ReservationError) {
                // Checked again here, by the backend's own clock: a request validated long ago may be stale.
                guard request.date > now else { throw .dateInPast(request.date) }
                let landmark: Landmark
                if let known = landmarks[request.landmark] {
                    landmark = known
                } else {
                    landmark = try catalog.landmark(matching: request.landmark)
                    landmarks[request.landmark] = landmark
                }
                resolved.append((request, landmark, BookingDay(request.date, at: landmark)))
            } catch {
                failures.append(BatchFailure(index: index, error: error))
                resolved.append(nil)
            }
        }
        var booked = try await transaction.booked(Set(resolved.compactMap { $0?.day }).sorted())
        for (index, item) in resolved.enumerated() {
            guard let item, let day = item.day, let capacity = item.landmark.capacity else { continue }
            let already = booked[day, default: 0]
            if Capacity.fits(item.request.partySize, booked: already, capacity: capacity) {
                booked[day] = already + item.request.partySize
            } else {
                let refusal = ReservationError.noCapacity(
                    item.landmark, day: day.day.text, requested: item.request.partySize, booked: already)
                failures.append(BatchFailure(index: index, error: refusal))
            }
        }
        guard failures.isEmpty else {
            throw ReservationError.batchRejected(failures.sorted { $0.index < $1.index }, total: requests.count)
        }
        let created = Timestamp.whole(now)
        let reservations = resolved.compactMap { $0 }.map { item in
            Reservation(
                id: newID(), landmark: item.landmark, date: item.request.date, partySize: item.request.partySize,
                status: item.request.status, note: item.request.note, createdAt: created, updatedAt: created,
                version: 1)
        }
        try await transaction.insert(reservations)
        try await transaction.append(
            reservations.map { entry(.created, before: nil, after: $0, at: created, command: command) })
        return reservations
    }

    /// Books one request; a refusal is the request's own error, not a batch's.
    public static func reserve(
        _ request: NewReservation, now: Date, in transaction: some BookingTransaction
    ) async throws -> Reservation {
        do {
            return try await reserve([request], now: now, in: transaction)[0]
        } catch ReservationError.batchRejected(let failures, _) where failures.count == 1 {
            throw failures[0].error
        }
    }

    /// Cancels (`.cancelled`) or confirms (`.confirmed`) the reservations `ids`,
    /// all or none: an id the user has no reservation of, or a cancelled one to
    /// confirm, changes nothing. Cancelling twice succeeds and changes nothing.
    /// Changes come back in the order of `ids`.
    public static func setStatus(
        _ status: Reservation.Status, of ids: [Reservation.ID], now: Date, command: String = newCommand(),
        in transaction: some BookingTransaction
    ) async throws -> [StatusChange] {
        try await transaction.lockHistory(exclusive: false)
        let current = try await reservations(ids, in: transaction)
        if let missing = ids.first(where: { current[$0] == nil }) {
            throw ReservationError.reservationNotFound(missing.description)
        }
        if status == .confirmed,
            let cancelled = ids.lazy.compactMap({ current[$0] }).first(where: { $0.status == .cancelled })
        {
            throw ReservationError.cannotConfirmCancelled(cancelled)
        }
        let at = Timestamp.whole(now)
        var latest: [Reservation.ID: Reservation] = [:]
        var changes: [StatusChange] = []
        var changed: [Reservation] = []
        var entries: [HistoryEntry] = []
        for id in ids {
            guard let before = current[id] else { continue }
            if let already = latest[id] {
                changes.append(StatusChange(reservation: already, previous: already.status))
                continue
            }
            guard before.status != status else {
                latest[id] = before
                changes.append(StatusChange(reservation: before, previous: before.status))
                continue
            }
            let after = before.changed(status: status, at: at)
            latest[id] = after
            changed.append(after)
            changes.append(StatusChange(reservation: after, previous: before.status))
            entries.append(
                entry(
                    status == .cancelled ? .cancelled : .confirmed, before: before, after: after, at: at,
                    command: command))
        }
        try await transaction.update(changed)
        try await transaction.append(entries)
        return changes
    }

    /// Changes a reservation's date, party size, landmark or note in one step.
    /// Capacity is counted without the reservation's own places, so a party may
    /// grow into what it holds and a move frees its old day at once. With
    /// `expectedVersion`, a reservation changed since (another version) is
    /// refused. A change to the values it already has changes nothing (same version).
    public static func modify(
        _ id: Reservation.ID, _ change: ReservationChange, expectedVersion: Int? = nil, now: Date,
        command: String = newCommand(), in transaction: some BookingTransaction
    ) async throws -> Reservation {
        try await transaction.lockHistory(exclusive: false)
        guard let current = try await reservations([id], in: transaction)[id] else {
            throw ReservationError.reservationNotFound(id.description)
        }
        if let expectedVersion, expectedVersion != current.version {
            throw ReservationError.versionMismatch(id, expected: expectedVersion, current: current.version)
        }
        guard current.status.isActive else { throw ReservationError.cannotModifyCancelled(current) }
        let catalog = transaction.catalog
        let landmark = try change.landmark.map { text throws(ReservationError) in try catalog.landmark(matching: text) }
        if let date = change.date, date <= now { throw ReservationError.dateInPast(date) }
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
        if takesMore, let capacity = target.landmark.capacity, let day = BookingDay(target.date, at: target.landmark) {
            var booked = try await transaction.booked([day])[day, default: 0]
            // Its own places, when they are on this day, are released by this change.
            if day.contains(current.landmark.id, current.date), Reservation.partySizes.contains(current.partySize) {
                booked -= current.partySize
            }
            guard Capacity.fits(target.partySize, booked: booked, capacity: capacity) else {
                throw ReservationError.noCapacity(
                    target.landmark, day: day.day.text, requested: target.partySize, booked: booked)
            }
        }
        try await transaction.update([target])
        try await transaction.append([
            entry(.modified, before: current, after: target, at: Timestamp.whole(now), command: command)
        ])
        return target
    }

    /// Takes back the user's newest command that is neither an undo nor undone,
    /// as one step of compensating changes (`Undo`'s rules), recorded as
    /// `undone` entries of a new command: the history locked (no change of the
    /// user under way or starting), the command's reservations locked and each
    /// checked to be as the command left it, the days it gives people back to
    /// locked and counted; all written, or nothing.
    public static func undo(now: Date, command undo: String = newCommand(), in transaction: some BookingTransaction)
        async throws -> UndoResult
    {
        try await transaction.lockHistory(exclusive: true)
        let command = try await transaction.commandToUndo()
        guard let taken = command.first?.command else { throw ReservationError.nothingToUndo }
        let ids = Set(command.map(\.reservationID)).sorted { $0.description < $1.description }
        let records = try await transaction.recordsForUpdate(ids)
        let at = Timestamp.whole(now)
        let steps = try Undo.plan(command, current: { records[$0] }, now: at)
        let catalog = transaction.catalog
        let changes = Undo.dayChanges(steps, catalog: catalog)
        let booked = try await transaction.booked(
            changes.map { BookingDay(landmark: $0.landmark.id, day: $0.day) })
        for change in changes {
            try change.check(booked: booked[BookingDay(landmark: change.landmark.id, day: change.day), default: 0])
        }
        var targets: [Reservation] = []
        var entries: [HistoryEntry] = []
        for step in steps {
            let target: Reservation
            do {
                target = try Reservation(step.target, catalog: catalog)
            } catch {
                // The values it had do not map now: a landmark gone from the catalog, an entry another program wrote.
                throw ReservationError.invalidRequestField(
                    "the history of reservation \(step.id.short)", error.description)
            }
            targets.append(target)
            entries.append(
                HistoryEntry(
                    at: at, change: .undone, reservationID: step.id, before: step.current,
                    after: ReservationApiModel(target), command: undo, undoes: taken))
        }
        try await transaction.update(targets)
        try await transaction.append(entries)
        return UndoResult(command: taken, changes: entries)
    }

    /// A new command id: every change of one request shares it.
    public static func newCommand() -> String { UUID().uuidString.lowercased() }

    /// The user's reservations with these ids that map (a record that does not is not found), locked.
    private static func reservations(_ ids: [Reservation.ID], in transaction: some BookingTransaction)
        async throws -> [Reservation.ID: Reservation]
    {
        let records = try await transaction.recordsForUpdate(Set(ids).sorted { $0.description < $1.description })
        let catalog = transaction.catalog
        var found: [Reservation.ID: Reservation] = [:]
        found.reserveCapacity(records.count)
        for (id, record) in records {
            if let reservation = try? Reservation(record, catalog: catalog) { found[id] = reservation }
        }
        return found
    }

    private static func entry(
        _ change: HistoryEntry.Change, before: Reservation?, after: Reservation, at: Date, command: String
    ) -> HistoryEntry {
        HistoryEntry(
            at: at, change: change, reservationID: after.id, before: before.map(ReservationApiModel.init),
            after: ReservationApiModel(after), command: command)
    }
}
