import ArgumentParser
import Foundation
import ReservationCore

struct LogCommand: ResvCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "Show the history of changes, newest first.",
        discussion: """
            Every change is kept in the same write as the change itself: created, modified \
            (with the values before and after), confirmed, cancelled, undone. With ID (an id \
            or a unique prefix of at least 4 hex digits), only that reservation's changes; \
            its history stays after it is cancelled. --limit N shows the newest N changes \
            (on a server, only those are sent). --json prints each change with the \
            reservation's record before and after.
            """)

    @Argument(
        help: "Only this reservation's changes: an id or unique prefix (at least 4 hex digits).",
        completion: ShellCompletion.reservationIDs(.pending, .confirmed, .cancelled))
    var id: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Show the newest this many changes (1 or more).", valueName: "n"))
    var limit: Int?

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
        if let id {
            let snapshot = try await context.fetch(from: service, options)
            target = try context.reservation(matching: id, in: snapshot).id
        }
        let entries = try await service.history(target, limit)
        let renderer = Renderer(options.output, context: context)
        let shape = Renderer.Shape<HistoryEntry>(
            csvColumns: ["at", "change", "reservationId", "detail", "user"],
            csvFields: {
                [DateTime.format($0.at), $0.change.rawValue, $0.reservationID.description, Self.detail($0), $0.user]
            })
        renderer.write(list: entries, json: \.json, shape: shape, to: context.output) {
            renderer.table(
                header: ["WHEN", "ID", "CHANGE", "DETAIL"],
                rows: entries.map { entry in
                    [
                        Renderer.Cell(renderer.localDate(entry.at)), Renderer.Cell(entry.reservationID.short),
                        Renderer.Cell(entry.change.rawValue), Renderer.Cell(Self.detail(entry)),
                    ]
                })
        }
    }

    /// What changed, in a few words: "partySize 4 → 6, note added".
    static func detail(_ entry: HistoryEntry) -> String {
        let after = entry.after
        guard let before = entry.before else {
            return "party of \(after.partySize.map(String.init) ?? "?") on \(after.date ?? "?")"
        }
        var parts: [String] = []
        func compare<T: Equatable>(_ name: String, _ old: T?, _ new: T?, _ text: (T?) -> String) {
            if old != new { parts.append("\(name) \(text(old)) → \(text(new))") }
        }
        compare("status", before.status, after.status) { $0 ?? "-" }
        compare("date", before.date, after.date) { $0 ?? "-" }
        compare("partySize", before.partySize, after.partySize) { $0.map(String.init) ?? "-" }
        compare("landmark", before.landmarkId, after.landmarkId) { $0.map { String($0.prefix(8)) } ?? "-" }
        compare("note", before.note, after.note) { $0.map { "'\($0.prefix(40))'" } ?? "none" }
        return parts.joined(separator: ", ")
    }
}
