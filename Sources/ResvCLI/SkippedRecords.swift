import Foundation
import ReservationCore

extension CommandContext {
    /// Reads every reservation afresh and reports on stderr what did not map.
    func fetch(from service: ReservationService, _ options: CommonOptions) async throws -> ReservationSnapshot {
        let snapshot = try await service.fetch()
        reportSkipped(snapshot, verbose: options.output.verbose)
        return snapshot
    }

    /// Counts records that did not map on stderr; `--verbose` lists each with its reason.
    /// They stay in the store: reporting is all the tool does with them.
    func reportSkipped(_ snapshot: ReservationSnapshot, verbose: Bool) {
        reportSkipped(landmarks: snapshot.catalog.rejected, verbose: verbose)
        let rejected = snapshot.rejected
        guard !rejected.isEmpty else { return }
        if verbose {
            for record in rejected { say("resv: skipped \(describe(record))") }
        } else {
            let noun = rejected.count == 1 ? "record that does" : "records that do"
            say(
                "resv: warning: skipped \(rejected.count) reservation \(noun) not map (\(countsByReason(rejected))); run with --verbose for details"
            )
        }
    }

    func reportSkipped(landmarks rejected: [RejectedLandmark], verbose: Bool) {
        guard !rejected.isEmpty else { return }
        if verbose {
            for landmark in rejected {
                say(
                    "resv: skipped landmark #\(landmark.index + 1)\(landmark.id.map { " (\($0))" } ?? ""): \(landmark.reason)"
                )
            }
        } else {
            let noun = rejected.count == 1 ? "landmark that does" : "landmarks that do"
            say("resv: warning: skipped \(rejected.count) \(noun) not map; run with --verbose for details")
        }
    }

    func describe(_ record: RejectedRecord) -> String {
        "record #\(record.index + 1)\(record.id.map { " (id \($0))" } ?? ""): \(record.reason)"
    }

    func countsByReason(_ rejected: [RejectedRecord]) -> String {
        var counts: [String: Int] = [:]
        for record in rejected { counts[record.reason.summary, default: 0] += 1 }
        return counts.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "\($0.value) \($0.key)" }
            .joined(separator: ", ")
    }
}
