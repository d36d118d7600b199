import ArgumentParser
import Foundation
import ReservationCore
import ReservationHTTP
import ResvReference
import Synchronization

#if os(Linux)
    import CMalloc
#endif

/// The root of the command tree, shared by the shell and the REPL.
public struct Resv: ParsableCommand {
    public static let version = Reference.version

    public static let configuration = CommandConfiguration(
        commandName: "resv",
        abstract:
            "Reserve visits to landmarks; list, show, modify, confirm and cancel reservations, "
            + "see their history and undo the last command.",
        discussion: """
            Works on a local JSON file by default ($XDG_DATA_HOME/resv/reservations.json, \
            or --store / RESV_STORE), or on a resv-server (--server / RESV_SERVER with RESV_TOKEN, \
            or 'resv config set server'), or on what a profile of the config file names (--profile, \
            RESV_PROFILE, 'resv config use'). The options every command takes (--store, --server, \
            --profile, --config, --offline, --json, --format, --jq, --no-pager) may also come before the \
            subcommand: resv --profile work list. Data goes to stdout, messages to stderr; --json and --format \
            ndjson print stable JSON for scripts, --jq EXPR runs it through jq, --format csv CSV and --format ics \
            an iCalendar file. \
            Every change is kept in a history ('resv log'), 'resv undo' takes back the last \
            command that changed reservations (on a server, your own), and 'resv redo' takes back the \
            last undo. \
            Exit codes: \(Reference.exitCodeSummary).
            """,
        version: version,
        subcommands: [
            ListCommand.self, ReserveCommand.self, CancelCommand.self, ConfirmCommand.self, ModifyCommand.self,
            CheckinCommand.self, NoshowCommand.self, DayCommand.self,
            LogCommand.self, UndoCommand.self, RedoCommand.self, ShowCommand.self, WatchCommand.self, WaitCommand.self,
            AvailabilityCommand.self, FetchCommand.self, LandmarksCommand.self, ConfigCommand.self, ReplCommand.self,
            WhoamiCommand.self, LoginCommand.self, LogoutCommand.self, SyncCommand.self, OutboxCommand.self,
            CalendarCommand.self, ImportCommand.self, AdminCommand.self,
            CompletionCommand.self,
        ],
        defaultSubcommand: ListCommand.self
    )

    public init() {}
}

/// The command tree the completion scripts and the man page describe: `Resv`, with the
/// options every command takes declared on the root too, as they may come first
/// (`resv --store F show <Tab>`). Only for those: ArgumentParser lets a parent's options
/// come after a subcommand and keeps them for the parent, so on `Resv` itself they would
/// take `list --json` from `list`. Commands are parsed by `Resv`, after `LeadingOptions`
/// has moved these options behind the subcommand.
public struct ResvDescribed: ParsableCommand {
    public static let configuration = Resv.configuration

    @OptionGroup(title: "Options every command takes, also before it") var leading: LeadingOptionGroup

    public init() {}

    /// The requests answered from this tree: a completion script, a completion function's
    /// words (`---completion`), the tree as JSON (for the man page).
    static func answers(_ arguments: [String]) -> Bool {
        guard let first = arguments.first else { return false }
        return first == "---completion" || first.hasPrefix("--generate-completion-script")
            || first == "--experimental-dump-help"
    }
}

/// `--store`, `--server`, `--profile`, `--config`, `--offline`, `--json`, `--format`, `--jq` and `--no-pager`, as the
/// root declares them.
public struct LeadingOptionGroup: ParsableArguments, Sendable {
    @OptionGroup var backend: BackendOptions
    @Flag(help: "Print JSON (same as --format json).")
    var json = false
    @Option(help: "Output format: table, json, ndjson, csv or ics.")
    var format: OutputFormat?
    @Option(help: ArgumentHelp("Run the JSON output through this jq program.", valueName: "expression"))
    var jq: String?
    @Flag(help: "Write to the terminal even when the output is taller than it (no pager).")
    var noPager = false

    public init() {}
}

/// A command that runs against an explicit context instead of globals.
protocol ResvCommand: ParsableCommand {
    func run(in context: CommandContext) async throws
}

/// A parsed command moved to the task that runs it (`JQFilter.stoppingAtFailure`), and used there alone.
private struct Handed: @unchecked Sendable {
    let command: any ResvCommand
}

