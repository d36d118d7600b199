import Foundation
import ResvTestKit
import Synchronization
import Testing

/// Offline (docs/contracts.md, "Offline"): `--queue` keeps a change the server
/// cannot be reached for in its outbox; `resv sync` (or any command that reaches
/// the server) sends it; the server decides each; a sync killed at any moment,
/// or a server killed under it, loses nothing and books nothing twice.
@Suite("Offline: the outbox", .ownThreads, .timeLimit(.minutes(30)))
struct OutboxTests {
    /// A server on one SQLite file and one port, stopped and started again as a test needs.
    final class Site: @unchecked Sendable {
        let sandbox: Sandbox
        let database: String
        let alice: String
        let bob: String
        private(set) var server: ServerProcess?
        let port: Int

        init() throws {
            sandbox = try Sandbox()
            database = sandbox.directory.appendingPathComponent("server.sqlite").path
            alice = try ServerProcess.createToken("alice", database: database)
            bob = try ServerProcess.createToken("bob", database: database)
            let first = try ServerProcess(database: database)
            port = first.port
            server = first
        }

        deinit { server?.stop() }

        var url: String { "http://127.0.0.1:\(port)" }

        func stop() {
            server?.stop()
            server = nil
        }

        func kill() {
            server?.kill()
            server = nil
        }

        /// Starts the server again, on the same port: the same server to resv.
        func start() throws {
            server = try ServerProcess(database: database, arguments: ["--port", "\(port)"])
        }

        var environment: [String: String] {
            [
                "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": sandbox.directory.path,
                "TZ": "UTC", "RESV_SERVER": url, "RESV_TOKEN": alice,
                "XDG_CACHE_HOME": sandbox.directory.appendingPathComponent("cache").path,
                "XDG_STATE_HOME": sandbox.directory.appendingPathComponent("state").path,
                "XDG_CONFIG_HOME": sandbox.directory.appendingPathComponent("config").path,
            ]
        }

        @discardableResult
        func resv(_ arguments: String..., token: String? = nil, stdin: String? = nil) throws -> Run {
            try resv(arguments, token: token, stdin: stdin)
        }

        @discardableResult
        func resv(_ arguments: [String], token: String? = nil, stdin: String? = nil) throws -> Run {
            var environment = environment
            if let token { environment["RESV_TOKEN"] = token }
            return try sandbox.resv(arguments, environment: environment, stdin: stdin)
        }

        /// The outbox files: the user's, and a token's whose user was not known when it queued.
        var outboxFiles: [URL] {
            let folder = sandbox.directory.appendingPathComponent("state/resv/outbox")
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            return names.filter { $0.hasSuffix(".json") }.sorted().map { folder.appendingPathComponent($0) }
        }

        /// The outbox file that holds the items (the largest).
        var outboxFile: URL {
            let size = { (file: URL) in (try? Data(contentsOf: file).count) ?? 0 }
            return outboxFiles.max { size($0) < size($1) }
                ?? sandbox.directory.appendingPathComponent("state/resv/outbox/none.json")
        }

        /// The items of every outbox file as stored; empty when there is none.
        func items() -> [[String: Any]] {
            outboxFiles.flatMap { file -> [[String: Any]] in
                guard let data = try? Data(contentsOf: file),
                    let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
                else { return [] }
                return object["items"] as? [[String: Any]] ?? []
            }
        }

        /// The ids of alice's reservations on the server, asked of it directly.
        func stored() async throws -> [String] {
            let (status, body) = try await #require(server).request("GET", "/reservations", token: alice)
            #expect(status == 200)
            let list = try #require(try JSONSerialization.jsonObject(with: body) as? [[String: Any]])
            return list.compactMap { $0["id"] as? String }
        }
    }

