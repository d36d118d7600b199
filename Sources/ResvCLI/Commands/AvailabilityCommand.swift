import ArgumentParser
import Foundation
import ReservationCore

struct AvailabilityCommand: ResvCommand, PrintsData {
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
              resv availability 'half dome' --calendar
            """)

    @Argument(
        help: ArgumentHelp(
            "The landmark: id, id prefix, name, or the starts of its words (golden gate).", valueName: "landmark"),
        completion: ShellCompletion.landmarkNames)
    var landmark: String

    @Option(
        help: ArgumentHelp(
            "The first day at the landmark: YYYY-MM-DD, today, tmrw, +3d, in 2 weeks, fri, next fri, dec 24 "
                + "(a date-time counts as its day there); default today.",
            valueName: "day"))
    var from: String?

    @Option(
        help: ArgumentHelp(
            "The last day, as --from; default \(Capacity.defaultDays - 1) days after the first.", valueName: "day"))
    var to: String?

    @Flag(
        help: """
            Draw each month as a calendar (weeks as rows, from Monday), every day with the places left, \
            coloured by how full it is on a terminal, marked without colour; default range: today to the \
            end of next month.
            """)
    var calendar = false

    @OptionGroup var options: CommonOptions

    func validate() throws {
        try options.output.check([.table, .json, .ndjson, .csv], command: "resv availability")
        if calendar, options.output.resolvedFormat != .table {
            throw ValidationError(
                "--calendar draws a table: it cannot be --format \(options.output.resolvedFormat.rawValue)")
        }
    }

    func run(in context: CommandContext) async throws {
        let service = try context.service(options.backend)
        let (from, to, now) = (from, to, context.now())
        let answer = try await service.availability(landmark) { place in
            // The days are the landmark's: its zone says which day "today" and a date-time are.
            let calendar = Capacity.calendar(for: place)
            let first = try from.map { try Self.day($0, option: "--from", in: calendar, now: now) }
            var last = try to.map { try Self.day($0, option: "--to", in: calendar, now: now) }
            let today = CalendarDay(now, in: calendar)
            // A calendar shows whole months: by default, through the end of the next one.
            if self.calendar, last == nil { last = Self.endOfNextMonth(after: first ?? today) }
            return try Capacity.days(from: first, through: last, today: today)
        }
        let place = answer.landmark

        let renderer = Renderer(options.output, context: context)
        if renderer.format == .table {
            let zone = place.timeZone?.name ?? "UTC"
            context.say(
                place.capacity.map { "\(place.name): \($0) places a day, days in \(zone)" }
                    ?? "\(place.name) has no daily limit (days in \(zone))")
        }
        if calendar {
            let today = CalendarDay(now, in: Capacity.calendar(for: place))
            context.output.write(renderer.calendar(answer.days, today: today))
            return
        }
        renderer.write(availability: answer.days, to: context.output)
    }

    /// The last day of the month after `day`'s (9999-12-31 at the latest).
    static func endOfNextMonth(after day: CalendarDay) -> CalendarDay {
        var end = day
        var months = 0
        while end < CalendarDay.latest {
            let next = end.next
            if next.month != end.month {
                months += 1
                if months == 2 { break }
            }
            end = next
        }
        return end
    }

    /// A day the user typed, at the landmark (its calendar's zone): a day of the typed grammar
    /// (`YYYY-MM-DD`, `today`, `tmrw`, `+7d`, `-1w`, `in 2 weeks`, `fri`, `dec 24`), or a date-time
    /// taken as its day there.
    static func day(_ text: String, option: String, in calendar: Calendar, now: Date) throws(ReservationError)
        -> CalendarDay
    {
        if let day = try TypedDate.day(text, now: now, zone: calendar.timeZone) { return day }
        if let date = try? TypedDate.resolve(text, now: now, zone: calendar.timeZone) {
            return CalendarDay(date, in: calendar)
        }
        let word = TypedDate.strangeWord(text).map { " ('\($0.quoted(limit: 40))' is no word of a day)" } ?? ""
        throw .invalidDays("\(option) '\(text.quoted())' is not a day\(word): give \(TypedDate.dayForms)")
    }
}
