import Foundation
import ResvTestKit
import Testing

/// Settings through the built binary; the rest of the table runs in process
/// (Tests/ResvCLITests/Commands/ConfigEndToEndTests.swift), as do the profiles (ProfileTests.swift there).
@Suite("Configuration", .ownThreads, .timeLimit(.minutes(30)))
struct ConfigEndToEndTests {
    /// A sandbox whose config file is `config/resv/config.json`, without RESV_STORE.
    struct Setup {
        let sandbox: Sandbox
        var configFile: URL { sandbox.directory.appendingPathComponent("config/resv/config.json") }

        init() throws { sandbox = try Sandbox() }

        func write(_ json: String, mode: Int = 0o600) throws {
            try FileManager.default.createDirectory(
                at: configFile.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(json.utf8).write(to: configFile)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: configFile.path)
        }

        func resv(_ arguments: String..., environment: [String: String] = [:], stdin: String? = nil) throws -> Run {
            try resv(arguments, environment: environment, stdin: stdin)
        }

        func resv(_ arguments: [String], environment: [String: String] = [:], stdin: String? = nil) throws -> Run {
            var env = Fixture.homeEnvironment(in: sandbox.directory)
            env.merge(environment) { _, new in new }
            return try sandbox.resv(arguments, environment: env, stdin: stdin)
        }
    }

    /// A profile `unset` leaves empty goes (with the file's choice of it); `config remove`
    /// removes one with its token; `default` and a profile the file lacks are exit 64.
    @Test func anEmptiedProfileGoesAndRemoveTakesOneWithItsToken() throws {
        let setup = try Setup()
        try setup.write(
            #"{"profile": "work", "profiles": {"work": {"server": "http://127.0.0.1:1"}, "#
                + #""play": {"server": "http://127.0.0.1:2", "token": "resv_play"}}, "store": "/tmp/x.json"}"#)
        let unset = try setup.resv("config", "unset", "server", environment: ["RESV_PROFILE": "work"])
        #expect(unset.status == 0, "\(unset.stderr)")
        #expect(unset.stderr.contains("profile work is empty now and was removed, default is in use"))
        #expect(unset.stderrLines.last == "resv: warning: RESV_PROFILE=work is set and names the profile removed")
        var file = try JSONSerialization.jsonObject(with: Data(contentsOf: setup.configFile)) as? [String: Any]
        #expect((file?["profiles"] as? [String: Any])?.keys.sorted() == ["play"])
        #expect(file?["profile"] == nil, "the choice of the removed profile goes too")
        #expect(file?["store"] as? String == "/tmp/x.json", "the top level stays")
        let removed = try setup.resv("config", "remove", "play")
        #expect(removed.status == 0 && removed.stderr == "removed profile play from \(setup.configFile.path)\n")
        file = try JSONSerialization.jsonObject(with: Data(contentsOf: setup.configFile)) as? [String: Any]
        #expect(file?["profiles"] == nil && file?["store"] as? String == "/tmp/x.json")
        #expect(!(try String(contentsOf: setup.configFile, encoding: .utf8)).contains("resv_play"))
        for name in ["play", "default", "../etc", ""] {
            let refused = try setup.resv("config", "remove", name)
            #expect(refused.status == 64 && refused.stderrLines.count == 1, "\(name): \(refused.stderr)")
        }
    }

    /// The settings' table runs in process (Tests/ResvCLITests/Commands/ConfigEndToEndTests.swift);
    /// here the built binary agrees: a token piped to stdin, and the exit codes of refusals.
    @Test func theBinaryReadsATokenFromAPipeAndRefusesWithTheCodes() throws {
        let setup = try Setup()
        let token = try setup.resv("config", "set", "token", stdin: "resv_typed\n")
        #expect(token.status == 0, "\(token.stderr)")
        #expect(try String(contentsOf: setup.configFile, encoding: .utf8).contains("resv_typed"))
        #expect(try setup.resv("config", "get", "token").stdout == "****\n")
        let onArgv = try setup.resv("config", "set", "token", "resv_visible")
        #expect(onArgv.status == 64)
        #expect(onArgv.stderrLines.count == 1)
        // A token others can read: 77, without the token.
        try setup.write(#"{"server": "http://127.0.0.1:1", "token": "resv_secret"}"#, mode: 0o644)
        let open = try setup.resv("list")
        #expect(open.status == 77)
        #expect(!open.stderr.contains("resv_secret"))
        // The environment's store beats the file's server.
        try setup.write(#"{"server": "http://127.0.0.1:1", "token": "resv_secret"}"#)
        #expect(try setup.resv("list", environment: ["RESV_STORE": setup.sandbox.store.path]).status == 0)
    }

    @Test func aTokenTypedAtATerminalIsPromptedAndNotShown() throws {
        let setup = try Setup()
        let environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": setup.sandbox.directory.path, "TERM": "xterm",
            "XDG_CONFIG_HOME": setup.sandbox.directory.appendingPathComponent("config").path,
        ]
        let terminal = try PseudoTerminal(Binary.resv.path, ["config", "set", "token"], environment: environment)
        try terminal.expect("token: ")
        // The prompt comes just before echo is turned off: type once it is off.
        try waitUntil("resv turning the terminal's echo off") { !terminal.echoes }
        terminal.send("resv_typed\r")
        #expect(terminal.waitForExit() == 0, "\(terminal.transcript)")
        #expect(!terminal.transcript.contains("resv_typed"), "\(terminal.transcript)")
        #expect(terminal.transcript.contains("set token in \(setup.configFile.path)"), "\(terminal.transcript)")
        #expect(try String(contentsOf: setup.configFile, encoding: .utf8).contains("resv_typed"))
    }

    @Test func theFileServerIsUsedWhenNothingHigherNamesABackend() throws {
        let setup = try Setup()
        let server = try FaultServer { _, _ in .respond(status: 200, body: "[]") }
        defer { server.stop() }
        try setup.write(#"{"server": "\#(server.url)", "token": "resv_from_file"}"#)
        let run = try setup.resv("list", "--json")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(server.requests.first?.headers["authorization"] == "Bearer resv_from_file")
        // RESV_TOKEN beats the file's token.
        _ = try setup.resv("list", environment: ["RESV_TOKEN": "resv_from_env"])
        #expect(server.requests.last?.headers["authorization"] == "Bearer resv_from_env")
    }
}
