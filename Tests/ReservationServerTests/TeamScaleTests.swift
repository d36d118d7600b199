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

/// A team's use of one PostgreSQL (docs/contracts.md, "At team scale (several instances, one database)"): three
/// resv-server instances on loopback ports, three users, each with clients on
/// every instance booking (alone, in series, under an id of their own sent twice),
/// holding, joining lists, cancelling (which promotes
/// other users' waiting requests), confirming, modifying and undoing at once,
/// while the clock moves and sweeps end holds; a watcher of each user on each
/// instance. Then what the clients were told, what is stored and what the
/// watchers saw are compared: every watcher saw its user's history exactly,
/// each change once and in order; no answer was 500; the hold cap held; every
/// series answered 201 is stored whole and no refused one left a visit; an id
/// sent again was the same booking. One user is an admin who also closes days,
/// lowers and gives back their capacity (the parties over cancelled or
/// waitlisted) and cancels and checks in the others' parties: every day holds
/// at most the capacity in force, and those changes are in their owners' feeds.
///
/// Seeded (`RESV_TEAM_SEED`) and short in `make test`; `RESV_TEAM_ROUNDS=400`
/// runs the long version by hand (docs/testing.md).
@Suite("At team scale: three instances on one PostgreSQL, three users at once", .timeLimit(.minutes(30)))
struct TeamScaleTests {
    static let seed = UInt64(ProcessInfo.processInfo.environment["RESV_TEAM_SEED"] ?? "") ?? 41
    static let rounds = Int(ProcessInfo.processInfo.environment["RESV_TEAM_ROUNDS"] ?? "") ?? 16
    static let holdCap = 4

    @Test(.enabled(if: Engine.postgresURL != nil, "needs RESV_TEST_POSTGRES_URL (scripts/with-postgres)"))
    func everyWatcherSeesItsUsersHistoryOnceNoAnswerIs500AndTheHoldCapHolds() async throws {
        let url = try #require(Engine.postgresURL)
        let places = CapacityModel()
        // A big landmark for holds alone: its days never refuse, so only the cap counts.
        let hall = Landmark(
            id: Landmark.ID(UUID()), name: "Great Hall \(UUID().uuidString.prefix(6))", location: "Nowhere",
            description: "A hall for tests.", category: .mountains, capacity: 1_000,
            timeZone: TimeZone(identifier: "UTC"))
        let catalog = LandmarkCatalog(places.landmarks + [hall])
        let clock = TestClock()
        var options = ServerOptions()
        options.maxHoldsPerUser = Self.holdCap
        let world = World(places: places, catalog: catalog, clock: clock)
        try await Self.withInstances(3, url: url, catalog: catalog, clock: clock, options: options) { instances in
            let users = try await User.team(in: instances[0].store)
            // Alice runs the landmarks too (an admin, before her token is first used): she closes days,
            // lowers and gives back their capacity, cancels and checks in other users' parties.
            let manager = try #require(users.first)
            let managerName = try #require(try await instances[0].store.tokens.name(manager.id))
            _ = try await instances[0].store.tokens.setAccess(
                managerName, UserAccess(role: .admin), create: false, mustBeNew: false)
            let calls = Calls()

            // 1. The hold cap: three times the cap of one user's holds at once, through every instance.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for user in users {
                    for number in 0..<(3 * Self.holdCap) {
                        let instance = instances[number % instances.count]
                        group.addTask {
                            let date = DateTime.format(World.hallDate(day: number))
                            _ = try await calls.call(
                                instance, .post, "/reservations", user: user,
                                body: #"{"landmarkId":"\#(hall.id)","date":"\#(date)","partySize":1,"hold":600}"#)
                        }
                    }
                }
                try await group.waitForAll()
            }
            for user in users {
                let live = try await instances[1].store.list(user.id).filter { $0.status == "held" }
                #expect(
                    live.count == Self.holdCap, "\(user.name) has \(live.count) live holds, the cap is \(Self.holdCap)")
            }
            let holdAnswers = calls.statuses()
            #expect(holdAnswers[201] == users.count * Self.holdCap, "\(holdAnswers)")
            #expect(holdAnswers[409] == users.count * 2 * Self.holdCap, "\(holdAnswers)")
            clock.advance(by: 3_600)

