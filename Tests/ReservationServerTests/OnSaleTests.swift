import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import ReservationCore
import ResvTestKit
import Synchronization
import Testing

@testable import ReservationServer
@testable import ReservationStorage

/// The on-sale day (docs/contracts.md, "On-sale"): the bookings of one
/// landmark-day decided in groups, one transaction a group, each keeping its
/// own outcome in arrival order; the wait for a group bounded.
@Suite("On-sale: one landmark-day booked by many at once", .timeLimit(.minutes(30)))
struct OnSaleTests {
    /// A landmark of its own (new id, UTC) with `capacity`, so tests sharing the database never count each other.
    static func stage(capacity: Int) -> Landmark {
        Landmark(
            id: Landmark.ID(UUID()), name: "Permit Gate \(UUID().uuidString.prefix(6))", location: "Nowhere",
            description: "A gate for tests.", category: .mountains, capacity: capacity,
            timeZone: TimeZone(identifier: "UTC"))
    }

    static let start = Date(timeIntervalSince1970: 1_900_000_000)  // 2030-03-17
    static let visit = Date(timeIntervalSince1970: 1_922_349_600)  // 2030-12-01T10:00:00Z

    // MARK: - One group on SQLite and PostgreSQL, request by request

    @Test(arguments: Engine.available.filter { $0 != .memory })
    func aGroupDecidesEachRequestInArrivalOrderWithItsOwnOutcome(engine: Engine) async throws {
        try await TemporaryDirectory.with("onsale") { folder in
            let directory = folder.url
            let url =
                engine == .postgres ? try #require(Engine.postgresURL) : directory.appendingPathComponent("db").path
            let gate = Self.stage(capacity: 3)
            let catalog = LandmarkCatalog(LandmarkCatalog.builtIn.landmarks + [gate])
            let clock = TestClock(Self.start)
            let day = try #require(BookingDay(Self.visit, at: gate))
            try await Database.withStore(url, logger: Self.quiet, connections: 2, serving: true, now: clock.now) {
                store in
                let grouping = try #require(store.dayGrouping, "\(engine) decides a day's bookings in groups")
                let suffix = UUID().uuidString.prefix(8)
                let alice = try await store.addToken("alice-\(suffix)", Token.hash(Token.generate()))
                let bob = try await store.addToken("bob-\(suffix)", Token.hash(Token.generate()))
                let carol = try await store.addToken("carol-\(suffix)", Token.hash(Token.generate()))
                let key = IdempotencyKey(key: "k-\(suffix)", requestHash: "h", receivedAt: clock.now())
                func booking(_ user: UserID, _ party: Int, waitlist: Bool = false, key: IdempotencyKey? = nil) throws
                    -> DayRequest
                {
                    let request = try NewReservation(
                        landmark: gate.id.description, date: Self.visit, partySize: party, waitlist: waitlist,
                        now: Self.start)
                    return DayRequest(user: user, key: key) { transaction in
                        let made = try await Booking.reserve(request, now: Self.start, in: transaction)
                        let kept = key.map { _ in
                            StoredResponse(status: 201, body: Array(made.id.description.utf8), requestHash: "h")
                        }
                        return (made, kept)
                    }
                }
                // On PostgreSQL, Dave's history is locked elsewhere (an undo of his under way): he
                // cannot join late. (SQLite's one writer has no such lock to wait for.)
                let dave = try await store.addToken("dave-\(suffix)", Token.hash(Token.generate()))
                let (held, release) = (Flag(), Flag())
                let undo = Task {
                    guard engine == .postgres else { return }
                    _ = try await store.transaction(dave, catalog: catalog) { transaction in
                        try await transaction.lockHistory(exclusive: true)
                        held.set()
                        try await waitUntil("the test letting the undo go") { release.isSet }
                    }
                }
                if engine == .postgres { try await waitUntil("the undo holding the history") { held.isSet } }
                let late =
                    try [
                        booking(carol, 1, waitlist: true, key: key),  // second on the list
                        booking(carol, 1, waitlist: true, key: key),  // the same key: the answer kept just before
                        booking(alice, 1),  // refused: 3 booked
                    ] + (engine == .postgres ? [booking(dave, 1)] : [])  // not taken: its lock is held elsewhere
                let asked = Flag()
                let outcomes = try await grouping.transactDay(
                    day, catalog,
                    [
                        try booking(alice, 2),  // 2 of 3
                        try booking(bob, 2),  // refused: 2 booked
                        try booking(bob, 1),  // 3 of 3
                        try booking(alice, 1, waitlist: true),  // first on the list
                    ],
                    {
                        // Those that came while the group waited for the day, once.
                        asked.isSet
                            ? []
                            : {
                                asked.set()
                                return late
                            }()
                    })
                release.set()
                _ = try await undo.value
                #expect(outcomes.count == (engine == .postgres ? 8 : 7))
                func made(_ index: Int) -> Reservation? {
                    if case .success(.done(let value))? = outcomes[index] { value as? Reservation } else { nil }
                }
                func refusal(_ index: Int) -> ReservationError? {
                    if case .failure(let error)? = outcomes[index] { error as? ReservationError } else { nil }
                }
                if engine == .postgres {
                    #expect(outcomes[7] == nil, "Dave waits for the next group")
                    #expect(try await store.list(dave).isEmpty)
                }
                #expect(made(0)?.status == .confirmed && made(0)?.partySize == 2)
                guard case .noCapacity(_, _, 2, 2) = refusal(1) else {
                    Issue.record("the second request: \(outcomes[1])")
                    return
                }
                #expect(made(2)?.status == .confirmed)
                #expect(made(3)?.status == .waitlisted && made(3)?.waitlistPosition == 1)
                #expect(made(4)?.status == .waitlisted && made(4)?.waitlistPosition == 2)
                guard case .success(.replay(let kept))? = outcomes[5] else {
                    Issue.record("the repeated key: \(outcomes[5])")
                    return
                }
                #expect(kept.body == Array((made(4)?.id.description ?? "").utf8))
                guard case .noCapacity(_, _, 1, 3) = refusal(6) else {
                    Issue.record("the last request: \(outcomes[6])")
                    return
                }
                // Stored as answered: each user's reservations and history, the key kept.
                let stored = try await [alice, bob, carol].asyncMap { try await store.list($0) }
                #expect(
                    stored.map { $0.compactMap(\.status).sorted() } == [
                        ["confirmed", "waitlisted"], ["confirmed"], ["waitlisted"],
                    ])
                #expect(
                    Set(stored.flatMap { $0.map(\.id) }) == Set([0, 2, 3, 4].compactMap { made($0)?.id.description }))
                let histories = try await [alice, bob, carol].asyncMap { try await store.history($0, nil, nil).count }
                #expect(histories == [2, 1, 1])
                #expect(try await store.storedResponse(carol, key.key)?.body == kept.body)
                #expect(
                    try await store.newestChange(alice) == 2, "the feed numbers a group's changes of a user in order")

