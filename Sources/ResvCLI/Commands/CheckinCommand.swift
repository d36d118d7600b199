import ArgumentParser
import Foundation
import ReservationCore

/// `resv checkin ID` and `resv noshow ID`: how a visit went (docs/contracts.md, "Check-in and no-shows").
struct CheckinCommand: AttendanceCommand {
    static let configuration = CommandConfiguration(
        commandName: "checkin",
        abstract: "Mark a party arrived (status checked-in).",
        discussion: """
            ID is a reservation id or a unique prefix of at least 4 hex digits. Only a pending or \
            confirmed reservation can be checked in (held, waitlisted, cancelled, expired or no-show: \
            refused, naming its status, exit 1), once: a second check-in is refused, saying when the \
            first was (exit 1). A checked-in party keeps its places. 'resv undo' takes it back. On a \
            server, whoever manages the landmark checks its parties in.

            Examples:
              resv checkin 1a2b
              resv day --landmark 'half dome' && resv checkin 1a2b
            """)

    static let status = Reservation.Status.checkedIn
    @OptionGroup var arguments: AttendanceArguments
}

struct NoshowCommand: AttendanceCommand {
    static let configuration = CommandConfiguration(
        commandName: "noshow",
        abstract: "Mark a party that did not come (status no-show).",
        discussion: """
            ID is a reservation id or a unique prefix of at least 4 hex digits. Only once the \
            visit's time has passed (before it: refused, exit 1), and only of a pending or confirmed \
            reservation (otherwise refused, naming its status, exit 1), once. A no-show gives no \
            places back to its day. 'resv undo' takes it back.

            Examples:
              resv noshow 1a2b
            """)

    static let status = Reservation.Status.noShow
    @OptionGroup var arguments: AttendanceArguments
}

/// What `checkin` and `noshow` take: one reservation, a key, the common options.
struct AttendanceArguments: ParsableArguments, PrintsData {
    @Argument(
        help: "A reservation id or unique prefix (at least 4 hex digits).",
        completion: ShellCompletion.reservationIDs(.attendable))
    var id: String

    @OptionGroup var key: IdempotencyKeyOption
    @OptionGroup var options: CommonOptions
}

/// `checkin` and `noshow`: one reservation's visit recorded as `status`.
protocol AttendanceCommand: GroupedCommand where Arguments == AttendanceArguments {
    static var status: Reservation.Status { get }
}

extension AttendanceCommand {
    func run(in context: CommandContext) async throws {
        try await Attendance.record(Self.status, id: arguments.id, key: arguments.key, options: options, in: context)
    }
}

/// What `checkin` and `noshow` share: the id resolved as `confirm` resolves it, one change.
enum Attendance {
    static func record(
        _ status: Reservation.Status, id text: String, key: IdempotencyKeyOption, options: CommonOptions,
        in context: CommandContext
    ) async throws {
        var context = context
        context.idempotencyKey = key.idempotencyKey
        let backend = try context.backend(options.backend)
        let service = backend.service
        let id: Reservation.ID
        // A whole id on a server goes to it as it is: no list is read to resolve it.
        if backend.server != nil, let whole = CommandContext.wholeIDs([text]), whole.count == 1 {
            id = whole[0]
        } else {
            let snapshot = try await context.fetch(for: [text], from: backend, options)
            id = try context.reservation(matching: text, in: snapshot).id
        }
        let recorded = try await context.naming([text]) { try await service.attend(id, status) }
        let renderer = Renderer(options.output, context: context)
        if renderer.format == .table {
            let done = status == .noShow ? "Marked a no-show:" : "Checked in"
            context.output.write("\(done) \(renderer.summary(recorded))\n")
        } else {
            context.output.write(renderer.reservation(recorded))
        }
    }
}
