import Foundation
import ResvTestKit
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The bash completion scripts in a real bash, in a folder that holds folders
/// named like commands: Tab never turns a command, an option or a value into a
/// folder, completes file names where a file is expected, and takes the names
/// it offers (from a store, or a server's cache) as data, never as code.
@Suite("Bash completion in a real bash", .ownThreads, .timeLimit(.minutes(30)))
struct BashCompletionTests {
    /// A folder to complete in: the folders `list/`, `config/` and `data/`, the
    /// files `stores.json` and `notes.txt`, and a store of its own.
    final class Folder {
        let sandbox: Sandbox
        var path: String { sandbox.directory.path }

        init() throws {
            sandbox = try Sandbox()
            let manager = FileManager.default
            for folder in ["list", "config", "data"] {
                try manager.createDirectory(
                    at: sandbox.directory.appendingPathComponent(folder), withIntermediateDirectories: true)
            }
            for file in ["stores.json", "notes.txt"] {
                try Data("{}".utf8).write(to: sandbox.directory.appendingPathComponent(file))
            }
        }
    }

    struct Completion {
        /// COMPREPLY, one entry per element.
        var words: [String]
        /// The options the completion function set with compopt for this word.
        var options: [String]
    }

    /// What bash's completion function for `tool` offers for `line` (the cursor at its end),
    /// run in `folder` with resv on PATH, as bash runs it on Tab: COMP_WORDS, COMP_CWORD,
    /// COMP_LINE and COMP_POINT set, and `compopt` recorded (outside a real Tab it does nothing).
    func complete(_ line: String, tool: String = "resv", in folder: Folder) throws -> Completion {
        let script = Binary.packageRoot.appendingPathComponent("completions/\(tool).bash").path
        let run = try folder.sandbox.shell(
            """
            cd \(quoted(folder.path)) || exit 91
            source \(quoted(script)) || exit 90
            printf 'registered %s\\n' "$(complete -p \(tool))"
            compopt() { printf 'compopt %s\\n' "$*" >&3; }
            COMP_LINE=\(quoted(line)); COMP_POINT=${#COMP_LINE}
            read -ra COMP_WORDS <<< "$COMP_LINE"
            [[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
            COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
            COMPREPLY=()
            _\(tool) \(tool) "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}" 3>&1 >/dev/null
            printf 'word %s\\n' "${COMPREPLY[@]}"
            """)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        // Not `complete -o filenames`, which makes every word a file name to readline.
        #expect(lines.first == "registered complete -F _\(tool) \(tool)")
        return Completion(
            words: lines.filter { $0.hasPrefix("word ") }.map { String($0.dropFirst(5)) }.filter { !$0.isEmpty },
            options: lines.filter { $0.hasPrefix("compopt ") }.map { String($0.dropFirst(8)) })
    }

    func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    @Test func commandsAndOptionsAreNeverFileNames() throws {
        let folder = try Folder()
        for (line, words) in [
            ("resv lis", ["list"]), ("resv confi", ["config", "confirm"]), ("resv list --sta", ["--status"]),
            ("resv list --status con", ["confirmed"]), ("resv list --format js", ["json"]),
            ("resv un", ["undo"]), ("resv lo", ["log", "login", "logout"]), ("resv mod", ["modify"]),
            ("resv undo --for", ["--format"]),
        ] {
            let completion = try complete(line, in: folder)
            #expect(Set(completion.words) == Set(words), "\(line)")
            #expect(completion.options.isEmpty, "\(line): \(completion.options)")
        }
        let server = try complete("resv-server se", tool: "resv-server", in: folder)
        #expect(server.words == ["serve"])
        #expect(server.options.isEmpty)
    }

    @Test func filesCompleteWhereAFileIsExpected() throws {
        let folder = try Folder()
        for (line, words) in [
            ("resv list --store ", ["stores.json", "list", "config", "data"]),
            ("resv list --store st", ["stores.json"]), ("resv reserve --batch no", ["notes.txt"]),
            ("resv config list --config d", ["data"]),
        ] {
            let completion = try complete(line, in: folder)
            #expect(Set(completion.words) == Set(words), "\(line)")
            #expect(completion.options == ["-o filenames"], "\(line): readline quotes them and marks folders")
        }
        let server = try complete("resv-server serve --landmarks st", tool: "resv-server", in: folder)
        #expect(server.words == ["stores.json"])
        #expect(server.options == ["-o filenames"])
    }

