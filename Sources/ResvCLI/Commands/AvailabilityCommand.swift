import ArgumentParser
import Foundation
import ReservationCore

struct AvailabilityCommand: ResvCommand {
    static let configuration = CommandConfiguration(
        commandName: "availability",
        abstract: "Show the places taken and left at a landmark, day by day.",
        discussion: """
            Days are calendar days in the landmark's time zone (see 'resv landmarks --json'), the days its \
            capacity counts. Every reservation counts, whoever made it: on a server, all users' pending and \
            confirmed ones. Without --from and --to: today and the \(Capacity.defaultDays - 1) days after it; at \
            most \(Capacity.longestRange) days at once.

            Examples:
              resv availability 'half dome'
              resv availability rainier --from 2026-12-01 --to 2026-12-31 --json
            """)

    @Argument(
        help: ArgumentHelp(
            "The landmark: id, id prefix, name, or the starts of its words (golden gate).", valueName: "landmark"),
        completion: ShellCompletion.landmarkNames)
    var landmark: String

    @Option(
        help: ArgumentHelp(
            "The first day, YYYY-MM-DD (a date-time counts as its day at the landmark); default today.",
            valueName: "day"))
    var from: String?

    @Option(
        help: ArgumentHelp(
            "The last day, YYYY-MM-DD; default \(Capacity.defaultDays - 1) days after the first.", valueName: "day"))
    var to: String?

    @OptionGroup var options: CommonOptions

    func validate() throws {
        try options.output.check([.table, .json, .ndjson, .csv], command: "resv availability")
    }

    func run(in context: CommandContext) async throws {
        let service = try context.service(options.backend)
        let (from, to, now) = (from, to, context.now())
        let answer = try await service.availability(landmark) { place in
            // The days are the landmark's: its zone says which day "today" and a date-time are.
            let calendar = Capacity.calendar(for: place)
            let first = try from.map { try Self.day($0, option: "--from", in: calendar) }
            let last = try to.map { try Self.day($0, option: "--to", in: calendar) }
            return try Capacity.days(from: first, through: last, today: CalendarDay(now, in: calendar))
        }
        let place = answer.landmark

        let renderer = Renderer(options.output, context: context)
        if renderer.format == .table {
            let zone = place.timeZone?.identifier ?? "UTC"
            context.say(
                place.capacity.map { "\(place.name): \($0) places a day, days in \(zone)" }
                    ?? "\(place.name) has no daily limit (days in \(zone))")
        }
        renderer.write(availability: answer.days, to: context.output)
    }

    /// A day the user typed: `YYYY-MM-DD`, or a date-time taken as its day at the landmark.
    static func day(_ text: String, option: String, in calendar: Calendar) throws(ReservationError) -> CalendarDay {
        if let day = CalendarDay(text) { return day }
        guard let date = try? DateTime.parse(text) else {
            throw .invalidDays("\(option) '\(text.quoted())' is not a day: give YYYY-MM-DD, e.g. 2026-12-01")
        }
        return CalendarDay(date, in: calendar)
    }
}
