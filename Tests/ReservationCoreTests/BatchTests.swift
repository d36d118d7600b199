import Foundation
import ResvTestKit
import Testing

@testable import ReservationCore

/// Batch reserve on the ledger: all or nothing, every failure with its index,
/// and capacity counted across the batch.
@Suite("Batch reserve", .timeLimit(.minutes(30)))
struct BatchTests {
    @Test func everyRequestIsBookedInOrder() async throws {
        var ledger = ReservationLedger(records: [], catalog: .builtIn)
        let requests = [
            try Fixture.request("Half Dome", on: "2026-12-01T10:00:00Z", party: 2),
            try Fixture.request("938e", on: "2026-12-02T10:00:00Z", party: 3, status: .pending),
            try Fixture.request(Fixture.halfDomeID.uppercased(), on: "2026-12-03T10:00:00Z", party: 1),
        ]

        let created = try await ledger.reserve(requests, now: Fixture.now)

        #expect(created.map(\.landmark.name) == ["Half Dome", "Lake Tahoe", "Half Dome"])
        #expect(created.map(\.partySize) == [2, 3, 1])
        #expect(created.map(\.status) == [.confirmed, .pending, .confirmed])
        #expect(Set(created.map(\.id)).count == 3)
        #expect(ledger.records.count == 3)
        #expect(ledger.revision == 3)
        #expect(ledger.snapshot.reservations == created)
    }

