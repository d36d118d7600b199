import Foundation
import HTTPTypes
import ReservationCore
import ResvTestKit
import Testing

@testable import ReservationServer
@testable import ReservationStorage

/// The catalog in the database (docs/contracts.md, "The catalog"): an admin's add, set and
/// retire on every engine through the in-process router, what members, staff and read tokens
/// may not do, bad input refused with nothing changed, and two instances on one database
/// deciding by the catalog in force without a restart.
@Suite("The catalog in the database", .ownThreads, .timeLimit(.minutes(30)))
struct CatalogRouteTests {
    /// A landmark record with a fresh id (PostgreSQL is shared between tests).
    static func record(capacity: Int = 3, name: String = "Catalog Peak") -> (id: String, json: String) {
        let id = UUID().uuidString.lowercased()
        return (
            id,
            #"{"id":"\#(id)","name":"\#(name)","location":"Nowhere","category":"mountains","capacity":\#(capacity),"timeZone":"UTC"}"#
        )
    }

    static let visit = "2031-03-01T10:00:00Z"

    /// Every engine; on PostgreSQL each test has a database of its own (`ownDatabase`): a
    /// catalog stored there is served to every server of the database beside its own file's
    /// (docs/contracts.md, "The catalog"), which the other suites' shared database must not see.
    static var engines: [Engine] { Engine.available }
    static var instanceEngines: [Engine] { Instances.engines }

