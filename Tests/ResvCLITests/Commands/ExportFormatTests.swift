import Foundation
import ResvTestKit
import Testing

/// `--format` refusals and `list --sort/--reverse/--limit`, in this process over the JSON file
/// store and in memory. The CSV and iCalendar that Python's csv module and the icalendar
/// package read back are in ResvEndToEndTests.
@Suite("Formats other tools read", .timeLimit(.minutes(30)))
struct ExportFormatTests {
    @Test(arguments: Backend.allCases)
    func formatsACommandCannotPrintAreRefusedInOneLine(_ backend: Backend) async throws {
        let sandbox = try Sandbox(backend, seed: Fixture.exportStore)
        let cases: [([String], String)] = [
            (
                ["landmarks", "--format", "ics"],
                "resv landmarks cannot print --format ics: use table, json, ndjson, csv"
            ),
            (["availability", "aaaa", "--format", "ics"], "resv availability cannot print --format ics"),
            (["fetch", "--format", "csv"], "resv fetch cannot print --format csv: use table, json, ndjson"),
            (["list", "--format", "xml"], "'xml'"),
            (["list", "--json", "--format", "csv"], "--json and --format csv disagree"),
        ]
        for (arguments, message) in cases {
            let run = await sandbox.resv(arguments)
            run.expectUsageError(containing: message, "\(arguments)")
        }
    }

    @Test(arguments: Backend.allCases)
    func sortReverseAndLimit(_ backend: Backend) async throws {
        // Landmarks by name: Golden Gate Bridge, Half Dome, Lake Tahoe (built-in catalog).
        let tahoe = "938e63b1-f467-476b-b442-edcb1b3bc450"
        func record(_ id: String, _ landmark: String, _ date: String, _ party: Int, _ status: String) -> String {
            #"{"id": "\#(id)", "landmarkId": "\#(landmark)", "date": "\#(date)", "partySize": \#(party), "status": "\#(status)"}"#
        }
        let a = "aaaa1111-1111-4111-8111-111111111111"
        let b = "bbbb2222-2222-4222-8222-222222222222"
        let c = "cccc3333-3333-4333-8333-333333333333"
        let d = "dddd4444-4444-4444-8444-444444444444"
        let e = "eeee5555-5555-4555-8555-555555555555"
        let records = [
            record(a, Fixture.halfDome, "2030-03-01T10:00:00Z", 4, "confirmed"),
            record(b, Fixture.goldenGate, "2030-01-01T10:00:00Z", 2, "pending"),
            record(c, tahoe, "2030-02-01T10:00:00Z", 4, "cancelled"),
            record(d, Fixture.halfDome, "2030-01-15T10:00:00Z", 1, "pending"),
            record(e, Fixture.goldenGate, "2030-04-01T10:00:00Z", 9, "confirmed"),
        ]
        let sandbox = try Sandbox(
            backend, seed: #"{"version": 1, "reservations": [\#(records.joined(separator: ","))]}"#)
        let cases: [([String], [String])] = [
            (["--all"], [b, d, c, a, e]),
            (["--all", "--sort", "date"], [b, d, c, a, e]),
            (["--all", "--reverse"], [e, a, c, d, b]),
            (["--all", "--sort", "landmark"], [b, e, d, a, c]),
            (["--all", "--sort", "landmark", "--reverse"], [c, a, d, e, b]),
            (["--all", "--sort", "party-size"], [d, b, c, a, e]),
            (["--all", "--sort", "party-size", "--reverse", "--limit", "2"], [e, a]),
            (["--all", "--sort", "status"], [b, d, a, e, c]),
            (["--sort", "status"], [b, d, a, e]),
            (["--all", "--limit", "1"], [b]),
            (["--all", "--limit", "3", "--reverse"], [e, a, c]),
            (["--all", "--limit", "1000000"], [b, d, c, a, e]),
            (["--all", "--limit", "\(Int.max)"], [b, d, c, a, e]),
            (["--landmark", "half dome", "--reverse", "--limit", "1"], [a]),
        ]
        for (arguments, expected) in cases {
            let run = await sandbox.resv(["list", "--format", "ndjson"] + arguments)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            let ids = run.stdout.split(separator: "\n").map { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? String ?? ""
            }
            #expect(ids == expected, "\(arguments)")
        }
        // The CSV follows the same order: its records' first fields (ids, never quoted),
        // after the header. How other tools read the CSV is the end-to-end tests' part.
        let csv = await sandbox.resv("list", "--all", "--sort", "party-size", "--format", "csv")
        let firstFields = csv.stdout.split(separator: "\r\n").map { String($0.prefix { $0 != "," }) }
        #expect(firstFields.dropFirst().map { $0 } == [d, b, c, a, e])
    }

    @Test(arguments: Backend.allCases)
    func badLimitsAndSortKeysAreUsageErrors(_ backend: Backend) async throws {
        let sandbox = try Sandbox(backend, seed: Fixture.store)
        let cases: [([String], String)] = [
            (["--limit", "0"], "--limit must be 1 or more, not 0"),
            (["--limit", "-3"], "--limit must be 1 or more, not -3"),
            (["--limit", "many"], "many"),
            (["--limit", "99999999999999999999"], "99999999999999999999"),
            (["--limit"], "--limit"),
            (["--sort", "price"], "price"),
            (["--sort"], "--sort"),
        ]
        for (arguments, message) in cases {
            let run = await sandbox.resv(["list"] + arguments)
            run.expectUsageError(containing: message, "\(arguments)")
        }
    }
}
