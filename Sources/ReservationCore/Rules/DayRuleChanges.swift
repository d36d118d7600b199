import Foundation

extension Booking {
    /// The most people a landmark-day takes under its rule: none when it is closed,
    /// the day's own capacity, or the catalog's; nil when the landmark takes everyone
    /// (a landmark without a capacity is limited only by closures).
    static func limit(of rule: DayRule?, at landmark: Landmark) -> Int? {
        if rule?.closed != nil { return 0 }
        guard let capacity = landmark.capacity else { return nil }
        return rule?.capacity ?? capacity
    }

    /// Sets a capacity for, closes, or opens each of `days` at the landmark named
    /// `landmarkText` (docs/contracts.md, "Capacity by date and closures"), in one
    /// transaction: the days locked, their rules and places read, every day checked.
    /// A day left with more people than it now takes is refused (`placesOver`, naming
    /// the places over) unless `overflow` says what happens to the parties over:
    /// `.cancel` cancels the latest booked, `.waitlist` moves them to the head of the
    /// day's waitlist in booking order; each such change is recorded in its owner's
    /// history with the change's reason. Days given places (opened, a capacity
    /// raised) promote their waitlists.
    public static func changeDays(
        _ change: DayChange, at landmarkText: String, days: [CalendarDay], overflow: Overflow = .refuse, now: Date,
        command: String = newCommand(), in transaction: some BookingTransaction
    ) async throws -> DaysChanged {
        switch change {
        case .capacity(let capacity): try DayRule.check(capacity: capacity)
        case .close(let reason): try DayRule.check(reason: reason)
        case .open: break
        }
        guard !days.isEmpty, days.count <= Capacity.longestRange else {
            throw ReservationError.invalidDays("give from 1 to \(Capacity.longestRange) days")
        }
        try await transaction.lockHistory(exclusive: false)
        let landmark = try transaction.catalog.landmark(matching: landmarkText)
        if case .capacity = change, landmark.capacity == nil {
            throw ReservationError.invalidRequestField(
                "capacity",
                "cannot be set by day at \(landmark.name), which takes everyone: give it a capacity in the catalog first"
            )
        }
        let calendar = Capacity.calendar(for: landmark)
        var bookingDays: [BookingDay] = []
        for day in Set(days).sorted() {
            guard let interval = day.interval(in: calendar) else {
                throw ReservationError.invalidDays("\(day) has no dates in \(calendar.timeZone.identifier)")
            }
            bookingDays.append(BookingDay(landmark: landmark.id, day: interval))
        }
        let rules = try await transaction.dayRules(bookingDays)
        let taken = try await count(bookingDays, now: now, in: transaction)
        var newRules: [DayRule] = []
        var over: [(day: BookingDay, limit: Int, excess: Int)] = []
        var freed: [BookingDay] = []
        for (day, calendarDay) in zip(bookingDays, Set(days).sorted()) {
            let old = rules[day] ?? DayRule(landmark: landmark.id, day: calendarDay)
            let new = change.applied(to: old)
            newRules.append(new)
            let (before, after) = (limit(of: rules[day], at: landmark), limit(of: new, at: landmark))
            if let after, taken[day, default: 0] > after {
                over.append((day, after, taken[day, default: 0] - after))
            } else if (before ?? .max) < (after ?? .max) {
                freed.append(day)
            }
        }
        if !over.isEmpty, overflow == .refuse {
            throw ReservationError.placesOver(
                landmark.with(capacity: over.first?.limit), over: over.reduce(0) { $0 + $1.excess },
                days: over.map(\.day.day.text))
        }
        let at = Timestamp.whole(now)
        var cancelled: [Reservation] = []
        var waitlisted: [Reservation] = []
        var entries: [HistoryEntry] = []
        let reason = change.reason
        if !over.isEmpty {
            let parties = try await transaction.takingPlaces(over.map(\.day), at: now)
            let lists = overflow == .waitlist ? try await transaction.waitlisted(over.map(\.day)) : [:]
            for (day, limit, _) in over {
                // The latest booked leave first, until the day holds no more than it takes.
                var left = taken[day, default: 0]
                var leaving: [Reservation] = []
                for party in (parties[day] ?? []).reversed() where left > limit {
                    guard let reservation = party.reservation?.settled(at: now), reservation.takesPlaces(at: now)
                    else { continue }
                    leaving.insert(reservation, at: 0)
                    left -= reservation.partySize
                }
                switch overflow {
                case .refuse: break
                case .cancel:
                    for party in leaving {
                        let after = party.changed(status: .cancelled, at: at)
                        cancelled.append(after)
                        entries.append(
                            entry(.cancelled, before: party, after: after, at: at, command: command, reason: reason))
                    }
                case .waitlist:
                    // To the head of the list, in the order they were booked, before everyone waiting.
                    let first = (lists[day] ?? []).map { $0.waitlistOrder ?? 0 }.min() ?? 1
                    let (start, overflowed) = first.subtractingReportingOverflow(leaving.count)
                    for (offset, party) in leaving.enumerated() {
                        let requested: Reservation.Status = party.status == .confirmed ? .confirmed : .pending
                        let after = Reservation(
                            id: party.id, landmark: party.landmark, date: party.date, partySize: party.partySize,
                            status: .waitlisted, note: party.note, createdAt: party.createdAt, updatedAt: at,
                            version: party.version + 1, waitlistOrder: overflowed ? .min : start + offset,
                            requestedStatus: requested, series: party.series)
                        waitlisted.append(after)
                        entries.append(
                            entry(.modified, before: party, after: after, at: at, command: command, reason: reason))
                    }
                }
            }
        }
        try await transaction.updateAny(cancelled + waitlisted, entries: entries)
        try await transaction.setDayRules(newRules)
        let promoted = try await promote(on: freed, now: now, in: transaction)
        return DaysChanged(
            rules: newRules, cancelled: cancelled.map(\.id), waitlisted: waitlisted.map(\.id),
            promoted: promoted.map(\.id))
    }
}
