import ArgumentParser
import Foundation
import ReservationCore
import ReservationHTTP
import ResvReference

struct ImportCommand: ResvCommand, PrintsData {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Book the events of an iCalendar (.ics) or CSV file: what can be booked, the rest counted.",
        discussion: """
            Reads resv's own exports ('resv list --all --format ics' or '--format csv'), which come back \
            exactly (id, landmark, date, party size, status, note, series), and other calendars' events: the \
            landmark is the one whose name is in LOCATION, else in SUMMARY (else whose location \
            LOCATION is), the party 1 unless SUMMARY says "party of N" (1 to 10000), the note the \
            DESCRIPTION. A start in UTC, with a TZID or floating (a time at the landmark) is read. A \
            repeating event whose RRULE 'reserve --every' can book (FREQ=DAILY, WEEKLY or MONTHLY, \
            INTERVAL=1, COUNT or UNTIL, EXDATEs) is one series, each visit its own reservation.

            An event already there (its id is one of your reservations: resv's own id, or the id made \
            from another calendar's UID, the same on every backend) is skipped, so importing a file \
            twice adds nothing, nor does importing a store's export into a server after the file. An event that has ended (cancelled, expired, or its date passed) is skipped and \
            counted, never booked. An event that cannot be booked is named on stderr and counted by \
            reason: all-day, repeating beyond --every, landmark not found, two DTSTARTs, party out of \
            range, unreadable, refused (a full day, an id another user has); the rest is booked and \
            the exit status is 1. With --strict it is all or nothing, as 'reserve --batch': all \
            booked, or, when any is refused, none, each refused event named by its line and UID (exit \
            64, or 1 when only full days refused them). A file that is not of its format is exit 65.

            --new-ids books every event as a new reservation of yours (a teammate's export, whose ids \
            are theirs): each id (and series) is made from the event's and your user, so importing \
            the file twice still adds nothing.

            The format is the file's extension (.ics, .csv); for standard input ('-') give --format \
            ics or csv, which then names the input (the output is the table). --dry-run asks the \
            backend what the import would do now (a server counts every user's bookings and ids), \
            prints what would be booked and what not, and exits as the import would, changing nothing.

            Examples:
              resv list --all --format ics > visits.ics && resv --store other.json import visits.ics
              resv import calendar.ics --dry-run
              resv import teammate.ics --new-ids --strict
              resv list --format csv | resv --server https://resv.example.org import - --format csv
            """)

    @Argument(
        help: ArgumentHelp("The file to import: .ics or .csv, or '-' for standard input.", valueName: "file"),
        completion: .file(extensions: ["ics", "csv"]))
    var file: String

    @Flag(help: "Check everything against your reservations, print what would be booked, and change nothing.")
    var dryRun = false

    @Flag(help: "All or nothing: an event that cannot be booked refuses the whole file.")
    var strict = false

    @Flag(help: "Book every event as a new reservation of yours (a teammate's export), not under its own id.")
    var newIds = false

    @OptionGroup var options: CommonOptions

    func validate() throws {
        _ = try inputFormat()
        // The ids of other calendars' events are made with the server's user, whom the cache does not know.
        if options.backend.offline { throw ValidationError("import books on the server: leave out --offline") }
    }

    /// The file's format: --format ics|csv, else its extension.
    private func inputFormat() throws -> ImportFile.Format {
        switch options.output.format {
        case .ics?: return .ics
        case .csv?: return .csv
        default:
            if file == "-" {
                throw ValidationError("reading standard input, give its format: --format ics or --format csv")
            }
            guard let format = ImportFile.Format(path: file) else {
                throw ValidationError(
                    "'\(file.quoted())' is neither .ics nor .csv: name its format with --format ics or --format csv")
            }
            return format
        }
    }

    func run(in context: CommandContext) async throws {
        if file == "-", context.inRepl { throw CLIError.unreadableInput("-", "in the REPL, give import a file") }
        let format = try inputFormat()
        let data = try read(context)
        var output = options.output
        if output.format == .ics || output.format == .csv { output.format = nil }  // it named the input
        let backend = try context.backend(options.backend)
        let service = backend.service
        let entries = try entries(of: data, as: format, user: try await serverUser(context))
        let catalog = try await service.landmarks()
        let snapshot = try await service.fetch()
        let now = context.now()
        var plan = plan(entries, in: catalog, there: Set(snapshot.reservations.map(\.id)), now: now)
        if output.verbose { for line in plan.skipped { context.say(line) } }
        let onServer = try context.settings(options.backend).chosenServer != nil
        let (made, found) = try await book(
            &plan, on: service, asking: backend.server?.wouldReserve, snapshot: snapshot, now: now, onServer: onServer)
        plan.already += found
        Renderer(output, context: context).write(reservations: made, to: context.output)
        report(plan, made: made.count, foundMeanwhile: found, verbose: output.verbose, in: context)
        if !plan.notBooked.isEmpty {
            throw CLIError.importIncomplete(notBooked: plan.notBooked.count, dryRun: dryRun)
        }
    }

    /// The file's events (or rows), read as `format`.
    private func entries(of data: Data, as format: ImportFile.Format, user: String) throws -> [ImportFile.Entry] {
        do {
            return switch format {
            case .ics: try ImportFile.entries(ics: data, user: user, newIDs: newIds)
            case .csv: try ImportFile.entries(csv: data, user: user, newIDs: newIds)
            }
        } catch {
            throw CLIError.notImportable(file == "-" ? "standard input" : file, line: error.line, error.reason)
        }
    }

    /// What becomes of each visit of the file's events: booked, skipped (already `there`, twice
    /// in the file, ended) or not bookable (refused with --strict).
    private func plan(
        _ entries: [ImportFile.Entry], in catalog: LandmarkCatalog, there: Set<Reservation.ID>, now: Date
    ) -> Plan {
        // A series whose visits the file changes one by one (RECURRENCE-ID) is not the series its rule says.
        let changed = Set(entries.filter(\.changesVisit).compactMap(\.uid))
        var plan = Plan()
        var earlier: [Reservation.ID: Int] = [:]
        for entry in entries.flatMap({
            $0.visits(in: catalog, now: now, changed: $0.uid.map(changed.contains) ?? false)
        }) {
            // Under the id either choice of --new-ids makes: an earlier import's, with or without it.
            if there.contains(entry.id) || entry.otherID.map(there.contains) == true {
                plan.skip(entry, "already there (\(entry.id.short))", \.already)
                continue
            }
            // A calendar may hold an event twice (the same UID): it is one visit.
            if let line = earlier[entry.id] {
                plan.skip(entry, "the same event as line \(line)", \.already)
                continue
            }
            earlier[entry.id] = entry.line
            switch entry.outcome(in: catalog, now: now) {
            case .book(let request): plan.booking.append((entry, request))
            case .ended(.cancelled): plan.skip(entry, "has ended: it is cancelled", \.cancelled)
            case .ended(.past): plan.skip(entry, "has ended: its date has passed", \.past)
            case .refused(let error, let kind):
                if strict {
                    plan.refused.append(Self.failure(entry, error))
                } else {
                    plan.unbookable(entry, error, kind)
                }
            }
        }
        return plan
    }

    /// Each event not booked named (all of them with --verbose), then the counts by reason.
    private func report(_ plan: Plan, made: Int, foundMeanwhile found: Int, verbose: Bool, in context: CommandContext) {
        let shown = verbose ? plan.notBooked.count : min(plan.notBooked.count, Self.namedAtMost)
        for line in plan.notBooked.sorted(by: { $0.line < $1.line }).prefix(shown) { context.say(line.text) }
        if plan.notBooked.count > shown {
            context.say("… and \(plan.notBooked.count - shown) more not booked (--verbose names each).")
        }
        let meanwhile = found == 0 ? "" : " (\(found) booked meanwhile by another run)"
        var skipped =
            "skipped \(plan.already) already there\(meanwhile), \(plan.cancelled + plan.past) ended "
            + "(\(plan.cancelled) cancelled, \(plan.past) past)"
        if !plan.notBooked.isEmpty {
            let reasons = ImportFile.Unbookable.allCases.compactMap { kind in
                plan.reasons[kind].map { "\($0) \(kind.rawValue)" }
            }
            skipped += ", \(plan.notBooked.count) not booked (\(reasons.joined(separator: ", ")))"
        }
        context.say(
            dryRun
                ? "Dry run, nothing changed: would import \(Self.events(made)); \(skipped)."
                : "Imported \(Self.events(made)); \(skipped).")
    }

    /// How many events not booked are named without --verbose.
    static let namedAtMost = 10

    /// What the file's events come to: those to book, and the counts of those skipped.
    private struct Plan {
        var booking: [(entry: ImportFile.Entry, request: NewReservation)] = []
        var refused: [BatchInput.Failure] = []
        var skipped: [String] = []
        /// Those that cannot be booked (without --strict), one line each, and their count by reason.
        var notBooked: [(line: Int, text: String)] = []
        var reasons: [ImportFile.Unbookable: Int] = [:]
        var already = 0
        var cancelled = 0
        var past = 0

        mutating func skip(_ entry: ImportFile.Entry, _ why: String, _ count: WritableKeyPath<Plan, Int>) {
            self[keyPath: count] += 1
            skipped.append("Skipped \(entry.origin) (line \(entry.line)): \(why).")
        }

        mutating func unbookable(_ entry: ImportFile.Entry, _ error: any Error, _ kind: ImportFile.Unbookable) {
            reasons[kind, default: 0] += 1
            let failure = BatchInput.Failure(line: entry.line, error: error)
            // Another user's id (a teammate's export): --new-ids books the event as one's own.
            let hint = failure.code == ErrorCode.reservationIdInUse.rawValue ? " (--new-ids books it as yours)" : ""
            notBooked.append(
                (entry.line, "Not booked: \(entry.origin) (line \(entry.line)): \(failure.reason)\(hint)."))
        }
    }

    /// Books the plan's requests in batches the server takes (`BatchLimit`; one on the file
    /// store), or for --dry-run asks the server in the same batches (on the file store: runs
    /// them on a copy of what it holds). With --strict, or when
    /// the file itself is at fault, throws every refused event at once (and refuses a plan a
    /// server would need more than one batch for, all or nothing being one batch); else the
    /// events the backend refuses (a full day) are taken out of the plan, counted, and the
    /// rest of that batch sent again.
    private func book(
        _ plan: inout Plan, on service: ReservationService,
        asking server: (@Sendable ([NewReservation]) async throws -> [Reservation])?, snapshot: ReservationSnapshot,
        now: Date, onServer: Bool
    ) async throws -> (made: [Reservation], found: Int) {
        // A dry run on a server is asked of it in the same batches.
        let batched = onServer
        if strict, batched, plan.booking.count > BatchLimit.requests {
            throw CLIError.importTooLarge(events: plan.booking.count, limit: BatchLimit.requests)
        }
        var made: [Reservation] = []
        var found = 0
        var start = 0
        var rounds = 0
        repeat {
            let end = batched ? Self.batchEnd(plan.booking, from: start) : plan.booking.count
            do {
                let booked = try await bookOnce(
                    plan, start..<end, on: service, asking: server, snapshot: snapshot, now: now)
                made += booked.made
                found += booked.found
                start = end
                rounds = 0
            } catch let error as Refusal where !strict && rounds < 4 {
                // Each round takes out at least one refused event; a few settle what another run changes meanwhile.
                rounds += 1
                for (index, refusal) in error.refused.sorted(by: { $0.index > $1.index }) {
                    plan.unbookable(plan.booking[start + index].entry, refusal, .refused)
                    plan.booking.remove(at: start + index)
                }
            } catch let error as Refusal {
                throw error.error
            }
        } while start < plan.booking.count
        return (made, found)
    }

    /// How many requests one batch of an import holds on a server: a tenth of what the server
    /// takes (`BatchLimit.requests`), so that each batch is answered well within the client's
    /// request timeout (30 s) on a busy server, as one of 10,000 may not be.
    static let batchSize = 1_000

    /// Where the batch that starts at `start` ends: at most `batchSize` requests, and a body
    /// well under `BatchLimit.bytes` (a request's JSON is counted at its most: a note's every
    /// byte escaped).
    static func batchEnd(_ booking: [(entry: ImportFile.Entry, request: NewReservation)], from start: Int) -> Int {
        var end = start
        var bytes = 0
        while end < booking.count, end - start < batchSize {
            bytes += 512 + 6 * (booking[end].request.note?.utf8.count ?? 0)
            if bytes > BatchLimit.bytes - (64 << 10), end > start { break }
            end += 1
        }
        return end
    }

    /// A batch refused: the refused requests by index, and the error --strict reports.
    private struct Refusal: Error {
        var refused: [(index: Int, error: any Error)]
        var error: BatchError
    }

    private func bookOnce(
        _ plan: Plan, _ range: Range<Int>, on service: ReservationService,
        asking server: (@Sendable ([NewReservation]) async throws -> [Reservation])?, snapshot: ReservationSnapshot,
        now: Date
    ) async throws -> (made: [Reservation], found: Int) {
        let requests = plan.booking[range].map(\.request)
        var failures = plan.refused
        var made: [Reservation] = []
        var alreadyThere = 0
        var onlyRefused = false
        var refusedHere: [(index: Int, error: any Error)] = []
        do {
            if !dryRun && failures.isEmpty {
                let tally = Booking.Tally()
                // Each batch has the whole request timeout (RESV_REQUEST_TIMEOUT), as each item of
                // `resv sync` has: it bounds a command, and 10,000 events in batches take longer.
                made =
                    requests.isEmpty
                    ? []
                    : try await CommandDeadline.$start.withValue(.now) {
                        try await Booking.$tally.withValue(tally) { try await service.reserve(requests) }
                    }
                // Booked since the list was read (another import of the same file, on a file store,
                // whose rule runs here and so counts): already there, not this run's.
                let found = tally.found
                made.removeAll { found.contains($0.id) }
                alreadyThere = found.count
            } else if !requests.isEmpty, let server {
                // Nothing is written: the server runs the batch as it would (every user's bookings
                // and ids counted) and rolls it back.
                made = try await CommandDeadline.$start.withValue(.now) { try await server(requests) }
            } else if !requests.isEmpty {
                // Nothing is written: the backend's own checks run on a copy of the user's reservations.
                let ledger = ReservationLedger(
                    records: snapshot.reservations.map { ReservationApiModel($0).json }, catalog: snapshot.catalog)
                made = try await Booking.reserve(requests, now: now, in: LedgerTransaction(ledger))
            }
        } catch ReservationError.batchRejected(let refused, _) {
            failures += refused.map { Self.failure(plan.booking[range.lowerBound + $0.index].entry, $0.error) }
            refusedHere = refused.map { ($0.index, $0.error) }
            onlyRefused =
                plan.refused.isEmpty && refused.allSatisfy { ExitStatus.code(for: $0.error) == ExitStatus.refused }
        } catch let error as ReservationError
            where requests.count == 1 && [ExitStatus.usage, ExitStatus.refused].contains(ExitStatus.code(for: error))
        {
            // One request goes alone (POST /reservations): its refusal is its own error, not a batch's.
            failures.append(Self.failure(plan.booking[range.lowerBound].entry, error))
            refusedHere = [(0, error)]
            onlyRefused = plan.refused.isEmpty && ExitStatus.code(for: error) == ExitStatus.refused
        }
        guard failures.isEmpty else {
            let error = BatchError(failures, total: range.count + plan.refused.count, onlyRefused: onlyRefused)
            guard plan.refused.isEmpty, !refusedHere.isEmpty else { throw error }
            throw Refusal(refused: refusedHere, error: error)
        }
        return (made, alreadyThere)
    }

    /// An event refused, named by its line and origin.
    private static func failure(_ entry: ImportFile.Entry, _ error: any Error) -> BatchInput.Failure {
        let refused = BatchInput.Failure(line: entry.line, error: error)
        return BatchInput.Failure(line: entry.line, code: refused.code, reason: "\(entry.origin): \(refused.reason)")
    }

    private static func events(_ count: Int) -> String { count == 1 ? "1 event" : "\(count) events" }

    /// The file's bytes, at most `ImportFile.maxBytes`.
    private func read(_ context: CommandContext) throws -> Data {
        let data: Data
        if file == "-" {
            data = context.input.readAtMost(ImportFile.maxBytes + 1)
        } else {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) else {
                throw CLIError.unreadableInput(file, "no such file")
            }
            if isDirectory.boolValue { throw CLIError.unreadableInput(file, "it is a directory") }
            do {
                let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: file))
                defer { try? handle.close() }
                data = try handle.read(upToCount: ImportFile.maxBytes + 1) ?? Data()
            } catch {
                throw CLIError.unreadableInput(file, (error as NSError).localizedDescription)
            }
        }
        guard data.count <= ImportFile.maxBytes else {
            throw CLIError.notImportable(
                file == "-" ? "standard input" : file, line: 1,
                "it is over \(ImportFile.maxBytes >> 20) MiB, more than an import reads")
        }
        return data
    }

    /// On a server, the token's user, folded into the ids of other calendars' events
    /// (an id is unique among every user's); the file store has one user, "".
    private func serverUser(_ context: CommandContext) async throws -> String {
        let settings = try context.settings(options.backend)
        guard let server = settings.chosenServer else { return "" }
        let (configuration, transport) = try context.httpBackend(server, settings, options.backend)
        return try await configuration.whoami(transport: transport)
    }
}
