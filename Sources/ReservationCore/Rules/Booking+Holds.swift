import Foundation

extension Booking {
    /// Records the end of every hold that has ended by `now` (at most `limit`,
    /// of any user, skipping those another transaction is changing), and
    /// promotes the waitlists of the days they free: the system's change, as
    /// a sweep of a server and a write of the file store run it. Returns the holds ended.
    @discardableResult
    public static func expireHolds(now: Date, limit: Int = 1_000, in transaction: some BookingTransaction)
        async throws -> [Reservation]
    {
        try await expire(transaction.dueHolds(on: nil, at: now, limit: limit), now: now, in: transaction)
    }

    /// The user's reservations with these ids that map (a record that does not
    /// is not found), locked, as they read at `now` (a hold that ended, expired).
    static func reservations(_ ids: [Reservation.ID], now: Date, in transaction: some BookingTransaction)
        async throws -> [Reservation.ID: Reservation]
    {
        try await transaction.recordsForUpdate(Set(ids).sorted { $0.description < $1.description }).compactMapValues {
            $0.reservation?.settled(at: now)
        }
    }

    /// Locks `days` (sorted) and counts the people booked there, after ending
    /// the holds there that have ended and promoting from the lists they free:
    /// what a group of bookings of one day (`GroupedTransaction`) does once,
    /// before its members run, each of which then finds the day settled.
    public static func settle(_ days: [BookingDay], now: Date, in transaction: some BookingTransaction)
        async throws -> [BookingDay: Int]
    {
        try await count(days, now: now, in: transaction)
    }

    /// Locks `days` (sorted) and counts the people booked there, after ending
    /// the holds there that have ended (and promoting from the lists they free),
    /// so no new request passes a waitlist that a hold's end should have served.
    static func count(_ days: [BookingDay], now: Date, in transaction: some BookingTransaction)
        async throws -> [BookingDay: Int]
    {
        guard !days.isEmpty else { return [:] }
        let due = try await transaction.dueHolds(on: days, at: now, limit: .max)
        if !due.isEmpty { try await expire(due, now: now, in: transaction) }
        return try await transaction.booked(days, at: now)
    }

    /// Marks these held records expired (those that map and have ended) and promotes on their days.
    @discardableResult
    static func expire(_ records: [StoredReservation], now: Date, in transaction: some BookingTransaction)
        async throws -> [Reservation]
    {
        guard !records.isEmpty else { return [] }
        let at = Timestamp.whole(now)
        let command = newCommand()
        var ended: [Reservation] = []
        var entries: [HistoryEntry] = []
        var days: [BookingDay] = []
        for record in records {
            guard let hold = record.reservation, hold.status == .held,
                let end = hold.expiresAt, end <= now
            else { continue }
            let after = hold.changed(status: .expired, at: at)
            ended.append(after)
            entries.append(entry(.expired, before: hold, after: after, at: at, command: command))
            if let day = BookingDay(hold.date, at: hold.landmark) { days.append(day) }
        }
        try await transaction.updateAny(ended, entries: entries)
        try await promote(on: days, now: now, in: transaction)
        return ended
    }

    /// Gives places on each of `days` to its waitlisted reservations, in the
    /// order they joined, each that fits in what is left (a larger one keeps
    /// its place, a later smaller one may pass it): the system's change, in the
    /// transaction of the change that freed them. Returns the promoted.
    @discardableResult
    static func promote(on days: [BookingDay], now: Date, in transaction: some BookingTransaction)
        async throws -> [Reservation]
    {
        let days = Set(days).sorted()
        guard !days.isEmpty else { return [] }
        let rules = try await transaction.dayRules(days)
        let booked = try await transaction.booked(days, at: now)
        let lists = try await transaction.waitlisted(days)
        let catalog = transaction.catalog
        let at = Timestamp.whole(now)
        var promoted: [Reservation] = []
        var entries: [HistoryEntry] = []
        let command = newCommand()
        for day in days {
            guard let records = lists[day], !records.isEmpty, let landmark = catalog[day.landmark],
                let capacity = limit(of: rules[day], at: landmark)
            else {
                continue
            }
            var taken = booked[day, default: 0]
            for record in records {
                guard let waiting = record.reservation, waiting.status == .waitlisted,
                    Capacity.fits(waiting.partySize, booked: taken, capacity: capacity)
                else { continue }
                taken += waiting.partySize
                let after = waiting.changed(status: waiting.requestedStatus ?? .confirmed, at: at)
                promoted.append(after)
                entries.append(entry(.promoted, before: waiting, after: after, at: at, command: command))
            }
        }
        guard !promoted.isEmpty else { return [] }
        try await transaction.updateAny(promoted, entries: entries)
        return promoted
    }
}
