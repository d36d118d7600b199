import Foundation
import ResvTestKit
import Testing

@Suite("resv repl, in a pseudo-terminal and from a pipe", .ownThreads, .timeLimit(.minutes(30)))
struct ReplTests {
    let tab = "\t"
    let ctrlC = "\u{03}"
    let ctrlD = "\u{04}"
    let ctrlU = "\u{15}"
    let up = "\u{1B}[A"

    func startRepl(_ sandbox: Sandbox, environment extra: [String: String] = [:]) throws -> PseudoTerminal {
        var environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": sandbox.directory.path, "TZ": "UTC", "TERM": "xterm", "COLUMNS": "120", "LINES": "40",
            "RESV_STORE": sandbox.store.path, "XDG_STATE_HOME": sandbox.directory.appendingPathComponent("state").path,
            "NO_COLOR": "1",
        ]
        environment.merge(extra) { _, new in new }
        let terminal = try PseudoTerminal(Binary.resv.path, ["repl"], environment: environment)
        try terminal.expect("resv> ")
        return terminal
    }

    @Test func aResizeKeepsTheHalfTypedLineAndOnlyCtrlCClearsIt() throws {
        let sandbox = try Sandbox()
        let terminal = try startRepl(sandbox)
        terminal.send("landmarks --format nd")
        try terminal.expect("--format nd")
        for columns in [100, 80, 120] {
            try terminal.resize(columns: columns)
            // readline redraws the prompt and the line at once; wait for that redraw, so
            // that it cannot be taken for a later prompt.
            try terminal.expect("resv> landmarks --format nd")
        }
        terminal.send("json\r")
        try terminal.expect(#""name":"Half Dome""#)
        try terminal.expect("resv> ")

        // Ctrl-C right after typing, many times: each clears its line, none runs.
        for _ in 0..<20 {
            terminal.send("show ffff")
            terminal.send(ctrlC)
            try terminal.expect("resv> ")
        }
        terminal.send("\r")
        try terminal.expect("resv> ")
        #expect(!terminal.transcript.contains("no reservation matches"), "a cleared line must not run")
        terminal.send(ctrlD)
        #expect(terminal.waitForExit() == 0)
    }

    /// A watch typed at the prompt follows the store (another process's booking shows),
    /// and Ctrl-C ends it back at the prompt, the REPL still running.
    @Test func aWatchInTheReplShowsAnotherProcesssChangeAndCtrlCReturnsToThePrompt() throws {
        let sandbox = try Sandbox()
        try sandbox.resv("reserve", "-l", "Half Dome", "-d", "2030-06-01T09:00:00Z", "-n", "1")
        let terminal = try startRepl(sandbox)
        terminal.send("watch --after f1\r")
        try terminal.expect("watch --after f1")
        let other = try sandbox.resv("reserve", "-l", "Crater Lake", "-d", "2030-06-02T09:00:00Z", "-n", "2", "--json")
        let id = try #require(
            (try JSONSerialization.jsonObject(with: Data(other.stdout.utf8)) as? [String: Any])?["id"] as? String)
        try terminal.expect("\(id.prefix(8))  created  Crater Lake")
        terminal.send(ctrlC)
        try terminal.expect("resv> ")
        terminal.send("show \(id.prefix(8))\r")
        try terminal.expect("Crater Lake (")
        try terminal.expect("resv> ")
        terminal.send(ctrlD)
        #expect(terminal.waitForExit() == 0)
    }

    @Test func aSessionWithCompletionErrorsCtrlCAndHistoryAcrossRuns() throws {
        let sandbox = try Sandbox()
        let terminal = try startRepl(sandbox)

        // `lis` + Tab completes to `list`.
        terminal.send("lis" + tab)
        try terminal.expect("list ")
        terminal.send(ctrlU)

        // A landmark name completes inside quotes, and the reserve runs.
        terminal.send("reserve --landmark \"Turtle R" + tab)
        try terminal.expect("\"Turtle Rock\" ")
        terminal.send("--date 2030-04-01T09:00:00Z --party-size 3\r")
        try terminal.expect("Turtle Rock (Joshua Tree National Park, CA)")
        try terminal.expect("resv> ")

        // Ctrl-C on a half-typed line clears it and keeps the REPL.
        terminal.send("cancel abc")
        terminal.send(ctrlC)
        try terminal.expect("resv> ")
        terminal.send("\r")
        try terminal.expect("resv> ")
        #expect(!terminal.transcript.contains("is not a reservation id"), "the cleared line must not run")

        // Another process books meanwhile: the REPL's one backend still sees it, in a list and in Tab.
        let other = try sandbox.resv("reserve", "-l", "Crater Lake", "-d", "2030-05-01T09:00:00Z", "-n", "2", "--json")
        let otherID = try #require(
            (try JSONSerialization.jsonObject(with: Data(other.stdout.utf8)) as? [String: Any])?["id"] as? String)
        terminal.send("\r")
        try terminal.expect("resv> ")
        terminal.send("show \(otherID.prefix(6))" + tab)
        try terminal.expect(String(otherID.prefix(8)) + " ")
        terminal.send(ctrlU)

        // A list shows both; then a failing line prints one message and the prompt returns.
        terminal.send("list\r")
        try terminal.expect("LANDMARK")  // Past Ctrl-U's redrawn prompt.
        let listed = try terminal.expect("resv> ")
        #expect(listed.contains("Turtle Rock"))
        #expect(listed.contains("Crater Lake"))
        terminal.send("show ffff\r")
        let failure = try terminal.expect("resv> ")
        #expect(failure.contains("resv: no reservation matches 'ffff'"))

        terminal.send(ctrlD)
        #expect(terminal.waitForExit() == 0)

        let history = sandbox.directory.appendingPathComponent("state/resv/history")
        let attributes = try FileManager.default.attributesOfItem(atPath: history.path)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        let lines = try YearsAhead.read(history).split(separator: "\n")
        #expect(lines.last == "show ffff")
        #expect(!lines.contains("cancel abc"), "an interrupted line is not history")

        // A new run: Up recalls the failing line.
        let again = try startRepl(sandbox)
        again.send(up)
        try again.expect("show ffff")
        again.send("\r")
        try again.expect("no reservation matches 'ffff'")
        again.send("exit\r")
        #expect(again.waitForExit() == 0)
    }

    @Test func completesIdsAndStatusesFromTheStore() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Fixture.store)
        let terminal = try startRepl(sandbox)
        // Only a pending one can be confirmed: abcd1 is the confirmed one, 5eed the cancelled one.
        terminal.send("confirm abcd" + tab)
        try terminal.expect("confirm abcd2222 ")
        terminal.send(ctrlU + "show 5e" + tab)
        try terminal.expect("show 5eed3333 ")
        terminal.send(ctrlU + "list --status canc" + tab)
        try terminal.expect("cancelled ")
        terminal.send("--json\r")
        try terminal.expect(Fixture.third)
        try terminal.expect("resv> ")
        terminal.send("quit\r")
        #expect(terminal.waitForExit() == 0)
    }

    @Test func anUnbalancedQuoteIsAMessageNotACrash() throws {
        let sandbox = try Sandbox()
        let terminal = try startRepl(sandbox)
        terminal.send("reserve --landmark \"Half Dome -n 2\r")
        let output = try terminal.expect("resv> ")
        #expect(output.contains("unbalanced \" in the line"))
        terminal.send("help reserve\r")
        try terminal.expect("USAGE: resv reserve")
        // Wait for the prompt: a Ctrl-D typed ahead while no one reads the terminal is the tty's, not readline's.
        try terminal.expect("resv> ")
        terminal.send(ctrlD)
        #expect(terminal.waitForExit() == 0)
    }

    // MARK: Without a terminal

    @Test func scriptFromAPipeRunsEveryLine() throws {
        let sandbox = try Sandbox()
        let script = """
            # a comment, then a blank line

            reserve -l "Lake Tahoe" -d 2030-01-01T10:00:00Z -n 2 --format ndjson
            show ffff
            list --json
            """
        let run = try sandbox.resv(["repl"], stdin: script)
        #expect(run.status == 1, "show ffff failed, so the run fails with its status")
        #expect(!run.stdout.contains("resv>"), "no prompt without a terminal")
        #expect(run.stderrLines == ["resv: line 4: no reservation matches 'ffff' (see 'resv list --all')"])
        let lines = run.stdout.split(separator: "\n", maxSplits: 1)
        #expect(lines.first?.contains("Lake Tahoe") == true)
        let list = try JSONSerialization.jsonObject(with: Data(lines.last.map { Data($0.utf8) } ?? Data())) as? [Any]
        #expect(list?.count == 1, "the list after the failing line still ran")
        #expect(
            !FileManager.default.fileExists(
                atPath: sandbox.directory.appendingPathComponent(".local/state/resv/history").path))
    }

    @Test func stopOnErrorStopsAtTheFirstFailure() throws {
        let sandbox = try Sandbox()
        let script = """
            reserve -l nowhere -d 2030-01-01T10:00:00Z -n 2
            reserve -l "Lake Tahoe" -d 2030-01-01T10:00:00Z -n 2
            """
        let stopped = try sandbox.resv(["repl", "--stop-on-error"], stdin: script)
        #expect(stopped.status == 64)
        #expect(stopped.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: sandbox.store.path), "the second line never ran")

        let goesOn = try sandbox.resv(["repl"], stdin: script)
        #expect(goesOn.status == 64)
        #expect(goesOn.stdout.contains("Lake Tahoe"))
    }

    @Test func aCleanScriptExitsZeroAndExitStopsIt() throws {
        let sandbox = try Sandbox()
        let run = try sandbox.resv(["repl"], stdin: "landmarks --json\nexit\nshow ffff\n")
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty)
        #expect(run.stdout.contains("Half Dome"))
    }

    @Test func aBatchInTheReplReadsAFileNeverTheReplsOwnInput() throws {
        let sandbox = try Sandbox()
        let batch = sandbox.directory.appendingPathComponent("batch.ndjson")
        try YearsAhead.write(
            #"{"landmarkId": "Turtle Rock", "date": "2030-01-01T10:00:00Z", "partySize": 2}"#, to: batch)
        let script = """
            reserve --batch -
            reserve -l "Lake Tahoe" -d 2030-01-01T10:00:00Z -n 2 --format ndjson
            reserve --batch '\(batch.path)' --format ndjson
            """
        let run = try sandbox.resv(["repl"], stdin: script)
        #expect(run.status == 64)
        #expect(run.stderrLines == ["resv: line 1: cannot read -: in the REPL, give --batch a file"])
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 2, "the lines after the refused one ran: \(run.stdout)")
        #expect(lines.last?.contains("Turtle Rock") == true)
    }
}
