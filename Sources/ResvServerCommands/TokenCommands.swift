import ArgumentParser
import Foundation
import Logging
import ReservationCore
import ReservationServer
import ReservationStorage
import ResvReference

struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token", abstract: "Manage users' bearer tokens.",
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: ServerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a token for a user (new or existing) and print it once.",
            discussion: """
                The token is printed on stdout and never again: only its SHA-256 is stored. A user may hold \
                several tokens; each one sees the same reservations.
                """
        )

        @Argument(help: "The user's name.")
        var name: String

        @OptionGroup var options: DatabaseOptions

        @Option(
            help: ArgumentHelp(
                "How long the token works: a number with s, m, h or d (90m, 12h, 30d). Default: until revoked.",
                valueName: "duration"))
        var expiresIn: TokenLifetime?

        func validate() throws {
            guard !name.trimmingCharacters(in: .whitespaces).isEmpty, name.count <= 200 else {
                throw ValidationError("the user name must be 1 to 200 characters, not blank")
            }
        }

        func run(in context: ServerCommandContext) async throws {
            let name = name
            let token = Token.generate()
            let expiresAt = expiresIn.map { context.now().addingTimeInterval($0.seconds) }
            _ = try await withTokens(options, context) { try await $0.create(name, Token.hash(token), expiresAt) }
            context.output(token + "\n")
            context.say("created a token for \(name); it is shown only this once")
        }
    }

    struct List: ServerCommand {
        static let configuration = CommandConfiguration(
            abstract: "List every token: its user, when it was created, last used and expires.",
            discussion: """
                Never shows a token or its hash. Dates are UTC. A server writes a token's last use at most \
                once a minute, so it may lag by that much.
                """
        )

        @OptionGroup var options: DatabaseOptions

        @Flag(help: "Print a JSON array of {user, createdAt, lastUsedAt, expiresAt} instead of a table.")
        var json = false

        func run(in context: ServerCommandContext) async throws {
            let tokens = try await withTokens(options, context) { try await $0.list() }
            context.output(json ? Self.json(tokens) : Self.table(tokens, now: context.now()))
        }

        static func table(_ tokens: [TokenInfo], now: Date) -> String {
            var rows = [["USER", "CREATED", "LAST USED", "EXPIRES"]]
            for token in tokens {
                let expiry = token.expiresAt.map { DateTime.format($0) + ($0 <= now ? " (expired)" : "") }
                rows.append([
                    Self.printable(token.user), DateTime.format(token.createdAt),
                    token.lastUsedAt.map(DateTime.format) ?? "never", expiry ?? "never",
                ])
            }
            let widths = (0..<4).map { column in rows.map { $0[column].count }.max() ?? 0 }
            return rows.map { row in
                row.enumerated().map { index, cell in
                    index == 3 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
                }.joined(separator: "  ")
            }.joined(separator: "\n") + "\n"
        }

        static func json(_ tokens: [TokenInfo]) -> String {
            let array = JSONValue.array(
                tokens.map { token in
                    JSONValue.object([
                        "user": .string(token.user), "createdAt": .string(DateTime.format(token.createdAt)),
                        "lastUsedAt": token.lastUsedAt.map { .string(DateTime.format($0)) } ?? .null,
                        "expiresAt": token.expiresAt.map { .string(DateTime.format($0)) } ?? .null,
                    ])
                })
            return String(decoding: array.encoded(), as: UTF8.self) + "\n"
        }

        /// A user name as a table cell: control characters escaped.
        static func printable(_ text: String) -> String {
            String(
                text.unicodeScalars.flatMap { scalar -> [Character] in
                    scalar.properties.generalCategory == .control
                        ? Array(scalar.escaped(asASCII: true)) : [Character(scalar)]
                })
        }
    }

    struct Revoke: ServerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke every token of a user.",
            discussion: """
                The tokens are deleted. Running servers stop accepting them within 5 seconds (each checks a \
                token it knows again after 2). Exit 1 when the user has no token. The user's reservations stay; \
                a new token (token create) sees them again.
                """
        )

        @Argument(help: "The user's name, as 'token list' shows it.")
        var name: String

        @OptionGroup var options: DatabaseOptions

        func run(in context: ServerCommandContext) async throws {
            let name = name
            let count = try await withTokens(options, context) { try await $0.revoke(name) }
            guard count > 0 else {
                context.say("\(name) has no token to revoke ('resv-server token list' shows them)")
                throw ExitCode(ExitStatus.refused)
            }
            context.say("revoked \(count) token\(count == 1 ? "" : "s") of \(name)")
        }
    }
}

/// Runs `body` with the token calls of the database, logging warnings only; a
/// database that cannot be opened is one line on stderr and exit 69.
private func withTokens<Result: Sendable>(
    _ options: DatabaseOptions, _ context: ServerCommandContext,
    _ body: @escaping @Sendable (TokenStore) async throws -> Result
) async throws -> Result {
    let logger = context.logger(.warning)
    return try await context.unavailableOnFailure {
        try await Database.withStore(options.database, logger: logger, now: context.now) { store in
            try await body(store.tokens)
        }
    }
}

/// `--expires-in`: a whole number with a unit, s, m, h or d (up to ten years).
struct TokenLifetime: ExpressibleByArgument {
    let seconds: TimeInterval

    init?(argument: String) {
        let units: [Character: TimeInterval] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        guard let unit = argument.last.flatMap({ units[$0] }), let number = Int(argument.dropLast()),
            number > 0, Double(number) * unit <= 3650 * 86_400
        else { return nil }
        seconds = Double(number) * unit
    }
}
