import Foundation
import ResvTestKit
import Testing

/// `resv watch` and `resv wait` as scripts use them, through the built
/// binaries (docs/contracts.md, "Watching changes"): a watcher that sees every change
/// of another process once and in order while its server is killed and
/// started again, on SQLite and across three instances on PostgreSQL; a
/// watch of a store file; a wait for a promotion.
@Suite("Watch and wait, end to end", .ownThreads, .timeLimit(.minutes(30)))
struct WatchEndToEndTests {
    /// The lines of a watch's NDJSON output: each change's kind, reservation and cursor.
    static func changes(_ text: String) throws -> [(change: String, id: String, cursor: String)] {
        try text.split(separator: "\n").map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return (
                object["change"] as? String ?? "", object["reservationId"] as? String ?? "",
                object["cursor"] as? String ?? ""
            )
        }
    }

    /// The change number in a server's cursor (`s<number>.<signature>`).
    static func number(_ cursor: String) -> Int? { Int(cursor.dropFirst().prefix { $0 != "." }) }

    /// The shell functions of a scenario: servers on fixed ports, killed and started again.
    static func serverFunctions(database: String) -> String {
        """
        db='\(database)'
        start_server() {  # PORT
          resv-server serve --database "$db" --port "$1" --log-level error 2>>"server-$1.log" &
          echo $! > "server-$1.pid"
          for _ in $(seq 600); do curl -fs "http://127.0.0.1:$1/health" >/dev/null && return 0; sleep 0.05; done
          echo "server on $1 did not start" >&2; cat "server-$1.log" >&2; return 1
        }
        kill_server() {  # PORT
          kill -9 "$(cat "server-$1.pid")"; wait "$(cat "server-$1.pid")" 2>/dev/null; true
        }
        """
    }

    /// 1,000 bookings by a writer (100 batches of 10, each with its idempotency key, tried
    /// until it lands) while the watcher's server (and the writer's) are killed with -9 and
    /// started again ten times: the watcher prints each booking once, in order, and ends with 130 on Ctrl-C.
    func watcherSeesEveryChangeOnceThroughKills(database: String, instances: Int) throws {
        let sandbox = try Sandbox()
        let token = try ServerProcess.createToken("watch-\(UUID().uuidString.prefix(6))", database: database)
        let ports = try Loopback.freePorts(instances)
        let watched = ports[0]
        let written = ports[instances - 1]
        // Ten lines a batch, a day each, far in the future (PostgreSQL is shared between tests).
        let base = 40_000_000_000 + Double(Int.random(in: 0..<10_000)) * 86_400 * 200
        let lines = (0..<10).map { day in
            let date = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: base + Double(day) * 86_400))
            return #"{"landmarkId": "937fea60-bb7b-4ee8-85da-c79962987917", "date": "\#(date)", "partySize": 1}"#
        }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(
            to: sandbox.directory.appendingPathComponent("batch.ndjson"))
        let run = try sandbox.shell(
            """
            cd '\(sandbox.directory.path)'
            \(Self.serverFunctions(database: database))
            for port in \(ports.map(String.init).joined(separator: " ")); do start_server "$port" || exit 1; done
            export RESV_TOKEN='\(token)' RESV_REQUEST_TIMEOUT=30; unset RESV_STORE
            start=$(curl -fs -H "Authorization: Bearer $RESV_TOKEN" "http://127.0.0.1:\(watched)/changes" | jq -r .cursor)
            RESV_SERVER=http://127.0.0.1:\(watched) resv watch --after "$start" --json > watch.out 2> watch.err &
            watcher=$!
            for round in $(seq 10); do
              for batch in $(seq 10); do
                # Tried again only while the server is away (69) or busy (75).
                while true; do
                  RESV_SERVER=http://127.0.0.1:\(written) resv reserve --batch batch.ndjson \
                    --idempotency-key "k-$round-$batch" > /dev/null 2>> writer.err
                  rc=$?; [ $rc = 0 ] && break
                  [ $rc = 69 ] || [ $rc = 75 ] || { echo "writer exit $rc" >&2; exit 1; }
                  sleep 0.1
                done
              done
              kill_server \(watched); start_server \(watched) || exit 1
              if [ \(written) != \(watched) ] && [ $((round % 2)) = 0 ]; then
                kill_server \(written); start_server \(written) || exit 1
              fi
            done
            for _ in $(seq 1200); do [ "$(wc -l < watch.out)" -ge 1000 ] && break; sleep 0.05; done
            kill -INT $watcher; wait $watcher; echo "watcher $?"
            for port in \(ports.map(String.init).joined(separator: " ")); do kill "$(cat "server-$port.pid")"; done
            RESV_SERVER=http://127.0.0.1:\(written) resv list --json > list.json 2>/dev/null || true
            """)
        #expect(run.stdout.hasSuffix("watcher 130\n"), "Ctrl-C ends a watch with 130: \(run.stdout) \(run.stderr)")
        let output = try YearsAhead.read(sandbox.directory.appendingPathComponent("watch.out"))
        let errors = try YearsAhead.read(sandbox.directory.appendingPathComponent("watch.err"))
        #expect(
            errors == #"{"error":{"code":"interrupted","exitCode":130,"message":"interrupted"}}"# + "\n",
            "resumed without a word, then Ctrl-C: \(errors.prefix(500))")
        let seen = try Self.changes(output)
        #expect(seen.count == 1_000, "every change once: \(seen.count)")
        #expect(Set(seen.map(\.id)).count == 1_000, "no change twice")
        #expect(seen.allSatisfy { $0.change == "created" })
        let numbers = seen.compactMap { Self.number($0.cursor) }
        #expect(numbers.count == seen.count && zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 }, "in order")
    }

    @Test func aWatcherOnSQLiteSeesEachOfAThousandChangesOnceWhileTheServerIsKilledTenTimes() throws {
        let sandbox = try Sandbox()
        try watcherSeesEveryChangeOnceThroughKills(
            database: sandbox.directory.appendingPathComponent("server.sqlite").path, instances: 1)
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["RESV_TEST_POSTGRES_URL"] != nil))
    func aWatcherOnOneOfThreeInstancesSeesTheChangesWrittenThroughAnother() throws {
        try watcherSeesEveryChangeOnceThroughKills(
            database: try #require(ProcessInfo.processInfo.environment["RESV_TEST_POSTGRES_URL"]), instances: 3)
    }

    /// Another process's changes to a store file reach a watch of it, in order, each once.
    @Test func aWatchOfAStoreFileSeesAnotherProcesssChanges() throws {
        let sandbox = try Sandbox()
        let run = try sandbox.shell(
            """
            cd '\(sandbox.directory.path)'
            resv reserve -l 'Half Dome' -d 2031-03-01T10:00:00Z -n 1 > /dev/null
            start=$(resv watch --after f0 --no-follow --json | tail -1 | jq -r .cursor)
            resv watch --after "$start" --json > watch.out 2> watch.err &
            watcher=$!
            for i in $(seq 20); do
              id=$(resv reserve -l 'Half Dome' -d 2031-03-02T10:00:00Z -n 1 --json | jq -r .id)
              resv cancel "$id" > /dev/null
            done
            for _ in $(seq 600); do [ "$(wc -l < watch.out)" -ge 40 ] && break; sleep 0.05; done
            kill -INT $watcher; wait $watcher; echo "watcher $?"
            echo "start $start"
            """)
        #expect(run.stdout.contains("watcher 130"), "\(run.stdout) \(run.stderr)")
        #expect(run.stdout.contains("start f1"), "the one change before: \(run.stdout)")
        let seen = try Self.changes(try YearsAhead.read(sandbox.directory.appendingPathComponent("watch.out")))
        #expect(seen.map(\.change) == Array(repeating: ["created", "cancelled"], count: 20).flatMap { $0 })
        #expect(seen.map(\.cursor) == (2...41).map { "f\($0)" }, "numbered in order, from just after the start")
        for pair in stride(from: 0, to: seen.count - 1, by: 2) { #expect(seen[pair].id == seen[pair + 1].id) }
    }

    /// `resv reserve --waitlist … && resv wait ID --for confirmed`: the promotion another
    /// process's cancel makes ends the wait with 0; a status that does not come, with 1.
    @Test(arguments: ["file", "sqlite"])
    func aWaitForConfirmedEndsWithThePromotion(backend: String) throws {
        let sandbox = try Sandbox()
        let (setup, server) = try sandbox.shellSetup(backend: backend, user: "wait")
        defer { server?.stop() }
        let visit = visitAhead()
        let run = try sandbox.shell(
            setup + """
                full=$(resv reserve -l 'Mount Rainier' -d \(visit) -n 120 --json | jq -r .id)
                waiting=$(resv reserve -l 'Mount Rainier' -d \(visit) -n 2 --waitlist --json 2>/dev/null \
                  | jq -r .id)
                resv wait "$waiting" --for confirmed --timeout 600 --json > wait.out 2> wait.err &
                waiter=$!
                resv cancel "$full" > /dev/null
                wait $waiter; echo "wait $?"
                jq -r .status wait.out
                resv wait "$waiting" --for cancelled --timeout 0.5; echo "timeout $?"
                resv wait "$waiting" --for bogus; echo "bogus $?"
                resv wait "$waiting" --for confirmed --timeout -1; echo "negative $?"
                """)
        #expect(run.stdout.contains("wait 0\nconfirmed\n"), "\(run.stdout) \(run.stderr)")
        #expect(run.stdout.contains("timeout 1\n"))
        #expect(run.stdout.contains("bogus 64\n") && run.stdout.contains("negative 64\n"))
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.contains { $0.contains("is still confirmed, not cancelled, after 0.5 s") }, "\(run.stderr)")
        #expect(lines.contains { $0.contains("'bogus' is not a status: use pending, confirmed, cancelled") })
    }

    /// Bad cursors and timeouts: exit 64 with one line; a cursor past the store's history: 1, `cursorExpired`.
    @Test func badCursorsAndTimeoutsAreOneLineAndExit64() throws {
        let sandbox = try Sandbox()
        try sandbox.resv("reserve", "-l", "Half Dome", "-d", "2031-03-01T10:00:00Z", "-n", "1")
        let cases: [[String]] = [
            ["watch", "--after", "garbage!", "--no-follow"],
            ["watch", "--after", String(repeating: "f", count: 100_000)],
            ["watch", "--after", "s1.0123456789abcdef", "--no-follow"], ["watch", "--after", "f-1", "--no-follow"],
            ["watch", "--timeout", "nan"], ["watch", "--timeout", "1e300"], ["watch", "--timeout=-1"],
            ["watch", "--timeout", "0"], ["watch", "--format", "csv"],
            ["wait", "ffff", "--for", "done"], ["wait", "ffff", "--for", "confirmed", "--timeout", "inf"],
        ]
        for arguments in cases {
            let run = try sandbox.resv(arguments)
            #expect(run.status == 64, "\(arguments.map { $0.prefix(30) }): \(run.status) \(run.stderr.prefix(300))")
            #expect(run.stderrLines.count == 1 && run.stdout.isEmpty, "\(run.stderr.prefix(300))")
            #expect(run.stderr.utf8.count < 1_000, "a huge cursor is not echoed whole")
        }
        let past = try sandbox.resv("watch", "--after", "f99", "--no-follow")
        #expect(past.status == 1 && past.stderr.contains("re-read with resv list"), "\(past.stderr)")
        let all = try sandbox.resv("watch", "--after", "f0", "--no-follow", "--json")
        #expect(all.status == 0 && all.stdout.split(separator: "\n").count == 1, "\(all.stdout) \(all.stderr)")
        // Without --after nothing can come (issue 60): said, with the cursor to start from later.
        let now = try sandbox.resv("watch", "--no-follow")
        #expect(now.status == 0 && now.stdout.isEmpty, "\(now.stdout)")
        #expect(
            now.stderr.hasPrefix(
                "resv: --no-follow without --after prints the changes after now, and there are none yet; "
                    + "to see them later: resv watch --after f1 --no-follow"), "\(now.stderr)")
    }
}
