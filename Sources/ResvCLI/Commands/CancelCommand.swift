import ArgumentParser
import Foundation
import ReservationCore

struct CancelCommand: ResvCommand, PrintsData {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Cancel reservations; they stay in the history as cancelled.",
        discussion: """
            Each ID is a reservation id or a unique prefix of at least 4 hex digits. \
            Every ID is checked before anything changes: one unknown or ambiguous ID \
            cancels nothing. Cancelling a cancelled reservation succeeds and says so.

            Examples:
              resv cancel 1a2b
              resv list --status pending --json | jq -r '.[].id' | xargs resv cancel
            """)

    @Argument(
        help: "Reservation ids or unique prefixes (at least 4 hex digits).",
        completion: ShellCompletion.reservationIDs(.active))
    var ids: [String]

    @OptionGroup var queue: QueueOption
    @OptionGroup var options: CommonOptions

    func run(in context: CommandContext) async throws {
        try await context.queueing(queue, options.output, verb: "cancel") { context in
            let backend = try context.backend(options.backend)
            let service = backend.service
            // Whole ids on a server go to it as they are: no list is read to resolve them.
            if backend.server != nil, let whole = CommandContext.wholeIDs(ids) {
                let changes = try await context.naming(ids) { try await service.cancel(whole) }
                context.report(changes, done: "Cancelled", single: ids.count == 1, options.output)
                // Only places given up can promote anyone.
                if changes.contains(where: { $0.changed && $0.previous.takesPlaces }) {
                    await context.reportPromotions(madeBy: Set(whole), service: service, options.output)
                }
                return
            }
            let snapshot = try await context.fetch(from: service, options)
            let targets = try context.reservations(matching: ids, in: snapshot)
            // One change of the store for all of them: all are cancelled or none.
            let changes = try await service.cancel(targets.map(\.id))
            context.report(changes, done: "Cancelled", single: ids.count == 1, options.output)
            await context.reportPromotions(
                before: snapshot, changed: Set(targets.map(\.id)), service: service, options.output)
        }
    }
}
