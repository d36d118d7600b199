import ArgumentParser
import Foundation
import ReservationCore

struct ReserveCommand: ResvCommand {
    static let configuration = CommandConfiguration(
        commandName: "reserve",
        abstract: "Reserve a visit to a landmark and print the new reservation.",
        discussion: """
            The landmark is its id, a unique prefix of its id, or its name in any case \
            (see 'resv landmarks'). The date is an ISO 8601 date-time with a zone, in the \
            future: 2026-12-01T10:00:00Z or 2026-12-01T10:00:00-08:00.
            """)

    @Option(name: .shortAndLong, help: "The landmark: id, id prefix or name.")
    var landmark: String

    @Option(
        name: .shortAndLong, parsing: .unconditional,
        help: ArgumentHelp("When: an ISO 8601 date-time with a zone, e.g. 2026-12-01T10:00:00Z.", valueName: "date"))
    var date: String

    @Option(
        name: [.long, .customShort("n")], parsing: .unconditional,
        help: ArgumentHelp("How many people (at least 1).", valueName: "n"))
    var partySize: Int

    @Flag(help: "Book as pending (to confirm later with 'resv confirm') instead of confirmed.")
    var pending = false

    @OptionGroup var options: CommonOptions

    func run(in context: CommandContext) async throws {
        let parsedDate = try DateTime.parseInput(date)
        let service = try context.service(options.backend)
        let catalog = try await service.landmarks()
        context.reportSkipped(landmarks: catalog.rejected, verbose: options.output.verbose)
        let chosen = try catalog.landmark(matching: landmark)
        let request = try NewReservation(
            landmarkID: chosen.id, date: parsedDate, partySize: partySize, status: pending ? .pending : .confirmed,
            now: context.now())
        let reservation = try await service.reserve(request)
        context.output.write(Renderer(options.output, context: context).reservation(reservation))
    }
}
