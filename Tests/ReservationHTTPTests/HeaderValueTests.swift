import Foundation
import ReservationCore
import Testing

@testable import ReservationHTTP

/// The user's strings that become headers (the Idempotency-Key, the token) are
/// printable ASCII without spaces, or nothing is sent at all.
@Suite("Header values from the user", .timeLimit(.minutes(30)))
struct HeaderValueTests {
    static let injected = "k\r\nX-Injected: yes"
    static let badKeys = [
        injected, "k\nx", "k\rx", "with space", "tab\there", "ключ", "k\u{7F}", "k\u{0}x", "",
        String(repeating: "k", count: 256),
    ]

    @Test(arguments: badKeys)
    func aKeyThatIsNotPrintableASCIIIsRefused(key: String) {
        #expect(!HeaderValue.isValid(key, longest: HeaderValue.longestKey))
    }

    @Test(arguments: ["k", "nightly-42", "!~", String(repeating: "k", count: 255)])
    func aKeyOfPrintableASCIIIsTaken(key: String) {
        #expect(HeaderValue.isValid(key, longest: HeaderValue.longestKey))
    }

    static func request() throws -> NewReservation {
        try NewReservation(
            landmark: "golden gate bridge", date: Date(timeIntervalSince1970: 1_937_000_000), partySize: 2,
            now: Date(timeIntervalSince1970: 1_700_000_000))
    }

    /// A script that answers everything, to count what is sent.
    static func script() -> HTTPServiceTests.Script {
        HTTPServiceTests.Script { request, _ in
            request.url.path == "/landmarks"
                ? HTTPServiceTests.ok(HTTPServiceTests.landmarks)
                : HTTPServiceTests.ok(HTTPServiceTests.reservation, status: 201)
        }
    }

    /// Expects `action` to be refused as a bad request (400, exit 64) whose reason contains `words`.
    static func expectRefused(_ words: String, _ action: () async throws -> Void) async {
        do {
            try await action()
            Issue.record("must be refused")
        } catch HTTPBackendError.refused(let status, let reason) {
            #expect(status == 400)
            #expect(reason.contains(words), "\(reason)")
            #expect(!reason.contains("\n") && !reason.contains("\r"))
        } catch {
            Issue.record("expected refused(400), got \(error)")
        }
    }

    @Test(arguments: badKeys)
    func aBadKeyIsRefusedBeforeAnyRequest(key: String) async throws {
        let script = Self.script()
        let service = script.service { $0.idempotencyKey = key }
        let request = try Self.request()
        await Self.expectRefused("Idempotency-Key must be 1 to 255 printable ASCII") {
            _ = try await service.reserve(request)
        }
        #expect(script.sent.withLock { $0 }.isEmpty)
    }

    @Test func aBatchIsOneRequestCarryingTheKeyAsGiven() async throws {
        let longest = String(repeating: "k", count: 255)
        let script = HTTPServiceTests.Script { request, _ in
            request.url.path == "/landmarks"
                ? HTTPServiceTests.ok(HTTPServiceTests.landmarks)
                : HTTPServiceTests.ok(
                    "[" + Array(repeating: HTTPServiceTests.reservation, count: 10).joined(separator: ",") + "]",
                    status: 201)
        }
        let service = script.service { $0.idempotencyKey = longest }
        let request = try Self.request()
        _ = try await service.reserve(Array(repeating: request, count: 10))
        let posts = script.sent.withLock { $0 }.filter { $0.method == "POST" }
        #expect(posts.map(\.url.path) == ["/reservations/batch"])
        #expect(posts.first?.headers["Idempotency-Key"] == longest)
    }

    @Test(arguments: [injected, "t0k\n", "two words", "tökén", ""])
    func aTokenThatIsNotPrintableASCIIIsNeverSent(token: String) async throws {
        let script = Self.script()
        await Self.expectRefused("the token must be printable ASCII") {
            _ = try await script.service { $0.token = token }.fetch()
        }
        #expect(script.sent.withLock { $0 }.isEmpty)
    }
}