                // A group where every request is refused writes nothing.
                let refused = try await grouping.transactDay(
                    day, catalog, [try booking(bob, 1), try booking(carol, 2)], { [] })
                #expect(
                    refused.allSatisfy { if case .failure(ReservationError.noCapacity)? = $0 { true } else { false } })
                let bobs = try await store.list(bob).count
                let bobsHistory = try await store.history(bob, nil, nil).count
                #expect(bobs == 1 && bobsHistory == 1)
            }
        }
    }

    // MARK: - Three instances, one hot day, everything at once

    @Test(.enabled(if: Engine.postgresURL != nil, "needs RESV_TEST_POSTGRES_URL (scripts/with-postgres)"))
    func threeInstancesFillTheDayExactlyAndEveryAnswerSaysWhatWasStored() async throws {
        let url = try #require(Engine.postgresURL)
        let capacity = 40
        let gate = Self.stage(capacity: capacity)
        let catalog = LandmarkCatalog(LandmarkCatalog.builtIn.landmarks + [gate])
        let clock = TestClock(Self.start)
        let date = DateTime.format(Self.visit)
        try await Self.withRouters(3, url: url, catalog: catalog, clock: clock) { instances in
            let users = try await User.team(in: instances[0].store)
            let suffix = UUID().uuidString.prefix(8)
            // 120 people for 40 places, through every instance; every 4th joins the list when
            // full; every 10th is sent twice at once with one key, to two instances.
            let answers = Answers()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for number in 0..<120 {
                    let user = users[number % users.count]
                    let waitlist = number % 4 == 3
                    let body = #"{"landmarkId":"\#(gate.id)","date":"\#(date)","partySize":1,"waitlist":\#(waitlist)}"#
                    let sends = number % 10 == 0 ? [0, 1] : [0]
                    for send in sends {
                        let instance = instances[(number + send) % instances.count]
                        group.addTask {
                            var headers: HTTPFields = [
                                .authorization: "Bearer \(user.token)", .contentType: "application/json",
                            ]
                            if sends.count > 1 {
                                headers[HTTPField.Name("Idempotency-Key")!] = "twice-\(suffix)-\(number)"
                            }
                            // A 503 (the day not had within its bound: a loaded machine) booked nothing and
                            // is sent again, as resv does under its key; the answer kept is the last.
                            let response = try await instance.book(headers: headers, body: body)
                            let object =
                                (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any]
                                ?? [:]
                            answers.add(
                                Answer(
                                    request: number, status: response.status.code, id: object["id"] as? String,
                                    state: object["status"] as? String, code: object["code"] as? String,
                                    replayed: response.headers[HTTPField.Name("Idempotent-Replayed")!] == "true"))
                        }
                    }
                }
                try await group.waitForAll()
            }
            let all = answers.all
            let odd = all.filter { ![201, 409].contains($0.status) }
            #expect(odd.isEmpty, "answers neither 201 nor 409: \(odd.prefix(3))")
            let created = all.filter { $0.status == 201 }
            let ids = Set(created.compactMap(\.id))
            // A key sent twice is one booking: both answers name it (or both are refused).
            for number in stride(from: 0, to: 120, by: 10) {
                let pair = all.filter { $0.request == number }
                #expect(pair.count == 2)
                #expect(
                    Set(pair.map(\.status)).count == 1 && Set(pair.map { $0.id ?? "" }).count == 1,
                    "request \(number): \(pair)")
            }
            let stored = try await users.asyncMap { try await instances[1].store.list($0.id) }.flatMap { $0 }
            #expect(Set(stored.map(\.id)) == ids, "every reservation stored was answered 201, and only those")
            let confirmed = stored.filter { $0.status == "confirmed" }
            #expect(
                confirmed.count == capacity, "the day holds exactly its capacity: \(confirmed.count) of \(capacity)")
            #expect(Set(created.filter { $0.state == "confirmed" }.compactMap(\.id)).count == capacity)
            // The list: every waitlisted request in it once, numbered 1… in the order they joined.
            let waiting = stored.filter { $0.status == "waitlisted" }
            let positions = try await instances[2].store.waitlists([try #require(BookingDay(Self.visit, at: gate))])
            #expect(positions.values.first.map(Set.init) == Set(waiting.map(\.id)))
            #expect(Set(waiting.map(\.id)) == Set(created.filter { $0.state == "waitlisted" }.compactMap(\.id)))
            // Refusals say the day was full.
            for refusal in all where refusal.status == 409 {
                #expect(refusal.code == "noCapacity", "\(refusal)")
            }
        }
    }

    // MARK: - The queue itself, on a clock the test holds

    @Test func requestsArrivingAfterAGroupHasTheDayAreTheNextGroupInArrivalOrder() async throws {
        let runner = GateRunner(moreAfterGate: false)
        let groups = DayGroups(clock: HeldWaitClock().clock, run: runner.run)
        let day = try #require(BookingDay(Self.visit, at: Self.stage(capacity: 10)))
        try await withThrowingTaskGroup(of: (Int, Int).self) { tasks in
            tasks.addTask { (0, try await Self.submit(0, to: groups, on: day)) }
            try await runner.untilRunning(1)
            for number in 1...5 {
                tasks.addTask { (number, try await Self.submit(number, to: groups, on: day)) }
                try await waitUntil("request \(number) waiting for the day") { groups.waiting(on: day) == number }
            }
            runner.release()
            var answers: [Int: Int] = [:]
            for try await (number, answer) in tasks { answers[number] = answer }
            #expect(answers == [0: 0, 1: 1, 2: 2, 3: 3, 4: 4, 5: 5], "each gets its own answer")
        }
        #expect(
            runner.groups == [[0], [1, 2, 3, 4, 5]], "the five who waited were decided together, in arrival order")
        #expect(groups.waiting(on: day) == 0)
    }

    @Test func requestsArrivingWhileAGroupWaitsForTheDayJoinItAndOneThatCannotWaitsForTheNext() async throws {
        // The engine takes those that came while it waited for the day's lock; number 3's
        // own lock is held elsewhere (put back): it is decided by the next group, first.
        let runner = GateRunner(putBack: [3])
        let groups = DayGroups(clock: HeldWaitClock().clock, run: runner.run)
        let day = try #require(BookingDay(Self.visit, at: Self.stage(capacity: 10)))
        try await withThrowingTaskGroup(of: (Int, Int).self) { tasks in
            tasks.addTask { (0, try await Self.submit(0, to: groups, on: day)) }
            try await runner.untilRunning(1)
            for number in 1...4 {
                tasks.addTask { (number, try await Self.submit(number, to: groups, on: day)) }
                try await waitUntil("request \(number) waiting for the day") { groups.waiting(on: day) == number }
            }
            runner.release()
            var answers: [Int: Int] = [:]
            for try await (number, answer) in tasks { answers[number] = answer }
            #expect(answers == [0: 0, 1: 1, 2: 2, 3: 3, 4: 4])
        }
        #expect(runner.groups == [[0, 1, 2, 3, 4], [3]])
    }

    @Test func aRequestThatWaitsPastItsPatienceIsRefusedAndLeavesTheQueue() async throws {
        let runner = GateRunner()
        let time = HeldWaitClock()
        var limits = DayGroups.Limits()
        limits.patience = .seconds(3)
        let groups = DayGroups(limits: limits, clock: time.clock, run: runner.run)
        let day = try #require(BookingDay(Self.visit, at: Self.stage(capacity: 10)))
        let first = Task { try await Self.submit(0, to: groups, on: day) }
        try await runner.untilRunning(1)
        let late = Task { try await Self.submit(1, to: groups, on: day) }
        await time.untilSleeping(1)
        time.advance(by: .milliseconds(2_999))
        #expect(groups.waiting(on: day) == 1, "still waiting before its patience is over")
        time.advance(by: .milliseconds(1))
        await #expect(throws: DatabaseError.self) { try await late.value }
        #expect(groups.waiting(on: day) == 0)
        runner.release()
        #expect(try await first.value == 0)
        #expect(runner.groups == [[0]], "the one that gave up was never decided")
    }

    @Test func aFullQueueRefusesAtOnce() async throws {
        let runner = GateRunner()
        var limits = DayGroups.Limits()
        limits.waiting = 2
        let groups = DayGroups(limits: limits, clock: HeldWaitClock().clock, run: runner.run)
        let day = try #require(BookingDay(Self.visit, at: Self.stage(capacity: 10)))
        let first = Task { try await Self.submit(0, to: groups, on: day) }
        try await runner.untilRunning(1)
        let waiting = [1, 2].map { number in Task { try await Self.submit(number, to: groups, on: day) } }
        try await waitUntil("two requests waiting for the day") { groups.waiting(on: day) == 2 }
        await #expect {
            try await Self.submit(3, to: groups, on: day)
        } throws: { error in
            (error as? DatabaseError)?.isBusy == true && "\(error.localizedDescription)".contains("send it again")
        }
        runner.release()
        #expect(try await first.value == 0)
        for task in waiting { _ = try await task.value }
        #expect(runner.groups == [[0, 1, 2]], "the two let wait joined the group once it had the day")
    }

    @Test func aGroupWhoseRequestsAllEndedNoLongerHoldsTheDay() async throws {
        // The database stopped answering mid-group (the runner never returns until released):
        // the requests are cancelled (`DatabaseGate`), stop waiting at once, and the next group runs.
        let runner = GateRunner()
        let groups = DayGroups(clock: HeldWaitClock().clock, run: runner.run)
        let day = try #require(BookingDay(Self.visit, at: Self.stage(capacity: 10)))
        let stuck = Task { try await Self.submit(0, to: groups, on: day) }
        try await runner.untilRunning(1)
        let next = Task { try await Self.submit(1, to: groups, on: day) }
        try await waitUntil("a request waiting for the day") { groups.waiting(on: day) == 1 }
        stuck.cancel()
        await #expect(throws: CancellationError.self) { try await stuck.value }
        try await runner.untilRunning(2)
        #expect(runner.groups == [[0], [1]], "the one waiting leads the next group while the first never ended")
        runner.release()
        #expect(try await next.value == 1)
    }

    @Test func anotherDayIsNotHeldUpByABusyOne() async throws {
        let runner = GateRunner()
        let groups = DayGroups(clock: HeldWaitClock().clock, run: runner.run)
        let gate = Self.stage(capacity: 10)
        let busy = try #require(BookingDay(Self.visit, at: gate))
        let other = try #require(BookingDay(Self.visit.addingTimeInterval(86_400), at: gate))
        let first = Task { try await Self.submit(0, to: groups, on: busy) }
        try await runner.untilRunning(1)
        let second = Task { try await Self.submit(1, to: groups, on: other) }
        try await runner.untilRunning(2)
        #expect(runner.running == 2, "both days' groups run at once")
        runner.release()
        #expect(try await first.value == 0)
        #expect(try await second.value == 1)
    }

    // MARK: - Helpers

    static let quiet: Logger = {
        var logger = Logger(label: "resv-on-sale-test")
        logger.logLevel = .critical
        return logger
    }()

    /// `count` servers on one PostgreSQL, each driven in process (`.router`: requests run side by side,
    /// as many as the test sends, where a live test client sends one at a time).
    static func withRouters(
        _ count: Int, url: String, catalog: LandmarkCatalog, clock: TestClock,
        started: [TeamScaleTests.Instance] = [],
        _ body: @escaping @Sendable ([TeamScaleTests.Instance]) async throws -> Void
    ) async throws {
        guard started.count < count else { return try await body(started) }
        // The day's patience waits on a clock the test holds and never moves: a loaded machine
        // slows the groups, it does not turn their requests into 503s (the bound has its own test).
        var options = ServerOptions()
        options.waitClock = HeldWaitClock().clock
        try await Database.withStore(url, logger: quiet, connections: 6, serving: true, now: clock.now) {
            [options] store in
            let router = buildRouter(store: store, catalog: catalog, now: clock.now, options: options)
            let app = Application(router: router, logger: quiet)
            try await app.test(.router) { client in
                try await withRouters(
                    count, url: url, catalog: catalog, clock: clock,
                    started: started + [TeamScaleTests.Instance(client: client, store: store)], body)
            }
        }
    }

    /// Submits a request whose work answers `number`.
    static func submit(_ number: Int, to groups: DayGroups, on day: BookingDay) async throws -> Int {
        let written = try await groups.submit(
            DayRequest(user: UserID(Int64(number + 1)), key: nil) { _ in (number, nil) }, on: day)
        guard case .done(let value) = written, let answer = value as? Int else { throw CancellationError() }
        return answer
    }

}

