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

            With --series ID (a series' id or a unique prefix, as 'resv show' prints it), the \
            series' visits still ahead that are not cancelled are cancelled, all at once; \
            those that have passed stay as they are.

            Examples:
              resv cancel 1a2b
              resv list --status pending --json | jq -r '.[].id' | xargs resv cancel
              resv cancel --series 3f2a
            """)

    @Argument(
        help: "Reservation ids or unique prefixes (at least 4 hex digits).",
        completion: ShellCompletion.reservationIDs(.active))
    var ids: [String] = []

    @Option(
        help: ArgumentHelp(
            "Cancel the visits ahead of this series (its id or a unique prefix of at least 4 hex digits).",
            valueName: "id"))
    var series: String?

    @OptionGroup var queue: QueueOption
    @OptionGroup var key: IdempotencyKeyOption
    @OptionGroup var options: CommonOptions

    func validate() throws {
        if series != nil {
            guard ids.isEmpty else { throw ValidationError("give reservation ids or --series, not both") }
            if queue.queue { throw ValidationError("--queue keeps changes of single reservations: leave out --series") }
        } else if ids.isEmpty {
            throw ValidationError("missing reservation ids (or --series ID)")
        }
    }

    func run(in context: CommandContext) async throws {
        var context = context
        context.idempotencyKey = key.idempotencyKey
        if let series {
            try await cancelSeries(series, in: context)
            return
        }
        try await context.queueing(queue, options.output, verb: "cancel") { context in
            let backend = try context.backend(options.backend)
            let service = backend.service
            let (changes, changed, before) = try await context.changeStatus(
                of: ids, on: backend, options, done: "Cancelled", service.cancel)
            if let before {
                await context.reportPromotions(before: before, changed: changed, service: service, options.output)
            } else if changes.contains(where: { $0.changed && $0.previous.takesPlaces }) {
                // Only places given up can promote anyone.
                await context.reportPromotions(madeBy: changed, service: service, options.output)
            }
        }
    }

    /// The series' visits that are active and still ahead, cancelled in one change.
    private func cancelSeries(_ text: String, in context: CommandContext) async throws {
        let service = try context.service(options.backend)
        let snapshot = try await context.fetch(from: service, options)
        let members = try snapshot.series(matching: text)
        let now = context.now()
        let targets = members.filter { $0.status.isActive && $0.date > now }
        let name = members[0].series?.short ?? text
        guard !targets.isEmpty else {
            Renderer(options.output, context: context).write(reservations: [], to: context.output)
            context.say("Series \(name) has no visits ahead to cancel (\(members.count) in all): nothing changed.")
            return
        }
        let changes = try await service.cancel(targets.map(\.id))
        context.report(changes, done: "Cancelled", single: false, options.output)
        context.say(
            "Cancelled \(targets.count) of series \(name)'s \(members.count) visits; "
                + "\(members.count - targets.count) had passed or were cancelled already.")
        await context.reportPromotions(
            before: snapshot, changed: Set(targets.map(\.id)), service: service, options.output)
    }
}
