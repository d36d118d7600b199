import Foundation
import HTTPTypes
import ReservationCore
import ResvTestKit
import Testing

@testable import ReservationServer
@testable import ReservationStorage

/// Every change under an `Idempotency-Key` is made once (docs/contracts.md, "Exactly once"):
/// sent again, as a client does when its answer was lost, it is answered with the first
/// answer and changes nothing more; the key with another request is 422. On every engine.
@Suite("Keyed changes: made once, answered again", .timeLimit(.minutes(30)))
struct KeyedChangeTests {
    /// One keyed change sent twice: the second answer is the first's, replayed, and `check`
    /// sees the store after both.
    static func twice(
        _ h: Harness, _ method: HTTPRequest.Method, _ uri: String, body: String? = nil, ifMatch: String? = nil
    ) async throws -> (first: Reply, second: Reply) {
        var headers: HTTPFields = [.idempotencyKey: "k-\(UUID())"]
        if let ifMatch { headers[.ifMatch] = ifMatch }
        let first = try await h.call(method, uri, token: h.alice, body: body, headers: headers)
        let second = try await h.call(method, uri, token: h.alice, body: body, headers: headers)
        #expect(first.headers[.idempotentReplayed] == nil)
        #expect(second.headers[.idempotentReplayed] == "true", "\(second.status) \(second.text)")
        #expect(second.status == first.status)
        #expect(second.text == first.text)
        return (first, second)
    }

    /// The changes `GET /history` holds for alice: one per change made.
    static func historyCount(_ h: Harness) async throws -> Int {
        try await h.call(.get, "/history?limit=100", token: h.alice).array.count
    }

    @Test(arguments: Engine.available)
    func aModifySentTwiceIsMadeOnce(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let made = try await h.reserve(h.alice, partySize: 2)
            let id = try #require(made["id"] as? String)
            // With If-Match "1": made once, a second application would be refused 412 (version 2 now).
            let (first, _) = try await Self.twice(
                h, .patch, "/reservations/\(id)", body: #"{"partySize": 4}"#, ifMatch: "\"1\"")
            #expect(first.status == .ok, "\(first.text)")
            #expect(first.headers[.eTag] == "\"2\"")
            let read = try await h.call(.get, "/reservations/\(id)", token: h.alice).object
            #expect(read["partySize"] as? Int == 4)
            #expect(read["version"] as? Int == 2, "changed once")
        }
    }

