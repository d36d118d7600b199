import ArgumentParser
import Foundation
import ReservationCore

struct ShowCommand: ResvCommand, PrintsData {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one reservation.",
        discussion: "Examples:\n  resv show 1a2b\n  resv show 1a2b --json | jq .status")

    @Argument(
        help: "A reservation id or unique prefix (at least 4 hex digits).",
        completion: ShellCompletion.reservationIDs(.any))
    var id: String

    @OptionGroup var options: CommonOptions

    func run(in context: CommandContext) async throws {
        let service = try context.service(options.backend)
        let snapshot = try await context.fetch(from: service, options)
        let reservation = try context.reservation(matching: id, in: snapshot)
        let renderer = Renderer(options.output, context: context)
        var text = renderer.reservation(reservation)
        // On a server, the newest change when another user (staff, an admin) made it; a history that
        // cannot be read (offline) leaves the line out.
        if renderer.format == .table, let entry = try? await service.history(reservation.id, 1).first,
            let by = LogCommand.byActor(entry)
        {
            text +=
                "Changed".padding(toLength: 10, withPad: " ", startingAt: 0)
                + "\(entry.change.rawValue) \(by), \(renderer.localDate(entry.at))\n"
        }
        context.output.write(text)
    }
}
