import Foundation
import HTTPTypes
import Logging
import ReservationCore
import ResvTestKit
import SQLiteNIO
import Testing

@testable import ReservationServer
@testable import ReservationStorage

/// `POST /undo` and `GET /history` on every engine: the undo table, one user's
/// commands only, and the history kept in the change's own transaction.
@Suite("Undo and history routes", .timeLimit(.minutes(30)))
struct UndoRouteTests {
    /// The table's operations over HTTP as alice; "someone else" is bob, and an
    /// edit behind the history's back is an UPDATE on the SQLite file (an admin's fix).
    static func backend(_ h: Harness, engine: Engine) -> UndoCase.Backend {
        var backend = UndoCase.Backend(
            reserve: { landmark, requests in try await reserve(landmark, requests, h) },
            cancel: { ids in try await statusChange("cancel", ids, h) },
            confirm: { ids in try await statusChange("confirm", ids, h) },
            modify: { id, _, date, party, note in
                let reply = try await h.patch(id, date: date, party: party, note: note, version: nil)
                guard reply.status == .ok else { throw ModelFailure("modify: \(reply.status) \(reply.text)") }
            },
            undo: { try await undo(h) },
            redo: { try await undo(h, route: "/redo") },
            state: { id in try await state(id, h) },
            booked: { landmark, date in
                guard let day = Capacity.Day(of: date, in: Capacity.calendar(for: landmark)) else { return 0 }
                return try await h.store.parties(landmark.id, day.start, day.end, Date()).reduce(0) {
                    $0 + $1.partySize
                }
            })
        backend.elsewhere = { landmark, date, party in
            try await h.reserve(h.bob, landmark: landmark.id.description, date: DateTime.format(date), partySize: party)
        }
        if engine == .sqlite {
            backend.edit = { id, party in try await editBehindTheHistory(id, party: party, h) }
        }
        return backend
    }

    static func reserve(_ landmark: Landmark, _ requests: [(date: Date, party: Int, pending: Bool)], _ h: Harness)
        async throws -> [String]
    {
        let items: [JSONValue] = requests.map { request in
            JSONValue.object([
                "landmarkId": .string(landmark.id.description), "date": .string(DateTime.format(request.date)),
                "partySize": .integer(Int64(request.party)),
                "status": .string(request.pending ? "pending" : "confirmed"),
            ])
        }
        let body = String(decoding: JSONValue.object(["reservations": .array(items)]).encoded(), as: UTF8.self)
        let reply = try await h.call(.post, "/reservations/batch", token: h.alice, body: body)
        guard reply.status == .created else { throw ModelFailure("batch: \(reply.status) \(reply.text)") }
        return reply.array.compactMap { $0["id"] as? String }
    }

    static func undo(_ h: Harness, route: String = "/undo") async throws -> UndoCase.Answer {
        let reply = try await h.call(.post, route, token: h.alice)
        switch (reply.status, reply.code) {
        case (.ok, _) where reply.object["redid"] is String:
            return .redone((reply.object["changes"] as? [Any])?.count ?? -1)
        case (.ok, _) where reply.object["undid"] is String:
            return .undone((reply.object["changes"] as? [Any])?.count ?? -1)
        case (.conflict, .nothingToUndo?): return .nothingToUndo
        case (.conflict, .nothingToRedo?): return .nothingToRedo
        case (.conflict, .undoConflict?): return .conflict
        case (.conflict, .noCapacity?):
            let numbers = (reply.reason ?? "").split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
            guard numbers.count >= 3 else { return .other(reply.text) }
            return .noCapacity(booked: numbers[numbers.count - 3], requested: numbers[numbers.count - 1])
        default: return .other("\(reply.status) \(reply.text)")
        }
    }

    static func state(_ id: String, _ h: Harness) async throws -> UndoCase.State {
        let reply = try await h.call(.get, "/reservations/\(id)", token: h.alice)
        let object = reply.object
        guard reply.status == .ok, let date = try? DateTime.parse(object["date"] as? String ?? ""),
            let status = (object["status"] as? String).flatMap(Reservation.Status.init(rawValue:))
        else { throw ModelFailure("get \(id): \(reply.status) \(reply.text)") }
        return UndoCase.State(
            day: UndoCase.day(of: date), party: object["partySize"] as? Int ?? 0, status: status,
            note: object["note"] as? String)
    }

