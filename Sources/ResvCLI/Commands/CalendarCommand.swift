import ArgumentParser
import Foundation
import ReservationCore
import ReservationHTTP

/// `resv calendar url|reset`: the secret URL calendars subscribe to (docs/contracts.md,
/// "Calendar subscriptions").
struct CalendarCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calendar",
        abstract: "Print the secret URL calendar apps subscribe to, or make a new one.",
        discussion: """
            A server keeps, for each user, a read-only iCalendar feed of their reservations at a \
            secret URL (GET /calendar/SECRET.ics): subscribe to it in Thunderbird, Apple Calendar, \
            Google Calendar or vdirsyncer, and the calendar follows every booking, change and \
            cancellation. The URL is a password for your reservations: 'resv calendar reset' \
            replaces it, and the old one stops working at once.

            Examples:
              resv calendar url
              resv calendar reset
            """,
        subcommands: [URLCommand.self, Reset.self],
        defaultSubcommand: URLCommand.self)

    struct URLCommand: ResvCommand, PrintsData {
        static let configuration = CommandConfiguration(
            commandName: "url", abstract: "Print the calendar's URL (made on first use; the default).")

        @OptionGroup var options: CommonOptions

        func run(in context: CommandContext) async throws {
            try await CalendarCommand.show(reset: false, options, context)
        }
    }

    struct Reset: ResvCommand, PrintsData {
        static let configuration = CommandConfiguration(
            commandName: "reset", abstract: "Replace the calendar's URL; the old one stops working at once.")

        @OptionGroup var options: CommonOptions

        func run(in context: CommandContext) async throws {
            try await CalendarCommand.show(reset: true, options, context)
            context.say("The old calendar URL no longer works: subscribe to this one.")
        }
    }

    /// Asks the server and prints `{"url": URL}` (or the URL alone).
    static func show(reset: Bool, _ options: CommonOptions, _ context: CommandContext) async throws {
        if options.backend.offline { throw HTTPBackendError.offlineChange }
        let settings = try context.settings(options.backend)
        guard let server = settings.chosenServer else { throw CLIError.calendarNeedsServer }
        let (configuration, transport) = try context.httpBackend(server, settings, options.backend)
        let url = try await configuration.calendarURL(reset: reset, transport: transport)
        let renderer = Renderer(options.output, context: context)
        context.output.write(renderer.single(Subscription(url: url.absoluteString)) { url.absoluteString + "\n" })
    }

    /// The stable `--json` shape: `{"url": URL}`.
    struct Subscription: JSONOutput {
        var url: String
        var json: JSONValue { .object(["url": .string(url)]) }
    }
}