    @Test(arguments: Engine.available)
    func anUndoSentTwiceTakesBackOneCommand(engine: Engine) async throws {
        try await withHarness(engine) { h in
            for _ in 0..<3 { try await h.reserve(h.alice) }
            let (first, _) = try await Self.twice(h, .post, "/undo")
            #expect(first.status == .ok, "\(first.text)")
            let left = try await h.call(.get, "/reservations", token: h.alice).array
            #expect(
                left.filter { $0["status"] as? String != "cancelled" }.count == 2, "one booking taken back, not two")
        }
    }

    /// Two undos, then `POST /redo` twice under one key: one undo taken back, not two.
    @Test(arguments: Engine.available)
    func aRedoSentTwiceTakesBackOneUndo(engine: Engine) async throws {
        try await withHarness(engine) { h in
            for _ in 0..<3 { try await h.reserve(h.alice) }
            for _ in 0..<2 {
                let undone = try await h.call(.post, "/undo", token: h.alice)
                #expect(undone.status == .ok, "\(undone.text)")
            }
            let (first, _) = try await Self.twice(h, .post, "/redo")
            #expect(first.status == .ok, "\(first.text)")
            #expect(first.object["redid"] is String, "\(first.text)")
            let left = try await h.call(.get, "/reservations", token: h.alice).array
            #expect(
                left.filter { $0["status"] as? String != "cancelled" }.count == 2, "one undo taken back, not two")
        }
    }

    @Test(arguments: Engine.available)
    func aCancelAndAConfirmSentTwiceAreMadeOnce(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let pending = try await h.reserve(h.alice, status: "pending")
            let pendingID = try #require(pending["id"] as? String)
            let confirmed = try await Self.twice(h, .post, "/reservations/\(pendingID)/confirm")
            #expect(confirmed.first.status == .ok, "\(confirmed.first.text)")
            let made = try await h.reserve(h.alice)
            let id = try #require(made["id"] as? String)
            let before = try await Self.historyCount(h)
            let cancelled = try await Self.twice(h, .delete, "/reservations/\(id)")
            #expect(cancelled.first.status == .ok, "\(cancelled.first.text)")
            #expect(try await Self.historyCount(h) == before + 1, "one change in the history")
            let other = try await h.reserve(h.alice)
            let otherID = try #require(other["id"] as? String)
            let batch = try await Self.twice(h, .post, "/reservations/cancel", body: #"{"ids": ["\#(otherID)"]}"#)
            #expect(batch.first.status == .ok, "\(batch.first.text)")
            #expect(try await Self.historyCount(h) == before + 3, "its booking and one cancel")
        }
    }

    /// A manager's changes under a key: a no-show (after its visit, on a clock the test moves)
    /// and a closure that cancels the parties over, each sent twice, are made once: one no-show in
    /// the history, and each owner's party cancelled once with the reason.
    @Test(arguments: Engine.available)
    func aNoShowAndAClosureSentTwiceAreMadeOnce(engine: Engine) async throws {
        let peak = DayRuleRouteTests.peak()
        let clock = AttendanceRouteTests.Clock()
        try await withHarness(engine, catalog: LandmarkCatalog([peak]), now: clock.now) { h in
            _ = try await h.admin(h.alice)
            let visit = try DateTime.parse(DayRuleRouteTests.visit)
            let missed = try #require(
                try await h.reserve(h.alice, landmark: peak.id.description, date: DayRuleRouteTests.visit)["id"]
                    as? String)
            clock.set(visit.addingTimeInterval(3_600))
            let before = try await Self.historyCount(h)
            let noShow = try await Self.twice(h, .post, "/reservations/\(missed)/noshow")
            #expect(noShow.first.status == .ok, "\(noShow.first.text)")
            #expect(try await Self.historyCount(h) == before + 1, "one no-show in the history")

            // A later day: bob's party of 4 on it, closed with cancel twice under one key.
            clock.set(visit)
            let later = "2030-12-02"
            let bobs = try #require(
                try await h.reserve(h.bob, landmark: peak.id.description, date: "\(later)T10:00:00Z", partySize: 4)[
                    "id"] as? String)
            let body = #"{"from":"\#(later)","close":"rockfall","overflow":"cancel"}"#
            let closed = try await Self.twice(h, .post, "/landmarks/\(peak.id)/days", body: body)
            #expect(closed.first.status == .ok, "\(closed.first.text)")
            #expect(closed.first.object["cancelled"] as? [String] == [bobs], "\(closed.first.text)")
            let history = try await h.call(.get, "/history?limit=100", token: h.bob).array
            let changes = history.filter { $0["reservationId"] as? String == bobs }
            #expect(changes.count == 2, "booked, and cancelled once: \(changes)")
            #expect(changes.compactMap { $0["reason"] as? String } == ["closed: rockfall"], "\(changes)")
        }
    }

    /// A key is one request: the same key on another reservation, or with another body, is 422
    /// and changes nothing.
    @Test(arguments: Engine.available)
    func aKeyReusedForAnotherChangeIs422(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let one = try #require(try await h.reserve(h.alice)["id"] as? String)
            let two = try #require(try await h.reserve(h.alice)["id"] as? String)
            let key: HTTPFields = [.idempotencyKey: "k-\(UUID())"]
            let first = try await h.call(.delete, "/reservations/\(one)", token: h.alice, headers: key)
            #expect(first.status == .ok)
            let other = try await h.call(.delete, "/reservations/\(two)", token: h.alice, headers: key)
            #expect(other.status == .unprocessableContent, "\(other.text)")
            #expect(other.code == .idempotencyKeyReused)
            let read = try await h.call(.get, "/reservations/\(two)", token: h.alice).object
            #expect(read["status"] as? String == "confirmed", "nothing changed")
            let patch = try await h.call(
                .patch, "/reservations/\(two)", token: h.alice, body: #"{"partySize": 3}"#, headers: key)
            #expect(patch.status == .unprocessableContent, "\(patch.text)")
        }
    }

    /// A refusal is not kept: it changed nothing, and the same key is decided afresh.
    @Test(arguments: Engine.available)
    func aRefusalIsNotKept(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let id = try #require(try await h.reserve(h.alice)["id"] as? String)
            let key: HTTPFields = [.idempotencyKey: "k-\(UUID())", .ifMatch: "\"7\""]
            let refused = try await h.call(
                .patch, "/reservations/\(id)", token: h.alice, body: #"{"partySize": 3}"#, headers: key)
            #expect(refused.status == .preconditionFailed, "\(refused.text)")
            let again = try await h.call(
                .patch, "/reservations/\(id)", token: h.alice, body: #"{"partySize": 3}"#, headers: key)
            #expect(again.status == .preconditionFailed)
            #expect(again.headers[.idempotentReplayed] == nil)
        }
    }

    /// The same keyed undo sent twice at once: one command taken back, both answered alike.
    @Test(arguments: Engine.available)
    func anUndoSentTwiceAtOnceTakesBackOneCommand(engine: Engine) async throws {
        try await withHarness(engine) { h in
            for _ in 0..<4 { try await h.reserve(h.alice) }
            let key: HTTPFields = [.idempotencyKey: "k-\(UUID())"]
            async let one = h.call(.post, "/undo", token: h.alice, headers: key)
            async let two = h.call(.post, "/undo", token: h.alice, headers: key)
            let answers = try await [one, two]
            for answer in answers {
                #expect(answer.status == .ok || answer.status == .conflict, "\(answer.status) \(answer.text)")
            }
            let ok = answers.filter { $0.status == .ok }
            #expect(!ok.isEmpty)
            #expect(Set(ok.map(\.text)).count == 1, "the same answer")
            let left = try await h.call(.get, "/reservations", token: h.alice).array
            #expect(left.filter { $0["status"] as? String != "cancelled" }.count == 3, "one booking taken back")
        }
    }

    /// The same keyed PATCH, DELETE, confirm and undo sent at once to two instances on one
    /// database (a client's retry reaching another instance while the first still runs): each
    /// made once, and every answer the first one (once as made, else replayed) or a 409 for the
    /// sending that came while it still ran. Rounds of the four, each change on its own reservation;
    /// a modify made twice would be 412 (its If-Match is the version before), an undo made twice
    /// would take back the cancel before it too.
    @Test(arguments: Instances.engines)
    func aKeyedChangeSentToTwoInstancesAtOnceIsMadeOnce(engine: Engine) async throws {
        let clock = TestClock(OnSaleTests.start)
        try await Instances.with(2, engine: engine, clock: clock) { instances in
            let user = try await User.team(in: instances[0].store)[0]
            let date = DateTime.format(OnSaleTests.visit)
            func book(_ status: String) async throws -> String {
                let made = try await instances[0].call(
                    .post, "/reservations", as: user, body: Fixture.body(Fixture.goldenGate, date, 2, status))
                #expect(made.status == .created, "\(made.text)")
                return try #require(made.object["id"] as? String)
            }
            func stored(_ id: String) async throws -> ReservationApiModel? {
                try await instances[1].store.get(user.id, try #require(Reservation.ID(id)))
            }
            for round in 0..<6 {
                let modified = try await book("confirmed")
                let cancelled = try await book("confirmed")
                let confirmed = try await book("pending")
                let patch = try await Self.atOnce(
                    instances, .patch, "/reservations/\(modified)", as: user, body: #"{"partySize": 4}"#,
                    ifMatch: "\"1\"", round: round)
                #expect(patch.headers[.eTag] == "\"2\"")
                let patched = try await stored(modified)
                #expect(patched?.partySize == 4 && patched?.version == 2, "round \(round): changed once")
                _ = try await Self.atOnce(instances, .delete, "/reservations/\(cancelled)", as: user, round: round)
                let cancel = try await stored(cancelled)
                #expect(cancel?.status == "cancelled" && cancel?.version == 2, "round \(round)")
                _ = try await Self.atOnce(
                    instances, .post, "/reservations/\(confirmed)/confirm", as: user, round: round)
                let confirm = try await stored(confirmed)
                #expect(confirm?.status == "confirmed" && confirm?.version == 2, "round \(round)")
                // The newest command is the confirm: taken back once, the cancel before it stays.
                _ = try await Self.atOnce(instances, .post, "/undo", as: user, round: round)
                let undone = try await stored(confirmed)
                #expect(undone?.status == "pending" && undone?.version == 3, "round \(round)")
                #expect(try await stored(cancelled)?.status == "cancelled", "round \(round): one command undone")
                let entries = try await instances[1].store.history(user.id, nil, nil)
                #expect(entries.count == (round + 1) * 7, "round \(round): 3 bookings and 4 changes a round")
            }
        }
    }

    /// One keyed request sent to every instance at once: each answer 200 or 409, at least one
    /// 200, every 200 the same bytes, and all but one of them replays. Returns a 200.
    static func atOnce(
        _ instances: [TeamScaleTests.Instance], _ method: HTTPRequest.Method, _ uri: String, as user: User,
        body: String? = nil, ifMatch: String? = nil, round: Int
    ) async throws -> Reply {
        var fields: HTTPFields = [.idempotencyKey: "k-\(UUID())"]
        if let ifMatch { fields[.ifMatch] = ifMatch }
        let headers = fields
        let answers = try await withThrowingTaskGroup(of: Reply.self) { group in
            for instance in instances {
                group.addTask { try await instance.call(method, uri, as: user, body: body, headers: headers) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let what = "round \(round), \(method) \(uri): \(answers.map { "\($0.status.code) \($0.text.prefix(120))" })"
        #expect(answers.allSatisfy { $0.status == .ok || $0.status == .conflict }, "\(what)")
        let ok = answers.filter { $0.status == .ok }
        #expect(Set(ok.map(\.text)).count == 1, "one answer: \(what)")
        #expect(ok.count { $0.headers[.idempotentReplayed] == nil } == 1, "made once, the rest replayed: \(what)")
        return try #require(ok.first, "\(what)")
    }
}
