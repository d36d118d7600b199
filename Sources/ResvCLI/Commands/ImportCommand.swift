import ArgumentParser
import Foundation
import ReservationCore
import ResvReference

struct ImportCommand: ResvCommand, PrintsData {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Book the events of an iCalendar (.ics) or CSV file, all or nothing.",
        discussion: """
            Reads resv's own exports ('resv list --all --format ics' or '--format csv'), which come back \
            exactly (id, landmark, date, party size, status, note, series), and other calendars' events: the \
            landmark is the one whose name is in LOCATION, else in SUMMARY (else whose location \
            LOCATION is), the party 1 unless SUMMARY says "party of N", the note the DESCRIPTION. A \
            start in UTC, with a TZID or floating (a time at the landmark) is read; an all-day or a \
            recurring event is refused.

            An event already there (its id is one of your reservations: resv's own id, or the id made \
            from another calendar's UID and your user) is skipped, so importing a file twice adds \
            nothing. An event that has ended (cancelled, expired, or its date passed) is skipped and \
            counted, never booked. Everything else is one batch, as 'reserve --batch': all booked, or, \
            when any is refused, none, each refused event named by its line and UID (exit 64, or 1 \
            when only full days refused them). A file that is not of its format is exit 65.

            The format is the file's extension (.ics, .csv); for standard input ('-') give --format \
            ics or csv, which then names the input (the output is the table). --dry-run reads and \
            checks everything against your reservations now and prints what would be booked, \
            changing nothing.

            Examples:
              resv list --all --format ics > visits.ics && resv --store other.json import visits.ics
              resv import calendar.ics --dry-run
              resv list --format csv | resv --server https://resv.example.org import - --format csv
            """)

    @Argument(
        help: ArgumentHelp("The file to import: .ics or .csv, or '-' for standard input.", valueName: "file"),
        completion: .file(extensions: ["ics", "csv"]))
    var file: String

    @Flag(help: "Read and check everything, print what would be booked, and change nothing.")
    var dryRun = false

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
        let service = try context.service(options.backend)
        let user = try await serverUser(context)
        let entries: [ImportFile.Entry]
        do {
            entries =
                switch format {
                case .ics: try ImportFile.entries(ics: data, user: user)
                case .csv: try ImportFile.entries(csv: data, user: user)
                }
        } catch {
            throw CLIError.notImportable(file == "-" ? "standard input" : file, line: error.line, error.reason)
        }
        let catalog = try await service.landmarks()
        let snapshot = try await service.fetch()
        let there = Set(snapshot.reservations.map(\.id))
        let now = context.now()
        var plan = Plan()
        var earlier: [Reservation.ID: Int] = [:]
        for entry in entries {
            if there.contains(entry.id) {
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
            case .refused(let error): plan.refused.append(Self.failure(entry, error))
            }
        }
        if output.verbose { for line in plan.skipped { context.say(line) } }
        let (made, found) = try await book(plan, on: service, snapshot: snapshot, now: now)
        plan.already += found
        let renderer = Renderer(output, context: context)
        renderer.write(reservations: made, to: context.output)
        let meanwhile = found == 0 ? "" : " (\(found) booked meanwhile by another run)"
        let skipped =
            "skipped \(plan.already) already there\(meanwhile), \(plan.cancelled + plan.past) ended "
            + "(\(plan.cancelled) cancelled, \(plan.past) past)"
        context.say(
            dryRun
                ? "Dry run, nothing changed: would import \(Self.events(made.count)); \(skipped)."
                : "Imported \(Self.events(made.count)); \(skipped).")
    }

    /// What the file's events come to: those to book, and the counts of those skipped.
    private struct Plan {
        var booking: [(entry: ImportFile.Entry, request: NewReservation)] = []
        var refused: [BatchInput.Failure] = []
        var skipped: [String] = []
        var already = 0
        var cancelled = 0
        var past = 0

        mutating func skip(_ entry: ImportFile.Entry, _ why: String, _ count: WritableKeyPath<Plan, Int>) {
            self[keyPath: count] += 1
            skipped.append("Skipped \(entry.origin) (line \(entry.line)): \(why).")
        }
    }

    /// Books the plan's requests in one batch (or, with --dry-run, on a copy of
    /// what the backend holds), or throws every refused event at once.
    private func book(
        _ plan: Plan, on service: ReservationService, snapshot: ReservationSnapshot, now: Date
    ) async throws -> (made: [Reservation], found: Int) {
        let requests = plan.booking.map(\.request)
        var failures = plan.refused
        var made: [Reservation] = []
        var alreadyThere = 0
        var onlyRefused = false
        do {
            if !dryRun && failures.isEmpty {
                let tally = Booking.Tally()
                made =
                    requests.isEmpty
                    ? [] : try await Booking.$tally.withValue(tally) { try await service.reserve(requests) }
                // Booked since the list was read (another import of the same file, on a file store,
                // whose rule runs here and so counts): already there, not this run's.
                let found = tally.found
                made.removeAll { found.contains($0.id) }
                alreadyThere = found.count
            } else if !requests.isEmpty {
                // Nothing is written: the backend's own checks run on a copy of the user's reservations.
                let ledger = ReservationLedger(
                    records: snapshot.reservations.map { ReservationApiModel($0).json }, catalog: snapshot.catalog)
                made = try await Booking.reserve(requests, now: now, in: LedgerTransaction(ledger))
            }
        } catch ReservationError.batchRejected(let refused, _) {
            failures += refused.map { Self.failure(plan.booking[$0.index].entry, $0.error) }
            onlyRefused =
                plan.refused.isEmpty && refused.allSatisfy { ExitStatus.code(for: $0.error) == ExitStatus.refused }
        } catch let error as ReservationError
            where requests.count == 1 && [ExitStatus.usage, ExitStatus.refused].contains(ExitStatus.code(for: error))
        {
            // One request goes alone (POST /reservations): its refusal is its own error, not a batch's.
            failures.append(Self.failure(plan.booking[0].entry, error))
            onlyRefused = plan.refused.isEmpty && ExitStatus.code(for: error) == ExitStatus.refused
        }
        guard failures.isEmpty else {
            throw BatchError(failures, total: plan.booking.count + plan.refused.count, onlyRefused: onlyRefused)
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
