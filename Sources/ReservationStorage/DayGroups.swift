import Foundation
import ReservationCore
import Synchronization

/// One booking of a group: a user's work under an optional idempotency key.
public struct DayRequest: Sendable {
    public let user: UserID
    public let key: IdempotencyKey?
    public let work: ServerStore.Work

    public init(user: UserID, key: IdempotencyKey?, work: @escaping ServerStore.Work) {
        self.user = user
        self.key = key
        self.work = work
    }
}

/// What became of one request of a group: its own answer, or its own refusal.
public typealias DayOutcome = Result<Written<any Sendable>, any Error>

/// Group commit for landmark-days (docs/contracts.md, "On-sale"): the bookings
/// of one day that arrive while a transaction of that day runs wait, and the
/// next transaction decides them all, in the order they arrived, each with its
/// own outcome; the day's lock is taken once and the commit flushed once for
/// the group, not once a booking.
///
/// The first request of a day leads: it runs a group (itself and those
/// waiting, at most `Limits.batch`), hands the lead to the first still
/// waiting, and answers. A request that waits longer than `Limits.patience`
/// before its group starts, or finds `Limits.waiting` already waiting, is
/// refused as `DatabaseError.crowded` (503 with Retry-After): the queue never
/// grows without bound. Per process; across processes the day's database lock
/// orders the groups.
public final class DayGroups: Sendable {
    public struct Limits: Sendable {
        /// The most requests one transaction decides.
        public var batch = 128
        /// The most requests that wait for one day in this process.
        public var waiting = 2_048
        /// How long a request waits for its group to start.
        public var patience: Duration = .seconds(3)

        public init() {}
    }

    /// Decides a group of one day's requests in one transaction; `more` takes
    /// those that arrived since (the engine asks once the day is its). An
    /// outcome per request, in their order (those given, then those taken);
    /// nil for one that waits for the next group.
    public typealias Run =
        @Sendable (BookingDay, [DayRequest], _ more: @escaping @Sendable () -> [DayRequest]) async throws
        -> [DayOutcome?]

    private let run: Run
    private let limits: Limits
    private let clock: WaitClock
    private let queues = Mutex<[BookingDay: Queue]>([:])

    public init(limits: Limits = Limits(), clock: WaitClock, run: @escaping Run) {
        self.limits = limits
        self.clock = clock
        self.run = run
    }

    /// A day's requests waiting in this process, in arrival order; `handed` is
    /// the one told to lead next, which no longer gives up; the group deciding now.
    private struct Queue {
        var waiting: [Member] = []
        var handed: ObjectIdentifier?
        var running: Running?
    }

    /// A group being decided: its members, how many still wait for its outcome,
    /// and its task, cancelled when none does (their requests all ended: a
    /// database gone, `DatabaseGate`), so the day is not held by a statement that never ends.
    private struct Running {
        let number: UInt64
        var members: Set<ObjectIdentifier>
        var waiting: Int
        var task: Task<Void, Never>?
    }

    /// Told to a waiting request: lead the next group, its outcome, that it
    /// waited too long, or that it stopped waiting for its group (cancelled).
    private enum Signal: Sendable {
        case lead
        case decided(DayOutcome)
        case crowded
        case abandoned
    }

    /// A waiting request and where it is told what happens to it (each signal once, in order).
    private final class Member: Sendable {
        let request: DayRequest
        private let inbox = Mutex<(waiting: CheckedContinuation<Signal, Never>?, pending: [Signal])>((nil, []))

        init(_ request: DayRequest) { self.request = request }

        func tell(_ signal: Signal) {
            let waiting: CheckedContinuation<Signal, Never>? = inbox.withLock { inbox in
                guard let waiting = inbox.waiting else {
                    inbox.pending.append(signal)
                    return nil
                }
                inbox.waiting = nil
                return waiting
            }
            waiting?.resume(returning: signal)
        }