/// Parses and runs one command line; never exits, so the REPL can call it per line.
public enum ResvMain {
    /// Process-wide settings of the `resv` executable, before any command runs.
    public static func configureProcess() {
        Interrupts.install()
        // Past a file-size limit (ulimit -f) a write should fail with EFBIG, which the
        // store reports and survives, rather than the kernel killing resv mid-write.
        signal(SIGXFSZ, SIG_IGN)
        #if os(Linux)
            // A short-lived process that builds one large tree: one malloc arena
            // for the whole process, and the heap grown in 64 MiB steps (address
            // space only; pages are touched as used) rather than by a system call
            // per few pages. Worth a tenth of `list --json` on 10,000 reservations.
            mallopt(M_ARENA_MAX, 1)
            mallopt(M_TOP_PAD, 64 << 20)
        #endif
    }

    /// The `resv` executable: runs `arguments` in a task that Ctrl-C cancels.
    /// A cancelled command stops where it waits (the store's lock, a request,
    /// a batch before its write) and resv exits 130; if it has not stopped
    /// within half a second, or at a second Ctrl-C, resv ends at once, which
    /// is safe because every change of the store is one atomic rename.
    /// Call `configureProcess()` first.
    public static func runProcess(_ arguments: [String]) async -> Int32 {
        var context = CommandContext.live()
        let moved = LeadingOptions.moved(arguments)
        lastResortInJSON.store(CommandContext.asksForJSON(moved), ordering: .sequentiallyConsistent)
        let pager = Pager.forCommand(moved, context: context)
        if let pager { context.output = pager.sink }
        let interrupts = Atomic<Int>(0)
        let status = await Interrupts.cancellable(
            alsoOnInterrupt: {
                let count = interrupts.add(1, ordering: .sequentiallyConsistent).newValue
                if count > 1 { endNowUnlessEnded() }
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) { endNowUnlessEnded() }
            },
            { [context] in await run(arguments, context: context) })
        // The command ended: from now on the last resort stands down (one status, one message).
        // If it has already begun, it is ending the process with 130; let it.
        if ending.exchange(true, ordering: .sequentiallyConsistent) {
            while true { pause() }
        }
        // Ctrl-C while a pager had the screen cut the output, even if the command then ran to its
        // end (its writes met a pager that had quit): 130, as for any interrupted command. Paged
        // commands change nothing, so no change is reported as failed. Asked after the pager has
        // quit: the key reached resv before the pager read the one that made it quit, but its
        // handler may not have run yet (`Interrupts.hasArrived`).
        let paging = Pager.isRunning
        // The text, or the pager until it quits (Ctrl-C there is the pager's: resv waits).
        pager?.finish()
        let interrupted = paging && Interrupts.hasArrived
        return interrupted ? ExitStatus.interrupted : status
    }

    /// Set once by whichever ends the process first: the command, or the last resort.
    private static let ending = Atomic<Bool>(false)
    /// Whether the last resort says so in JSON (the command line asked for JSON).
    private static let lastResortInJSON = Atomic<Bool>(false)

    /// The last resort after Ctrl-C: the message and status of an interrupted command, now,
    /// unless the command has ended meanwhile and is returning its own status.
    private static func endNowUnlessEnded() {
        guard !ending.exchange(true, ordering: .sequentiallyConsistent) else { return }
        let message =
            lastResortInJSON.load(ordering: .sequentiallyConsistent)
            ? #"{"error":{"code":"interrupted","exitCode":130,"message":"interrupted"}}"# + "\n"
            : "resv: interrupted\n"
        if !Pager.isRunning { _ = message.withCString { write(STDERR_FILENO, $0, strlen($0)) } }
        // A pager keeps the terminal until it quits: the shell's prompt must not come back under it.
        Pager.waitForRunning()
        _exit(ExitStatus.interrupted)
    }

    /// Runs `arguments` (without the program name) and returns the exit status.
    public static func run(_ typed: [String], context: CommandContext) async -> Int32 {
        // `resv -v` alone is what most tools mean by it, the version (not `list --verbose`,
        // which `resv list -v` still is).
        if typed == ["-v"] { return await run(["--version"], context: context) }
        let arguments = LeadingOptions.moved(typed)
        var context = context
        context.errorsAsJSON = CommandContext.asksForJSON(arguments)
        if arguments.first == "help", arguments.count > 1,
            let topic = arguments.dropFirst().first(where: { !$0.hasPrefix("-") }),
            !subcommandNames.contains(topic)
        {
            // The library's help prints the root's text for any word; a typo deserves its own answer.
            context.fail(unknownCommand(topic, context: context), status: ExitStatus.usage)
            return ExitStatus.usage
        }
        if arguments.first == "help", arguments.count > 1, isCommandPath(arguments.dropFirst()) {
            // `resv help config set` is `resv config set --help`: the same text, examples last.
            return await run(Array(arguments.dropFirst()) + ["--help"], context: context)
        }
        let command: any ParsableCommand
        do {
            // These requests always end in the parser's answer (thrown, printed below), from the
            // tree with the leading options; everything else is parsed by `Resv`.
            if ResvDescribed.answers(typed) { _ = try ResvDescribed.parseAsRoot(typed) }
            command = try Resv.parseAsRoot(arguments)
        } catch {
            return reportParseError(error, arguments: arguments, context: context)
        }
        guard let resvCommand = command as? any ResvCommand else {
            // `resv help CMD` parses to the library's help command, which prints its own text.
            do {
                var other = command
                try other.run()
                return ExitStatus.success
            } catch {
                return reportParseError(error, arguments: arguments, context: context)
            }
        }
        do {
            // --jq's program is compiled before the command runs: one that does not compile changes nothing.
            let filter = try (resvCommand as? any PrintsData)?.options.output.jq.map {
                try JQFilter(program: $0, output: context.output)
            }
            var context = context
            if let filter { context.output = filter.sink }
            // The command's one deadline on a server starts now (RESV_REQUEST_TIMEOUT).
            if let filter {
                let command = Handed(command: resvCommand)
                try await filter.stoppingAtFailure { [context] in
                    try await CommandDeadline.$start.withValue(.now) { try await command.command.run(in: context) }
                }
                try filter.finish()
            } else {
                try await CommandDeadline.$start.withValue(.now) { try await resvCommand.run(in: context) }
            }
            if let error = context.output.takeFailure() {
                context.fail(
                    "cannot write the output: \(String(cString: strerror(error)))", status: ExitStatus.cannotWriteOutput
                )
                return ExitStatus.cannotWriteOutput
            }
            return ExitStatus.success
        } catch let failure as ReplFailure {
            return failure.status  // Each failing line has printed its own message.
        } catch  where error is CancellationError || Task.isCancelled {
            // Ctrl-C: whatever the command was waiting for gave up, for this reason (said unless
            // a pager has the screen: the key was pressed in it, and it stays until it quits).
            if !Pager.isRunning { context.fail("interrupted", status: ExitStatus.interrupted) }
            return ExitStatus.interrupted
        } catch {
            let status = ExitStatus.code(for: error)
            context.fail(
                localTimes(ExitStatus.message(for: error), of: error, in: context.timeZone),
                code: ExitStatus.errorCode(for: error), status: status,
                lines: (error as? BatchError)?.lines ?? [])
            return status
        }
    }

    private static func reportParseError(_ error: any Error, arguments: [String], context: CommandContext) -> Int32 {
        let code = Resv.exitCode(for: error).rawValue
        if code == 0 {
            // --help, help, --version, --generate-completion-script: their text is the data
            // (the bash script finished: see BashCompletionScript).
            let text =
                ResvDescribed.answers(arguments) ? ResvDescribed.fullMessage(for: error) : Resv.fullMessage(for: error)
            context.output.write(examplesLast(BashCompletionScript.finished(text)) + "\n")
            return ExitStatus.success
        }
        return reportFailure(error, arguments: arguments, context: context)
    }

    /// The completion script of `shell` (bash, zsh or fish), as `--generate-completion-script` prints it.
    static func completionScript(_ shell: String) -> String {
        do {
            _ = try ResvDescribed.parseAsRoot(["--generate-completion-script", shell])
            return ""
        } catch {
            return examplesLast(BashCompletionScript.finished(ResvDescribed.fullMessage(for: error)))
        }
    }

    private static func reportFailure(_ error: any Error, arguments: [String], context: CommandContext) -> Int32 {
        // The first word after the options every command takes (`resv --store F lst`).
        if let first = arguments.dropFirst(LeadingOptions.prefixLength(arguments)).first, !first.hasPrefix("-"),
            !subcommandNames.contains(first)
        {
            context.fail(unknownCommand(first, context: context), status: ExitStatus.usage)
            return ExitStatus.usage
        }
        // The parser's messages quote arguments whole: each word is cut as a quoted value is.
        var message = ExitStatus.oneLine(Resv.message(for: error)).split(
            separator: " ", omittingEmptySubsequences: false
        )
        .map { $0.quoted() }.joined(separator: " ")
        // A check of the command's own (missing --landmark…) can come before the parser
        // names an option it does not know; the unknown option is the better answer.
        if let first = arguments.first, let unknown = unknownOption(in: arguments.dropFirst(), of: first) {
            // Named as itself ('--party'), not inside another name (--party-size).
            if !message.contains("'\(unknown)'") || message.lowercased().contains("did you mean") {
                // The parser's guess ('--jq': "did you mean '--to'?") is replaced by the closest names.
                message = "unknown option '\(unknown.quoted())'"
            }
            let known = Completer.resv.commands.first { $0.name == first }?.options.flatMap(\.names) ?? []
            let close = Words.closest(to: unknown, among: known.filter { $0.hasPrefix("--") })
            if !close.isEmpty { message += ": did you mean " + close.map { "'\($0)'" }.joined(separator: " or ") + "?" }
        }
        if message.hasSuffix(".") { message.removeLast() }
        let code = Resv.exitCode(for: error).rawValue
        let subcommand = arguments.first.flatMap { name in subcommandNames.contains(name) ? name : nil }
        let helpHint =
            context.inRepl
            ? (subcommand.map { "help \($0)" } ?? "help") : (subcommand.map { "resv \($0) --help" } ?? "resv --help")
        let status = code == 64 || code == 1 ? ExitStatus.usage : code
        context.fail("\(lowercasingFirst(message)) (see '\(helpHint)')", status: status)
        return status
    }

    /// Whether `words` name a command and its subcommands (`config set`), nothing else.
    private static func isCommandPath(_ words: ArraySlice<String>) -> Bool {
        var commands = Resv.configuration.subcommands
        for word in words {
            guard let command = commands.first(where: { $0._commandName == word }) else { return false }
            commands = command.configuration.subcommands
        }
        return true
    }

    /// A command's help with its examples (the "Examples:" block that ends its discussion)
    /// moved after the options, as EXAMPLES, where man pages and gh put them; other text unchanged.
    static func examplesLast(_ help: String) -> String {
        var lines = help.components(separatedBy: "\n")
        guard let start = lines.firstIndex(of: "Examples:") else { return help }
        var end = start + 1
        while end < lines.count, lines[end].hasPrefix("  ") { end += 1 }
        let examples = Array(lines[(start + 1)..<end])
        // The block and the blank line that follows it.
        lines.removeSubrange(start..<min(end + 1, lines.count))
        while lines.last == "" { lines.removeLast() }
        return (lines + ["", "EXAMPLES:"] + examples).joined(separator: "\n")
    }

    /// "unknown command 'lst': did you mean 'list'? (see 'resv --help')" (in the REPL, 'help').
    private static func unknownCommand(_ name: String, context: CommandContext) -> String {
        // Words other tools use for a command come before spelling (edit is not wait, but modify).
        let close =
            synonyms[name.lowercased()].map { [$0] }
            ?? Words.closest(to: name, among: subcommandNames.filter { $0 != "help" })
        let guess = close.isEmpty ? "" : ": did you mean " + close.map { "'\($0)'" }.joined(separator: " or ") + "?"
        return "unknown command '\(name.quoted())'\(guess) (see '\(context.inRepl ? "help" : "resv --help")')"
    }

    /// A refusal's stamps (`2026-11-24T18:10:00Z`) as the table shows times (`2026-11-24 10:10
    /// PST`, in `TZ`): a hold's end, from this machine's rules or a server's words alike.
    static func localTimes(_ message: String, of error: any Error, in zone: TimeZone) -> String {
        guard (error as? ReservationError)?.code == .holdExpired else { return message }
        return message.replacing(#/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/#) { match in
            (try? DateTime.parse(String(match.output))).map { Renderer.time($0, in: zone) } ?? String(match.output)
        }
    }

    /// What other tools (gh, Taskwarrior, khal, git) call resv's commands.
    static let synonyms = [
        "edit": "modify", "change": "modify", "update": "modify", "move": "modify", "book": "reserve",
        "add": "reserve", "new": "reserve", "delete": "cancel", "remove": "cancel", "rm": "cancel", "ls": "list",
        "history": "log", "done": "confirm",
    ]

    private static var subcommandNames: [String] {
        Resv.configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
    }

    /// The first `--name` among `arguments` that `command` does not take (values after `--` aside).
    private static func unknownOption(in arguments: ArraySlice<String>, of command: String) -> String? {
        guard let info = Completer.resv.commands.first(where: { $0.name == command }) else {
            return nil
        }
        let known = Set(info.options.flatMap(\.names) + ["--help", "-h"])
        for argument in arguments.prefix(while: { $0 != "--" }) where argument.hasPrefix("--") {
            let name = String(argument.split(separator: "=", maxSplits: 1).first ?? "")
            if !known.contains(name) { return name }
        }
        return nil
    }

    private static func lowercasingFirst(_ text: String) -> String {
        guard let first = text.first, first.isUppercase, !text.dropFirst().prefix(1).allSatisfy(\.isUppercase) else {
            return text
        }
        return first.lowercased() + text.dropFirst()
    }
}
