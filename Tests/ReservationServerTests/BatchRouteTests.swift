import Foundation
import HTTPTypes
import ReservationCore
import ResvTestKit
import Testing

@testable import ReservationServer
@testable import ReservationStorage

/// The batch routes: one request and one transaction, all or nothing, on every engine.
@Suite("Batch routes", .timeLimit(.minutes(30)))
struct BatchRouteTests {
    static func batch(_ bodies: [String]) -> String { #"{"reservations":["# + bodies.joined(separator: ",") + "]}" }
    static func ids(_ ids: [String]) -> String {
        #"{"ids":["# + ids.map { #""\#($0)""# }.joined(separator: ",") + "]}"
    }

    @Test(arguments: Engine.available)
    func aBatchBooksEveryRequestCountingTheOnesBeforeIt(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let date = Fixture.futureDate()
            // 300 places: 10 parties of 30 fit exactly; an 11th does not.
            let fits = Array(repeating: Fixture.body(Fixture.halfDome, date, 30), count: 10)
            let made = try await h.call(.post, "/reservations/batch", token: h.alice, body: Self.batch(fits))
            #expect(made.status == .created, "\(made.text)")
            #expect(made.array.count == 10)
            #expect(Set(made.array.compactMap { $0["id"] as? String }).count == 10)

            let more = try await h.call(
                .post, "/reservations/batch", token: h.bob,
                body: Self.batch([Fixture.body(Fixture.goldenGate, date, 2), Fixture.body(Fixture.halfDome, date, 1)]))
            #expect(more.status == .conflict, "\(more.text)")
            #expect(more.code == .batchRejected)
            let failures = try #require(more.object["failures"] as? [[String: Any]])
            #expect(failures.count == 1)
            #expect(failures.first?["request"] as? Int == 2)
            #expect(failures.first?["code"] as? String == "noCapacity")
            #expect((failures.first?["reason"] as? String)?.contains("300 of 300 places taken, 1 requested") == true)
            // Nothing of the refused batch is stored, not even its first line (Golden Gate has no limit).
            #expect(try await h.call(.get, "/reservations", token: h.bob).array.isEmpty)
        }
    }

