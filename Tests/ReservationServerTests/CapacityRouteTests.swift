import Foundation
import HTTPTypes
import ReservationCore
import ResvTestKit
import Testing

@testable import ReservationServer
@testable import ReservationStorage

/// Capacity on the server: a configured catalog, `GET /landmarks/{id}/availability`,
/// replays and status changes against the count, and the capacity model with two users.
@Suite("Capacity routes", .timeLimit(.minutes(30)))
struct CapacityRouteTests {
    /// A landmark of `capacity` places a day in Auckland, with a fresh id (PostgreSQL is shared).
    static func tower(capacity: Int = 5) -> Landmark {
        Landmark(
            id: Landmark.ID(UUID()), name: "Tiny Tower", location: "Auckland", description: "", category: .mountains,
            capacity: capacity, timeZone: TimeZone(identifier: "Pacific/Auckland"))
    }

    static let open = Landmark(
        id: Landmark.ID(UUID()), name: "Open Field", location: "Nowhere", description: "", category: .lakes)

    /// 2030-06-01T13:00:00Z, a fixed clock: "today" is already June 2 in Auckland (UTC+12).
    static let now = Date(timeIntervalSince1970: 1_906_549_200)
    static let clock: @Sendable () -> Date = { now }

    static func body(_ landmark: Landmark, _ date: String, _ party: Int, _ status: String? = nil) -> String {
        Fixture.body(landmark.id.description, date, party, status)
    }

    @Test(arguments: Engine.available)
    func theCatalogGivenIsServedAndEnforced(engine: Engine) async throws {
        let tower = Self.tower(capacity: 3)
        try await withHarness(engine, catalog: LandmarkCatalog([tower, Self.open])) { h in
            let landmarks = try await h.call(.get, "/landmarks", token: h.alice)
            #expect(landmarks.array.compactMap { $0["name"] as? String } == ["Tiny Tower", "Open Field"])
            #expect(landmarks.array.first?["capacity"] as? Int == 3)
            #expect(landmarks.array.first?["timeZone"] as? String == "Pacific/Auckland")
            try await h.reserve(
                h.alice, landmark: tower.id.description, date: "2030-12-01T10:00:00+13:00", partySize: 2)
            let full = try await h.call(
                .post, "/reservations", token: h.bob, body: Self.body(tower, "2030-12-01T20:00:00+13:00", 2))
            #expect(full.status == .conflict)
            #expect(full.reason == "Tiny Tower is full on 2030-12-01: 2 of 3 places taken, 2 requested", "\(full.text)")
            // A built-in landmark is not in this catalog.
            let halfDome = try await h.call(
                .post, "/reservations", token: h.bob, body: Fixture.body(Fixture.halfDome, "2030-12-01T10:00:00Z", 1))
            #expect(halfDome.status == .notFound)
        }
    }

