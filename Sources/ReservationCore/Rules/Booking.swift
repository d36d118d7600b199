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
                    landmark = try catalog.landmark(matching: request.landmark)
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
        let landmark = try change.landmark.map { text throws(ReservationError) in try catalog.landmark(matching: text) }
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

    /// The order of joining the end of a day's list: after every order there,
    /// stopping at `Int.max` (a record another program wrote may hold it; ties go by id).
    static func order(after list: [StoredReservation]) -> Int {
        let last = list.compactMap(\.waitlistOrder).max() ?? 0
        return last == .max ? .max : max(last, 0) + 1
    }

    /// A new command id: every change of one request shares it.
    public static func newCommand() -> String { UUID().uuidString.lowercased() }

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
    private static func reservations(_ ids: [Reservation.ID], now: Date, in transaction: some BookingTransaction)
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
    private static func expire(_ records: [StoredReservation], now: Date, in transaction: some BookingTransaction)
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

    static func entry(
        _ change: HistoryEntry.Change, before: Reservation?, after: Reservation, at: Date, command: String
    ) -> HistoryEntry {
        HistoryEntry(
            at: at, change: change, reservationID: after.id, before: before.map(ReservationApiModel.init),
            after: ReservationApiModel(after), command: command)
    }
}
