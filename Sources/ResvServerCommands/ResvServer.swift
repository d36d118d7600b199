import ArgumentParser
import Foundation
import ResvReference

/// `resv-server`: the shared backend of `resv`. The work is in the
/// `ReservationServer` library; this is the command line over it.
struct ResvServer: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resv-server",
        abstract: "Serve reservations over HTTP to resv clients, from SQLite or PostgreSQL.",
        discussion: """
            Create a token for each user with 'resv-server token create NAME', then start the server with \
            'resv-server serve'. Clients send the token as 'Authorization: Bearer TOKEN' (resv reads it from \
            RESV_TOKEN); a member sees and changes only their own reservations, staff every user's at their \
            landmarks, an admin every user's ('resv-server user add|set' gives roles).
            """,
        version: Reference.version,
        subcommands: [Serve.self, TokenCommand.self, UserCommand.self, CatalogCommand.self]
    )
}

/// A command that runs against an explicit context instead of the process's streams and clock.
protocol ServerCommand: ParsableCommand {
    func run(in context: ServerCommandContext) async throws
}

/// Parses and runs one `resv-server` command line; never exits, so tests run it in their process.
public enum ResvServerMain {
    /// Runs `arguments` (without the program name) and returns the exit status. The
    /// messages and statuses are swift-argument-parser's own (`exit(withError:)`),
    /// except that the bash completion script it prints is finished (see BashCompletionScript).
    /// The settings of the configuration file and the environment are added to `given`
    /// first (`ServerConfiguration`); one that cannot be used is one line and its status.
    public static func run(_ given: [String], context: ServerCommandContext) async -> Int32 {
        let arguments: [String]
        do {
            arguments = try ServerConfiguration.arguments(
                given, environment: context.environment, defaultFile: context.defaultConfigFile)
        } catch {
            context.say(error.line)
            return error.status
        }
        do {
            let command = try ResvServer.parseAsRoot(arguments)
            if let command = command as? any ServerCommand {
                try await command.run(in: context)
            } else {
                // A command group, or `help`: the library's help text.
                var command = command
                try command.run()
            }
            return ExitStatus.success
        } catch {
            let message = ResvServer.fullMessage(for: error)
            let finished = BashCompletionScript.finished(message)
            guard finished == message else {
                context.output(finished + "\n")
                return ExitStatus.success
            }
            let status = ResvServer.exitCode(for: error).rawValue
            if !message.isEmpty {
                // Help and the version are the command's data; errors are messages.
                let sink = status == ExitStatus.success ? context.output : context.messages
                sink(message + "\n")
            }
            return status
        }
    }
}

/// `--database` and `--config`, which every command but the root takes.
struct DatabaseOptions: ParsableArguments {
    /// Read by `ServerConfiguration` before the command line is parsed; here for help and completion.
    @Option(
        help: ArgumentHelp(
            """
            A JSON file of settings, each key named as a long option of serve (database, host, port, tls-cert and the rest; \
            the token commands read only database, the user commands database and landmarks); an option given \
            wins over RESV_SERVER_<KEY> in the \
            environment, which wins over the file (default: $RESV_SERVER_CONFIG, else \
            /etc/resv-server/config.json when it exists).
            """,
            valueName: "file"),
        completion: .file(extensions: ["json"]))
    var config: String?

    @Option(
        help: ArgumentHelp(
            """
            An SQLite file (created when missing) or a postgres://user[:password]@host[:port]/database URL; \
            a cluster's hosts as libpq lists them (host1:port,host2:port,…/database?target_session_attrs=read-write): \
            the one that takes writes is used, and found again after a failover.
            """,
            valueName: "path-or-url"))
    var database: String

    func validate() throws {
        guard !database.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ValidationError("--database needs an SQLite file path or a postgres:// URL")
        }
    }
}
