import Foundation
import ReservationCore
import Synchronization
import Testing

@testable import ReservationHTTP

/// The HTTP backend over a scripted transport: what it sends, what it retries,
/// how long it waits, and what each answer becomes.
@Suite("HTTP backend", .timeLimit(.minutes(30)))
struct HTTPServiceTests {
    static let base = URL(string: "http://server.test")!
    static let landmarks =
        #"[{"id":"7c6984ff-188e-417e-b476-ec5f30b8d745","name":"Golden Gate Bridge","location":"San Francisco, CA","category":"bridges"}]"#
    static let reservation =
        #"{"id":"5eed3333-3333-4333-8333-333333333333","landmarkId":"7c6984ff-188e-417e-b476-ec5f30b8d745","date":"2031-06-01T10:00:00Z","partySize":2,"status":"pending"}"#

    /// A transport that answers from `script` and records every request.
    final class Script: Sendable {
        let sent = Mutex<[HTTPRequestData]>([])
        let waits = Mutex<[Double]>([])
        let answer: @Sendable (HTTPRequestData, Int) throws -> HTTPResponseData

        init(_ answer: @escaping @Sendable (HTTPRequestData, Int) throws -> HTTPResponseData) { self.answer = answer }

        var service: ReservationService { service() }

        /// The backend over this script, with the token `t0k` unless `change` says otherwise.
        func service(_ change: (inout HTTPBackendConfiguration) -> Void = { _ in }) -> ReservationService {
            var retry = RetryPolicy()
            retry.sleep = { [weak self] seconds in self?.waits.withLock { $0.append(seconds) } }
            retry.random = { $0 }  // the top of each jitter range, to check the bounds
            var configuration = HTTPBackendConfiguration(
                baseURL: HTTPServiceTests.base, token: "t0k", retry: retry, now: { Date() })
            change(&configuration)
            return .http(
                configuration,
                transport: HTTPTransport { request in
                    let index = self.sent.withLock { sent in
                        sent.append(request)
                        return sent.count - 1
                    }
                    return try self.answer(request, index)
                })
        }

        func paths(_ method: String) -> [String] {
            sent.withLock { $0.filter { $0.method == method }.map(\.url.path) }
        }
    }

    static func ok(_ body: String, status: Int = 200) -> HTTPResponseData {
        HTTPResponseData(status: status, body: Data(body.utf8))
    }

    @Test func getsAreRetriedWithFullJitterBackoff() async throws {
        let script = Script { request, _ in
            request.url.path == "/landmarks" ? Self.ok(Self.landmarks) : Self.ok("", status: 503)
        }
        await #expect(throws: HTTPBackendError.self) { try await script.service.fetch() }
        #expect(script.paths("GET").filter { $0 == "/reservations" }.count == 3)
        #expect(script.waits.withLock { $0 } == [0.2, 0.4])  // base · 2^n, the top of each range
    }

    /// A server whose database fails over answers 503 with Retry-After for seconds: a read
    /// (and a keyed create) is tried again as long as the command's deadline allows, not
    /// three times; a 503 without Retry-After is tried three times.
    @Test func a503WithRetryAfterIsTriedUntilTheDeadlineAllows() async throws {
        let unavailable = Mutex(0)
        let script = Script { request, _ in
            if request.url.path == "/landmarks" { return Self.ok(Self.landmarks) }
            let count = unavailable.withLock { count in
                count += 1
                return count
            }
            return count <= 7 ? HTTPResponseData(status: 503, headers: ["Retry-After": "2"]) : Self.ok("[]")
        }
        _ = try await script.service.fetch()
        #expect(script.waits.withLock { $0 } == Array(repeating: 2.0, count: 7))

        let endless = Script { request, _ in
            request.url.path == "/landmarks"
                ? Self.ok(Self.landmarks) : HTTPResponseData(status: 503, headers: ["Retry-After": "2"])
        }
        // Never back: the tries end (at the deadline, or at `attemptsWhileUnavailable`).
        await #expect(throws: HTTPBackendError.self) { try await endless.service.fetch() }
        #expect(endless.paths("GET").filter { $0 == "/reservations" }.count == RetryPolicy().attemptsWhileUnavailable)

        let plain = Script { request, _ in
            request.url.path == "/landmarks" ? Self.ok(Self.landmarks) : HTTPResponseData(status: 503)
        }
        await #expect(throws: HTTPBackendError.self) { try await plain.service.fetch() }
        #expect(plain.paths("GET").filter { $0 == "/reservations" }.count == 3)
    }

