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
            try await context.changeStatus(of: ids, on: backend, options, done: "Confirmed", backend.service.confirm)
        }
    }
}

extension CommandContext {
    /// What `cancel` and `confirm` share: one change of the store for all of `ids`, all
    /// made or none, reported with `done`. Whole ids on a server go to it as they are (no
    /// list is read to resolve them); otherwise the list is read and each id resolved in it.
    /// Returns the changes, the ids changed, and the list read before (nil when none was).
    @discardableResult
    func changeStatus(
        of ids: [String], on backend: Backend, _ options: CommonOptions, done: String,
        _ change: ([Reservation.ID]) async throws -> [StatusChange]
    ) async throws -> (changes: [StatusChange], ids: Set<Reservation.ID>, before: ReservationSnapshot?) {
        if backend.server != nil, let whole = CommandContext.wholeIDs(ids) {
            let changes = try await naming(ids) { try await change(whole) }
            report(changes, done: done, single: ids.count == 1, options.output)
            return (changes, Set(whole), nil)
        }
        let snapshot = try await fetch(for: ids, from: backend, options)
        let targets = try reservations(matching: ids, in: snapshot)
        let changes = try await change(targets.map(\.id))
        report(changes, done: done, single: ids.count == 1, options.output)
        return (changes, Set(targets.map(\.id)), snapshot)
    }
}
