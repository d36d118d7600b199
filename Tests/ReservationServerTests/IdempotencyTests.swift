import Foundation
import HTTPTypes
import ReservationCore
import ResvTestKit
import Testing

@testable import ReservationServer
@testable import ReservationStorage

@Suite("Idempotency and concurrency", .timeLimit(.minutes(30)))
struct IdempotencyTests {
    @Test(arguments: Engine.available)
    func sameKeySameBodyReplaysTheFirstResponse(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let body = Fixture.body(Fixture.goldenGate, Fixture.futureDate(), 3)
            let key: HTTPFields = [.idempotencyKey: "retry-\(UUID())"]
            let first = try await h.call(.post, "/reservations", token: h.alice, body: body, headers: key)
            #expect(first.status == .created)
            #expect(first.headers[.idempotentReplayed] == nil)
            let again = try await h.call(.post, "/reservations", token: h.alice, body: body, headers: key)
            #expect(again.status == .created)
            #expect(again.status.reasonPhrase == "Created")
            #expect(again.text == first.text)
            #expect(again.headers[.idempotentReplayed] == "true")
            // The same request written differently (spacing, key order) is the same request.
            let object = try #require(JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
            let reordered = String(
                decoding: try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted]), as: UTF8.self)
            let third = try await h.call(.post, "/reservations", token: h.alice, body: reordered, headers: key)
            #expect(third.text == first.text)
            #expect(try await h.call(.get, "/reservations", token: h.alice).array.count == 1)
        }
    }

    @Test(arguments: Engine.available)
    func sameKeyDifferentBodyIs422(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let date = Fixture.futureDate()
            let key: HTTPFields = [.idempotencyKey: "k-\(UUID())"]
            let first = try await h.call(
                .post, "/reservations", token: h.alice, body: Fixture.body(Fixture.goldenGate, date, 2), headers: key)
            #expect(first.status == .created)
            let other = try await h.call(
                .post, "/reservations", token: h.alice, body: Fixture.body(Fixture.goldenGate, date, 5), headers: key)
            #expect(other.status == .unprocessableContent)
            #expect(other.reason?.contains("already used with a different request") == true, "\(other.text)")
            #expect(try await h.call(.get, "/reservations", token: h.alice).array.count == 1)
        }
    }

    @Test(arguments: Engine.available)
    func keysBelongToOneUser(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let body = Fixture.body(Fixture.goldenGate, Fixture.futureDate(), 2)
            let key: HTTPFields = [.idempotencyKey: "shared-\(UUID())"]
            let alice = try await h.call(.post, "/reservations", token: h.alice, body: body, headers: key)
            let bob = try await h.call(.post, "/reservations", token: h.bob, body: body, headers: key)
            #expect(alice.status == .created)
            #expect(bob.status == .created)
            #expect(alice.object["id"] as? String != bob.object["id"] as? String)
        }
    }

    @Test(arguments: Engine.available)
    func refusedRequestsKeepNoKey(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let key: HTTPFields = [.idempotencyKey: "fix-\(UUID())"]
            let bad = try await h.call(
                .post, "/reservations", token: h.alice, body: Fixture.body(Fixture.goldenGate, Fixture.futureDate(), 0),
                headers: key)
            #expect(bad.status == .badRequest)
            let fixed = try await h.call(
                .post, "/reservations", token: h.alice, body: Fixture.body(Fixture.goldenGate, Fixture.futureDate(), 2),
                headers: key)
            #expect(fixed.status == .created)
        }
    }

    @Test(arguments: Engine.available)
    func malformedKeysAreRefused(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let body = Fixture.body(Fixture.goldenGate, Fixture.futureDate(), 2)
            for key in [String(repeating: "k", count: 256), "has space", "tab\tkey"] {
                let reply = try await h.call(
                    .post, "/reservations", token: h.alice, body: body, headers: [.idempotencyKey: key])
                #expect(reply.status == .badRequest, "\(key)")
                #expect(reply.reason?.contains("Idempotency-Key") == true)
            }
            let longest = String(repeating: "k", count: 255)
            #expect(
                try await h.call(
                    .post, "/reservations", token: h.alice, body: body, headers: [.idempotencyKey: longest]
                )
                .status == .created)
        }
    }

    /// SQLite only: a purge is database-wide, and on the PostgreSQL database
    /// the tests share it would delete the keys of tests running beside it.
    @Test func keysAreKeptUntilPurged() async throws {
        try await withHarness(.sqlite) { h in
            let body = Fixture.body(Fixture.goldenGate, Fixture.futureDate(), 2)
            let key: HTTPFields = [.idempotencyKey: "old-\(UUID())"]
            #expect(
                try await h.call(.post, "/reservations", token: h.alice, body: body, headers: key).status == .created)
            // A purge of keys older than a day ago keeps this one ...
            _ = try await h.store.purgeKeys(Date().addingTimeInterval(-24 * 3600))
            let replay = try await h.call(.post, "/reservations", token: h.alice, body: body, headers: key)
            #expect(replay.headers[.idempotentReplayed] == "true")
            // ... and a purge of everything before now removes it: the key books again.
            #expect(try await h.store.purgeKeys(Date().addingTimeInterval(1)) >= 1)
            let fresh = try await h.call(.post, "/reservations", token: h.alice, body: body, headers: key)
            #expect(fresh.status == .created)
            #expect(fresh.headers[.idempotentReplayed] == nil)
            #expect(try await h.call(.get, "/reservations", token: h.alice).array.count == 2)
        }
    }

    @Test(arguments: Engine.available)
    func fiftyConcurrentCreatesAreStoredOnce(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let ids = try await withThrowingTaskGroup(of: String?.self) { group in
                for index in 0..<50 {
                    group.addTask {
                        let body = Fixture.body(Fixture.goldenGate, Fixture.futureDate(), 1 + index % 5)
                        let reply = try await h.call(.post, "/reservations", token: h.alice, body: body)
                        return reply.status == .created ? reply.object["id"] as? String : nil
                    }
                }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(ids.compactMap { $0 }.count == 50)
            let stored = try await h.call(.get, "/reservations", token: h.alice).array.compactMap {
                $0["id"] as? String
            }
            #expect(Set(stored) == Set(ids.compactMap { $0 }))
            #expect(stored.count == 50)
        }
    }

    @Test(arguments: Engine.available)
    func concurrentRetriesWithOneKeyBookOnce(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let body = Fixture.body(Fixture.goldenGate, Fixture.futureDate(), 2)
            let key: HTTPFields = [.idempotencyKey: "burst-\(UUID())"]
            let replies = try await withThrowingTaskGroup(of: Reply.self) { group in
                for _ in 0..<20 {
                    group.addTask { try await h.call(.post, "/reservations", token: h.alice, body: body, headers: key) }
                }
                return try await group.reduce(into: [Reply]()) { $0.append($1) }
            }
            #expect(replies.allSatisfy { $0.status == .created })
            #expect(Set(replies.map(\.text)).count == 1, "\(Set(replies.map(\.text)))")
            #expect(try await h.call(.get, "/reservations", token: h.alice).array.count == 1)
        }
    }

    @Test(arguments: Engine.available)
    func concurrentBookingsNeverPassCapacity(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let day = Fixture.futureDate()
            // 40 parties of 10 for 300 places: exactly 30 fit.
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for index in 0..<40 {
                    let token = index.isMultiple(of: 2) ? h.alice : h.bob
                    group.addTask {
                        try await h.call(
                            .post, "/reservations", token: token, body: Fixture.body(Fixture.halfDome, day, 10)
                        )
                        .status
                    }
                }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .created }.count == 30)
            #expect(statuses.filter { $0 == .conflict }.count == 10)
        }
    }
}