    static func json(_ run: Run) throws -> Any { try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) }

    @Test func aBookingQueuedWhileTheServerIsDownIsShownQueuedAndBookedByTheNextCommandThatReachesIt() async throws {
        let site = try Site()
        #expect(try site.resv("list").status == 0)  // the answers cached, as after any use
        site.stop()
        // Without --queue: refused as before (69), nothing kept.
        let refused = try site.resv("reserve", "-l", "half dome", "-d", visitAhead(days: 30), "-n", "2")
        #expect(refused.status == 69, "\(refused.stderr)")
        #expect(site.items().isEmpty)
        let queued = try site.resv(
            "reserve", "-l", "half dome", "-d", visitAhead(days: 30), "-n", "2", "--queue", "--json")
        #expect(queued.status == 0, "\(queued.stderr)")
        let made = try #require(try Self.json(queued) as? [String: Any])
        #expect(made["status"] as? String == "queued")
        let id = try #require(made["id"] as? String)
        #expect(queued.stderr.contains("reserve queued"), "\(queued.stderr)")
        // The config key does it too.
        #expect(try site.resv("config", "set", "queue", "true").status == 0)
        let second = try site.resv("reserve", "-l", "turtle rock", "-d", visitAhead(days: 31), "-n", "1", "--pending")
        #expect(second.status == 0, "\(second.stderr)")
        #expect(site.items().count == 2)
        // list and show see them, status queued, beside the cached answers.
        let list = try #require(try Self.json(site.resv("list", "--json")) as? [[String: Any]])
        #expect(list.filter { $0["status"] as? String == "queued" }.count == 2)
        let show = try site.resv("show", String(id.prefix(8)))
        #expect(show.stdout.contains("Status    queued"), "\(show.stdout)")
        // Tab completion offers queued ids too (it reads only local files).
        let words = try site.resv(
            ["---completion", "cancel", "--", "positional@0", "2", "0", "resv", "cancel", ""])
        #expect(words.stdout.contains(String(id.prefix(8))), "\(words.stdout) \(words.stderr)")
        // The server back: the next command sends them first and says so.
        try site.start()
        let after = try site.resv("list", "--json")
        #expect(after.status == 0, "\(after.stderr)")
        #expect(after.stderr.contains("sent the outbox first: 2 queued changes sent: 2 made"), "\(after.stderr)")
        let listed = try #require(try Self.json(after) as? [[String: Any]])
        #expect(listed.count == 2)
        #expect(listed.first { $0["id"] as? String == id }?["status"] as? String == "confirmed")
        #expect(Set(listed.compactMap { $0["status"] as? String }) == ["confirmed", "pending"])
        #expect(site.items().isEmpty)
        #expect(try await site.stored().contains(id))
        let sync = try site.resv("sync")
        #expect(sync.status == 0)
        #expect(sync.stderr == "resv: nothing queued to send\n")
    }

    @Test func cancellingModifyingAndConfirmingAQueuedBookingEditTheOutbox() async throws {
        let site = try Site()
        #expect(try site.resv("list").status == 0)
        site.stop()
        let date = visitAhead(days: 40)
        func queue(_ landmark: String, _ extra: String...) throws -> String {
            let run = try site.resv(["reserve", "-l", landmark, "-d", date, "-n", "2", "--queue", "--json"] + extra)
            #expect(run.status == 0, "\(run.stderr)")
            return try #require((try Self.json(run) as? [String: Any])?["id"] as? String)
        }
        let dropped = try queue("half dome")
        let changed = try queue("turtle rock", "--pending")
        #expect(site.items().count == 2)
        // Cancel of a queued booking never sent: it leaves the outbox.
        let cancel = try site.resv("cancel", String(dropped.prefix(8)), "--queue")
        #expect(cancel.status == 0, "\(cancel.stderr)")
        #expect(site.items().count == 1)
        // Modify and confirm change the request in place.
        #expect(try site.resv("modify", String(changed.prefix(8)), "-n", "5", "--queue").status == 0)
        #expect(try site.resv("confirm", changed, "--queue").status == 0)
        let items = site.items()
        #expect(items.count == 1)
        let request = try #require(items.first?["request"] as? [String: Any])
        #expect(request["partySize"] as? Int == 5)
        #expect(request["status"] as? String == "confirmed")
        try site.start()
        let sync = try site.resv("sync", "--json")
        #expect(sync.status == 0, "\(sync.stderr)")
        let sent = try #require(try Self.json(sync) as? [[String: Any]])
        #expect(sent.count == 1)
        #expect(sent.first?["partySize"] as? Int == 5 && sent.first?["status"] as? String == "confirmed")
        #expect(try await site.stored() == [changed])
    }

    @Test func aChangeOfAServerReservationIsQueuedWithItsVersionAndAConflictIsReportedNotApplied() async throws {
        let site = try Site()
        let made = try site.resv("reserve", "-l", "half dome", "-d", visitAhead(days: 50), "-n", "2", "--json")
        let id = try #require((try Self.json(made) as? [String: Any])?["id"] as? String)
        let other = try site.resv("reserve", "-l", "turtle rock", "-d", visitAhead(days: 50), "-n", "2", "--json")
        let otherID = try #require((try Self.json(other) as? [String: Any])?["id"] as? String)
        #expect(try site.resv("list").status == 0)
        site.stop()
        #expect(try site.resv("modify", String(id.prefix(8)), "-n", "3", "--queue").status == 0)
        #expect(try site.resv("cancel", String(otherID.prefix(8)), "--queue").status == 0)
        #expect(site.items().map { $0["version"] as? Int } == [1, 1])
        try site.start()
        // Meanwhile someone (another resv of alice's) changed the first: its queued change is refused.
        let (status, _) = try await #require(site.server).request(
            "PATCH", "/reservations/\(id)", token: site.alice, body: #"{"note":"changed elsewhere"}"#)
        #expect(status == 200)
        let sync = try site.resv("sync")
        #expect(sync.status == 1, "\(sync.stderr)")
        #expect(
            sync.stderr.contains("refused: reservation \(id.prefix(8)) changed since it was read"), "\(sync.stderr)")
        #expect(sync.stderr.contains("1 made, 1 refused"), "\(sync.stderr)")
        let left = site.items()
        #expect(left.count == 1)
        #expect((left.first?["refused"] as? [String: Any])?["code"] as? String == "versionMismatch")
        let outbox = try site.resv("outbox")
        #expect(outbox.stdout.contains("refused (versionMismatch)"), "\(outbox.stdout)")
        // The refused one stays (sync still 1) until dropped.
        #expect(try site.resv("sync").status == 1)
        let drop = try site.resv("outbox", "drop", String((left.first?["id"] as? String ?? "").prefix(8)))
        #expect(drop.status == 0, "\(drop.stderr)")
        #expect(try site.resv("sync").status == 0)
        let list = try #require(try Self.json(site.resv("list", "--all", "--json")) as? [[String: Any]])
        #expect(list.first { $0["id"] as? String == id }?["partySize"] as? Int == 2)
        #expect(list.first { $0["id"] as? String == otherID }?["status"] as? String == "cancelled")
    }

    /// A change queued for a reservation the server has shows beside the server's values, marked
    /// queued: `list` (the table, and `--json`'s `queued`), `show`, Tab's descriptions; `resv outbox`
    /// says what each item asks for. Without `--queue`, the unreachable server's refusal says
    /// `--queue`; with it, a party larger than the landmark's whole day is refused, not queued.
    @Test func queuedChangesShowBesideTheServersValuesUntilSent() async throws {
        let site = try Site()
        let day = visitAhead(days: 60)
        let made = try site.resv("reserve", "-l", "half dome", "-d", day, "-n", "2", "--note", "ramp", "--json")
        let id = try #require((try Self.json(made) as? [String: Any])?["id"] as? String)
        let other = try site.resv("reserve", "-l", "turtle rock", "-d", day, "-n", "1", "--json")
        let otherID = try #require((try Self.json(other) as? [String: Any])?["id"] as? String)
        #expect(try site.resv("list").status == 0)
        site.stop()

        // Without --queue nothing is kept, and the message says how it could be.
        let refused = try site.resv("cancel", String(otherID.prefix(8)))
        #expect(refused.status == 69, "\(refused.stderr)")
        #expect(
            refused.stderr.contains("nothing was changed: with --queue the cancel waits in the outbox"),
            "\(refused.stderr)")
        #expect(site.items().isEmpty)
        // A party larger than Half Dome's day (300) would be refused whenever it arrived.
        for run in [
            try site.resv("reserve", "-l", "half dome", "-d", day, "-n", "301", "--queue"),
            try site.resv("modify", String(id.prefix(8)), "-n", "301", "--queue"),
        ] {
            #expect(run.status == 1, "\(run.stderr)")
            #expect(
                run.stderr.hasSuffix("\nresv: a party of 301 is larger than Half Dome's capacity of 300 a day\n"),
                "\(run.stderr)")
        }
        #expect(site.items().isEmpty)

        let modify = try site.resv("modify", String(id.prefix(8)), "-n", "4", "--note", "", "--queue")
        #expect(modify.status == 0, "\(modify.stderr)")
        #expect(modify.stdout.contains("Party     2 → 4\n"), "\(modify.stdout)")
        #expect(modify.stdout.contains("Status    confirmed (queued)\n"), "\(modify.stdout)")
        #expect(try site.resv("cancel", String(otherID.prefix(8)), "--queue").status == 0)

        let table = try site.resv("list").stdout
        let rows = table.split(separator: "\n")
        let row = try #require(rows.first { $0.hasPrefix(id.prefix(8)) }, "\(table)")
        #expect(row.contains("2 → 4") && row.contains("confirmed (queued)"), "\(row)")
        let otherRow = try #require(rows.first { $0.hasPrefix(otherID.prefix(8)) }, "\(table)")
        #expect(otherRow.contains("confirmed → cancelled (queued)"), "\(otherRow)")

        // --json: the server's values as they are, the queued ones beside them.
        let list = try #require(try Self.json(site.resv("list", "--json")) as? [[String: Any]])
        let mine = try #require(list.first { $0["id"] as? String == id })
        #expect(
            mine["partySize"] as? Int == 2 && mine["note"] as? String == "ramp"
                && mine["status"] as? String == "confirmed")
        let queued = try #require(mine["queued"] as? [String: Any], "\(mine)")
        #expect(queued["changes"] as? [String] == ["modify"] && queued["partySize"] as? Int == 4, "\(queued)")
        #expect(queued.keys.contains("note") && queued["note"] is NSNull, "the note removed: \(queued)")
        #expect(Set(queued.keys) == ["changes", "partySize", "note"], "\(queued)")
        let theirs = try #require(list.first { $0["id"] as? String == otherID })
        #expect(theirs["status"] as? String == "confirmed")
        #expect(theirs["queued"] as? NSDictionary == ["changes": ["cancel"], "status": "cancelled"], "\(theirs)")

        let show = try site.resv("show", String(id.prefix(8))).stdout
        #expect(show.contains("Party     2 → 4\n") && show.contains("Note      ramp → (none)\n"), "\(show)")
        #expect(show.contains("Queued    modify, sent when the server is reached"), "\(show)")

        let outbox = try site.resv("outbox").stdout
        #expect(outbox.contains("party of 4, note removed, if still version 1"), "\(outbox)")
        #expect(outbox.contains("REQUEST"), "\(outbox)")

        // Tab in fish: the description has the queued status beside the server's.
        let tab = try site.sandbox.resv(
            ["---completion", "modify", "--", "positional@0", "2", "0", "resv", "modify", ""],
            environment: site.environment.merging(["SAP_SHELL": "fish", "SAP_SHELL_VERSION": "3"]) { $1 })
        #expect(tab.stdout.contains("confirmed → cancelled (queued)"), "\(tab.stdout) \(tab.stderr)")

        // Sent, the server's values are the new ones and nothing is queued beside them.
        try site.start()
        #expect(try site.resv("sync").status == 0)
        let after = try #require(try Self.json(site.resv("list", "--all", "--json")) as? [[String: Any]])
        let sent = try #require(after.first { $0["id"] as? String == id })
        #expect(sent["partySize"] as? Int == 4 && sent["note"] == nil && sent["queued"] == nil, "\(sent)")
        #expect(after.first { $0["id"] as? String == otherID }?["status"] as? String == "cancelled")
    }

    @Test func theServerDecidesEachAsItArrivesAndARefusalStaysUntilDropped() async throws {
        let site = try Site()
        #expect(try site.resv("list").status == 0)
        let date = visitAhead(days: 60)
        site.stop()
        let queued = try site.resv("reserve", "-l", "half dome", "-d", date, "-n", "2", "--queue", "--json")
        let id = try #require((try Self.json(queued) as? [String: Any])?["id"] as? String)
        let waiting = try site.resv("reserve", "-l", "half dome", "-d", date, "-n", "4", "--queue", "--waitlist")
        #expect(waiting.status == 0)
        try site.start()
        // Bob fills the day before alice's outbox arrives.
        #expect(try site.resv("reserve", "-l", "half dome", "-d", date, "-n", "300", token: site.bob).status == 0)
        let sync = try site.resv("sync", "--json")
        #expect(sync.status == 1, "\(sync.stderr)")
        #expect(sync.stderr.contains("refused: Half Dome is full on"), "\(sync.stderr)")
        let made = try #require(try Self.json(sync) as? [[String: Any]])
        #expect(made.map { $0["status"] as? String } == ["waitlisted"])
        let outbox = try #require(try Self.json(site.resv("outbox", "--json")) as? [[String: Any]])
        #expect(outbox.count == 1)
        #expect(outbox.first?["reservation"] as? String == id)
        #expect(outbox.first?["state"] as? String == "refused")
        #expect(try await !site.stored().contains(id))
        // Bob's commands never send alice's outbox: it is hers.
        #expect(try site.resv("list", token: site.bob).stderr.isEmpty)
        #expect(site.items().count == 1)
        // Dropped by its reservation's id prefix.
        #expect(try site.resv("outbox", "drop", String(id.prefix(6))).status == 0)
        #expect(try site.resv("outbox", "--json").stdout == "[]\n")
    }

    /// Items of one reservation are a chain: a queued modify then a queued cancel of it end
    /// cancelled (the cancel sent against the version the modify made), not refused.
    @Test func aModifyThenACancelOfOneReservationEndCancelled() async throws {
        let site = try Site()
        let made = try site.resv("reserve", "-l", "half dome", "-d", visitAhead(days: 70), "-n", "2", "--json")
        let id = try #require((try Self.json(made) as? [String: Any])?["id"] as? String)
        #expect(try site.resv("list").status == 0)
        site.stop()
        #expect(try site.resv("modify", String(id.prefix(8)), "-n", "3", "--queue").status == 0)
        #expect(try site.resv("cancel", String(id.prefix(8)), "--queue").status == 0)
        try site.start()
        let sync = try site.resv("sync")
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(site.items().isEmpty)
        let (_, body) = try await #require(site.server).request("GET", "/reservations/\(id)", token: site.alice)
        let stored = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(stored["status"] as? String == "cancelled")
        #expect(stored["partySize"] as? Int == 3)
        #expect(stored["version"] as? Int == 3, "each change made once")
    }

    /// The outbox is the user's, not the token's: what alice queued under one token is sent by
    /// her new token (the old one revoked meanwhile), and never by bob's, whose commands reach
    /// the same server from the same account on this machine.
    @Test func aNewTokenOfTheSameUserSendsWhatTheOldQueuedAndAnotherUsersNever() async throws {
        let site = try Site()
        // Queueing on: the first contact learns whose the token is.
        #expect(try site.resv("config", "set", "queue", "true").status == 0)
        #expect(try site.resv("list").status == 0)
        site.stop()
        let queued = try site.resv("reserve", "-l", "half dome", "-d", visitAhead(days: 40), "-n", "2", "--json")
        #expect(queued.status == 0, "\(queued.stderr)")
        let id = try #require((try Self.json(queued) as? [String: Any])?["id"] as? String)
        try site.start()
        // Bob first: his token's user is learned (bob), his outbox is empty, alice's item stays.
        let bobs = try site.resv("list", "--json", token: site.bob)
        #expect(bobs.status == 0, "\(bobs.stderr)")
        #expect(!bobs.stderr.contains("sent the outbox"), "\(bobs.stderr)")
        #expect(site.items().count == 1, "alice's change is not bob's to send")
        let (_, bobBody) = try await #require(site.server).request("GET", "/reservations", token: site.bob)
        #expect(String(decoding: bobBody, as: UTF8.self) == "[]")
        // Alice's old token revoked, a new one made: the new token sends what the old queued.
        let revoke = try runProcess(
            Binary.server.path, ["token", "revoke", "alice", "--database", site.database], environment: [:], stdin: nil)
        #expect(revoke.status == 0, "\(revoke.stderr)")
        let newToken = try ServerProcess.createToken("alice", database: site.database)
        let sent = try site.resv("list", "--json", token: newToken)
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.stderr.contains("sent the outbox first: 1 queued change sent: 1 made"), "\(sent.stderr)")
        #expect(site.items().isEmpty)
        let (_, body) = try await #require(site.server).request("GET", "/reservations/\(id)", token: newToken)
        let stored = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(stored["status"] as? String == "confirmed")
    }

    /// A token whose user is not known yet (queueing off until the server went away) queues in
    /// a file of its own; when that token reaches the server, the server says whose it is and
    /// the change moves into the user's outbox and is sent.
    @Test func whatATokenQueuedBeforeItsUserWasKnownMovesToTheUsersOutbox() async throws {
        let site = try Site()
        #expect(try site.resv("list").status == 0)
        site.stop()
        let queued = try site.resv(
            "reserve", "-l", "half dome", "-d", visitAhead(days: 41), "-n", "2", "--queue", "--json")
        #expect(queued.status == 0, "\(queued.stderr)")
        #expect(site.outboxFiles.count == 1, "the token's own file")
        try site.start()
        let sent = try site.resv("sync")
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.stderr.contains("1 queued change sent: 1 made"), "\(sent.stderr)")
        #expect(site.outboxFiles.count == 2, "the user's file beside the token's, now empty")
        #expect(site.items().isEmpty)
        let userFile = site.sandbox.directory.appendingPathComponent("state/resv/outbox")
        let names = try FileManager.default.contentsOfDirectory(atPath: userFile.path)
        let written = try #require(names.first { $0.hasSuffix(".user") })
        #expect(
            try String(contentsOf: userFile.appendingPathComponent(written), encoding: .utf8) == "alice\n")
    }

    /// A modify and a cancel queued right after a booking, the user's list never read: made
    /// against the booking as this resv made it (by an 8-character prefix too), sent in order.
    @Test func changesQueuedRightAfterABookingNeedNoListRead() async throws {
        let site = try Site()
        let made = try site.resv("reserve", "-l", "half dome", "-d", visitAhead(days: 72), "-n", "2", "--json")
        let id = try #require((try Self.json(made) as? [String: Any])?["id"] as? String)
        site.stop()
        let modify = try site.resv("modify", String(id.prefix(8)), "-n", "3", "--queue")
        #expect(modify.status == 0, "\(modify.stderr)")
        #expect(modify.stderr.contains("modify queued"), "\(modify.stderr)")
        let cancel = try site.resv("cancel", id, "--queue")
        #expect(cancel.status == 0, "\(cancel.stderr)")
        #expect(site.items().count == 2)
        #expect(site.items().first?["version"] as? Int == 1, "made against the version booked")
        try site.start()
        let sync = try site.resv("sync")
        #expect(sync.status == 0, "\(sync.stderr)")
        let (_, body) = try await #require(site.server).request("GET", "/reservations/\(id)", token: site.alice)
        let stored = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(stored["status"] as? String == "cancelled")
        #expect(stored["partySize"] as? Int == 3)
    }

    /// A sync cut off part way (the link to the server dies after the first booking) says
    /// how many it sent, that the rest wait, and why; exit 69; the next sync sends the rest.
    @Test func aSyncCutOffPartWaySaysWhatWasSentAndThatTheRestWait() async throws {
        let site = try Site()
        #expect(try site.resv("list").status == 0)
        site.stop()
        for day in 90..<93 {
            let queued = try site.resv("reserve", "-l", "half dome", "-d", visitAhead(days: day), "-n", "1", "--queue")
            #expect(queued.status == 0, "\(queued.stderr)")
        }
        // The server on another port, behind a proxy on the site's that lets one booking through.
        let server = try ServerProcess(database: site.database)
        defer { server.stop() }
        let bookings = Mutex(0)
        let proxy = try DropAnswerProxy(
            upstream: server.port, port: site.port,
            swallows: { line in
                guard line.hasPrefix("POST /reservations ") else { return false }
                return bookings.withLock { count in
                    count += 1
                    return count > 1
                }
            }, drops: { _, _ in false })
        let cut = try site.resv("sync")
        #expect(cut.status == 69, "\(cut.stderr)")
        #expect(!proxy.swallowed.isEmpty, "the link died")
        #expect(
            cut.stderr.contains("1 queued change sent, then cannot reach the server"), "\(cut.stderr)")
        #expect(cut.stderr.contains("2 queued changes wait in the outbox ('resv sync' sends them)"), "\(cut.stderr)")
        #expect(site.items().count == 2)
        proxy.stop()
        let (_, body) = try await server.request("GET", "/reservations", token: site.alice)
        #expect((try JSONSerialization.jsonObject(with: body) as? [Any])?.count == 1)
    }

    /// Items of different reservations are independent: a refused one (a confirm of a
    /// reservation cancelled meanwhile) is kept with its reason, holds back only its own
    /// chain (a modify queued behind it), and a booking queued after it is made.
    @Test func aRefusedItemHoldsBackOnlyItsOwnReservation() async throws {
        let site = try Site()
        let made = try site.resv(
            "reserve", "-l", "half dome", "-d", visitAhead(days: 71), "-n", "2", "--pending", "--json")
        let id = try #require((try Self.json(made) as? [String: Any])?["id"] as? String)
        #expect(try site.resv("list").status == 0)
        site.stop()
        #expect(try site.resv("confirm", String(id.prefix(8)), "--queue").status == 0)
        #expect(try site.resv("modify", String(id.prefix(8)), "-n", "3", "--queue").status == 0)
        let booked = try site.resv(
            "reserve", "-l", "turtle rock", "-d", visitAhead(days: 72), "-n", "1", "--queue", "--json")
        let bookedID = try #require((try Self.json(booked) as? [String: Any])?["id"] as? String)
        try site.start()
        // Meanwhile the pending one is cancelled elsewhere.
        let (status, _) = try await #require(site.server).request(
            "DELETE", "/reservations/\(id)", token: site.alice)
        #expect(status == 200)
        for round in 1...2 {
            let sync = try site.resv("sync")
            // A refusal kept in the outbox makes every sync exit 1, until it is dropped.
            #expect(sync.status == 1, "round \(round): \(sync.stderr)")
            #expect(try await site.stored().contains(bookedID), "the booking behind the refusal is made")
            let left = site.items()
            #expect(left.count == 2, "the refused confirm and the modify behind it are kept")
            #expect(left.first?["refused"] != nil)
            #expect(left.last?["refused"] == nil, "the modify was never sent, so never refused")
        }
    }

    @Test func anOutboxThatIsNotJSONIsNeverOverwrittenAndAnItemThisResvCannotReadIsKept() throws {
        let site = try Site()
        #expect(try site.resv("list").status == 0)
        site.stop()
        #expect(
            try site.resv("reserve", "-l", "half dome", "-d", visitAhead(days: 70), "-n", "1", "--queue").status == 0)
        let file = site.outboxFile
        try Data("not json {".utf8).write(to: file)
        let run = try site.resv("reserve", "-l", "half dome", "-d", visitAhead(days: 70), "-n", "1", "--queue")
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.contains("is not an outbox file"), "\(run.stderr)")
        #expect(run.stderr.contains(file.path))
        #expect(try String(contentsOf: file, encoding: .utf8) == "not json {")
        #expect(try site.resv("outbox").status == 65)
        // Too large to be one, or no file at all (a FIFO would block a reader): refused, not read, left.
        let huge = Data(#"{"outbox":1,"items":[]}"#.utf8) + Data(repeating: 0x20, count: 16 << 20)
        try huge.write(to: file)
        let large = try site.resv("outbox")
        #expect(large.status == 65, "\(large.stderr)")
        #expect(large.stderr.contains("more than 16777216 an outbox holds"), "\(large.stderr)")
        #expect(try Data(contentsOf: file) == huge)
        try FileManager.default.removeItem(at: file)
        #expect(mkfifo(file.path, 0o600) == 0)
        let fifo = try site.resv("reserve", "-l", "half dome", "-d", visitAhead(days: 70), "-n", "1", "--queue")
        #expect(fifo.status == 65, "\(fifo.stderr)")
        #expect(fifo.stderr.contains("is not an outbox file"), "\(fifo.stderr)")
        try FileManager.default.removeItem(at: file)
        // A newer resv's item: kept, reported, not sent; the others go.
        let newer = #"{"id":"7f000000-0000-4000-8000-000000000001","kind":"teleport","reservation":"x"}"#
        try Data(#"{"outbox":1,"items":[\#(newer)]}"#.utf8).write(to: file)
        #expect(
            try site.resv("reserve", "-l", "turtle rock", "-d", visitAhead(days: 71), "-n", "1", "--queue").status == 0)
        try site.start()
        let sync = try site.resv("sync")
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stderr.contains("is not one this resv can read: kept, not sent"), "\(sync.stderr)")
        let items = site.items()
        #expect(items.count == 1 && items.first?["kind"] as? String == "teleport")
        #expect(try site.resv("outbox").stdout.contains("unreadable"))
    }

    @Test(.enabled(if: Requirement.root.isMet, "needs root, to give the outbox to another user"))
    func anOutboxAnotherUserMadeIsRefused() throws {
        let site = try Site()
        #expect(try site.resv("list").status == 0)
        site.stop()
        #expect(
            try site.resv("reserve", "-l", "half dome", "-d", visitAhead(days: 80), "-n", "1", "--queue").status == 0)
        let file = site.outboxFile
        #expect(chown(file.path, 4242, 4242) == 0)
        let run = try site.resv("reserve", "-l", "half dome", "-d", visitAhead(days: 80), "-n", "1", "--queue")
        #expect(run.status == 73, "\(run.stderr)")
        #expect(run.stderr.contains("not using the outbox"), "\(run.stderr)")
        #expect(run.stderr.contains("uid 4242"), "\(run.stderr)")
    }

    /// An outbox another local user may write (the file 0666, or its folder 0777) could hold a
    /// cancel they put there: it is never read, so nothing in it is sent with the owner's token.
    @Test(arguments: ["file", "folder"])
    func anOutboxOthersMayWriteIsNeverReadNorSent(place: String) async throws {
        let site = try Site()
        let id = try #require(
            (try Self.json(site.resv("reserve", "-l", "half dome", "-d", visitAhead(days: 81), "-n", "1", "--json"))
                as? [String: Any])?["id"] as? String)
        #expect(try site.resv("list").status == 0)
        site.stop()
        let queued = try site.resv("cancel", String(id.prefix(8)), "--queue")
        #expect(queued.status == 0, "\(queued.stderr)")
        #expect(site.items().count == 1, "a cancel queued")
        let target = place == "file" ? site.outboxFile : site.outboxFile.deletingLastPathComponent()
        #expect(chmod(target.path, place == "file" ? 0o666 : 0o777) == 0)
        try site.start()
        let list = try site.resv("list", "--json")
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stderr.contains("may be written by other users"), "\(list.stderr)")
        let sync = try site.resv("sync")
        #expect(sync.status == 73, "\(sync.stderr)")
        #expect(sync.stderrLines.count == 1, "\(sync.stderr)")
        #expect(sync.stderr.contains("its \(place) \(target.path)"), "\(sync.stderr)")
        // Not sent: the reservation is as booked.
        let (status, body) = try await #require(site.server).request("GET", "/reservations/\(id)", token: site.alice)
        #expect(status == 200)
        #expect((try JSONSerialization.jsonObject(with: body) as? [String: Any])?["status"] as? String == "confirmed")
        // Made private again, the owner's queued cancel is sent.
        #expect(chmod(target.path, place == "file" ? 0o600 : 0o700) == 0)
        #expect(try site.resv("sync").status == 0)
    }

    // MARK: - Killed, at once, under a dead server

    /// Queues `count` bookings while the server is down, and starts it again.
    static func queued(_ count: Int, at site: Site) throws -> [String] {
        #expect(try site.resv("list").status == 0)
        site.stop()
        var ids: [String] = []
        for number in 0..<count {
            let run = try site.resv(
                "reserve", "-l", number % 2 == 0 ? "golden gate" : "half dome", "-d", visitAhead(days: 90 + number),
                "-n", "1", "--queue", "--json")
            #expect(run.status == 0, "\(run.stderr)")
            ids.append(try #require((try json(run) as? [String: Any])?["id"] as? String))
        }
        try site.start()
        return ids
    }

    /// Every booking gone from the outbox is on the server (nothing lost), each once.
    static func checkNothingLost(_ ids: [String], at site: Site) async throws {
        let left = Set(site.items().compactMap { $0["reservation"] as? String })
        let stored = try await site.stored()
        #expect(stored.count == Set(stored).count, "a booking stored twice")
        #expect(Set(ids).subtracting(left).isSubset(of: Set(stored)), "left the outbox unanswered")
        #expect(Set(stored).isSubset(of: Set(ids)))
    }

    /// `resv sync` killed at random moments it is seen at (an item marked sent, a number
    /// answered), then run again: each booking made once, none lost. RESV_OUTBOX_KILL_ROUNDS
    /// for a longer run (docs/testing.md).
    @Test func aSyncKilledAtAnyMomentAndRunAgainBooksEachOnce() async throws {
        let rounds = ProcessInfo.processInfo.environment["RESV_OUTBOX_KILL_ROUNDS"].flatMap { Int($0) } ?? 3
        var killedMidway = 0
        for _ in 0..<rounds {
            let site = try Site()
            let ids = try Self.queued(8, at: site)
            let process = try ChildProcess(
                Binary.resv.path, ["sync"], environment: site.environment, stdin: .null, stdout: .null, stderr: .null)
            // The moment: the n-th item marked sent (its request about to go), or n answered.
            let target = Int.random(in: 0..<8)
            let answered = Bool.random()
            try await waitUntil("the moment to kill the sync, or its end", every: .zero) {
                let items = site.items()
                let gone = 8 - items.count
                return process.hasExited
                    || (answered
                        ? gone >= target
                        : items.count > 0 && gone == target && (items.first?["sent"] as? Bool ?? false))
            }
            process.signal(SIGKILL)
            if process.wait().wasSignalled { killedMidway += 1 }
            try await Self.checkNothingLost(ids, at: site)
            let again = try site.resv("sync")
            #expect(again.status == 0, "\(again.stderr)")
            #expect(site.items().isEmpty)
            #expect(Set(try await site.stored()) == Set(ids))
            try await Self.checkNothingLost(ids, at: site)
        }
        #expect(killedMidway > 0, "no sync was killed before it ended")
    }

    /// The sync is stopped (SIGSTOP) once it has sent part of the outbox; the server is killed
    /// while it is stopped, under way with items left, then it goes on (SIGCONT): the kill
    /// happened mid-sync, seen, not assumed. A sync that ends first is tried again on a new site.
    @Test func theServerKilledDuringASyncLosesNothingAndTheNextSyncFinishes() async throws {
        var caught: (site: Site, ids: [String], sync: ChildProcess, left: Int)?
        for _ in 1...5 where caught == nil {
            let site = try Site()
            let ids = try Self.queued(8, at: site)
            let sync = try ChildProcess(
                Binary.resv.path, ["sync"], environment: site.environment, stdin: .null, stdout: .null, stderr: .null)
            while !sync.hasExited, site.items().count >= 8 {}
            sync.signal(SIGSTOP)
            let left = site.items().count
            if !sync.hasExited, (2..<8).contains(left) {
                caught = (site, ids, sync, left)
            } else {
                sync.signal(SIGCONT)
                _ = sync.wait()
            }
        }
        let (site, ids, sync, left) = try #require(caught, "no sync was stopped with part of its outbox sent")
        site.kill()
        sync.signal(SIGCONT)
        let ended = sync.wait()
        // The server went away under it: 69, and what it could not send is kept.
        #expect(ended == .exited(69), "\(ended)")
        #expect((1...left).contains(site.items().count), "the items not answered are kept")
        try site.start()
        try await Self.checkNothingLost(ids, at: site)
        let again = try site.resv("sync")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(site.items().isEmpty)
        #expect(Set(try await site.stored()) == Set(ids))
    }

    @Test func twoSyncsAtOnceSendEachOnce() async throws {
        let site = try Site()
        let ids = try Self.queued(10, at: site)
        let first = try ChildProcess(
            Binary.resv.path, ["sync"], environment: site.environment, stdin: .null, stdout: .null, stderr: .null)
        let second = try ChildProcess(
            Binary.resv.path, ["sync"], environment: site.environment, stdin: .null, stdout: .null, stderr: .null)
        #expect(first.wait() == .exited(0))
        #expect(second.wait() == .exited(0))
        #expect(site.items().isEmpty)
        let stored = try await site.stored()
        #expect(stored.count == ids.count && Set(stored) == Set(ids))
    }
}
