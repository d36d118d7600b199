import Foundation
import Synchronization

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
        _ requests: [NewReservation], now: Date, command: String = newCommand(), holdLimit: Int? = nil,
        newID: () -> Reservation.ID = { Reservation.ID(UUID()) }, in transaction: some BookingTransaction
    ) async throws -> [Reservation] {
        try await transaction.lockHistory(exclusive: countsHolds(requests, holdLimit))
        let booked = try await book(
            requests, now: now, command: command, holdLimit: holdLimit, newID: newID, in: transaction)
        tally?.set(made: booked.count { $0.made }, found: Set(booked.filter { !$0.made }.map(\.reservation.id)))
        return booked.map(\.reservation)
    }

    /// How many of the requests of the last `reserve` run in the task (the one that committed,
    /// when a store runs its rule again) were booked, and how many a client's id found already
    /// booked: what an import says it did when another import booked the same events meanwhile.
    public final class Tally: Sendable {
        private let counts = Mutex((made: 0, found: Set<Reservation.ID>()))

        public init() {}

        func set(made: Int, found: Set<Reservation.ID>) { counts.withLock { $0 = (made, found) } }
        public var made: Int { counts.withLock { $0.made } }
        /// The reservations a client's id found already booked.
        public var found: Set<Reservation.ID> { counts.withLock { $0.found } }
    }

    /// Set by a caller that wants `reserve`'s counts (a rule that runs in this process: the file store).
    @TaskLocal public static var tally: Tally?

    /// Holds counted against a cap are counted with the user's other changes held off (an
    /// exclusive lock): two requests of one user side by side would each count the other's
    /// holds as not there and pass the cap together.
    private static func countsHolds(_ requests: [NewReservation], _ holdLimit: Int?) -> Bool {
        holdLimit != nil && requests.contains { $0.hold != nil }
    }

    /// One booking under an id the client made (docs/contracts.md, "Offline"),
    /// so a request sent again (a sync killed after the server answered) books
    /// nothing twice: `reserve`'s rule for a request with an `id`, `made` false
    /// when the user's booking with that id was the answer.
    public static func reserve(
        _ request: NewReservation, id: Reservation.ID, now: Date, holdLimit: Int? = nil,
        in transaction: some BookingTransaction
    ) async throws -> (reservation: Reservation, made: Bool) {
        var request = request
        request.id = id
        try await transaction.lockHistory(exclusive: countsHolds([request], holdLimit))
        do {
            return try await book([request], now: now, holdLimit: holdLimit, newID: { id }, in: transaction)[0]
        } catch ReservationError.batchRejected(let failures, _) where failures.count == 1 {
            throw failures[0].error
        }
    }

    /// The requests that carry an id the client made (docs/contracts.md,
    /// "Offline"): one the user's booking already has, made by the same
    /// request (landmark, date, party size, note, series), is that booking, not booked
    /// again; one whose booking differs, another user's, or one an earlier
    /// request of the batch carries, is refused (`reservationIDInUse`).
    private static func clientIDs(
        _ requests: [NewReservation], now: Date, in transaction: some BookingTransaction
    ) async throws -> (already: [Int: Reservation], refused: [Int: ReservationError]) {
        let given = Set(requests.compactMap(\.id)).sorted { $0.description < $1.description }
        guard !given.isEmpty else { return ([:], [:]) }
        var own = try await transaction.recordsForUpdate(given)
        var taken = try await transaction.takenIDs(given.filter { own[$0] == nil })
        if !taken.isEmpty {
            // Taken since the user's records were read: perhaps by the user's own request that
            // committed in between (the same batch sent to two instances at once), which is the
            // same booking, not another user's id. Read again, locked, the two are told apart.
            let late = try await transaction.recordsForUpdate(taken.sorted { $0.description < $1.description })
            own.merge(late) { _, late in late }
            taken.subtract(late.keys)
        }
        var already: [Int: Reservation] = [:]
        var refused: [Int: ReservationError] = [:]
        var seen: Set<Reservation.ID> = []
        for (index, request) in requests.enumerated() {
            guard let id = request.id else { continue }
            guard seen.insert(id).inserted, !taken.contains(id) else {
                refused[index] = .reservationIDInUse(id)
                continue
            }
            guard let stored = own[id] else { continue }
            if let existing = stored.reservation?.settled(at: now),
                let landmark = try? transaction.catalog.landmark(matching: request.landmark),
                existing.landmark.id == landmark.id, existing.date == request.date,
                existing.partySize == request.partySize, existing.note == request.note,
                existing.series == request.series
            {
                already[index] = existing
            } else {
                refused[index] = .reservationIDInUse(id)
            }
        }
        return (already, refused)
    }

    /// `reserve`'s rule, the user's history locked: each request's reservation,
    /// `made` false for one its client's id already had.
    private static func book(
        _ requests: [NewReservation], now: Date, command: String = newCommand(), holdLimit: Int?,
        newID: () -> Reservation.ID, in transaction: some BookingTransaction
    ) async throws -> [(reservation: Reservation, made: Bool)] {
        let (already, refusedIDs) = try await clientIDs(requests, now: now, in: transaction)
        let holds = requests.indices.count { requests[$0].hold != nil && already[$0] == nil }
        let catalog = transaction.catalog
        var failures: [BatchFailure] = []
        var resolved: [(request: NewReservation, landmark: Landmark, day: BookingDay?)?] = []
        resolved.reserveCapacity(requests.count)
        var landmarks: [String: Landmark] = [:]
        for (index, request) in requests.enumerated() {
            do throws(ReservationError) {
                if let refusal = refusedIDs[index] { throw refusal }
                guard already[index] == nil else {
                    resolved.append(nil)
                    continue
                }
                // Checked again here, by the backend's own clock: a request validated long ago may be stale.
                guard request.date > now else { throw .dateInPast(request.date) }
                let landmark: Landmark
                if let known = landmarks[request.landmark] {
                    landmark = known
                } else {
                    landmark = try catalog.bookable(matching: request.landmark)
                    landmarks[request.landmark] = landmark
                }
                resolved.append((request, landmark, BookingDay(request.date, at: landmark)))
            } catch {
                failures.append(BatchFailure(index: index, error: error))
                resolved.append(nil)
            }
        }
        // Every day booked on is locked and its rule read first (in the days' order), whether
        // or not its landmark has a capacity: a closure applies to every landmark.
        let rules = try await transaction.dayRules(
            Set(resolved.compactMap { $0.flatMap { BookingDay.ruled($0.request.date, at: $0.landmark) } }).sorted())
        var limits: [BookingDay: Int] = [:]
        for (index, item) in resolved.enumerated() {
            guard let item, let ruled = BookingDay.ruled(item.request.date, at: item.landmark) else { continue }
            if let reason = rules[ruled]?.closed {
                failures.append(
                    BatchFailure(index: index, error: .closed(item.landmark, day: ruled.day.text, reason: reason)))
                resolved[index] = nil
            } else if let day = item.day, let limit = limit(of: rules[day], at: item.landmark) {
                limits[day] = limit
            }
        }
        let days = Set(resolved.compactMap { $0?.day }).sorted()
        var booked = try await count(days, now: now, in: transaction)
        var statuses = [Reservation.Status?](repeating: nil, count: requests.count)
        var joining: [BookingDay] = []
        for (index, item) in resolved.enumerated() {
            guard let item else { continue }
            statuses[index] = item.request.hold == nil ? item.request.status : .held
            guard let day = item.day, let capacity = limits[day] else { continue }
            let already = booked[day, default: 0]
            if Capacity.fits(item.request.partySize, booked: already, capacity: capacity) {
                booked[day] = already + item.request.partySize
            } else if item.request.waitlist {
                statuses[index] = .waitlisted
                joining.append(day)
            } else {
                let refusal = ReservationError.noCapacity(
                    item.landmark.with(capacity: capacity), day: day.day.text, requested: item.request.partySize,
                    booked: already)
                failures.append(BatchFailure(index: index, error: refusal))
            }
        }
        guard failures.isEmpty else {
            throw ReservationError.batchRejected(failures.sorted { $0.index < $1.index }, total: requests.count)
        }
        if let holdLimit, holds > 0, try await transaction.liveHolds(at: now) + holds > holdLimit {
            throw ReservationError.tooManyHolds(limit: holdLimit)
        }
        // Each request joining a full day's list goes to its end, in the order of the batch.
        var nextOrder: [BookingDay: Int] = [:]
        var nextPosition: [BookingDay: Int] = [:]
        if !joining.isEmpty {
            let lists = try await transaction.waitlisted(Set(joining).sorted())
            for (day, records) in lists {
                nextOrder[day] = Self.order(after: records)
                nextPosition[day] = records.count + 1
            }
        }
        let created = Timestamp.whole(now)
        var reservations: [Reservation] = []
        reservations.reserveCapacity(requests.count)
        for (index, item) in resolved.enumerated() {
            guard let item, let status = statuses[index] else { continue }
            var order: Int?
            var position: Int?
            if status == .waitlisted, let day = item.day {
                let joined = nextOrder[day, default: 1]
                order = joined
                nextOrder[day] = joined == .max ? .max : joined + 1
                position = nextPosition[day, default: 1]
                nextPosition[day] = (position ?? 0) + 1
            }
            reservations.append(
                Reservation(
                    id: item.request.id ?? newID(), landmark: item.landmark, date: item.request.date,
                    partySize: item.request.partySize, status: status, note: item.request.note, createdAt: created,
                    updatedAt: created, version: 1,
                    expiresAt: item.request.hold.map { created.addingTimeInterval(Double($0)) },
                    waitlistOrder: order, requestedStatus: status == .waitlisted ? item.request.status : nil,
                    waitlistPosition: position, series: item.request.series))
        }
        try await transaction.insert(reservations)
        try await transaction.append(
            reservations.map { entry(.created, before: nil, after: $0, at: created, command: command) })
        var made = reservations.makeIterator()
        return requests.indices.compactMap { index in
            if let existing = already[index] { return (existing, false) }
            return made.next().map { ($0, true) }
        }
    }

    /// Books one request; a refusal is the request's own error, not a batch's.
    public static func reserve(
        _ request: NewReservation, now: Date, holdLimit: Int? = nil, in transaction: some BookingTransaction
    ) async throws -> Reservation {
        do {
            return try await reserve([request], now: now, holdLimit: holdLimit, in: transaction)[0]
        } catch ReservationError.batchRejected(let failures, _) where failures.count == 1 {
            throw failures[0].error
        }
    }

    /// The order of joining the end of a day's list: after every order there,
    /// stopping at `Int.max` (a record another program wrote may hold it; ties go by id).
    static func order(after list: [StoredReservation]) -> Int {
        let last = list.compactMap(\.waitlistOrder).max() ?? 0
        return last == .max ? .max : max(last, 0) + 1
    }

    /// A new command id: every change of one request shares it.
    public static func newCommand() -> String { UUID().uuidString.lowercased() }

    /// The history entry of one change of `after`'s reservation, made by `command`.
    static func entry(
        _ change: HistoryEntry.Change, before: Reservation?, after: Reservation, at: Date, command: String,
        reason: String? = nil
    ) -> HistoryEntry {
        HistoryEntry(
            at: at, change: change, reservationID: after.id, before: before.map(ReservationApiModel.init),
            after: ReservationApiModel(after), command: command, reason: reason)
    }
}