    /// Requests with a client's id (`resv import`): booked under it; sent again, the same
    /// booking and nothing booked; an id of another request, or repeated in the batch, refused.
    @Test func requestsCarryTheirClientsIdsAndAreNeverBookedTwice() async throws {
        var ledger = ReservationLedger(records: [], catalog: .builtIn)
        let (a, b, c) = (Reservation.ID(UUID()), Reservation.ID(UUID()), Reservation.ID(UUID()))
        func request(_ id: Reservation.ID, party: Int = 2) throws -> NewReservation {
            var request = try Fixture.request("Half Dome", on: "2026-12-01T10:00:00Z", party: party)
            request.id = id
            return request
        }
        let made = try await ledger.reserve([try request(a), try request(b)], now: Fixture.now)
        #expect(made.map(\.id) == [a, b])
        let again = try await ledger.reserve([try request(c), try request(a)], now: Fixture.now)
        #expect(again.map(\.id) == [c, a])
        #expect(again[1] == made[0], "the booking as it is, not made again")
        #expect(ledger.records.count == 3)

        let error = try await #require(throws: ReservationError.self) { () async throws in
            try await ledger.reserve(
                [try request(b, party: 5), try request(Reservation.ID(UUID())), try request(c), try request(c)],
                now: Fixture.now)
        }
        guard case .batchRejected(let failures, _) = error else {
            Issue.record("expected .batchRejected, got \(error)")
            return
        }
        #expect(failures.map(\.index) == [0, 3])
        #expect(failures.allSatisfy { $0.error.code == .reservationIdInUse })
        #expect(ledger.records.count == 3)
    }

    @Test func oneRefusedRequestBooksNothingAndEveryFailureHasItsIndex() async throws {
        let stored = Fixture.record()
        var ledger = ReservationLedger(records: [stored], catalog: .builtIn)
        let requests = [
            try Fixture.request(on: "2026-12-01T10:00:00Z"),
            try Fixture.request("Atlantis", on: "2026-12-01T10:00:00Z"),
            try Fixture.request(on: "2026-12-02T10:00:00Z"),
            try Fixture.request("Lake", on: "2026-12-01T10:00:00Z"),
        ]

        let error = try await #require(throws: ReservationError.self) { () async throws in
            try await ledger.reserve(requests, now: Fixture.now)
        }

        guard case .batchRejected(let failures, let total) = error else {
            Issue.record("expected .batchRejected, got \(error)")
            return
        }
        #expect(total == 4)
        #expect(failures.map(\.index) == [1, 3])
        guard case .unknownLandmark("Atlantis") = failures[0].error else {
            Issue.record("expected unknownLandmark, got \(failures[0].error)")
            return
        }
        #expect(ledger.records == [stored])
        #expect(ledger.revision == 0)
        #expect(ledger.snapshot.reservations.count == 1)
    }

    @Test func aRequestThatWasFutureWhenReadIsRefusedByTheBackendClock() async throws {
        var ledger = ReservationLedger(records: [], catalog: .builtIn)
        let request = try Fixture.request(on: "2026-06-01T12:30:00Z")
        let later = Fixture.now.addingTimeInterval(3600)

        let error = try await #require(throws: ReservationError.self) { () async throws in
            try await ledger.reserve([request], now: later)
        }

        guard case .batchRejected(let failures, _) = error, case .dateInPast = failures.first?.error else {
            Issue.record("expected a past-date refusal, got \(error)")
            return
        }
    }

    @Test func capacityCountsTheRequestsBeforeItInTheSameBatch() async throws {
        // Half Dome takes 300 a day; 100 are booked already.
        var ledger = ReservationLedger(records: [Fixture.record(["partySize": .integer(100)])], catalog: .builtIn)
        let requests = try [150, 50, 1, 10].map { try Fixture.request(on: "2026-12-01T12:00:00-08:00", party: $0) }

        let error = try await #require(throws: ReservationError.self) { () async throws in
            try await ledger.reserve(requests, now: Fixture.now)
        }

        guard case .batchRejected(let failures, _) = error else {
            Issue.record("expected .batchRejected, got \(error)")
            return
        }
        // 100 + 150 + 50 = 300 fills the day: the 1 and the 10 do not fit.
        #expect(failures.map(\.index) == [2, 3])
        guard case .noCapacity(_, "2026-12-01", 1, 300) = failures[0].error else {
            Issue.record("expected noCapacity for 1 with 300 booked, got \(failures[0].error)")
            return
        }
        #expect(ledger.records.count == 1)
    }

    @Test func capacityOfABatchIsPerLocalDay() async throws {
        var ledger = ReservationLedger(records: [], catalog: .builtIn)
        // 23:30 in California on Dec 1 is Dec 2 in UTC: two different local days, each filled exactly.
        let requests = [
            try Fixture.request(on: "2026-12-01T23:30:00-08:00", party: 300),
            try Fixture.request(on: "2026-12-02T00:30:00-08:00", party: 300),
        ]
        #expect(try await ledger.reserve(requests, now: Fixture.now).count == 2)

        let more = try Fixture.request(on: "2026-12-02T07:00:00Z", party: 1)  // Dec 1, 23:00 local
        await #expect(throws: ReservationError.self) { () async throws in
            try await ledger.reserve([more], now: Fixture.now)
        }
    }

    @Test func cancelledReservationsDoNotCountForABatch() async throws {
        let cancelled = Fixture.record(["partySize": .integer(300), "status": .string("cancelled")])
        var ledger = ReservationLedger(records: [cancelled], catalog: .builtIn)
        let requests = try [200, 100].map { try Fixture.request(on: "2026-12-01T10:00:00Z", party: $0) }
        #expect(try await ledger.reserve(requests, now: Fixture.now).count == 2)
    }

    @Test func thousandsOfRequestsOnAFullStoreStayQuick() async throws {
        // 20,000 stored on Half Dome over 200 days, 100 a day; 5,000 more in one batch.
        let base = try Fixture.date("2026-07-01T17:00:00Z")
        let records = (0..<20_000).map { index in
            Fixture.record(
                id: String(format: "5a1b2c3d-0000-4000-8000-%012d", index),
                ["date": .string(DateTime.format(base.addingTimeInterval(Double(index % 200) * 86_400)))])
        }
        var ledger = ReservationLedger(records: records, catalog: .builtIn)
        let requests = try (0..<5_000).map { index in
            try NewReservation(
                landmark: Fixture.halfDomeID, date: base.addingTimeInterval(Double(index % 200) * 86_400 + 60),
                partySize: 1, now: Fixture.now)
        }
        // 100 stored × 4 people + 25 new per day = 425 > 300: every new one is refused.
        let error = try await #require(throws: ReservationError.self) { () async throws in
            try await ledger.reserve(requests, now: Fixture.now)
        }
        guard case .batchRejected(let failures, _) = error else {
            Issue.record("expected .batchRejected, got \(error)")
            return
        }
        #expect(failures.count == 5_000)
    }

    @Test func theServiceReservesOneAndRethrowsItsOwnError() async throws {
        let service = Fixture.service()
        let error = await #expect(throws: ReservationError.self) {
            try await service.reserve(try Fixture.request("Atlantis", on: "2026-12-01T10:00:00Z"))
        }
        guard case .unknownLandmark("Atlantis")? = error else {
            Issue.record("expected unknownLandmark, got \(String(describing: error))")
            return
        }
    }
}

