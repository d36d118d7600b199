import Foundation
import ResvTestKit
import Testing

/// A change whose answer is lost after the server made it (`DropAnswerProxy` in front of a real
/// `resv-server`) is made once, and resv says what happened (docs/contracts.md, "Exactly
/// once"): each change command carries an `Idempotency-Key`, sends it again when no answer
/// came, and the server answers the second sending with the first's answer.
@Suite("Exactly once when answers are lost", .ownThreads, .timeLimit(.minutes(30)))
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

        /// `every`: every answer to a line `dropping` matches is dropped, not only the first;
        /// `swallowing`: the requests that never reach the server.
        init(
            _ engine: String, every: Bool = false, swallowing: @escaping @Sendable (String) -> Bool = { _ in false },
            dropping: @escaping @Sendable (String) -> Bool
        ) throws {
            sandbox = try Sandbox()
            let database =
                engine == "sqlite"
                ? sandbox.directory.appendingPathComponent("server.sqlite").path
                : try #require(ProcessInfo.processInfo.environment["RESV_TEST_POSTGRES_URL"])
            let name = "once-\(UUID().uuidString.prefix(8).lowercased())"
            token = try ServerProcess.createToken(name, database: database)
            // An admin, who may also check a party in (`resv checkin`); on their own reservations the same.
            let admin = try runProcess(
                Binary.server.path, ["user", "set", name, "--role", "admin", "--database", database],
                environment: ["RESV_SERVER_CONFIG": ""], stdin: nil)
            #expect(admin.status == 0, "\(admin.stderr)")
            server = try ServerProcess(database: database)
            proxy = try DropAnswerProxy(upstream: server.port, swallows: swallowing) { line, earlier in
                (every || earlier == 0) && dropping(line)
            }
        }

        deinit {
            proxy.stop()
            server.stop()
        }

        /// resv through the proxy.
        func resv(_ arguments: String...) throws -> Run { try resv(arguments) }

        func resv(_ arguments: [String]) throws -> Run {
            try sandbox.resv(
                arguments,
                environment: [
                    "RESV_SERVER": proxy.url, "RESV_TOKEN": token, "RESV_STORE": "",
                    "XDG_CACHE_HOME": sandbox.directory.appendingPathComponent("cache").path,
                    "XDG_CONFIG_HOME": sandbox.directory.appendingPathComponent("config").path,
                ])
        }

        /// resv straight to the server, past the proxy.
        func direct(_ arguments: String...) throws -> Run {
            try sandbox.resv(
                arguments,
                environment: [
                    "RESV_SERVER": "http://127.0.0.1:\(server.port)", "RESV_TOKEN": token, "RESV_STORE": "",
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
    func aRedoWhoseAnswerIsLostTakesBackOneUndo(engine: String) async throws {
        let setup = try Setup(engine) { $0.hasPrefix("POST /redo ") }
        _ = try setup.book(3)
        #expect(try setup.resv("undo").status == 0)
        let redo = try setup.resv("redo")
        #expect(redo.status == 0, "\(redo.stderr)")
        #expect(setup.proxy.dropped.count == 1, "the first answer was lost: \(setup.proxy.seen)")
        #expect(setup.proxy.seen.filter { $0.hasPrefix("POST /redo ") }.count == 2, "sent again")
        let active = try await setup.stored().filter { $0["status"] as? String != "cancelled" }
        #expect(active.count == 3, "the undo taken back once")
        let again = try setup.resv("redo")
        #expect(again.status == 1, "nothing left to redo: \(again.stderr)")
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

    /// Every answer to the change is lost, each retry's too: resv asks the server what became of
    /// it (`POST /settle`), finds it made, and shows it as made (exit 0), saying the answer was
    /// lost; the server made it once. One case per change command.
    @Test(arguments: engines, ["modify", "cancel", "confirm", "undo", "reserve", "checkin"])
    func aChangeWhoseEveryAnswerIsLostIsFoundMadeByAskingTheServer(engine: String, command: String) async throws {
        let routes = [
            "modify": "PATCH ", "cancel": "POST /reservations/cancel", "confirm": "POST /reservations/confirm",
            "undo": "POST /undo", "reserve": "POST /reservations ", "checkin": "POST /reservations/",
        ]
        let route = try #require(routes[command])
        let setup = try Setup(engine, every: true) { $0.hasPrefix(route) }
        let pending = try setup.resv(
            "reserve", "-l", "Golden Gate Bridge", "-d", "2031-07-01T10:00:00Z", "-n", "1", "--pending", "--json")
        let id = try #require(
            (try JSONSerialization.jsonObject(with: Data(pending.stdout.utf8)) as? [String: Any])?["id"] as? String)
        let arguments: [String] =
            switch command {
            case "modify": ["modify", id, "-n", "4"]
            case "cancel": ["cancel", id]
            case "confirm": ["confirm", id]
            case "undo": ["undo"]
            case "checkin": ["checkin", id]
            default: ["reserve", "-l", "Golden Gate Bridge", "-d", "2031-07-02T10:00:00Z", "-n", "3"]
            }
        let run = try setup.resv(arguments)
        #expect(run.status == 0, "\(run.stderr)")
        let sent = setup.proxy.seen.filter { $0.hasPrefix(route) }.count
        #expect(sent >= 2 && setup.proxy.dropped.count == sent, "every sending's answer lost: \(setup.proxy.seen)")
        #expect(setup.proxy.seen.contains { $0.hasPrefix("POST /settle ") }, "the server was asked")
        #expect(run.stderr.contains("resv: note: no answer came to "), "\(run.stderr)")
        #expect(run.stderr.contains("says it was made"), "\(run.stderr)")
        let stored = try await setup.stored()
        let (status, body) = try await setup.server.request("GET", "/history?limit=100", token: setup.token)
        #expect(status == 200)
        let history = try #require(try JSONSerialization.jsonObject(with: body) as? [[String: Any]])
        #expect(history.count == 2, "the booking and one change, made once: \(history.count)")
        switch command {
        case "modify":
            #expect(stored.first?["partySize"] as? Int == 4)
            #expect(run.stdout.contains("4"), "shown as made: \(run.stdout)")
        case "cancel", "undo": #expect(stored.first?["status"] as? String == "cancelled")
        case "confirm": #expect(stored.first?["status"] as? String == "confirmed")
        case "checkin": #expect(stored.first?["status"] as? String == "checked-in")
        default: #expect(stored.count == 2)
        }
    }

    /// Neither the change's answer nor the answer to asking what became of it comes: exit 75,
    /// "unknown", and the key; the same command run again with that key (the way now clear) is
    /// answered as the first was and changes nothing more.
    @Test(arguments: engines)
    func anOutcomeThatCannotBeLearnedIsSaidUnknownAndTheKeyFinishesIt(engine: String) async throws {
        let setup = try Setup(engine, every: true) { $0.hasPrefix("PATCH ") || $0.hasPrefix("POST /settle ") }
        let id = try #require(try setup.book(1).first)
        let modify = try setup.resv("modify", id, "-n", "4", "--idempotency-key", "fix-party-4")
        #expect(modify.status == 75, "\(modify.stderr)")
        #expect(modify.stderr.contains("whether it was made is unknown"), "\(modify.stderr)")
        #expect(modify.stderr.contains("--idempotency-key fix-party-4"), "\(modify.stderr)")
        #expect(setup.proxy.dropped.contains { $0.hasPrefix("POST /settle ") }, "asked, and that answer lost")
        let again = try setup.direct("modify", id, "-n", "4", "--idempotency-key", "fix-party-4")
        #expect(again.status == 0, "\(again.stderr)")
        let stored = try #require(try await setup.stored().first { $0["id"] as? String == id })
        #expect(stored["partySize"] as? Int == 4)
        #expect(stored["version"] as? Int == 2, "made once, by the first sending: \(stored)")
    }

    /// The change never reached the server: asked, the server says not made and settles the
    /// key, so a copy of it that arrives late (sent by hand here, under the same key) is refused
    /// 409 `keySettled` and never made; resv says nothing changed (exit 69).
    @Test(arguments: engines)
    func aChangeThatNeverArrivedIsSaidNotMadeAndALateCopyIsRefused(engine: String) async throws {
        let setup = try Setup(
            engine, swallowing: { $0.hasPrefix("POST /reservations/cancel") }, dropping: { _ in false })
        let id = try #require(try setup.book(1).first)
        let cancel = try setup.resv("cancel", id, "--idempotency-key", "late-cancel")
        #expect(cancel.status == 69, "\(cancel.stderr)")
        #expect(cancel.stderr.contains("says the change was not made"), "\(cancel.stderr)")
        #expect(!setup.proxy.swallowed.isEmpty)
        let (late, body) = try await setup.server.request(
            "POST", "/reservations/cancel", token: setup.token, headers: ["Idempotency-Key": "late-cancel"],
            body: "{\"ids\":[\"\(id)\"]}")
        #expect(late == 409, "\(String(decoding: body, as: UTF8.self))")
        #expect(String(decoding: body, as: UTF8.self).contains("keySettled"))
        let stored = try #require(try await setup.stored().first { $0["id"] as? String == id })
        #expect(stored["status"] as? String == "confirmed", "never cancelled")
        #expect(stored["version"] as? Int == 1)
    }
}
