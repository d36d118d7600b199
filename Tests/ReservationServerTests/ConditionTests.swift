import Foundation
import Logging
import PostgresNIO
import ReservationCore
import ResvTestKit
import SQLiteNIO
import Testing

@testable import ReservationServer
@testable import ReservationStorage

/// The rules' conditions are defined once, in the core (`Reservation.takesPlaces`,
/// `countsTowardCapacity`, `isLiveHold`, `holdEnded`, `waitlistPrecedes`); the
/// servers' SQL is made from the same statuses (`SharedSQL`). Here the SQL runs
/// on stored rows of every status, on each side of a hold's end and of the
/// party-size bound, and must pick exactly what the core's definitions pick.
@Suite("The SQL of the rules agrees with the core's definitions", .timeLimit(.minutes(30)))
struct ConditionTests {
    static let now = 1_900_000_000.0

    struct Row: Sendable {
        let id: String
        let status: Reservation.Status
        let expiresAt: Double?
        let partySize: Int
        let waitlistOrder: Int?
    }

    @Test(arguments: Engine.available.filter { $0 != .memory })
    func everyConditionPicksWhatTheCoreDefines(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let user = try #require(try await h.store.tokens.grant(Token.hash(h.alice))?.user)
            let landmark = UUID().uuidString.lowercased()
            var rows: [Row] = []
            for status in Reservation.Status.allCases {
                for end in [nil, Self.now - 1, Self.now, Self.now + 1] {
                    for party in [1, Reservation.partySizes.upperBound, Reservation.partySizes.upperBound + 1] {
                        rows.append(
                            Row(
                                id: UUID().uuidString.lowercased(), status: status, expiresAt: end, partySize: party,
                                waitlistOrder: nil))
                    }
                }
            }
            try await Self.insert(rows, user: user, landmark: landmark, h)
            let now = Date(timeIntervalSince1970: Self.now)
            let at = String(Self.now)
            let conditions: [(String, String, (Row) -> Bool)] = [
                (
                    "countsTowardCapacity", SharedSQL.countsTowardCapacity(now: at),
                    {
                        Reservation.countsTowardCapacity(
                            $0.status, expiresAt: $0.expiresAt.map(Date.init(timeIntervalSince1970:)),
                            partySize: $0.partySize, at: now)
                    }
                ),
                (
                    "takesPlaces", SharedSQL.takesPlaces(now: at),
                    {
                        Reservation.takesPlaces(
                            $0.status, expiresAt: $0.expiresAt.map(Date.init(timeIntervalSince1970:)), at: now)
                    }
                ),
                (
                    "liveHold", SharedSQL.liveHold(now: at),
                    {
                        Reservation.isLiveHold(
                            $0.status, expiresAt: $0.expiresAt.map(Date.init(timeIntervalSince1970:)), at: now)
                    }
                ),
                (
                    "holdEnded", SharedSQL.holdEnded(now: at),
                    {
                        Reservation.holdEnded(
                            $0.status, expiresAt: $0.expiresAt.map(Date.init(timeIntervalSince1970:)), at: now)
                    }
                ),
                ("waitlisted", SharedSQL.waitlisted(), { $0.status == .waitlisted }),
            ]
            for (name, sql, core) in conditions {
                let picked = try await Self.ids(
                    "SELECT id FROM reservations WHERE landmark_id = '\(landmark)' AND \(sql)", h)
                let expected = rows.filter(core).map(\.id)
                #expect(Set(picked) == Set(expected), "\(name) on \(engine): \(sql)")
                #expect(!expected.isEmpty, "\(name) picks some rows")
            }
        }
    }

    /// A waitlist with no order, equal orders, negative and the largest ones, ids
    /// of one order differing late: served in the order the core sorts it.
    @Test(arguments: Engine.available.filter { $0 != .memory })
    func theWaitlistIsServedInTheCoresOrder(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let user = try #require(try await h.store.tokens.grant(Token.hash(h.alice))?.user)
            let landmark = UUID().uuidString.lowercased()
            let prefix = UUID().uuidString.lowercased().prefix(30)
            let orders: [Int?] = [nil, 0, 1, 1, 1, Int.max, -5, 2, nil, Int.max]
            let rows = orders.enumerated().map { index, order in
                Row(
                    id: index < 5 ? "\(prefix)\(String(format: "%06d", 9 - index))" : UUID().uuidString.lowercased(),
                    status: .waitlisted, expiresAt: nil, partySize: 1, waitlistOrder: order)
            }
            try await Self.insert(rows, user: user, landmark: landmark, h)
            let dialect: Schema.Dialect = engine == .postgres ? .postgres : .sqlite
            let served = try await Self.ids(
                """
                SELECT id FROM reservations WHERE landmark_id = '\(landmark)' AND \(SharedSQL.waitlisted())
                ORDER BY \(SharedSQL.waitlistOrder(in: dialect))
                """, h)
            let core = rows.sorted {
                Reservation.waitlistPrecedes(order: $0.waitlistOrder, id: $0.id, $1.waitlistOrder, id: $1.id)
            }.map(\.id)
            #expect(served == core)
        }
    }

    /// Histories of commands, system changes, undos (of earlier commands, of
    /// undos, of commands already undone, and of later ones, which no client
    /// writes) and redos (of undos, and of anything else, which no client
    /// writes): the SQL picks the command `Undo.lastCommand` picks, every time.
    @Test(arguments: Engine.available.filter { $0 != .memory })
    func undoTakesBackTheCommandTheCoreWouldTakeBack(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let user = try #require(try await h.store.tokens.grant(Token.hash(h.alice))?.user)
            var random = SeededRandom(seed: 46)
            var position = 0
            for round in 0..<40 {
                let history = Self.randomHistory(round: round, &random)
                guard !history.isEmpty else { continue }
                // Each round is the newest part of the user's history: it alone decides.
                try await Self.insert(history, user: user, position: &position, h)
                let picked = try await Self.ids(
                    SharedSQL.commandToUndo(user: String(user.rawValue), column: "command"), h)
                let core = Undo.lastCommand(in: history).map(\.command)
                // A round with nothing to undo leaves an earlier round's command to the SQL: compare only when there is one.
                if core.isEmpty { continue }
                #expect(picked == core, "round \(round)")
            }
        }
    }

    /// The same histories, each after a command of its own: the entries the SQL gives a redo
    /// (`undosSinceLastCommand`) lead `Undo.undoToRedo` to the undo it finds in the whole history.
    @Test(arguments: Engine.available.filter { $0 != .memory })
    func redoTakesBackTheUndoTheCoreWouldTakeBack(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let user = try #require(try await h.store.tokens.grant(Token.hash(h.alice))?.user)
            var random = SeededRandom(seed: 47)
            var position = 0
            var found = 0
            for round in 0..<60 {
                let history =
                    [Self.entry(.created, command: UUID().uuidString.lowercased(), undoes: nil)]
                    + Self.randomHistory(round: round, &random, undos: true)
                let first = position + 1
                try await Self.insert(history, user: user, position: &position, h)
                let positions = try await Self.ids(
                    SharedSQL.undosSinceLastCommand(user: String(user.rawValue), column: "CAST(position AS TEXT)"), h)
                let given = try positions.map { text in
                    let index = try #require(Int(text)).advanced(by: -first)
                    try #require(
                        history.indices.contains(index), "round \(round): position \(text) is not this round's")
                    return history[index]
                }
                let core = Undo.undoToRedo(in: history).map(\.command)
                if !core.isEmpty { found += 1 }
                #expect(Undo.undoToRedo(in: given).map(\.command) == core, "round \(round)")
            }
            // The rounds must reach both answers, or the comparison shows little.
            #expect(found > 5 && found < 55, "\(found) rounds had an undo to redo")
        }
    }

    static func entry(_ change: HistoryEntry.Change, command: String, undoes: String?) -> HistoryEntry {
        let reservation = Reservation.ID(UUID())
        return HistoryEntry(
            at: Date(timeIntervalSince1970: 1_900_000_000), change: change, reservationID: reservation, before: nil,
            after: ReservationApiModel(
                id: reservation.description, landmarkId: nil, date: nil, partySize: nil, status: nil),
            command: command, undoes: undoes)
    }

    /// A round of random history (see the tests above); with `undos`, mostly undos and redos.
    static func randomHistory(round: Int, _ random: inout SeededRandom, undos: Bool = false) -> [HistoryEntry] {
        var history: [HistoryEntry] = []
        var commands: [String] = []
        var undoCommands: [String] = []
        for _ in 0..<(1 + random.next(below: 8)) {
            let command = UUID().uuidString.lowercased()
            let kind = undos ? [0, 5, 6, 6, 6, 8, 8, 9][random.next(below: 8)] : random.next(below: 11)
            let changes: [HistoryEntry.Change]
            var undoes: String?
            switch kind {
            case 0..<4: changes = [[.created, .modified, .cancelled, .confirmed][random.next(below: 4)]]
            case 4: changes = [.created, .created]
            case 5: changes = [[.promoted, .expired][random.next(below: 2)]]
            case 8, 10:
                // A redo, of an undo as the rules write it, or now and then of anything.
                let targets = kind == 8 && !undoCommands.isEmpty ? undoCommands : commands
                guard !targets.isEmpty else { continue }
                changes = [.redone]
                undoes = targets[random.next(below: targets.count)]
            default:
                guard !commands.isEmpty else { continue }
                changes = [.undone]
                undoes = commands[random.next(below: commands.count)]
                undoCommands.append(command)
            }
            for change in changes {
                var made = entry(change, command: command, undoes: undoes)
                if let first = history.last, first.command == command { made.reservationID = first.reservationID }
                history.append(made)
            }
            commands.append(command)
        }
        // An undo of a command written after it, which the rules never write: still the same pick.
        if round % 5 == 4, let last = commands.last, history.count > 1 {
            history.insert(entry(.undone, command: UUID().uuidString.lowercased(), undoes: last), at: 0)
        }
        return history
    }

    /// Writes `history` as the user's newest entries, numbered on from `position`.
    static func insert(_ history: [HistoryEntry], user: UserID, position: inout Int, _ h: Harness) async throws {
        let rows = history.map { entry -> String in
            position += 1
            let undoes = entry.undoes.map { "'\($0)'" } ?? "NULL"
            return """
                (\(user.rawValue), \(position), '\(entry.reservationID)', '\(entry.command)',
                 '\(entry.change.rawValue)', \(undoes), '{}')
                """
        }
        _ = try await Self.ids(
            """
            INSERT INTO history (user_id, position, reservation_id, command, change, undoes, entry)
            VALUES \(rows.joined(separator: ", ")) RETURNING command
            """, h)
    }

    static func insert(_ rows: [Row], user: UserID, landmark: String, _ h: Harness) async throws {
        let values = rows.map { row in
            let end = row.expiresAt.map { String($0) } ?? "NULL"
            let order = row.waitlistOrder.map(String.init) ?? "NULL"
            return """
                ('\(row.id)', \(user.rawValue), '\(landmark)', '2030-12-01T10:00:00Z', 1922349600, \(row.partySize),
                 '\(row.status.rawValue)', 1, 1, 1, \(end), \(order))
                """
        }
        _ = try await ids(
            """
            INSERT INTO reservations (id, user_id, landmark_id, date, starts_at, party_size, status, created_at,
                updated_at, version, expires_at, waitlist_order)
            VALUES \(values.joined(separator: ", ")) RETURNING id
            """, h)
    }

    /// The first column, as text, of what `sql` answers on the harness's database.
    static func ids(_ sql: String, _ h: Harness) async throws -> [String] {
        if h.database.hasPrefix("postgres") { return try await firstColumn(sql, postgres: h.database) }
        let connection = try await SQLiteConnection.open(storage: .file(path: h.database))
        do {
            let rows = try await connection.query(sql)
            try await connection.close()
            return rows.compactMap { $0.columns.first?.data.string }
        } catch {
            try await connection.close()
            throw error
        }
    }

    /// The first column, as text, of what `sql` answers on the PostgreSQL database at `url`.
    static func firstColumn(_ sql: String, postgres url: String) async throws -> [String] {
        let logger = {
            var logger = Logger(label: "resv-test-conditions")
            logger.logLevel = .critical
            return logger
        }()
        let client = PostgresClient(configuration: try PostgresStore.configuration(url), backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: [String]?.self) { group in
            group.addTask {
                await client.run()
                return nil
            }
            defer { group.cancelAll() }
            return try await client.query(PostgresQuery(unsafeSQL: sql), logger: logger).collect().map {
                try $0.decode(String.self)
            }
        }
    }
}
