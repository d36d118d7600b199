import Foundation
import ResvReference
import ResvTestKit
import Testing

/// completions/ and man/: generated from the command tree, current, and working
/// in the programs that read them (bash, groff).
@Suite("Shipped completions and man page", .ownThreads, .timeLimit(.minutes(30)))
struct ShippedFilesTests {
    static func committed(_ path: String) throws -> String {
        try String(contentsOf: Binary.packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func committedCompletionsMatchTheCommandTree(_ shell: String) throws {
        let run = try Sandbox().resv("--generate-completion-script", shell)
        #expect(run.status == 0)
        #expect(
            run.stdout == (try Self.committed("completions/resv.\(shell)")),
            "completions/resv.\(shell) is stale: run scripts/generate-docs")
        // `resv completion SHELL` prints the same script.
        let command = try Sandbox().resv("completion", shell)
        #expect(command.status == 0, "\(command.stderr)")
        #expect(command.stdout == run.stdout && command.stderr.isEmpty)
        let server = try runProcess(
            Binary.server.path, ["--generate-completion-script", shell], environment: [:], stdin: nil)
        #expect(server.status == 0)
        #expect(
            server.stdout == (try Self.committed("completions/resv-server.\(shell)")),
            "completions/resv-server.\(shell) is stale: run scripts/generate-docs")
    }

    @Test func serverManPageHasItsReferenceSections() throws {
        let page = try Self.committed("man/resv-server.1")
        #expect(
            page.contains(Reference.manualSections(Reference.serverManual)),
            "man/resv-server.1 is stale: run scripts/generate-docs")
        for title in ["ENVIRONMENT", "FILES", "EXIT STATUS", "EXAMPLES"] {
            #expect(page.split(separator: "\n").contains(Substring(".Sh \(title)")), "no \(title) section")
        }
        for command in ["serve", "token", "create"] { #expect(page.contains(".It Em \(command)")) }
        #expect(!page.contains(".Ex -std"), "the stock exit status replaced")
    }

    @Test func manPageHasTheCurrentReferenceSections() throws {
        let page = try Self.committed("man/resv.1")
        #expect(page.contains(Reference.manualSections), "man/resv.1 is stale: run scripts/generate-docs")
        for title in ["ENVIRONMENT", "FILES", "EXIT STATUS", "EXAMPLES"] {
            #expect(page.split(separator: "\n").contains(Substring(".Sh \(title)")), "no \(title) section")
        }
        for command in ProcessTests.commands { #expect(page.contains(".It Em \(command)")) }
        #expect(!page.contains(".Ex -std"), "the stock exit status replaced")
    }

    /// Every command, and every subcommand of config.
    static let commandPaths: [[String]] =
        (ProcessTests.commands + ["watch", "wait"]).map { [$0] }
        + ["list", "get", "set", "unset", "use", "remove", "path"].map { ["config", $0] }

    /// Every command's help ends with its examples, and the man page has them in EXAMPLES.
    @Test func everyCommandHasExamplesInItsHelpAndTheManPage() throws {
        let page = try Self.committed("man/resv.1")
        #expect(!page.contains("\nExamples:\n"), "no examples left in a description, where mdoc runs lines together")
        let examples = try #require(page.range(of: "\n.Sh EXAMPLES\n"))
        for path in Self.commandPaths {
            let name = (["resv"] + path).joined(separator: " ")
            let help = try runProcess(Binary.resv.path, path + ["--help"], environment: [:], stdin: nil)
            #expect(help.status == 0)
            let tail = try #require(help.stdout.components(separatedBy: "\nEXAMPLES:\n").last, "\(name)")
            let lines = tail.split(separator: "\n")
            #expect(!lines.isEmpty && lines.allSatisfy { $0.hasPrefix("  ") }, "\(name): \(tail)")
            #expect(lines.contains { $0.contains("resv") }, "\(name)")
            let section = try #require(
                page.range(
                    of: "\n.Ss \(name)\n.Bd -literal -offset indent\n", range: examples.upperBound..<page.endIndex),
                "\(name) in EXAMPLES")
            let end = page.range(of: "\n.Ed\n", range: section.upperBound..<page.endIndex)?.lowerBound ?? page.endIndex
            let block = page[section.upperBound..<end]
            #expect(block.contains(String(lines[0].dropFirst(2))), "\(name): the man page has the help's examples")
            // `resv help CMD` is the same text.
            let viaHelp = try runProcess(Binary.resv.path, ["help"] + path, environment: [:], stdin: nil)
            #expect(viaHelp.stdout == help.stdout, "\(name)")
        }
    }

