import ArgumentParser
import Foundation
import ReservationCore

struct LogCommand: ResvCommand, PrintsData {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "Show the history of changes, newest first.",
        discussion: """
            Every change is kept in the same write as the change itself: created, modified \
            (with the values before and after), confirmed, cancelled, checked-in, no-show, undone, redone; on a server, a \
            change another user made (staff of the landmark, an admin) names them: "cancelled by \
            ranger-joe". An admin reads any user's history with --user NAME. With ID (an id \
            or a unique prefix of at least 4 hex digits), only that reservation's changes; \
            its history stays after it is cancelled. --limit N shows the newest N changes \
            (on a server, only those are sent). --from and --to keep the changes made in a \
            range: days (2026-12-01, today, -7d: whole days in TZ) or times. --json prints each change with the \
            reservation's record before and after.

            Examples:
              resv log --limit 10
              resv log 1a2b --json | jq -r '.[].change'
              resv log --user ranger-joe --limit 20
            """)

    @Argument(
        help: "Only this reservation's changes: an id or unique prefix (at least 4 hex digits).",
        completion: ShellCompletion.reservationIDs(.any))
    var id: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Show the newest this many changes (1 or more).", valueName: "n"))
    var limit: Int?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Only changes made on or after this day (all of it) or time, in TZ: 2026-12-01, today, -7d, "
                + "mon, dec 24, yesterday at noon.",
            valueName: "date"))
    var from: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Only changes made on or before this day (all of it) or time.", valueName: "date"))
    var to: String?

    @Option(
        help: ArgumentHelp(
            "On a server, this user's history instead of yours (an admin's token; ID then a whole id).",
            valueName: "name"))
    var user: String?

    @OptionGroup var options: CommonOptions

    func validate() throws {
        if let limit, limit < 1 {
            throw ValidationError("--limit must be 1 or more, not \(limit) (leave it out to show all)")
        }
        try options.output.check([.table, .json, .ndjson, .csv], command: "resv log")
    }

    func run(in context: CommandContext) async throws {
        let service = try context.service(options.backend)
        var target: Reservation.ID?
        var historyOf: ReservationService.HistoryOfUser?
        if user != nil {
            guard let found = service.historyOf else {
                throw ValidationError("--user reads another user's history on a server; this store has one user")
            }
            historyOf = found
            if let id {
                guard let whole = Reservation.ID(id) else {
                    throw ValidationError("with --user, give the reservation's whole id, not '\(id.prefix(64))'")
                }
                target = whole
            }
        } else if let id {
            let snapshot = try await context.fetch(from: service, options)
            target = try context.reservation(matching: id, in: snapshot).id
        }
        let renderer = Renderer(options.output, context: context)
        // Landmark names for the words of a table or CSV; JSON keeps the records as stored.
        let catalog =
            renderer.format == .json || renderer.format == .ndjson ? LandmarkCatalog([]) : try await service.landmarks()
        let shape = Renderer.Shape<HistoryEntry>(
            csvColumns: ["at", "change", "reservationId", "detail", "user", "actor"],
            csvFields: {
                [
                    DateTime.format($0.at), $0.change.rawValue, $0.reservationID.description,
                    Self.detail($0, catalog: catalog, renderer: renderer), $0.user, $0.actor?.user,
                ]
            })
        // Written as it is read: a file's whole journal is never held.
        let stream = Renderer.ListStream(
            renderer, to: context.output, json: \.json, shape: shape, header: ["WHEN", "ID", "CHANGE", "DETAIL"]
        ) { entry in
            [
                Renderer.Cell(renderer.localDate(entry.at)), Renderer.Cell(entry.reservationID.short),
                Renderer.Cell(entry.change.rawValue + (Self.byActor(entry).map { " " + $0 } ?? "")),
                Renderer.Cell(Self.detail(entry, catalog: catalog, renderer: renderer), cuts: true),
            ]
        }
        // Days and times of a range are the reader's (TZ), as for list.
        let now = context.now()
        let fromDate = try from.map { text throws(ReservationError) in
            try TypedDate.bound(text, end: false, now: now, zone: context.timeZone)
        }
        let toDate = try to.map { text throws(ReservationError) in
            try TypedDate.bound(text, end: true, now: now, zone: context.timeZone)
        }
        if let fromDate, let toDate, fromDate > toDate {
            throw CLIError.emptyRange(from: from ?? "", to: to ?? "")
        }
        let ranged = fromDate != nil || toDate != nil
        var shown = 0
        // With a range the limit counts what is shown, so every change is looked at.
        let visit = { (entry: HistoryEntry) -> Bool in
            guard fromDate.map({ entry.at >= $0 }) ?? true, toDate.map({ entry.at <= $0 }) ?? true else { return true }
            stream.add(entry)
            shown += 1
            return limit.map { shown < $0 } ?? true
        }
        var skipped = 0
        if let user, let historyOf {
            for entry in try await historyOf(user, target, ranged ? nil : limit) where !visit(entry) { break }
        } else {
            skipped = try await service.eachChange(target, ranged ? nil : limit, visit)
        }
        stream.finish()
        Self.warn(skipped: skipped, in: context)
    }

    /// "by ranger-joe" for a change another user made (staff, an admin); nil for the owner's own,
    /// the system's, and changes without an actor (the file store's, those from before actors).
    static func byActor(_ entry: HistoryEntry) -> String? {
        entry.otherActor.map { "by \($0.user.terminalSafe)" }
    }

    /// The one warning for lines of a file's history that are not changes (`log`, `undo`).
    static func warn(skipped: Int, in context: CommandContext) {
        guard skipped > 0 else { return }
        let lines =
            skipped == 1
            ? "1 line of the history that is not a change (it stays in the file)"
            : "\(skipped) lines of the history that are not changes (they stay in the file)"
        context.say("resv: warning: skipped \(lines)")
    }

    /// What changed, in the words and times `list` uses: "Half Dome, 2026-12-01
    /// 08:00 PST, party of 4" for a booking, "party 4 → 6, note added" for a
    /// change. Records map through the one mapping (`catalog`: landmark names);
    /// a value that does not is shown as it is stored.
    static func detail(_ entry: HistoryEntry, catalog: LandmarkCatalog, renderer: Renderer) -> String {
        func landmark(_ text: String?) -> String {
            guard let text else { return "-" }
            return Landmark.ID(text).flatMap { catalog[$0]?.name } ?? String(text.prefix(8))
        }
        // A visit's time, at the landmark the record was at.
        func date(_ text: String?, _ landmark: String?) -> String {
            guard let text else { return "-" }
            let place = landmark.flatMap(Landmark.ID.init).flatMap { catalog[$0] }
            return (try? DateTime.parse(text)).map { renderer.visitDate($0, at: place) } ?? text
        }
        let after = entry.after
        guard let before = entry.before else {
            // A visit of a series is named with it (`cancel --series` takes the id).
            let series = after.series.flatMap(Reservation.SeriesID.init).map { ", series \($0.short)" } ?? ""
            return
                "\(landmark(after.landmarkId)), \(date(after.date, after.landmarkId)), party of \(after.partySize.map(String.init) ?? "?")"
                + series
        }
        var parts: [String] = []
        func compare<T: Equatable>(_ name: String, _ old: T?, _ new: T?, _ text: (T?) -> String) {
            if old != new { parts.append("\(name) \(text(old)) → \(text(new))") }
        }
        compare("status", before.status, after.status) { $0 ?? "-" }
        compare("date", before.date, after.date) { date($0, after.landmarkId) }
        compare("party", before.partySize, after.partySize) { $0.map(String.init) ?? "-" }
        compare("landmark", before.landmarkId, after.landmarkId, landmark)
        if before.note != after.note {
            switch (before.note, after.note) {
            case (nil, let note?): parts.append("note added '\(note.prefix(40))'")
            case (_?, nil): parts.append("note removed")
            default: parts.append("note '\(before.note?.prefix(40) ?? "")' → '\(after.note?.prefix(40) ?? "")'")
            }
        }
        return parts.joined(separator: ", ")
    }
}