            // 2. Everything at once, watched on every instance.
            var starts: [Int: String] = [:]
            for user in users {
                let reply = try await calls.call(instances[0], .get, "/changes", user: user)
                starts[user.index(in: users)] = try #require(reply.object["cursor"] as? String, "\(reply.text)")
            }
            let stop = Flag()
            let watched = try await withThrowingTaskGroup(of: (Int, Int, [HistoryEntry]).self) { group in
                for (index, user) in users.enumerated() {
                    for (number, instance) in instances.enumerated() {
                        let start = try #require(starts[index])
                        group.addTask {
                            (index, number, try await calls.watch(instance, user: user, from: start, stop: stop))
                        }
                    }
                }
                try await withThrowingTaskGroup(of: Void.self) { writers in
                    for (index, user) in users.enumerated() {
                        for (number, instance) in instances.enumerated() {
                            for worker in 0..<2 {
                                let seed = Self.seed &+ UInt64(index * 100 + number * 10 + worker) &* 0x9E37_79B9
                                writers.addTask {
                                    try await world.work(
                                        seed: seed, rounds: Self.rounds, user: user, on: instance, calls: calls,
                                        manages: user.id == manager.id)
                                }
                            }
                        }
                    }
                    try await writers.waitForAll()
                }
                stop.set()
                var watched: [(Int, Int, [HistoryEntry])] = []
                for try await result in group { watched.append(result) }
                return watched
            }

