import ArgumentParser
import Foundation
import ReservationCore

struct ListCommand: ResvCommand, PrintsData {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List reservations, sorted by date (active ones unless asked otherwise).",
        discussion: """
            Active reservations are pending, held, confirmed and waitlisted ones; --all adds \
            cancelled ones, holds that expired, and visits recorded as checked-in or no-show \
            (--status checked-in lists those alone). --sort orders by date, landmark (its name, in \
            any case), party-size or status (pending, held, confirmed, checked-in, no-show, \
            waitlisted, expired, cancelled); ties go by date, then id. --reverse turns the whole order round, and \
            --limit N keeps the first N after that (a limit above the count keeps all). A table has \
            a NOTE column when a reservation listed has a note (on a terminal, in the room the other \
            columns leave).

            Examples:
              resv list --from today --to +7d
              resv list --from fri --to 'next fri'
              resv list --status pending --landmark 'half dome' --json | jq length
            """)

    /// What `--sort` orders by.
    enum SortKey: String, CaseIterable, ExpressibleByArgument, Sendable {
        case date, landmark
        case partySize = "party-size"
        case status
    }

    @Option(
        name: .customLong("status"),
        help: "Only reservations with this status; repeat for several.")
    var statuses: [Reservation.Status] = []

    @Flag(help: "Include cancelled reservations, expired holds, and checked-in and no-show ones.")
    var all = false

    @Option(
        name: .shortAndLong,
        help: "Only reservations at this landmark (id, id prefix, name or the starts of its words).",
        completion: ShellCompletion.landmarkNames)
    var landmark: String?

    // Unconditional: a value may start with '-' (-7d).
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Only reservations on or after this day (all of it) or time, at each landmark (the date the table "
                + "shows): 2026-12-01, today, tmrw, -7d, in 2 weeks, fri, next fri, dec 24, tomorrow at 10am.",
            valueName: "date"))
    var from: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Only reservations on or before this day (all of it) or time.", valueName: "date"))
    var to: String?

    @Option(help: "The order: date, landmark, party-size or status (default: date).")
    var sort: SortKey = .date

    @Flag(help: "The opposite order (latest first with the default sort).")
    var reverse = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Show at most this many (1 or more), after sorting.", valueName: "n"))
    var limit: Int?

    @OptionGroup var options: CommonOptions

    func validate() throws {
        if let limit, limit < 1 {
            throw ValidationError("--limit must be 1 or more, not \(limit) (leave it out to list all)")
        }
    }

    func run(in context: CommandContext) async throws {
        // A day is the visit's day where the table shows it: at its landmark (or in the zone
        // --tz names), so `--from D --to D` lists exactly the rows dated D. A time is read there too.
        let now = context.now()
        let shown = options.output.tz.flatMap { OutputOptions.zone($0, local: context.timeZone) }
        func bounds(in zone: TimeZone) throws(ReservationError) -> (from: Date?, to: Date?) {
            let fromDate = try from.map { text throws(ReservationError) in
                try TypedDate.bound(text, end: false, now: now, zone: zone)
            }
            let toDate = try to.map { text throws(ReservationError) in
                try TypedDate.bound(text, end: true, now: now, zone: zone)
            }
            return (fromDate, toDate)
        }
        // Refused before the backend is read: a bad day, or a range that ends before it starts.
        let checked = try bounds(in: shown ?? context.timeZone)
        if let fromDate = checked.from, let toDate = checked.to, fromDate > toDate {
            throw CLIError.emptyRange(from: from ?? "", to: to ?? "")
        }
        let service = try context.service(options.backend)
        let snapshot = try await context.fetch(from: service, options)
        let landmarkID = try landmark.map { try snapshot.catalog.landmark(matching: $0).id }

        let wanted: Set<Reservation.Status> =
            !statuses.isEmpty
            ? Set(statuses)
            : all ? Set(Reservation.Status.allCases) : Set(Reservation.Status.allCases.filter(\.isActive))
        var zoneBounds: [TimeZone: (from: Date?, to: Date?)] = [:]
        var matching: [Reservation] = []
        for reservation in snapshot.reservations
        where wanted.contains(reservation.status) && (landmarkID.map { reservation.landmark.id == $0 } ?? true) {
            if from != nil || to != nil {
                let zone = shown ?? Capacity.calendar(for: reservation.landmark).timeZone
                let range: (from: Date?, to: Date?)
                if let known = zoneBounds[zone] {
                    range = known
                } else {
                    range = try bounds(in: zone)
                    zoneBounds[zone] = range
                }
                if let fromDate = range.from, reservation.date < fromDate { continue }
                if let toDate = range.to, reservation.date > toDate { continue }
            }
            matching.append(reservation)
        }
        var ordered = matching.sorted(by: sort)
        if reverse { ordered.reverse() }
        let reservations = Array(ordered.prefix(limit ?? ordered.count))

        let renderer = Renderer(options.output, context: context)
        renderer.write(reservations: reservations, to: context.output)
        if reservations.isEmpty, renderer.format == .table {
            let total = snapshot.reservations.count
            context.say(
                total == 0 ? "No reservations yet: make one with 'resv reserve'." : "No matching reservations.")
        }
    }
}

extension Array where Element == Reservation {
    /// The reservations in `key`'s order; ties by date, then id, so the order never depends on the store's.
    func sorted(by key: ListCommand.SortKey) -> [Reservation] {
        let byDate = sortedByDate
        guard key != .date else { return byDate }
        // Sorting the date order by (key, position in it) keeps the date order among equal keys.
        func statusRank(_ status: Reservation.Status) -> Int {
            switch status {
            case .pending: 0
            case .held: 1
            case .confirmed: 2
            case .checkedIn: 3
            case .noShow: 4
            case .waitlisted: 5
            case .expired: 6
            case .cancelled: 7
            }
        }
        func before(_ a: Reservation, _ b: Reservation) -> Bool? {
            switch key {
            case .date: return nil
            case .landmark:
                let (x, y) = (a.landmark.name, b.landmark.name)
                let (lowerX, lowerY) = (x.lowercased(), y.lowercased())
                if lowerX != lowerY { return lowerX < lowerY }
                return x == y ? nil : x < y
            case .partySize: return a.partySize == b.partySize ? nil : a.partySize < b.partySize
            case .status:
                let (x, y) = (statusRank(a.status), statusRank(b.status))
                return x == y ? nil : x < y
            }
        }
        return byDate.enumerated().sorted { first, second in
            before(first.element, second.element) ?? (first.offset < second.offset)
        }.map(\.element)
    }
}
