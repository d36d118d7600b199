import Foundation

/// Reference text with one source: `--help` and the man page's EXIT STATUS,
/// ENVIRONMENT, FILES and EXAMPLES sections are generated from it, and a test
/// holds the README's exit-code table to it.
public enum Reference {
    /// The version of resv and resv-server, which ship together: the release's number
    /// (0.1.0), or the Debian package's version `make dist` stamps into the binaries it
    /// packages (`scripts/stamp-version` writes it over the `~`s of `versionStamp`, in
    /// place, so a packaged binary says its package's version without being built again).
    public static let version = stamped(versionStamp)

    /// The stamp: its marker, the version, `~`s for a longer one, and an end.
    static let versionStamp =
        "@(#)resv-version:0.1.0~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~|"

    /// The version the stamp holds: between the marker and the end, without the `~`s.
    /// Not optimised, so that the compiler never reads the literal's text itself.
    @inline(never) @_optimize(none)
    static func stamped(_ stamp: String) -> String {
        let bytes = Array(stamp.utf8)
        guard let start = bytes.firstIndex(of: UInt8(ascii: ":")) else { return stamp }
        let text = bytes[(start + 1)...].prefix { $0 != UInt8(ascii: "~") && $0 != UInt8(ascii: "|") }
        return String(decoding: text, as: UTF8.self)
    }

    /// An exit code: a short meaning for `--help`, and what causes it.
    public struct ExitCode: Sendable {
        public var code: Int32
        public var summary: String
        public var detail: String = ""

        /// "summary: detail", as the man page's EXIT STATUS and the README's table say it.
        public var meaning: String { detail.isEmpty ? summary : "\(summary): \(detail)" }
    }

    /// A name (variable, path, example title) and its text.
    public struct Item: Sendable {
        public var name: String
        public var text: String
    }

    public static let exitCodes: [ExitCode] = [
        ExitCode(code: ExitStatus.success, summary: "success"),
        ExitCode(
            code: ExitStatus.refused, summary: "refused",
            detail: "unknown or ambiguous id, no capacity, resv wait reaching its timeout or waiting for a status a "
                + "cancelled or expired reservation can no longer reach, a watch cursor past the "
                + "history kept, a hold that expired before its confirm, too many live "
                + "holds on a server, confirming a waitlisted reservation, confirming or modifying a cancelled reservation, "
                + "a check-in or no-show of a reservation that is not pending or confirmed, or made twice, a no-show "
                + "before the visit's time, "
                + "a reservation changed since it was read, nothing to undo or redo, an undo (redo) a later change conflicts "
                + "with or one that would bring a reservation back on a date that has passed; the same failure gets the same code from a store file and from a server (by the code of "
                + "the server's answer)"),
        ExitCode(
            code: ExitStatus.usage, summary: "usage or invalid input",
            detail: "bad date, party size, unknown landmark, unknown option, an invalid batch line, a --jq expression "
                + "that does not compile or fails on the output, a token that would go over http:// to another "
                + "machine (use https)"),
        ExitCode(
            code: ExitStatus.dataError, summary: "bad data",
            detail: "the store is not valid JSON, is from a newer resv or is larger than RESV_MAX_STORE_BYTES "
                + "(left unchanged), or a server's answer is not valid JSON, is cut short, is larger than 64 MiB, "
                + "or holds an invalid reservation"),
        ExitCode(
            code: ExitStatus.unavailable, summary: "backend unavailable",
            detail: "the store cannot be read or is not a file (a directory, a FIFO, a device), or the server "
                + "cannot be reached, gave no answer within RESV_REQUEST_TIMEOUT, cannot reach its database, "
                + "failed (5xx) after retries or "
                + "lacks a route (an older resv-server); an https server whose certificate does not verify (nothing is "
                + "sent); an id that the cache of an unreachable server does not hold; "
                + "--jq without libjq (libjq1)"),
        ExitCode(
            code: ExitStatus.internalError, summary: "internal error",
            detail: "an error resv does not expect: a bug; please report it with the command that met it"),
        ExitCode(
            code: ExitStatus.cannotWrite, summary: "store cannot be written",
            detail: "a full disk, a read-only directory, a store file its owner may not write, a lock file that is "
                + "a link, a change that would make the store larger than RESV_MAX_STORE_BYTES, a lock file or a link "
                + "on the store's path that belongs to another user (the store is left unchanged), a store named by "
                + "hand (--store, RESV_STORE, the config file) in a folder that does not exist (none is made)"),
        ExitCode(
            code: ExitStatus.cannotWriteOutput, summary: "output cannot be written",
            detail:
                "stdout failed (a full disk); what the command did is done. A reader that closes the pipe early (head) is no error"
        ),
        ExitCode(
            code: ExitStatus.temporary, summary: "temporary failure",
            detail: "another resv held the store's lock too long, the server kept answering 429, its database "
                + "kept breaking the request under load (503 serverBusy), or a change's answer was lost and the "
                + "server could not say whether it was made (rerun with the --idempotency-key given); retry"),
        ExitCode(
            code: ExitStatus.notAuthorised, summary: "not authorised",
            detail: "not logged in to the server (no token kept for its origin: 'resv login'), the server refused "
                + "the token (401; an expired one is said so when the server says it) or its scope (403), "
                + "or a config file holding a token is readable by others"),
        ExitCode(
            code: ExitStatus.interrupted, summary: "interrupted",
            detail: "Ctrl-C; a change is written whole or not at all, so the store is as before or fully updated"),
    ]

