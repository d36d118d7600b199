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
                The token is printed on stdout and never again: only its SHA-256 is stored, with a public id \
                (8 hex digits, shown on stderr and by 'token list') to revoke it by. A user may hold several \
                tokens; each one sees the same reservations, within its scope: write (everything), read (reads \
                only: lists, a reservation, history, changes, availability, landmarks) or calendar (only making \
                and resetting the calendar address). A name with control characters is refused.
                """
        )

        @Argument(help: "The user's name.")
        var name: String

        @OptionGroup var options: DatabaseOptions

        @Option(
            help: "What the token may do: write (everything), read (reads only) or calendar (the calendar address).")
        var scope: ScopeArgument = .write

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
            // One line, not a usage text: the name is shown escaped, its control characters harmless.
            guard !UserName.hasControlCharacters(name) else {
                context.say(
                    "the user name \"\(UserName.printable(name))\" has control characters; choose a name without them")
                throw ExitCode(ExitStatus.usage)
            }
            let token = Token.generate()
            let new = NewToken(
                name: name, hash: Token.hash(token), scope: scope.scope,
                expiresAt: expiresIn.map { context.now().addingTimeInterval($0.seconds) })
            _ = try await withTokens(options, context) { try await $0.create(new) }
            context.output(token + "\n")
            context.say(
                "created a \(new.scope.rawValue) token (id \(new.id)) for \(name); it is shown only this once")
        }
    }

    struct List: ServerCommand {
        static let configuration = CommandConfiguration(
            abstract: "List every token: its id, user, scope, when it was created, last used and expires.",
            discussion: """
                Never shows a token or its hash. Dates are UTC. A server writes a token's last use at most \
                once a minute, so it may lag by that much. Control characters in a name are shown escaped.
                """
        )

        @OptionGroup var options: DatabaseOptions

        @Flag(
            help: "Print a JSON array of {id, user, scope, createdAt, lastUsedAt, expiresAt} instead of a table.")
        var json = false

        func run(in context: ServerCommandContext) async throws {
            let tokens = try await withTokens(options, context) { try await $0.list() }
            context.output(json ? Self.json(tokens) : Self.table(tokens, now: context.now()))
        }

        static func table(_ tokens: [TokenInfo], now: Date) -> String {
            var rows = [["ID", "USER", "SCOPE", "CREATED", "LAST USED", "EXPIRES"]]
            for token in tokens {
                let expiry = token.expiresAt.map { DateTime.format($0) + ($0 <= now ? " (expired)" : "") }
                rows.append([
                    UserName.printable(token.id), UserName.printable(token.user), token.scope.rawValue,
                    DateTime.format(token.createdAt), token.lastUsedAt.map(DateTime.format) ?? "never",
                    expiry ?? "never",
                ])
            }
            let last = rows[0].count - 1
            let widths = (0...last).map { column in rows.map { $0[column].count }.max() ?? 0 }
            return rows.map { row in
                row.enumerated().map { index, cell in
                    index == last ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
                }.joined(separator: "  ")
            }.joined(separator: "\n") + "\n"
        }

        static func json(_ tokens: [TokenInfo]) -> String {
            let array = JSONValue.array(
                tokens.map { token in
                    JSONValue.object([
                        "id": .string(token.id), "user": .string(token.user), "scope": .string(token.scope.rawValue),
                        "createdAt": .string(DateTime.format(token.createdAt)),
                        "lastUsedAt": token.lastUsedAt.map { .string(DateTime.format($0)) } ?? .null,
                        "expiresAt": token.expiresAt.map { .string(DateTime.format($0)) } ?? .null,
                    ])
                })
            return String(decoding: array.encoded(), as: UTF8.self) + "\n"
        }
    }

    struct Revoke: ServerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke one token of a user (--id), or all of them.",
            discussion: """
                The tokens are deleted. Running servers stop accepting them within 1 second (each checks a \
                token it knows again after 1). Exit 1, changing nothing, when the user has no token (of that \
                id). The user's reservations stay; a new token (token create) sees them again.
                """
        )

        @Argument(help: "The user's name, as 'token list' shows it.")
        var name: String

        @OptionGroup var options: DatabaseOptions

        @Option(help: ArgumentHelp("Revoke only the token of this id ('token list' shows it).", valueName: "id"))
        var id: String?

        func run(in context: ServerCommandContext) async throws {
            let name = name
            // Ids are written in lowercase hex; one typed in capitals is the same id.
            let id = id?.lowercased()
            let count = try await withTokens(options, context) { try await $0.revoke(name, id) }
            let shown = UserName.printable(name)
            guard count > 0 else {
                let which = id.map { "no token of id \(UserName.printable($0))" } ?? "no token"
                context.say("\(shown) has \(which) to revoke ('resv-server token list' shows them)")
                throw ExitCode(ExitStatus.refused)
            }
            context.say(
                id.map { "revoked the token \(UserName.printable($0)) of \(shown)" }
                    ?? "revoked \(count) token\(count == 1 ? "" : "s") of \(shown)")
        }
    }
}

/// `--scope`: what a new token may do (`TokenScope`).
enum ScopeArgument: String, CaseIterable, ExpressibleByArgument {
    case read, write, calendar

    var scope: TokenScope { TokenScope(rawValue: rawValue) ?? .write }
}

/// Runs `body` with the token and user calls of the database (`TokenStore`), logging
/// warnings only; a database that cannot be opened is one line on stderr and exit 69.
func withTokens<Result: Sendable>(
    _ options: DatabaseOptions, _ context: ServerCommandContext,
    _ body: @escaping @Sendable (any TokenStore) async throws -> Result
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
