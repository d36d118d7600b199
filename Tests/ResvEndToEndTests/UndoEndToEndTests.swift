import Foundation
import ResvTestKit
import Testing

/// `resv undo` and `resv log` as users meet them: a batch of 50 taken back in
/// one step on a file and on a real server, with the same words and exit codes.
@Suite("Undo and log, end to end", .ownThreads, .timeLimit(.minutes(30)))
struct UndoEndToEndTests {
    static let hallID = ModifyEndToEndTests.hallID
    static let catalog = ModifyEndToEndTests.catalog

    /// Issue 60: on a terminal `undo` shows the command it would take back and asks; anything but
    /// y changes nothing; `--yes` does not ask; without a terminal on stdin it never asks.
    @Test func undoOnATerminalShowsAndAsks() throws {
        let sandbox = try Sandbox()
        let made = try sandbox.resv("reserve", "-l", "half dome", "-d", "2030-12-01 09:00", "-n", "4", "--json")
        let id = String(try #require(made.stdout.firstMatch(of: /"id" : "([0-9a-f]{8})/)?.1))
        #expect(try sandbox.resv("modify", id, "-n", "6").status == 0)
        func party() throws -> Int? {
            let shown = try sandbox.resv("show", id, "--json")
            return (try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])?["partySize"]
                as? Int
        }
        func undo(_ arguments: [String], answer: String?) throws -> (transcript: String, status: Int32?) {
            let terminal = try PseudoTerminal(Binary.resv.path, ["undo"] + arguments, environment: sandbox.environment)
            if let answer {
                try terminal.expect("Undo it? [y/N] ")
                terminal.send(answer + "\n")
            }
            let status = terminal.waitForExit()
            return (terminal.transcript, status)
        }
        let declined = try undo([], answer: "n")
        #expect(declined.status == 0, "\(declined.transcript)")
        #expect(declined.transcript.contains(#/Command [0-9a-f]{8} made \d{4}-\d\d-\d\d \d\d:\d\d UTC, 1 change:/#))
        #expect(
            declined.transcript.contains("  \(id)  modified   party 4 → 6\r\nUndo it? [y/N] "), "\(declined.transcript)"
        )
        #expect(declined.transcript.contains("Nothing was undone."))
        #expect(try party() == 6)
        let accepted = try undo([], answer: "Y")
        #expect(accepted.status == 0, "\(accepted.transcript)")
        #expect(accepted.transcript.contains("Undid command"), "\(accepted.transcript)")
        #expect(try party() == 4)
        // --yes: no question; the booking is taken back (cancelled).
        let skipped = try undo(["--yes"], answer: nil)
        #expect(skipped.status == 0, "\(skipped.transcript)")
        #expect(!skipped.transcript.contains("Undo it?") && skipped.transcript.contains("Undid command"))
        // Nothing left: refused before any question, as the backend refuses it.
        let nothing = try undo([], answer: nil)
        #expect(nothing.status == 1, "\(nothing.transcript)")
        #expect(nothing.transcript.contains("nothing to undo"), "\(nothing.transcript)")
        #expect(!nothing.transcript.contains("Undo it?"))
        // Without a terminal on stdin, never a question (as before): the undo happens.
        #expect(try sandbox.resv("reserve", "-l", "half dome", "-d", "2030-12-02 09:00", "-n", "1").status == 0)
        let piped = try sandbox.resv(["undo"], stdin: "n\n")
        #expect(piped.status == 0 && !piped.stderr.contains("Undo it?"), "\(piped.stderr)")
        #expect(piped.stdout.hasPrefix("Undid command"), "\(piped.stdout)")
    }

    static func batch(_ count: Int) -> String {
        (0..<count).map { index in
            #"{"landmarkId": "\#(hallID)", "date": "2100-03-0\#(1 + index % 5)T10:00:00Z", "partySize": 2}"#
        }.joined(separator: "\n") + "\n"
    }

    static func json(_ run: Run) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(run.stdout.utf8))
    }

    /// Books 50 in one batch, undoes it, and checks what a user sees; `resv` runs one command.
    static func undoABatchOfFifty(_ resv: ([String], String?) throws -> Run) throws {
        let made = try resv(["reserve", "--batch", "-", "--format", "ndjson"], batch(50))
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stdout.split(separator: "\n").count == 50)
        let undone = try resv(["undo", "--json"], nil)
        #expect(undone.status == 0, "\(undone.stderr)")
        let answer = try #require(try json(undone) as? [String: Any])
        let changes = try #require(answer["changes"] as? [[String: Any]])
        #expect(changes.count == 50)
        #expect(
            changes.allSatisfy {
                $0["change"] as? String == "undone" && $0["undoes"] as? String == answer["undid"] as? String
            })
        #expect(changes.allSatisfy { ($0["after"] as? [String: Any])?["status"] as? String == "cancelled" })
        let list = try resv(["list", "--all", "--json"], nil)
        let all = try #require(try json(list) as? [[String: Any]])
        #expect(all.count == 50)
        #expect(all.allSatisfy { $0["status"] as? String == "cancelled" && $0["version"] as? Int == 2 })
        let log = try resv(["log", "--format", "ndjson"], nil)
        let lines = log.stdout.split(separator: "\n")
        #expect(lines.count == 100)
        #expect(lines.prefix(50).allSatisfy { $0.contains(#""change":"undone""#) })
        // The newest N, the same lines (on a server, only those are sent).
        let newest = try resv(["log", "--limit", "3", "--format", "ndjson"], nil)
        #expect(newest.status == 0, "\(newest.stderr)")
        #expect(newest.stdout.split(separator: "\n") == Array(lines.prefix(3)))
        let again = try resv(["undo"], nil)
        #expect(again.status == 1)
        #expect(again.stdout.isEmpty)
        #expect(again.stderr == "resv: nothing to undo: every change recorded has been undone, or none was made\n")
    }

    @Test func aBatchOfFiftyIsUndoneInOneStepOnAFile() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(#"{"version": 1, "landmarks": \#(Self.catalog), "reservations": []}"#)
        try Self.undoABatchOfFifty { arguments, stdin in try sandbox.resv(arguments, stdin: stdin) }
    }

    @Test func aBatchOfFiftyIsUndoneInOneStepOnAServer() throws {
        let remote = try RemoteTests.Remote(landmarks: Self.catalog)
        try Self.undoABatchOfFifty { arguments, stdin in
            try remote.sandbox.resv(arguments, environment: remote.environment(remote.alice), stdin: stdin)
        }
    }

    @Test func undoSaysWhatItDidAndRefusesWithOneLine() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(#"{"version": 1, "landmarks": \#(Self.catalog), "reservations": []}"#)
        let made = try sandbox.resv("reserve", "-l", "Small Hall", "-d", "2100-03-01T10:00:00Z", "-n", "4", "--json")
        let id = try #require((try Self.json(made) as? [String: Any])?["id"] as? String)
        #expect(try sandbox.resv("modify", String(id.prefix(6)), "-n", "6", "--note", "ramp \u{1B}[2J").status == 0)
        let undone = try sandbox.resv("undo")
        #expect(undone.status == 0, "\(undone.stderr)")
        #expect(undone.stdout.hasPrefix("Undid command "), "\(undone.stdout)")
        #expect(undone.stdout.contains("\(id.prefix(8))  party 6 → 4, note removed"), "\(undone.stdout)")
        #expect(!undone.stdout.contains("\u{1B}"), "a note's escape reached the terminal: \(undone.stdout)")
        #expect(undone.stderr.isEmpty)
        for (arguments, status) in [
            (["undo", "--format", "csv"], Int32(64)), (["undo", "extra"], 64), (["log", "ffff"], 1),
        ] {
            let run = try sandbox.resv(arguments)
            #expect(run.status == status, "\(arguments): \(run.status) \(run.stderr)")
            #expect(run.stderrLines.count == 1, "\(arguments): \(run.stderr)")
            #expect(run.stdout.isEmpty)
        }
        // The log keeps the undo and what it undid, newest first.
        let log = try sandbox.resv("log", String(id.prefix(6)))
        let changes = log.stdout.split(separator: "\n").dropFirst().map {
            $0.split(separator: " ", omittingEmptySubsequences: true)
        }
        #expect(
            changes.compactMap { $0.count > 4 ? String($0[4]) : nil } == ["undone", "modified", "created"],
            "\(log.stdout)")
    }
}
