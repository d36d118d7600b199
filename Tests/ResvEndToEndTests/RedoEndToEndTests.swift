import Foundation
import ResvTestKit
import Testing

/// `resv redo` as users meet it (issue 60): it takes back the last undo while nothing changed
/// since, on a file and on a real server, asks on a terminal as `undo` does, and refuses with
/// one line when there is nothing to redo.
@Suite("Redo, end to end", .ownThreads, .timeLimit(.minutes(30)))
struct RedoEndToEndTests {
    static let catalog = ModifyEndToEndTests.catalog

    /// How a test runs `resv` on one backend: piped, or in a pseudo-terminal.
    struct Backend {
        let environment: [String: String]
        let run: ([String], String?) throws -> Run
    }

    static func file() throws -> (Backend, Sandbox) {
        let sandbox = try Sandbox()
        try sandbox.seed(#"{"version": 1, "landmarks": \#(catalog), "reservations": []}"#)
        return (Backend(environment: sandbox.environment) { try sandbox.resv($0, stdin: $1) }, sandbox)
    }

    static func server() throws -> (Backend, RemoteTests.Remote) {
        let remote = try RemoteTests.Remote(landmarks: catalog)
        let environment = remote.sandbox.environment.merging(remote.environment(remote.alice)) { _, new in new }
        let backend = Backend(environment: environment) { arguments, stdin in
            try remote.sandbox.resv(arguments, environment: remote.environment(remote.alice), stdin: stdin)
        }
        return (backend, remote)
    }

    static func object(_ run: Run) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)")
    }

    /// A modify undone and redone; the redo asked on a terminal; nothing left to redo after.
    static func redoTakesBackTheUndo(_ backend: Backend) throws {
        let made = try backend.run(
            ["reserve", "-l", "Small Hall", "-d", "2100-03-01T10:00:00Z", "-n", "4", "--json"], nil)
        #expect(made.status == 0, "\(made.stderr)")
        let id = try #require(try object(made)["id"] as? String)
        #expect(try backend.run(["modify", String(id.prefix(8)), "-n", "6"], nil).status == 0)
        func party() throws -> Int? {
            try object(try backend.run(["show", String(id.prefix(8)), "--json"], nil))["partySize"] as? Int
        }
        func redo(_ arguments: [String], answer: String?) throws -> (transcript: String, status: Int32?) {
            let terminal = try PseudoTerminal(Binary.resv.path, ["redo"] + arguments, environment: backend.environment)
            if let answer {
                try terminal.expect("Redo it (take this undo back)? [y/N] ")
                terminal.send(answer + "\n")
            }
            let status = terminal.waitForExit()
            return (terminal.transcript, status)
        }
        // Nothing undone yet: refused before any question, one line, exit 1.
        let early = try backend.run(["redo"], nil)
        #expect(early.status == 1 && early.stdout.isEmpty, "\(early.stderr)")
        #expect(early.stderrLines.count == 1 && early.stderr.hasPrefix("resv: nothing to redo"), "\(early.stderr)")
        let undone = try backend.run(["undo", "--json"], nil)
        #expect(undone.status == 0, "\(undone.stderr)")
        // The undo's own command, which the redo takes back.
        let undid = try #require(
            (try object(undone)["changes"] as? [[String: Any]])?.first?["command"] as? String, "\(undone.stdout)")
        #expect(try party() == 4)
        // On a terminal: it shows the undo and asks; no changes nothing.
        let declined = try redo([], answer: "n")
        #expect(declined.status == 0, "\(declined.transcript)")
        #expect(
            declined.transcript.contains(#/Undo [0-9a-f]{8} made \d{4}-\d\d-\d\d \d\d:\d\d UTC, 1 change:/#),
            "\(declined.transcript)")
        #expect(
            declined.transcript.contains("  \(id.prefix(8))  undone     party 6 → 4\r\nRedo it"),
            "\(declined.transcript)")
        #expect(declined.transcript.contains("Nothing was redone."))
        #expect(try party() == 4)
        let accepted = try redo([], answer: "yes")
        #expect(accepted.status == 0, "\(accepted.transcript)")
        #expect(
            accepted.transcript.contains("Redid undo \(undid.prefix(8)) (1 reservation):"), "\(accepted.transcript)")
        #expect(accepted.transcript.contains("\(id.prefix(8))  party 4 → 6"), "\(accepted.transcript)")
        #expect(try party() == 6)
        // Taken back once: nothing left, refused before any question.
        let nothing = try redo([], answer: nil)
        #expect(nothing.status == 1, "\(nothing.transcript)")
        #expect(nothing.transcript.contains("nothing to redo"), "\(nothing.transcript)")
        #expect(!nothing.transcript.contains("Redo it"))
        // The log words it; undo after a redo takes the modify back anew.
        let log = try backend.run(["log", String(id.prefix(8)), "--format", "ndjson"], nil)
        #expect(log.stdout.split(separator: "\n").first?.contains(#""change":"redone""#) == true, "\(log.stdout)")
        #expect(log.stdout.split(separator: "\n").first?.contains(#""undoes":"\#(undid)""#) == true, "\(log.stdout)")
        #expect(try backend.run(["undo", "--yes"], nil).status == 0)
        #expect(try party() == 4)
        // --yes on a terminal: no question; --json says what it took back.
        let skipped = try redo(["--yes"], answer: nil)
        #expect(skipped.status == 0 && !skipped.transcript.contains("Redo it"), "\(skipped.transcript)")
        #expect(try party() == 6)
        // A change after an undo ends what can be redone: refused, one line, nothing changed.
        #expect(try backend.run(["undo", "--yes"], nil).status == 0)
        #expect(try backend.run(["modify", String(id.prefix(8)), "--note", "ramp"], nil).status == 0)
        let after = try backend.run(["redo"], "y\n")
        #expect(after.status == 1 && after.stdout.isEmpty, "\(after.stderr)")
        #expect(
            after.stderr
                == "resv: nothing to redo: no undo since your last change ('resv redo' takes back an undo while "
                + "nothing else changed since)\n", "\(after.stderr)")
        #expect(try party() == 4)
        // Piped: never a question; --json answers {redid, changes}.
        #expect(try backend.run(["undo", "--yes"], nil).status == 0)
        let piped = try backend.run(["redo", "--json"], "n\n")
        #expect(piped.status == 0 && !piped.stderr.contains("Redo it"), "\(piped.stderr)")
        let answer = try object(piped)
        let changes = try #require(answer["changes"] as? [[String: Any]])
        #expect(answer["redid"] is String && changes.count == 1)
        #expect(changes.first?["change"] as? String == "redone")
        #expect((changes.first?["after"] as? [String: Any])?["note"] as? String == "ramp")
        // A bad format or an extra word: usage, one line.
        for arguments in [["redo", "--format", "csv"], ["redo", "extra"]] {
            let run = try backend.run(arguments, nil)
            #expect(run.status == 64 && run.stderrLines.count == 1 && run.stdout.isEmpty, "\(arguments): \(run.stderr)")
        }
    }

    @Test func redoOnAFile() throws {
        let (backend, _) = try Self.file()
        try Self.redoTakesBackTheUndo(backend)
    }

    @Test func redoOnAServer() throws {
        let (backend, remote) = try Self.server()
        try withExtendedLifetime(remote) { try Self.redoTakesBackTheUndo(backend) }
    }

    /// A redo that would put people back on a day that filled since the undo: exit 1, one line,
    /// the capacity's numbers, nothing changed.
    @Test func redoIntoAFullDayIsRefused() throws {
        let (backend, remote) = try Self.server()
        try withExtendedLifetime(remote) {
            let made = try backend.run(["reserve", "-l", "Small Hall", "-d", "2100-03-01T10:00:00Z", "-n", "4"], nil)
            #expect(made.status == 0, "\(made.stderr)")
            #expect(try backend.run(["undo", "--yes"], nil).status == 0)
            let capacity = try #require(Int(String(Self.catalog.firstMatch(of: /"capacity": *(\d+)/)?.1 ?? "")))
            let other = try remote.resv(
                "reserve", "-l", "Small Hall", "-d", "2100-03-01T11:00:00Z", "-n", "\(capacity)", token: remote.bob)
            #expect(other.status == 0, "\(other.stderr)")
            let refused = try backend.run(["redo", "--yes"], nil)
            #expect(refused.status == 1 && refused.stdout.isEmpty, "\(refused.stderr)")
            #expect(refused.stderrLines.count == 1, "\(refused.stderr)")
            #expect(refused.stderr.hasPrefix("resv: cannot redo your last undo: the places"), "\(refused.stderr)")
            let list = try backend.run(["list", "--all", "--json"], nil)
            #expect(list.stdout.contains(#""status" : "cancelled""#), "\(list.stdout)")
        }
    }
}
