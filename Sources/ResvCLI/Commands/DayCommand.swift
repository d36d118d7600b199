import ArgumentParser
import Foundation
import ReservationCore

extension DayManifest: JSONOutput {}

/// `resv day [DAY] --landmark NAME`: a landmark's manifest (docs/contracts.md, "A day's manifest").
struct DayCommand: ResvCommand, PrintsData {
    static let configuration = CommandConfiguration(
        commandName: "day",
        abstract: "List every party booked at a landmark on one day, across users.",
        discussion: """
            Every party at the landmark that day (a calendar day in its time zone), by time: TIME, \
            USER, PARTY, STATUS, NOTE and ID, with totals (parties, and people by status) below. \
            Cancelled reservations and holds that expired are left out; waitlisted ones are listed, \
            marked. DAY is a day as 'reserve' reads it (2026-12-01, today, tmrw, fri, dec 24); \
            default today at the landmark. On a server, for who manages the landmark (its staff, \
            admins; anyone else: exit 77); on a file store, every reservation of the store, its \
            owner's. --json prints {landmark, day, parties, totals} (docs/contracts.md), \
            --format csv a row per party.

            Examples:
              resv day --landmark 'half dome'
              resv day tmrw --landmark rainier --json | jq '.totals.people'
              resv day 2026-12-24 --landmark 'half dome' --format csv > manifest.csv
            """)

    @Argument(
        help: ArgumentHelp(
            "The day at the landmark: YYYY-MM-DD, today, tmrw, +3d, fri, next fri, dec 24; default today.",
            valueName: "day"))
    var day: String?

    @Option(
        name: .shortAndLong,
        help: "The landmark (id, id prefix, name or the starts of its words).",
        completion: ShellCompletion.landmarkNames)
    var landmark: String

    @OptionGroup var options: CommonOptions

    func validate() throws {
        try options.output.check([.table, .json, .ndjson, .csv], command: "resv day")
    }

    func run(in context: CommandContext) async throws {
        let service = try context.service(options.backend)
        let (typed, now) = (day, context.now())
        let manifest = try await service.manifest(landmark) { place in
            let calendar = Capacity.calendar(for: place)
            guard let typed else { return CalendarDay(now, in: calendar) }
            return try AvailabilityCommand.day(typed, option: "DAY", in: calendar, now: now)
        }
        let renderer = Renderer(options.output, context: context)
        switch renderer.format {
        case .csv:
            var csv = CSVWriter(columns: Self.csvColumns)
            for party in manifest.parties {
                let reservation = party.reservation
                csv.row([
                    manifest.time(of: reservation), party.user, String(reservation.partySize),
                    reservation.status.rawValue, reservation.note, reservation.id.description,
                    DateTime.format(reservation.date),
                ])
            }
            context.output.write(csv.take())
        default:
            context.output.write(renderer.single(manifest) { Self.table(manifest, renderer) })
        }
    }

    static let csvColumns = ["time", "user", "partySize", "status", "note", "id", "date"]

    /// The table and its footer: how many parties and people, and the people of each status there is.
    static func table(_ manifest: DayManifest, _ renderer: Renderer) -> String {
        let zone = manifest.landmark.timeZone?.identifier ?? "UTC"
        let title = "\(manifest.landmark.name), \(manifest.day) (\(zone))\n"
        let rows = manifest.parties.map { party -> [Renderer.Cell] in
            let reservation = party.reservation
            return [
                Renderer.Cell(manifest.time(of: reservation)), Renderer.Cell(party.user),
                Renderer.Cell(String(reservation.partySize), alignRight: true),
                Renderer.Cell(reservation.status.rawValue, style: renderer.style(for: reservation.status)),
                Renderer.Cell(reservation.note ?? "", cuts: true), Renderer.Cell(reservation.id.short),
            ]
        }
        let table = renderer.table(header: ["TIME", "USER", "PARTY", "STATUS", "NOTE", "ID"], rows: rows)
        let parties = manifest.parties.count
        let people = manifest.people
        var footer = "\(parties) \(parties == 1 ? "party" : "parties"), \(people) \(people == 1 ? "person" : "people")"
        let byStatus = DayManifest.statuses.compactMap { status -> String? in
            let count = manifest.people(status)
            return count == 0 ? nil : "\(count) \(status.rawValue)"
        }
        if !byStatus.isEmpty { footer += ": " + byStatus.joined(separator: ", ") }
        return title + table + footer + "\n"
    }
}
