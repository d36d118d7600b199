import ArgumentParser
import FilePrimitives
import Foundation
import ReservationCore
import ResvReference

struct ReplCommand: ResvCommand {
    static let configuration = CommandConfiguration(
        commandName: "repl",
        abstract: "An interactive prompt: type commands as on the shell, without 'resv'.",
        discussion: """
            Line editing and history ($XDG_STATE_HOME/resv/history) with GNU readline; Tab \
            completes commands, options, landmark names, reservation ids, statuses, profiles and config keys, \
            the same words as the shell completion scripts; \
            'help' lists the commands. Ctrl-C clears the line, or stops the command that \
            runs; Ctrl-D, 'exit' or 'quit' leave. Without a terminal on stdin, commands are \
            read line by line with no prompt (resv repl < script.txt; # starts a comment), \
            each error names its line, and the exit status is non-zero if any line failed.

            Examples:
              resv repl
              resv repl --stop-on-error < nightly.txt
            """)

    @Flag(help: "Without a terminal: stop at the first line that fails.")
    var stopOnError = false

    @OptionGroup(title: "Backend") var backend: BackendOptions

    func run(in context: CommandContext) async throws {
        if context.inRepl { throw CLIError.nestedRepl }
        // One backend for the whole run; a line with its own --store opens that store instead.
        let opened = try context.backend(backend)
        var lineContext = context
        // A line with its own backend flags or idempotency key opens its own.
        lineContext.openService = { options, context in
            let own =
                options.store != nil || options.server != nil || options.profile != nil || options.config != nil
                || options.offline
                || context.idempotencyKey != nil
            return own ? try CommandContext.openConfiguredService(options, context) : opened
        }
        let interactive = context.input.isTerminal
        lineContext.inRepl = true
        let failure =
            interactive
            ? await interactiveLoop(lineContext)
            : await scriptLoop(lineContext)
        if let failure { throw ReplFailure(status: failure) }
    }

    /// Reads lines with readline until Ctrl-D, exit or quit; errors never end the loop.
    /// At the prompt Ctrl-C is a key (see `LineEditor`); while a line's command
    /// runs it cancels that command, and the prompt comes back.
    private func interactiveLoop(_ context: CommandContext) async -> Int32? {
        var historyPath: String? = context.stateFile("history")
        // A history another user could aim (a link) or swap (their folder) is not used.
        if let path = historyPath, let foreign = Ownership.foreign(path, folders: 2) {
            context.say("resv: warning: no history this session: \(foreign.description), not you or root")
            historyPath = nil
        }
        let editor = LineEditor(historyPath: historyPath, completer: .resv)
        context.say("resv \(Resv.version): type a command without 'resv' (help lists them); Ctrl-D or exit leaves.")
        editor.setLeadingWords(Self.leadingWords(backend))
        return await Interrupts.ignored {
            while true {
                guard let line = editor.readLine(prompt: "resv> ") else {
                    context.messages.write("\n")
                    return nil
                }
                editor.remember(line)
                let outcome = await Interrupts.cancellable { await execute(line, context) }
                if case .leave = outcome { return nil }
            }
        }
    }

    /// Reads commands line by line without a prompt or history. Ctrl-C stops
    /// the script (the line that runs is cancelled, and the run exits 130).
    private func scriptLoop(_ context: CommandContext) async -> Int32? {
        var failure: Int32?
        var number = 0
        while !Task.isCancelled, let line = context.input.readLine() {
            number += 1
            var lineContext = context
            lineContext.scriptLine = number
            switch await execute(line, lineContext) {
            case .leave: return failure
            case .ran(let status) where status != 0:
                failure = status
                if stopOnError || status == ExitStatus.interrupted { return status }
            case .ran: break
            }
        }
        return Task.isCancelled ? ExitStatus.interrupted : failure
    }

    enum Outcome: Sendable {
        case ran(Int32)
        case leave
    }

    private func execute(_ line: String, _ context: CommandContext) async -> Outcome {
        let words: [String]
        do {
            words = try ShellWords.split(line)
        } catch {
            context.fail("\(error)")
            return .ran(ExitStatus.usage)
        }
        guard let first = words.first else { return .ran(0) }
        if words == ["exit"] || words == ["quit"] { return .leave }
        let arguments = first == "resv" ? Array(words.dropFirst()) : words
        if arguments == ["help"] || arguments == ["--help"] || arguments == ["-h"] {
            context.output.write(Self.usage)
            return .ran(0)
        }
        return .ran(await ResvMain.run(arguments, context: context))
    }

    /// `help` at the prompt: the commands as they are typed here, without `resv`.
    static var usage: String {
        let commands = Resv.configuration.subcommands.filter { $0 != ReplCommand.self }.map {
            ($0.configuration.commandName ?? "", $0.configuration.abstract)
        }
        let width = commands.map(\.0.count).max() ?? 0
        var text = "Type a command as on the shell, without 'resv' (Tab completes):\n"
        for (name, abstract) in commands {
            text += "  " + name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + abstract + "\n"
        }
        text += """
              help COMMAND  that command's options (or COMMAND --help)
              exit, quit    leave (or Ctrl-D)
            Ctrl-C clears the line, or stops the command that runs. # starts a comment.

            """
        return text
    }

    /// The REPL's backend options as words, for Tab: completion reads them as if they came
    /// before each line, so it offers the names and ids of the store or server the REPL uses.
    static func leadingWords(_ backend: BackendOptions) -> [String] {
        var words: [String] = []
        for (name, value) in [
            ("--store", backend.store), ("--server", backend.server), ("--profile", backend.profile),
            ("--config", backend.config),
        ] {
            // As a shell hands words over (quoted), which is how completion reads them.
            if let value { words += [name, ShellWords.quote(value)] }
        }
        return words
    }
}

/// A REPL script in which a line failed: the run's status is that line's.
struct ReplFailure: Error {
    var status: Int32
}
