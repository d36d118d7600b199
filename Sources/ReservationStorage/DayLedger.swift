import Foundation
import ReservationCore
import Synchronization

/// The state the members of a group share while they run, one after another,
/// in one transaction: the day's count once the group settled it
/// (`Booking.settle`), and what the members accepted so far add to it.
final class DayLedger: Sendable {
    let day: BookingDay
    /// The time the day was settled at: members' requests came before it.
    let now: Date
    private struct State {
        var booked: Int
        /// The day's list as stored; nil until a member asks for it.
        var stored: [StoredReservation]?
        var joined: [StoredReservation] = []
        var holds: [UserID: [Reservation]] = [:]
    }
    private let state: Mutex<State>

    init(day: BookingDay, booked: Int, now: Date) {
        self.day = day
        self.now = now
        state = Mutex(State(booked: booked))
    }

    var booked: Int { state.withLock { $0.booked } }

    /// The day's list: as stored (read by `fetch` the first time), then those members put on it.
    func waitlist(fetch: () async throws -> [StoredReservation]) async throws -> [StoredReservation] {
        if state.withLock({ $0.stored == nil }) {
            let stored = try await fetch()
            state.withLock { $0.stored = stored }
        }
        return state.withLock { ($0.stored ?? []) + $0.joined }
    }

    /// The user's holds members made in this group, live at `now`.
    func liveHolds(of user: UserID, at now: Date) -> Int {
        state.withLock { $0.holds[user, default: []].count { $0.takesPlaces(at: now) } }
    }

    /// Counts a member's new reservations in: places taken, list joined, holds.
    func accept(_ reservations: [Reservation], of user: UserID) {
        state.withLock { state in
            for reservation in reservations where day.contains(reservation.landmark.id, reservation.date) {
                if reservation.countsTowardCapacity(at: now) { state.booked += reservation.partySize }
                if reservation.status == .waitlisted { state.joined.append(StoredReservation(reservation)) }
            }
            let holds = reservations.filter { $0.status == .held }
            if !holds.isEmpty { state.holds[user, default: []] += holds }
        }
    }
}

/// A member's view of its group's transaction (`DayGroups`): the group's day
/// reads from the ledger, without a statement, and what the member creates is
/// kept here until it is accepted (its rule answered) and written with the
/// group's; a refused member leaves nothing. The rest goes to `base`, the
/// engine's transaction for the member's user, in the group's: a change to
/// other days or to stored rows (a system's expiry or promotion there) is the
/// group's and stays even when this member is refused, which a create of the
/// group's day never makes.
struct GroupedTransaction<Base: BookingTransaction>: BookingTransaction {
    let base: Base
    let user: UserID
    let ledger: DayLedger
    let created = Created()

    /// What the member created, kept until it is accepted.
    final class Created: Sendable {
        private let kept = Mutex<(reservations: [Reservation], entries: [HistoryEntry])>(([], []))
        var all: (reservations: [Reservation], entries: [HistoryEntry]) { kept.withLock { $0 } }
        func add(_ reservations: [Reservation] = [], _ entries: [HistoryEntry] = []) {
            kept.withLock {
                $0.reservations += reservations
                $0.entries += entries
            }
        }
    }

    var catalog: LandmarkCatalog { base.catalog }

    /// Every member's history is locked, shared, before the group runs; an exclusive lock is taken here.
    func lockHistory(exclusive: Bool) async throws {
        if exclusive { try await base.lockHistory(exclusive: true) }
    }

    func recordsForUpdate(_ ids: [Reservation.ID]) async throws -> [Reservation.ID: StoredReservation] {
        try await base.recordsForUpdate(ids)
    }

    func takenIDs(_ ids: [Reservation.ID]) async throws -> Set<Reservation.ID> { try await base.takenIDs(ids) }

    func booked(_ days: [BookingDay], at now: Date) async throws -> [BookingDay: Int] {
        let others = days.filter { $0 != ledger.day }
        var totals = others.isEmpty ? [:] : try await base.booked(others, at: now)
        if others.count < days.count { totals[ledger.day] = ledger.booked }
        return totals
    }

    /// The day's rule is the group's to read: its lock is held for the whole group.
    func dayRules(_ days: [BookingDay]) async throws -> [BookingDay: DayRule] { try await base.dayRules(days) }

    func setDayRules(_ rules: [DayRule]) async throws { try await base.setDayRules(rules) }

    func takingPlaces(_ days: [BookingDay], at now: Date) async throws -> [BookingDay: [StoredReservation]] {
        try await base.takingPlaces(days, at: now)
    }

