import ArgumentParser
import Foundation
import ReservationCore

struct ConfirmCommand: ResvCommand, PrintsData {
    static let configuration = CommandConfiguration(
        commandName: "confirm",
        abstract: "Confirm pending reservations.",
        discussion: """
            Each ID is a reservation id or a unique prefix of at least 4 hex digits. \
            Every ID is checked before anything changes: one unknown, ambiguous or \
            cancelled ID confirms nothing (a cancelled one cannot be confirmed: exit 1). \
            A confirmed reservation stays confirmed, and says so.

            Examples:
              resv confirm 1a2b 3c4d
              resv reserve -l 'half dome' -d 'fri 08:00' -n 2 --hold 10m && resv confirm 1a2b
            """)

    @Argument(
        help: "Reservation ids or unique prefixes (at least 4 hex digits).",
        completion: ShellCompletion.reservationIDs(.confirmable))
    var ids: [String]

    @OptionGroup var queue: QueueOption
    @OptionGroup var key: IdempotencyKeyOption
    @OptionGroup var options: CommonOptions

    func run(in context: CommandContext) async throws {
        var context = context
        context.idempotencyKey = key.idempotencyKey
        try await context.queueing(queue, options.output, verb: "confirm") { context in
            let backend = try context.backend(options.backend)
            let service = backend.service
            // Whole ids on a server go to it as they are: no list is read to resolve them.
            if backend.server != nil, let whole = CommandContext.wholeIDs(ids) {
                let changes = try await context.naming(ids) { try await service.confirm(whole) }
                context.report(changes, done: "Confirmed", single: ids.count == 1, options.output)
                return
            }
            let snapshot = try await context.fetch(for: ids, from: backend, options)
            let targets = try context.reservations(matching: ids, in: snapshot)
            // One change of the store for all of them: all are confirmed or none.
            let changes = try await service.confirm(targets.map(\.id))
            context.report(changes, done: "Confirmed", single: ids.count == 1, options.output)
        }
    }
}