/// Reading a create request from untrusted JSON: every field, every wrong type.
@Suite("Create request from JSON", .timeLimit(.minutes(30)))
struct CreateRequestJSONTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var json: String
        var error: String?
        var testDescription: String { json }
    }

    static let cases: [Case] = [
        Case(json: #"{"landmarkId": "Half Dome", "date": "2026-12-01T10:00:00Z", "partySize": 2}"#),
        Case(
            json: #"{"landmarkId": "x", "date": "d", "partySize": 2, "status": "pending", "extra": [1]}"#),
        Case(json: #"{"landmarkId": "x", "date": "d", "partySize": 2, "status": null}"#),
        Case(json: #"[1, 2]"#, error: "the request must be a JSON object, not an array"),
        Case(json: #""text""#, error: "the request must be a JSON object, not a string"),
        Case(json: #"{"date": "d", "partySize": 2}"#, error: "landmarkId is missing"),
        Case(json: #"{"landmarkId": null, "date": "d", "partySize": 2}"#, error: "landmarkId is missing"),
        Case(
            json: #"{"landmarkId": 7, "date": "d", "partySize": 2}"#, error: "landmarkId must be a string, not a number"
        ),
        Case(json: #"{"landmarkId": "x", "partySize": 2}"#, error: "date is missing"),
        Case(
            json: #"{"landmarkId": "x", "date": true, "partySize": 2}"#, error: "date must be a string, not a boolean"),
        Case(json: #"{"landmarkId": "x", "date": "d"}"#, error: "partySize is missing"),
        Case(
            json: #"{"landmarkId": "x", "date": "d", "partySize": "2"}"#,
            error: "partySize must be a whole number, not a string"),
        Case(
            json: #"{"landmarkId": "x", "date": "d", "partySize": 2.5}"#,
            error: "partySize must be a whole number, not a number"),
        Case(
            json: #"{"landmarkId": "x", "date": "d", "partySize": 2, "status": 1}"#,
            error: "status must be a string, not a number"),
    ]

    @Test(arguments: cases)
    func readsOrNamesTheField(_ testCase: Case) throws {
        let json = try JSONValue.parse(Data(testCase.json.utf8))
        let result = Result { () throws(ReservationError) in try CreateReservationRequest(json: json) }
        switch (result, testCase.error) {
        case (.success, nil): break
        case (.failure(let error), let expected?): #expect(error.localizedDescription == expected)
        case (.success(let request), let expected?): Issue.record("expected '\(expected)', read \(request)")
        case (.failure(let error), nil): Issue.record("expected success, got \(error)")
        }
    }

    @Test func readsEveryField() throws {
        let json = try JSONValue.parse(
            Data(
                #"{"landmarkId": "Half Dome", "date": "2026-12-01T10:00:00Z", "partySize": 2, "status": "pending"}"#
                    .utf8))
        #expect(
            try CreateReservationRequest(json: json)
                == CreateReservationRequest(
                    landmarkId: "Half Dome", date: "2026-12-01T10:00:00Z", partySize: 2, status: "pending"))
    }
}
