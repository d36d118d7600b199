import Foundation
import ResvTestKit
import Testing

/// The built binary agrees with the bad-input table (Tests/ResvCLITests/Commands/BadInputEndToEndTests.swift,
/// run in process): a few representative cases, through the real exit status and stderr.
@Suite("Bad input", .ownThreads, .timeLimit(.minutes(30)))
struct BadInputEndToEndTests {
    static func reserve(date: String = "2030-12-01T10:00:00Z", partySize: String = "2") -> [String] {
        ["reserve", "--landmark", "Half Dome", "--date", date, "--party-size", partySize]
    }

    /// An impossible date, an ambiguous id, an unknown option, a party beyond the capacity.
    static let cases: [([String], Int32, String)] = [
        (reserve(date: "2030-02-30T10:00:00Z"), 64, "day 30 does not exist in February 2030"),
        (["cancel", "abcd"], 1, "'abcd' matches 2 reservations: abcd2222"),
        (["list", "--nope"], 64, "unknown option '--nope'"),
        (reserve(partySize: "301"), 1, "a party of 301 is larger than Half Dome's capacity of 300 a day"),
    ]

    @Test(arguments: cases)
    func theBinaryExitsWithTheCodeAndOneLine(_ arguments: [String], _ status: Int32, _ message: String) throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Fixture.store)
        let before = try sandbox.storeBytes()
        let run = try sandbox.resv(arguments)
        #expect(run.status == status, "stderr: \(run.stderr)")
        #expect(run.stdout.isEmpty)
        let errorLines = run.stderrLines.filter { !$0.contains("warning: skipped") }
        #expect(errorLines.count == 1, "stderr: \(run.stderr)")
        #expect(run.stderr.contains(message), "stderr: \(run.stderr)")
        #expect(!run.stderr.contains("Fatal error"))
        #expect(try sandbox.storeBytes() == before)
    }

    /// A mistyped command, option or landmark gets the closest names, in the shell and in
    /// the REPL (whose hints name `help`); nothing close, no guess.
    @Test func didYouMeanForCommandsOptionsAndLandmarks() throws {
        let sandbox = try Sandbox()
        let cases: [([String], String)] = [
            (["lst"], "resv: unknown command 'lst': did you mean 'list' or 'log'? (see 'resv --help')"),
            (["reserv"], "resv: unknown command 'reserv': did you mean 'reserve'? (see 'resv --help')"),
            // Words other tools use (issue 60): `edit` is modify, not the nearest spelling (wait).
            (["edit", "1a2b"], "resv: unknown command 'edit': did you mean 'modify'? (see 'resv --help')"),
            (["rm", "1a2b"], "resv: unknown command 'rm': did you mean 'cancel'? (see 'resv --help')"),
            (
                ["--store", "x.json", "--offline", "lst"],
                "resv: unknown command 'lst': did you mean 'list' or 'log'? (see 'resv --help')"
            ),
            (
                ["list", "--staus", "held"],
                "resv: unknown option '--staus': did you mean '--status' or '--store'? (see 'resv list --help')"
            ),
            (
                ["show", "--josn", "ffff"],
                "resv: unknown option '--josn': did you mean '--json' or '--jq'? (see 'resv show --help')"
            ),
            (["list", "--jq"], "resv: missing value for '--jq <expression>' (see 'resv list --help')"),
            (
                ["reserve", "-l", "hlaf dome", "-d", "2031-01-01T10:00:00Z", "-n", "1"],
                "resv: no landmark matches 'hlaf dome': did you mean 'Half Dome'? (see 'resv landmarks')"
            ),
        ]
        for (arguments, line) in cases {
            let run = try sandbox.resv(arguments)
            #expect(run.status == 64, "\(arguments)")
            #expect(run.stderr == line + "\n", "\(arguments)")
        }
        let booked = try sandbox.resv("reserve", "-l", "golden gate", "-d", "2031-01-01T10:00:00Z", "-n", "1", "--json")
        #expect(
            booked.status == 0 && booked.stdout.contains("7c6984ff-188e-417e-b476-ec5f30b8d745"), "\(booked.stderr)")
        let repl = try sandbox.resv(["repl"], stdin: "lst\nlist --staus held\n")
        #expect(
            repl.stderrLines == [
                "resv: line 1: unknown command 'lst': did you mean 'list' or 'log'? (see 'help')",
                "resv: line 2: unknown option '--staus': did you mean '--status' or '--store'? (see 'help list')",
            ])
    }

    @Test func aCorruptStoreExits65() throws {
        let sandbox = try Sandbox()
        let text = "{\"version\": 1,\n  \"reservations\": [ {\"id\": \"x\" ]\n}"
        try sandbox.seed(text)
        let run = try sandbox.resv(Self.reserve())
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderrLines.count == 1)
        #expect(run.stderr.contains("line 2, column"))
        #expect(try sandbox.storeBytes() == Data(text.utf8))
    }
}
