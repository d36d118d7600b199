import Foundation
import HTTPTypes
import ReservationCore
import ResvTestKit
import Testing

@testable import ReservationServer
@testable import ReservationStorage

/// `PATCH /reservations/{id}` on every engine: the modify table, If-Match, and concurrency.
@Suite("Modify route", .timeLimit(.minutes(30)))
struct ModifyRouteTests {
    static func backend(_ h: Harness) -> ModifyCase.Backend {
        ModifyCase.Backend(
            reserve: { landmark, date, party in
                let created = try await h.reserve(
                    h.alice, landmark: landmark.id.description, date: DateTime.format(date), partySize: party)
                return try #require(created["id"] as? String)
            },
            cancel: { id in
                let reply = try await h.call(.delete, "/reservations/\(id)", token: h.alice)
                #expect(reply.status == .ok)
            },
            modify: { id, date, party, note, version in
                let reply = try await h.patch(id, date: date, party: party, note: note, version: version)
                switch reply.status {
                case .ok:
                    let object = reply.object
                    let date = try DateTime.parse(object["date"] as? String ?? "")
                    return .modified(
                        day: Int((date.timeIntervalSince1970 - 4_107_542_400) / 86_400),
                        partySize: object["partySize"] as? Int ?? 0, note: object["note"] as? String,
                        version: object["version"] as? Int ?? 0)
                case .conflict where reply.code == .noCapacity:
                    // "… full on 2100-03-01: 15 of 120 places taken, 110 requested"
                    let numbers = (reply.reason ?? "").split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
                    guard numbers.count >= 3 else { return .other(reply.text) }
                    return .noCapacity(booked: numbers[numbers.count - 3], requested: numbers[numbers.count - 1])
                case .conflict where reply.code == .cannotModifyCancelled: return .cancelled
                case .preconditionFailed where reply.code == .versionMismatch: return .stale
                default: return .other("\(reply.status) \(reply.text)")
                }
            },
            booked: { landmark, date in
                guard let day = Capacity.Day(of: date, in: Capacity.calendar(for: landmark)) else { return 0 }
                return try await h.store.parties(landmark.id, day.start, day.end, Date()).reduce(0) {
                    $0 + $1.partySize
                }
            })
    }

    @Test(arguments: Engine.available, ModifyCase.all.indices)
    func modifyRules(engine: Engine, index: Int) async throws {
        let hall = ModifyCase.hall()
        try await withHarness(engine, catalog: LandmarkCatalog([hall])) { h in
            let problems = try await ModifyCase.all[index].run(on: Self.backend(h), at: hall)
            #expect(problems.isEmpty, "\(problems)")
        }
    }

