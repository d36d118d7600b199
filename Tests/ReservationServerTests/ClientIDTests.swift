import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ReservationCore
import ResvTestKit
import Synchronization
import Testing

@testable import ReservationServer
@testable import ReservationStorage

/// `POST /reservations` with an `id` the client made (docs/contracts.md, "Offline"):
/// what `resv sync` sends, so a sync killed after the server answered and run
/// again books nothing twice.
@Suite("A client's id on POST /reservations", .timeLimit(.minutes(30)))
struct ClientIDTests {
    static func body(_ landmark: String, _ date: String, _ party: Int, id: String, extra: String = "") -> String {
        #"{"landmarkId":"\#(landmark)","date":"\#(date)","partySize":\#(party),"id":"\#(id)"\#(extra)}"#
    }

    @Test(arguments: Engine.available)
    func theSameIdAndRequestIsTheSameBookingAndAnotherRequestIs422(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let id = UUID().uuidString.lowercased()
            let date = Fixture.futureDate()
            let body = Self.body(Fixture.goldenGate, date, 3, id: id, extra: #","note":"from the train""#)
            let first = try await h.call(.post, "/reservations", token: h.alice, body: body)
            #expect(first.status == .created, "\(first.text)")
            #expect(first.object["id"] as? String == id)
            #expect(first.headers[.location] == "/reservations/\(id)")
            // Sent again (no key): the same booking, 200, nothing booked.
            let again = try await h.call(.post, "/reservations", token: h.alice, body: body)
            #expect(again.status == .ok, "\(again.text)")
            #expect(again.object["id"] as? String == id)
            #expect(again.object["version"] as? Int == 1)
            #expect(again.object["note"] as? String == "from the train")
            #expect(try await h.call(.get, "/reservations", token: h.alice).array.count == 1)
            // The same id with another party size, date or note: 422, nothing changed.
            for other in [
                Self.body(Fixture.goldenGate, date, 4, id: id, extra: #","note":"from the train""#),
                Self.body(Fixture.goldenGate, Fixture.futureDate(), 3, id: id, extra: #","note":"from the train""#),
                Self.body(Fixture.goldenGate, date, 3, id: id),
                Self.body(Fixture.halfDome, date, 3, id: id, extra: #","note":"from the train""#),
                Self.body(
                    Fixture.goldenGate, date, 3, id: id,
                    extra: #","note":"from the train","series":"\#(UUID().uuidString)""#),
            ] {
                let refused = try await h.call(.post, "/reservations", token: h.alice, body: other)
                #expect(refused.status == .unprocessableContent, "\(refused.text)")
                #expect(refused.code == .reservationIdInUse)
                #expect(refused.reason?.contains(id) == true)
            }
            // Another user's request with the id: 422, and Alice's booking untouched.
            let bob = try await h.call(.post, "/reservations", token: h.bob, body: body)
            #expect(bob.status == .unprocessableContent, "\(bob.text)")
            #expect(bob.code == .reservationIdInUse)
            #expect(try await h.call(.get, "/reservations", token: h.bob).array.isEmpty)
            let alice = try await h.call(.get, "/reservations", token: h.alice).array
            #expect(alice.count == 1 && alice[0]["partySize"] as? Int == 3)
        }
    }

    @Test(arguments: Engine.available)
    func anIdThatIsNoUUIDIs400AloneAndInABatch(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let date = Fixture.futureDate()
            for id in ["abc", "", String(repeating: "a", count: 32), "937fea60bb7b4ee885dac79962987917"] {
                let reply = try await h.call(
                    .post, "/reservations", token: h.alice, body: Self.body(Fixture.goldenGate, date, 1, id: id))
                #expect(reply.status == .badRequest, "\(id): \(reply.text)")
                #expect(reply.reason?.contains("is not a UUID") == true)
            }
            let number = try await h.call(
                .post, "/reservations", token: h.alice,
                body: #"{"landmarkId":"\#(Fixture.goldenGate)","date":"\#(date)","partySize":1,"id":7}"#)
            #expect(number.status == .badRequest)
            let good = Self.body(Fixture.goldenGate, date, 1, id: UUID().uuidString)
            let batch = try await h.call(
                .post, "/reservations/batch", token: h.alice,
                body: #"{"reservations":[\#(good),\#(Self.body(Fixture.goldenGate, date, 1, id: "abc"))]}"#)
            #expect(batch.status == .badRequest, "\(batch.text)")
            #expect(Self.failures(batch) == [2: "invalidRequest"])
            #expect(try await h.call(.get, "/reservations", token: h.alice).array.isEmpty)
        }
    }

    /// Each failure of a refused batch: its request's number and code.
    static func failures(_ reply: Reply) -> [Int: String] {
        let items = reply.object["failures"] as? [[String: Any]] ?? []
        return Dictionary(
            items.compactMap { item in (item["request"] as? Int).map { ($0, item["code"] as? String ?? "") } },
            uniquingKeysWith: { a, _ in a })
    }

    /// A batch whose requests carry ids (what `resv import` sends): booked under them, all or
    /// nothing; a request whose id is already the same booking is not booked again; an id
    /// in use by another request, another user, or an earlier line is that line's failure.
    @Test(arguments: Engine.available)
    func aBatchCarriesIdsAllOrNothing(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let date = Fixture.futureDate()
            let (a, b, c, d) = (UUID(), UUID(), UUID(), UUID())
            func item(_ id: UUID, _ party: Int = 2, landmark: String = Fixture.goldenGate) -> String {
                Self.body(landmark, date, party, id: id.uuidString.lowercased(), extra: #","note":"a, b; c\nd""#)
            }
            func batch(_ items: [String], token: String) async throws -> Reply {
                try await h.call(
                    .post, "/reservations/batch", token: token,
                    body: #"{"reservations":[\#(items.joined(separator: ","))]}"#)
            }
            let first = try await batch([item(a), item(b, landmark: Fixture.halfDome)], token: h.alice)
            #expect(first.status == .created, "\(first.text)")
            #expect(first.array.map { $0["id"] as? String } == [a, b].map { $0.uuidString.lowercased() })
            // Sent again: the same bookings, nothing booked twice.
            let again = try await batch([item(a), item(b, landmark: Fixture.halfDome)], token: h.alice)
            #expect(again.status == .created, "\(again.text)")
            #expect(again.array.map { $0["version"] as? Int } == [1, 1])
            #expect(try await h.call(.get, "/reservations", token: h.alice).array.count == 2)
            // One already there and one new: only the new one is booked.
            let more = try await batch([item(a), item(c)], token: h.alice)
            #expect(more.status == .created, "\(more.text)")
            #expect(try await h.call(.get, "/reservations", token: h.alice).array.count == 3)
            // The id of a differing booking, a repeated id, and another user's: each its line, nothing booked.
            let refused = try await batch([item(a, 9), item(d), item(d)], token: h.alice)
            #expect(refused.status == .badRequest, "\(refused.text)")
            #expect(Self.failures(refused) == [1: "reservationIdInUse", 3: "reservationIdInUse"])
            let bobs = try await batch([item(d), item(a)], token: h.bob)
            #expect(Self.failures(bobs) == [2: "reservationIdInUse"], "\(bobs.text)")
            #expect(try await h.call(.get, "/reservations", token: h.bob).array.isEmpty)
            let alice = try await h.call(.get, "/reservations", token: h.alice).array
            #expect(alice.count == 3)
            #expect(alice.allSatisfy { $0["note"] as? String == "a, b; c\nd" && $0["partySize"] as? Int == 2 })
        }
    }

    /// A day with a capacity (grouped without an id) and a full one joined by its list:
    /// sent again, the answer is the booking as it is now.
    @Test(arguments: Engine.available)
    func onADayWithACapacityAndOnItsWaitlistTheIdIsKeptToo(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let date = Fixture.futureDate()
            let filled = try await h.call(
                .post, "/reservations", token: h.bob, body: Fixture.body(Fixture.halfDome, date, 300))
            #expect(filled.status == .created)
            let id = UUID().uuidString.lowercased()
            let body = Self.body(Fixture.halfDome, date, 2, id: id, extra: #","waitlist":true"#)
            let first = try await h.call(.post, "/reservations", token: h.alice, body: body)
            #expect(first.status == .created, "\(first.text)")
            #expect(first.object["status"] as? String == "waitlisted")
            let again = try await h.call(.post, "/reservations", token: h.alice, body: body)
            #expect(again.status == .ok)
            #expect(again.object["status"] as? String == "waitlisted")
            // Places free: it is promoted, and a resend answers it as it is now.
            let bobs = try #require(filled.object["id"] as? String)
            #expect(try await h.call(.delete, "/reservations/\(bobs)", token: h.bob).status == .ok)
            let promoted = try await h.call(.post, "/reservations", token: h.alice, body: body)
            #expect(promoted.status == .ok)
            #expect(promoted.object["status"] as? String == "confirmed")
            #expect(try await h.call(.get, "/reservations", token: h.alice).array.count == 1)
        }
    }

    /// With a key as well (what resv sends): the key's kept answer first, the id after the key is gone.
    @Test(arguments: Engine.available)
    func withAKeyTheKeptAnswerIsReplayedAndTheIdStillHolds(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let id = UUID().uuidString.lowercased()
            let body = Self.body(Fixture.goldenGate, Fixture.futureDate(), 2, id: id)
            let key: HTTPFields = [.idempotencyKey: "resv-\(id)"]
            let first = try await h.call(.post, "/reservations", token: h.alice, body: body, headers: key)
            #expect(first.status == .created)
            let replay = try await h.call(.post, "/reservations", token: h.alice, body: body, headers: key)
            #expect(replay.status == .created)
            #expect(replay.headers[.idempotentReplayed] == "true")
            let otherKey = try await h.call(
                .post, "/reservations", token: h.alice, body: body, headers: [.idempotencyKey: "resv-\(UUID())"])
            #expect(otherKey.status == .ok)
            #expect(otherKey.object["id"] as? String == id)
            #expect(try await h.call(.get, "/reservations", token: h.alice).array.count == 1)
        }
    }

    /// Three instances on one PostgreSQL, each id sent to all three at once, half of them
    /// without a key: each booked once, one 201 per id and the others 200 (or a replay), never 422 or 500.
    @Test(.enabled(if: Engine.postgresURL != nil, "needs RESV_TEST_POSTGRES_URL (scripts/with-postgres)"))
    func oneIdSentToThreeInstancesAtOnceIsBookedOnce() async throws {
        let url = try #require(Engine.postgresURL)
        let clock = TestClock(OnSaleTests.start)
        let date = DateTime.format(OnSaleTests.visit)
        try await OnSaleTests.withRouters(3, url: url, catalog: .builtIn, clock: clock) { instances in
            let users = try await User.team(in: instances[0].store)
            let ids = (0..<24).map { _ in UUID().uuidString.lowercased() }
            let answers = Sent()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (number, id) in ids.enumerated() {
                    let user = users[number % users.count]
                    let landmark = number % 2 == 0 ? Fixture.halfDome : Fixture.goldenGate
                    for instance in instances {
                        group.addTask {
                            var headers: HTTPFields = [
                                .authorization: "Bearer \(user.token)", .contentType: "application/json",
                            ]
                            if number % 3 == 0 { headers[.idempotencyKey] = "resv-\(id)" }
                            let body = Self.body(landmark, date, 1, id: id)
                            // A 503 (transactions broken past the server's retries on a loaded machine) wrote
                            // nothing and is sent again, as resv does; the answer kept is the last.
                            let response = try await instance.book(headers: headers, body: body)
                            let object =
                                (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any]
                            answers.add(
                                id, response.status.code, object?["id"] as? String, code: object?["code"] as? String)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let all = answers.all
            for id in ids {
                let mine = all.filter { $0.id == id }
                #expect(mine.count == 3)
                #expect(mine.allSatisfy { [200, 201].contains($0.status) && $0.answered == id }, "\(id): \(mine)")
                // Without a key exactly one made it; with one, a replay answers 201 too.
                let made = mine.count { $0.status == 201 }
                #expect(ids.firstIndex(of: id)! % 3 == 0 ? made >= 1 : made == 1, "\(id): \(mine)")
            }
            let stored = try await users.asyncMap { try await instances[1].store.list($0.id) }.flatMap { $0 }
            let mine = stored.filter { ids.contains($0.id) }
            #expect(mine.count == ids.count, "each id stored once: \(mine.count) rows for \(ids.count) ids")
            #expect(Set(mine.map(\.id)) == Set(ids))
        }
    }

    /// The same batch with ids (an import run twice at once, or sent again after a lost answer) to
    /// three instances on one database at once, without a key: each id stored once, and every
    /// answer a 201 with those ids (the batch made, or found made). Never a 500 from the insert
    /// that lost the race for an id, nor a 400 `reservationIdInUse` from a request that found the
    /// ids taken by the winner's commit a moment after it looked for the user's own: many rounds,
    /// since that moment is one statement long (before the fix, 60 rounds on PostgreSQL met it
    /// twice: 2 of 180 answers 400).
    @Test(arguments: Instances.engines)
    func oneBatchOfIdsSentToThreeInstancesAtOnceIsBookedOnce(engine: Engine) async throws {
        let clock = TestClock(OnSaleTests.start)
        let date = DateTime.format(OnSaleTests.visit)
        try await Instances.with(3, engine: engine, clock: clock) { instances in
            let user = try await User.team(in: instances[0].store)[0]
            var wrong: [String] = []
            for round in 0..<Self.batchRounds {
                let ids = (0..<4).map { _ in UUID().uuidString.lowercased() }
                let landmark = round % 2 == 0 ? Fixture.halfDome : Fixture.goldenGate
                let body =
                    #"{"reservations":[\#(ids.map { Self.body(landmark, date, 1, id: $0) }.joined(separator: ","))]}"#
                let answers = try await withThrowingTaskGroup(of: Reply.self) { group in
                    for instance in instances {
                        group.addTask { try await instance.call(.post, "/reservations/batch", as: user, body: body) }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                for answer in answers
                where answer.status != .created || answer.array.compactMap({ $0["id"] as? String }) != ids {
                    wrong.append(
                        "round \(round): \(answer.status.code) \(answer.code?.rawValue ?? String(answer.text.prefix(80)))"
                    )
                }
                let stored = try await instances[1].store.list(user.id).filter { ids.contains($0.id) }
                #expect(stored.count == ids.count, "round \(round): \(stored.count) rows for \(ids.count) ids")
            }
            #expect(wrong.isEmpty, "\(wrong.count) of \(Self.batchRounds * 3) answers not 201: \(wrong.prefix(5))")
        }
    }

    /// How many times `oneBatchOfIdsSentToThreeInstancesAtOnceIsBookedOnce` sends its batch.
    static let batchRounds = 60
}

/// What each request of a test was answered.
final class Sent: Sendable {
    struct Answer: Sendable {
        let id: String
        let status: Int
        let answered: String?
        var code: String? = nil
    }
    private let answers = Mutex<[Answer]>([])
    func add(_ id: String, _ status: Int, _ answered: String?, code: String? = nil) {
        answers.withLock { $0.append(Answer(id: id, status: status, answered: answered, code: code)) }
    }
    var all: [Answer] { answers.withLock { $0 } }
}