/// What a client was told.
struct Answer: Sendable {
    let request: Int
    let status: Int
    let id: String?
    let state: String?
    let code: String?
    let replayed: Bool
}

final class Answers: Sendable {
    private let answers = Mutex<[Answer]>([])
    func add(_ answer: Answer) { answers.withLock { $0.append(answer) } }
    var all: [Answer] { answers.withLock { $0 } }
}

/// A group runner that records each group's requests and holds every run
/// until released; each request's work is run for its answer. Like the
/// engine, it takes those that arrived meanwhile (`more`) when the day is its:
/// after the gate (the day's lock waited for), or with `moreAfterGate` false
/// before it; a request in `putBack` is not taken the first time (nil: its
/// lock was held elsewhere).
final class GateRunner: Sendable {
    private struct State {
        var groups: [[Int]] = []
        var running = 0
        var released = false
        var gates: [CheckedContinuation<Void, Never>] = []
        var putBack: Set<Int>
    }
    private let state: Mutex<State>
    private let moreAfterGate: Bool

    init(moreAfterGate: Bool = true, putBack: Set<Int> = []) {
        state = Mutex(State(putBack: putBack))
        self.moreAfterGate = moreAfterGate
    }

    var groups: [[Int]] { state.withLock { $0.groups } }
    var running: Int { state.withLock { $0.running } }

