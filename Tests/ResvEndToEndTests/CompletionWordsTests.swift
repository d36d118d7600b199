import Foundation
import ResvTestKit
import Testing

/// The words Tab offers, as each shell and the REPL get them from the built `resv`: a
/// landmark's name from data never reaches the terminal raw, and names match in any case.
@Suite("Completion words: safe, in any case", .ownThreads, .timeLimit(.minutes(30)))
struct CompletionWordsTests {
    /// A store whose catalog holds a hostile name (clear screen, OSC 52 clipboard, BEL, CR),
    /// and a plain one.
    static let hostile = "Evil\u{1B}[2J\u{1B}]52;c;aGk=\u{07}\rRock"

    func sandbox() throws -> Sandbox {
        let sandbox = try Sandbox()
        let name = String(decoding: try JSONSerialization.data(withJSONObject: [Self.hostile]), as: UTF8.self)
            .dropFirst().dropLast()
        try sandbox.seed(
            #"{"version": 1, "reservations": [], "landmarks": ["#
                + #"{"id": "11111111-1111-4111-8111-111111111111", "name": \#(name), "location": "X", "category": "lakes"},"#
                + #"{"id": "22222222-2222-4222-8222-222222222222", "name": "Half Dome", "location": "Y", "category": "mountains"}]}"#
        )
        return sandbox
    }

    /// What `resv` answers the completion request of `shell` for `resv reserve -l PREFIX`.
    func words(shell: String, prefix: String, in sandbox: Sandbox) throws -> Run {
        let line = ["resv", "reserve", "-l", prefix]
        let run = try sandbox.resv(
            ["---completion", "reserve", "--", "--landmark", "3", String(prefix.count)] + line,
            environment: ["SAP_SHELL": shell, "SAP_SHELL_VERSION": "1"])
        #expect(run.status == 0, "\(shell): \(run.stderr)")
        return run
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func aNameIsNeverWrittenRawToAShell(shell: String) throws {
        let sandbox = try sandbox()
        let run = try words(shell: shell, prefix: "Ev", in: sandbox)
        let controls = run.stdout.unicodeScalars.filter { $0.value < 0x20 && $0 != "\n" && $0 != "\t" }
        #expect(controls.isEmpty, "\(shell): \(run.stdout.debugDescription)")
        #expect(run.stdout.contains(#"Evil\e[2J\e]52;c;aGk=\u{7}\rRock"#), "\(shell): \(run.stdout.debugDescription)")
    }

    @Test func bashOffersANameInAnyCase() throws {
        let sandbox = try sandbox()
        let script = Binary.packageRoot.appendingPathComponent("completions/resv.bash").path
        let run = try sandbox.shell(
            """
            source '\(script)' || exit 90
            compopt() { :; }
            COMP_LINE='resv reserve -l ha'; COMP_POINT=${#COMP_LINE}
            COMP_WORDS=(resv reserve -l ha); COMP_CWORD=3; COMPREPLY=()
            _resv resv ha -l
            printf '%s\\n' "${COMPREPLY[@]}"
            """)
        #expect(run.stdout == "Half Dome\n", "\(run.stdout) \(run.stderr)")
        for shell in ["zsh", "fish"] {
            #expect(try words(shell: shell, prefix: "hA", in: sandbox).stdout.contains("Half Dome"), "\(shell)")
        }
    }

    /// zsh matches what it is given against the word typed: its script asks for any case.
    @Test func zshsScriptMatchesInAnyCase() throws {
        let script = try String(
            contentsOf: Binary.packageRoot.appendingPathComponent("completions/resv.zsh"), encoding: .utf8)
        #expect(script.contains("_describe -V '' non_empty_completions -M 'm:{[:lower:]}={[:upper:]}'"))
    }

    @Test func theReplCompletesANameInAnyCaseAndNeverEchoesItRaw() throws {
        let sandbox = try sandbox()
        // A dumb terminal: whatever escape sequence shows up came from the data.
        let state = sandbox.directory.appendingPathComponent("state").path
        let environment = ["TERM": "dumb", "NO_COLOR": "1", "TZ": "UTC", "PATH": "/usr/bin:/bin"].merging([
            "HOME": sandbox.directory.path, "RESV_STORE": sandbox.store.path, "XDG_STATE_HOME": state,
        ]) { $1 }
        let terminal = try PseudoTerminal(Binary.resv.path, ["repl"], environment: environment)
        try terminal.resize(columns: 200)
        try terminal.expect("resv> ")
        terminal.send("reserve -l ha\t")
        _ = try terminal.expect("Half Dome")
        terminal.send("\u{15}reserve -l ev\t")
        let seen = try terminal.expect("Rock")
        #expect(!seen.contains("\u{1B}[2J") && !seen.contains("\u{1B}]52"), "\(seen.debugDescription)")
        #expect(seen.contains(#"\e[2J"#), "\(seen.debugDescription)")
        terminal.send("\u{15}exit\r")
        #expect(terminal.waitForExit() == 0)
    }
}
