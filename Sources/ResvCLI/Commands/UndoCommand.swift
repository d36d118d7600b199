import ArgumentParser
import Foundation
import ReservationCore
import ResvReference

struct UndoCommand: TakeBackCommand {
    static let configuration = CommandConfiguration(
        commandName: "undo",
        abstract: "Take back the last command that changed reservations.",
        discussion: """
            Takes back your newest command not yet undone, as one step: a batch reserve or a \
            multi-id cancel is one command. Nothing is deleted: undoing a booking cancels it, \
            undoing a cancel or a confirm restores the status before, undoing a modify restores \
            the values before, each as a new change recorded in the history ('resv log'). A \
            change that gives people back to a day is checked against its capacity, as a new \
            booking is. Refused, changing nothing: when nothing is left to undo, when a day has \
            no room, when one of its reservations was changed outside the history (an older \
            resv, a hand edit), or when it would make a reservation active again on a date \
            that has passed (exit 1). Run it again to go further back; 'resv redo' takes an undo \
            back. On a server, your commands only.

            On a terminal it first shows the command it would take back (each change, as 'resv \
            log' words it) and asks; anything but y or yes undoes nothing (exit 0). --yes skips \
            the question; with stdin not a terminal (a script, a pipe) it never asks.

            Examples:
              resv undo
              resv undo --yes --json | jq -r .undid
            """)

    static let redo = false
    @OptionGroup var arguments: TakeBackArguments
}

/// What `undo` and `redo` take.
struct TakeBackArguments: ParsableArguments, PrintsData {
    @Flag(name: [.short, .long], help: "Do not ask first, even on a terminal.")
    var yes = false

    @OptionGroup var key: IdempotencyKeyOption
    @OptionGroup var options: CommonOptions
}

/// `undo` (`redo` false) and `redo`.
protocol TakeBackCommand: GroupedCommand where Arguments == TakeBackArguments {
    static var redo: Bool { get }
}

extension TakeBackCommand {
    func run(in context: CommandContext) async throws {
        try await TakeBack(redo: Self.redo, yes: arguments.yes, key: arguments.key, options: options).run(in: context)
    }
}

/// What `undo` and `redo` share: the question on a terminal, the call, the answer's words.
struct TakeBack {
    let redo: Bool
    let yes: Bool
    let key: IdempotencyKeyOption
    let options: CommonOptions

    func run(in context: CommandContext) async throws {
        var context = context
        context.idempotencyKey = key.idempotencyKey
        let service = try context.service(options.backend)
        // What waits before, to say whom the change promotes (a cancel taken back frees nothing,
        // a booking taken back may).
        let before = try? await service.fetch()
        var shown: String?
        if context.input.isTerminal, !yes {
            guard let command = try await confirmed(service, in: context) else { return }
            shown = command
        }
        let result: UndoResult
        do {
            result = try await redo ? service.redo() : service.undo()
        } catch let error as ReservationError where error.code == .noCapacity {
            // Not a booking refused: the places the command would take back are taken now.
            throw CLIError.undoRefused(ExitStatus.message(for: error), redo: redo)
        }
        LogCommand.warn(skipped: result.skippedHistory, in: context)
        if let shown, shown != result.command {
            // Another command of yours came between the question and the change, and was the newest.
            let what = redo ? "undo" : "command"
            context.say(
                "resv: note: \(what) \(result.command.prefix(8)) was taken back, not \(shown.prefix(8)) as shown: "
                    + "it was made meanwhile")
        }
        let renderer = Renderer(options.output, context: context)
        switch renderer.format {
        case .json:
            context.output.write(String(decoding: result.json.encoded(pretty: true), as: UTF8.self) + "\n")
        case .ndjson:
            context.output.write(
                result.changes.map { String(decoding: $0.json.encoded(), as: UTF8.self) + "\n" }.joined())
        default:
            let catalog = try await service.landmarks()
            let count = result.changes.count
            let done = redo ? "Redid undo" : "Undid command"
            var lines = ["\(done) \(result.command.prefix(8)) (\(count) reservation\(count == 1 ? "" : "s")):"]
            for change in result.changes {
                lines.append(
                    "  \(change.reservationID.short)  \(LogCommand.detail(change, catalog: catalog, renderer: renderer).terminalSafe)"
                )
            }
            context.output.write(lines.joined(separator: "\n") + "\n")
        }
        if let before {
            await context.reportPromotions(
                before: before, changed: Set(result.changes.map(\.reservationID)), service: service,
                options.output)
        }
    }

    /// Shows the command an undo would take back now (the undo a redo would) and asks; its id
    /// when the answer is yes, nil when it is not (said). Nothing to take back is refused as
    /// the backend refuses it.
    private func confirmed(_ service: ReservationService, in context: CommandContext) async throws -> String? {
        var taken = Undo.Taken()
        var entries: [HistoryEntry] = []
        // Newest first, as `Undo.lastCommand` and `Undo.undoToRedo` read it; a command's changes are
        // recorded together.
        let skipped = try await service.eachChange(nil, nil) { entry in
            if let found = entries.first?.command {
                guard entry.command == found else { return false }
                entries.append(entry)
                return true
            }
            if redo {
                switch Undo.redoReading(entry, taken: &taken) {
                case .skip: return true
                case .stop: return false
                case .take: entries.append(entry)
                }
            } else if Undo.isUndoable(entry, taken: &taken) {
                entries.append(entry)
            }
            return true
        }
        LogCommand.warn(skipped: skipped, in: context)
        guard let newest = entries.first else {
            throw redo ? ReservationError.nothingToRedo : ReservationError.nothingToUndo
        }
        let renderer = Renderer(options.output, context: context)
        let catalog = try await service.landmarks()
        let count = entries.count
        var lines = [
            "\(redo ? "Undo" : "Command") \(newest.command.prefix(8)) made \(renderer.localDate(newest.at)), "
                + "\(count) change\(count == 1 ? "" : "s"):"
        ]
        for entry in entries.reversed() {
            let change = entry.change.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)
            let detail = LogCommand.detail(entry, catalog: catalog, renderer: renderer)
            lines.append("  \(entry.reservationID.short)  \(change)  \(detail)".terminalSafe)
        }
        let question = redo ? "Redo it (take this undo back)? [y/N] " : "Undo it? [y/N] "
        context.messages.write(lines.joined(separator: "\n") + "\n" + question)
        let answer = context.input.readLine()?.trimmingCharacters(in: .whitespaces).lowercased()
        guard answer == "y" || answer == "yes" else {
            if answer == nil { context.messages.write("\n") }
            context.say(redo ? "Nothing was redone." : "Nothing was undone.")
            return nil
        }
        return newest.command
    }
}
