import ArgumentParser
import Foundation
import Logging
import ReservationCore
import ReservationServer
import ResvReference

extension TokenCommand {
    struct List: AsyncParsableCommand {
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

        func run() async throws {
            let logger = bootstrapLogging(.warning)
            let tokens = try await withTokens(options, logger: logger) { try await $0.list() }
            print(json ? Self.json(tokens) : Self.table(tokens, now: Date()), terminator: "")
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

    struct Revoke: AsyncParsableCommand {
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

        func run() async throws {
            let logger = bootstrapLogging(.warning)
            let name = name
            let count = try await withTokens(options, logger: logger) { try await $0.revoke(name) }
            guard count > 0 else {
                FileHandle.standardError.write(
                    Data("resv-server: \(name) has no token to revoke ('resv-server token list' shows them)\n".utf8))
                throw ExitCode(ExitStatus.refused)
            }
            FileHandle.standardError.write(
                Data("resv-server: revoked \(count) token\(count == 1 ? "" : "s") of \(name)\n".utf8))
        }
    }
}

/// Runs `body` with the token calls of the database, reporting failures as `runReportingErrors` does.
private func withTokens<T: Sendable>(
    _ options: DatabaseOptions, logger: Logger, _ body: @escaping @Sendable (TokenStore) async throws -> T
) async throws -> T {
    var result: T?
    try await runReportingErrors(logger) {
        result = try await Database.withStore(options.database, logger: logger) { store in try await body(store.tokens) }
    }
    guard let result else { throw ExitCode(ExitStatus.unavailable) }
    return result
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
