import Foundation
import ResvTestKit
import Testing

/// What the built binary does as one process among others: its JSON piped into jq, and no
/// colour when stdout is a pipe. The commands themselves run in process
/// (Tests/ResvCLITests/Commands/CommandEndToEndTests.swift).
@Suite("Commands, run as a user runs them", .ownThreads, .timeLimit(.minutes(30)))
struct CommandEndToEndTests {
    @Test func listJSONPipesIntoJq() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Fixture.store)
        let run = try sandbox.shell("resv list --json | jq -r '.[].landmark.name'")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "Golden Gate Bridge\nHalf Dome\n")
    }

    @Test func noColourWithoutATerminal() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Fixture.store)
        let run = try sandbox.resv("list")
        #expect(!run.stdout.contains("\u{1B}["))
        #expect(run.stdout.hasPrefix("ID"))
    }
}
