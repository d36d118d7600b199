import ArgumentParser
import Foundation
import ReservationCore
import ReservationHTTP

struct FetchCommand: ResvCommand, PrintsData {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Read everything from the backend afresh and report what maps and what is skipped.",
        discussion: """
            On a server, fetch means the server: when it cannot be reached, fetch fails \
            (exit 69) rather than report the cache. With --offline it reports the cache, \
            and says so. --json carries where the data came from ("source": file, server \
            or cache) and when ("at").

            Examples:
              resv fetch
              resv fetch --verbose --json
            """)

    @OptionGroup var options: CommonOptions

    func validate() throws {
        // A report is one object with a nested count per reason, not a list of records.
        try options.output.check([.table, .json, .ndjson], command: "resv fetch")
    }

    /// The stable `--json` shape of a fetch report.
    struct Report: JSONOutput {
        var valid: Int
        var active: Int
        var pending: Int
        var confirmed: Int
        var cancelled: Int
        var skipped: Int
        var skippedByReason: [String: Int]
        var landmarks: Int
        var skippedLandmarks: Int
        /// "file", "server" or "cache".
        var source: String
        /// When the data was read (file, server) or saved (cache).
        var at: Date

        var json: JSONValue {
            .object([
                "valid": .integer(Int64(valid)), "active": .integer(Int64(active)),
                "pending": .integer(Int64(pending)), "confirmed": .integer(Int64(confirmed)),
                "cancelled": .integer(Int64(cancelled)), "skipped": .integer(Int64(skipped)),
                "skippedByReason": .object(skippedByReason.mapValues { .integer(Int64($0)) }),
                "landmarks": .integer(Int64(landmarks)), "skippedLandmarks": .integer(Int64(skippedLandmarks)),
                "source": .string(source), "at": .string(DateTime.format(at)),
            ])
        }
    }

    func run(in context: CommandContext) async throws {
        let service = try context.service(options.backend)
        let readAt = context.now()
        let snapshot = try await CacheFallback.$allowed.withValue(false) { try await service.fetch() }
        let source: String
        let at: Date
        switch snapshot.source {
        case .backend:
            source = try context.settings(options.backend).chosenServer == nil ? "file" : "server"
            at = readAt
        case .cache(let saved, _):
            // Only with --offline: CacheFallback is off above, so an unreachable server is an error.
            source = "cache"
            at = saved
        }
        let reservations = snapshot.reservations
        var byReason: [String: Int] = [:]
        for record in snapshot.rejected { byReason[record.reason.code, default: 0] += 1 }
        let report = Report(
            valid: reservations.count, active: reservations.active.count, pending: reservations.pending.count,
            confirmed: reservations.confirmed.count, cancelled: reservations.cancelled.count,
            skipped: snapshot.rejected.count, skippedByReason: byReason,
            landmarks: snapshot.catalog.landmarks.count, skippedLandmarks: snapshot.catalog.rejected.count,
            source: source, at: at)

        if options.output.verbose {
            for record in snapshot.rejected { context.say("resv: skipped \(context.describe(record))") }
            context.reportSkipped(landmarks: snapshot.catalog.rejected, verbose: true)
        }
        let renderer = Renderer(options.output, context: context)
        context.output.write(
            renderer.single(report) {
                var text =
                    "\(report.valid) valid (\(report.active) active: \(report.confirmed) confirmed, \(report.pending) pending; \(report.cancelled) cancelled)\n"
                text += "\(report.skipped) skipped"
                text += snapshot.rejected.isEmpty ? "\n" : ": \(context.countsByReason(snapshot.rejected))\n"
                text += "\(report.landmarks) landmarks"
                text += report.skippedLandmarks > 0 ? " (\(report.skippedLandmarks) skipped)\n" : "\n"
                return text
            })
    }
}
