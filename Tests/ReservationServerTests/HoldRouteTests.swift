import Foundation
import HTTPTypes
import ReservationCore
import ResvTestKit
import Testing

@testable import ReservationServer
@testable import ReservationStorage

/// Holds and waitlists through the routes, on every engine, on a clock the
/// test moves (docs/contracts.md, "Holds and waitlists"). Serialized: a sweep ends
/// every user's due holds, and on PostgreSQL the tests share one database.
@Suite("Holds and waitlists on the server", .serialized, .timeLimit(.minutes(30)))
struct HoldRouteTests {
    static let halfDome = Fixture.halfDome  // 300 a day

    /// A day of its own at Half Dome, 10:00 UTC (the clock starts long before it).
    static func day() -> String { Fixture.futureDate() }

    static func body(_ date: String, _ party: Int, hold: Int? = nil, waitlist: Bool = false, pending: Bool = false)
        -> String
    {
        var fields = [#""landmarkId":"\#(halfDome)""#, #""date":"\#(date)""#, #""partySize":\#(party)"#]
        if let hold { fields.append(#""hold":\#(hold)"#) }
        if waitlist { fields.append(#""waitlist":true"#) }
        if pending { fields.append(#""status":"pending""#) }
        return "{" + fields.joined(separator: ",") + "}"
    }

    static func post(_ h: Harness, _ token: String, _ body: String) async throws -> Reply {
        try await h.call(.post, "/reservations", token: token, body: body)
    }

    static func statuses(_ h: Harness, _ token: String) async throws -> [String: String] {
        let list = try await h.call(.get, "/reservations", token: token).array
        return Dictionary(uniqueKeysWithValues: list.map { ($0["id"] as? String ?? "", $0["status"] as? String ?? "") })
    }

    /// One reservation's status, read afresh (a list may be kept between the router's own writes).
    static func status(_ h: Harness, _ token: String, _ id: String) async throws -> String? {
        try await h.call(.get, "/reservations/\(id)", token: token).object["status"] as? String
    }

    static func taken(_ h: Harness, _ date: String) async throws -> Int {
        let day = String(date.prefix(10))
        let reply = try await h.call(
            .get, "/landmarks/\(halfDome)/availability?from=\(day)&to=\(day)", token: h.alice)
        return reply.array.first?["taken"] as? Int ?? -1
    }

    @Test(arguments: Engine.available)
    func aHoldTakesPlacesUntilItEndsThenReadsExpiredAndCannotBeConfirmed(engine: Engine) async throws {
        let clock = TestClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        try await withHarness(engine, now: clock.now) { h in
            let date = Self.day()
            let held = try await Self.post(h, h.alice, Self.body(date, 100, hold: 600))
            #expect(held.status == .created, "\(held.text)")
            #expect(held.object["status"] as? String == "held")
            let end = DateTime.format(clock.now().addingTimeInterval(600))
            #expect(held.object["expiresAt"] as? String == end)
            #expect(try await Self.taken(h, date) == 100, "a live hold counts")
            let second = try await Self.post(h, h.alice, Self.body(date, 50, hold: 600))
            let secondID = try #require(second.object["id"] as? String)
            let confirmed = try await h.call(.post, "/reservations/\(secondID)/confirm", token: h.alice)
            #expect(confirmed.object["status"] as? String == "confirmed")
            #expect(confirmed.object["expiresAt"] == nil, "a confirmed hold has no end")

            clock.advance(by: 600)
            #expect(try await Self.taken(h, date) == 50, "at its end a hold counts nothing, swept or not")
            let id = try #require(held.object["id"] as? String)
            let late = try await h.call(.post, "/reservations/\(id)/confirm", token: h.alice)
            #expect(late.status == .conflict)
            #expect(late.code == .holdExpired, "\(late.text)")
            #expect(try await sweepHolds(store: h.store, catalog: .builtIn, now: clock.now()) >= 1)
            #expect(try await Self.status(h, h.alice, id) == "expired")
            #expect(try await sweepHolds(store: h.store, catalog: .builtIn, now: clock.now()) == 0, "ended once")
            let history = try await h.call(.get, "/history?reservation=\(id)", token: h.alice).array
            #expect(history.map { $0["change"] as? String } == ["expired", "created"])
            let undo = try await h.call(.post, "/undo", token: h.alice)
            #expect(undo.status == .ok)
            #expect(
                (undo.object["changes"] as? [[String: Any]])?.first?["reservationId"] as? String == secondID,
                "undo takes back the user's confirm, never the expiry")
        }
    }

    @Test(arguments: Engine.available)
    func theWaitlistIsServedInOrderFirstThatFitsWhenPlacesFree(engine: Engine) async throws {
        let clock = TestClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        try await withHarness(engine, now: clock.now) { h in
            let date = Self.day()
            let big = try await Self.post(h, h.alice, Self.body(date, 300))
            let bigID = try #require(big.object["id"] as? String)
            let refused = try await Self.post(h, h.bob, Self.body(date, 5))
            #expect(refused.status == .conflict, "without --waitlist a full day refuses")
            var waiting: [String] = []
            for (party, pending) in [(5, false), (8, false), (3, true), (4, false)] {
                let reply = try await Self.post(h, h.bob, Self.body(date, party, waitlist: true, pending: pending))
                #expect(reply.status == .created, "\(reply.text)")
                #expect(reply.object["status"] as? String == "waitlisted")
                #expect(reply.object["waitlistPosition"] as? Int == waiting.count + 1)
                waiting.append(try #require(reply.object["id"] as? String))
            }
            #expect(try await Self.taken(h, date) == 300, "waitlisted requests count nothing")
            // 4 free: the 5 and the 8 do not fit; the 3 does (pending, as asked); then the 4 no longer does.
            let shrink = try await h.call(
                .patch, "/reservations/\(bigID)", token: h.alice, body: #"{"partySize": 296}"#)
            #expect(shrink.status == .ok, "\(shrink.text)")
            var now = try await Self.statuses(h, h.bob)
            #expect(waiting.map { now[$0] } == ["waitlisted", "waitlisted", "pending", "waitlisted"])
            #expect(try await Self.taken(h, date) == 299)
            let list = try await h.call(.get, "/reservations", token: h.bob).array
            let positions = Dictionary(
                uniqueKeysWithValues: list.map { ($0["id"] as? String ?? "", $0["waitlistPosition"] as? Int) })
            #expect(positions[waiting[0]] == 1)
            #expect(positions[waiting[1]] == 2)
            #expect(positions[waiting[3]] == 3, "the promoted one left the list")
            // Cancelling the big booking frees everything: every waiting one fits, in order.
            #expect(try await h.call(.delete, "/reservations/\(bigID)", token: h.alice).status == .ok)
            now = try await Self.statuses(h, h.bob)
            #expect(waiting.map { now[$0] } == ["confirmed", "confirmed", "pending", "confirmed"])
            let promoted = try await h.call(.get, "/history", token: h.bob).array.filter {
                $0["change"] as? String == "promoted"
            }
            #expect(promoted.count == 4, "each promoted once")
            #expect(
                try await h.call(.get, "/history", token: h.alice).array.allSatisfy {
                    $0["change"] as? String != "promoted"
                })
            // Alice's undo of the cancel needs 296 places, and the promotions took 20 of them.
            let undo = try await h.call(.post, "/undo", token: h.alice)
            #expect(undo.status == .conflict)
            #expect(undo.code == .noCapacity, "\(undo.text)")
        }
    }

    @Test(arguments: Engine.available)
    func anEndedHoldIsSweptAndItsPlacesGoToTheWaitlist(engine: Engine) async throws {
        let clock = TestClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        try await withHarness(engine, now: clock.now) { h in
            let date = Self.day()
            _ = try await Self.post(h, h.alice, Self.body(date, 290))
            let held = try await Self.post(h, h.alice, Self.body(date, 10, hold: 90))
            #expect(held.object["status"] as? String == "held")
            let waiting = try await Self.post(h, h.bob, Self.body(date, 7, waitlist: true))
            let waitingID = try #require(waiting.object["id"] as? String)
            #expect(waiting.object["status"] as? String == "waitlisted")
            clock.advance(by: 89)
            #expect(try await sweepHolds(store: h.store, catalog: .builtIn, now: clock.now()) == 0)
            #expect(try await Self.status(h, h.bob, waitingID) == "waitlisted")
            clock.advance(by: 1)
            #expect(try await sweepHolds(store: h.store, catalog: .builtIn, now: clock.now()) >= 1)
            #expect(try await Self.status(h, h.bob, waitingID) == "confirmed")
            #expect(try await Self.taken(h, date) == 297)
            let history = try await h.call(.get, "/history?reservation=\(waitingID)", token: h.bob).array
            #expect(history.map { $0["change"] as? String } == ["promoted", "created"])
            #expect(history.first?["user"] as? String != nil)
            // A newcomer never passes the list: with a due hold not yet swept, the reserve ends it first.
            let date2 = Self.day()
            _ = try await Self.post(h, h.alice, Self.body(date2, 295, hold: 60))
            let queued = try await Self.post(h, h.bob, Self.body(date2, 200, waitlist: true))
            let queuedID = try #require(queued.object["id"] as? String)
            clock.advance(by: 60)
            let newcomer = try await Self.post(h, h.alice, Self.body(date2, 150))
            #expect(newcomer.status == .conflict, "the 200 waiting were served first: \(newcomer.text)")
            // The refusal rolled back all it did, the hold's end too: the sweep records it.
            #expect(try await Self.status(h, h.bob, queuedID) == "waitlisted")
            #expect(try await sweepHolds(store: h.store, catalog: .builtIn, now: clock.now()) >= 1)
            #expect(try await Self.status(h, h.bob, queuedID) == "confirmed")
        }
    }

    @Test(arguments: Engine.available)
    func badHoldsAndTooManyHoldsAreRefused(engine: Engine) async throws {
        let clock = TestClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        try await withHarness(engine, now: clock.now) { h in
            let date = Self.day()
            for hold in ["0", "86401", "-5", "1e9", "\"10m\""] {
                let reply = try await h.call(
                    .post, "/reservations", token: h.alice,
                    body: #"{"landmarkId":"\#(Self.halfDome)","date":"\#(date)","partySize":1,"hold":\#(hold)}"#)
                #expect(reply.status == .badRequest, "hold \(hold): \(reply.text)")
            }
            let both = try await Self.post(
                h, h.alice,
                #"{"landmarkId":"\#(Self.halfDome)","date":"\#(date)","partySize":1,"hold":60,"waitlist":true}"#)
            #expect(both.status == .badRequest)
            #expect(both.code == .invalidHold)
            for _ in 0..<20 {
                #expect(try await Self.post(h, h.alice, Self.body(date, 1, hold: 600)).status == .created)
            }
            let over = try await Self.post(h, h.alice, Self.body(date, 1, hold: 600))
            #expect(over.status == .conflict)
            #expect(over.code == .tooManyHolds, "\(over.text)")
            #expect(try await Self.post(h, h.bob, Self.body(date, 1, hold: 600)).status == .created, "per user")
            clock.advance(by: 600)
            #expect(
                try await Self.post(h, h.alice, Self.body(date, 1, hold: 600)).status == .created,
                "ended ones do not count")
        }
    }

    /// Bookings, waitlist requests, holds, cancels and shrinks by two users at once
    /// on one day, then a sweep: the day is never over capacity, nothing left
    /// waiting fits in what is free, and no reservation is promoted twice.
    @Test(arguments: Engine.available)
    func concurrentChangesKeepTheDayExactAndTheWaitlistServed(engine: Engine) async throws {
        let clock = TestClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        try await withHarness(engine, now: clock.now) { h in
            let date = Self.day()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        let token = worker.isMultiple(of: 2) ? h.alice : h.bob
                        var mine: [String] = []
                        for step in 0..<15 {
                            switch (worker + step) % 5 {
                            case 0, 1:
                                let reply = try await Self.post(
                                    h, token, Self.body(date, Int.random(in: 10...60), waitlist: true))
                                if let id = reply.object["id"] as? String { mine.append(id) }
                            case 2:
                                let reply = try await Self.post(
                                    h, token, Self.body(date, Int.random(in: 5...30), hold: 30))
                                if let id = reply.object["id"] as? String { mine.append(id) }
                            case 3:
                                if let id = mine.randomElement() {
                                    _ = try await h.call(.delete, "/reservations/\(id)", token: token)
                                }
                            default:
                                if let id = mine.randomElement() {
                                    _ = try await h.call(
                                        .patch, "/reservations/\(id)", token: token, body: #"{"partySize": 3}"#)
                                }
                            }
                            #expect(try await Self.taken(h, date) <= 300)
                        }
                    }
                }
                try await group.waitForAll()
            }
            clock.advance(by: 30)
            _ = try await sweepHolds(store: h.store, catalog: .builtIn, now: clock.now())
            let taken = try await Self.taken(h, date)
            #expect(taken <= 300)
            var promotions: [String: Int] = [:]
            for token in [h.alice, h.bob] {
                for record in try await h.call(.get, "/reservations", token: token).array
                where record["status"] as? String == "waitlisted" {
                    let party = try #require(record["partySize"] as? Int)
                    #expect(party > 300 - taken, "a waiting party of \(party) fits in \(300 - taken) free places")
                }
                for entry in try await h.call(.get, "/history", token: token).array
                where entry["change"] as? String == "promoted" {
                    promotions[entry["reservationId"] as? String ?? "", default: 0] += 1
                }
            }
            #expect(promotions.values.allSatisfy { $0 == 1 }, "\(promotions)")
        }
    }

    /// The hold model's operations as the user of `token`, through the routes.
    static func modelBackend(_ h: Harness, token: String, model: HoldModel) -> HoldModel.Backend {
        HoldModel.Backend(
            reserve: { landmark, date, party, request in
                var fields = [
                    #""landmarkId":"\#(landmark.id)""#, #""date":"\#(DateTime.format(date))""#,
                    #""partySize":\#(party)"#,
                ]
                switch request {
                case .booking(let pending): if pending { fields.append(#""status":"pending""#) }
                case .waitlist(let pending):
                    fields.append(#""waitlist":true"#)
                    if pending { fields.append(#""status":"pending""#) }
                case .hold(let seconds): fields.append(#""hold":\#(seconds)"#)
                }
                let reply = try await h.call(
                    .post, "/reservations", token: token, body: "{\(fields.joined(separator: ","))}")
                switch (reply.status, reply.code) {
                case (.created, _):
                    let status = (reply.object["status"] as? String).flatMap(Reservation.Status.init(rawValue:))
                    return .created(
                        id: try #require(reply.object["id"] as? String), status: try #require(status, "\(reply.text)"))
                case (.conflict, .noCapacity?): return .refused(reply.reason ?? reply.text)
                case (.conflict, .tooManyHolds?): return .tooManyHolds
                default: throw ModelFailure("create answered \(reply.status): \(reply.text)")
                }
            },
            cancel: { id in
                let reply = try await h.call(.delete, "/reservations/\(id)", token: token)
                guard reply.status == .ok else { throw ModelFailure("cancel answered \(reply.status): \(reply.text)") }
            },
            confirm: { id in
                let reply = try await h.call(.post, "/reservations/\(id)/confirm", token: token)
                switch (reply.status, reply.code) {
                case (.ok, _): return .confirmed
                case (.conflict, .cannotConfirmCancelled?): return .cancelled
                case (.conflict, .holdExpired?): return .holdExpired
                case (.conflict, .cannotConfirmWaitlisted?): return .waitlisted
                default: throw ModelFailure("confirm answered \(reply.status): \(reply.text)")
                }
            },
            read: {
                var read: [String: HoldModel.Reading] = [:]
                for record in try await h.call(.get, "/reservations", token: token).array {
                    guard let id = record["id"] as? String,
                        let status = (record["status"] as? String).flatMap(Reservation.Status.init(rawValue:))
                    else { throw ModelFailure("a listed record without id or status: \(record)") }
                    let date = try DateTime.parse(record["date"] as? String ?? "")
                    read[id] = HoldModel.Reading(
                        status: status, position: record["waitlistPosition"] as? Int,
                        day: model.day(landmarkID: record["landmarkId"] as? String ?? "", date: date),
                        party: record["partySize"] as? Int)
                }
                return read
            },
            systemChanges: {
                var counts: [String: [HistoryEntry.Change: Int]] = [:]
                for entry in try await h.call(.get, "/history", token: token).array {
                    guard let change = (entry["change"] as? String).flatMap(HistoryEntry.Change.init(rawValue:)),
                        change.isSystem, let id = entry["reservationId"] as? String
                    else { continue }
                    counts[id, default: [:]][change, default: 0] += 1
                }
                return counts
            }
        )
    }

    /// Alice and Bob hold, book, join lists, cancel and confirm in turn while the
    /// clock moves and the server sweeps now and then: every step reads as the
    /// model says, with a cap of 2 live holds a user to meet.
    @Test(arguments: Engine.available)
    func randomSequencesOfTwoUsersAgreeWithTheHoldModel(engine: Engine) async throws {
        let model = HoldModel()
        let catalog = LandmarkCatalog(model.base.landmarks)
        let clock = TestClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        var options = ServerOptions()
        options.maxHoldsPerUser = 2
        try await withHarness(engine, catalog: catalog, now: clock.now, options: options) { h in
            let system = HoldModel.System(
                users: [h.alice, h.bob].map { Self.modelBackend(h, token: $0, model: model) },
                advance: { clock.advance(by: Double($0)) },
                sweep: { _ = try await sweepHolds(store: h.store, catalog: catalog, now: clock.now()) }, holdLimit: 2)
            let problems = try await model.run(seed: 31, steps: 200, start: clock.now(), on: system)
            #expect(problems.isEmpty, "\(problems.prefix(5))")
        }
    }

    /// Two clients each of Alice and Bob at once, the clock moving and sweeps
    /// running among them: every day within capacity, no waiting party that
    /// fits, every ended hold recorded once and no promotion twice.
    @Test(arguments: Engine.available)
    func concurrentHoldsAndListsOfTwoUsersKeepTheModelsRules(engine: Engine) async throws {
        let model = HoldModel()
        let catalog = LandmarkCatalog(model.base.landmarks)
        let clock = TestClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        var options = ServerOptions()
        options.maxHoldsPerUser = 4
        try await withHarness(engine, catalog: catalog, now: clock.now, options: options) { h in
            let users = [h.alice, h.bob].map { Self.modelBackend(h, token: $0, model: model) }
            @Sendable func sweep() async throws {
                _ = try await sweepHolds(store: h.store, catalog: catalog, now: clock.now())
            }
            let system = HoldModel.System(
                users: users, advance: { clock.advance(by: Double($0)) }, sweep: sweep, holdLimit: 4)
            let problems = try await model.runConcurrently(
                seed: 8, steps: 30, clients: users + users, system: system, settle: sweep)
            #expect(problems.isEmpty, "\(problems.prefix(5))")
        }
    }
}
