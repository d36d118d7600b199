import Foundation
import ResvTestKit
import Testing

/// One source of completion candidates, tried in real bash, zsh and fish (the
/// scripts in `completions/`) and in the REPL in a pseudo-terminal: the same
/// words for the same command line, after options typed before the command too.
@Suite("One completion source in bash, zsh, fish and the REPL", .ownThreads, .timeLimit(.minutes(30)))
struct CompletionSourceTests {
    /// A store with one reservation of each kind Tab tells apart, an empty store in
    /// `RESV_STORE` (so only `--store` finds them), and a config file with two profiles.
    final class Setup {
        let sandbox: Sandbox
        let store: URL
        let confirmed: String
        let pending: String
        let cancelled: String
        let held: String

        init() throws {
            let sandbox = try Sandbox()
            let store = sandbox.directory.appendingPathComponent("bookings.json")
            self.sandbox = sandbox
            self.store = store
            func book(_ arguments: String...) throws -> String {
                let run = try sandbox.resv(["reserve", "--json"] + arguments, environment: ["RESV_STORE": store.path])
                let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
                return String(try #require(object?["id"] as? String, "\(run.stderr)").prefix(8))
            }
            confirmed = try book("-l", "Half Dome", "-d", "2030-05-01T09:00:00Z", "-n", "2")
            pending = try book("-l", "Lake Tahoe", "-d", "2030-05-02T09:00:00Z", "-n", "1", "--pending")
            cancelled = try book("-l", "Half Dome", "-d", "2030-05-03T09:00:00Z", "-n", "1")
            held = try book("-l", "Crater Lake", "-d", "2030-05-04T09:00:00Z", "-n", "1", "--hold", "24h")
            let cancel = try sandbox.resv(["cancel", cancelled], environment: ["RESV_STORE": store.path])
            #expect(cancel.status == 0, "\(cancel.stderr)")
            let config = sandbox.directory.appendingPathComponent("config/resv/config.json")
            try FileManager.default.createDirectory(
                at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(#"{"profiles": {"work": {"store": "/nowhere.json"}, "workshop": {}, "home": {}}}"#.utf8).write(
                to: config)
        }

        var environment: [String: String] {
            [
                "PATH": Binary.resv.deletingLastPathComponent().path + ":/usr/bin:/bin", "HOME": sandbox.directory.path,
                "TZ": "UTC", "RESV_STORE": sandbox.store.path, "TERM": "dumb", "COLUMNS": "150", "LINES": "40",
                "XDG_CONFIG_HOME": sandbox.directory.appendingPathComponent("config").path,
                "XDG_STATE_HOME": sandbox.directory.appendingPathComponent("state").path, "NO_COLOR": "1",
            ]
        }

        /// The command lines tried (with `resv` first) and the words each must offer, exactly.
        var cases: [(line: String, words: Set<String>)] {
            let all: Set = [confirmed, pending, cancelled, held]
            let active: Set = [confirmed, pending, held]
            let store = self.store.path
            return [
                ("resv --store \(store) cancel ", active),
                ("resv --store \(store) modify ", active),
                ("resv --store \(store) confirm ", [pending, held]),
                ("resv --store \(store) checkin ", [confirmed, pending]),
                ("resv --store \(store) noshow ", [confirmed, pending]),
                ("resv --store \(store) show ", all),
                ("resv --store \(store) --json log ", all),
                ("resv cancel --store \(store) \(confirmed) ", [pending, held]),
                ("resv --profile ", ["default", "home", "work", "workshop"]),
                ("resv config use ", ["default", "home", "work", "workshop"]),
                // Both start with more than was typed: a shell inserts "rk" and must still list them.
                ("resv config use wo", ["work", "workshop"]),
                ("resv config set ", ["store", "server", "token", "connectTimeout", "requestTimeout", "queue"]),
                ("resv config ", ["list", "get", "set", "unset", "use", "remove", "path"]),
            ]
        }

        /// How the confirmed one is described in zsh and fish: its landmark, its time there, its status.
        var confirmedDescription: String { "Half Dome, 2030-05-01 02:00 PDT, confirmed" }
    }

    // MARK: bash

    /// What bash's function offers for `line`, called as bash calls it on Tab.
    func bash(_ line: String, _ setup: Setup) throws -> Set<String> {
        let script = Binary.packageRoot.appendingPathComponent("completions/resv.bash").path
        let run = try runProcess(
            "/bin/bash",
            [
                "-c",
                """
                source "$1" || exit 90
                compopt() { :; }
                COMP_LINE="$2"; COMP_POINT=${#COMP_LINE}
                read -ra COMP_WORDS <<< "$COMP_LINE"
                [[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
                COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
                COMPREPLY=()
                _resv resv "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
                printf '%s\\n' "${COMPREPLY[@]}"
                """, "bash", script, line,
            ], environment: setup.environment, stdin: nil)
        #expect(run.status == 0 && run.stderr.isEmpty, "\(line): \(run.stderr)")
        // At an empty word bash's script offers the command's options too (`resv config <Tab>`:
        // --help); the words compared are the values.
        return Set(run.stdout.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("-") })
    }

