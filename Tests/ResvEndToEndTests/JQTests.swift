import Foundation
import ResvTestKit
import Testing

/// `--jq EXPR` through the built binary and the system's libjq (Debian's libjq1): results a
/// line, strings raw, other values compact JSON; a bad expression or a failing program exit 64.
@Suite("--jq", .ownThreads, .timeLimit(.minutes(30)))
struct JQTests {
    /// A sandbox with two reservations, a day apart (so `list` has them in this order), the
    /// first with a note holding a quote and a line break; their ids.
    static func twoReservations() throws -> (sandbox: Sandbox, ids: [String]) {
        let sandbox = try Sandbox()
        let first = try sandbox.resv(
            "reserve", "--landmark", "Half Dome", "--date", visitAhead(days: 400), "--party-size", "3", "--note",
            "say \"hi\"\nthere", "--jq", ".id")
        #expect(first.status == 0, "\(first.stderr)")
        let second = try sandbox.resv(
            "reserve", "--landmark", "Half Dome", "--date", visitAhead(days: 401), "--party-size", "2", "--jq", ".id")
        #expect(second.status == 0, "\(second.stderr)")
        let ids = [first.stdout, second.stdout].map { $0.trimmingCharacters(in: .newlines) }
        #expect(ids.allSatisfy { $0.count == 36 }, "\(ids)")
        return (sandbox, ids)
    }