    public static let environment: [Item] = [
        Item(name: "RESV_STORE", text: "The JSON store file, when --store is not given."),
        Item(
            name: "RESV_SERVER",
            text: "A resv-server URL to use instead of the file, when --server is not given (and no --store)."),
        Item(
            name: "RESV_TOKEN",
            text: "The bearer token for RESV_SERVER's server (else the config file's), sent to no other "
                + "origin: not to one --server or a profile names (never a flag: argv shows in ps). Never printed."),
        Item(
            name: "RESV_CACERT",
            text: "CA certificates (PEM) to verify an https server with instead of the system's, when --cacert "
                + "is not given."),
        Item(name: "RESV_CONFIG", text: "The config file, when --config is not given."),
        Item(
            name: "RESV_PROFILE",
            text: "The config file's profile to use, when --profile is not given (before the file's own choice)."),
        Item(
            name: "RESV_CONNECT_TIMEOUT",
            text:
                "Seconds without progress (connecting, or waiting for data) before a request to the server is given up (default 5)."
        ),
        Item(
            name: "RESV_REQUEST_TIMEOUT",
            text: "Seconds one command may spend on the server in all, retries and slow bodies included (default 30). "
                + "It bounds each request of resv wait and resv watch on top of the long poll's own wait, "
                + "never the wait."),
        Item(
            name: "RESV_QUEUE",
            text: "When true: reserve, cancel, confirm and modify keep a change the server cannot be reached for "
                + "in its outbox, as --queue does (config key queue; default false)."),
        Item(
            name: "RESV_LOCK_TIMEOUT",
            text: "Seconds a change waits for another resv's lock on the store before exiting 75 (default 5)."),
        Item(
            name: "RESV_MAX_STORE_BYTES",
            text: "The largest store file read, in bytes; a larger one is refused before it is read, exit 65, "
                + "and a change that would make the store larger is refused, exit 73 (default 268435456, 256 MiB)."),
        Item(name: "NO_COLOR", text: "When set and not empty: no colour, even on a terminal."),
        Item(
            name: "RESV_PAGER",
            text: "The pager for an answer taller than the terminal (list, log, show, availability, landmarks, "
                + "fetch); empty or cat for none (default: PAGER, else less -FRX; --no-pager for one command)."),
        Item(name: "PAGER", text: "The pager when RESV_PAGER is not set."),
        Item(name: "LESS", text: "less's options; FRX when not set."),
        Item(name: "TERM", text: "When dumb: no colour."),
        Item(
            name: "TZ",
            text: "The time zone of changes in tables (a visit is shown at its landmark's time); "
                + "JSON dates are always UTC."),
        Item(
            name: "XDG_DATA_HOME", text: "Holds the default store (default ~/.local/share)."),
        Item(
            name: "XDG_STATE_HOME", text: "Holds the REPL's history and servers' outboxes (default ~/.local/state)."),
        Item(name: "XDG_CONFIG_HOME", text: "Holds the config file (default ~/.config)."),
        Item(name: "XDG_CACHE_HOME", text: "Holds servers' cached answers (default ~/.cache)."),
        Item(name: "HOME", text: "Where the XDG defaults above start."),
    ]

