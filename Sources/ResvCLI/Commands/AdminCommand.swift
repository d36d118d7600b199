import ArgumentParser
import Foundation
import ReservationCore

/// `resv admin capacity|close|open`: a landmark's days as its managers run them
/// (docs/contracts.md, "Capacity by date and closures").
struct AdminCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Run a landmark: a day's capacity, closures.",
        discussion: """
            What a landmark's managers do: on a server its staff and admins, on a file the store's \
            owner. Days are calendar days in the landmark's time zone, one (DAY) or a range \
            (DAY..DAY, at most \(Capacity.longestRange) days), written as for 'resv availability' \
            (YYYY-MM-DD, today, +3d, fri, dec 24). 'resv availability' shows closed days and days \
            with a capacity of their own.

            Examples:
              resv admin capacity 'half dome' 8 --on 2026-12-01..2026-12-03
              resv admin close 'half dome' 2026-12-24 --reason 'rockfall on the cables'
              resv admin close rainier 2026-12-01..2026-12-07 --reason 'trail work' --waitlist
              resv admin open 'half dome' 2026-12-24
            """,
        subcommands: [CapacityCommand.self, CloseCommand.self, OpenCommand.self])

    struct CapacityCommand: ResvCommand, PrintsData {
        static let configuration = CommandConfiguration(
            commandName: "capacity",
            abstract: "Set how many people a landmark takes on a day or a range of days.",
            discussion: """
                The capacity replaces the catalog's on those days (0 to 1,000,000; 0 takes nobody \
                without closing the day); 'resv admin open' gives the days back the catalog's. A \
                landmark without a capacity in the catalog takes everyone and has none by day. \
                Lowering a day below the places taken is refused (exit 1), naming how many places \
                are over, unless --cancel or --waitlist says what happens to the latest booked \
                parties; each party changed is one change in its owner's history, with the reason. \
                Raising it gives places to the day's waitlist.
                """)

        @Argument(
            help: ArgumentHelp("The landmark: id, id prefix or name.", valueName: "landmark"),
            completion: ShellCompletion.landmarkNames)
        var landmark: String

        @Argument(help: ArgumentHelp("The people a day takes: 0 to 1,000,000.", valueName: "n"))
        var capacity: Int

        @Option(help: ArgumentHelp("The day, or the days DAY..DAY.", valueName: "day[..day]"))
        var on: String

        @OptionGroup var overflow: OverflowOptions
        @OptionGroup var key: IdempotencyKeyOption
        @OptionGroup var options: CommonOptions

        func validate() throws {
            try options.output.check([.table, .json], command: "resv admin capacity")
        }

        func run(in context: CommandContext) async throws {
            try DayRule.check(capacity: capacity)
            try await AdminCommand.change(
                .capacity(capacity), at: landmark, days: on, overflow: try overflow.chosen, key: key, options: options,
                context: context)
        }
    }

    struct CloseCommand: ResvCommand, PrintsData {
        static let configuration = CommandConfiguration(
            commandName: "close",
            abstract: "Close a landmark on a day or a range of days, with a reason.",
            discussion: """
                A closed day takes no booking (refused, exit 1, code closed, with the reason) and \
                no reservation moved onto it. Closing a day with parties is refused (exit 1), \
                naming how many places are taken, unless --cancel (each party cancelled, with the \
                reason) or --waitlist (each moved to the head of the day's waitlist, in booking \
                order, promoted when the day opens). Each party changed is one change in its \
                owner's history and change feed, with the reason.
                """)

        @Argument(
            help: ArgumentHelp("The landmark: id, id prefix or name.", valueName: "landmark"),
            completion: ShellCompletion.landmarkNames)
        var landmark: String

        @Argument(help: ArgumentHelp("The day, or the days DAY..DAY.", valueName: "day[..day]"))
        var days: String

        @Option(help: ArgumentHelp("Why: one line, at most 500 characters.", valueName: "text"))
        var reason: String

        @OptionGroup var overflow: OverflowOptions
        @OptionGroup var key: IdempotencyKeyOption
        @OptionGroup var options: CommonOptions

        func validate() throws {
            try options.output.check([.table, .json], command: "resv admin close")
        }

        func run(in context: CommandContext) async throws {
            try DayRule.check(reason: reason)
            try await AdminCommand.change(
                .close(reason: reason), at: landmark, days: days, overflow: try overflow.chosen, key: key,
                options: options, context: context)
        }
    }

    struct OpenCommand: ResvCommand, PrintsData {
        static let configuration = CommandConfiguration(
            commandName: "open",
            abstract: "Open a landmark's days again, with the catalog's capacity.",
            discussion: """
                Ends a closure and a capacity of the day's own: the days are as the catalog says. \
                Places it gives go to the day's waitlist, in the order it was joined.
                """)

        @Argument(
            help: ArgumentHelp("The landmark: id, id prefix or name.", valueName: "landmark"),
            completion: ShellCompletion.landmarkNames)
        var landmark: String

        @Argument(help: ArgumentHelp("The day, or the days DAY..DAY.", valueName: "day[..day]"))
        var days: String

        @OptionGroup var key: IdempotencyKeyOption
        @OptionGroup var options: CommonOptions

        func validate() throws {
            try options.output.check([.table, .json], command: "resv admin open")
        }

        func run(in context: CommandContext) async throws {
            try await AdminCommand.change(
                .open, at: landmark, days: days, overflow: .refuse, key: key, options: options, context: context)
        }
    }

    /// `--cancel` or `--waitlist`: what happens to the parties over.
    struct OverflowOptions: ParsableArguments, Sendable {
        @Flag(help: "Cancel the parties over (the latest booked first), with the reason.")
        var cancel = false

        @Flag(help: "Move the parties over to the head of the day's waitlist, in booking order.")
        var waitlist = false

        /// What happens to the parties over; both flags at once are refused (exit 64).
        var chosen: Overflow {
            get throws(ReservationError) {
                if cancel && waitlist {
                    throw .invalidRequestField(
                        "--cancel", "and --waitlist are two answers: give --cancel or --waitlist, not both")
                }
                return cancel ? .cancel : waitlist ? .waitlist : .refuse
            }
        }
    }

    /// Resolves the landmark and its days (in its zone), makes the change, and prints each day
    /// as it is now (stdout) and what happened to the parties (stderr).
    static func change(
        _ change: DayChange, at landmark: String, days text: String, overflow: Overflow, key: IdempotencyKeyOption,
        options: CommonOptions, context: CommandContext
    ) async throws {
        var context = context
        context.idempotencyKey = key.idempotencyKey
        let service = try context.service(options.backend)
        let place = try await service.landmarks().landmark(matching: landmark)
        let days = try Self.days(text, at: place, now: context.now())
        let changed = try await service.changeDays(place.id.description, days, change, overflow)
        let renderer = Renderer(options.output, context: context)
        if renderer.format == .json {
            context.output.write(renderer.single(Answer(changed: changed)) { "" })
            return
        }
        for rule in changed.rules {
            let state =
                if let reason = rule.closed { "closed: \(reason)" } else if let capacity = rule.capacity {
                    "capacity \(capacity)"
                } else { "open, capacity \(place.capacity.map(String.init) ?? "unlimited")" }
            context.output.write("\(rule.day)  \(state)\n")
        }
        let moved = [
            (changed.cancelled.count, "cancelled"), (changed.waitlisted.count, "moved to the waitlist"),
            (changed.promoted.count, "promoted from the waitlist"),
        ].filter { $0.0 > 0 }.map { "\($0.0) \($0.0 == 1 ? "party" : "parties") \($0.1)" }
        if !moved.isEmpty { context.say("\(place.name): " + moved.joined(separator: ", ") + ".") }
    }

    /// `DAY` or `DAY..DAY`, each day as `resv availability` reads one, at the landmark.
    static func days(_ text: String, at landmark: Landmark, now: Date) throws(ReservationError) -> [CalendarDay] {
        let calendar = Capacity.calendar(for: landmark)
        let parts = text.components(separatedBy: "..")
        guard parts.count <= 2, !parts.contains(where: \.isEmpty) else {
            throw .invalidDays("'\(text.quoted())' is not a day or a range of days: give DAY or DAY..DAY")
        }
        let first = try AvailabilityCommand.day(parts[0], option: "the first day", in: calendar, now: now)
        let last =
            parts.count == 2
            ? try AvailabilityCommand.day(parts[1], option: "the last day", in: calendar, now: now) : first
        return try Capacity.days(from: first, through: last)
    }

    /// The `--json` shape: `DaysChanged`'s.
    struct Answer: JSONOutput {
        let changed: DaysChanged
        var json: JSONValue { changed.json }
    }
}
