import Foundation
import Logging
import ReservationServer
import ReservationStorage
import ResvReference
import ResvServerCommands
import ResvTestKit
import Synchronization
import Testing

/// `resv-server`'s commands run in this process, on a temporary SQLite file,
/// with their output captured: the same parse, run, messages and statuses as
/// the binary (ResvEndToEndTests runs that).
@Suite("resv-server commands, in the process", .timeLimit(.minutes(30)))
struct ServerCommandTests {
    /// A directory of its own (the kit's), its SQLite database's path in it.
    final class Sandbox {
        let directory: TemporaryDirectory
        var database: String { directory.url.appendingPathComponent("db.sqlite").path }

        init() throws { directory = try TemporaryDirectory("server-commands") }
    }

    /// The time the commands run at unless a test says another: 2030-03-17T17:46:40Z, not the machine's.
    static let now = Date(timeIntervalSince1970: 1_900_000_000)

    static func resvServer(_ arguments: [String], now: Date = Self.now) async -> Run {
        let stdout = Mutex("")
        let stderr = Mutex("")
        let context = ServerCommandContext(
            output: { text in stdout.withLock { $0 += text } },
            messages: { text in stderr.withLock { $0 += text } },
            now: { now })
        let status = await ResvServerMain.run(arguments, context: context)
        return Run(status: status, stdout: stdout.withLock { $0 }, stderr: stderr.withLock { $0 })
    }

