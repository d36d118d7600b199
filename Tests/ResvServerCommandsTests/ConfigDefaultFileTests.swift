import Foundation
import ResvServerCommands
import ResvTestKit
import Synchronization
import Testing

/// The configuration file read when none is named (`/etc/resv-server/config.json` in the
/// process; a file of the test's own here, through `ServerCommandContext.defaultConfigFile`).
@Suite("resv-server's default configuration file", .timeLimit(.minutes(30)))
struct ConfigDefaultFileTests {
    static func run(
        _ arguments: [String], defaultFile: String?, environment: [String: String] = [:]
    ) async -> (status: Int32, stderr: String) {
        let stderr = Mutex("")
        var context = ServerCommandContext(output: { _ in }, messages: { text in stderr.withLock { $0 += text } })
        context.defaultConfigFile = defaultFile
        context.environment = environment
        let status = await ResvServerMain.run(arguments, context: context)
        return (status, stderr.withLock { $0 })
    }

    @Test func theDefaultFileIsReadWhenItExistsAndNoneIsNamed() async throws {
        try await TemporaryDirectory.with("config") { folder in
            let directory = folder.url
            let database = directory.appendingPathComponent("db.sqlite").path
            let file = directory.appendingPathComponent("config.json").path
            try Data(#"{"database": "\#(database)"}"#.utf8).write(to: URL(fileURLWithPath: file))

            let created = await Self.run(["token", "create", "ada"], defaultFile: file)
            #expect(created.status == 0, "\(created.stderr)")
            #expect(FileManager.default.fileExists(atPath: database), "the default file's database")

            // Absent: no file, and no refusal; the database must then come from elsewhere.
            let absent = await Self.run(
                ["token", "create", "ada"], defaultFile: directory.appendingPathComponent("absent.json").path)
            #expect(absent.status == 64, "\(absent.stderr)")
            #expect(absent.stderr.contains("--database"), "\(absent.stderr)")

            // RESV_SERVER_CONFIG set empty: not even the default.
            let none = await Self.run(
                ["token", "create", "ada"], defaultFile: file, environment: ["RESV_SERVER_CONFIG": ""])
            #expect(none.status == 64, "\(none.stderr)")

            // A bad default file is refused as a named one is.
            try Data(#"{"database": "\#(database)", "prot": 1}"#.utf8).write(to: URL(fileURLWithPath: file))
            let bad = await Self.run(["token", "list"], defaultFile: file)
            #expect(bad.status == 78)
            #expect(bad.stderr.hasPrefix("resv-server: \(file): unknown key \"prot\""), "\(bad.stderr)")
            // Help and the version never read it.
            #expect(await Self.run(["serve", "--help"], defaultFile: file).status == 0)
            #expect(await Self.run(["--version"], defaultFile: file).status == 0)
        }
    }
}