        func next() async -> Signal {
            await withCheckedContinuation { continuation in
                let ready: Signal? = inbox.withLock { inbox in
                    guard inbox.pending.isEmpty else { return inbox.pending.removeFirst() }
                    inbox.waiting = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }

    /// How many requests wait for `day` in this process now.
    public func waiting(on day: BookingDay) -> Int { queues.withLock { $0[day]?.waiting.count ?? 0 } }

    /// Decides `request` on `day` with the others waiting for it. Cancelled, it
    /// stops waiting at once (its group, if one has it, goes on for the others).
    public func submit(_ request: DayRequest, on day: BookingDay) async throws -> Written<any Sendable> {
        let member = Member(request)
        let leads = try queues.withLock { queues throws(DatabaseError) -> Bool in
            let running = queues[day] != nil
            var queue = queues[day] ?? Queue()
            guard queue.waiting.count < limits.waiting else { throw DatabaseError.crowded }
            queue.waiting.append(member)
            if !running { queue.handed = ObjectIdentifier(member) }
            queues[day] = queue
            return !running
        }
        let timer =
            leads
            ? nil
            : Task { [clock, patience = limits.patience] in
                try await clock.pause(patience)
                self.leave(member, on: day, cancelled: false)
            }
        defer { timer?.cancel() }
        if leads { start(day) }
        while true {
            let signal = await withTaskCancellationHandler {
                await member.next()
            } onCancel: {
                self.leave(member, on: day, cancelled: true)
            }
            switch signal {
            case .decided(let outcome):
                return try outcome.get()
            case .crowded:
                try Task.checkCancellation()
                throw DatabaseError.crowded
            case .abandoned:
                throw CancellationError()
            case .lead:
                timer?.cancel()
                start(day)
            }
        }
    }

    /// Starts the group at the front of `day`'s queue (the leader first) in a
    /// task of its own, which tells each member its outcome and hands the lead
    /// on to the first still waiting; those the engine could not take wait at
    /// the front for the next group.
    private func start(_ day: BookingDay) {
        let taken = Taken()
        let (number, first) = queues.withLock { queues -> (UInt64, [DayRequest]) in
            guard var queue = queues[day] else { return (0, []) }
            let number = (queue.running?.number ?? 0) &+ 1
            queue.handed = nil
            queue.running = Running(number: number, members: [], waiting: 0)
            let first = take(from: &queue, into: taken)
            queues[day] = queue
            return (number, first)
        }
        guard !first.isEmpty else {
            // Nothing waits (it cannot happen to the one told to lead, which waits at the front).
            ended(day, again: [])?.tell(.lead)
            return
        }
        let task = Task { [run] in
            var outcomes: [DayOutcome?]
            do {
                outcomes = try await abandonable {
                    try await run(day, first) { self.take(on: day, group: number, into: taken) }
                }
            } catch {
                outcomes = taken.all.map { _ in .failure(error) }
            }
            let members = taken.all
            if outcomes.count != members.count {
                outcomes = members.map { _ in
                    .failure(DatabaseError.corruptRow("a group's outcomes do not match its requests"))
                }
            }
            self.ended(day, again: zip(members, outcomes).compactMap { $1 == nil ? $0 : nil })?.tell(.lead)
            for (member, outcome) in zip(members, outcomes) {
                if let outcome { member.tell(.decided(outcome)) }
            }
        }
        let abandoned = queues.withLock { queues -> Bool in
            guard queues[day]?.running?.number == number else { return false }
            queues[day]?.running?.task = task
            return queues[day]?.running?.waiting == 0
        }
        if abandoned { task.cancel() }
    }

    /// Ends `day`'s running group: `again` back at the front of the queue, and
    /// the first waiting told to lead (returned), or the queue gone when none waits.
    private func ended(_ day: BookingDay, again: [Member]) -> Member? {
        queues.withLock { queues -> Member? in
            guard var queue = queues[day] else { return nil }
            // Not those that stopped waiting meanwhile.
            let members = queue.running?.members ?? []
            queue.running = nil
            queue.waiting.insert(contentsOf: again.filter { members.contains(ObjectIdentifier($0)) }, at: 0)
            guard let first = queue.waiting.first else {
                queues[day] = nil
                return nil
            }
            queue.handed = ObjectIdentifier(first)
            queues[day] = queue
            return first
        }
    }

    /// Takes the requests at the front of `day`'s queue into its running group
    /// `number`, up to `Limits.batch` in all; none once that group has ended.
    private func take(on day: BookingDay, group number: UInt64, into taken: Taken) -> [DayRequest] {
        queues.withLock { queues -> [DayRequest] in
            guard var queue = queues[day], queue.running?.number == number else { return [] }
            let more = take(from: &queue, into: taken)
            queues[day] = queue
            return more
        }
    }

    /// `take(on:group:into:)` under the queues' lock, on the queue with its running group.
    private func take(from queue: inout Queue, into taken: Taken) -> [DayRequest] {
        guard var running = queue.running else { return [] }
        let more = Array(queue.waiting.prefix(max(0, limits.batch - taken.count)))
        guard !more.isEmpty else { return [] }
        queue.waiting.removeFirst(more.count)
        running.members.formUnion(more.map(ObjectIdentifier.init))
        running.waiting += more.count
        queue.running = running
        taken.add(more)
        return more.map(\.request)
    }

    /// The members a group has taken, in order.
    private final class Taken: Sendable {
        private let members = Mutex<[Member]>([])
        var all: [Member] { members.withLock { $0 } }
        var count: Int { members.withLock { $0.count } }
        func add(_ more: [Member]) { members.withLock { $0 += more } }
    }

    /// `member` stops waiting: out of the queue (its patience over, or
    /// cancelled) unless told to lead; cancelled in a running group, no longer
    /// waited for there, the group's task cancelled when no member waits.
    private func leave(_ member: Member, on day: BookingDay, cancelled: Bool) {
        let id = ObjectIdentifier(member)
        let (told, cancel) = queues.withLock { queues -> (Signal?, Task<Void, Never>?) in
            guard var queue = queues[day], queue.handed != id else { return (nil, nil) }
            defer { queues[day] = queue }
            if let index = queue.waiting.firstIndex(where: { $0 === member }) {
                queue.waiting.remove(at: index)
                return (.crowded, nil)
            }
            guard cancelled, var running = queue.running, running.members.contains(id) else { return (nil, nil) }
            running.members.remove(id)
            running.waiting -= 1
            queue.running = running
            return (.abandoned, running.waiting == 0 ? running.task : nil)
        }
        cancel?.cancel()
        if let told { member.tell(told) }
    }
}

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
