import Foundation
import ResvTestKit
import Testing

/// What a change says to the person who made it, through the built `resv`: whom it promoted,
/// why an undo is refused, and the note wherever the reservation is shown.
@Suite("Changes in words: promotions, undo refusals, notes", .ownThreads, .timeLimit(.minutes(30)))
struct ChangeWordsTests {
    /// A store whose Zed Rock takes 10 people a day.
    func sandbox() throws -> Sandbox {
        let sandbox = try Sandbox()
        try sandbox.seed(
            #"{"version": 1, "reservations": [], "landmarks": [{"id": "11111111-1111-4111-8111-111111111111", "#
                + #""name": "Zed Rock", "location": "Nowhere", "category": "mountains", "capacity": 10}]}"#)
        return sandbox
    }

    func book(_ sandbox: Sandbox, _ party: Int, waitlist: Bool = false) throws -> String {
        let run = try sandbox.resv(
            ["reserve", "-l", "zed", "-d", "2030-01-02T10:00:00Z", "-n", String(party), "--json"]
                + (waitlist ? ["--waitlist"] : []))
        #expect(run.status == 0, "\(run.stderr)")
        return String(try #require(run.stdout.firstMatch(of: /"id" : "([0-9a-f]{8})/)?.1))
    }

    @Test func aCancelThatPromotesSaysWhomAndAnUndoThatCannotSaysItIsTheUndo() throws {
        let sandbox = try sandbox()
        let six = try book(sandbox, 6)
        _ = try book(sandbox, 4)
        let three = try book(sandbox, 3, waitlist: true)
        let two = try book(sandbox, 2, waitlist: true)
        let cancel = try sandbox.resv("cancel", six)
        #expect(cancel.status == 0, "\(cancel.stderr)")
        #expect(cancel.stdout.hasPrefix("Cancelled \(six)"))
        #expect(
            cancel.stderrLines == [
                "Promoted from the waitlist: \(three)  Zed Rock  2030-01-02 10:00 UTC  party of 3, confirmed",
                "Promoted from the waitlist: \(two)  Zed Rock  2030-01-02 10:00 UTC  party of 2, confirmed",
            ], "\(cancel.stderr)")

        let undo = try sandbox.resv("undo")
        #expect(undo.status == 1)
        #expect(undo.stderr.hasPrefix("resv: cannot undo your last command: the places it would take back"))
        #expect(undo.stderr.hasSuffix("; nothing changed\n"), "\(undo.stderr)")
        let json = try sandbox.resv("undo", "--json")
        #expect(json.stderr.contains(#""code":"noCapacity""#) && json.stderr.contains("cannot undo"), "\(json.stderr)")
    }

    @Test func aNoteIsInTheListAndTheCalendar() throws {
        let sandbox = try sandbox()
        let note = "ramp, please; gate \"B\"\nsecond line \u{1B}[2J"
        let made = try sandbox.resv("reserve", "-l", "zed", "-d", "2030-01-02T10:00:00Z", "-n", "1", "--note", note)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try sandbox.resv("reserve", "-l", "zed", "-d", "2030-01-03T10:00:00Z", "-n", "1").status == 0)
        let list = try sandbox.resv("list")
        let lines = list.stdout.split(separator: "\n")
        #expect(lines.first?.hasSuffix("NOTE") == true, "\(list.stdout)")
        #expect(lines.count == 3, "a line break in a note never splits a row: \(list.stdout)")
        #expect(lines.dropFirst().first?.hasSuffix(#"ramp, please; gate "B"\nsecond line \e[2J"#) == true)
        let bare = try sandbox.resv("list", "--from", "2030-01-03")
        #expect(bare.stdout.split(separator: "\n").first?.hasSuffix("STATUS") == true, "no note, no column")

        let calendar = try sandbox.resv("list", "--format", "ics")
        let unfolded = calendar.stdout.replacingOccurrences(of: "\r\n ", with: "")
        #expect(
            unfolded.contains(
                #"confirmed\nNote: ramp\, please\; gate "B"\nsecond line [2J"# + "\r\n"),
            "\(calendar.stdout)")
        #expect(calendar.stdout.split(separator: "\r\n").allSatisfy { $0.utf8.count <= 75 })
    }

    /// calcurse imports every event as a plain appointment (no UID, no STATUS): the README must not
    /// tell its users to export cancelled visits or to import again into the same calendar.
    @Test func theReadmeTellsCalcurseUsersWhatCalcurseDoes() throws {
        let readme = try String(contentsOf: Binary.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let commands = readme.split(separator: "\n").filter { $0.contains("calcurse -") || $0.contains("> visits.ics") }
        let calcurse = try #require(commands.first { $0.contains("calcurse -") && $0.contains("-i visits.ics") })
        #expect(calcurse.contains("rm -rf") && calcurse.contains("-D "), "a calendar made afresh: \(calcurse)")
        let export = try #require(readme.range(of: "calcurse is not such a client"))
        let after = readme[export.upperBound...].prefix(800)
        #expect(after.contains("resv list --format ics > visits.ics") && !after.contains("--all --format"))
    }
}
