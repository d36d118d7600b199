import ArgumentParser
import Foundation
import ReservationCore
import ResvReference

struct UndoCommand: ResvCommand, PrintsData {
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
            that has passed (exit 1). Run it again to go further back; there is no redo. On a \
            server, your commands only.

            Examples:
              resv undo
              resv undo --json | jq -r .undid
            """)

    @OptionGroup var key: IdempotencyKeyOption
    @OptionGroup var options: CommonOptions

    func validate() throws {
        try options.output.check([.table, .json, .ndjson], command: "resv undo")
    }

    func run(in context: CommandContext) async throws {
        var context = context
        context.idempotencyKey = key.idempotencyKey
        let service = try context.service(options.backend)
        // What waits before, to say whom the undo promotes (a cancel taken back frees nothing,
        // a booking taken back may).
        let before = try? await service.fetch()
        let result: UndoResult
        do {
            result = try await service.undo()
        } catch let error as ReservationError where error.code == .noCapacity {
            // Not a booking refused: the places the command would take back are taken now.
            throw CLIError.undoRefused(ExitStatus.message(for: error))
        }
        LogCommand.warn(skipped: result.skippedHistory, in: context)
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
            var lines = ["Undid command \(result.command.prefix(8)) (\(count) reservation\(count == 1 ? "" : "s")):"]
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
}
