import Foundation
import HTTPTypes
import ResvTestKit
import Testing

@testable import ReservationServer
@testable import ReservationStorage

/// Generated hostile requests against the router: every one gets an HTTP
/// answer from the documented set, and the server (this process) never traps.
@Suite("Generated hostile requests to resv-server", .timeLimit(.minutes(30)))
struct ServerFuzzTests {
    static let numbers = [
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "1e308", "0", "-1", "1", "10000",
        "10001", "1.5", "1e2", "12345678901234567890123", "null", "true", #""4""#, "[]", "{}",
    ]
    static let dates = [
        "2031-06-01T10:00:00Z", "9999-12-31T23:59:59Z", "9999-12-31T23:59:59-14:00", "0000-01-01T00:00:00+00:01",
        "2031-02-30T10:00:00Z", "2031-06-01T10:00:00.99999999999Z", "2031-06-01", "\\u001b[2J", "",
    ]
    static let landmarks = [
        Fixture.halfDome, Fixture.goldenGate, "00000000-0000-4000-8000-000000000000", "half", "", "\\u0000",
    ]
    static let answers: Set<Int> = [200, 201, 400, 404, 409, 413, 422]

    @Test(arguments: Engine.available)
    func generatedCreatesAndAvailabilityQueriesGetAnAnswer(engine: Engine) async throws {
        let now: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_900_000_000) }  // 2030-03-17
        try await withHarness(engine, now: now) { h in
            var random = SeededRandom(seed: 0xF022)
            var created: [Int: Int] = [:]  // status of each create -> n
            for _ in 0..<300 {
                var fields = [
                    #""landmarkId": "\#(Self.landmarks.randomElement(using: &random)!)""#,
                    #""date": "\#(Self.dates.randomElement(using: &random)!)""#,
                    #""partySize": \#(Self.numbers.randomElement(using: &random)!)"#,
                ]
                if Bool.random(using: &random) { fields.append(#""status": "pending""#) }
                fields.shuffle(using: &random)
                if random.next(below: 6) == 0 { fields.removeLast() }
                if random.next(below: 8) == 0 { fields.append(fields[0]) }  // a repeated key
                let body = "{" + fields.joined(separator: ", ") + "}"
                let answer = try await h.call(.post, "/reservations", token: h.alice, body: body)
                #expect(Self.answers.contains(answer.status.code), "\(body): \(answer.text)")
                #expect(answer.reason.map { !$0.isEmpty } ?? (answer.status.code < 300), "\(body): \(answer.text)")
                created[answer.status.code, default: 0] += 1

                let from = "2031-0\(random.next(below: 9) + 1)-0\(random.next(below: 9) + 1)"
                let id = Self.landmarks.randomElement(using: &random)!
                let days = try await h.call(
                    .get, "/landmarks/\(id)/availability?from=\(from)&to=\(from)", token: h.bob)
                #expect(Self.answers.contains(days.status.code), "\(id) \(from): \(days.text)")
            }
            // The requests took both ways: some booked, some refused (a generator gone all-valid or
            // all-broken, or a router refusing everything, shows here).
            let made = created[201, default: 0]
            #expect(made > 0 && made < 300, "statuses of the creates: \(created)")
            // What was booked is listed, each once, within the bounds; availability over all of it still answers.
            let listed = try await h.call(.get, "/reservations", token: h.alice).array
            #expect(listed.count == made, "\(made) answered 201, \(listed.count) listed")
            #expect(listed.allSatisfy { ($0["partySize"] as? Int).map { (1...10_000).contains($0) } == true })
            let year = try await h.call(
                .get, "/landmarks/\(Fixture.goldenGate)/availability?from=2031-01-01&to=2031-12-31", token: h.bob)
            #expect(year.status == .ok)
        }
    }
}
