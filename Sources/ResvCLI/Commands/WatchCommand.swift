import ArgumentParser
import Foundation
import ReservationCore
import ReservationHTTP

struct WatchCommand: ResvCommand, PrintsData {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print changes to your reservations as they happen.",
        discussion: """
            Every change (created, modified, confirmed, cancelled, checked-in, no-show, undone, redone, and \
            the system's promoted \
            and expired) is printed as it happens, oldest first: a line each on a terminal, one JSON \
            object a line with --json or --format ndjson (written at once, also into a pipe). Each \
            carries a cursor; --after CURSOR starts just after that change, with no gap and no \
            duplicate; without it, only changes from now on. On a server, a lost connection or a \
            restarted server is resumed from the last cursor without a word. Ctrl-C ends it (exit 130).

            Examples:
              resv watch --json | jq -r 'select(.change == "promoted") | .reservationId'
              resv watch --after "$(cat cursor)" --no-follow --json
            """)

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Start just after this change: a cursor watch printed.", valueName: "cursor"))
    var after: String?

    @Flag(name: .customLong("no-follow"), help: "Print the changes there are, then exit.")
    var noFollow = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Stop after this many seconds (exit 0).", valueName: "seconds"))
    var timeout: String?

    @OptionGroup var options: CommonOptions

    func validate() throws {
        try options.output.check([.table, .json, .ndjson], command: "resv watch")
        if let timeout { _ = try Self.seconds(timeout, option: "--timeout") }
        if let after, !ChangeCursor.isPlausible(after) {
            throw ValidationError("--after '\(after.quoted(limit: 60))' is not a cursor: use one resv watch printed")
        }
    }

    /// A number of seconds an option takes: finite, more than 0, at most a year.
    static func seconds(_ text: String, option: String) throws -> Double {
        guard let value = Double(text), value.isFinite, value > 0, value <= 31_536_000 else {
            throw ValidationError("\(option) '\(text.quoted(limit: 60))' is not a number of seconds from 0 to 31536000")
        }
        return value
    }

    func run(in context: CommandContext) async throws {
        let service = try context.service(options.backend)
        let renderer = Renderer(options.output, context: context)
        let json = renderer.format != .table
        let deadline = try timeout.map {
            ContinuousClock.now + .milliseconds(Int(try Self.seconds($0, option: "--timeout") * 1000))
        }
        var feed = Feed(service: service, deadline: deadline)
        var cursor: String
        if let after { cursor = after } else { cursor = try await feed.start() }
        if noFollow, after == nil {
            // From now on and not following: nothing can come. Said, with the cursor to start from later.
            context.say(
                "resv: --no-follow without --after prints the changes after now, and there are none yet; "
                    + "to see them later: resv watch --after \(cursor) --no-follow")
            return
        }
        var catalog = LandmarkCatalog([])
        if !json {
            // The server's names, or a wait for it: the cache is not read while the server answers.
            catalog = try await CacheFallback.$allowed.withValue(false) {
                try await feed.read { try await service.landmarks() }
            }
        }
        while true {
            let wait = noFollow ? Duration.zero : feed.waitLeft(upTo: .seconds(30))
            guard let page = try await feed.next(after: cursor, wait: wait) else { return }
            for change in page.changes {
                if json {
                    context.output.write(String(decoding: change.json.encoded(), as: UTF8.self) + "\n")
                } else {
                    let entry = change.entry
                    let fields = [
                        renderer.localDate(entry.at), entry.reservationID.short, entry.change.rawValue,
                        LogCommand.detail(entry, catalog: catalog, renderer: renderer), change.cursor,
                    ]
                    context.output.write(fields.joined(separator: "  ").terminalSafe + "\n")
                }
            }
            cursor = page.cursor
            if noFollow, page.changes.isEmpty { return }
        }
    }
}

/// A feed followed to a deadline: each page of changes after a cursor, a
/// lost server waited for (with backoff) until it answers again or the
/// deadline passes, so a watcher resumes from its cursor without a word.
struct Feed {
    let service: ReservationService
    let deadline: ContinuousClock.Instant?
    /// When the server was first found unreachable, in the outage under way.
    private var lostSince: ContinuousClock.Instant?
    private var failures = 0
    /// How long an outage is waited out: longer, and its error ends the command.
    static let patience: Duration = .seconds(600)

    init(service: ReservationService, deadline: ContinuousClock.Instant?) {
        self.service = service
        self.deadline = deadline
    }

    /// The cursor of now (the server waited for if it is down, until the deadline).
    mutating func start() async throws -> String {
        try await read { [service] in try await service.changes(nil, .zero).cursor }
    }

    /// What `body` reads from the backend, the server waited for if it is down. Each try is
    /// a request of its own, with the whole RESV_REQUEST_TIMEOUT from its start: a watch or
    /// a wait lasts longer than any one request. Past the deadline, the failure is thrown.
    mutating func read<T>(_ body: () async throws -> T) async throws -> T {
        while true {
            do {
                return try await CommandDeadline.$start.withValue(.now) { try await body() }
            } catch {
                if let deadline, ContinuousClock.now >= deadline { throw error }
                try await recover(from: error)
            }
        }
    }

    /// What is left before the deadline, at most `most`.
    func waitLeft(upTo most: Duration) -> Duration {
        guard let deadline else { return most }
        return max(.zero, min(most, ContinuousClock.now.duration(to: deadline)))
    }

    /// The changes after `cursor`, waiting up to `wait`; nil once the deadline has passed.
    mutating func next(after cursor: String, wait: Duration) async throws -> ChangePage? {
        while true {
            if let deadline, ContinuousClock.now >= deadline { return nil }
            do {
                let page = try await service.changes(cursor, wait)
                lostSince = nil
                failures = 0
                return page
            } catch {
                try await recover(from: error)
            }
        }
    }

    /// Waits before asking again when the server could not be reached (a
    /// restart, a dropped connection): 0.25 s, doubling to 5 s. Anything else,
    /// or an outage longer than `patience`, is thrown.
    private mutating func recover(from error: any Error) async throws {
        guard Self.isTransient(error) else { throw error }
        let now = ContinuousClock.now
        let since = lostSince ?? now
        lostSince = since
        guard since.duration(to: now) < Self.patience else { throw error }
        failures += 1
        var delay = Duration.milliseconds(250) * (1 << min(failures - 1, 5))
        delay = min(delay, .seconds(5))
        if let deadline { delay = min(delay, max(.zero, now.duration(to: deadline))) }
        try await Task.sleep(for: delay)
    }

    static func isTransient(_ error: any Error) -> Bool {
        switch error {
        case let error as HTTPBackendError:
            switch error {
            case .unavailable, .serverError, .rateLimited, .databaseUnavailable, .serverBusy: return true
            default: return false
            }
        default: return false
        }
    }
}
