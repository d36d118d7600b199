import ArgumentParser
import Foundation
import ReservationCore
import ReservationHTTP
import ResvReference

/// `resv sync`: sends the server's outbox, in order (docs/contracts.md, "Offline").
struct SyncCommand: ResvCommand, PrintsData {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Send the changes queued while the server could not be reached (--queue).",
        discussion: """
            Sends the outbox of the server in use, oldest first; the server decides each as if it \
            arrived now: booked, waitlisted (if asked), or refused (a full day, a date now past, a \
            reservation changed since the change was queued). What the server made is printed; a \
            refused change stays in 'resv outbox' with the server's reason until dropped. Any command \
            that reaches the server sends the outbox first, so this is needed only to send it now. \
            A sync stopped at any moment and run again books nothing twice.

            Exit 0 when everything was sent, 1 when the server refused any (still in the outbox), \
            69 when the server could not be reached (nothing lost).

            Examples:
              resv sync
              resv sync --json
            """)

    @OptionGroup var options: CommonOptions

    func run(in context: CommandContext) async throws {
        let (tokens, backend) = try context.outboxBackend(options)
        let outbox = await backend.ownOutbox() ?? tokens
        let report = try await backend.sync(outbox)
        let sent = report.done.compactMap(\.reservation)
        Renderer(options.output, context: context).write(reservations: sent, to: context.output)
        context.tell(report, sending: true)
        if let stopped = report.stopped {
            throw SyncStopped(sent: report.done.count + report.refused.count, waiting: report.waiting, error: stopped)
        }
        if try !report.refused.isEmpty || outbox.items().contains(where: { $0.refusal != nil }) {
            throw CLIError.outboxRefused(report.refused.count)
        }
    }
}

