import Foundation

/// Reference text with one source: `--help` and the man page's EXIT STATUS,
/// ENVIRONMENT, FILES and EXAMPLES sections are generated from it, and a test
/// holds the README's exit-code table to it.
public enum Reference {
    public struct Entry: Sendable {
        public var name: String
        public var summary: String
        public var detail: String
    }

    public static let exitCodes: [Entry] = [
        Entry(name: "\(ExitStatus.success)", summary: "success", detail: ""),
        Entry(
            name: "\(ExitStatus.refused)", summary: "refused",
            detail: "unknown or ambiguous id, no capacity, confirming a cancelled reservation"),
        Entry(
            name: "\(ExitStatus.usage)", summary: "usage or invalid input",
            detail: "bad date, party size, unknown landmark, unknown option, an invalid batch line"),
        Entry(
            name: "\(ExitStatus.dataError)", summary: "bad data",
            detail: "the store is not valid JSON or is from a newer resv (left unchanged)"),
        Entry(
            name: "\(ExitStatus.unavailable)", summary: "backend unavailable", detail: "the store cannot be read"),
        Entry(
            name: "\(ExitStatus.cannotWrite)", summary: "store cannot be written",
            detail: "a full disk, a read-only directory (the store is left unchanged)"),
        Entry(
            name: "\(ExitStatus.temporary)", summary: "temporary failure",
            detail: "another resv held the store's lock too long; retry"),
        Entry(name: "\(ExitStatus.notAuthorised)", summary: "not authorised", detail: ""),
    ]

    public static let environment: [Entry] = [
        Entry(name: "RESV_STORE", summary: "The JSON store file, when --store is not given.", detail: ""),
        Entry(
            name: "RESV_LOCK_TIMEOUT",
            summary: "Seconds a change waits for another resv's lock on the store before exiting 75 (default 5).",
            detail: ""),
        Entry(name: "NO_COLOR", summary: "When set and not empty: no colour, even on a terminal.", detail: ""),
        Entry(name: "TERM", summary: "When dumb: no colour.", detail: ""),
        Entry(name: "TZ", summary: "The time zone of dates in tables; JSON dates are always UTC.", detail: ""),
        Entry(
            name: "XDG_DATA_HOME", summary: "Holds the default store (default ~/.local/share).", detail: ""),
        Entry(
            name: "XDG_STATE_HOME", summary: "Holds the REPL's history (default ~/.local/state).", detail: ""),
        Entry(name: "HOME", summary: "Where the XDG defaults above start.", detail: ""),
    ]

    public static let files: [Entry] = [
        Entry(
            name: "$XDG_DATA_HOME/resv/reservations.json",
            summary: "The default store: {\"version\": 1, \"reservations\": [...]}, optionally with "
                + "\"landmarks\": [...] to replace the built-in catalog. Created 0600.",
            detail: ""),
        Entry(
            name: "$XDG_DATA_HOME/resv/reservations.json.lock",
            summary: "The lock beside the store (any store: its path and .lock): every change holds an exclusive "
                + "flock on it. Never renamed; safe to leave.",
            detail: ""),
        Entry(
            name: "$XDG_STATE_HOME/resv/history",
            summary: "The REPL's history, 1,000 lines, readable by its owner only.", detail: ""),
    ]

    /// Each example: what it does, then the commands.
    public static let examples: [Entry] = [
        Entry(
            name: "Book a visit from a script, keep its id, confirm it later:", summary: "",
            detail: """
                id=$(resv reserve -l "Half Dome" -d 2026-12-01T10:00:00-08:00 -n 4 --pending --json | jq -r .id)
                resv confirm "$id"
                """),
        Entry(
            name: "Ids of the active reservations at one landmark, through jq:", summary: "",
            detail: """
                resv list --json | jq -r '.[] | select(.landmark.name == "Lake Tahoe") | .id'
                """),
        Entry(
            name: "Cancel every reservation at a landmark:", summary: "",
            detail: """
                resv list --landmark "Lake Tahoe" --format ndjson | jq -r .id | xargs resv cancel
                """),
        Entry(
            name: "Book many visits at once, all or none, from one JSON object per line:", summary: "",
            detail: """
                printf '%s\\n' '{"landmarkId": "Half Dome", "date": "2026-12-01T10:00:00Z", "partySize": 2}' \\
                  '{"landmarkId": "Turtle Rock", "date": "2026-12-02T10:00:00Z", "partySize": 3}' |
                  resv reserve --batch - --json
                """),
        Entry(
            name: "The interactive prompt, then the same commands from a file:", summary: "",
            detail: """
                resv repl
                resv repl --stop-on-error < commands.txt
                """),
    ]

    /// "0 success; 1 refused; …" for `--help`.
    public static var exitCodeSummary: String {
        exitCodes.map { "\($0.name) \($0.summary)" }.joined(separator: "; ")
    }

    /// "code | meaning" as the man page's EXIT STATUS and the README's table say it.
    public static func exitCodeMeaning(_ entry: Entry) -> String {
        entry.detail.isEmpty ? entry.summary : "\(entry.summary): \(entry.detail)"
    }

    /// The man page sections the generator does not write, in mdoc.
    public static var manualSections: String {
        var lines: [String] = []
        func list(_ title: String, _ entries: [Entry], item: (Entry) -> String, text: (Entry) -> String) {
            lines += [".Sh \(title)", ".Bl -tag -width Ds"]
            for entry in entries { lines += [".It \(item(entry))", escaped(text(entry))] }
            lines.append(".El")
        }
        list("ENVIRONMENT", environment, item: { "Ev \($0.name)" }, text: \.summary)
        list("FILES", files, item: { "Pa \($0.name)" }, text: \.summary)
        list(
            "EXIT STATUS", exitCodes, item: { $0.name },
            text: exitCodeMeaning)
        lines.append(".Sh EXAMPLES")
        for (index, example) in examples.enumerated() {
            if index > 0 { lines.append(".Pp") }
            lines += [escaped(example.name), ".Bd -literal -offset indent"]
            lines += example.detail.split(separator: "\n").map { escaped(String($0)) }
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
    /// discussions, which mdoc warns about) turned into `.Pp`.
    public static func finishManual(_ page: String) -> String {
        var output: [String] = []
        var lines = page.split(separator: "\n", omittingEmptySubsequences: false)[...]
        if lines.last == "" { lines.removeLast() }
        while let line = lines.popFirst() {
            if line == ".Sh \"EXIT STATUS\"", lines.first == ".Ex -std" {
                lines.removeFirst()
                output.append(manualSections.trimmingCharacters(in: .newlines))
            } else if line.isEmpty {
                output.append(".Pp")
            } else {
                output.append(String(line))
            }
        }
        return output.joined(separator: "\n") + "\n"
    }
}