    public static let files: [Item] = [
        Item(
            name: "$XDG_DATA_HOME/resv/reservations.json",
            text: "The default store: {\"version\": 1, \"reservations\": [...]}, optionally with "
                + "\"landmarks\": [...] to replace the built-in catalog. Created 0600."),
        Item(
            name: "$XDG_DATA_HOME/resv/reservations.json.lock",
            text: "The lock beside the store (any store: its path and .lock; for a symbolic link, beside the file "
                + "it points to): every change holds an exclusive flock on it. Never renamed, never followed if it "
                + "is a link; safe to leave."),
        Item(
            name: "$XDG_STATE_HOME/resv/outbox/",
            text: "A file per server and token of changes queued with --queue while the server could not be reached "
                + "(resv sync, resv outbox): written like a store (locked, atomic, fsynced, 0600)."),
        Item(
            name: "$XDG_STATE_HOME/resv/history",
            text: "The REPL's history, 1,000 lines, readable by its owner only."),
        Item(
            name: "$XDG_CONFIG_HOME/resv/config.json",
            text:
                "Settings: {\"store\": ..., \"server\": ..., \"token\": ..., \"connectTimeout\": ..., \"requestTimeout\": ...}, "
                + "the profile default; \"profiles\": {\"work\": {...}} holds named ones and \"profile\" the one in use. "
                + "Below flags and the environment. Written 0600 by resv config set; refused when it holds a token "
                + "and others can read it."),
        Item(
            name: "$XDG_CACHE_HOME/resv/servers/",
            text: "The last answers of each server (one folder per URL and token, named by a hash; a file per "
                + "list, at most 64 MiB): read when the server cannot be reached, with --offline, and by Tab "
                + "completion."),
    ]

    /// Each example: what it does (name), then the commands (text).
    public static let examples: [Item] = [
        Item(
            name: "Book a visit from a script, keep its id, confirm it later:",
            text: """
                id=$(resv reserve -l "Half Dome" -d 2026-12-01T10:00:00-08:00 -n 4 --pending --json | jq -r .id)
                resv confirm "$id"
                """),
        Item(
            name: "Ids of the active reservations at one landmark, through jq:",
            text: """
                resv list --json | jq -r '.[] | select(.landmark.name == "Lake Tahoe") | .id'
                """),
        Item(
            name: "Cancel every reservation at a landmark:",
            text: """
                resv list --landmark "Lake Tahoe" --format ndjson | jq -r .id | xargs resv cancel
                """),
        Item(
            name: "Change a visit, look at its history, then take the change back:",
            text: """
                resv modify b37c --party-size 6 --note "two more"
                resv log b37c
                resv undo
                """),
        Item(
            name: "Book many visits at once, all or none, from one JSON object per line:",
            text: """
                printf '%s\\n' '{"landmarkId": "Half Dome", "date": "2026-12-01T10:00:00Z", "partySize": 2}' \\
                  '{"landmarkId": "Turtle Rock", "date": "2026-12-02T10:00:00Z", "partySize": 3}' |
                  resv reserve --batch - --json
                """),
        Item(
            name: "Days of the coming month with room for a party of 6 at Half Dome:",
            text: """
                resv availability "Half Dome" --to "$(date -d '+30 days' +%F)" --format ndjson |
                  jq -r 'select(.left >= 6) | .date'
                """),
        Item(
            name: "Against a shared resv-server; the token kept for that server only, never on the command line:",
            text: """
                resv login https://resv.example.com < ~/.resv-token
                resv reserve -l "Half Dome" -d 2026-12-01T10:00:00-08:00 -n 2 --idempotency-key nightly-2026-12-01
                resv list --offline
                """),
        Item(
            name: "The coming visits into a spreadsheet (CSV, a header row, the JSON field names):",
            text: """
                resv list --format csv > visits.csv
                """),
        Item(
            name: "Every visit into a calendar (iCalendar; import the file again to update it):",
            text: """
                resv list --all --format ics > visits.ics
                """),
        Item(
            name: "The three largest parties, largest first:",
            text: """
                resv list --sort party-size --reverse --limit 3
                """),
        Item(
            name: "A work server beside the personal store, as profiles; options before the subcommand:",
            text: """
                resv config set server https://resv.example.com --profile work
                resv config set token --profile work < ~/.resv-token
                resv config use work
                resv --profile default list
                """),
        Item(
            name: "The interactive prompt, then the same commands from a file:",
            text: """
                resv repl
                resv repl --stop-on-error < commands.txt
                """),
    ]

