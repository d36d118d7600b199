import ArgumentParser
import Foundation
import ReservationCore

/// Which backend to use.
public struct BackendOptions: ParsableArguments, Sendable {
    @Option(
        help: ArgumentHelp(
            "The JSON store file (default: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).",
            valueName: "path"),
        completion: .file(extensions: ["json"]))
    public var store: String?

    public init() {}
}

/// How results are printed.
public enum OutputFormat: String, CaseIterable, ExpressibleByArgument, Sendable {
    case table, json, ndjson
}

/// Output options shared by every command that prints results.
public struct OutputOptions: ParsableArguments, Sendable {
    @Flag(help: "Print JSON (same as --format json).")
    var json = false

    @Option(help: "Output format; ndjson prints one object per line (default: table).")
    var format: OutputFormat?

    @Flag(name: .shortAndLong, help: "List every skipped record with its reason.")
    var verbose = false

    public init() {}

    public func validate() throws {
        if json, let format, format != .json {
            throw ValidationError("--json and --format \(format.rawValue) disagree: give one of them")
        }
    }

    var resolvedFormat: OutputFormat { json ? .json : (format ?? .table) }
}

/// The options every data command takes: backend and output.
public struct CommonOptions: ParsableArguments, Sendable {
    @OptionGroup(title: "Backend") var backend: BackendOptions
    @OptionGroup(title: "Output") var output: OutputOptions

    public init() {}
}

extension Reservation.Status: ExpressibleByArgument {}
