import ArgumentParser
import Foundation
import ReservationCore
import ReservationHTTP

/// Which backend to use.
public struct BackendOptions: ParsableArguments, Sendable {
    @Option(
        help: ArgumentHelp(
            "The JSON store file (default: $RESV_STORE, else $XDG_DATA_HOME/resv/reservations.json).",
            valueName: "path"),
        completion: .file(extensions: ["json"]))
    public var store: String?

    @Option(
        help: ArgumentHelp(
            "A resv-server to use instead of the file (default: $RESV_SERVER, else the config file's server).",
            valueName: "url"))
    public var server: String?

    @Option(
        help: ArgumentHelp(
            "The config file's profile to use (default: $RESV_PROFILE, else the one 'resv config use' chose).",
            valueName: "name"),
        completion: ShellCompletion.profileNames)
    public var profile: String?

    @Option(
        help: ArgumentHelp(
            "The config file (default: $RESV_CONFIG, else $XDG_CONFIG_HOME/resv/config.json).", valueName: "path"),
        completion: .file(extensions: ["json"]))
    public var config: String?

    @Flag(help: "Read the server's answers cached by earlier commands; never use the network.")
    public var offline = false

    @Option(
        help: ArgumentHelp(
            "CA certificates (PEM) to verify an https server with, instead of the system's (default: $RESV_CACERT, "
                + "else the config file's cacert for that server).", valueName: "file"),
        completion: .file(extensions: ["pem", "crt"]))
    public var cacert: String?

    public init() {}

    public func validate() throws {
        if let store, !store.isEmpty, let server, !server.isEmpty {
            throw ValidationError("--store and --server name two backends: give one of them")
        }
    }
}

/// How results are printed.
public enum OutputFormat: String, CaseIterable, ExpressibleByArgument, Sendable {
    case table, json, ndjson, csv, ics
}

/// Output options shared by every command that prints results.
public struct OutputOptions: ParsableArguments, Sendable {
    @Flag(help: "Print JSON (same as --format json).")
    var json = false

    @Option(
        help: """
            Output format (default: table): json, ndjson (one object per line), csv (RFC 4180, a header row, \
            CRLF line ends) or ics (an RFC 5545 calendar, for reservations).
            """)
    var format: OutputFormat?

    @Option(
        help: ArgumentHelp(
            "Run the JSON output through this jq program (libjq): a result a line, a string as itself, "
                + "anything else as compact JSON; implies --json (with --format ndjson, each line is an input).",
            valueName: "expression"))
    var jq: String?

    @Flag(name: .shortAndLong, help: "List every skipped record with its reason.")
    var verbose = false

    @Option(
        help: ArgumentHelp(
            "Show times in this zone: local (TZ), utc or an IANA zone such as Europe/Paris (default: a visit at "
                + "its landmark's time, a change in TZ).", valueName: "zone"))
    var tz: String?

    @Flag(
        help: """
            Write to the terminal even when the output is taller than it (default: list, log, show, \
            availability, landmarks and fetch page it with $RESV_PAGER, else $PAGER, else less -FRX).
            """)
    var noPager = false

    public init() {}

    public func validate() throws {
        if json, let format, format != .json {
            throw ValidationError("--json and --format \(format.rawValue) disagree: give one of them")
        }
        if jq != nil, let format, format != .json, format != .ndjson {
            throw ValidationError("--jq reads JSON: it cannot be --format \(format.rawValue) (use json or ndjson)")
        }
        if let tz, Self.zone(tz, local: .gmt) == nil {
            throw ValidationError(
                "--tz '\(tz.quoted())' is not a zone: give local, utc or an IANA name such as Europe/Paris")
        }
    }

    /// The zone `--tz` names; nil when it names none.
    static func zone(_ text: String, local: TimeZone) -> TimeZone? {
        switch text.lowercased() {
        case "local": local
        case "utc", "z": TimeZone(identifier: "UTC") ?? .gmt
        default: TimeZone(identifier: text)
        }
    }

    var resolvedFormat: OutputFormat { format ?? (json || jq != nil ? .json : .table) }

    /// Refuses a format this command cannot print (`command` as in its help: "resv landmarks").
    func check(_ supported: [OutputFormat], command: String) throws {
        guard let format, !supported.contains(format) else { return }
        throw ValidationError(
            "\(command) cannot print --format \(format.rawValue): use \(supported.map(\.rawValue).joined(separator: ", "))"
        )
    }
}

/// A command that prints data: `ResvMain.run` reads its `--jq`.
protocol PrintsData {
    var options: CommonOptions { get }
}

/// A command whose arguments are one group holding the common options, printing a table,
/// JSON or NDJSON: `checkin`, `noshow`, `undo`, `redo`.
protocol GroupedCommand: ResvCommand, PrintsData {
    associatedtype Arguments: ParsableArguments & PrintsData
    var arguments: Arguments { get }
}

extension GroupedCommand {
    var options: CommonOptions { arguments.options }

    func validate() throws {
        try options.output.check([.table, .json, .ndjson], command: "resv " + (Self.configuration.commandName ?? ""))
    }
}

/// The options every data command takes: backend and output. Untitled, so that
/// help lists them after the command's own (titled groups come first).
public struct CommonOptions: ParsableArguments, Sendable {
    @OptionGroup var backend: BackendOptions
    @OptionGroup var output: OutputOptions

    public init() {}
}

extension Reservation.Status: ExpressibleByArgument {}

/// `--queue` of the commands that change reservations (docs/contracts.md, "Offline").
struct QueueOption: ParsableArguments, Sendable {
    @Flag(
        help: ArgumentHelp(
            "On a server: when it cannot be reached, keep the change in its outbox (status queued), sent by "
                + "'resv sync' or the next command that reaches it (default: the config key queue)."))
    var queue = false
}

/// `--idempotency-key` of a change command: the key its request is sent under, so the same
/// command run again (after "whether it was made is unknown") makes the change at most once.
struct IdempotencyKeyOption: ParsableArguments, Sendable {
    @Option(
        help: ArgumentHelp(
            "On a server: the Idempotency-Key this change is sent under, so running the command again "
                + "never makes it twice (1 to 255 printable ASCII characters, no spaces; default: a new key "
                + "per run).",
            valueName: "key"))
    var idempotencyKey: String?

    func validate() throws {
        // It becomes a request header: nothing that could end the header and start another.
        if let idempotencyKey, !HeaderValue.isValid(idempotencyKey, longest: HeaderValue.longestKey) {
            throw ValidationError("--idempotency-key must be \(HeaderValue.keyRule)")
        }
    }
}

extension Recurrence: ExpressibleByArgument {}