            // 3. What the watchers saw, against what is stored and what the clients were told.
            let statuses = calls.statuses()
            let failures = calls.failures()
            #expect(failures.isEmpty, "answers of 500 and up (seed \(Self.seed)): \(failures.prefix(5))")
            #expect(
                calls.resentDifferently().isEmpty, "a client's id sent again: \(calls.resentDifferently().prefix(5))")
            for (index, user) in users.enumerated() {
                let whole = Array(try await instances[2].store.history(user.id, nil, nil).reversed())
                let created = calls.created(by: user)
                let recorded = Set(whole.filter { $0.change == .created }.map(\.reservationID.description))
                // The watchers start at the user's n-th change (`p<n>.…`): they see the ones after it.
                let start = try #require(starts[index])
                let before = try #require(Int(start.dropFirst().prefix { $0 != "." }), "\(start)")
                let history = Array(whole.dropFirst(before))
                #expect(created.isSubset(of: recorded), "\(user.name): a booking answered 201 is not in the history")
                // Every series answered 201 is stored whole; none refused left a visit.
                let (series, refusedSeries) = calls.series(of: user)
                let storedSeries = Dictionary(
                    grouping: try await instances[1].store.list(user.id).compactMap(\.series), by: { $0 }
                ).mapValues(\.count)
                #expect(storedSeries == series, "\(user.name): series stored \(storedSeries), answered 201 \(series)")
                #expect(refusedSeries.isDisjoint(with: storedSeries.keys), "\(user.name): a refused series was stored")
                for (watcher, instance, seen) in watched where watcher == index {
                    #expect(!seen.isEmpty, "\(user.name)'s watcher on instance \(instance) saw nothing")
                    let missing = history.count - Set(seen).intersection(history).count
                    let same = seen == history
                    #expect(
                        same,
                        """
                        \(user.name)'s watcher on instance \(instance) (seed \(Self.seed)): saw \(seen.count) of \
                        \(history.count) changes, \(missing) missing, \(seen.count - Set(seen).count) twice
                        """)
                }
                // The history, replayed, is what is stored.
                var last: [String: ReservationApiModel] = [:]
                for entry in whole { last[entry.reservationID.description] = entry.after }
                let stored = try await instances[0].store.list(user.id)
                #expect(
                    stored.count == last.count, "\(user.name): \(stored.count) stored, \(last.count) in the history")
                for record in stored {
                    let replayed = last[record.id]
                    #expect(
                        replayed?.status == record.status && replayed?.version == record.version,
                        "\(user.name) \(record.id): stored \(String(describing: record)), history \(String(describing: replayed))"
                    )
                }
                let live = stored.filter {
                    $0.status == "held"
                        && ($0.expiresAt.flatMap { try? DateTime.parse($0) } ?? .distantPast) > clock.now()
                }
                #expect(live.count <= Self.holdCap, "\(user.name) has \(live.count) live holds")
            }
            // Each user's calendar feed, the same bytes from every instance: one event per stored reservation.
            for user in users {
                let made = try await calls.call(instances[0], .post, "/calendar", user: user)
                let path = try #require(made.object["path"] as? String, "\(made.text)")
                let feed = try await instances[2].client.executeRequest(
                    uri: path, method: .get, headers: [:], body: nil)
                #expect(feed.status == .ok)
                let uids = Set(
                    String(buffer: feed.body).split(separator: "\r\n").filter { $0.hasPrefix("UID:") }.map {
                        String($0.dropFirst(4).prefix { $0 != "@" })
                    })
                let stored = Set(try await instances[0].store.list(user.id).map(\.id))
                #expect(uids == stored, "\(user.name)'s calendar: \(uids.count) events, \(stored.count) stored")
                let etag = try #require(feed.headers[.eTag])
                let again = try await instances[1].client.executeRequest(
                    uri: path, method: .get, headers: [.ifNoneMatch: etag], body: nil)
                #expect(again.status == .notModified, "\(user.name)'s calendar changed between instances")
            }
            // Every kept day count (PostgreSQL's `day_counts`) is what a scan of its day says.
            let wrongCounts = try await DayCountTests.mismatches(url)
            #expect(wrongCounts.isEmpty, "kept day counts that are not their days' (seed \(Self.seed)): \(wrongCounts)")
            // Every day within its capacity.
            var taken: [BookingDay: Int] = [:]
            for user in users {
                for record in try await instances[1].store.list(user.id)
                where ["pending", "confirmed", "checked-in"].contains(record.status ?? "")
                    || (record.status == "held"
                        && (record.expiresAt.flatMap { try? DateTime.parse($0) } ?? .distantPast) > clock.now())
                {
                    guard
                        let landmark = catalog.landmarks.first(where: { $0.id.description == record.landmarkId ?? "" }),
                        let date = record.date.flatMap({ try? DateTime.parse($0) }),
                        let day = BookingDay(date, at: landmark)
                    else { continue }
                    taken[day, default: 0] += record.partySize ?? 0
                }
            }
            // Within the capacity in force now (the manager's overrides and closures), as the server says it.
            for (day, people) in taken {
                let text = day.day.text
                let shown = try await calls.call(
                    instances[2], .get, "/landmarks/\(day.landmark)/availability?from=\(text)&to=\(text)", user: manager
                )
                let days = try #require(
                    try JSONSerialization.jsonObject(with: Data(shown.text.utf8)) as? [[String: Any]])
                let rule = try #require(days.first, "\(shown.text)")
                let capacity = rule["closed"] != nil ? 0 : try #require(rule["capacity"] as? Int, "\(shown.text)")
                #expect(people <= capacity, "\(day.landmark) \(text): \(people) booked, capacity \(capacity) \(rule)")
                #expect(rule["taken"] as? Int == people, "\(day.landmark) \(text): counted \(people), \(shown.text)")
            }
            // The run did what it is for: changes of every kind, promotions among them.
            let kinds = Set(watched.flatMap { $0.2.map(\.change) })
            #expect(kinds.isSuperset(of: [.created, .cancelled, .modified, .promoted, .expired]), "\(kinds)")
            #expect(statuses[201, default: 0] > 0 && statuses[200, default: 0] > 0, "\(statuses)")
            #expect(users.contains { !calls.series(of: $0).made.isEmpty }, "no series was booked")
            // The manager's changes were made, each in its owner's history naming her.
            let managed = calls.managed()
            #expect(managed["days", default: 0] > 0 && managed["cancel", default: 0] > 0, "\(managed)")
            let named = watched.filter { $0.0 != 0 }.flatMap { $0.2 }.filter { $0.actor?.user == managerName }
            #expect(!named.isEmpty, "no change of bob's or carol's names the manager")
        }
    }

    struct Instance: Sendable {
        let client: any TestClientProtocol
        let store: ServerStore
    }

    /// Runs `body` with `count` servers on loopback ports, each with its own pool,
    /// notifications and sweeps, all on the database at `url`.
    static func withInstances(
        _ count: Int, url: String, catalog: LandmarkCatalog, clock: TestClock, options: ServerOptions,
        started: [Instance] = [], _ body: @escaping @Sendable ([Instance]) async throws -> Void
    ) async throws {
        guard started.count < count else { return try await body(started) }
        let logger = {
            var logger = Logger(label: "resv-server-team-\(started.count)")
            logger.logLevel = .critical
            return logger
        }()
        try await Database.withStore(url, logger: logger, connections: 6, serving: true, now: clock.now) { store in
            // The clock is the test's (2030): a day's key lifetime would have the key purge delete the
            // idempotency keys of the tests sharing this database, which live on the real date.
            // The day's patience on a held clock, as in `withHarness`: a loaded machine is no 503.
            var served = options
            served.waitClock = HeldWaitClock().clock
            let app = buildApplication(
                store: store, host: "127.0.0.1", port: 0, logger: logger, catalog: catalog, now: clock.now,
                options: served, keyLifetime: .seconds(100 * 365 * 86_400))
            try await app.test(.live) { client in
                try await withInstances(
                    count, url: url, catalog: catalog, clock: clock, options: options,
                    started: started + [Instance(client: client, store: store)], body)
            }
        }
    }
}

