import Foundation

extension Booking {
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
        return try await takeBack(command, taken: taken, as: .undone, command: undo, now: now, in: transaction)
    }

    /// Takes back the user's newest undo, while nothing but undos and redos
    /// came after it (`Undo.redoReading`'s rule): each of its reservations
    /// returns to what it was before that undo, under the rules of an undo
    /// (checked to be as the undo left it, capacity-checked, never active
    /// again on a date that has passed), recorded as `redone` entries of a new
    /// command; all written, or nothing.
    public static func redo(now: Date, command redo: String = newCommand(), in transaction: some BookingTransaction)
        async throws -> UndoResult
    {
        try await transaction.lockHistory(exclusive: true)
        let undo = Undo.undoToRedo(in: try await transaction.undosSinceLastCommand())
        guard let taken = undo.first?.command else { throw ReservationError.nothingToRedo }
        return try await takeBack(undo, taken: taken, as: .redone, command: redo, now: now, in: transaction)
    }

    /// The compensating changes of an undo (`change` `.undone`) of `entries` (the
    /// command `taken`, oldest first), or of a redo (`.redone`) of an undo's.
    private static func takeBack(
        _ entries: [HistoryEntry], taken: String, as change: HistoryEntry.Change, command undo: String, now: Date,
        in transaction: some BookingTransaction
    ) async throws -> UndoResult {
        let command = entries
        let redo = change == .redone
        let ids = Set(command.map(\.reservationID)).sorted { $0.description < $1.description }
        let records = try await transaction.recordsForUpdate(ids)
        let at = Timestamp.whole(now)
        let steps = try Undo.plan(command, current: { records[$0]?.record }, now: at, redo: redo)
        let catalog = transaction.catalog
        var changes = Undo.dayChanges(steps, catalog: catalog, now: now)
        let rules = try await transaction.dayRules(changes.map { BookingDay(landmark: $0.landmark.id, day: $0.day) })
        for index in changes.indices {
            let rule = rules[BookingDay(landmark: changes[index].landmark.id, day: changes[index].day)]
            changes[index].closed = rule?.closed
            changes[index].capacity = limit(of: rule, at: changes[index].landmark)
        }
        let booked = try await count(
            changes.filter { $0.capacity != nil }.map { BookingDay(landmark: $0.landmark.id, day: $0.day) }, now: now,
            in: transaction)
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
                    at: at, change: change, reservationID: step.id, before: step.current,
                    after: ReservationApiModel(target), command: undo, undoes: taken))
        }
        try await transaction.update(targets)
        try await transaction.append(entries)
        // A hold brought back after its end (its confirm taken back) ends now, in this
        // transaction, as a sweep would have ended it: never a `held` past its time.
        let ended = targets.filter { $0.status == .held && $0.expiresAt.map { $0 <= now } ?? false }
        try await expire(ended.map(StoredReservation.init), now: now, in: transaction)
        // Places it gives back, and requests it puts back on a list, may let waitlisted ones in.
        var touched: [BookingDay] = []
        for step in steps {
            for record in [step.current, step.target]
            where Undo.takesPlaces(record, at: now) || record.status == Reservation.Status.waitlisted.rawValue {
                if let reservation = try? Reservation(record, catalog: catalog),
                    let day = BookingDay(reservation.date, at: reservation.landmark)
                {
                    touched.append(day)
                }
            }
        }
        try await promote(on: touched, now: now, in: transaction)
        return UndoResult(command: taken, changes: entries, isRedo: redo)
    }
}
