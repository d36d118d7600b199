import Foundation
import ReservationCore
import ResvTestKit
import Synchronization
import Testing

@testable import ReservationHTTP

/// Generated hostile answers from a server: every call of the backend returns
/// or throws, never traps (this test process would die with it).
@Suite("Generated hostile server answers", .timeLimit(.minutes(30)))
struct ResponseFuzzTests {
    static let statuses = [200, 201, 204, 301, 400, 401, 404, 409, 413, 422, 429, 500, 503]
    static let retryAfter = ["-1e300", "-inf", "nan", "1e309", "9223372036854775807", "3", "0.5", "Wed, 21 Oct 2015"]

    /// A body: hostile records, arrays of them, a valid landmark list now and then, or broken JSON.
    static func body(_ random: inout SeededRandom) -> String {
        switch random.next(below: 6) {
        case 0: return HostileJSON.value(&random)
        case 1:
            return "[" + (0..<random.next(below: 4)).map { _ in HostileJSON.value(&random) }.joined(separator: ",")
                + "]"
        case 2:
            let landmarks = ["7c6984ff-188e-417e-b476-ec5f30b8d745", "937fea60-bb7b-4ee8-85da-c79962987917"]
            return "["
                + (0..<random.next(below: 4)).map { _ in HostileJSON.reservation(&random, landmarks: landmarks) }
                .joined(separator: ",") + "]"
        case 3: return HostileJSON.reservation(&random, landmarks: ["7c6984ff-188e-417e-b476-ec5f30b8d745"])
        case 4: return HTTPServiceTests.landmarks
        default: return String(HostileJSON.store(&random).prefix(random.next(below: 40)))  // cut short
        }
    }

    @Test func everyCallReturnsOrThrows() async throws {
        let random = Mutex(SeededRandom(seed: 0xA115))
        let script = HTTPServiceTests.Script { _, _ in
            random.withLock { random in
                var headers: [String: String] = [:]
                if random.next(below: 3) == 0 {
                    headers["Retry-After"] = Self.retryAfter.randomElement(using: &random)!
                }
                return HTTPResponseData(
                    status: Self.statuses.randomElement(using: &random)!, headers: headers,
                    body: Data(Self.body(&random).utf8))
            }
        }
        let service = script.service()
        let id = try #require(Reservation.ID("5eed3333-3333-4333-8333-333333333333"))
        let now = Date(timeIntervalSince1970: 1_900_000_000)
        let request = try NewReservation(
            landmark: "Golden Gate Bridge", date: Date(timeIntervalSince1970: 1_950_000_000), partySize: 2, now: now)
        let days = [try #require(CalendarDay("2031-06-01"))]
        var returned = 0
        var thrown: [String: Int] = [:]  // the kind of error -> n
        for round in 0..<80 {
            do {
                switch round % 6 {
                case 0: _ = try await service.landmarks()
                case 1: _ = try await service.fetch()
                case 2: _ = try await service.reserve([request, request])
                case 3: _ = try await service.cancel([id])
                case 4: _ = try await service.confirm(id)
                default: _ = try await service.availability("Golden Gate Bridge") { _ in days }
                }
                returned += 1
            } catch let error as HTTPBackendError {
                thrown["HTTPBackendError", default: 0] += 1
                #expect(!error.localizedDescription.isEmpty)
            } catch let error as ReservationError {
                thrown["ReservationError", default: 0] += 1
                #expect(!error.localizedDescription.isEmpty)
            } catch {
                // Anything else is an error the CLI has no exit code or message for.
                Issue.record("round \(round): \(type(of: error)) is neither the backend's nor a refusal: \(error)")
            }
        }
        // The answers were varied enough to take both ways, and both kinds of refusal.
        #expect(returned > 0, "returned \(returned), thrown \(thrown)")
        #expect(thrown["HTTPBackendError", default: 0] > 0 && thrown["ReservationError", default: 0] > 0, "\(thrown)")
    }
}
