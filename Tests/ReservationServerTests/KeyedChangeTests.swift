import Foundation
import HTTPTypes
import ReservationCore
import Testing

@testable import ReservationServer
@testable import ReservationStorage

/// Every change under an `Idempotency-Key` is made once (docs/contracts.md, "Exactly once"):
/// sent again, as a client does when its answer was lost, it is answered with the first
/// answer and changes nothing more; the key with another request is 422. On every engine.
@Suite("Keyed changes: made once, answered again", .timeLimit(.minutes(15)))
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
}