    /// An UPDATE on the SQLite file that no history records (an admin's fix by hand).
    static func editBehindTheHistory(_ id: String, party: Int, _ h: Harness) async throws {
        let connection = try await SQLiteConnection.open(
            storage: .file(path: h.database), logger: Logger(label: "resv-test-edit"))
        do {
            // A hang guard, not a speed: the server's writes may be slow on a loaded machine.
            _ = try await connection.query("PRAGMA busy_timeout = 120000")
            _ = try await connection.query(
                "UPDATE reservations SET party_size = ? WHERE id = ?", [.integer(party), .text(id)])
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }

    static func statusChange(_ verb: String, _ ids: [String], _ h: Harness) async throws {
        let body = String(decoding: JSONValue.object(["ids": .array(ids.map { .string($0) })]).encoded(), as: UTF8.self)
        let reply = try await h.call(.post, "/reservations/\(verb)", token: h.alice, body: body)
        guard reply.status == .ok else { throw ModelFailure("\(verb): \(reply.status) \(reply.text)") }
    }

    struct Run: Sendable, CustomTestStringConvertible {
        let engine: Engine
        let index: Int
        var testDescription: String { "\(engine.rawValue): \(UndoCase.all[index].description)" }
    }

    /// Every case on every engine, but the edit behind the history's back on PostgreSQL.
    static let runs: [Run] = Engine.available.flatMap { engine in
        UndoCase.all.indices.filter { index in
            engine == .sqlite
                || !UndoCase.all[index].steps.contains { step in
                    if case .edit = step { true } else { false }
                }
        }.map { Run(engine: engine, index: $0) }
    }

    @Test(arguments: runs)
    func undoRules(run: Run) async throws {
        let hall = ModifyCase.hall()
        try await withHarness(run.engine, catalog: LandmarkCatalog([hall])) { h in
            let problems = try await UndoCase.all[run.index].run(on: Self.backend(h, engine: run.engine), at: hall)
            #expect(problems.isEmpty, "\(problems)")
        }
    }

    @Test(arguments: Engine.available)
    func aUserUndoesOnlyTheirOwnCommands(engine: Engine) async throws {
        let hall = ModifyCase.hall()
        try await withHarness(engine, catalog: LandmarkCatalog([hall])) { h in
            let mine = try await h.reserve(
                h.alice, landmark: hall.id.description, date: DateTime.format(ModifyCase.date(0)), partySize: 3)
            let theirs = try await h.reserve(
                h.bob, landmark: hall.id.description, date: DateTime.format(ModifyCase.date(0)), partySize: 4)
            // Alice's undo takes back her booking, not bob's newer one.
            let undone = try await h.call(.post, "/undo", token: h.alice)
            #expect(undone.status == .ok, "\(undone.text)")
            let changes = try #require(undone.object["changes"] as? [[String: Any]])
            #expect(changes.count == 1)
            #expect(changes.first?["reservationId"] as? String == mine["id"] as? String)
            #expect((changes.first?["after"] as? [String: Any])?["status"] as? String == "cancelled")
            let again = try await h.call(.post, "/undo", token: h.alice)
            #expect(again.status == .conflict)
            #expect(again.code == .nothingToUndo)
            let bobs = try await h.call(.get, "/reservations/\(theirs["id"] as? String ?? "")", token: h.bob)
            #expect(bobs.object["status"] as? String == "confirmed")
            // Each sees their own history only, newest first, with who made each change.
            let history = try await h.call(.get, "/history", token: h.alice)
            #expect(history.status == .ok)
            #expect(history.array.map { $0["change"] as? String } == ["undone", "created"])
            #expect(history.array.allSatisfy { ($0["user"] as? String)?.hasPrefix("alice-") == true })
            #expect(history.array.first?["undoes"] as? String == history.array.last?["command"] as? String)
            let bobsHistory = try await h.call(.get, "/history", token: h.bob)
            #expect(bobsHistory.array.map { $0["change"] as? String } == ["created"])
            // One reservation's history; another user's id has none; a bad id is 400.
            let one = try await h.call(.get, "/history?reservation=\(mine["id"] as? String ?? "")", token: h.bob)
            #expect(one.status == .ok)
            #expect(one.array.isEmpty)
            let bad = try await h.call(.get, "/history?reservation=abc", token: h.alice)
            #expect(bad.status == .badRequest)
            #expect(bad.code == .invalidReservationId)
            let anonymous = try await h.call(.post, "/undo", token: nil)
            #expect(anonymous.status == .unauthorized)
        }
    }

    /// A cancel taken back after its day would make the reservation active in the
    /// past: 409 `undoInPast` (a refusal, exit 1 in resv), nothing changed, nothing recorded.
    @Test(arguments: Engine.available)
    func anUndoThatWouldBringAReservationBackInThePastIsRefused(engine: Engine) async throws {
        let hall = ModifyCase.hall()
        let clock = TestClock(Date())
        try await withHarness(engine, catalog: LandmarkCatalog([hall]), now: clock.now) { h in
            let soon = clock.now().addingTimeInterval(60).timeIntervalSince1970.rounded(.up)
            let made = try await h.reserve(
                h.alice, landmark: hall.id.description,
                date: DateTime.format(Date(timeIntervalSince1970: soon)), partySize: 2)
            let id = try #require(made["id"] as? String)
            try await Self.statusChange("cancel", [id], h)
            clock.set(Date(timeIntervalSince1970: soon + 1))
            let refused = try await h.call(.post, "/undo", token: h.alice)
            #expect(refused.status == .conflict, "\(refused.text)")
            #expect(refused.code == .undoInPast)
            #expect(refused.reason?.contains("would be active again on") == true, "\(refused.text)")
            let record = try await h.call(.get, "/reservations/\(id)", token: h.alice)
            #expect(record.object["status"] as? String == "cancelled")
            let history = try await h.call(.get, "/history", token: h.alice)
            #expect(history.array.map { $0["change"] as? String } == ["cancelled", "created"])
        }
    }

    /// `limit=N` answers the newest N (of all, or of one reservation's); anything but
    /// a whole number of at least 1 is 400, however large or strange.
    @Test(arguments: Engine.available)
    func historyAnswersTheNewestLimitChanges(engine: Engine) async throws {
        let hall = ModifyCase.hall()
        try await withHarness(engine, catalog: LandmarkCatalog([hall])) { h in
            let made = try await h.reserve(
                h.alice, landmark: hall.id.description, date: DateTime.format(ModifyCase.date(0)), partySize: 2)
            let id = try #require(made["id"] as? String)
            #expect(try await h.patch(id, party: 3, version: nil).status == .ok)
            try await Self.statusChange("cancel", [id], h)
            _ = try await h.reserve(
                h.alice, landmark: hall.id.description, date: DateTime.format(ModifyCase.date(1)), partySize: 1)
            func changes(_ query: String) async throws -> [String?] {
                let reply = try await h.call(.get, "/history?\(query)", token: h.alice)
                #expect(reply.status == .ok, "\(query): \(reply.text)")
                return reply.array.map { $0["change"] as? String }
            }
            #expect(try await changes("limit=1") == ["created"])
            #expect(try await changes("limit=3") == ["created", "cancelled", "modified"])
            #expect(try await changes("limit=\(Int.max)").count == 4)
            #expect(try await changes("reservation=\(id)&limit=2") == ["cancelled", "modified"])
            for bad in ["0", "-1", "abc", "1.5", "", "99999999999999999999", "1e3", "%00"] {
                let reply = try await h.call(.get, "/history?limit=\(bad)", token: h.alice)
                #expect(reply.status == .badRequest, "limit=\(bad): \(reply.text)")
                #expect(reply.code == .invalidRequest, "limit=\(bad)")
            }
        }
    }

    @Test(arguments: Engine.available)
    func aRefusedChangeLeavesNoHistoryAndAnAcceptedOneIsInItsTransaction(engine: Engine) async throws {
        let hall = ModifyCase.hall()
        try await withHarness(engine, catalog: LandmarkCatalog([hall])) { h in
            let made = try await h.reserve(
                h.alice, landmark: hall.id.description, date: DateTime.format(ModifyCase.date(0)), partySize: 100)
            let id = try #require(made["id"] as? String)
            // Refused: too many, a stale version, a cancelled one's confirm. None is in the history.
            #expect(try await h.patch(id, party: 121, version: nil).status == .conflict)
            #expect(try await h.patch(id, party: 5, version: 9).status == .preconditionFailed)
            let over = try await h.call(
                .post, "/reservations/batch", token: h.alice,
                body:
                    #"{"reservations":[{"landmarkId":"\#(hall.id)","date":"\#(DateTime.format(ModifyCase.date(0)))","partySize":21}]}"#
            )
            #expect(over.status == .conflict)
            let history = try await h.call(.get, "/history?reservation=\(id)", token: h.alice)
            #expect(history.array.map { $0["change"] as? String } == ["created"])
            let all = try await h.call(.get, "/history", token: h.alice)
            #expect(all.array.count == 1)
            // Accepted: each change is one entry, its record before and after.
            #expect(try await h.patch(id, party: 90, note: "ramp", version: 1).status == .ok)
            try await Self.statusChange("cancel", [id], h)
            let after = try await h.call(.get, "/history?reservation=\(id)", token: h.alice)
            let entries = after.array
            #expect(entries.map { $0["change"] as? String } == ["cancelled", "modified", "created"])
            let modified = entries[1]
            #expect((modified["before"] as? [String: Any])?["partySize"] as? Int == 100)
            #expect((modified["after"] as? [String: Any])?["partySize"] as? Int == 90)
            #expect((modified["after"] as? [String: Any])?["note"] as? String == "ramp")
            #expect((entries[0]["after"] as? [String: Any])?["version"] as? Int == 3)
        }
    }

    /// A database of schema 3 (before history) is upgraded on open: its reservations
    /// stay, it has no history (nothing to undo), and changes from then on are kept.
    @Test func aSchemaThreeDatabaseGetsItsHistoryTable() async throws {
        try await TemporaryDirectory.with("schema") { folder in
            let directory = folder.url
            let path = directory.appendingPathComponent("db.sqlite").path
            var logger = Logger(label: "resv-test-schema")
            logger.logLevel = .critical
            let hall = ModifyCase.hall()
            let catalog = LandmarkCatalog([hall])
            let now = ModifyCase.date(0).addingTimeInterval(-86_400)
            let clock: @Sendable () -> Date = { now }
            @Sendable func reserve(_ party: Int, in store: ServerStore, for user: UserID) async throws {
                let request = try NewReservation(
                    landmarkID: hall.id, date: ModifyCase.date(0), partySize: party, now: now)
                _ = try await store.transaction(user, catalog: catalog) {
                    try await Booking.reserve([request], now: now, in: $0)
                }
            }
            @Sendable func undo(in store: ServerStore, for user: UserID) async throws -> UndoResult {
                guard
                    case .done(let result) = try await store.transaction(
                        user, catalog: catalog, { try await Booking.undo(now: now, in: $0) })
                else { throw ReservationError.nothingToUndo }
                return result
            }
            let user = try await Database.withStore(path, logger: logger, now: clock) { store in
                let user = try await store.addToken("alice", Token.hash(Token.generate()))
                try await reserve(3, in: store, for: user)
                return user
            }
            // What version 3 had: no history table, no feed numbers, no commit dates.
            let connection = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
            _ = try await connection.query("DROP TABLE history")
            _ = try await connection.query("ALTER TABLE users DROP COLUMN last_position")
            _ = try await connection.query("ALTER TABLE users DROP COLUMN changed_at")
            _ = try await connection.query("ALTER TABLE users DROP COLUMN role")
            _ = try await connection.query("ALTER TABLE users DROP COLUMN landmarks")
            _ = try await connection.query("PRAGMA user_version = 3")
            try await connection.close()
            try await Database.withStore(path, logger: logger, now: clock) { store in
                #expect(try await store.list(user).count == 1)
                #expect(try await store.history(user, nil, nil).isEmpty)
                await #expect(throws: ReservationError.self) { try await undo(in: store, for: user) }
                try await reserve(4, in: store, for: user)
                #expect(try await store.history(user, nil, nil).map(\.change) == [.created])
                let undone = try await undo(in: store, for: user)
                #expect(undone.changes.map(\.after.partySize) == [4])
            }
            let reopened = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
            let version = try await reopened.query("PRAGMA user_version").first?.column("user_version")?.integer
            try await reopened.close()
            #expect(version == Schema.version)
        }
    }
}