    func waitlisted(_ days: [BookingDay]) async throws -> [BookingDay: [StoredReservation]] {
        let others = days.filter { $0 != ledger.day }
        var lists = others.isEmpty ? [:] : try await base.waitlisted(others)
        if others.count < days.count {
            lists[ledger.day] = try await ledger.waitlist { try await base.waitlisted([ledger.day])[ledger.day] ?? [] }
        }
        return lists
    }

    /// The group's day was settled at `ledger.now`, after this member's request came: nothing more has ended there.
    func dueHolds(on days: [BookingDay]?, at now: Date, limit: Int) async throws -> [StoredReservation] {
        guard let days, now <= ledger.now else { return try await base.dueHolds(on: days, at: now, limit: limit) }
        let others = days.filter { $0 != ledger.day }
        return others.isEmpty ? [] : try await base.dueHolds(on: others, at: now, limit: limit)
    }

    func liveHolds(at now: Date) async throws -> Int {
        try await base.liveHolds(at: now) + ledger.liveHolds(of: user, at: now)
    }

    func updateAny(_ reservations: [Reservation], entries: [HistoryEntry]) async throws {
        try await base.updateAny(reservations, entries: entries)
    }

    func insert(_ reservations: [Reservation]) async throws {
        created.add(reservations)
    }

    func update(_ reservations: [Reservation]) async throws { try await base.update(reservations) }

    func append(_ entries: [HistoryEntry]) async throws {
        created.add([], entries)
    }

    func commandToUndo() async throws -> [HistoryEntry] { try await base.commandToUndo() }

    func undosSinceLastCommand() async throws -> [HistoryEntry] { try await base.undosSinceLastCommand() }
}

/// A user's idempotency key: what a kept answer is found by, and the name of its advisory lock.
struct KeyName: Hashable, Comparable {
    let user: UserID
    let key: String
    var lockName: String { "key \(user.rawValue) \(key)" }
    static func < (a: KeyName, b: KeyName) -> Bool { a.lockName < b.lockName }

    init(user: UserID, key: String) {
        self.user = user
        self.key = key
    }

    /// The request's key, if it has one.
    init?(_ request: DayRequest) {
        guard let key = request.key else { return nil }
        self.init(user: request.user, key: key.key)
    }
}

/// What a group's requests came to: an outcome each (nil: not taken), and the answers to keep for keys.
struct GroupDecision {
    var outcomes: [DayOutcome?] = []
    var keep: [(user: UserID, key: IdempotencyKey, response: StoredResponse)] = []
    /// Whether any request was done (else nothing is kept: the group rolls back).
    var done: Bool { outcomes.contains { if case .success(.done)? = $0 { true } else { false } } }
}

/// A group where no request was done: its transaction is rolled back and these are its answers.
struct NothingDone: Error {
    let outcomes: [DayOutcome?]
}

/// Runs a group's requests in order on `ledger`'s day, each over a
/// `GroupedTransaction` of the engine's `transaction` for its user: a key kept
/// before (`kept`), or by a request before it in the group, replayed; a
/// refusal its own outcome, leaving nothing; what an accepted one created
/// counted into the ledger and handed to `accept` to be written. Those at
/// positions in `skipping` are not taken (nil). Any other error ends the group.
func decideMembers<Engine: BookingTransaction>(
    _ requests: [DayRequest], skipping: Set<Int>, kept: [KeyName: StoredResponse], ledger: DayLedger,
    transaction: (UserID) -> Engine, accept: (Engine, [Reservation], [HistoryEntry]) async throws -> Void
) async throws -> GroupDecision {
    var kept = kept
    var decision = GroupDecision()
    for (index, request) in requests.enumerated() {
        if skipping.contains(index) {
            decision.outcomes.append(nil)
            continue
        }
        let name = KeyName(request)
        if let name, let response = kept[name] {
            // Kept before, or by a request before it in this group (a retry sent while the first ran).
            decision.outcomes.append(.success(.replay(response)))
            continue
        }
        let own = transaction(request.user)
        let member = GroupedTransaction(base: own, user: request.user, ledger: ledger)
        do {
            let (value, response) = try await request.work(member)
            let (reservations, entries) = member.created.all
            ledger.accept(reservations, of: request.user)
            try await accept(own, reservations, entries)
            if let key = request.key, let name, let response {
                decision.keep.append((request.user, key, response))
                kept[name] = response
            }
            decision.outcomes.append(.success(.done(value)))
        } catch let refusal as ReservationError {
            decision.outcomes.append(.failure(refusal))
        }
    }
    return decision
}