    var run: DayGroups.Run {
        { _, first, more in
            let group = self.state.withLock { state in
                state.groups.append(first.map(Self.number))
                state.running += 1
                return state.groups.count - 1
            }
            var requests = first
            if !self.moreAfterGate { requests += more() }
            await withCheckedContinuation { gate in
                let open = self.state.withLock { state -> Bool in
                    if state.released { return true }
                    state.gates.append(gate)
                    return false
                }
                if open { gate.resume() }
            }
            if self.moreAfterGate { requests += more() }
            self.state.withLock { $0.groups[group] = requests.map(Self.number) }
            var outcomes: [DayOutcome?] = []
            for request in requests {
                let putBack = self.state.withLock { $0.putBack.remove(Self.number(request)) != nil }
                if putBack {
                    outcomes.append(nil)
                    continue
                }
                do {
                    outcomes.append(.success(.done(try await request.work(NoTransaction()).value)))
                } catch {
                    outcomes.append(.failure(error))
                }
            }
            self.state.withLock { $0.running -= 1 }
            return outcomes
        }
    }

    static func number(_ request: DayRequest) -> Int { Int(request.user.rawValue) - 1 }

    func untilRunning(_ count: Int) async throws {
        try await waitUntil("\(count) runs of the day under way") { running >= count }
    }

