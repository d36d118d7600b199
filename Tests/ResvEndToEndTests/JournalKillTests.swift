import Foundation
import ResvTestKit
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The journal's promise under `kill -9`: reserve, modify, cancel, confirm, undo and
/// batch killed at random moments, and after each the store parses, every change a
/// command acknowledged is there, each reservation's `version` is its number of
/// journal entries, and `log` shows no line of a change that did not land.
@Suite("Journal under kill -9", .ownThreads, .timeLimit(.minutes(30)))
struct JournalKillTests {
    /// The store and the changes of the journal that landed (numbered up to the store's `lastChange`).
    struct State {
        var reservations: [[String: Any]]
        var committed: [[String: Any]]

        init(_ sandbox: Sandbox) throws {
            let store = try sandbox.storeJSON()
            reservations = try #require(store["reservations"] as? [[String: Any]])
            let last = store["lastChange"] as? Int ?? 0
            let path = sandbox.store.path + ".history"
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            committed = text.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }.filter { ($0["seq"] as? Int ?? .max) <= last }
        }

        func ids(_ status: String) -> [String] {
            reservations.filter { $0["status"] as? String == status }.compactMap { $0["id"] as? String }
        }
    }

    static let date = "2030-01-01T10:00:00Z"

    /// A command of the loop, on what the store holds now.
    static func command(_ state: State) -> [String] {
        let active = state.ids("pending") + state.ids("confirmed")
        // Nothing active (every booking cancelled or undone): book again.
        guard let someActive = active.randomElement() else {
            return ["reserve", "-l", "Lake Tahoe", "-d", date, "-n", "1", "--pending", "--json"]
        }
        switch Int.random(in: 0..<6) {
        case 0: return ["reserve", "-l", "Lake Tahoe", "-d", date, "-n", "1", "--pending", "--json"]
        case 1: return ["modify", someActive, "--party-size", String(Int.random(in: 1...9)), "--json"]
        case 2: return ["cancel", someActive, "--json"]
        case 3: return ["confirm", state.ids("pending").randomElement() ?? someActive, "--json"]
        case 4: return ["undo", "--json"]
        default: return ["reserve", "--batch", "-", "--json"]
        }
    }

    /// When a kill lands: each a step of a change, seen from outside as it happens (never
    /// a time waited), then a random number of yields more, so kills spread within the step.
    enum Moment: CaseIterable {
        case atOnce, lockTaken, journalGrown, temporaryMade, storeReplaced
    }

    /// Returns at `moment` of the child's change, or when it has ended (a refused
    /// command takes no lock, writes no journal).
    static func wait(for moment: Moment, of process: ChildProcess, in sandbox: Sandbox) {
        let store = sandbox.store.path
        func size(_ path: String) -> Int {
            var info = stat()
            return stat(path, &info) == 0 ? Int(info.st_size) : -1
        }
        func inode(_ path: String) -> UInt {
            var info = stat()
            return stat(path, &info) == 0 ? UInt(info.st_ino) : 0
        }
        let journalSize = size(store + ".history")
        let storeInode = inode(store)
        let lock = open(store + ".lock", O_RDWR | O_CLOEXEC)
        defer { if lock >= 0 { close(lock) } }
        func reached() -> Bool {
            switch moment {
            case .atOnce: return true
            case .lockTaken:
                // Held by the child when this process cannot take it; taken by it, given straight back.
                guard lock >= 0, flock(lock, LOCK_EX | LOCK_NB) == 0 else { return true }
                flock(lock, LOCK_UN)
                return false
            case .journalGrown: return size(store + ".history") != journalSize
            case .temporaryMade:
                let names = (try? FileManager.default.contentsOfDirectory(atPath: sandbox.directory.path)) ?? []
                return names.contains { $0.hasPrefix(".reservations.json.resv-tmp.") }
            case .storeReplaced: return inode(store) != storeInode
            }
        }
        while !reached() && !process.hasExited { sched_yield() }
        for _ in 0..<Int.random(in: 0...2_000) { sched_yield() }
    }

    static let batch = (0..<3).map { _ in #"{"landmarkId": "Lake Tahoe", "date": "\#(date)", "partySize": 2}"# }
        .joined(separator: "\n")

    @Test func killedChangesOfEveryKindKeepTheJournalAndTheStoreInStep() throws {
        let sandbox = try Sandbox()
        let seed = (0..<200).map { index in
            let status = index % 2 == 0 ? "pending" : "confirmed"
            return #"{"landmarkId": "Lake Tahoe", "date": "\#(Self.date)", "partySize": 1, "status": "\#(status)"}"#
        }.joined(separator: "\n")
        #expect(try sandbox.resv(["reserve", "--batch", "-"], stdin: seed).status == 0)
        try TemporaryDirectory.with("kill") { folder in
            let outputs = folder.url
            var acknowledged: [String: Int] = [:]  // id → the version a command printed
            var killed = 0
            // RESV_KILL_ROUNDS for a longer run (dfe60be reports 1,000 rounds passing).
            let rounds = ProcessInfo.processInfo.environment["RESV_KILL_ROUNDS"].flatMap { Int($0) } ?? 60
            for round in 0..<rounds {
                let arguments = Self.command(try State(sandbox))
                // Its output goes to a file, not a pipe: a pipe nobody reads while the moment is waited
                // for would stop a child printing more than a pipe holds (an undo of a whole batch,
                // 190 KB), and a moment it passed unseen would then never come (a CI run hung so).
                let outputPath = outputs.appendingPathComponent("round-\(round)").path
                let outputFile = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
                #expect(outputFile >= 0, "cannot make \(outputPath)")
                let process = try ChildProcess(
                    Binary.resv.path, arguments.map(YearsAhead.forward),
                    environment: ["RESV_STORE": sandbox.store.path, "HOME": sandbox.directory.path, "TZ": "UTC"],
                    stdin: .pipe, stdout: .descriptor(outputFile), stderr: .null)
                close(outputFile)
                if arguments.contains("--batch") { try process.write(Data(YearsAhead.forward(Self.batch).utf8)) }
                process.closeStdin()
                Self.wait(for: Moment.allCases.randomElement()!, of: process, in: sandbox)
                process.signal(SIGKILL)
                let ended = process.wait()
                let output = (try? Data(contentsOf: URL(fileURLWithPath: outputPath))) ?? Data()
                if ended.wasSignalled { killed += 1 }
                if ended == .exited(0) {
                    // Acknowledged: what it printed is in the store, at that version or later.
                    let json = try JSONSerialization.jsonObject(with: output)
                    var records = (json as? [[String: Any]]) ?? [json as? [String: Any] ?? [:]]
                    if let object = json as? [String: Any], let changes = object["changes"] as? [[String: Any]] {
                        records = changes.compactMap { $0["after"] as? [String: Any] }
                    }
                    records = records.map { $0["reservation"] as? [String: Any] ?? $0 }
                    for record in records {
                        if let id = record["id"] as? String, let version = record["version"] as? Int {
                            acknowledged[id] = max(acknowledged[id] ?? 0, version)
                        }
                    }
                }
                let state = try State(sandbox)
                var entries: [String: Int] = [:]
                for change in state.committed {
                    if let id = change["reservationId"] as? String { entries[id, default: 0] += 1 }
                }
                for record in state.reservations {
                    let id = record["id"] as? String ?? ""
                    #expect(record["version"] as? Int == entries[id], "round \(round), \(arguments): \(id)")
                    #expect((record["version"] as? Int ?? 0) >= (acknowledged[id] ?? 0), "round \(round): \(id) lost")
                }
                #expect(Set(acknowledged.keys).isSubset(of: Set(state.reservations.compactMap { $0["id"] as? String })))
                #expect(entries.keys.count == state.reservations.count, "round \(round): an entry of no reservation")
            }
            #expect(killed > rounds / 8, "too few runs were killed before they ended (\(killed) of \(rounds))")

            // `log` shows exactly the changes that landed, and the next write leaves the journal whole.
            let log = try sandbox.resv("log", "--json")
            #expect(log.status == 0, "\(log.stderr)")
            let shown = try #require(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [Any])
            #expect(shown.count == (try State(sandbox)).committed.count)
            #expect(try sandbox.resv("reserve", "-l", "Lake Tahoe", "-d", Self.date, "-n", "1").status == 0)
            let last = try State(sandbox)
            let lines = try String(contentsOfFile: sandbox.store.path + ".history", encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.last == "")
            #expect(lines.count - 1 == last.committed.count, "no line past the store's last change")
            #expect(last.committed.map { $0["seq"] as? Int ?? 0 } == Array(1...last.committed.count))
        }
    }
}
