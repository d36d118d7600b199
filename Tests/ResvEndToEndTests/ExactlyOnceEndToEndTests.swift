import CapacityModel
import Foundation
import Testing

/// A change whose answer is lost after the server made it (`DropAnswerProxy` in front of a real
/// `resv-server`) is made once, and resv says what happened (docs/contracts.md, "Exactly
/// once"): each change command carries an `Idempotency-Key`, sends it again when no answer
/// came, and the server answers the second sending with the first's answer.
@Suite("Exactly once when answers are lost", .ownThreads, .timeLimit(.minutes(15)))
struct ExactlyOnceEndToEndTests {
    static var engines: [String] {
        ["sqlite"] + (ProcessInfo.processInfo.environment["RESV_TEST_POSTGRES_URL"] == nil ? [] : ["postgres"])
    }

    /// A server of `engine`, a user with a token, and a proxy that drops the first answer to
    /// each request line `dropping` matches.
    final class Setup {
        let sandbox: Sandbox
        let server: ServerProcess
        let proxy: DropAnswerProxy
        let token: String

        init(_ engine: String, dropping: @escaping @Sendable (String) -> Bool) throws {
            sandbox = try Sandbox()
            let database =
                engine == "sqlite"
                ? sandbox.directory.appendingPathComponent("server.sqlite").path
                : try #require(ProcessInfo.processInfo.environment["RESV_TEST_POSTGRES_URL"])
            token = try ServerProcess.createToken(
                "once-\(UUID().uuidString.prefix(8).lowercased())", database: database)
            server = try ServerProcess(database: database)
            proxy = try DropAnswerProxy(upstream: server.port) { line, earlier in earlier == 0 && dropping(line) }
        }

        deinit {
            proxy.stop()
            server.stop()
        }

        /// resv through the proxy.
        func resv(_ arguments: String...) throws -> Run {
            try sandbox.resv(
                arguments,
                environment: [
                    "RESV_SERVER": proxy.url, "RESV_TOKEN": token, "RESV_STORE": "",
                    "XDG_CACHE_HOME": sandbox.directory.appendingPathComponent("cache").path,
                    "XDG_CONFIG_HOME": sandbox.directory.appendingPathComponent("config").path,
                ])
        }

        /// The user's reservations as the server has them, asked without the proxy.
        func stored() async throws -> [[String: Any]] {
            let (status, body) = try await server.request("GET", "/reservations", token: token)
            #expect(status == 200)
            return try #require(try JSONSerialization.jsonObject(with: body) as? [[String: Any]])
        }

        func book(_ count: Int) throws -> [String] {
            try (0..<count).map { index in
                let run = try resv(
                    "reserve", "-l", "Golden Gate Bridge", "-d", "2031-06-0\(index + 1)T10:00:00Z", "-n", "2", "--json")
                #expect(run.status == 0, "\(run.stderr)")
                let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
                return try #require(object?["id"] as? String)
            }
        }
    }

    @Test(arguments: engines)
    func anUndoWhoseAnswerIsLostTakesBackOneCommand(engine: String) async throws {
        let setup = try Setup(engine) { $0.hasPrefix("POST /undo ") }
        _ = try setup.book(3)
        let undo = try setup.resv("undo")
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(setup.proxy.dropped.count == 1, "the first answer was lost: \(setup.proxy.seen)")
        #expect(setup.proxy.seen.filter { $0.hasPrefix("POST /undo ") }.count == 2, "sent again")
        let active = try await setup.stored().filter { $0["status"] as? String != "cancelled" }
        #expect(active.count == 2, "one command taken back, not two")
    }

    @Test(arguments: engines)
    func aModifyWhoseAnswerIsLostIsMadeOnceAndSaidSo(engine: String) async throws {
        let setup = try Setup(engine) { $0.hasPrefix("PATCH ") }
        let id = try #require(try setup.book(1).first)
        let modify = try setup.resv("modify", id, "-n", "4")
        #expect(modify.status == 0, "\(modify.stderr)")
        #expect(!modify.stderr.contains("changed since it was read"), "\(modify.stderr)")
        #expect(setup.proxy.dropped.count == 1)
        let stored = try #require(try await setup.stored().first { $0["id"] as? String == id })
        #expect(stored["partySize"] as? Int == 4)
        #expect(stored["version"] as? Int == 2, "changed once")
    }

    @Test(arguments: engines)
    func aCancelAndAConfirmWhoseAnswersAreLostAreMadeOnce(engine: String) async throws {
        let setup = try Setup(engine) { $0.hasPrefix("POST /reservations/cancel") || $0.contains("/confirm") }
        let ids = try setup.book(2)
        let pending = try setup.resv(
            "reserve", "-l", "Golden Gate Bridge", "-d", "2031-07-01T10:00:00Z", "-n", "1", "--pending", "--json")
        let pendingID = try #require(
            (try JSONSerialization.jsonObject(with: Data(pending.stdout.utf8)) as? [String: Any])?["id"] as? String)
        let cancel = try setup.resv("cancel", ids[0])
        #expect(cancel.status == 0, "\(cancel.stderr)")
        let confirm = try setup.resv("confirm", pendingID)
        #expect(confirm.status == 0, "\(confirm.stderr)")
        #expect(setup.proxy.dropped.count == 2, "\(setup.proxy.seen)")
        let (status, body) = try await setup.server.request("GET", "/history?limit=100", token: setup.token)
        #expect(status == 200)
        let history = try #require(try JSONSerialization.jsonObject(with: body) as? [[String: Any]])
        #expect(history.count == 5, "three bookings, one cancel, one confirm: \(history.count)")
    }
}