    @Test func tokensAreCreatedListedAndRevoked() async throws {
        let sandbox = try Sandbox()
        let database = sandbox.database
        let now = Self.now  // 2030-03-17T17:46:40Z

        let created = await Self.resvServer(["token", "create", "ada", "--database", database], now: now)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout.wholeMatch(of: /resv_[0-9a-f]{64}\n/) != nil, "\(created.stdout)")
        #expect(
            created.stderr.wholeMatch(
                of: /resv-server: created a write token \(id [0-9a-f]{8}\) for ada; it is shown only this once\n/)
                != nil, "\(created.stderr)")
        let day = await Self.resvServer(
            ["token", "create", "ada", "--database", database, "--expires-in", "1d"], now: now)
        #expect(day.status == 0, "\(day.stderr)")
        #expect(day.stdout != created.stdout)

        // The store knows each token by its hash, and the clock of the context set the expiry.
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let clock: @Sendable () -> Date = { now }
        let grants = try await Database.withStore(database, logger: logger, now: clock) { store in
            [
                try await store.tokens.grant(Token.hash(created.stdout.dropLast())),
                try await store.tokens.grant(Token.hash(day.stdout.dropLast())),
            ]
        }
        #expect(grants[0] != nil && grants[0]?.expiresAt == nil)
        #expect(grants[1]?.expiresAt == now.addingTimeInterval(86_400))

        let json = await Self.resvServer(["token", "list", "--database", database, "--json"], now: now)
        #expect(json.status == 0 && json.stderr.isEmpty, "\(json.stderr)")
        #expect(!json.stdout.contains(created.stdout.dropLast()) && !json.stdout.contains(day.stdout.dropLast()))
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(rows.count == 2 && rows.allSatisfy { $0["user"] as? String == "ada" })
        #expect(Set(rows.map { $0["expiresAt"] as? String ?? "never" }) == ["never", "2030-03-18T17:46:40Z"])

        // Two days on, the table marks the day token expired.
        let table = await Self.resvServer(
            ["token", "list", "--database", database], now: now.addingTimeInterval(2 * 86_400))
        #expect(table.status == 0, "\(table.stderr)")
        let lines = table.stdout.split(separator: "\n")
        #expect(lines.count == 3 && lines[0].hasPrefix("ID        USER  SCOPE  CREATED"), "\(table.stdout)")
        #expect(lines.contains { $0.hasSuffix("2030-03-18T17:46:40Z (expired)") }, "\(table.stdout)")

        let revoked = await Self.resvServer(["token", "revoke", "ada", "--database", database])
        #expect(revoked.status == 0 && revoked.stdout.isEmpty)
        #expect(revoked.stderr == "resv-server: revoked 2 tokens of ada\n")
        let again = await Self.resvServer(["token", "revoke", "ada", "--database", database])
        #expect(again.status == ExitStatus.refused)
        #expect(again.stderr == "resv-server: ada has no token to revoke ('resv-server token list' shows them)\n")
        #expect(
            await Self.resvServer(["token", "list", "--database", database]).stdout
                == "ID  USER  SCOPE  CREATED  LAST USED  EXPIRES\n")
    }

    /// Bad arguments: swift-argument-parser's message and usage on stderr, exit 64, and nothing run.
    @Test(arguments: [
        (
            ["token", "create", " ", "--database", "DB"],
            """
            Error: the user name must be 1 to 200 characters, not blank
            Usage: resv-server token create <name> [--config <file>] --database <path-or-url> [--scope <scope>] [--expires-in <duration>]
              See 'resv-server token create --help' for more information.

            """
        ),
        (
            ["token", "create", "ada", "--database", "DB", "--expires-in", "0d"],
            """
            Error: The value '0d' is invalid for '--expires-in <duration>'
            Help:  --expires-in <duration>  How long the token works: a number with s, m, h or d (90m, 12h, 30d). Default: until revoked.
            Usage: resv-server token create <name> [--config <file>] --database <path-or-url> [--scope <scope>] [--expires-in <duration>]
              See 'resv-server token create --help' for more information.

            """
        ),
        (
            ["token", "revoke", "--database", "DB"],
            """
            Error: Missing expected argument '<name>'
            Help:  <name>  The user's name, as 'token list' shows it.
            Usage: resv-server token revoke <name> [--config <file>] --database <path-or-url> [--id <id>]
              See 'resv-server token revoke --help' for more information.

            """
        ),
        (
            ["token", "list", "--database", "  "],
            """
            Error: --database needs an SQLite file path or a postgres:// URL
            Usage: resv-server token list [--config <file>] --database <path-or-url> [--json]
              See 'resv-server token list --help' for more information.

            """
        ),
        (
            ["bogus"],
            """
            Error: Unexpected argument 'bogus'
            Usage: resv-server <subcommand>
              See 'resv-server --help' for more information.

            """
        ),
    ])
    func badArgumentsAreUsageErrors(arguments: [String], message: String) async throws {
        let sandbox = try Sandbox()
        let run = await Self.resvServer(arguments.map { $0 == "DB" ? sandbox.database : $0 })
        #expect(run.status == ExitStatus.usage)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr == message)
        #expect(!FileManager.default.fileExists(atPath: sandbox.database), "a refused command opened the database")
    }

    @Test func serveRefusesItsOptionsBeforeStarting() async throws {
        let sandbox = try Sandbox()
        let port = await Self.resvServer(["serve", "--database", sandbox.database, "--port", "70000"])
        #expect(port.status == ExitStatus.usage)
        #expect(port.stderr.hasPrefix("Error: --port must be between 0 and 65535\nUsage: resv-server serve "))
        let missing = sandbox.directory.url.appendingPathComponent("missing.json").path
        let landmarks = await Self.resvServer(["serve", "--database", sandbox.database, "--landmarks", missing])
        #expect(landmarks.status == ExitStatus.unavailable)
        #expect(landmarks.stderr.hasPrefix("resv-server: cannot read the landmarks file \(missing): "))
        #expect(landmarks.stderr.split(separator: "\n").count == 1, "\(landmarks.stderr)")
    }

    @Test func aDatabaseThatCannotBeOpenedIsOneLineAndExit69() async throws {
        let sandbox = try Sandbox()
        let folder = sandbox.directory.url.appendingPathComponent("absent").path
        let run = await Self.resvServer(["token", "list", "--database", folder + "/db.sqlite"])
        #expect(run.status == ExitStatus.unavailable)
        #expect(run.stdout.isEmpty)
        #expect(
            run.stderr
                == "resv-server: cannot open the database \(folder)/db.sqlite: the folder \(folder) does not exist\n")
    }

    /// Every command answers --help on stdout with exit 0 (and `help` alike); --version is the reference's.
    @Test(arguments: [[], ["serve"], ["token"], ["token", "create"], ["token", "list"], ["token", "revoke"]])
    func everyCommandHasHelp(path: [String]) async throws {
        let help = await Self.resvServer(path + ["--help"])
        #expect(help.status == 0 && help.stderr.isEmpty)
        #expect(help.stdout.hasPrefix("OVERVIEW: "), "\(help.stdout)")
        #expect(
            help.stdout.contains(
                "USAGE: resv-server \(path.joined(separator: " "))".trimmingCharacters(in: .whitespaces)))
        let word = await Self.resvServer(["help"] + path)
        #expect(word.status == 0 && word.stdout == help.stdout)
    }

    /// The completion scripts are the committed ones (the bash script finished: see BashCompletionScript).
    @Test func versionAndCompletionScriptsGoToStdout() async throws {
        let version = await Self.resvServer(["--version"])
        #expect(version.status == 0 && version.stdout == Reference.version + "\n" && version.stderr.isEmpty)
        let completions = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../completions").standardized
        for shell in ["bash", "zsh", "fish"] {
            let script = await Self.resvServer(["--generate-completion-script", shell])
            #expect(script.status == 0 && script.stderr.isEmpty)
            let committed = try String(
                contentsOf: completions.appendingPathComponent("resv-server.\(shell)"), encoding: .utf8)
            #expect(script.stdout == committed, "completions/resv-server.\(shell)")
        }
    }
}
