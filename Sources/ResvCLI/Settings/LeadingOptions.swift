import ArgumentParser

/// The options every command takes, written before the subcommand
/// (`resv --profile work list`, as gh and kubectl allow).
///
/// swift-argument-parser has no global options: an option of the root is not
/// one of its subcommands', and a subcommand's option before its name is
/// "unexpected". So before parsing, these options, when they come first, are
/// moved to just after the subcommand (and a nested one: `config set`), where
/// the subcommand's own `@OptionGroup` reads them. Only the names below move,
/// each with its value, so a value that looks like a subcommand
/// (`--store list list`) stays a value; anything else (`--help`, `--`, an
/// unknown option) ends the scan and the words are left as typed.
enum LeadingOptions {
    static let valued: Set<String> = [
        "--store", "--server", "--profile", "--config", "--cacert", "--format", "--jq",
    ]
    static let flags: Set<String> = ["--offline", "--json", "--no-pager"]

    /// How many leading words are these options with their values.
    static func prefixLength(_ arguments: [String]) -> Int {
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            let name = word.split(separator: "=", maxSplits: 1).first.map(String.init) ?? word
            if flags.contains(word) || (valued.contains(name) && word.contains("=")) {
                index += 1
            } else if valued.contains(word), index + 1 < arguments.count {
                index += 2
            } else {
                break
            }
        }
        return index
    }

    /// `arguments` with the leading options moved after the subcommand they
    /// come before; unchanged when none lead or no subcommand follows them.
    static func moved(_ arguments: [String]) -> [String] {
        let length = prefixLength(arguments)
        guard length > 0 else { return arguments }
        // `resv --store F` alone runs the default command with them, as `resv` runs it without.
        guard length < arguments.count else { return ["list"] + arguments }
        let leading = arguments[..<length]
        let name = arguments[length]
        // `resv --store x help list`: help prints the same text whatever the backend.
        if name == "help" { return Array(arguments[length...]) }
        guard let command = Resv.configuration.subcommands.first(where: { $0._commandName == name }) else {
            return arguments
        }
        var end = length + 1
        if end < arguments.count,
            command.configuration.subcommands.contains(where: { $0._commandName == arguments[end] })
        {
            end += 1
        }
        return Array(arguments[length..<end] + leading + arguments[end...])
    }
}