    @Test(arguments: Self.engines)
    func anAdminAddsSetsAndRetiresALandmark(engine: Engine) async throws {
        try await withHarness(engine, ownDatabase: true) { h in
            let admin = try await h.admin(h.alice)
            let (id, record) = Self.record()

            let added = try await h.call(.post, "/landmarks", token: admin, body: record)
            #expect(added.status == .created, "\(added.text)")
            #expect(added.object["capacity"] as? Int == 3)
            // The same add again (a retry) changes nothing; another record of the id is 409.
            let again = try await h.call(.post, "/landmarks", token: admin, body: record)
            #expect(again.status == .ok, "\(again.text)")
            let other = try await h.call(
                .post, "/landmarks", token: admin, body: record.replacingOccurrences(of: "Nowhere", with: "Elsewhere"))
            #expect(other.status == .conflict)
            #expect(other.code == .landmarkExists)
            let listed = try await h.call(.get, "/landmarks", token: h.bob)
            #expect(listed.array.contains { $0["id"] as? String == id })
            // The built-in landmarks stay beside it.
            #expect(listed.array.contains { $0["id"] as? String == Fixture.goldenGate })

            // Booked by its capacity, in force at once; a capacity set lower refuses what is over.
            let booked = try await h.reserve(h.bob, landmark: id, date: Self.visit, partySize: 2)
            let set = try await h.call(.patch, "/landmarks/\(id)", token: admin, body: #"{"capacity":2}"#)
            #expect(set.status == .ok, "\(set.text)")
            #expect(set.object["capacity"] as? Int == 2)
            let full = try await h.call(.post, "/reservations", token: h.bob, body: Fixture.body(id, Self.visit, 1))
            #expect(full.status == .conflict, "\(full.text)")
            #expect(full.code == .noCapacity)

            // Retired: no new booking (409 retired), the one made kept, listed, cancellable.
            let retired = try await h.call(.post, "/landmarks/\(id)/retire", token: admin)
            #expect(retired.status == .ok, "\(retired.text)")
            #expect(retired.object["retired"] as? Bool == true)
            let refused = try await h.call(
                .post, "/reservations", token: h.bob, body: Fixture.body(id, "2031-03-02T10:00:00Z", 1))
            #expect(refused.status == .conflict, "\(refused.text)")
            #expect(refused.code == .retired)
            #expect(refused.reason == "Catalog Peak is retired: it takes no new bookings (those made before are kept)")
            let shown = try await h.call(.get, "/landmarks", token: h.bob)
            #expect(shown.array.first { $0["id"] as? String == id }?["retired"] as? Bool == true)
            let bookedID = try #require(booked["id"] as? String)
            let kept = try await h.call(.get, "/reservations/\(bookedID)", token: h.bob)
            #expect(kept.status == .ok)
            let cancelled = try await h.call(.delete, "/reservations/\(bookedID)", token: h.bob)
            #expect(cancelled.status == .ok, "\(cancelled.text)")
        }
    }

    @Test(arguments: Self.engines)
    func onlyAnAdminChangesTheCatalogAndBadInputChangesNothing(engine: Engine) async throws {
        try await withHarness(engine, ownDatabase: true) { h in
            let admin = try await h.admin(h.alice)
            let (id, record) = Self.record()
            #expect(try await h.call(.post, "/landmarks", token: admin, body: record).status == .created)
            // A member, staff of the landmark, staff of another and an admin's read token: 403,
            // nothing changed.
            let landmark = try #require(Landmark.ID(id))
            @Sendable func staffOf(_ landmark: Landmark.ID) async throws -> String {
                let token = Token.generate()
                let name = "staff-\(UUID().uuidString.prefix(8))"
                _ = try await h.store.addToken(name, Token.hash(token))
                _ = try await h.store.tokens.setAccess(
                    name, UserAccess(role: .staff, landmarks: [landmark]), create: false, mustBeNew: false)
                return token
            }
            let staff = try await staffOf(landmark)
            let staffThere = try await staffOf(try #require(Landmark.ID(Fixture.halfDome)))
            let reader = Token.generate()
            let adminUser = try #require(try await h.grant(admin)).user
            let adminName = try #require(try await h.store.tokens.name(adminUser))
            _ = try await h.store.addToken(adminName, Token.hash(reader), scope: .read)
            for token in [h.bob, staff, staffThere, reader] {
                for (method, path, body) in [
                    (HTTPRequest.Method.post, "/landmarks", Self.record().json),
                    (.patch, "/landmarks/\(id)", #"{"capacity":1}"#),
                    (.post, "/landmarks/\(id)/retire", ""),
                ] {
                    let reply = try await h.call(method, path, token: token, body: body.isEmpty ? nil : body)
                    #expect(reply.status == .forbidden, "\(method) \(path): \(reply.text)")
                }
            }
            let cases: [(HTTPRequest.Method, String, String, HTTPResponse.Status, String)] = [
                (.patch, "/landmarks/\(id)", #"{"capacity":-1}"#, .badRequest, "capacity -1 is not greater than 0"),
                (.patch, "/landmarks/\(id)", #"{"capacity":1000001}"#, .badRequest, "capacity 1000001 is more than"),
                (.patch, "/landmarks/\(id)", #"{"timeZone":"Mars/Olympus"}"#, .badRequest, "time zone 'Mars/Olympus'"),
                (
                    .patch, "/landmarks/\(id)", #"{"name":"\#(String(repeating: "n", count: 201))"}"#, .badRequest,
                    "name is 201 characters"
                ),
                (.patch, "/landmarks/\(id)", #"{"id":"\#(UUID().uuidString.lowercased())"}"#, .badRequest, "id cannot"),
                (.patch, "/landmarks/\(id)", "[1]", .badRequest, "the body must be an object"),
                (.patch, "/landmarks/\(UUID().uuidString.lowercased())", "{}", .notFound, "'"),
                (.post, "/landmarks/\(UUID().uuidString.lowercased())/retire", "", .notFound, "'"),
                (.post, "/landmarks", #"{"name":"No Id"}"#, .badRequest, "id is missing"),
                (.post, "/landmarks", "{", .badRequest, "the request body is not valid JSON"),
            ]
            for (method, path, body, status, reason) in cases {
                let reply = try await h.call(method, path, token: admin, body: body.isEmpty ? nil : body)
                #expect(reply.status == status, "\(method) \(path) \(body.prefix(40)): \(reply.text)")
                #expect(reply.reason?.hasPrefix(reason) == true, "\(method) \(path) \(body.prefix(40)): \(reply.text)")
            }
            let after = try await h.call(.get, "/landmarks", token: h.bob)
            let stored = try #require(after.array.first { $0["id"] as? String == id })
            #expect(stored["capacity"] as? Int == 3)
            #expect(stored["name"] as? String == "Catalog Peak")
            #expect(stored["retired"] == nil)
        }
    }

    /// Two instances on one database: a landmark added through A is booked through B at its next
    /// request, and a capacity lowered through A refuses B's next booking over it, no restart.
    @Test(arguments: Self.instanceEngines)
    func twoInstancesDecideByTheCatalogInForce(engine: Engine) async throws {
        try await Instances.with(2, engine: engine, clock: TestClock(), ownDatabase: true) { instances in
            let (a, b) = (instances[0], instances[1])
            let users = try await User.team(in: a.store)
            let (admin, member) = (users[0], users[1])
            let adminName = try #require(try await a.store.tokens.name(admin.id))
            _ = try await a.store.tokens.setAccess(
                adminName, UserAccess(role: .admin), create: false, mustBeNew: false)
            let (id, record) = Self.record(capacity: 5)
            let added = try await a.call(.post, "/landmarks", as: admin, body: record)
            #expect(added.status == .created, "\(added.text)")
            let booked = try await b.call(.post, "/reservations", as: member, body: Fixture.body(id, Self.visit, 3))
            #expect(booked.status == .created, "\(booked.text)")
            let lowered = try await a.call(.patch, "/landmarks/\(id)", as: admin, body: #"{"capacity":4}"#)
            #expect(lowered.status == .ok, "\(lowered.text)")
            let over = try await b.call(.post, "/reservations", as: member, body: Fixture.body(id, Self.visit, 2))
            #expect(over.status == .conflict, "\(over.text)")
            #expect(over.reason == "Catalog Peak is full on 2031-03-01: 3 of 4 places taken, 2 requested")
            let fits = try await b.call(.post, "/reservations", as: member, body: Fixture.body(id, Self.visit, 1))
            #expect(fits.status == .created, "\(fits.text)")
        }
    }
}
