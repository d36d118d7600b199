import Foundation
import HTTPTypes
import ReservationCore
import ResvTestKit
import SQLiteNIO
import Synchronization
import Testing

@testable import ReservationServer
@testable import ReservationStorage

/// `POST /reservations/{id}/checkin` and `/noshow`, and `GET /landmarks/{id}/day/{day}` (the
/// manifest), on every engine through the in-process router, on a clock the test holds.
@Suite("Check-in, no-shows and the day's manifest", .ownThreads, .timeLimit(.minutes(30)))
struct AttendanceRouteTests {
    /// A clock the test moves on.
    final class Clock: Sendable {
        private let date = Mutex(Date())
        @Sendable func now() -> Date { date.withLock { $0 } }
        func set(_ to: Date) { date.withLock { $0 = to } }
    }

    static func id(_ reply: [String: Any]) throws -> String { try #require(reply["id"] as? String) }

    /// Every transition on the wire, its status code and error code, the places kept, the
    /// history's change kinds, and both taken back by undo and given again by redo.
    @Test(arguments: Engine.available)
    func checkInAndNoShowOnEveryEngine(_ engine: Engine) async throws {
        let clock = Clock()
        try await withHarness(engine, now: clock.now) { h in
            let manager = try await h.admin(h.alice)
            let date = Fixture.futureDate()
            let visit = try DateTime.parse(date)
            let arrived = try Self.id(
                try await h.reserve(manager, landmark: Fixture.halfDome, date: date, partySize: 3))
            let missed = try Self.id(
                try await h.reserve(manager, landmark: Fixture.halfDome, date: date, partySize: 2, status: "pending"))
            let cancelled = try Self.id(try await h.reserve(manager, landmark: Fixture.halfDome, date: date))
            #expect(try await h.call(.delete, "/reservations/\(cancelled)", token: manager).status == .ok)
            func post(_ id: String, _ verb: String, token: String? = nil) async throws -> Reply {
                try await h.call(.post, "/reservations/\(id)/\(verb)", token: token ?? manager)
            }
            let taken = { () async throws -> Int in
                let day = try #require(Capacity.Day(of: visit, in: Capacity.calendar(for: try Self.halfDome())))
                return try await h.store.parties(try Self.halfDome().id, day.start, day.end, clock.now()).reduce(0) {
                    $0 + $1.partySize
                }
            }
            #expect(try await taken() == 5)

            let checkedIn = try await post(arrived, "checkin")
            #expect(checkedIn.status == .ok, "\(checkedIn.text)")
            #expect(checkedIn.object["status"] as? String == "checked-in")
            #expect(checkedIn.headers[.eTag] == "\"2\"")
            #expect(try await taken() == 5, "a checked-in party keeps its places")
            // Again: 409 naming when the first was.
            let again = try await post(arrived, "checkin")
            #expect(again.status == .conflict && again.code == .alreadyAttended, "\(again.text)")
            let when = try #require(checkedIn.object["updatedAt"] as? String)
            #expect(again.reason?.contains("already checked in at \(when)") == true, "\(again.text)")
            // Refused, naming the status: cancelled, and a checked-in one marked a no-show.
            let fromCancelled = try await post(cancelled, "checkin")
            #expect(fromCancelled.status == .conflict && fromCancelled.code == .cannotAttend, "\(fromCancelled.text)")
            #expect(fromCancelled.reason?.contains("is cancelled") == true, "\(fromCancelled.text)")
            // A no-show before the visit's time: refused.
            let early = try await post(missed, "noshow")
            #expect(early.status == .conflict && early.code == .visitAhead, "\(early.text)")
            // Someone else's reservation is not there for them (404), as for every change.
            let stranger = try await post(missed, "checkin", token: h.bob)
            #expect(stranger.status == .notFound && stranger.code == .reservationNotFound, "\(stranger.text)")
            // A checked-in party is not cancelled behind the record.
            let cancel = try await h.call(.delete, "/reservations/\(arrived)", token: manager)
            #expect(cancel.status == .conflict, "\(cancel.text)")

            clock.set(visit.addingTimeInterval(60))
            let noShow = try await post(missed, "noshow")
            #expect(noShow.status == .ok && noShow.object["status"] as? String == "no-show", "\(noShow.text)")
            #expect(try await taken() == 5, "a no-show gives nothing back to its day")
            let twice = try await post(missed, "noshow")
            #expect(twice.status == .conflict && twice.code == .alreadyAttended, "\(twice.text)")
            #expect(twice.reason?.contains("already marked a no-show") == true, "\(twice.text)")
            let late = try await post(missed, "checkin")
            #expect(late.code == .cannotAttend && late.reason?.contains("is no-show") == true, "\(late.text)")

            let history = try await h.call(.get, "/history?limit=2", token: manager)
            let changes = history.array.compactMap { $0["change"] as? String }
            #expect(changes == ["no-show", "checked-in"], "\(history.text)")
            // Undo takes the no-show back, then the check-in; redo gives the check-in again.
            #expect(try await h.call(.post, "/undo", token: manager).status == .ok)
            #expect(
                try await h.call(.get, "/reservations/\(missed)", token: manager).object["status"] as? String
                    == "pending")
            #expect(try await h.call(.post, "/undo", token: manager).status == .ok)
            #expect(
                try await h.call(.get, "/reservations/\(arrived)", token: manager).object["status"] as? String
                    == "confirmed")
            #expect(try await h.call(.post, "/redo", token: manager).status == .ok)
            #expect(
                try await h.call(.get, "/reservations/\(arrived)", token: manager).object["status"] as? String
                    == "checked-in")
            #expect(try await taken() == 5)
        }
    }

    static func halfDome() throws -> Landmark {
        let id = try #require(Landmark.ID(Fixture.halfDome))
        return try #require(LandmarkCatalog.builtIn[id])
    }

    /// The manifest of a day with three users' parties: every party once, by time, with whose it
    /// is, and the right totals; other days, other landmarks, cancelled ones and expired holds are not in it.
    @Test(arguments: Engine.available)
    func theManifestListsEveryUsersPartiesOnce(_ engine: Engine) async throws {
        let clock = Clock()
        try await withHarness(engine, now: clock.now) { h in
            let manager = try await h.admin(h.alice)
            let carol = Token.generate()
            let carolName = "carol-\(UUID().uuidString.prefix(8))"
            _ = try await h.store.addToken(carolName, Token.hash(carol))
            let date = try DateTime.parse(Fixture.futureDate())  // 10:00 UTC; Half Dome's zone is Los Angeles
            func at(_ hours: Double) -> String { DateTime.format(date.addingTimeInterval(hours * 3600)) }
            let day = CalendarDay(date, in: Capacity.calendar(for: try Self.halfDome()))
            // Three users, in an order that is not the time order.
            let late = try Self.id(try await h.reserve(carol, landmark: Fixture.halfDome, date: at(6), partySize: 4))
            let early = try Self.id(try await h.reserve(h.bob, landmark: Fixture.halfDome, date: at(1), partySize: 2))
            let middle = try Self.id(
                try await h.reserve(manager, landmark: Fixture.halfDome, date: at(3), partySize: 1, status: "pending"))
            let gone = try Self.id(try await h.reserve(h.bob, landmark: Fixture.halfDome, date: at(4), partySize: 5))
            #expect(try await h.call(.delete, "/reservations/\(gone)", token: h.bob).status == .ok)
            _ = try await h.reserve(carol, landmark: Fixture.halfDome, date: at(30), partySize: 6)  // the next day
            _ = try await h.reserve(carol, landmark: Fixture.goldenGate, date: at(2), partySize: 7)  // elsewhere
            // A member may not check her own party in; the landmark's admin may.
            #expect(try await h.call(.post, "/reservations/\(late)/checkin", token: carol).status == .forbidden)
            #expect(try await h.call(.post, "/reservations/\(late)/checkin", token: manager).status == .ok)
            // Nor may a member read the day.
            #expect(
                try await h.call(.get, "/landmarks/\(Fixture.halfDome)/day/\(day)", token: carol).status == .forbidden)

            let reply = try await h.call(.get, "/landmarks/\(Fixture.halfDome)/day/\(day)", token: manager)
            #expect(reply.status == .ok, "\(reply.text)")
            let parties = try #require(reply.object["parties"] as? [[String: Any]])
            #expect(parties.compactMap { $0["id"] as? String } == [early, middle, late], "\(reply.text)")
            let users = parties.compactMap { $0["user"] as? String }
            #expect(users.count == 3 && users[0].hasPrefix("bob-") && users[1].hasPrefix("alice-"), "\(users)")
            #expect(users[2] == carolName)
            #expect(parties.compactMap { $0["status"] as? String } == ["confirmed", "pending", "checked-in"])
            #expect(parties.compactMap { $0["partySize"] as? Int } == [2, 1, 4])
            let times = parties.compactMap { $0["time"] as? String }
            #expect(times.count == 3 && times == times.sorted(), "\(times)")
            #expect(reply.object["day"] as? String == day.description)
            let totals = try #require(reply.object["totals"] as? [String: Any])
            #expect(totals["parties"] as? Int == 3 && totals["people"] as? Int == 7, "\(totals)")
            let byStatus = try #require(totals["peopleByStatus"] as? [String: Int])
            #expect(byStatus["confirmed"] == 2 && byStatus["pending"] == 1 && byStatus["checked-in"] == 4)
            #expect(byStatus["no-show"] == 0 && byStatus["waitlisted"] == 0 && byStatus["held"] == 0)

            // Bad days and landmarks: 400 and 404, one reason each.
            let notADay = try await h.call(.get, "/landmarks/\(Fixture.halfDome)/day/2026-02-30", token: manager)
            #expect(notADay.status == .badRequest && notADay.code == .invalidDays, "\(notADay.text)")
            let unknown = try await h.call(
                .get, "/landmarks/00000000-0000-4000-8000-000000000001/day/\(day)", token: manager)
            #expect(unknown.status == .notFound && unknown.code == .unknownLandmark, "\(unknown.text)")
            let anonymous = try await h.call(.get, "/landmarks/\(Fixture.halfDome)/day/\(day)", token: nil)
            #expect(anonymous.status == .unauthorized)
        }
    }

    /// Schemas 13 and 14 on a database of schema 12, whose status CHECK knew neither status: the
    /// reservations are kept whole (note included), and a check-in is then stored. The same
    /// write is refused by the table of schema 12 (the step's negative control).
    @Test func aSchemaTwelveDatabaseTakesCheckIns() async throws {
        try await TemporaryDirectory.with("attendance") { folder in
            let directory = folder.url
            let path = directory.appendingPathComponent("db.sqlite").path
            let clock = Clock()
            let visit = try DateTime.parse(Fixture.futureDate())
            let (user, id) = try await Database.withStore(path, logger: OnSaleTests.quiet, now: clock.now) { store in
                let user = try await store.addToken("ada", Token.hash(Token.generate()))
                let request = try NewReservation(
                    landmark: Fixture.halfDome, date: visit, partySize: 2, note: "ramp", now: clock.now())
                let written = try await store.transaction(user, catalog: .builtIn) {
                    try await Booking.reserve(request, now: clock.now(), in: $0)
                }
                guard case .done(let made) = written else { throw DatabaseError.corruptRow("a replay") }
                return (user, made.id)
            }
            let old = "'pending', 'confirmed', 'cancelled', 'held', 'expired', 'waitlisted'"
            let connection = try await SQLiteConnection.open(storage: .file(path: path), logger: OnSaleTests.quiet)
            for statement in [
                """
                CREATE TABLE reservations_v12 (
                    id TEXT PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users (id), landmark_id TEXT NOT NULL,
                    date TEXT NOT NULL, starts_at REAL NOT NULL, party_size INTEGER NOT NULL CHECK (party_size > 0),
                    status TEXT NOT NULL CHECK (status IN (\(old))), created_at REAL NOT NULL, note TEXT,
                    updated_at REAL, version INTEGER NOT NULL DEFAULT 1, expires_at REAL, waitlist_order INTEGER,
                    requested_status TEXT, series TEXT)
                """,
                "INSERT INTO reservations_v12 SELECT * FROM reservations",
                "DROP TABLE reservations",
                "ALTER TABLE reservations_v12 RENAME TO reservations",
                // Schema 13's roles too: a database of 12 has neither column.
                "ALTER TABLE users DROP COLUMN role", "ALTER TABLE users DROP COLUMN landmarks",
                "PRAGMA user_version = 12",
            ] {
                _ = try await connection.query(statement)
            }
            await #expect(throws: (any Error).self, "schema 12 refuses the status") {
                _ = try await connection.query("UPDATE reservations SET status = 'checked-in'")
            }
            try await connection.close()
            try await Database.withStore(path, logger: OnSaleTests.quiet, now: clock.now) { store in
                let written = try await store.transaction(user, catalog: .builtIn) {
                    try await Booking.attend(id, as: .checkedIn, now: clock.now(), in: $0)
                }
                guard case .done(let checkedIn) = written else { throw DatabaseError.corruptRow("a replay") }
                #expect(checkedIn.status == .checkedIn)
                let stored = try #require(try await store.get(user, id))
                #expect(stored.status == "checked-in" && stored.note == "ramp" && stored.version == 2)
            }
        }
    }
}
