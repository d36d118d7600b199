import Foundation
import ResvTestKit
import Testing

/// The end of holds as several `resv-server` instances on one PostgreSQL
/// database record it: each hold's end once and each waiting reservation's
/// promotion once, however the instances' sweeps meet, with instances killed
/// (SIGKILL) while they sweep and started again (docs/contracts.md, "Holds and waitlists").
@Suite("Hold sweeps of instances on one PostgreSQL", .ownThreads, .timeLimit(.minutes(30)))
struct SweepInstancesTests {
    static var database: String? { ProcessInfo.processInfo.environment["RESV_TEST_POSTGRES_URL"] }

    /// One statement's answer through psql, trimmed.
    static func sql(_ database: String, _ query: String) throws -> String {
        let run = try runProcess("/usr/bin/env", ["psql", database, "-tAc", query], environment: [:], stdin: nil)
        guard run.status == 0 else { throw ServerStartFailure(log: "psql: \(run.stderr)") }
        return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(.enabled(if: database != nil))
    func instancesKilledWhileSweepingEndEachHoldAndPromoteEachWaitingReservationOnce() async throws {
        let database = try #require(Self.database)
        let sandbox = try Sandbox()
        // A landmark of its own: PostgreSQL is shared between tests, and other tests' sweeps
        // (with the built-in catalog) pass over holds at a landmark they do not know.
        let tower = UUID().uuidString.lowercased()
        let places = 5_000
        let catalog = sandbox.directory.appendingPathComponent("landmarks.json")
        try Data(
            """
            [{"id": "\(tower)", "name": "Sweep Tower", "location": "Nowhere", "category": "mountains", \
            "capacity": \(places), "timeZone": "UTC"}]
            """.utf8
        ).write(to: catalog)
        let token = try ServerProcess.createToken("sweep-\(UUID().uuidString.prefix(6))", database: database)
        let arguments = ["--landmarks", catalog.path, "--max-holds-per-user", "100000"]
        var servers = try (0..<3).map { _ in
            try ServerProcess(database: database, logLevel: "notice", arguments: arguments)
        }
        defer { for server in servers { server.stop() } }

        // The day filled with day-long holds of one, then as many waiting for a place.
        for kind in [#""hold":86400"#, #""waitlist":true"#] {
            for _ in 0..<(places / 500) {
                let line = #"{"landmarkId":"\#(tower)","date":"2030-12-01T10:00:00Z","partySize":1,\#(kind)}"#
                let body = #"{"reservations":[\#(Array(repeating: line, count: 500).joined(separator: ","))]}"#
                let (status, data) = try await servers[0].request(
                    "POST", "/reservations/batch", token: token, body: body)
                #expect(status == 201, "\(String(decoding: data.prefix(300), as: UTF8.self))")
            }
        }
        let mine = "FROM reservations WHERE landmark_id = '\(tower)'"
        #expect(
            try Self.sql(database, "SELECT status, COUNT(*) \(mine) GROUP BY status ORDER BY status")
                == "held|\(places)\nwaitlisted|\(places)")

        // A day passes for the holds: their ends moved to a second ago, as if they were made yesterday.
        _ = try Self.sql(
            database,
            "UPDATE reservations SET expires_at = EXTRACT(EPOCH FROM now()) - 1 WHERE landmark_id = '\(tower)' "
                + "AND status = 'held'")

        // Every instance killed as soon as the sweeps have begun, all started again, and all
        // killed again halfway: with three sweeping side by side, one is always inside a
        // transaction, which is cut off and rolled back; another does its work again.
        func expired() throws -> Int {
            Int(try Self.sql(database, "SELECT COUNT(*) \(mine) AND status = 'expired'")) ?? 0
        }
        var kills: [Int] = []
        // Each look is a psql process (tens of milliseconds): the looking paces itself.
        try await waitUntil("every hold ended", every: .zero) {
            let count = try expired()
            if count > 0, count < places, kills.isEmpty || (kills.count == 1 && count >= places / 2) {
                kills.append(count)
                for server in servers { server.kill() }
                servers = try (0..<3).map { _ in
                    try ServerProcess(database: database, logLevel: "notice", arguments: arguments)
                }
            }
            return count >= places
        }
        #expect(!kills.isEmpty, "the instances were killed while they swept (at \(kills) ended)")
        // The last promotions are in the transaction of the last ends: both are there together.
        #expect(
            try Self.sql(database, "SELECT status, COUNT(*) \(mine) GROUP BY status ORDER BY status")
                == "confirmed|\(places)\nexpired|\(places)")
        let history = """
            SELECT h.change, COUNT(*), COUNT(DISTINCT h.reservation_id) FROM history h
            JOIN reservations r ON r.id = h.reservation_id WHERE r.landmark_id = '\(tower)' AND h.change IN ('expired', 'promoted')
            GROUP BY h.change ORDER BY h.change
            """
        #expect(
            try Self.sql(database, history) == "expired|\(places)|\(places)\npromoted|\(places)|\(places)",
            "each hold's end and each promotion recorded once")
        // What the users read agrees, through any instance.
        let (_, data) = try await servers[2].request("GET", "/reservations", token: token)
        let list = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        let statuses = Dictionary(grouping: list, by: { $0["status"] as? String ?? "" }).mapValues(\.count)
        #expect(statuses == ["confirmed": places, "expired": places])
    }
}
