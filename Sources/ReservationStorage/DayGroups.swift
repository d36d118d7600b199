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