    @Test func aStringIsPrintedRawAResultALine() throws {
        let (sandbox, ids) = try Self.twoReservations()
        let run = try sandbox.resv("list", "--jq", ".[].id")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == ids.map { $0 + "\n" }.joined())
        #expect(run.stderr.isEmpty)
        // Quotes and line breaks whole, as `jq -r` prints them.
        let note = try sandbox.resv("list", "--jq", ".[0].note")
        #expect(note.stdout == "say \"hi\"\nthere\n")
    }

    @Test func aNumberAndAnObjectAreJSON() throws {
        let (sandbox, ids) = try Self.twoReservations()
        let number = try sandbox.resv("show", ids[0], "--jq", ".partySize")
        #expect(number.status == 0, "\(number.stderr)")
        #expect(number.stdout == "3\n")
        let object = try sandbox.resv("list", "--jq", ".[0] | {id, partySize}")
        #expect(object.stdout == "{\"id\":\"\(ids[0])\",\"partySize\":3}\n")
        let values = try sandbox.resv("list", "--jq", "null, true, [1, \"a\"], {}")
        #expect(values.stdout == "null\ntrue\n[1,\"a\"]\n{}\n")
    }

    @Test func ndjsonIsAnInputALine() throws {
        let (sandbox, _) = try Self.twoReservations()
        let run = try sandbox.resv("list", "--format", "ndjson", "--jq", ".partySize")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "3\n2\n")
        // Before the command, as --json may be.
        let leading = try sandbox.resv("--jq", ".[].partySize", "list")
        #expect(leading.stdout == "3\n2\n")
    }

    @Test func anExpressionThatDoesNotCompileIsUsageAndChangesNothing() throws {
        let (sandbox, _) = try Self.twoReservations()
        let run = try sandbox.resv("list", "--jq", ".[")
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix("resv: --jq: syntax error"), "\(run.stderr)")
        #expect(run.stderrLines.count == 1, "\(run.stderr)")
        // Compiled before the command runs: no reservation is made.
        let reserve = try sandbox.resv(
            "reserve", "--landmark", "Half Dome", "--date", visitAhead(days: 402), "--party-size", "1", "--jq", "{")
        #expect(reserve.status == 64)
        #expect(reserve.stdout.isEmpty)
        #expect(try sandbox.resv("list", "--jq", "length").stdout == "2\n")
    }

    @Test func aProgramThatFailsIsUsageAfterWhatItPrinted() throws {
        let (sandbox, ids) = try Self.twoReservations()
        let run = try sandbox.resv("list", "--jq", ".foo")
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix("resv: jq: Cannot index array with"), "\(run.stderr)")
        // The results before the failure are printed; the failure ends the output.
        let partly = try sandbox.resv(
            "list", "--format", "ndjson", "--jq", "if .partySize == 2 then error(\"two\") else .id end")
        #expect(partly.status == 64)
        #expect(partly.stdout == ids[0] + "\n")
        #expect(plainError(partly.stderr) == "resv: jq: two\n", "\(partly.stderr)")
        // `halt` ends the output quietly.
        let halted = try sandbox.resv("list", "--format", "ndjson", "--jq", ".partySize, halt")
        #expect(halted.status == 0, "\(halted.stderr)")
        #expect(halted.stdout == "3\n")
    }

    @Test func formatsOtherThanJSONAreRefused() throws {
        let sandbox = try Sandbox()
        for format in ["csv", "table", "ics"] {
            let run = try sandbox.resv("list", "--format", format, "--jq", ".")
            #expect(run.status == 64, "\(format)")
            #expect(run.stdout.isEmpty)
            #expect(run.stderr.contains("--jq"), "\(run.stderr)")
        }
        #expect(try sandbox.resv("list", "--json", "--jq", "length").stdout == "0\n")
        #expect(try sandbox.resv("list", "--format", "json", "--jq", "length").stdout == "0\n")
    }

    /// A program that never ends prints each result as jq makes it, so `head` gets its lines and
    /// resv ends when the reader goes: by SIGPIPE as other tools, or, where SIGPIPE is ignored,
    /// quietly on EPIPE (exit 0, nothing on stderr).
    @Test func aProgramThatNeverEndsPrintsAsItGoesAndEndsWithItsReader() throws {
        let (sandbox, _) = try Self.twoReservations()
        let run = try sandbox.shell("resv list --jq 'repeat(1)' | head -3; echo \"status=${PIPESTATUS[0]}\"")
        #expect(run.stdout.hasPrefix("1\n1\n1\nstatus="), "\(run.stdout.prefix(200))")
        #expect(["status=141\n", "status=0\n"].contains(String(run.stdout.dropFirst(6))), "\(run.stdout.prefix(200))")
        let ignored = try sandbox.shell(
            "trap '' PIPE; resv list --jq '.[].partySize, repeat(\"x\")' | head -4; echo \"status=${PIPESTATUS[0]}\"")
        #expect(ignored.stdout == "3\n2\nx\nx\nstatus=0\n", "\(ignored.stdout.prefix(200))")
        #expect(ignored.stderr.isEmpty, "\(ignored.stderr.prefix(300))")
    }

    /// A program that exhausts the memory it may have is one line and exit 70, never a signal.
    @Test func aProgramOutOfMemoryIsOneLineAndExit70() throws {
        let (sandbox, _) = try Self.twoReservations()
        let run = try sandbox.shell("ulimit -v 1500000; resv list --jq '[range(1e9)] | length'; echo \"status=$?\"")
        #expect(run.stdout == "status=70\n", "\(run.stdout.prefix(200)) \(run.stderr.prefix(300))")
        // jq's allocator says so, or a failed allocation it did not check faults inside jq.
        #expect(
            run.stderrLines.map(String.init) == [Self.outOfMemory]
                || run.stderrLines.map(String.init) == [Self.stoppedInsideJQ],
            "\(run.stderr.prefix(300))")
    }

    static let outOfMemory =
        "resv: --jq ran out of memory running the program (jq stopped); what it printed is all there is: "
        + "narrow the program (limit(N; …), first(…)) or allow more memory"
    static let stoppedInsideJQ =
        "resv: --jq stopped inside jq: memory ran out, or a value was nested too deep for its stack; what it "
        + "printed is all there is: narrow the program (limit(N; …), first(…))"

    /// A value nested a million deep overflows jq's C stack as it is printed (jv_dump recurses):
    /// the fault is handled on an alternate stack, one line and exit 70, never a signal (it was 139).
    @Test func aValueNestedTooDeepForJqsStackIsOneLineAndExit70() throws {
        let (sandbox, _) = try Self.twoReservations()
        let run = try sandbox.shell("resv list --jq 'reduce range(1000000) as $i (null; [.])'; echo \"status=$?\"")
        #expect(run.stdout == "status=70\n", "\(run.stdout.prefix(200)) \(run.stderr.prefix(300))")
        #expect(run.stderrLines.map(String.init) == [Self.stoppedInsideJQ], "\(run.stderr.prefix(300))")
    }

    /// The README's jq lines (`| jq` and `--jq`), run as copied by bash with the built `resv` first
    /// on PATH, on a store of two reservations: each ends 0, prints what the README shows it printing
    /// and nothing on stderr. Only what a copy cannot keep is changed: the README's example id
    /// prefix (`b37c`) becomes the first reservation's, its example date a date ahead. The `watch`
    /// lines never end, so they are left to WatchEndToEndTests.
    @Test func theReadmesJqLinesRunAsCopied() throws {
        let (sandbox, ids) = try Self.twoReservations()
        let readme = try String(contentsOf: Binary.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n").filter { $0.hasPrefix("$ ") && $0.contains("jq") }
            .map { String($0.dropFirst(2)) }.filter { !$0.hasPrefix("resv watch") }
        var environment = sandbox.environment
        environment["PATH"] = Binary.resv.deletingLastPathComponent().path + ":/usr/bin:/bin"
        func run(_ line: String) throws -> Run {
            let script =
                "set -o pipefail\n"
                + line.replacingOccurrences(of: "b37c", with: String(ids[0].prefix(4)))
                .replacingOccurrences(of: "2026-12-01 08:00", with: "2031-12-01 08:00")
            let run = try runProcess("/bin/bash", ["-c", script], environment: environment, stdin: nil)
            #expect(run.status == 0 && run.stderr.isEmpty, "\(line): \(run.status) \(run.stderr)")
            return run
        }
        let expected: [(line: String, check: (String) -> Bool)] = [
            (
                #"resv list --all --json | jq -r '.[] | "\(.id[0:8]) \(.landmark.name) \(.status)"'"#,
                { $0 == ids.map { "\($0.prefix(8)) Half Dome confirmed\n" }.joined() }
            ),
            ("resv list --jq '.[].id'", { $0 == ids.map { $0 + "\n" }.joined() }),
            ("resv show b37c --jq .partySize", { $0 == "3\n" }),
            ("resv list --jq '.[0] | {id, status}'", { $0 == #"{"id":"\#(ids[0])","status":"confirmed"}"# + "\n" }),
            (
                #"id=$(resv reserve -l "Half Dome" -d "2026-12-01 08:00" -n 6 --waitlist --json | jq -r .id)"#,
                { $0.isEmpty }
            ),
        ]
        #expect(lines == expected.map(\.line), "the README's jq lines changed: test them here")
        for (line, check) in expected where lines.contains(line) {
            let output = try run(line).stdout
            #expect(check(output), "\(line) printed \(output)")
        }
        // The waitlist line's `$id` is the new reservation's whole id.
        let id = try run(expected[4].line + "\necho \"$id\"").stdout.trimmingCharacters(in: .newlines)
        #expect(try sandbox.resv("show", id, "--jq", ".partySize").stdout == "6\n", "\(id)")
    }
}
