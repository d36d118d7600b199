import Foundation

extension Booking {
    /// Cancels (`.cancelled`) or confirms (`.confirmed`) the reservations `ids`,
    /// all or none: an id the user has no reservation of, or a cancelled one to
    /// confirm, changes nothing. Cancelling twice succeeds and changes nothing.
    /// Changes come back in the order of `ids`.
    public static func setStatus(
        _ status: Reservation.Status, of ids: [Reservation.ID], now: Date, command: String = newCommand(),
        in transaction: some BookingTransaction
    ) async throws -> [StatusChange] {
        try await transaction.lockHistory(exclusive: false)
        let current = try await reservations(ids, now: now, in: transaction)
        if let missing = ids.first(where: { current[$0] == nil }) {
            throw ReservationError.reservationNotFound(missing.description)
        }
        // A recorded visit (checked in, a no-show) is neither cancelled nor confirmed: only undone.
        if let settled = ids.lazy.compactMap({ current[$0] }).first(where: { $0.status.isAttendance }) {
            throw status == .cancelled
                ? ReservationError.cannotModifyCancelled(settled) : ReservationError.cannotConfirmCancelled(settled)
        }
        if status == .confirmed {
            for reservation in ids.lazy.compactMap({ current[$0] }) {
                switch reservation.status {
                case .cancelled: throw ReservationError.cannotConfirmCancelled(reservation)
                case .expired: throw ReservationError.holdExpired(reservation)
                case .waitlisted: throw ReservationError.cannotConfirmWaitlisted(reservation)
                case .checkedIn, .noShow: throw ReservationError.cannotConfirmCancelled(reservation)
                case .pending, .confirmed, .held: break
                }
            }
        }
        let at = Timestamp.whole(now)
        var latest: [Reservation.ID: Reservation] = [:]
        var changes: [StatusChange] = []
        var changed: [Reservation] = []
        var entries: [HistoryEntry] = []
        var freed: [BookingDay] = []
        for id in ids {
            guard let before = current[id] else { continue }
            if let already = latest[id] {
                changes.append(StatusChange(reservation: already, previous: already.status))
                continue
            }
            // Cancelling what has ended (cancelled, or a hold that expired) changes nothing.
            guard before.status != status, before.status.isActive else {
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
            if status == .cancelled, before.takesPlaces(at: now), let day = BookingDay(before.date, at: before.landmark)
            {
                freed.append(day)
            }
        }
        try await transaction.update(changed)
        try await transaction.append(entries)
        try await promote(on: freed, now: now, in: transaction)
        return changes
    }

    /// Records how a visit went (docs/contracts.md, "Check-in and no-shows"): `.checkedIn` (the
    /// party arrived) or `.noShow` (it did not come: only once its visit's time has passed at
    /// `now`). Only a pending or confirmed reservation may be either (`cannotAttend`, naming its
    /// status); a second one is refused naming when the first was (`alreadyAttended`). The
    /// places stay taken (`Capacity.takesPlaces`), so no day is counted anew and nobody is promoted.
    public static func attend(
        _ id: Reservation.ID, as status: Reservation.Status, now: Date, command: String = newCommand(),
        in transaction: some BookingTransaction
    ) async throws -> Reservation {
        precondition(status.isAttendance, "attend records checked-in or no-show")
        try await transaction.lockHistory(exclusive: false)
        guard let current = try await reservations([id], now: now, in: transaction)[id] else {
            throw ReservationError.reservationNotFound(id.description)
        }
        try checkAttendance(of: current, as: status, now: now)
        let at = Timestamp.whole(now)
        let after = current.changed(status: status, at: at)
        try await transaction.update([after])
        try await transaction.append([
            entry(status == .checkedIn ? .checkedIn : .noShow, before: current, after: after, at: at, command: command)
        ])
        return after
    }

    /// `attend`'s refusals, in order: the same status again, a status other than pending or
    /// confirmed, a no-show before the visit's time.
    public static func checkAttendance(
        of reservation: Reservation, as status: Reservation.Status, now: Date
    ) throws(ReservationError) {
        if reservation.status == status { throw .alreadyAttended(reservation) }
        guard reservation.status == .pending || reservation.status == .confirmed else {
            throw .cannotAttend(reservation, as: status)
        }
        if status == .noShow, reservation.date > now { throw .visitAhead(reservation) }
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
        guard let current = try await reservations([id], now: now, in: transaction)[id] else {
            throw ReservationError.reservationNotFound(id.description)
        }
        if let expectedVersion, expectedVersion != current.version {
            throw ReservationError.versionMismatch(id, expected: expectedVersion, current: current.version)
        }
        guard current.status.isActive else { throw ReservationError.cannotModifyCancelled(current) }
        let catalog = transaction.catalog
        let landmark = try change.landmark.map { text throws(ReservationError) in try catalog.bookable(matching: text) }
        // A move to another landmark without a new date keeps the visitor's clock: the same day and
        // time of day at the new landmark (09:00 at Half Dome is 09:00 at the Brooklyn Bridge).
        let date =
            try change.date
            ?? landmark.map { place throws(ReservationError) in
                try TypedDate.sameWallTime(
                    current.date, from: current.landmark.timeZone ?? .gmt, to: place.timeZone ?? .gmt)
            }
        if let date, date <= now, change.date != nil || date != current.date { throw ReservationError.dateInPast(date) }
        let note = change.note.map { $0.isEmpty ? nil : $0 } ?? current.note
        var target = current.changed(
            landmark: landmark, date: date, partySize: change.partySize, note: .some(note), at: now)
        let moved = target.landmark.id != current.landmark.id || target.date != current.date
        guard moved || target.partySize != current.partySize || target.note != current.note else { return current }
        let day = BookingDay(target.date, at: target.landmark)
        let oldDay = BookingDay(current.date, at: current.landmark)
        // The day it goes to is locked and its rule read: a closed day takes no one new.
        let ruled = BookingDay.ruled(target.date, at: target.landmark)
        var rule: DayRule?
        if let ruled { rule = try await transaction.dayRules([ruled])[ruled] }
        if moved || target.partySize > current.partySize, let reason = rule?.closed, let ruled {
            throw ReservationError.closed(target.landmark, day: ruled.day.text, reason: reason)
        }
        if current.status == .waitlisted {
            // A waitlisted request changes and stays on the list (at the end of another day's);
            // the promotion below gives it places at once when it now fits.
            if let day {
                if day != oldDay {
                    _ = try await count([day], now: now, in: transaction)
                    let list = try await transaction.waitlisted([day])[day] ?? []
                    target = current.changed(
                        landmark: landmark, date: date, partySize: change.partySize, note: .some(note),
                        waitlistOrder: Self.order(after: list), at: now)
                }
            } else {
                // No capacity where it goes: nothing to wait for.
                target = current.changed(
                    landmark: landmark, date: date, partySize: change.partySize,
                    status: current.requestedStatus ?? .confirmed, note: .some(note), at: now)
            }
        } else if moved || target.partySize > current.partySize, let capacity = limit(of: rule, at: target.landmark),
            let day
        {
            // A note, or a smaller party on the same day, takes no place from anyone.
            var booked = try await count([day], now: now, in: transaction)[day, default: 0]
            // Its own places, when they are on this day, are released by this change.
            if current.takesPlaces(at: now), day.contains(current.landmark.id, current.date),
                Reservation.partySizes.contains(current.partySize)
            {
                booked -= current.partySize
            }
            guard Capacity.fits(target.partySize, booked: booked, capacity: capacity) else {
                throw ReservationError.noCapacity(
                    target.landmark.with(capacity: capacity), day: day.day.text, requested: target.partySize,
                    booked: booked)
            }
        }
        try await transaction.update([target])
        try await transaction.append([
            entry(.modified, before: current, after: target, at: Timestamp.whole(now), command: command)
        ])
        var touched: [BookingDay] = []
        if current.takesPlaces(at: now), let oldDay, moved || target.partySize < current.partySize {
            touched.append(oldDay)
        }
        if target.status == .waitlisted, let day { touched.append(day) }
        let promoted = try await promote(on: touched, now: now, in: transaction)
        return promoted.first { $0.id == target.id } ?? target
    }
}
