import ArgumentParser
import Foundation
import ReservationCore

struct WaitCommand: ResvCommand {
    static let configuration = CommandConfiguration(
        commandName: "wait",
        abstract: "Wait until a reservation has a status.",
        discussion: """
            Exits 0 as soon as the reservation has the status (at once if it has it), printing it \
            as show does (--json: its record); exits 1 with one line when the timeout passes first. \
            A promotion from a waitlist and the end of a hold count, on a file and on a server.

            Examples:
              id=$(resv reserve -l 'Half Dome' -d 'tomorrow 10:00' -n 4 --waitlist --json | jq -r .id)
              resv wait "$id" --for confirmed --timeout 3600 && echo "promoted"
            """)

    @Argument(
        help: "A reservation id or unique prefix (at least 4 hex digits).",
        completion: ShellCompletion.reservationIDs(.any))
    var id: String

    @Option(
        name: .customLong("for"), parsing: .unconditional,
        help: ArgumentHelp(
            "The status to wait for: \(Reservation.Status.allCases.map(\.rawValue).joined(separator: ", ")).",
            valueName: "status"))
    var status: String

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Give up after this many seconds (default 300): exit 1.", valueName: "seconds"))
    var timeout: String?

    @OptionGroup var options: CommonOptions

    func validate() throws {
        try options.output.check([.table, .json, .ndjson], command: "resv wait")
        guard Reservation.Status(rawValue: status) != nil else {
            throw ValidationError(
                "--for '\(status.quoted(limit: 60))' is not a status: use "
                    + Reservation.Status.allCases.map(\.rawValue).joined(separator: ", "))
        }
        if let timeout { _ = try WatchCommand.seconds(timeout, option: "--timeout") }
    }

    func run(in context: CommandContext) async throws {
        guard let wanted = Reservation.Status(rawValue: status) else { return }
        let service = try context.service(options.backend)
        let seconds = try timeout.map { try WatchCommand.seconds($0, option: "--timeout") } ?? 300
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        var feed = Feed(service: service, deadline: deadline)
        // The cursor first: a change made while the reservation is read is then still seen.
        var cursor = try await feed.start()
        var reservation = try context.reservation(matching: id, in: try await context.fetch(from: service, options))
        while reservation.status != wanted {
            // A hold ends by the clock: read again at its end, whether or not the end is recorded yet.
            var wait = feed.waitLeft(upTo: .seconds(30))
            if reservation.status == .held, let end = reservation.expiresAt {
                let left = end.timeIntervalSince(context.now())
                wait = min(wait, .milliseconds(max(0, Int(left * 1000)) + 50))
            }
            guard let page = try await feed.next(after: cursor, wait: wait) else {
                let shown = timeout ?? "300"
                throw CLIError.waitTimedOut(
                    reservation.id.short, wanted: wanted.rawValue, has: reservation.status.rawValue, seconds: shown)
            }
            cursor = page.cursor
            let mine = page.changes.contains { $0.entry.reservationID == reservation.id }
            let holdEnded = reservation.status == .held && (reservation.expiresAt.map { $0 <= context.now() } ?? false)
            if mine || holdEnded {
                let snapshot = try await service.fetch()
                if let again = snapshot.reservations.first(where: { $0.id == reservation.id }) { reservation = again }
            }
        }
        context.output.write(Renderer(options.output, context: context).reservation(reservation))
    }
}
