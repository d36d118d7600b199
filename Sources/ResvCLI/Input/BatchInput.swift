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

    /// A line that was refused: its number, the code of its failure (the
    /// server's codes, as a JSON error gives them) and why.
    struct Failure: Sendable, Equatable {
        var line: Int
        var code: String
        var reason: String
        /// What `line` counts, in the text (a series' failures are its visits); JSON keeps `line`.
        var noun = "line"

        init(line: Int, code: String, reason: String, noun: String = "line") {
            self.line = line
            self.code = code
            self.reason = reason
            self.noun = noun
        }

        /// A line refused for `error`, in the words and code of the error printed alone.
        init(line: Int, error: any Error, noun: String = "line") {
            self.init(
                line: line, code: ExitStatus.errorCode(for: error), reason: ExitStatus.message(for: error), noun: noun)
        }

        /// `{"line": 2, "code": "…", "message": "…"}`, an element of a JSON error's `lines`.
        var json: JSONValue {
            .object(["line": .integer(Int64(line)), "code": .string(code), "message": .string(reason)])
        }
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
        -> (lines: [Line], failures: [Failure])
    {
        var lines: [Line] = []
        var failures: [Failure] = []
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
                failures.append(
                    Failure(
                        line: number, code: ExitStatus.errorCode(for: error),
                        reason: "not a JSON object: \(error.detail)"))
            } catch {
                failures.append(Failure(line: number, error: error))
            }
        }
        return (lines, failures)
    }

    /// The backend's own checks (landmark, date, capacity) on a copy of its
    /// current data, for reporting only: nothing is written.
    static func dryRun(_ lines: [Line], on service: ReservationService, now: Date) async throws -> [Failure] {
        guard !lines.isEmpty else { return [] }
        let snapshot = try await service.fetch()
        let ledger = ReservationLedger(
            records: snapshot.reservations.map { ReservationApiModel($0).json }, catalog: snapshot.catalog)
        do {
            _ = try await Booking.reserve(lines.map(\.request), now: now, in: LedgerTransaction(ledger))
            return []
        } catch ReservationError.batchRejected(let refused, _) {
            return refused.map { Failure(line: lines[$0.index].number, error: $0.error) }
        } catch {
            return [Failure(line: lines[0].number, error: error)]
        }
    }
}

/// A batch that was refused as a whole (`CLIError.batchRejected` or
/// `batchRefused`), with each refused line: said one line each before the
/// summary, or with --json as the error's `lines`.
struct BatchError: Error, LocalizedError {
    let error: CLIError
    let lines: [BatchInput.Failure]

    var errorDescription: String? { error.errorDescription }

    /// A batch of `total` refused for `lines`: refused (exit 1) when `onlyRefused`, every
    /// line valid and refused for what the backend holds; else invalid (64).
    init(_ lines: [BatchInput.Failure], total: Int, onlyRefused: Bool) {
        error =
            onlyRefused
            ? .batchRefused(refused: lines.count, total: total) : .batchRejected(invalid: lines.count, total: total)
        self.lines = lines.sorted { $0.line < $1.line }
    }

    init(error: CLIError, lines: [BatchInput.Failure]) {
        self.error = error
        self.lines = lines
    }
}
