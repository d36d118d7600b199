import ArgumentParser
import Foundation
import ReservationCore

struct ListCommand: ResvCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List reservations, sorted by date (active ones unless asked otherwise).")

    @Option(
        name: .customLong("status"),
        help: "Only reservations with this status; repeat for several.")
    var statuses: [Reservation.Status] = []

    @Flag(help: "Include cancelled reservations.")
    var all = false

    @Option(
        name: .shortAndLong, help: "Only reservations at this landmark (id, id prefix or name).",
        completion: ShellCompletion.landmarkNames)
    var landmark: String?

    @Option(
        help: ArgumentHelp(
            "Only reservations on or after this ISO 8601 date-time, e.g. 2026-12-01T00:00:00Z.", valueName: "date"))
    var from: String?

    @Option(help: ArgumentHelp("Only reservations on or before this ISO 8601 date-time.", valueName: "date"))
    var to: String?

    @OptionGroup var options: CommonOptions

    func run(in context: CommandContext) async throws {
        let fromDate = try from.map(DateTime.parseInput)
        let toDate = try to.map(DateTime.parseInput)
        if let fromDate, let toDate, fromDate > toDate {
            throw CLIError.emptyRange(from: from ?? "", to: to ?? "")
        }
        let service = try context.service(options.backend)
        let snapshot = try await context.fetch(from: service, options)
        let landmarkID = try landmark.map { try snapshot.catalog.landmark(matching: $0).id }

        let wanted: Set<Reservation.Status> =
            !statuses.isEmpty ? Set(statuses) : all ? Set(Reservation.Status.allCases) : [.pending, .confirmed]
        let reservations = snapshot.reservations.filter { reservation in
            wanted.contains(reservation.status)
                && (landmarkID.map { reservation.landmark.id == $0 } ?? true)
                && (fromDate.map { reservation.date >= $0 } ?? true)
                && (toDate.map { reservation.date <= $0 } ?? true)
        }.sortedByDate

        let renderer = Renderer(options.output, context: context)
        renderer.write(reservations: reservations, to: context.output)
        if reservations.isEmpty, renderer.format == .table {
            let total = snapshot.reservations.count
            context.say(
                total == 0 ? "No reservations yet: make one with 'resv reserve'." : "No matching reservations.")
        }
    }

}