    @Test(arguments: Engine.available)
    func ifMatchGuardsAgainstLostUpdates(engine: Engine) async throws {
        let hall = ModifyCase.hall()
        try await withHarness(engine, catalog: LandmarkCatalog([hall])) { h in
            let created = try await h.reserve(
                h.alice, landmark: hall.id.description, date: DateTime.format(ModifyCase.date(0)), partySize: 2)
            let id = try #require(created["id"] as? String)
            #expect(created["version"] as? Int == 1)
            #expect(created["createdAt"] as? String == created["updatedAt"] as? String)
            let read = try await h.call(.get, "/reservations/\(id)", token: h.alice)
            #expect(read.headers[.eTag] == "\"1\"")
            let first = try await h.patch(id, party: 3, version: 1)
            #expect(first.status == .ok, "\(first.text)")
            #expect(first.object["version"] as? Int == 2)
            #expect(first.headers[.eTag] == "\"2\"")
            // A second client still holding version 1 is told, and nothing changes.
            let stale = try await h.patch(id, party: 9, version: 1)
            #expect(stale.status == .preconditionFailed)
            #expect(stale.code == .versionMismatch)
            #expect(stale.reason?.contains("changed since it was read") == true, "\(stale.text)")
            let now = try await h.call(.get, "/reservations/\(id)", token: h.alice)
            #expect(now.object["partySize"] as? Int == 3)
            // Another user's reservation is not found; a bad If-Match, an empty change and bad fields are 400.
            #expect(try await h.patch(id, party: 3, version: 2, token: h.bob).status == .notFound)
            let badTag = try await h.call(
                .patch, "/reservations/\(id)", token: h.alice, body: #"{"partySize":4}"#, headers: [.ifMatch: "two"])
            #expect(badTag.status == .badRequest)
            for body in [
                #"{}"#, #"{"partySize":0}"#, #"{"partySize":"4"}"#, #"{"date":"2020-01-01T00:00:00Z"}"#,
                #"{"date":"2100-02-30T10:00:00Z"}"#, #"[]"#, #"{"note":7}"#, "not json",
                #"{"landmarkId":"937fea60-bb7b-4ee8-85da-c79962987917"}"#,
            ] {
                let reply = try await h.call(.patch, "/reservations/\(id)", token: h.alice, body: body)
                #expect([.badRequest, .notFound].contains(reply.status), "\(body): \(reply.status) \(reply.text)")
                #expect(reply.code != nil, "\(body): \(reply.text)")
            }
            let long = String(repeating: "n", count: Reservation.noteLimit + 1)
            let tooLong = try await h.call(
                .patch, "/reservations/\(id)", token: h.alice, body: #"{"note":"\#(long)"}"#)
            #expect(tooLong.status == .badRequest)
            #expect(tooLong.code == .invalidNote)
        }
    }

    /// A PATCH of the landmark alone keeps the visitor's clock (issue 60), by the same core rule as
    /// the file store (`Booking.modify`): 09:00 in Los Angeles is 09:00 in New York; a time the new
    /// landmark's clocks skip is refused (400 `invalidDate`) and changes nothing.
    @Test(arguments: Engine.available)
    func aMoveKeepsTheTimeOfDay(engine: Engine) async throws {
        func hall(_ zone: String) throws -> Landmark {
            Landmark(
                id: Landmark.ID(UUID()), name: "Hall in \(zone)", location: "Testville", description: "",
                category: .lakes, capacity: 120, timeZone: TimeZone(identifier: zone))
        }
        let west = try hall("America/Los_Angeles")
        let east = try hall("America/New_York")
        let berlin = try hall("Europe/Berlin")
        try await withHarness(engine, catalog: LandmarkCatalog([west, east, berlin])) { h in
            // 2100-03-01 09:00 PST.
            let created = try await h.reserve(
                h.alice, landmark: west.id.description, date: "2100-03-01T17:00:00Z", partySize: 2)
            let id = try #require(created["id"] as? String)
            let moved = try await h.call(
                .patch, "/reservations/\(id)", token: h.alice, body: #"{"landmarkId":"\#(east.id)"}"#)
            #expect(moved.status == .ok, "\(moved.text)")
            #expect(moved.object["date"] as? String == "2100-03-01T14:00:00Z", "09:00 EST: \(moved.text)")
            // 2100-03-14 02:30 in Berlin (CET) is an hour New York skips that day.
            let early = try await h.reserve(
                h.alice, landmark: berlin.id.description, date: "2100-03-14T01:30:00Z", partySize: 2)
            let earlyID = try #require(early["id"] as? String)
            let skipped = try await h.call(
                .patch, "/reservations/\(earlyID)", token: h.alice, body: #"{"landmarkId":"\#(east.id)"}"#)
            #expect(skipped.status == .badRequest, "\(skipped.text)")
            #expect(skipped.code == .invalidDate)
            #expect(skipped.reason?.contains("does not exist in America/New_York") == true, "\(skipped.text)")
            let kept = try await h.call(.get, "/reservations/\(earlyID)", token: h.alice)
            #expect(kept.object["version"] as? Int == 1)
        }
    }

    /// Twelve concurrent moves of 10 people onto a 120-place day holding 30 leave exactly 120.
    @Test(arguments: Engine.available)
    func concurrentMovesNeverOverfillTheDay(engine: Engine) async throws {
        let hall = ModifyCase.hall()
        try await withHarness(engine, catalog: LandmarkCatalog([hall])) { h in
            try await h.reserve(
                h.bob, landmark: hall.id.description, date: DateTime.format(ModifyCase.date(1)), partySize: 30)
            var ids: [String] = []
            for _ in 0..<12 {
                let created = try await h.reserve(
                    h.alice, landmark: hall.id.description, date: DateTime.format(ModifyCase.date(0)), partySize: 10)
                ids.append(try #require(created["id"] as? String))
            }
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for id in ids {
                    group.addTask { try await h.patch(id, date: ModifyCase.date(1, hour: 12), version: 1).status }
                }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.count { $0 == .ok } == 9)
            #expect(statuses.count { $0 == .conflict } == 3)
            let backend = Self.backend(h)
            #expect(try await backend.booked(hall, ModifyCase.date(1)) == 120)
        }
    }
}

extension Harness {
    func patch(
        _ id: String, date: Date? = nil, party: Int? = nil, note: String? = nil, version: Int?, token: String? = nil
    ) async throws -> Reply {
        var fields: [String: JSONValue] = [:]
        if let date { fields["date"] = .string(DateTime.format(date)) }
        if let party { fields["partySize"] = .integer(Int64(party)) }
        if let note { fields["note"] = .string(note) }
        var headers = HTTPFields()
        if let version { headers[.ifMatch] = "\"\(version)\"" }
        return try await call(
            .patch, "/reservations/\(id)", token: token ?? alice,
            body: String(decoding: JSONValue.object(fields).encoded(), as: UTF8.self), headers: headers)
    }
}
