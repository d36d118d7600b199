import Foundation
import ResvTestKit
import Testing

/// What a person at a terminal sees: tables cut to its width, never wrapped, and a
/// pager for an answer taller than the screen; a pipe gets neither.
@Suite("Tables that fit and the pager, in a pseudo-terminal", .ownThreads, .timeLimit(.minutes(30)))
struct TerminalOutputTests {
    /// A store of `count` reservations at Golden Gate Bridge (the longest name of the catalog but one).
    func sandbox(reservations count: Int) throws -> Sandbox {
        let sandbox = try Sandbox()
        let lines = (0..<count).map { index in
            #"{"landmarkId": "7c6984ff-188e-417e-b476-ec5f30b8d745", "date": "2030-\#(String(format: "%02d", index % 12 + 1))-\#(String(format: "%02d", index % 28 + 1))T10:00:00Z", "partySize": 1, "note": "note \#(index)"}"#
        }
        let booked = try sandbox.resv(["reserve", "--batch", "-"], stdin: lines.joined(separator: "\n") + "\n")
        #expect(booked.status == 0, "\(booked.stderr)")
        return sandbox
    }

    /// Runs resv in a terminal of `columns` × `rows` and returns all it showed, once it has ended.
    func run(
        _ arguments: [String], in sandbox: Sandbox, columns: Int = 60, rows: Int = 40,
        environment extra: [String: String] = [:]
    ) throws -> (output: String, status: Int32?) {
        var environment = [
            "PATH": "/usr/bin:/bin", "HOME": sandbox.directory.path, "TZ": "UTC", "TERM": "xterm", "NO_COLOR": "1",
            "RESV_STORE": sandbox.store.path,
        ]
        environment.merge(extra) { _, new in new }
        // The terminal's size is set before resv starts: a wrapper waits for a line first.
        let terminal = try PseudoTerminal(
            "/bin/sh", ["-c", #"read go; exec "$0" "$@""#, Binary.resv.path] + arguments, environment: environment)
        try terminal.resize(columns: columns, rows: rows)
        terminal.send("go\r")
        try terminal.expect("go\r\n")
        let status = terminal.waitForExit()
        return (terminal.drain(), status)
    }

    /// A pager that marks each line it shows, so a test sees which lines went through it.
    let markingPager = "sed s/^/paged:/"

    @Test func aListAt60ColumnsIsCutNeverWrapped() throws {
        let sandbox = try sandbox(reservations: 3)
        for arguments in [["list"], ["log"], ["landmarks"], ["list", "--status", "confirmed", "--sort", "landmark"]] {
            let (output, status) = try run(arguments, in: sandbox)
            #expect(status == 0)
            let lines = output.components(separatedBy: "\r\n").filter { !$0.isEmpty }
            #expect(lines.count >= 4, "\(arguments): \(output)")
            for line in lines { #expect(line.terminalWidthForTests <= 60, "\(arguments): \(line)") }
            #expect(output.contains("…"), "\(arguments): something was cut")
        }
        let (list, _) = try run(["list"], in: sandbox)
        #expect(list.contains("STATUS"), "the last column's header whole")
        #expect(list.contains("confirmed"))
        #expect(list.contains("2030-01-01 02:00 PST"), "dates whole")
        // The same command in a pipe: every name whole.
        let piped = try sandbox.resv("list")
        #expect(piped.stdout.contains("Golden Gate Bridge"))
        #expect(!piped.stdout.contains("…"))
    }

    @Test func anAnswerTallerThanTheScreenGoesThroughThePager() throws {
        let sandbox = try sandbox(reservations: 40)
        let tall = try run(["list"], in: sandbox, rows: 20, environment: ["RESV_PAGER": markingPager])
        #expect(tall.status == 0)
        let lines = tall.output.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(lines.count == 41, "\(tall.output)")
        #expect(lines.allSatisfy { $0.hasPrefix("paged:") }, "every line, the first screen too")

        let short = try run(["list", "--limit", "5"], in: sandbox, rows: 20, environment: ["RESV_PAGER": markingPager])
        #expect(!short.output.contains("paged:"), "a short answer is written as it is")
        let availability = try run(
            ["availability", "golden gate", "--from", "2030-01-01", "--to", "2030-03-01"], in: sandbox, rows: 20,
            environment: ["RESV_PAGER": markingPager])
        #expect(availability.output.components(separatedBy: "\r\n").filter { $0.hasPrefix("paged:2030-") }.count == 60)
        #expect(short.output.contains("ID  "))

        for (arguments, environment) in [
            (["list", "--no-pager"], ["RESV_PAGER": markingPager]),
            (["--no-pager", "list"], ["RESV_PAGER": markingPager]),
            (["list"], ["RESV_PAGER": ""]),
            (["list"], ["RESV_PAGER": "cat"]),
            (["watch", "--no-follow"], ["RESV_PAGER": markingPager]),
        ] {
            let (output, status) = try run(arguments, in: sandbox, rows: 20, environment: environment)
            #expect(status == 0, "\(arguments) \(environment)")
            #expect(!output.contains("paged:"), "\(arguments) \(environment)")
        }
        let fromPAGER = try run(["log"], in: sandbox, rows: 20, environment: ["PAGER": markingPager])
        #expect(fromPAGER.output.contains("paged:"), "PAGER when RESV_PAGER is not set")
        let overridden = try run(
            ["log"], in: sandbox, rows: 20, environment: ["PAGER": "/nonexistent/pager", "RESV_PAGER": markingPager])
        #expect(overridden.output.contains("paged:"), "RESV_PAGER before PAGER")
        let withVariables = try run(
            ["log"], in: sandbox, rows: 20, environment: ["RESV_PAGER": "LESS=-S " + markingPager])
        #expect(withVariables.output.contains("paged:"), "a pager command is the shell's to read")

        // In a pipe, never.
        let piped = try sandbox.resv(["list"], environment: ["RESV_PAGER": markingPager])
        #expect(!piped.stdout.contains("paged:"))
        #expect(piped.stdout.split(separator: "\n").count == 41)
    }

    /// Colour takes bytes but no columns: 18 full-width coloured rows on a 20-row screen fit.
    @Test func colourDoesNotMakeAShortAnswerTall() throws {
        let sandbox = try sandbox(reservations: 17)
        let (output, status) = try run(
            ["list"], in: sandbox, columns: 60, rows: 20, environment: ["RESV_PAGER": markingPager, "NO_COLOR": ""])
        #expect(status == 0)
        #expect(output.contains("\u{1B}[32mconfirmed"), "coloured")
        #expect(!output.contains("paged:"), "\(output)")
        let rows = output.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(rows.count == 18)
    }

    @Test func aPagerThatIsNotInstalledIsSaidOnceAndTheAnswerStillShown() throws {
        let sandbox = try sandbox(reservations: 40)
        let (output, status) = try run(
            ["list"], in: sandbox, rows: 20, environment: ["RESV_PAGER": "no-such-pager --flag"])
        #expect(status == 0)
        #expect(output.contains("resv: warning: the pager 'no-such-pager' is not installed; not paging"))
        #expect(output.components(separatedBy: "\r\n").filter { $0.contains("Golden") }.count == 40)
        // A folder is not a program, though access(2) says it may be "executed".
        let folder = try run(["list"], in: sandbox, rows: 20, environment: ["RESV_PAGER": "/tmp"])
        #expect(folder.output.contains("resv: warning: the pager '/tmp' is not installed; not paging"))
        #expect(folder.output.components(separatedBy: "\r\n").filter { $0.contains("Golden") }.count == 40)
    }

    @Test func quittingThePagerEarlyEndsQuietly() throws {
        let sandbox = try sandbox(reservations: 40)
        // A pager that shows one line and quits: resv's later writes meet a closed pipe.
        let (output, status) = try run(["log"], in: sandbox, rows: 10, environment: ["RESV_PAGER": "head -n 1"])
        #expect(status == 0)
        #expect(!output.contains("resv:"), "\(output)")
        #expect(output.components(separatedBy: "\r\n").filter { !$0.isEmpty }.count == 1)
    }
}

extension TerminalOutputTests {
    @Test func theCalendarIsColouredOnATerminalAndMarkedWithoutColour() throws {
        let sandbox = try Sandbox()
        // Half Dome takes 300 a day: 2030-01-02 half taken, 01-03 nine tenths, 01-04 full.
        let lines = [("2030-01-02", 150), ("2030-01-03", 280), ("2030-01-04", 300)].map { day, party in
            #"{"landmarkId": "937f", "date": "\#(day)T18:00:00Z", "partySize": \#(party)}"#
        }
        let booked = try sandbox.resv(["reserve", "--batch", "-"], stdin: lines.joined(separator: "\n") + "\n")
        #expect(booked.status == 0, "\(booked.stderr)")
        let arguments = ["availability", "half dome", "--calendar", "--from", "2030-01-01", "--to", "2030-01-31"]

        let marked = try run(arguments, in: sandbox)
        #expect(marked.status == 0)
        #expect(marked.output.contains("January 2030\r\nMon   Tue   Wed   Thu   Fri   Sat   Sun\r\n"))
        #expect(marked.output.contains("  300   150+   20!    0x  300   300\r\n"))
        #expect(marked.output.contains("x full"))
        #expect(!marked.output.contains("\u{1B}["), "no colour under NO_COLOR")

        let coloured = try run(arguments, in: sandbox, environment: ["NO_COLOR": ""])
        #expect(coloured.output.contains("\u{1B}[33m150\u{1B}[0m"))
        #expect(coloured.output.contains("\u{1B}[1;31m  0\u{1B}[0m"))
        #expect(!coloured.output.contains("150+"))
        for line in coloured.output.components(separatedBy: "\r\n") {
            let visible = line.replacingOccurrences(of: #"\u{1B}\[[0-9;]*m"#, with: "", options: .regularExpression)
            #expect(visible.count <= 60, "\(visible)")
        }

        // In a pipe: the marks, no colour.
        let piped = try sandbox.resv(arguments)
        #expect(piped.stdout.contains("  300   150+   20!    0x  300   300\n"))
        let json = try sandbox.resv(arguments + ["--json"])
        #expect(json.status == 64)
        #expect(
            plainError(json.stderr)
                == "resv: --calendar draws a table: it cannot be --format json (see 'resv availability --help')\n")
    }
}

extension TerminalOutputTests {
    /// Ctrl-C while resv writes to a pager that has not read its fill (as less waits for a
    /// key): the key is the pager's too. resv stops, says nothing into the pager's screen,
    /// waits for it to quit, and ends with 130.
    @Test func ctrlCWhileAPagerHasTheScreen() throws {
        let sandbox = try sandbox(reservations: 3_000)
        let environment = [
            "PATH": "/usr/bin:/bin", "HOME": sandbox.directory.path, "TZ": "UTC", "TERM": "xterm",
            "NO_COLOR": "1", "RESV_STORE": sandbox.store.path,
            // Reads no input (resv's writes fill the pipe and wait), ignores Ctrl-C, quits on a line.
            "RESV_PAGER": #"sh -c 'trap "" INT; echo pager-ready; read key < /dev/tty; echo pager-quit'"#,
        ]
        let terminal = try PseudoTerminal(
            "/bin/sh", ["-c", #"read go; exec "$0" "$@""#, Binary.resv.path, "list", "--all"],
            environment: environment)
        try terminal.resize(columns: 80, rows: 20)
        terminal.send("go\r")
        try terminal.expect("pager-ready")
        terminal.send("\u{03}")
        terminal.send("q\r")
        try terminal.expect("pager-quit")
        #expect(terminal.waitForExit() == 130)
        #expect(!terminal.transcript.contains("interrupted"), "nothing written into the pager's screen")
    }
}

extension String {
    /// Terminal columns as the tests count them: two for the CJK and emoji the tests use.
    fileprivate var terminalWidthForTests: Int {
        reduce(0) { width, character in
            let value = character.unicodeScalars.first?.value ?? 0
            let wide = (0x1100...0x115F).contains(value) || (0x2E80...0x9FFF).contains(value) || value >= 0x1F300
            return width + (wide ? 2 : 1)
        }
    }
}