struct User: Sendable {
    let name: String
    let id: UserID
    let token: String

    /// Alice, Bob and Carol, new users of `store` (their names made unique), each with a token.
    static func team(in store: ServerStore) async throws -> [User] {
        let suffix = UUID().uuidString.prefix(8)
        var users: [User] = []
        for name in ["alice", "bob", "carol"] {
            let token = Token.generate()
            let id = try await store.addToken("\(name)-\(suffix)", Token.hash(token))
            users.append(User(name: name, id: id, token: token))
        }
        return users
    }

    func index(in users: [User]) -> Int { users.firstIndex { $0.id == id } ?? 0 }
}

/// Every answer the clients got: statuses, the ones of 500 and up, and the
/// reservations each user was told were created.
final class Calls: Sendable {
    private struct State {
        var statuses: [Int: Int] = [:]
        var failures: [String] = []
        var created: [UserID: [String]] = [:]
        /// Series (`resv reserve --every`'s batches) answered 201 with their sizes, and refused ones.
        var series: [UserID: [String: Int]] = [:]
        var refusedSeries: [UserID: Set<String>] = [:]
        /// A booking under a client's id sent again that was not the same booking.
        var resent: [String] = []
        /// The manager's changes answered 200, by kind.
        var managed: [String: Int] = [:]
    }
    private let state = Mutex(State())

