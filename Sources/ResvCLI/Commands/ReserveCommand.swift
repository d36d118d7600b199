import ArgumentParser
import Foundation
import ReservationCore
import ReservationHTTP
import ResvReference

struct ReserveCommand: ResvCommand, PrintsData {
    static let configuration = CommandConfiguration(
        commandName: "reserve",
        abstract: "Reserve a visit to a landmark and print the new reservation.",
        discussion: """
            The landmark is its id, a unique prefix of its id, its name in any case, or the starts \
            of its words: golden gate (see 'resv landmarks'). The date, in the future, is a time at the landmark as \
            you would say it: a day (2026-12-01, today, tomorrow or tmrw, +3d, in 2 days, in 3 weeks, \
            fri or next friday: the next Friday, dec 24: the next December 24) and a time (08:00, 9:30, \
            10am, 9:30 pm, noon, midnight: 00:00) in either order, at before the time if you like: \
            2026-12-01 08:00, tomorrow at 10am, 10am tomorrow, 2026-12-24 9:30 pm; or, \
            with a zone, 2026-12-01T10:00:00Z. A time the \
            landmark's clocks skip is refused; one they repeat is the earlier.

            With --batch, every line of the file is one request, a JSON object such as \
            {"landmarkId": "Half Dome", "date": "2026-12-01T10:00:00Z", "partySize": 4, \
            "status": "pending"} (landmarkId may be a name or an id prefix; status is \
            optional, and so is a "note"; a line's date always has its zone). Every line is checked with the rules of a single reserve and the \
            landmarks' capacities; then all of them are written in one locked, atomic \
            write, or, when any line is invalid, none is and each bad line is listed with \
            its number (exit 64). A line may carry "hold": SECONDS or "waitlist": true.

            With --queue (or the config key queue), a booking the server cannot be reached for is \
            kept in its outbox with an id made here (exit 0, status queued) and sent by 'resv sync' or \
            the next command that reaches the server, which decides it then; see 'resv outbox'.

            With --every day, week or month and --count N or --until DAY, a series: a visit at the \
            same time at the landmark (its clocks' time, across their changes) every day, week or month \
            from --date, at most \(Recurrence.longest), booked all at once or not at all (each day's \
            capacity counted, each visit its own reservation carrying the series' id). Monthly, a month \
            without that day (the 31st) has no visit. 'resv cancel --series ID' cancels the visits \
            still ahead.

            With --hold, the places are held for that long (status held): confirm the \
            reservation with 'resv confirm' before then, or it expires and frees them. With \
            --waitlist, a request for a full day is kept as waitlisted instead of refused \
            (exit 0; its position is shown), and it is confirmed (pending with --pending) \
            as soon as places free for it, in the order requests joined.

            Examples:
              resv reserve -l 'half dome' -d '2026-12-01 08:00' -n 4
              resv reserve --batch requests.ndjson --json
              resv reserve -l 'half dome' -d 'next tuesday 10:00' -n 2 --every week --count 6
            """)

    @Option(
        name: .shortAndLong, help: "The landmark: id, id prefix, name, or the starts of its words (golden gate).",
        completion: ShellCompletion.landmarkNames)
    var landmark: String?