    /// Lets every run held, and every later one, go on.
    func release() {
        let gates = state.withLock { state in
            state.released = true
            defer { state.gates = [] }
            return state.gates
        }
        for gate in gates { gate.resume() }
    }
}

/// A transaction no test work touches (the queue's tests answer without one).
struct NoTransaction: BookingTransaction {
    var catalog: LandmarkCatalog { .builtIn }
    func lockHistory(exclusive: Bool) async throws {}
    func recordsForUpdate(_ ids: [Reservation.ID]) async throws -> [Reservation.ID: StoredReservation] { [:] }
    func takenIDs(_ ids: [Reservation.ID]) async throws -> Set<Reservation.ID> { [] }
    func booked(_ days: [BookingDay], at now: Date) async throws -> [BookingDay: Int] { [:] }
    func waitlisted(_ days: [BookingDay]) async throws -> [BookingDay: [StoredReservation]] { [:] }
    func dueHolds(on days: [BookingDay]?, at now: Date, limit: Int) async throws -> [StoredReservation] { [] }
    func liveHolds(at now: Date) async throws -> Int { 0 }
    func dayRules(_ days: [BookingDay]) async throws -> [BookingDay: DayRule] { [:] }
    func setDayRules(_ rules: [DayRule]) async throws {}
    func takingPlaces(_ days: [BookingDay], at now: Date) async throws -> [BookingDay: [StoredReservation]] { [:] }
    func updateAny(_ reservations: [Reservation], entries: [HistoryEntry]) async throws {}
    func insert(_ reservations: [Reservation]) async throws {}
    func update(_ reservations: [Reservation]) async throws {}
    func append(_ entries: [HistoryEntry]) async throws {}
    func commandToUndo() async throws -> [HistoryEntry] { [] }
    func undosSinceLastCommand() async throws -> [HistoryEntry] { [] }
}

extension Sequence {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var values: [T] = []
        for element in self { values.append(try await transform(element)) }
        return values
    }
}
