import ArgumentParser
import Foundation
import ReservationCore
import ReservationHTTP

struct WaitCommand: ResvCommand, PrintsData {
    static let configuration = CommandConfiguration(
        commandName: "wait",
        abstract: "Wait until a reservation has a status.",
        discussion: """
            Exits 0 as soon as the reservation has the status (at once if it has it), printing it \
            as show does (--json: its record); exits 1 with one line when the timeout passes first, \
            and at once when the reservation is cancelled or has expired, which no wait undoes. A \
            promotion from a waitlist and the end of a hold count, on a file and on a server. On a \
            server the wait is a long poll that RESV_REQUEST_TIMEOUT does not cut (it bounds each \
            request, not the wait), and a server that is away is waited for: what the cache holds \
            is never the answer.

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
        // What the server answers, or a wait for it: a cached answer tells what was, never what came.
        let reservation = try await CacheFallback.$allowed.withValue(false) {
            var feed = Feed(service: service, deadline: deadline)
            // The cursor first: a change made while the reservation is read is then still seen.
            var cursor = try await feed.start()
            var reservation = try context.reservation(
                matching: id, in: try await feed.read { try await context.fetch(from: service, options) })
            while reservation.status != wanted {
                // Cancelled or expired is for good (an undo is a new command, not this wait's business).
                guard reservation.status.isActive else {
                    throw CLIError.waitCannotSucceed(
                        reservation.id.short, wanted: wanted.rawValue, has: reservation.status.rawValue)
                }
                // A hold ends by the clock: read again at its end, whether or not the end is recorded yet.
                var wait = feed.waitLeft(upTo: .seconds(30))
                if reservation.status == .held, let end = reservation.expiresAt {
                    let left = end.timeIntervalSince(context.now())
                    wait = min(wait, .milliseconds(max(0, Int(left * 1000)) + 50))
                }
                guard let page = try await feed.next(after: cursor, wait: wait) else {
                    throw CLIError.waitTimedOut(
                        reservation.id.short, wanted: wanted.rawValue, has: reservation.status.rawValue,
                        seconds: timeout ?? "300")
                }
                cursor = page.cursor
                let mine = page.changes.contains { $0.entry.reservationID == reservation.id }
                let holdEnded =
                    reservation.status == .held && (reservation.expiresAt.map { $0 <= context.now() } ?? false)
                if mine || holdEnded {
                    let snapshot = try await feed.read { try await service.fetch() }
                    if let again = snapshot.reservations.first(where: { $0.id == reservation.id }) {
                        reservation = again
                    }
                }
            }
            return reservation
        }
        context.output.write(Renderer(options.output, context: context).reservation(reservation))
    }
}