    @Option(
        name: .shortAndLong, parsing: .unconditional,
        help: ArgumentHelp(
            "When, at the landmark: 2026-12-01 10:00, tomorrow at 9:30 am, 10am fri, dec 24 noon, in 2 days 14:00, "
                + "or with a zone 2026-12-01T10:00:00Z.", valueName: "date"))
    var date: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "A note kept with the reservation (at most \(Reservation.noteLimit) characters).", valueName: "text"))
    var note: String?

    @Option(
        name: [.long, .customShort("n")], parsing: .unconditional,
        help: ArgumentHelp("How many people (1 to 10,000).", valueName: "n"))
    var partySize: Int?

    @Option(
        help: ArgumentHelp(
            "Reserve every request in this file ('-' for standard input), one JSON object per line.",
            valueName: "file"),
        completion: .file())
    var batch: String?

    @Flag(help: "Book as pending (to confirm later with 'resv confirm') instead of confirmed.")
    var pending = false

    // Unconditional: '-5m' is a wrong duration to explain, not a missing one.
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Hold the places this long (90s, 10m, 2h; 1s to 24h) until confirmed with 'resv confirm'.",
            valueName: "duration"))
    var hold: String?

    @Flag(help: "When the day is full, join its waitlist instead of being refused.")
    var waitlist = false

    @Option(help: ArgumentHelp("Book a series: a visit every day, week or month from --date.", valueName: "period"))
    var every: Recurrence?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("How many visits the series has (1 to \(Recurrence.longest)).", valueName: "n"))
    var count: Int?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "The series' last day, at the landmark: 2027-01-31, +8w, in 3 weeks, dec 24 (its visits up to and "
                + "including it).",
            valueName: "day"))
    var until: String?

    @Option(
        help: ArgumentHelp(
            "On a server: the Idempotency-Key of this booking, so a script that retries it never books twice "
                + "(1 to 255 printable ASCII characters, no spaces; default: a new key per run; a batch "
                + "is one request with this key).",
            valueName: "key"))
    var idempotencyKey: String?

    @OptionGroup var queue: QueueOption
    @OptionGroup var options: CommonOptions

    func validate() throws {
        // It becomes a request header: nothing that could end the header and start another.
        if let idempotencyKey, !HeaderValue.isValid(idempotencyKey, longest: HeaderValue.longestKey) {
            throw ValidationError("--idempotency-key must be \(HeaderValue.keyRule)")
        }
        if let hold { _ = try HoldDuration.seconds(hold) }
        if hold != nil, waitlist { throw ReservationError.holdWithWaitlist }
        // A hold's time runs from when the server makes it; a batch is one all-or-nothing request.
        if queue.queue, hold != nil {
            throw ValidationError("--queue cannot keep a --hold: its time would run out queued")
        }
        if queue.queue, batch != nil { throw ValidationError("--queue keeps single bookings: leave out --batch") }
        if every != nil {
            guard (count == nil) != (until == nil) else {
                throw ValidationError("--every needs --count N or --until DAY (one of them)")
            }
            if queue.queue { throw ValidationError("--queue keeps single bookings: leave out --every") }
        } else if count != nil || until != nil {
            throw ValidationError("\(count != nil ? "--count" : "--until") is for a series: give --every too")
        }
        if batch != nil {
            let given = [
                ("--landmark", landmark != nil), ("--date", date != nil), ("--party-size", partySize != nil),
                ("--note", note != nil), ("--hold", hold != nil), ("--waitlist", waitlist), ("--every", every != nil),
            ].filter(\.1).map(\.0)
            guard given.isEmpty else {
                throw ValidationError(
                    "--batch reads every request from its file; leave out \(given.joined(separator: ", "))")
            }
        } else {
            let missing = [
                ("--landmark", landmark == nil), ("--date", date == nil), ("--party-size", partySize == nil),
            ]
            .filter(\.1).map(\.0)
            guard missing.isEmpty else {
                throw ValidationError("missing \(missing.joined(separator: ", ")) (or give --batch FILE)")
            }
        }
    }

    func run(in context: CommandContext) async throws {
        var context = context
        context.idempotencyKey = idempotencyKey
        if let batch {
            try await reserveBatch(from: batch, in: context)
            return
        }
        try await context.queueing(queue, options.output, verb: "reserve") { context in try await reserveOne(context) }
    }

    private func reserveOne(_ context: CommandContext) async throws {
        guard let landmark, let date, let partySize else { return }
        let service = try context.service(options.backend)
        let now = context.now()
        // A wall time or a relative day is read at the landmark: its zone comes from the backend's catalog.
        let typed = try await context.futureDate(date, options: options.output) {
            try await service.landmarks().landmark(matching: landmark)
        }
        if let every {
            let place = try await service.landmarks().landmark(matching: landmark)
            try await reserveSeries(every, from: typed, at: place, on: service, in: context)
            return
        }
        let request = try NewReservation(
            landmark: landmark, date: typed, partySize: partySize,
            status: pending ? .pending : .confirmed, note: note, hold: try hold.map(HoldDuration.seconds),
            waitlist: waitlist, now: now)
        let reservation = try await service.reserve(request)
        context.output.write(Renderer(options.output, context: context).reservation(reservation))
        if reservation.status == .waitlisted {
            let position = reservation.waitlistPosition.map { " at position \($0)" } ?? ""
            context.say(
                "\(reservation.landmark.name) is full that day: reservation \(reservation.id.short) is waitlisted"
                    + "\(position), and is confirmed when places free for it.")
        }
    }

    /// A series: the visits `every` period from `first` at its wall time at `place`, one batch
    /// (all or nothing), each request carrying a new series id.
    private func reserveSeries(
        _ every: Recurrence, from first: Date, at place: Landmark, on service: ReservationService,
        in context: CommandContext
    ) async throws {
        guard let partySize else { return }
        let now = context.now()
        let end: Recurrence.End
        if let count {
            end = .count(count)
        } else if let until {
            guard let day = try TypedDate.day(until, now: now, zone: place.timeZone ?? .gmt) else {
                let word = TypedDate.strangeWord(until).map { " ('\($0.quoted(limit: 40))' is no word of a day)" }
                throw ReservationError.invalidSeries(
                    "--until takes a day (\(TypedDate.dayForms)), not '\(until.quoted(limit: 40))'\(word ?? "")")
            }
            end = .until(day)
        } else {
            return
        }
        let series = Reservation.SeriesID(UUID())
        let requests = try every.dates(from: first, to: end, in: place.timeZone ?? .gmt).map { date in
            try NewReservation(
                landmark: place.id.description, date: date, partySize: partySize,
                status: pending ? .pending : .confirmed, note: note, hold: try hold.map(HoldDuration.seconds),
                waitlist: waitlist, series: series, now: now)
        }
        let made: [Reservation]
        do {
            made = try await service.reserve(requests)
        } catch ReservationError.batchRejected(let refused, let total) {
            let onlyRefused = refused.allSatisfy { ExitStatus.code(for: $0.error) == ExitStatus.refused }
            throw BatchError(
                error: onlyRefused
                    ? .seriesRefused(refused: refused.count, total: total)
                    : .batchRejected(invalid: refused.count, total: total),
                lines: refused.map { BatchInput.Failure(line: $0.index + 1, error: $0.error, noun: "visit") })
        }
        let renderer = Renderer(options.output, context: context)
        renderer.write(reservations: made, to: context.output)
        let waiting = made.count { $0.status == .waitlisted }
        context.say(
            "Reserved a series of \(made.count) visit\(made.count == 1 ? "" : "s") (series \(series.short))"
                + (waiting > 0 ? ", \(waiting) of them waitlisted." : "."))
    }

    private func reserveBatch(from path: String, in context: CommandContext) async throws {
        // The REPL's own input (a terminal, or the script it is reading) is not a batch.
        if path == "-", context.inRepl { throw CLIError.unreadableInput("-", "in the REPL, give --batch a file") }
        let input = try BatchInput.read(path, stdin: context.input)
        let progress = ProgressLine(context: context, lines: input.count { $0 == UInt8(ascii: "\n") })
        let parsed = BatchInput.parse(
            input, defaultStatus: pending ? .pending : .confirmed, now: context.now(), progress: progress)
        let service = try context.service(options.backend)
        if parsed.lines.isEmpty && parsed.failures.isEmpty {
            context.say("No requests in \(path): nothing reserved.")
            Renderer(options.output, context: context).write(reservations: [], to: context.output)
            return
        }
        var failures = parsed.failures
        var created: [Reservation] = []
        // True when every line is valid and the backend refused some for what it
        // holds (a full day): exit 1, as a single reserve, rather than 64.
        var onlyRefused = false
        if failures.isEmpty {
            progress.show("Reserving \(parsed.lines.count) requests…")
            do {
                created = try await service.reserve(parsed.lines.map(\.request))
            } catch ReservationError.batchRejected(let refused, _) {
                failures = refused.map { BatchInput.Failure(line: parsed.lines[$0.index].number, error: $0.error) }
                onlyRefused = refused.allSatisfy { ExitStatus.code(for: $0.error) == ExitStatus.refused }
            }
        } else {
            // Nothing will be written, but the user should hear about every bad
            // line at once: check the lines that parsed against the current data.
            failures += try await BatchInput.dryRun(parsed.lines, on: service, now: context.now())
        }
        progress.finish()
        guard failures.isEmpty else {
            throw BatchError(failures, total: parsed.lines.count + parsed.failures.count, onlyRefused: onlyRefused)
        }
        let renderer = Renderer(options.output, context: context)
        renderer.write(reservations: created, to: context.output)
        if renderer.format == .table { context.say("Reserved \(created.count) visit\(created.count == 1 ? "" : "s").") }
    }
}