/// `resv outbox`: what waits to be sent, and `resv outbox drop ID`.
struct OutboxCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox",
        abstract: "List the changes queued for the server (--queue), or drop one.",
        discussion: """
            Each queued change with its id, kind, reservation, when it was queued, what it asks \
            for (a booking's landmark, date and party; a modify's new values; the version a change \
            is made against), and its state: \
            waiting, sent (sent once, its answer not yet had: it is sent again, and books nothing \
            twice), or refused with the server's code and reason. The outbox is a file per server \
            under $XDG_STATE_HOME/resv/outbox/.

            Examples:
              resv outbox
              resv outbox drop 1a2b
            """,
        subcommands: [List.self, Drop.self],
        defaultSubcommand: List.self)

    struct List: ResvCommand, PrintsData {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the queued changes (the default).")

        @OptionGroup var options: CommonOptions

        func run(in context: CommandContext) async throws {
            let (outbox, catalog) = try context.outboxAndCatalog(options)
            let items = try outbox.items()
            let renderer = Renderer(options.output, context: context)
            let request = { (item: OutboxItem) in OutboxCommand.request(item, catalog, renderer) }
            renderer.write(
                list: items, json: OutboxCommand.json, shape: OutboxCommand.shape(request), to: context.output
            ) {
                let rows = items.map { item in
                    [
                        Renderer.Cell(String(item.id.prefix(8))), Renderer.Cell(item.kind?.rawValue ?? "unknown"),
                        Renderer.Cell(String((item.reservationID?.description ?? "?").prefix(8))),
                        Renderer.Cell(item.queuedAt.map(renderer.localDate) ?? "?"),
                        Renderer.Cell(request(item), cuts: true), Renderer.Cell(OutboxCommand.state(item), cuts: true),
                    ]
                }
                return renderer.table(
                    header: ["ID", "KIND", "RESERVATION", "QUEUED", "REQUEST", "STATE"], rows: rows)
            }
            if items.isEmpty, renderer.format == .table { context.say("Nothing queued for \(outbox.server.redacted).") }
        }
    }

    struct Drop: ResvCommand, PrintsData {
        static let configuration = CommandConfiguration(
            commandName: "drop",
            abstract: "Remove queued changes from the outbox, unsent.",
            discussion: """
                An id is the change's own or its reservation's (a queued booking's is its reservation's), \
                or a unique prefix of one. A change already sent once may have reached the server: \
                'resv list' shows whether it did.
                """)

        @Argument(help: "The queued changes' ids or unique prefixes.")
        var ids: [String]

        @OptionGroup var options: CommonOptions

        func validate() throws {
            guard !ids.isEmpty else {
                throw ValidationError("give the id of a queued change ('resv outbox' lists them)")
            }
        }

        func run(in context: CommandContext) async throws {
            let (outbox, _) = try context.outboxBackend(options, connecting: false)
            let dropped = try await outbox.update { items in
                var dropped: [OutboxItem] = []
                for text in ids {
                    let wanted = text.lowercased()
                    let matches = items.filter {
                        $0.id.lowercased().hasPrefix(wanted)
                            || ($0.reservationID?.description.hasPrefix(wanted) ?? false)
                    }
                    guard wanted.count >= 4, matches.count == 1, let match = matches.first else {
                        throw CLIError.noQueuedChange(text, matches: matches.count)
                    }
                    items.removeAll { $0.id == match.id }
                    dropped.append(match)
                }
                return dropped
            }
            for item in dropped {
                let sent =
                    item.sent && item.refusal == nil ? " (it was sent once: 'resv list' shows if it was made)" : ""
                context.say("Dropped queued \(item.kind?.rawValue ?? "change") \(item.id.prefix(8))\(sent).")
            }
        }
    }

    /// An item as `--json` shows it: as stored, with its `state`.
    static func json(_ item: OutboxItem) -> JSONValue {
        var json = item.json
        if case .object(var fields) = json {
            fields["state"] = .string(
                item.refusal != nil ? "refused" : item.kind == nil ? "unreadable" : item.sent ? "sent" : "waiting")
            json = .object(fields)
        }
        return json
    }

    static func state(_ item: OutboxItem) -> String {
        if let refusal = item.refusal { return "refused (\(refusal.code)): \(refusal.message)" }
        if item.kind == nil { return "unreadable: kept, not sent (a newer resv's?)" }
        return item.sent ? "sent, answer not had" : "waiting"
    }

    static func shape(_ request: @escaping (OutboxItem) -> String) -> Renderer.Shape<OutboxItem> {
        Renderer.Shape(
            csvColumns: ["id", "kind", "reservation", "queuedAt", "request", "state"],
            csvFields: { item in
                [
                    item.id, item.kind?.rawValue, item.reservationID?.description, item.queuedAt.map(DateTime.format),
                    request(item), state(item),
                ]
            },
            event: nil)
    }

    /// What an item asks for, in the words `show` uses: a booking's landmark (by name when the
    /// cached catalog has it), date at the landmark and party; a modify's new values; a cancel or
    /// confirm the version it is made against. "-" when there is nothing more to say.
    static func request(_ item: OutboxItem, _ catalog: LandmarkCatalog?, _ renderer: Renderer) -> String {
        guard let kind = item.kind else { return "-" }
        var parts: [String] = []
        let fields: [String: JSONValue]
        if case .object(let object)? = item.request { fields = object } else { fields = [:] }
        var landmark: Landmark?
        if case .string(let text)? = fields["landmarkId"] {
            landmark = try? catalog?.landmark(matching: text)
            parts.append(landmark?.name ?? "landmark \(text)")
        }
        if case .string(let text)? = fields["date"], let date = try? DateTime.parse(text) {
            parts.append(landmark.map { renderer.visitDate(date, at: $0) } ?? DateTime.format(date))
        }
        if case .integer(let size)? = fields["partySize"] { parts.append("party of \(size)") }
        if case .string(let status)? = fields["status"] { parts.append(status) }
        if case .string(let note)? = fields["note"] {
            parts.append(note.isEmpty ? "note removed" : "note \"\(note)\"")
        }
        if kind != .reserve, let version = item.version { parts.append("if still version \(version)") }
        return parts.isEmpty ? "-" : parts.joined(separator: ", ").terminalSafe
    }
}

extension CommandContext {
    /// The outbox of the server in use and (when `connecting`) its backend's calls.
    func outboxBackend(_ options: CommonOptions, connecting: Bool = true) throws -> (Outbox, ServerBackend) {
        if options.backend.offline, connecting { throw HTTPBackendError.offlineChange }
        let (configuration, transport, outbox) = try outboxConfiguration(options)
        return (outbox, ServerBackend(configuration, transport: transport))
    }

    /// The outbox of the server in use and the catalog its cache holds (nil when none is), never
    /// the network: what `resv outbox` names a queued booking's landmark with.
    func outboxAndCatalog(_ options: CommonOptions) throws -> (Outbox, LandmarkCatalog?) {
        let (configuration, _, outbox) = try outboxConfiguration(options)
        return (outbox, configuration.cache?.records("landmarks").map { LandmarkCatalog(records: $0.records) })
    }

