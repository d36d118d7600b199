import ArgumentParser
import Foundation
import ReservationCore
import ResvReference

#if canImport(Glibc)
    import Glibc
#endif

struct ReplCommand: ResvCommand {
    static let configuration = CommandConfiguration(
        commandName: "repl",
        abstract: "An interactive prompt: type commands as on the shell, without 'resv'.",
        discussion: """
            Line editing and history ($XDG_STATE_HOME/resv/history) with GNU readline; Tab \
            completes commands, options, landmark names, reservation ids and statuses. \
            Ctrl-C clears the line; Ctrl-D, 'exit' or 'quit' leave. Without a terminal on \
            stdin, commands are read line by line with no prompt (resv repl < script.txt); \
            the exit status is non-zero if any line failed.
            """)

    @Flag(help: "Without a terminal: stop at the first line that fails.")
    var stopOnError = false

    @OptionGroup(title: "Backend") var backend: BackendOptions

    func run(in context: CommandContext) async throws {
        if context.inRepl { throw CLIError.nestedRepl }
        // One backend for the whole run; a line with its own --store opens that store instead.
        let service = try context.service(backend)
        var lineContext = context
        // A line with its own backend flags or idempotency key opens its own.
        lineContext.openService = { options, context in
            let own =
                options.store != nil || options.server != nil || options.config != nil || options.offline
                || context.idempotencyKey != nil
            return own ? try CommandContext.openConfiguredService(options, context) : service
        }
        let interactive = isatty(STDIN_FILENO) == 1
        lineContext.inRepl = true
        let failure =
            interactive
            ? await interactiveLoop(lineContext)
            : await scriptLoop(lineContext)
        if let failure { throw ReplFailure(status: failure) }
    }

    /// Reads lines with readline until Ctrl-D, exit or quit; errors never end the loop.
    private func interactiveLoop(_ context: CommandContext) async -> Int32? {
        let editor = LineEditor(
            historyPath: context.stateFile("history"), completer: Completer(toolInfo: Resv._dumpHelp()))
        context.say("resv \(Resv.version): type a command without 'resv' (help lists them); Ctrl-D or exit leaves.")
        while true {
            editor.setLocalData(Self.localData(backend, context))
            guard let line = editor.readLine(prompt: "resv> ") else {
                context.messages.write("\n")
                return nil
            }
            editor.remember(line)
            if case .leave = await execute(line, context) { return nil }
        }
    }

    /// Reads commands line by line without a prompt or history.
    private func scriptLoop(_ context: CommandContext) async -> Int32? {
        var failure: Int32?
        while let line = Swift.readLine(strippingNewline: true) {
            switch await execute(line, context) {
            case .leave: return failure
            case .ran(let status) where status != 0:
                failure = status
                if stopOnError { return status }
            case .ran: break
            }
        }
        return failure
    }

    enum Outcome {
        case ran(Int32)
        case leave
    }

    private func execute(_ line: String, _ context: CommandContext) async -> Outcome {
        let words: [String]
        do {
            words = try ShellWords.split(line)
        } catch {
            context.say("resv: \(error)")
            return .ran(ExitStatus.usage)
        }
        guard let first = words.first, !first.hasPrefix("#") else { return .ran(0) }
        if words == ["exit"] || words == ["quit"] { return .leave }
        if first == "resv" {
            return .ran(await ResvMain.run(Array(words.dropFirst()), context: context))
        }
        return .ran(await ResvMain.run(words, context: context))
    }

    /// Landmark names and id prefixes for Tab: the store file, or a server's
    /// cached answers (kept fresh by the commands typed), never the network.
    static func localData(_ backend: BackendOptions, _ context: CommandContext) -> Completer.LocalData {
        guard
            let snapshot = ShellCompletion.localSnapshot(
                store: backend.store, server: backend.server, config: backend.config, context: context)
        else { return Completer.LocalData() }
        return Completer.LocalData(landmarkNames: snapshot.landmarkNames, reservationIDs: snapshot.completionIDs())
    }
}

/// A REPL script in which a line failed: the run's status is that line's.
struct ReplFailure: Error {
    var status: Int32
}