    @Test(arguments: ["resv", "resv-server"])
    func groffReadsTheManPageWithoutWarnings(tool: String) throws {
        let page = Binary.packageRoot.appendingPathComponent("man/\(tool).1").path
        let path = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        let run = try runProcess("/usr/bin/env", ["groff", "-man", "-ww", "-z", page], environment: path, stdin: nil)
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty, "\(run.stderr)")
        let rendered = try runProcess(
            "/usr/bin/env", ["groff", "-man", "-Tutf8", "-P-cbou", page], environment: path, stdin: nil)
        for heading in ["ENVIRONMENT", "FILES", "EXIT STATUS", "EXAMPLES"] {
            #expect(rendered.stdout.contains(heading))
        }
    }

    /// The CSV columns the README names are the headers resv writes.
    @Test func readmeCSVColumnsAreTheRealHeaders() throws {
        let readme = try Self.committed("README.md").replacingOccurrences(of: "\n", with: " ")
        let sandbox = try Sandbox()
        #expect(try sandbox.resv("reserve", "-l", "Lake Tahoe", "-d", "2031-01-01T10:00:00Z", "-n", "1").status == 0)
        for (arguments, what) in [
            (["list", "--format", "csv"], "a reservation is flattened to"),
            (["landmarks", "--format", "csv"], "a landmark's columns are"),
            (
                ["availability", "Half Dome", "--from", "2031-01-01", "--to", "2031-01-01", "--format", "csv"],
                "timeZone`, a day's"
            ),
            (["day", "2031-01-01", "--landmark", "Lake Tahoe", "--format", "csv"], "a party of `day`'s"),
        ] {
            let header = String(try sandbox.resv(arguments).stdout.split(separator: "\r\n").first ?? "")
            let after = try #require(readme.range(of: what), "the README says \(what)")
            let named = readme[after.upperBound...].drop { $0 == " " }
            #expect(named.hasPrefix("`" + header + "`"), "\(arguments): \(header) vs \(named.prefix(120))")
        }
    }

    @Test func readmeExitCodesAreTheReference() throws {
        let readme = try Self.committed("README.md")
        let rows = Reference.exitCodes.map { "| \($0.code) | \($0.meaning) |" }
        #expect(readme.contains((["| code | meaning |", "|---|---|"] + rows).joined(separator: "\n")))
    }

    // MARK: bash completion, driven as bash's programmable completion does

    /// What bash offers for `line` (the cursor at its end), with resv on PATH.
    func bashCompletions(_ line: String, in sandbox: Sandbox) throws -> [String] {
        let script = Binary.packageRoot.appendingPathComponent("completions/resv.bash").path
        let run = try sandbox.shell(
            """
            source '\(script)' || exit 90
            COMP_LINE=\(shellQuoted(line)); COMP_POINT=${#COMP_LINE}
            read -ra COMP_WORDS <<< "$COMP_LINE"
            [[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
            COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
            COMPREPLY=()
            _resv resv "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
        return run.stdout.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    func shellQuoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    @Test func completionOfAnotherShellIsAUsageError() throws {
        let run = try Sandbox().resv("completion", "tcsh")
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("'tcsh' is not a shell resv completes: give bash, zsh or fish"), "\(run.stderr)")
    }

    @Test func sourcingTheBashScriptSucceeds() throws {
        let script = Binary.packageRoot.appendingPathComponent("completions/resv.bash").path
        let run = try Sandbox().shell("source '\(script)' && complete -p resv")
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty)
        #expect(run.stdout.contains("-F _resv resv"))
    }

    @Test func bashCompletesSubcommands() throws {
        let sandbox = try Sandbox()
        #expect(try bashCompletions("resv can", in: sandbox) == ["cancel"])
        #expect(Set(try bashCompletions("resv con", in: sandbox)) == ["config", "confirm"])
        #expect(Set(try bashCompletions("resv confi", in: sandbox)) == ["config", "confirm"])
        #expect(try bashCompletions("resv confir", in: sandbox) == ["confirm"])
        let all = Set(try bashCompletions("resv ", in: sandbox))
        #expect(all.isSuperset(of: ProcessTests.commands))
    }

    @Test func bashCompletesReservationIDsFromTheStore() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Fixture.store)
        // Active ones for cancel, by date; the cancelled 5eed… is not offered.
        #expect(try bashCompletions("resv cancel ", in: sandbox) == ["abcd2222", "abcd1111"])
        #expect(try bashCompletions("resv cancel abcd1", in: sandbox) == ["abcd1111"])
        #expect(try bashCompletions("resv cancel 5e", in: sandbox) == [])
        #expect(try bashCompletions("resv confirm ", in: sandbox) == ["abcd2222"])
        #expect(try bashCompletions("resv show 5e", in: sandbox) == ["5eed3333"])
        // log: every reservation, its history outlives a cancel; modify: active ones only.
        #expect(try bashCompletions("resv log 5e", in: sandbox) == ["5eed3333"])
        #expect(try bashCompletions("resv log ", in: sandbox).count == 3)
        #expect(try bashCompletions("resv modify ", in: sandbox) == ["abcd2222", "abcd1111"])
        #expect(try bashCompletions("resv undo ab", in: sandbox) == [], "undo takes no ids")
        #expect(try bashCompletions("resv undo ", in: sandbox).allSatisfy { $0.hasPrefix("-") })
        // Several ids: the next one is offered too.
        #expect(try bashCompletions("resv cancel abcd2222 abcd1", in: sandbox) == ["abcd1111"])
    }

    @Test func bashCompletesIDsFromTheStoreOnTheCommandLine() throws {
        let sandbox = try Sandbox()
        // (Quoted as a user would; this test's word splitting, like read -a, knows no quotes, so no spaces.)
        let other = sandbox.directory.appendingPathComponent("other-store.json")
        try YearsAhead.write(Fixture.store, to: other)
        #expect(try bashCompletions("resv cancel ", in: sandbox) == [], "the default store is empty")
        let quoted = "'\(other.path)'"
        #expect(try bashCompletions("resv cancel --store \(quoted) abcd2", in: sandbox) == ["abcd2222"])
    }

    @Test func bashCompletesLandmarkNames() throws {
        let sandbox = try Sandbox()
        #expect(try bashCompletions("resv reserve -l Ha", in: sandbox) == ["Half Dome"])
        #expect(try bashCompletions("resv list --landmark Lake", in: sandbox) == ["Lake Tahoe"])
        #expect(try bashCompletions("resv reserve --landmark ", in: sandbox).count == 10)
        #expect(try bashCompletions("resv availability Tu", in: sandbox) == ["Turtle Rock"])
    }

    @Test func completionOfABrokenStoreOffersNothingAndSaysNothing() throws {
        let sandbox = try Sandbox()
        try sandbox.seed("{not json")
        #expect(try bashCompletions("resv cancel ", in: sandbox) == [])
        #expect(try sandbox.storeBytes() == Data("{not json".utf8))
    }
}