    private func outboxConfiguration(_ options: CommonOptions) throws -> (
        HTTPBackendConfiguration, HTTPTransport, Outbox
    ) {
        let settings = try settings(options.backend)
        guard let server = settings.chosenServer else { throw CLIError.outboxNeedsServer }
        let (configuration, transport) = try httpBackend(server, settings, options.backend)
        guard let outbox = configuration.outbox else { throw CLIError.outboxNeedsServer }
        return (configuration, transport, outbox)
    }

    /// Says on stderr what a sending of the outbox did: each refusal on a line of its own.
    func tell(_ report: OutboxReport, sending asked: Bool) {
        let lead = asked ? "" : "sent the outbox first: "
        if !report.done.isEmpty || !report.refused.isEmpty {
            var parts = ["\(report.done.count) made"]
            if !report.refused.isEmpty { parts.append("\(report.refused.count) refused") }
            if report.waiting > 0 { parts.append("\(report.waiting) still queued") }
            say(
                "resv: \(lead)\(report.done.count + report.refused.count) queued change\(report.done.count + report.refused.count == 1 ? "" : "s") sent: \(parts.joined(separator: ", "))"
            )
        }
        for item in report.done {
            let what = item.reservation.map { " → reservation \($0.id.short), \($0.status.rawValue)" } ?? ""
            say("resv: \(item.item.kind?.rawValue ?? "change") \(item.item.id.prefix(8)) sent\(what)")
        }
        for item in report.refused {
            let reason = item.refusal.map { "\($0.message) (\($0.code))" } ?? "refused"
            say(
                "resv: \(item.kind?.rawValue ?? "change") \(item.id.prefix(8)) refused: \(reason); it stays in "
                    + "'resv outbox' until 'resv outbox drop \(item.id.prefix(8))'")
        }
        for item in report.unreadable {
            say("resv: warning: outbox item \(item.id.prefix(8)) is not one this resv can read: kept, not sent")
        }
        if asked, report.isEmpty { say("resv: nothing queued to send") }
        if let stopped = report.stopped, report.waiting > 0, !asked {
            say(
                "resv: \(report.waiting) queued change\(report.waiting == 1 ? "" : "s") not sent: \(ExitStatus.message(for: stopped))"
            )
        }
    }

    /// Runs `body` with `--queue` as asked; a change kept in the outbox is shown (`show`), exit 0.
    func queueing(
        _ option: QueueOption, _ options: OutputOptions, verb: String, _ body: (CommandContext) async throws -> Void
    ) async throws {
        var context = self
        context.queue = option.queue
        do {
            try await body(context)
        } catch let queued as Queued {
            context.show(queued, options, verb: verb)
        } catch HTTPBackendError.unavailable(let url, let why) where !context.queue {
            // Nothing was sent: say how the change could wait instead.
            throw CLIError.unreachableChange(
                ExitStatus.message(for: HTTPBackendError.unavailable(url, why)), verb: verb)
        }
    }

    /// Shows a change kept in the outbox (`Queued`): the reservations as asked for,
    /// status `queued`, on stdout; what happened on stderr.
    func show(_ queued: Queued, _ options: OutputOptions, verb: String) {
        shownQueued.add(queued.waiting)
        shownQueued.add(changes: queued.changes)
        let renderer = Renderer(options, context: self)
        if queued.reservations.count == 1, verb == "reserve" || verb == "modify" {
            output.write(renderer.reservation(queued.reservations[0]))
        } else {
            renderer.write(reservations: queued.reservations, to: output)
        }
        let ids = queued.items.map { String($0.id.prefix(8)) }.joined(separator: ", ")
        say(
            "resv: the server cannot be reached: \(verb) queued (\(ids)); 'resv sync' sends it, as does any "
                + "command that reaches the server ('resv outbox' lists what waits)")
    }
}

/// A sync that stopped before the end (the server unreachable, out of time): how far it got,
/// that the rest wait, and why; exit code as the failure's.
struct SyncStopped: Error, LocalizedError {
    let sent: Int
    let waiting: Int
    let error: any Error

    var errorDescription: String? {
        let rest = "\(waiting) queued change\(waiting == 1 ? "" : "s") wait\(waiting == 1 ? "s" : "") in the outbox"
        return "\(sent) queued change\(sent == 1 ? "" : "s") sent, then \(ExitStatus.message(for: error)); "
            + "\(rest) ('resv sync' sends \(waiting == 1 ? "it" : "them"))"
    }
}