    @Test func landmarkNamesWithSpacesAreQuotedByReadline() throws {
        let folder = try Folder()
        let halfDome = try complete("resv reserve -l Ha", in: folder)
        #expect(halfDome.words == ["Half Dome"])
        #expect(halfDome.options == ["-o filenames"], "a name with a space must be quoted")
        let bridges = try complete("resv reserve -l M", in: folder)
        #expect(Set(bridges.words) == ["Mackinac Bridge", "Mount Rainier"])
        #expect(bridges.options == ["-o filenames"])
        let plain = try complete("resv list --status pe", in: folder)
        #expect(plain.words == ["pending"])
        #expect(plain.options.isEmpty)
    }

    /// Given as file names, a name that is also a folder here would get a slash: it is quoted by the script.
    @Test func aLandmarkNamedLikeAFolderIsQuotedWithoutASlash() throws {
        let folder = try Folder()
        try FileManager.default.createDirectory(
            at: folder.sandbox.directory.appendingPathComponent("Half Dome"), withIntermediateDirectories: true)
        let halfDome = try complete("resv reserve -l Ha", in: folder)
        #expect(halfDome.words == [#"Half\ Dome"#])
        #expect(halfDome.options.isEmpty)
    }

    /// A name from the store (or a server's cache) is offered, never run: compgen -W would
    /// run the command substitution in it at every Tab.
    @Test func namesFromTheStoreAreNotExpanded() throws {
        let folder = try Folder()
        let marker = folder.sandbox.directory.appendingPathComponent("ran").path
        let name = "$(touch \(marker))Evil"
        let landmarks =
            #"[{"id":"11111111-1111-4111-8111-111111111111","name":"\#(name)","location":"X","category":"lakes"}]"#
        try folder.sandbox.seed(#"{"version": 1, "reservations": [], "landmarks": \#(landmarks)}"#)
        let all = try complete("resv reserve -l ", in: folder)
        #expect(!FileManager.default.fileExists(atPath: marker), "Tab ran a landmark's name")
        #expect(all.words == [name])
    }

    // MARK: In an interactive bash, Tab by Tab

    /// An interactive bash in a pseudo-terminal, in `folder`, with the completion sourced.
    func interactiveBash(in folder: Folder) throws -> PseudoTerminal {
        let bin = Binary.resv.deletingLastPathComponent().path
        let terminal = try PseudoTerminal(
            "/bin/bash", ["--norc", "--noprofile", "-i"],
            environment: [
                "PATH": bin + ":/usr/bin:/bin", "HOME": folder.path, "TERM": "dumb", "PS1": "$ ", "TZ": "UTC",
                "RESV_STORE": folder.sandbox.store.path, "INPUTRC": "/dev/null",
            ])
        let script = Binary.packageRoot.appendingPathComponent("completions/resv.bash").path
        terminal.send("cd \(quoted(folder.path)) && source \(quoted(script)) && PS1='rea''dy> '\n")
        try terminal.expect("ready> ")
        return terminal
    }

    @Test func tabInBashCompletesCommandsNotFolders() throws {
        let folder = try Folder()
        try FileManager.default.createDirectory(
            at: folder.sandbox.directory.appendingPathComponent("Half Dome"), withIntermediateDirectories: true)
        let terminal = try interactiveBash(in: folder)
        terminal.send("resv lis\t")
        let command = try terminal.expect("list ")
        #expect(command.hasSuffix("t "), "\(command.debugDescription)")
        terminal.send("--store st\t")
        let file = try terminal.expect("stores.json ")
        #expect(file.hasSuffix("ores.json "), "\(file.debugDescription)")
        terminal.send("\u{15}resv list --store da\t")  // C-u: a fresh line
        let directory = try terminal.expect("data/")
        #expect(directory.hasSuffix("ta/"), "\(directory.debugDescription)")
        terminal.send("\u{15}resv reserve -l Ha\t")
        let name = try terminal.expect(#"Half\ Dome "#)
        #expect(name.hasSuffix(#"lf\ Dome "#), "\(name.debugDescription)")
        terminal.send("\u{15}exit\n")
        _ = terminal.waitForExit()
    }
}
