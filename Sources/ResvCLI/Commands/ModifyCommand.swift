import ArgumentParser
import Foundation
import ReservationCore

struct ModifyCommand: ResvCommand, PrintsData {
    static let configuration = CommandConfiguration(
        commandName: "modify",
        abstract: "Change a reservation's date, party size, landmark or note in one step.",
        discussion: """
            ID is a reservation id or a unique prefix of at least 4 hex digits. The change \
            is one atomic step of the backend: the reservation's own places are released in \
            that step, so a party of 100 on a 120-place day can grow to 110, and a move to \
            another day frees the old day at once. A change that does not fit changes \
            nothing and exits 1 with the numbers. Cancelled reservations cannot be modified. \
            --note "" removes the note. A move to another landmark without --date keeps the \
            visit's time of day there: 09:00 at Half Dome becomes 09:00 at the Brooklyn Bridge, \
            in its zone (said on stderr); a time the new landmark's clocks skip is refused.

            The reservation must still be as it was read: when it changed in between (another \
            resv, another client of the server), nothing changes and resv says so (exit 1).

            Examples:
              resv modify 1a2b --party-size 6
              resv modify 1a2b --date 'tomorrow 09:30' --landmark 'lake tahoe'
            """)

    @Argument(
        help: "A reservation id or unique prefix (at least 4 hex digits).",
        completion: ShellCompletion.reservationIDs(.active))
    var id: String

    @Option(
        name: .shortAndLong, parsing: .unconditional,
        help: ArgumentHelp(
            "The new date, in the future, at the landmark: 2026-12-01 10:00, tomorrow at 9:30 am, 10am fri, "
                + "dec 24 noon, or with a zone 2026-12-01T10:00:00Z.", valueName: "date"))
    var date: String?

    @Option(
        name: [.long, .customShort("n")], parsing: .unconditional,
        help: ArgumentHelp("The new number of people (1 to 10,000).", valueName: "n"))
    var partySize: Int?

    @Option(
        name: .shortAndLong, help: "The new landmark: id, id prefix, name or the starts of its words.",
        completion: ShellCompletion.landmarkNames)
    var landmark: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "A note kept with the reservation (at most \(Reservation.noteLimit) characters; \"\" removes it).",
            valueName: "text"))
    var note: String?

    @OptionGroup var queue: QueueOption
    @OptionGroup var key: IdempotencyKeyOption
    @OptionGroup var options: CommonOptions

    func validate() throws {
        guard date != nil || partySize != nil || landmark != nil || note != nil else {
            throw ValidationError("nothing to change: give --date, --party-size, --landmark or --note")
        }
    }

    func run(in context: CommandContext) async throws {
        var context = context
        context.idempotencyKey = key.idempotencyKey
        try await context.queueing(queue, options.output, verb: "modify") { context in
            // What can be checked without a backend is checked first (party size, note, a strict date).
            if let date, !TypedDate.needsZone(date) { _ = try TypedDate.resolve(date, now: context.now(), zone: .gmt) }
            if partySize != nil || landmark != nil || note != nil {
                _ = try ReservationChange(partySize: partySize, landmark: landmark, note: note)
            }
            let backend = try context.backend(options.backend)
            let service = backend.service
            // A whole id on a server is read alone; anything else is resolved in the user's list.
            let snapshot: ReservationSnapshot?
            let target: Reservation
            if let server = backend.server, let whole = CommandContext.wholeIDs([id])?.first {
                snapshot = nil
                target = try await context.naming([id]) { try await server.reservation(whole) }
            } else {
                let read = try await context.fetch(for: [id], from: backend, options)
                snapshot = read
                target = try context.reservation(matching: id, in: read)
            }
            if !target.status.isActive { throw ReservationError.cannotModifyCancelled(target) }
            // A wall time or a relative day is read at the landmark it will be at.
            var newDate: Date?
            if let date {
                newDate = try await context.futureDate(date, options: options.output, moving: target) {
                    guard let landmark else { return target.landmark }
                    let catalog: LandmarkCatalog
                    if let snapshot { catalog = snapshot.catalog } else { catalog = try await service.landmarks() }
                    return try catalog.landmark(matching: landmark)
                }
            }
            let change = try ReservationChange(date: newDate, partySize: partySize, landmark: landmark, note: note)
            // The version read: a change made since is refused, never overwritten.
            let modified = try await service.modify(target.id, change, target.version)
            let renderer = Renderer(options.output, context: context)
            context.output.write(renderer.reservation(modified))
            if let snapshot {
                await context.reportPromotions(before: snapshot, changed: [target.id], service: service, options.output)
            } else if target.takesPlaces(at: context.now()),
                modified.partySize < target.partySize || modified.date != target.date
                    || modified.landmark.id != target.landmark.id
            {
                // Only places given up can promote anyone.
                await context.reportPromotions(madeBy: [target.id], service: service, options.output)
            }
            let newZone = modified.landmark.timeZone ?? .gmt
            let oldZone = target.landmark.timeZone ?? .gmt
            if renderer.format == .table, date == nil, modified.landmark.id != target.landmark.id,
                newZone.identifier != oldZone.identifier
            {
                // The instant moved with the landmark; say so in both landmarks' words.
                context.say(
                    "Kept the time of day at \(modified.landmark.name): \(Renderer.time(modified.date, in: newZone)) "
                        + "(was \(Renderer.time(target.date, in: oldZone)) at \(target.landmark.name)).")
            }
            if renderer.format == .table, modified.version == target.version {
                context.say("Reservation \(modified.id.short) already had these values: nothing changed.")
            }
        }
    }
}