    @Test func bashOffersTheSameWords() throws {
        let setup = try Setup()
        for (line, words) in setup.cases {
            #expect(try bash(line, setup) == words, "\(line)")
        }
    }

    // MARK: zsh and fish, interactive, in a pseudo-terminal

    /// An interactive zsh with compinit and resv's completion, its prompt `ready> `.
    func zsh(_ setup: Setup) throws -> PseudoTerminal {
        let functions = setup.sandbox.directory.appendingPathComponent("zsh-functions")
        try FileManager.default.createDirectory(at: functions, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: Binary.packageRoot.appendingPathComponent("completions/resv.zsh"),
            to: functions.appendingPathComponent("_resv"))
        let terminal = try PseudoTerminal("/usr/bin/zsh", ["-f", "-i"], environment: setup.environment)
        // Wide enough that no line wraps: a long store path would break the listing into pieces.
        try terminal.resize(columns: 400)
        // Without `listambiguous` off, candidates sharing a first character (two random ids, one
        // time in sixteen) get that character inserted and no listing until a second Tab.
        terminal.send(
            "fpath=(\(functions.path) $fpath); autoload -U compinit; compinit -u -D; unsetopt listambiguous; PS1='rea''dy> '; PS2=''\r"
        )
        try terminal.expect("ready> ")
        return terminal
    }

    /// The listing zsh shows on one Tab after `line`: each candidate with its description, if any.
    func zshListing(_ line: String, in terminal: PseudoTerminal) throws -> [String: String] {
        // zsh shows no listing while keys wait to be read: Tab goes once the line is shown, the
        // next keys once the listing is drawn and the line below it redrawn. Then the line is
        // cleared and a marker printed.
        terminal.send(line)
        var seen = try terminal.expect(line)
        terminal.send("\t")
        seen += try terminal.expect("ready> ")
        terminal.send("\u{15}echo END-$((40+2))\r")
        seen += try terminal.expect("END-42\r")
        try terminal.expect("ready> ")
        var listing: [String: String] = [:]
        for row in seen.components(separatedBy: "\r\n").dropFirst()
        where !row.contains("ready>") && !row.contains("END-") {
            let text = row.replacingOccurrences(of: "\u{07}", with: "")
            if let separator = text.range(of: " -- ") {
                let word = text[..<separator.lowerBound].trimmingCharacters(in: .whitespaces)
                listing[word] = text[separator.upperBound...].trimmingCharacters(in: .whitespaces)
            } else {
                for word in text.split(separator: " ") where !word.isEmpty { listing[String(word)] = "" }
            }
        }
        return listing
    }

    @Test func zshOffersTheSameWordsAndDescribesEachID() throws {
        let setup = try Setup()
        let terminal = try zsh(setup)
        for (line, words) in setup.cases {
            let listing = try zshListing(line, in: terminal)
            #expect(Set(listing.keys) == words, "\(line): \(listing)")
        }
        let ids = try zshListing("resv --store \(setup.store.path) show ", in: terminal)
        #expect(ids[setup.confirmed] == setup.confirmedDescription)
        #expect(ids[setup.held]?.hasSuffix(", held") == true)
        terminal.send("exit\r")
        _ = terminal.waitForExit()
    }

