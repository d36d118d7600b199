import ArgumentParser
import Foundation
import ReservationCore

struct CancelCommand: ResvCommand {
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

    @OptionGroup var options: CommonOptions

    func run(in context: CommandContext) async throws {
        let service = try context.service(options.backend)
        let snapshot = try await context.fetch(from: service, options)
        let targets = try context.reservations(matching: ids, in: snapshot)
        // One change of the store for all of them: all are cancelled or none.
        let changes = try await service.cancel(targets.map(\.id))
        context.report(changes, done: "Cancelled", single: ids.count == 1, options.output)
        await context.reportPromotions(
            before: snapshot, changed: Set(targets.map(\.id)), service: service, options.output)
    }
}