    /// Waits before the retries of a GET answered 429 with `retryAfter` every time.
    static func waits(retryAfter: String) async throws -> [Double] {
        let script = Script { request, _ in
            if request.url.path == "/landmarks" { return Self.ok(Self.landmarks) }
            return HTTPResponseData(status: 429, headers: ["Retry-After": retryAfter])
        }
        do {
            _ = try await script.service.fetch()
            Issue.record("a 429 that never ends must fail")
        } catch HTTPBackendError.rateLimited {
        } catch {
            Issue.record("expected rateLimited, got \(error)")
        }
        return script.waits.withLock { $0 }
    }

    @Test(arguments: [("2", 2.0), ("0", 0), ("1.5", 1.5), (" 7 ", 7), ("60", 60)])
    func retryAfterInSecondsIsHonoured(header: String, seconds: Double) async throws {
        #expect(try await Self.waits(retryAfter: header) == [seconds, seconds])
    }

    /// Not a number of seconds up to a minute: the header is ignored, the usual backoff applies
    /// (and nothing traps converting it to a duration).
    @Test(arguments: [
        "61", "3600", "-1", "-1e300", "-inf", "inf", "nan", "1e309", "1e3", "0x10", "+5", "5.", ".5", "",
        String(repeating: "9", count: 400), "Wed, 21 Oct 2015 07:28:00 GMT",
    ])
    func aRetryAfterThatIsNotSecondsWithinAMinuteIsIgnored(header: String) async throws {
        #expect(try await Self.waits(retryAfter: header) == [0.2, 0.4])
    }

    @Test(arguments: [-1e300, -.infinity, .nan, -1, 0, -0.0])
    func sleepingForNoTimeReturnsAtOnce(seconds: Double) async throws {
        // A pause that sleeps at all throws when its task is cancelled; one of no time returns.
        let pause = Task { try await RetryPolicy().sleep(seconds) }
        pause.cancel()
        try await pause.value
    }

    @Test(arguments: [.infinity, 1e300, 1e18])
    func anEndlessSleepIsCancellableAndDoesNotTrap(seconds: Double) async throws {
        let pause = Task { try await RetryPolicy().sleep(seconds) }
        pause.cancel()
        await #expect(throws: CancellationError.self) { try await pause.value }
    }

    @Test func aNonsensicalBackoffWaitsNothing() {
        var policy = RetryPolicy()
        policy.random = { $0 }
        for (base, cap) in [(Double.nan, 5.0), (0.2, .infinity), (-1, 5), (0.2, -3), (1e308, 1e308 * 10)] {
            policy.base = base
            policy.cap = cap
            for retry in [0, 1, 2, 5000] {
                let wait: Double? = policy.delay(before: retry, retryAfter: nil)
                #expect(wait.map { $0.isFinite && $0 >= 0 } == true, "base \(base), cap \(cap), retry \(retry)")
            }
        }
    }

    @Test func createsAndConfirmsCarryOneKeyEachAcrossRetries() async throws {
        let created = Mutex(0)
        let script = Script { request, _ in
            switch (request.method, request.url.path) {
            case ("GET", "/landmarks"): return Self.ok(Self.landmarks)
            case ("POST", "/reservations"):
                let attempt = created.withLock { count in
                    count += 1
                    return count
                }
                return attempt < 3 ? Self.ok("", status: 502) : Self.ok(Self.reservation, status: 201)
            case ("GET", _): return Self.ok(Self.reservation)
            default: return Self.ok("", status: 503)
            }
        }
        let service = script.service
        let request = try NewReservation(
            landmark: "golden gate bridge", date: Date(timeIntervalSince1970: 1_937_000_000), partySize: 2,
            now: Date(timeIntervalSince1970: 1_700_000_000))
        let booked = try await service.reserve(request)
        #expect(booked.partySize == 2)
        let keys = script.sent.withLock {
            $0.filter { $0.method == "POST" }.compactMap { $0.headers["Idempotency-Key"] }
        }
        #expect(keys.count == 3)
        #expect(Set(keys).count == 1)
        #expect(keys.first?.hasPrefix("resv-") == true)

        // A confirm is retried too, under one key of its own: the server makes it once.
        await #expect(throws: HTTPBackendError.self) { try await service.confirm(booked.id) }
        let confirms = script.sent.withLock { $0.filter { $0.url.path.hasSuffix("/confirm") } }
        #expect(confirms.count == 3)
        let confirmKeys = Set(confirms.compactMap { $0.headers["Idempotency-Key"] })
        #expect(confirmKeys.count == 1 && !confirmKeys.contains(keys[0]), "one key, not the create's")
    }