    /// `POST /reservations/batch/dry-run`: the batch as the server would run it now (another
    /// user's bookings fill the day, another user's id is refused), answered and rolled back:
    /// nothing stored, no history, and the same batch then booked for real as it said.
    @Test(arguments: Engine.available)
    func aDryRunAnswersWhatTheBatchWouldDoAndKeepsNothing(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let date = Fixture.futureDate()
            let taken = UUID().uuidString.lowercased()
            let alices = #"{"landmarkId":"\#(Fixture.halfDome)","date":"\#(date)","partySize":299,"id":"\#(taken)"}"#
            #expect(try await h.call(.post, "/reservations", token: h.alice, body: alices).status == .created)
            let history = try await h.call(.get, "/history", token: h.bob).text
            let fresh = UUID().uuidString.lowercased()
            let mine = #"{"landmarkId":"\#(Fixture.goldenGate)","date":"\#(date)","partySize":2,"id":"\#(fresh)"}"#
            let refused = try await h.call(
                .post, "/reservations/batch/dry-run", token: h.bob,
                body: Self.batch([
                    mine, alices.replacingOccurrences(of: "299", with: "1"), Fixture.body(Fixture.halfDome, date, 2),
                ]))
            #expect(refused.status == .badRequest, "\(refused.text)")
            #expect(refused.code == .batchRejected)
            let failures = try #require(refused.object["failures"] as? [[String: Any]])
            #expect(failures.compactMap { $0["request"] as? Int } == [2, 3], "\(refused.text)")
            #expect(failures.compactMap { $0["code"] as? String } == ["reservationIdInUse", "noCapacity"])

            let fits = Self.batch([mine, Fixture.body(Fixture.halfDome, date, 1)])
            let would = try await h.call(.post, "/reservations/batch/dry-run", token: h.bob, body: fits)
            #expect(would.status == .ok, "\(would.text)")
            #expect(would.array.map { $0["partySize"] as? Int } == [2, 1])
            #expect(would.array.first?["id"] as? String == fresh)
            #expect(try await h.call(.get, "/reservations", token: h.bob).array.isEmpty, "nothing kept")
            #expect(try await h.call(.get, "/history", token: h.bob).text == history)
            let made = try await h.call(.post, "/reservations/batch", token: h.bob, body: fits)
            #expect(made.status == .created, "\(made.text)")
            #expect(made.array.map { $0["id"] as? String }.first == fresh)
        }
    }

    @Test(arguments: Engine.available)
    func invalidLinesAreNamedAndNothingIsBooked(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let date = Fixture.futureDate()
            let body = Self.batch([
                Fixture.body(Fixture.goldenGate, date, 2), Fixture.body(Fixture.goldenGate, date, 0),
                Fixture.body("00000000-0000-4000-8000-000000000000", date, 2), #"{"date":"\#(date)"}"#,
                Fixture.body(Fixture.goldenGate, "2001-01-01T10:00:00Z", 2),
            ])
            let reply = try await h.call(.post, "/reservations/batch", token: h.alice, body: body)
            #expect(reply.status == .badRequest, "\(reply.text)")
            #expect(reply.code == .batchRejected)
            let failures = try #require(reply.object["failures"] as? [[String: Any]])
            #expect(failures.compactMap { $0["request"] as? Int } == [2, 3, 4, 5])
            #expect(
                failures.compactMap { $0["code"] as? String }
                    == ["invalidPartySize", "unknownLandmark", "invalidRequest", "dateInPast"])
            #expect(try await h.call(.get, "/reservations", token: h.alice).array.isEmpty)
        }
    }

    @Test(arguments: Engine.available)
    func badBatchBodiesAre400WithACode(engine: Engine) async throws {
        try await withHarness(engine) { h in
            for (route, body) in [
                ("/reservations/batch", "[]"), ("/reservations/batch", #"{"reservations":[]}"#),
                ("/reservations/batch", #"{"reservations":{}}"#), ("/reservations/batch", "{"),
                ("/reservations/cancel", #"{"ids":[]}"#), ("/reservations/cancel", #"{"ids":["abcd"]}"#),
                ("/reservations/confirm", #"{"ids":[1]}"#), ("/reservations/confirm", #"{"id":"x"}"#),
                ("/reservations/batch", Self.batch(Array(repeating: "{}", count: 10_001))),
            ] {
                let reply = try await h.call(.post, route, token: h.alice, body: body)
                #expect(reply.status == .badRequest, "\(route) \(body.prefix(40)): \(reply.text.prefix(200))")
                #expect(reply.reason != nil, "\(reply.text.prefix(200))")
            }
        }
    }

    @Test(arguments: Engine.available)
    func aBatchKeyReplaysTheWholeAnswer(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let date = Fixture.futureDate()
            let body = Self.batch([Fixture.body(Fixture.goldenGate, date, 2), Fixture.body(Fixture.halfDome, date, 3)])
            let key: HTTPFields = [.idempotencyKey: "batch-\(UUID())"]
            let first = try await h.call(.post, "/reservations/batch", token: h.alice, body: body, headers: key)
            #expect(first.status == .created)
            let again = try await h.call(.post, "/reservations/batch", token: h.alice, body: body, headers: key)
            #expect(again.status == .created)
            #expect(again.text == first.text)
            #expect(again.headers[.idempotentReplayed] == "true")
            #expect(try await h.call(.get, "/reservations", token: h.alice).array.count == 2)
            let other = Self.batch([Fixture.body(Fixture.goldenGate, date, 4)])
            let reused = try await h.call(.post, "/reservations/batch", token: h.alice, body: other, headers: key)
            #expect(reused.status == .unprocessableContent)
            #expect(reused.code == .idempotencyKeyReused)
        }
    }

    @Test(arguments: Engine.available)
    func cancelAndConfirmOfSeveralAreAllOrNothing(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let date = Fixture.futureDate()
            let a = try #require(try await h.reserve(h.alice, date: date, status: "pending")["id"] as? String)
            let b = try #require(try await h.reserve(h.alice, date: date)["id"] as? String)
            let bobs = try #require(try await h.reserve(h.bob, date: date)["id"] as? String)

            // Another user's id is unknown: nothing is cancelled.
            let foreign = try await h.call(.post, "/reservations/cancel", token: h.alice, body: Self.ids([a, bobs]))
            #expect(foreign.status == .notFound, "\(foreign.text)")
            #expect(foreign.code == .reservationNotFound)
            #expect((foreign.object["failures"] as? [[String: Any]])?.first?["id"] as? String == bobs)
            #expect(
                try await h.call(.get, "/reservations/\(a)", token: h.alice).object["status"] as? String == "pending")

            let confirmed = try await h.call(.post, "/reservations/confirm", token: h.alice, body: Self.ids([a, b]))
            #expect(confirmed.status == .ok, "\(confirmed.text)")
            #expect(confirmed.array.compactMap { $0["previousStatus"] as? String } == ["pending", "confirmed"])
            #expect(
                confirmed.array.compactMap { ($0["reservation"] as? [String: Any])?["status"] as? String }
                    == ["confirmed", "confirmed"])

            let cancelled = try await h.call(.post, "/reservations/cancel", token: h.alice, body: Self.ids([b, b]))
            #expect(cancelled.array.compactMap { $0["previousStatus"] as? String } == ["confirmed", "cancelled"])
            // A cancelled one among them: nothing is confirmed.
            let refused = try await h.call(.post, "/reservations/confirm", token: h.alice, body: Self.ids([a, b]))
            #expect(refused.status == .conflict, "\(refused.text)")
            #expect(refused.code == .cannotConfirmCancelled)
            #expect(
                refused.reason
                    == "reservation \(b.prefix(8)) is cancelled and cannot be confirmed; make a new reservation")
        }
    }

    /// Concurrent batches onto one day, from two users: never past the capacity, each all or nothing.
    @Test(arguments: Engine.available)
    func concurrentBatchesNeverOverbook(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let date = Fixture.futureDate()
            let body = Self.batch(Array(repeating: Fixture.body(Fixture.halfDome, date, 7), count: 5))  // 35 people
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for index in 0..<12 {
                    group.addTask {
                        try await h.call(
                            .post, "/reservations/batch", token: index % 2 == 0 ? h.alice : h.bob, body: body
                        )
                        .status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            // 300 / 35: 8 batches fit, 4 do not.
            #expect(statuses.filter { $0 == .created }.count == 8)
            #expect(statuses.filter { $0 == .conflict }.count == 4)
            let booked =
                try await h.call(.get, "/reservations", token: h.alice).array.count
                + h.call(.get, "/reservations", token: h.bob).array.count
            #expect(booked == 40)
        }
    }

    /// The codes the OpenAPI document lists are exactly core's.
    @Test func theOpenAPIDocumentListsEveryErrorCode() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("openapi/resv-server.yaml"), encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.contains("enum: [invalidDate") })
        let listed = line.split(separator: "[")[1].split(separator: "]")[0].split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(Set(listed) == Set(ErrorCode.allCases.map(\.rawValue)))
        #expect(listed.count == ErrorCode.allCases.count)
    }
}
