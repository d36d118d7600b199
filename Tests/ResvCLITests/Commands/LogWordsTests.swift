import Foundation
import ResvTestKit
import Testing

/// `resv log` in a person's words: landmark names and times as `list` shows them, not
/// the stored ids and ISO strings; one case per kind of change.
@Suite("resv log, in words", .timeLimit(.minutes(30)))
struct LogWordsTests {
    @Test(arguments: Backend.allCases)
    func everyKindOfChangeIsNamedInWords(_ backend: Backend) async throws {
        let sandbox = try Sandbox(backend)
        let made = await sandbox.resv(
            "reserve", "-l", "half dome", "-d", "2030-01-02T17:30:00Z", "-n", "3", "--pending", "--json")
        #expect(made.status == 0, "\(made.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: Any])
        let id = String(try #require(object["id"] as? String).prefix(8))
        let steps: [(arguments: [String], words: String)] = [
            ([], "Half Dome, 2030-01-02 09:30 PST"),
            (["modify", id, "-n", "5"], "party 3 → 5"),
            (["modify", id, "-d", "2030-01-03T08:00:00Z"], "date 2030-01-02 09:30 PST → 2030-01-03 00:00 PST"),
            (["modify", id, "-l", "lake tahoe"], "landmark Half Dome → Lake Tahoe"),
            (["modify", id, "--note", "ramp"], "note added 'ramp'"),
            (["modify", id, "--note", ""], "note removed"),
            (["confirm", id], "status pending → confirmed"),
            (["cancel", id], "status confirmed → cancelled"),
        ]
        for step in steps {
            if !step.arguments.isEmpty {
                let changed = await sandbox.resv(step.arguments)
                #expect(changed.status == 0, "\(step.arguments): \(changed.stderr)")
            }
            let log = await sandbox.resv("log", id, "--limit", "1")
            #expect(log.status == 0, "\(log.stderr)")
            #expect(log.stdout.contains(step.words), "\(step.arguments): \(log.stdout)")
            #expect(!log.stdout.contains("T17:30:00Z"), "an ISO string in words: \(log.stdout)")
        }
    }
}