    func call(
        _ instance: TeamScaleTests.Instance, _ method: HTTPRequest.Method, _ uri: String, user: User,
        body: String? = nil
    ) async throws -> Reply {
        var headers: HTTPFields = [.authorization: "Bearer \(user.token)"]
        if body != nil { headers[.contentType] = "application/json" }
        let response = try await instance.client.executeRequest(
            uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
        let reply = Reply(status: response.status, headers: response.headers, text: String(buffer: response.body))
        state.withLock { state in
            state.statuses[reply.status.code, default: 0] += 1
            if reply.status.code >= 500 {
                state.failures.append("\(method) \(uri): \(reply.status.code) \(reply.text.prefix(300))")
            }
            if method == .post, uri == "/reservations", reply.status == .created, let id = reply.object["id"] as? String
            {
                state.created[user.id, default: []].append(id)
            }
        }
        return reply
    }

    func statuses() -> [Int: Int] { state.withLock { $0.statuses } }
    func failures() -> [String] { state.withLock { $0.failures } }
    func created(by user: User) -> Set<String> { Set(state.withLock { $0.created[user.id] ?? [] }) }
    func series(of user: User) -> (made: [String: Int], refused: Set<String>) {
        state.withLock { ($0.series[user.id] ?? [:], $0.refusedSeries[user.id] ?? []) }
    }
    func resentDifferently() -> [String] { state.withLock { $0.resent } }
    func managed() -> [String: Int] { state.withLock { $0.managed } }
    /// Every reservation any user was told was made.
    func allCreated() -> [String] { state.withLock { $0.created.values.flatMap { $0 } } }

    /// A manager's change of `kind`, counted when made.
    func manage(
        _ kind: String, _ instance: TeamScaleTests.Instance, _ method: HTTPRequest.Method, _ uri: String, user: User,
        body: String? = nil
    ) async throws {
        let reply = try await call(instance, method, uri, user: user, body: body)
        if reply.status == .ok { state.withLock { $0.managed[kind, default: 0] += 1 } }
    }

    /// A series of `count` visits, one batch: its answer recorded by the series' id.
    func reserveSeries(_ instance: TeamScaleTests.Instance, user: User, body: String, series: String, count: Int)
        async throws -> [String]
    {
        let reply = try await call(instance, .post, "/reservations/batch", user: user, body: body)
        state.withLock { state in
            if reply.status == .created {
                state.series[user.id, default: [:]][series] = count
                state.created[user.id, default: []] += reply.array.compactMap { $0["id"] as? String }
            } else if reply.status == .conflict {
                state.refusedSeries[user.id, default: []].insert(series)
            }
        }
        return reply.status == .created ? reply.array.compactMap { $0["id"] as? String } : []
    }

    /// A booking under an id the client made, sent twice (a sync that lost the first answer):
    /// the second must be the same booking (200), whatever the first was told.
    func reserveTwice(_ instance: TeamScaleTests.Instance, user: User, body: String, id: String) async throws -> Bool {
        let first = try await call(instance, .post, "/reservations", user: user, body: body)
        guard first.status == .created || first.status == .ok else { return false }
        let again = try await call(instance, .post, "/reservations", user: user, body: body)
        if again.status != .ok || again.object["id"] as? String != id {
            state.withLock {
                $0.resent.append(
                    "\(id): first \(first.status.code), again \(again.status.code) \(again.text.prefix(200))")
            }
        }
        return true
    }

    /// Follows a user's feed from `start` until `stop` is set and a poll after it finds nothing more.
    func watch(_ instance: TeamScaleTests.Instance, user: User, from start: String, stop: Flag)
        async throws -> [HistoryEntry]
    {
        var seen: [HistoryEntry] = []
        var cursor = start
        while true {
            // Read before the poll: a poll that starts after the writers ended sees all they wrote.
            let stopping = stop.isSet
            let reply = try await call(instance, .get, "/changes?after=\(cursor)&wait=\(stopping ? 0 : 2)", user: user)
            guard reply.status == .ok, let page = ChangePage(json: try JSONValue.parse(Data(reply.text.utf8))) else {
                throw ModelFailure("GET /changes answered \(reply.status): \(reply.text.prefix(300))")
            }
            seen += page.changes.map(\.entry)
            cursor = page.cursor
            if stopping && page.changes.isEmpty { return seen }
        }
    }
}

/// What the writers book on, and the clock they move.
struct World: Sendable {
    let places: CapacityModel
    let catalog: LandmarkCatalog
    let clock: TestClock

    /// Day `day` of December 2030 at 10:00 UTC.
    static func hallDate(day: Int) -> Date { Date(timeIntervalSince1970: 1_922_349_600 + Double(day) * 86_400) }

