import Foundation
import ReservationCore

/// What Tab offers in the REPL, worked out from the command tree itself (so a
/// new option completes without touching this file) and from local data.
struct Completer: Sendable {
    struct Option: Sendable {
        var names: [String]
        var takesValue: Bool
        var values: [String]
        var isRepeating: Bool
    }

    struct Command: Sendable {
        var name: String
        var options: [Option]
        /// True when the command's positional arguments are reservation ids.
        var takesReservationIDs: Bool
        /// True when the command's positional argument is a landmark.
        var takesLandmark = false
    }

    /// Values read from the store (or a cache), never from the network.
    struct LocalData: Sendable {
        var landmarkNames: [String] = []
        var reservationIDs: [String] = []
        var profileNames: [String] = []
    }

    static let replWords = ["exit", "quit", "help"]

    let commands: [Command]

    /// The command tree of `resv`, built once per process: it is the same every time, and
    /// dumping it costs as much as parsing a command line several times over.
    static let resv = Completer(toolInfo: Resv._dumpHelp())

    /// The command tree as ArgumentParser describes it.
    init(toolInfo json: String) {
        struct ToolInfo: Decodable {
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
                var kind: String
                var names: [Name]?
                var valueName: String?
                var allValues: [String]?
                var isRepeating: Bool?
            }
            var command: CommandInfo
        }
        let info = try? JSONDecoder().decode(ToolInfo.self, from: Data(json.utf8))
        // `repl` inside the REPL is refused, so it is not offered.
        commands = (info?.command.subcommands ?? []).filter { $0.commandName != "repl" }.map { command in
            let arguments = command.arguments ?? []
            return Command(
                name: command.commandName,
                options: arguments.filter { $0.kind != "positional" }.map { argument in
                    Option(
                        names: (argument.names ?? []).map { ($0.kind == "short" ? "-" : "--") + $0.name },
                        takesValue: argument.kind == "option", values: argument.allValues ?? [],
                        isRepeating: argument.isRepeating ?? false)
                },
                takesReservationIDs: arguments.contains {
                    $0.kind == "positional" && ["ids", "id"].contains($0.valueName)
                },
                takesLandmark: arguments.contains { $0.kind == "positional" && $0.valueName == "landmark" }
            )
        }
    }

    /// Candidates for the word being typed; `before` is the line up to that word.
    func candidates(before: String, word: String, data: LocalData) -> [String] {
        guard let scanned = try? ShellWords.scan(before) else { return [] }
        var words = scanned.words
        // A word still being typed before the cursor word cannot happen: readline splits at the cursor word.
        if scanned.endsInWord { words.removeLast() }
        // Options every command takes may come first (`--profile work list`): complete them and their values there.
        let leading = LeadingOptions.prefixLength(words)
        if leading == words.count, let common = commands.first(where: { $0.name == "list" }) {
            if let previous = words.last, LeadingOptions.valued.contains(previous),
                let option = common.option(named: previous)
            {
                return values(of: option, word: word, data: data)
            }
            if word.hasPrefix("-") {
                return (LeadingOptions.valued.union(LeadingOptions.flags)).filter { $0.hasPrefix(word) }.sorted()
            }
        }
        words.removeFirst(leading)
        guard let commandName = words.first else {
            return Set(commands.map(\.name) + Self.replWords).filter { $0.hasPrefix(word) }.sorted()
        }
        if commandName == "help", words.count == 1 {
            return commands.map(\.name).filter { $0.hasPrefix(word) }.sorted()
        }
        guard let command = commands.first(where: { $0.name == commandName }) else { return [] }

        if let previous = words.dropFirst().last, let option = command.option(named: previous), option.takesValue {
            return values(of: option, word: word, data: data)
        }
        if word.hasPrefix("-") {
            let used = Set(words)
            return command.options.filter { $0.names.allSatisfy { !used.contains($0) } || $0.isRepeating }
                .compactMap { $0.names.first { $0.hasPrefix("--") } ?? $0.names.first }
                .filter { $0.hasPrefix(word) }.sorted()
        }
        if command.takesReservationIDs {
            return data.reservationIDs.filter { $0.hasPrefix(word.lowercased()) }.sorted()
        }
        if command.takesLandmark {
            return data.landmarkNames.filter { $0.lowercased().hasPrefix(word.lowercased()) }.sorted()
        }
        return []
    }
}

extension Completer {
    /// The values Tab offers after `option`.
    private func values(of option: Option, word: String, data: LocalData) -> [String] {
        if option.names.contains("--landmark") {
            return data.landmarkNames.filter { $0.lowercased().hasPrefix(word.lowercased()) }.sorted()
        }
        if option.names.contains("--profile") { return data.profileNames.filter { $0.hasPrefix(word) } }
        return option.values.filter { $0.hasPrefix(word) }
    }
}

extension Completer.Command {
    func option(named name: String) -> Completer.Option? {
        options.first { $0.names.contains(name) }
    }
}