    @Test(arguments: Engine.available)
    func availabilityCountsEveryUserDayByDayInTheLandmarksZone(engine: Engine) async throws {
        let tower = Self.tower()
        try await withHarness(engine, catalog: LandmarkCatalog([tower, Self.open]), now: Self.clock) { h in
            let id = tower.id.description
            // 23:30 in Auckland on December 1 is 10:30 UTC the same day; 00:30 on December 2 is 11:30 UTC on December 1.
            try await h.reserve(h.alice, landmark: id, date: "2030-12-01T23:30:00+13:00", partySize: 2)
            try await h.reserve(h.bob, landmark: id, date: "2030-12-01T11:30:00Z", partySize: 1, status: "pending")
            let cancelled = try await h.reserve(h.bob, landmark: id, date: "2030-12-01T12:00:00+13:00", partySize: 2)
            #expect(
                try await h.call(.delete, "/reservations/\(cancelled["id"] as? String ?? "")", token: h.bob).status
                    == .ok)
            // A landmark without a zone counts UTC days.
            try await h.reserve(h.alice, landmark: Self.open.id.description, date: "2030-12-01T23:30:00Z", partySize: 9)

            let reply = try await h.call(
                .get, "/landmarks/\(id)/availability?from=2030-11-30&to=2030-12-02", token: h.bob)
            #expect(reply.status == .ok)
            #expect(
                reply.text
                    == #"[{"capacity":5,"date":"2030-11-30","left":5,"taken":0},{"capacity":5,"date":"2030-12-01","left":3,"taken":2},{"capacity":5,"date":"2030-12-02","left":4,"taken":1}]"#
            )
            let open = try await h.call(
                .get, "/landmarks/\(Self.open.id)/availability?from=2030-12-01&to=2030-12-01", token: h.alice)
            #expect(open.text == #"[{"capacity":null,"date":"2030-12-01","left":null,"taken":9}]"#)
        }
    }

    @Test(arguments: Engine.available)
    func withoutDaysAvailabilityIsTwoWeeksFromTodayAtTheLandmark(engine: Engine) async throws {
        let tower = Self.tower()
        try await withHarness(engine, catalog: LandmarkCatalog([tower]), now: Self.clock) { h in
            let reply = try await h.call(.get, "/landmarks/\(tower.id)/availability", token: h.alice)
            #expect(reply.status == .ok)
            let days = reply.array.compactMap { $0["date"] as? String }
            #expect(days.count == 14)
            #expect(days.first == "2030-06-02")  // already June 2 in Auckland
            #expect(days.last == "2030-06-15")
            let from = try await h.call(.get, "/landmarks/\(tower.id)/availability?from=2030-07-01", token: h.alice)
            #expect(from.array.compactMap { $0["date"] as? String }.first == "2030-07-01")
            #expect(from.array.count == 14)
        }
    }

    @Test(arguments: Engine.available)
    func badAvailabilityRequestsGetTheirReason(engine: Engine) async throws {
        let tower = Self.tower()
        try await withHarness(engine, catalog: LandmarkCatalog([tower])) { h in
            let base = "/landmarks/\(tower.id)/availability"
            let cases: [(String, String?, HTTPResponse.Status, String)] = [
                (base, nil, .unauthorized, "missing or unknown bearer token"),
                (
                    "/landmarks/not-a-uuid/availability", h.alice, .badRequest,
                    "'not-a-uuid' is not a landmark id (a UUID)"
                ),
                ("/landmarks/\(Self.open.id)/availability", h.alice, .notFound, "is not a known landmark"),
                (base + "?from=2030-02-30", h.alice, .badRequest, "from '2030-02-30' is not a day: give YYYY-MM-DD"),
                (base + "?to=tomorrow", h.alice, .badRequest, "to 'tomorrow' is not a day: give YYYY-MM-DD"),
                (
                    base + "?from=2030-12-02&to=2030-12-01", h.alice, .badRequest,
                    "the range 2030-12-02 to 2030-12-01 is empty"
                ),
                (base + "?from=2030-01-01&to=2031-01-02", h.alice, .badRequest, "is more than 366 days"),
            ]
            for (uri, token, status, reason) in cases {
                let reply = try await h.call(.get, uri, token: token)
                #expect(reply.status == status, "\(uri): \(reply.text)")
                #expect(reply.reason?.contains(reason) == true, "\(uri): \(reply.text)")
            }
        }
    }

    @Test(arguments: Engine.available)
    func aReplayOnAFullDayAnswersTheBookingAndCountsOnce(engine: Engine) async throws {
        let tower = Self.tower(capacity: 2)
        try await withHarness(engine, catalog: LandmarkCatalog([tower])) { h in
            let body = Self.body(tower, "2030-12-01T10:00:00+13:00", 2)
            let key: HTTPFields = [.idempotencyKey: "fill-the-day"]
            let first = try await h.call(.post, "/reservations", token: h.alice, body: body, headers: key)
            #expect(first.status == .created)
            for _ in 0..<3 {
                let again = try await h.call(.post, "/reservations", token: h.alice, body: body, headers: key)
                #expect(again.status == .created, "\(again.text)")
                #expect(again.text == first.text)
                #expect(again.headers[.idempotentReplayed] == "true")
            }
            let other = try await h.call(.post, "/reservations", token: h.alice, body: body)
            #expect(other.reason == "Tiny Tower is full on 2030-12-01: 2 of 2 places taken, 2 requested")
            #expect(try await h.call(.get, "/reservations", token: h.alice).array.count == 1)
            let days = try await h.call(
                .get, "/landmarks/\(tower.id)/availability?from=2030-12-01&to=2030-12-01", token: h.bob)
            #expect(days.array.first?["taken"] as? Int == 2)
        }
    }

    @Test(arguments: Engine.available)
    func confirmingKeepsTheCountAndCancellingFreesThePlaces(engine: Engine) async throws {
        let tower = Self.tower(capacity: 4)
        try await withHarness(engine, catalog: LandmarkCatalog([tower])) { h in
            let pending = try await h.reserve(
                h.alice, landmark: tower.id.description, date: "2030-12-01T10:00:00+13:00", partySize: 3,
                status: "pending")
            let id = try #require(pending["id"] as? String)
            func taken() async throws -> Int? {
                try await h.call(
                    .get, "/landmarks/\(tower.id)/availability?from=2030-12-01&to=2030-12-01", token: h.bob
                )
                .array.first?["taken"] as? Int
            }
            #expect(try await taken() == 3)
            #expect(try await h.call(.post, "/reservations/\(id)/confirm", token: h.alice).status == .ok)
            #expect(try await taken() == 3)
            let refused = try await h.call(
                .post, "/reservations", token: h.bob, body: Self.body(tower, "2030-12-01T11:00:00+13:00", 2))
            #expect(refused.status == .conflict)
            #expect(try await h.call(.delete, "/reservations/\(id)", token: h.alice).status == .ok)
            #expect(try await taken() == 0)
            try await h.reserve(h.bob, landmark: tower.id.description, date: "2030-12-01T11:00:00+13:00", partySize: 4)
        }
    }

    /// The model's operations as the user of `token`, through the routes; `everyone`'s
    /// reservations are what the model checks the days against.
    static func backend(_ h: Harness, token: String, everyone: [String]) -> CapacityModel.Backend {
        CapacityModel.Backend(
            reserve: { landmark, date, party, pending in
                let reply = try await h.call(
                    .post, "/reservations", token: token,
                    body: Fixture.body(landmark.id.description, DateTime.format(date), party, pending ? "pending" : nil)
                )
                switch reply.status {
                case .created: return .created(id: try #require(reply.object["id"] as? String))
                case .conflict: return .refused(reply.reason ?? reply.text)
                default: throw ModelFailure("create answered \(reply.status): \(reply.text)")
                }
            },
            cancel: { id in
                let reply = try await h.call(.delete, "/reservations/\(id)", token: token)
                guard reply.status == .ok else { throw ModelFailure("cancel answered \(reply.status): \(reply.text)") }
            },
            confirm: { id in
                let reply = try await h.call(.post, "/reservations/\(id)/confirm", token: token)
                switch reply.status {
                case .ok: return .confirmed
                case .conflict: return .conflict
                default: throw ModelFailure("confirm answered \(reply.status): \(reply.text)")
                }
            },
            active: {
                var held: [CapacityModel.Held] = []
                for token in everyone {
                    for record in try await h.call(.get, "/reservations", token: token).array
                    where record["status"] as? String != "cancelled" {
                        held.append(
                            CapacityModel.Held(
                                landmark: record["landmarkId"] as? String ?? "",
                                date: try DateTime.parse(record["date"] as? String ?? ""),
                                partySize: record["partySize"] as? Int ?? 0))
                    }
                }
                return held
            },
            availability: { landmark, first, last in
                let reply = try await h.call(
                    .get, "/landmarks/\(landmark.id)/availability?from=\(first)&to=\(last)", token: token)
                guard case .array(let items) = try JSONValue.parse(Data(reply.text.utf8)) else {
                    throw ModelFailure("availability answered \(reply.text)")
                }
                return items.compactMap(DayAvailability.init(json:))
            },
            modify: { id, date, party in
                // No If-Match: the change applies to the reservation as it is (the model reads nothing first).
                let reply = try await h.patch(id, date: date, party: party, version: nil, token: token)
                switch (reply.status, reply.code) {
                case (.ok, _):
                    let record = try ReservationApiModel(json: try JSONValue.parse(Data(reply.text.utf8)))
                    return .modified(try #require(CapacityModel.Values(record), "\(reply.text)"))
                case (.conflict, .noCapacity?): return .refused(reply.reason ?? reply.text)
                case (.conflict, .cannotModifyCancelled?): return .cancelled
                case (.preconditionFailed, _): return .stale
                default: throw ModelFailure("PATCH answered \(reply.status): \(reply.text)")
                }
            },
            undo: {
                let reply = try await h.call(.post, "/undo", token: token)
                switch (reply.status, reply.code) {
                case (.ok, _):
                    let result = UndoResult(json: try JSONValue.parse(Data(reply.text.utf8)))
                    return try .undone(try #require(result, "\(reply.text)"))
                case (.conflict, .nothingToUndo?): return .nothingToUndo
                case (.conflict, .undoConflict?): return .conflict
                case (.conflict, .noCapacity?): return .refused(reply.reason ?? reply.text)
                default: throw ModelFailure("undo answered \(reply.status): \(reply.text)")
                }
            }
        )
    }

    /// Alice and Bob book, change and undo in turn at random; each one's undo
    /// takes back their own commands, so it may find the other's party on a day it gives back to.
    @Test(arguments: Engine.available)
    func randomSequencesOfTwoUsersNeverPassCapacity(engine: Engine) async throws {
        let model = CapacityModel()
        try await withHarness(engine, catalog: LandmarkCatalog(model.landmarks)) { h in
            let users = [h.alice, h.bob].map { Self.backend(h, token: $0, everyone: [h.alice, h.bob]) }
            let problems = try await model.run(seed: 9, steps: 150, on: users)
            #expect(problems.count == 0, "\(problems.prefix(5))")
        }
    }

    /// Two clients each of Alice and Bob at once: modifies and undos interleave
    /// in the database, and every day still adds up, each undo touching only its user's reservations.
    @Test(arguments: Engine.available)
    func concurrentModifiesAndUndosOfTwoUsersKeepEveryDay(engine: Engine) async throws {
        let model = CapacityModel()
        try await withHarness(engine, catalog: LandmarkCatalog(model.landmarks)) { h in
            let users = [h.alice, h.bob].map { token in
                Array(repeating: Self.backend(h, token: token, everyone: [h.alice, h.bob]), count: 2)
            }
            let problems = try await model.runConcurrently(seed: 4, steps: 30, users: users)
            #expect(problems.count == 0, "\(problems.prefix(5))")
        }
    }
}