    /// One client of `user` on `instance`: `rounds` requests chosen by `seed`.
    /// `manages`: the user is an admin, who also changes days and other users' parties.
    func work(
        seed: UInt64, rounds: Int, user: User, on instance: TeamScaleTests.Instance, calls: Calls, manages: Bool = false
    ) async throws {
        var random = SeededRandom(seed: seed)
        var mine: [String] = []
        for _ in 0..<rounds {
            let choice = random.next(below: manages ? 26 : 22)
            let landmark = random.next(below: places.landmarks.count)
            guard
                let date = places.date(landmark, random.next(below: places.days.count), time: random.next(below: 3))
            else { continue }
            let target = mine.isEmpty ? nil : mine[random.next(below: mine.count)]
            let party = 1 + random.next(below: 3)
            let place = places.landmarks[landmark].id
            switch choice {
            case 0..<9:
                // A booking, or a place on the list when the day is full, or a hold.
                let extra = [#","waitlist":true"#, #","waitlist":true"#, #","hold":300"#, ""][random.next(below: 4)]
                let reply = try await calls.call(
                    instance, .post, "/reservations", user: user,
                    body:
                        #"{"landmarkId":"\#(place)","date":"\#(DateTime.format(date))","partySize":\#(party)\#(extra)}"#
                )
                if let id = reply.object["id"] as? String { mine.append(id) }
            case 9..<12:
                guard let target else { continue }
                _ = try await calls.call(instance, .delete, "/reservations/\(target)", user: user)
            case 12:
                guard let target else { continue }
                _ = try await calls.call(instance, .post, "/reservations/\(target)/confirm", user: user)
            case 13..<15:
                guard let target else { continue }
                let body =
                    random.next(below: 2) == 0
                    ? #"{"partySize":\#(party)}"# : #"{"date":"\#(DateTime.format(date))"}"#
                _ = try await calls.call(instance, .patch, "/reservations/\(target)", user: user, body: body)
            case 15:
                _ = try await calls.call(instance, .post, "/undo", user: user)
            case 16..<18:
                _ = try await sweepHolds(store: instance.store, catalog: catalog, now: clock.now())
            case 18:
                let id = UUID().uuidString.lowercased()
                let body =
                    #"{"landmarkId":"\#(place)","date":"\#(DateTime.format(date))","partySize":\#(party),"id":"\#(id)"}"#
                if try await calls.reserveTwice(instance, user: user, body: body, id: id) { mine.append(id) }
            case 19:
                // A series: the day and the next one, or every day of the model, all or nothing.
                let series = UUID().uuidString.lowercased()
                let dates = (0..<places.days.count).compactMap { places.date(landmark, $0, time: 0) }.prefix(
                    2 + random.next(below: 2))
                // Half of them wait on a full day (as `--every … --waitlist`), the others are refused whole.
                let wait = random.next(below: 2) == 0 ? #","waitlist":true"# : ""
                let lines = dates.map {
                    #"{"landmarkId":"\#(place)","date":"\#(DateTime.format($0))","partySize":\#(party),"series":"\#(series)"\#(wait)}"#
                }
                mine += try await calls.reserveSeries(
                    instance, user: user, body: #"{"reservations":[\#(lines.joined(separator: ","))]}"#,
                    series: series, count: lines.count)
            case 20, 21:
                clock.advance(by: Double(60 + random.next(below: 240)))
            case 22, 23:
                // A day of a landmark closed, lowered or opened again; the parties over cancelled or waitlisted.
                let day = places.days[random.next(below: places.days.count)]
                let overflow = random.next(below: 2) == 0 ? "cancel" : "waitlist"
                let capacity = random.next(below: (places.landmarks[landmark].capacity ?? 1) + 1)
                let body = [
                    #"{"from":"\#(day)","close":"storm","overflow":"\#(overflow)"}"#,
                    #"{"from":"\#(day)","capacity":\#(capacity),"overflow":"\#(overflow)"}"#,
                    #"{"from":"\#(day)","open":true}"#,
                ][random.next(below: 3)]
                try await calls.manage("days", instance, .post, "/landmarks/\(place)/days", user: user, body: body)
            default:
                // Another user's party (or her own) cancelled or checked in by the manager.
                let all = calls.allCreated()
                guard !all.isEmpty else { continue }
                let party = all[random.next(below: all.count)]
                if choice == 24 {
                    try await calls.manage("cancel", instance, .delete, "/reservations/\(party)", user: user)
                } else {
                    try await calls.manage("checkin", instance, .post, "/reservations/\(party)/checkin", user: user)
                }
            }
        }
    }
}
