import ArgumentParser
import Foundation
import ReservationCore

struct ConfirmCommand: ResvCommand {
    static let configuration = CommandConfiguration(
        commandName: "confirm",
        abstract: "Confirm a pending reservation.",
        discussion: "A confirmed reservation stays confirmed; a cancelled one cannot be confirmed (exit 1).")

    @Argument(
        help: "A reservation id or unique prefix (at least 4 hex digits).",
        completion: ShellCompletion.reservationIDs(.pending))
    var id: String

    @OptionGroup var options: CommonOptions

    func run(in context: CommandContext) async throws {
        let service = try context.service(options.backend)
        let snapshot = try await context.fetch(from: service, options)
        let target = try snapshot.reservation(matching: id)
        let change = try await service.confirm(target.id)
        let renderer = Renderer(options.output, context: context)
        context.output.write(
            renderer.single(change.reservation) {
                (change.changed ? "Confirmed " : "Already confirmed: ") + renderer.summary(change.reservation) + "\n"
            })
    }
}
