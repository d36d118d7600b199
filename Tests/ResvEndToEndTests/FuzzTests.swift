import Foundation
import ResvTestKit
import Testing

@Suite("Generated hostile stores: resv answers with an exit code, never a trap", .ownThreads, .timeLimit(.minutes(30)))
struct FuzzTests {
    static let documented: Set<Int32> = [0, 1, 64, 65, 69, 73, 74, 75]

    @Test(arguments: [0x5EED_0001, 0x5EED_0002] as [UInt64])
    func generatedStoresNeverCrashResv(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let commands: [[String]] = [
            ["list", "--all"], ["list", "--json"],
            ["availability", "Half Dome", "--from", "2030-06-01", "--to", "2030-06-03"],
            ["availability", "Tiny Tower", "--from", "2030-06-01", "--to", "2030-06-03", "--json"],
            ["reserve", "-l", "Half Dome", "-d", "2030-06-01T17:00:00Z", "-n", "7"],
            ["reserve", "-l", "Tiny Tower", "-d", "2030-06-02T17:00:00Z", "-n", "10000"],
            ["cancel", "0000"], ["show", "0001"], ["fetch", "--json"], ["landmarks"],
        ]
        var statuses: [Int32: Int] = [:]  // exit status -> runs
        for _ in 0..<60 {
            let sandbox = try Sandbox()
            let store = HostileJSON.store(&rng)
            try sandbox.seed(store)
            for command in commands.shuffled(using: &rng).prefix(3) {
                let run = try sandbox.resv(command)
                statuses[run.status, default: 0] += 1
                #expect(Self.documented.contains(run.status), "\(command) on \(store): \(run.status) \(run.stderr)")
                #expect(!run.stderr.contains("Fatal error"), "\(command) on \(store): \(run.stderr)")
                #expect(!run.stderr.contains("\u{1B}"), "control characters reach the terminal: \(run.stderr)")
            }
        }
        // The stores were varied enough to take both ways: some commands worked on them, some were
        // refused (all refused would be a generator of nothing but broken files, or a resv that
        // refuses everything).
        #expect(statuses[0, default: 0] > 0, "\(statuses)")
        #expect(statuses.contains { $0.key != 0 && $0.value > 0 }, "\(statuses)")
    }
}
