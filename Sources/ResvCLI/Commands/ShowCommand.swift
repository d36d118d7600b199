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
        context.output.write(Renderer(options.output, context: context).reservation(reservation))
    }
}
