import ArgumentParser
import Foundation
import ReservationCore

/// What Tab offers in the REPL, worked out from the command tree itself (so a
/// new option completes without touching this file). Values that come from
/// data (landmark names, reservation ids, profiles) are asked of the same
/// completion functions the bash, zsh and fish scripts call (`ShellCompletion`),
/// through the same `---completion` request, so Tab offers the same words in
/// the REPL as in a shell.
struct Completer: Sendable {
    /// A value the command line can hold: an option's, or a positional argument's.
    struct Value: Sendable {
        /// A fixed list of values (`--status`, `--format`, config keys); empty when none.
        var values: [String] = []
        /// Whether `ShellCompletion` offers the values (landmarks, ids, profiles).
        var custom = false
    }

    struct Option: Sendable {
        var names: [String]
        var takesValue: Bool
        var value: Value
        var isRepeating: Bool
    }

    struct Command: Sendable {
        var name: String
        var options: [Option]
        var positionals: [Value] = []
        /// Whether the last positional takes any number of words (`cancel ID…`).
        var lastRepeats = false
        var subcommands: [Command] = []
    }

    /// Asks the completion function of `argument` (`--landmark`, `positional@0`) of the command
    /// at `path` for candidates; `words` is the command line as a shell hands it over, `resv`
    /// first and the word being completed last.
    typealias Ask = @Sendable (_ path: [String], _ argument: String, _ words: [String]) -> [String]

    static let replWords = ["exit", "quit", "help"]

    /// The root: the options that may come before a command, and the commands.
    let root: Command
    var commands: [Command] { root.subcommands }

    /// The command tree of `resv`, built once per process: it is the same every time, and
    /// dumping it costs as much as parsing a command line several times over.
    static let resv = Completer(toolInfo: ResvDescribed._dumpHelp())

    /// The command tree as ArgumentParser describes it.
    init(toolInfo json: String) {
        let info = try? JSONDecoder().decode(ToolInfo.self, from: Data(json.utf8))
        var root = info.map { Self.command($0.command) } ?? Command(name: "resv", options: [])
        // `repl` inside the REPL is refused, so it is not offered.
        root.subcommands.removeAll { $0.name == "repl" }
        self.root = root
    }

    /// The words of the line before the cursor word, and the cursor word: what Tab offers there.
    /// `leading` are the REPL's own backend options, which the completion functions read as if
    /// typed before the line (the line's own `--store` comes later, so it wins).
    func candidates(before: String, word: String, leading: [String] = [], ask: Ask) -> [String] {
        guard let scanned = try? ShellWords.scan(before) else { return [] }
        var words = scanned.words
        // A word still being typed before the cursor word cannot happen: readline splits at the cursor word.
        if scanned.endsInWord { words.removeLast() }
        let typed = words.first == "resv" ? Array(words.dropFirst()) : words

        var node = root
        var path: [String] = []
        var used = Set<String>()
        var positionals = 0
        var valueOf: Option?
        var index = 0
        while index < typed.count {
            let current = typed[index]
            index += 1
            if current.hasPrefix("-"), current.count > 1 {
                let name = String(current.split(separator: "=", maxSplits: 1).first ?? "")
                guard let option = node.option(named: name) else { continue }
                used.formUnion(option.names)
                if option.takesValue, !current.contains("=") {
                    if index == typed.count { valueOf = option }
                    index += 1
                }
            } else if positionals == 0, let sub = node.subcommands.first(where: { $0.name == current }) {
                node = sub
                path.append(current)
                used = []
            } else {
                positionals += 1
            }
        }

        // After a word that names no command, nothing fits.
        if !node.subcommands.isEmpty, positionals > 0, path != ["help"] { return [] }
        // The words as a shell hands them over, quoted, which is how the completion functions read
        // them (`--store 'my store.json'`); the word being typed is the prefix, as it is.
        let line = ["resv"] + leading + typed.map(ShellWords.quote) + [word]
        func offer(_ value: Value, argument: String) -> [String] {
            let found = value.custom ? ask(path, argument, line) : value.values
            // Values from data (landmark names) in any case, as they are read when typed.
            return found.filter { value.custom ? $0.hasCaseInsensitivePrefix(word) : $0.hasPrefix(word) }
        }
        if let option = valueOf {
            return offer(option.value, argument: option.names.first { $0.hasPrefix("--") } ?? option.names[0])
        }
        if word.hasPrefix("-") {
            return node.options.filter { $0.names.allSatisfy { !used.contains($0) } || $0.isRepeating }
                .compactMap { $0.names.first { $0.hasPrefix("--") } ?? $0.names.first }
                .filter { $0.hasPrefix(word) }.sorted()
        }
        if path == ["help"] {
            return positionals == 0 ? commands.map(\.name).filter { $0.hasPrefix(word) && $0 != "help" }.sorted() : []
        }
        if !node.subcommands.isEmpty, positionals == 0 {
            let names = node.subcommands.map(\.name) + (path.isEmpty ? Self.replWords : [])
            return Set(names).filter { $0.hasPrefix(word) }.sorted()
        }
        guard !node.positionals.isEmpty else { return [] }
        let position = node.lastRepeats ? min(positionals, node.positionals.count - 1) : positionals
        guard position < node.positionals.count else { return [] }
        return offer(node.positionals[position], argument: "positional@\(position)")
    }

    /// Candidates from the real completion functions, in this process: the `---completion`
    /// request the shell scripts send, answered by the parser with the function's words.
    static let askResv: Ask = { path, argument, words in
        let cursor = words.last?.count ?? 0
        let request = ["---completion"] + path + ["--", argument, String(words.count - 1), String(cursor)] + words
        do {
            _ = try ResvDescribed.parseAsRoot(request)
            return []
        } catch {
            guard ResvDescribed.exitCode(for: error) == .success else { return [] }
            return ResvDescribed.fullMessage(for: error).split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        }
    }
}

extension Completer {
    private struct ToolInfo: Decodable {
        struct CommandInfo: Decodable {
            var commandName: String
            var subcommands: [CommandInfo]?
            var arguments: [ArgumentInfo]?
        }
        struct ArgumentInfo: Decodable {
            struct Name: Decodable {
                var kind: String
                var name: String
            }
            struct Kind: Decodable {
                struct List: Decodable { var values: [String] }
                var list: List?
                var custom: [String: Bool]?
                var customAsync: [String: Bool]?
            }
            var kind: String
            var names: [Name]?
            var allValues: [String]?
            var isRepeating: Bool?
            var completionKind: Kind?
        }
        var command: CommandInfo
    }

    private static func command(_ info: ToolInfo.CommandInfo) -> Command {
        let arguments = info.arguments ?? []
        func value(_ argument: ToolInfo.ArgumentInfo) -> Value {
            Value(
                values: argument.completionKind?.list?.values ?? argument.allValues ?? [],
                custom: argument.completionKind?.custom != nil || argument.completionKind?.customAsync != nil)
        }
        let positionals = arguments.filter { $0.kind == "positional" }
        return Command(
            name: info.commandName,
            options: arguments.filter { $0.kind != "positional" }.map { argument in
                Option(
                    names: (argument.names ?? []).map { ($0.kind == "short" ? "-" : "--") + $0.name },
                    takesValue: argument.kind == "option", value: value(argument),
                    isRepeating: argument.isRepeating ?? false)
            },
            positionals: positionals.map(value), lastRepeats: positionals.last?.isRepeating ?? false,
            subcommands: (info.subcommands ?? []).map(command))
    }
}

extension Completer.Command {
    func option(named name: String) -> Completer.Option? {
        options.first { $0.names.contains(name) }
    }
}
