import ArgumentParser
import Foundation
import ReservationCore

struct LandmarksCommand: ResvCommand, PrintsData {
    static let configuration = CommandConfiguration(
        commandName: "landmarks",
        abstract: "List the landmarks of the active backend.",
        discussion: "Examples:\n  resv landmarks\n  resv landmarks --json | jq -r '.[].name'")

    @OptionGroup var options: CommonOptions

    func validate() throws {
        try options.output.check([.table, .json, .ndjson, .csv], command: "resv landmarks")
    }

    func run(in context: CommandContext) async throws {
        let service = try context.service(options.backend)
        let catalog = try await service.landmarks()
        context.reportSkipped(landmarks: catalog.rejected, verbose: options.output.verbose)
        let sorted = catalog.landmarks.sorted { $0.name.localizedCaseInsensitiveCompare($1.name) == .orderedAscending }
        Renderer(options.output, context: context).write(landmarks: sorted, to: context.output)
    }
}