    @Test func everyRequestCarriesTheTokenAndJSON() async throws {
        let script = Script { request, _ in
            request.url.path == "/landmarks" ? Self.ok(Self.landmarks) : Self.ok("[\(Self.reservation)]")
        }
        let snapshot = try await script.service.fetch()
        #expect(snapshot.reservations.count == 1)
        for request in script.sent.withLock({ $0 }) {
            #expect(request.headers["Authorization"] == "Bearer t0k")
            #expect(request.headers["Accept"] == "application/json")
        }
    }

    @Test func availabilityAsksTheServerForTheLandmarksDays() async throws {
        let script = Script { request, _ in
            if request.url.path == "/landmarks" { return Self.ok(Self.landmarks) }
            #expect(request.url.path == "/landmarks/7c6984ff-188e-417e-b476-ec5f30b8d745/availability")
            #expect(request.url.query == "from=2031-06-01&to=2031-06-02")
            return Self.ok(
                #"[{"capacity":null,"date":"2031-06-01","left":null,"taken":3},{"capacity":null,"date":"2031-06-02","left":null,"taken":0}]"#
            )
        }
        let days = ["2031-06-01", "2031-06-02"].compactMap(CalendarDay.init)
        let answer = try await script.service.availability("golden gate bridge") { _ in days }
        #expect(answer.landmark.name == "Golden Gate Bridge")
        #expect(answer.days.map(\.taken) == [3, 0])
        #expect(answer.days.map(\.day) == days)
    }

    @Test(arguments: [
        #"{"days": []}"#, #"[{"date":"2031-06-31","capacity":5,"taken":1}]"#,
        #"[{"date":"2031-06-01","capacity":5,"taken":-1}]"#, #"[{"date":"2031-06-01","capacity":5}]"#,
    ])
    func anAvailabilityAnswerThatIsNotDaysIsABadResponse(body: String) async throws {
        let script = Script { request, _ in
            request.url.path == "/landmarks" ? Self.ok(Self.landmarks) : Self.ok(body)
        }
        let day = try #require(CalendarDay("2031-06-01"))
        do {
            _ = try await script.service.availability("Golden Gate Bridge") { _ in [day] }
            Issue.record("\(body) must be refused")
        } catch HTTPBackendError.badResponse {
        } catch {
            Issue.record("expected badResponse, got \(error)")
        }
    }

    @Test func eachAnswerBecomesItsError() async throws {
        let cases: [(HTTPResponseData, String)] = [
            (HTTPResponseData(status: 401), "notAuthorised"),
            (HTTPResponseData(status: 403), "notAuthorised"),
            (Self.ok("<html>", status: 200), "badResponse"),
            (Self.ok("{\"not\": \"an array\"}", status: 200), "badResponse"),
            (Self.ok(#"{"error":true,"reason":"down"}"#, status: 500), "serverError"),
        ]
        for (answer, expected) in cases {
            let script = Script { request, _ in request.url.path == "/landmarks" ? Self.ok(Self.landmarks) : answer }
            do {
                _ = try await script.service.fetch()
                Issue.record("\(answer.status) must fail")
            } catch let error as HTTPBackendError {
                #expect(String(describing: error).hasPrefix(expected), "\(answer.status): \(error)")
            }
        }
    }
}

extension HTTPServiceTests {
    /// `resv log --limit N` asks for N and shows no more than N, whatever the server sends back.
    @Test func historyAsksForTheLimitAndKeepsNoMoreWhateverTheServerSends() async throws {
        let entry =
            #"{"at":"2031-01-01T00:00:00Z","change":"created","reservationId":"5eed3333-3333-4333-8333-333333333333","after":\#(Self.reservation),"command":"c1"}"#
        let script = Script { _, _ in Self.ok("[" + Array(repeating: entry, count: 5).joined(separator: ",") + "]") }
        let two = try await script.service.history(nil, 2)
        #expect(two.count == 2)
        let all = try await script.service.history(nil, nil)
        #expect(all.count == 5)
        let queries = script.sent.withLock { $0.map { $0.url.query } }
        #expect(queries == ["limit=2", nil])
    }
}
