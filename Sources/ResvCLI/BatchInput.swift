import Foundation
import ReservationCore
import ReservationFile
import ResvReference

/// The lines of a `reserve --batch` input.
enum BatchInput {
    struct Line {
        var number: Int
        var request: NewReservation
    }

    /// The file at `path`, or all of `stdin` for "-".
    static func read(_ path: String, stdin: InputSource) throws -> Data {
        if path == "-" { return stdin.readToEnd() }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw CLIError.unreadableInput(path, "it is a directory")
        }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CLIError.unreadableInput(path, JSONFileStore.describe(error))
        }
    }

    /// Every non-blank line as a checked request, or the reason it is not one.
    static func parse(_ data: Data, defaultStatus: Reservation.Status, now: Date, progress: ProgressLine)
        -> (lines: [Line], failures: [(line: Int, reason: String)])
    {
        var lines: [Line] = []
        var failures: [(line: Int, reason: String)] = []
        let rows = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        for (offset, row) in rows.enumerated() {
            let number = offset + 1
            if number % 1000 == 0 { progress.show("Reading requests: \(number) of \(rows.count) lines") }
            var bytes = row[...]
            while let last = bytes.last, last == 0x0D || last == 0x20 || last == 0x09 { bytes = bytes.dropLast() }
            guard bytes.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { continue }
            do {
                let json = try JSONValue.parse(Data(bytes))
                let request = try CreateReservationRequest(json: json)
                lines.append(
                    Line(number: number, request: try NewReservation(request, defaultStatus: defaultStatus, now: now)))
            } catch let error as JSONSyntaxError {
                failures.append((number, "not a JSON object: \(error.detail)"))
            } catch {
                failures.append((number, ExitStatus.message(for: error)))
            }
        }
        return (lines, failures)
    }

    /// The backend's own checks (landmark, date, capacity) on a copy of its
    /// current data, for reporting only: nothing is written.
    static func dryRun(_ lines: [Line], on service: ReservationService, now: Date) async throws
        -> [(line: Int, reason: String)]
    {
        guard !lines.isEmpty else { return [] }
        let snapshot = try await service.fetch()
        let ledger = ReservationLedger(
            records: snapshot.reservations.map { ReservationApiModel($0).json }, catalog: snapshot.catalog)
        do {
            _ = try await Booking.reserve(lines.map(\.request), now: now, in: LedgerTransaction(ledger))
            return []
        } catch ReservationError.batchRejected(let refused, _) {
            return refused.map { (lines[$0.index].number, $0.error.localizedDescription) }
        } catch {
            return [(lines[0].number, error.localizedDescription)]
        }
    }
}