    /// An interactive fish with resv's completion, its prompt `ready> `.
    func fish(_ setup: Setup) throws -> PseudoTerminal {
        let script = Binary.packageRoot.appendingPathComponent("completions/resv.fish").path
        let terminal = try PseudoTerminal(
            "/usr/bin/fish",
            ["--no-config", "-i", "-C", "source '\(script)'; function fish_prompt; echo -n 'ready> '; end"],
            environment: setup.environment)
        try terminal.resize(columns: 400)
        try terminal.expect("ready> ")
        return terminal
    }

    /// What fish's completion offers for `line` (`complete -C`, as Tab asks it), with descriptions.
    func fishCompletions(_ line: String, in terminal: PseudoTerminal) throws -> [String: String] {
        terminal.send("complete -C '\(line)'; echo END-(math 40 + 2)\r")
        let seen = try terminal.expect("END-42\r")
        try terminal.expect("ready> ")
        var offered: [String: String] = [:]
        for row in seen.components(separatedBy: "\r\n").dropFirst() where !row.contains("END-") && !row.isEmpty {
            let parts = row.split(separator: "\t", maxSplits: 1).map(String.init)
            offered[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return offered
    }

    @Test func fishOffersTheSameWordsAndDescribesEachID() throws {
        let setup = try Setup()
        let terminal = try fish(setup)
        for (line, words) in setup.cases {
            let offered = try fishCompletions(line, in: terminal)
            #expect(Set(offered.keys) == words, "\(line): \(offered)")
        }
        let ids = try fishCompletions("resv --store \(setup.store.path) show ", in: terminal)
        #expect(ids[setup.confirmed] == setup.confirmedDescription)
        terminal.send("exit\r")
        _ = terminal.waitForExit()
    }

    // MARK: The REPL

    /// What the REPL lists on two Tabs after `line` (typed without `resv`).
    func replListing(_ line: String, in terminal: PseudoTerminal) throws -> Set<String> {
        terminal.send(line)
        try terminal.expect(line)
        // Three: when the candidates share a start (random ids, one time in sixteen), the
        // first two Tabs ring and insert it, and only the third lists them.
        terminal.send("\t\t\t")
        // The listing comes before the line is redrawn; then the line is cleared and a marker runs.
        terminal.send("\u{15}end-42\r")
        let seen = try terminal.expect("unknown command 'end-42'")
        try terminal.expect("resv> ")
        var words = Set<String>()
        for row in seen.components(separatedBy: "\r\n").dropFirst().dropLast() where !row.contains("resv>") {
            for word in row.split(separator: " ") where !word.isEmpty { words.insert(String(word)) }
        }
        return words
    }

    @Test func theReplOffersTheSameWords() throws {
        let setup = try Setup()
        let terminal = try PseudoTerminal(Binary.resv.path, ["repl"], environment: setup.environment)
        try terminal.resize(columns: 400)
        try terminal.expect("resv> ")
        for (line, words) in setup.cases {
            let offered = try replListing(String(line.dropFirst("resv ".count)), in: terminal)
            // readline shows a single candidate by completing it: those cases are covered in the shells.
            guard words.count > 1 else { continue }
            #expect(offered == words, "\(line): \(offered)")
        }
        terminal.send("exit\r")
        #expect(terminal.waitForExit() == 0)
    }

    /// The REPL's own `--store` is where Tab looks, as if typed before each line.
    @Test func theReplsStoreIsWhereTabLooks() throws {
        let setup = try Setup()
        // A name a shell would quote: a space, a quote and a backslash.
        let store = setup.sandbox.directory.appendingPathComponent(#"my store's \ copy.json"#)
        try FileManager.default.copyItem(at: setup.store, to: store)
        let terminal = try PseudoTerminal(
            Binary.resv.path, ["repl", "--store", store.path], environment: setup.environment)
        try terminal.expect("resv> ")
        let listed = try replListing("confirm ", in: terminal)
        #expect(listed == [setup.pending, setup.held], "\(listed) \(setup.pending) \(setup.held)")
        terminal.send("exit\r")
        #expect(terminal.waitForExit() == 0)
    }
}