    /// "0 success; 1 refused; ..." for `--help`.
    public static var exitCodeSummary: String {
        exitCodes.map { "\($0.code) \($0.summary)" }.joined(separator: "; ")
    }

    /// What a man page has beyond the command tree.
    public struct Manual: Sendable {
        public var environment: [Item]
        public var files: [Item]
        public var exitCodes: [ExitCode]
        public var examples: [Item]
    }

    public static let resvManual = Manual(
        environment: environment, files: files, exitCodes: exitCodes, examples: examples)

    /// The man page sections the generator does not write for resv, in mdoc.
    public static var manualSections: String { manualSections(resvManual) }

    /// The man page sections the generator does not write, in mdoc.
    public static func manualSections(_ manual: Manual, commandExamples: [(command: String, lines: [String])] = [])
        -> String
    {
        var lines: [String] = []
        func list(_ title: String, _ items: [(tag: String, text: String)]) {
            guard !items.isEmpty else { return }
            lines += [".Sh \(title)", ".Bl -tag -width Ds"]
            for item in items { lines += [".It \(item.tag)", escaped(item.text)] }
            lines.append(".El")
        }
        list("ENVIRONMENT", manual.environment.map { ("Ev \($0.name)", $0.text) })
        list("FILES", manual.files.map { ("Pa \($0.name)", $0.text) })
        list("EXIT STATUS", manual.exitCodes.map { ("\($0.code)", $0.meaning) })
        lines.append(".Sh EXAMPLES")
        for (index, example) in manual.examples.enumerated() {
            if index > 0 { lines.append(".Pp") }
            lines += [escaped(example.name), ".Bd -literal -offset indent"]
            lines += example.text.split(separator: "\n").map { escaped(String($0)) }
            lines.append(".Ed")
        }
        for example in commandExamples {
            lines += [".Ss \(example.command)", ".Bd -literal -offset indent"]
            lines += example.lines.map(escaped)
            lines.append(".Ed")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Text safe on an mdoc line: backslashes escaped, no line read as a macro.
    public static func escaped(_ text: String) -> String {
        let line = text.replacingOccurrences(of: "\\", with: "\\e")
        return line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : line
    }

    /// The generator's page made whole: its stock EXIT STATUS (`.Ex -std`)
    /// replaced by the sections above, and blank lines (paragraph breaks in
    /// discussions, which mdoc warns about) turned into `.Pp`. Each command's
    /// "Examples:" block (the end of its discussion, lines indented by two
    /// spaces, which mdoc would run together) moves to EXAMPLES, under the
    /// command's name, as literal lines.
    public static func finishManual(_ page: String, _ manual: Manual = resvManual) -> String {
        var output: [String] = []
        var lines = page.split(separator: "\n", omittingEmptySubsequences: false)[...]
        if lines.last == "" { lines.removeLast() }
        let tool = lines.first { $0.hasPrefix(".Dt ") }.map { $0.dropFirst(4).split(separator: " ")[0].lowercased() }
        // The command each `.It Em NAME` opens, by the depth of `.Bl` lists it is in.
        var depth = 0
        var commands: [Int: String] = [:]
        var commandExamples: [(command: String, lines: [String])] = []
        while let line = lines.popFirst() {
            if line.hasPrefix(".Bl ") { depth += 1 }
            if line == ".El" {
                commands = commands.filter { $0.key < depth }
                depth -= 1
            }
            if line.hasPrefix(".It Em ") {
                commands = commands.filter { $0.key < depth }
                commands[depth] = String(line.dropFirst(".It Em ".count))
            }
            if line == "Examples:" {
                var examples: [String] = []
                while let next = lines.first, next.hasPrefix("  ") {
                    examples.append(String(next.dropFirst(2)))
                    lines.removeFirst()
                }
                if output.last == ".Pp" { output.removeLast() }
                let path = commands.sorted { $0.key < $1.key }.map(\.value)
                let command = ((tool.map { [$0] } ?? []) + path).joined(separator: " ")
                commandExamples.append((command: command, lines: examples))
            } else if line == ".Sh \"EXIT STATUS\"", lines.first == ".Ex -std" {
                lines.removeFirst()
                output.append(
                    manualSections(manual, commandExamples: commandExamples).trimmingCharacters(in: .newlines))
            } else if line.isEmpty {
                output.append(".Pp")
            } else {
                output.append(String(line))
            }
        }
        return output.joined(separator: "\n") + "\n"
    }
}
