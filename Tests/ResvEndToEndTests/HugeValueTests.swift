import Foundation
import ResvTestKit
import Testing

/// A value of any size, from anywhere, is quoted in a message by at most about 200
/// characters: the message stays one short line (docs/contracts.md, "Backends and
/// configuration").
@Suite("Huge values in messages", .ownThreads, .timeLimit(.minutes(30)))
struct HugeValueTests {
    static let huge = String(repeating: "x", count: 1_000_000)
    /// As long as one argument may be (Linux: 128 KiB).
    static let long = String(repeating: "x", count: 100_000)

    /// One line, short, with the value cut by "…".
    func expectShort(_ run: Run, _ what: String, status: Int32 = 64) {
        #expect(run.status == status, "\(what): \(run.stderr.prefix(300))")
        #expect(run.stderr.utf8.count < 1_200, "\(what): \(run.stderr.utf8.count) bytes on stderr")
        #expect(run.stderr.contains("xxxx…"), "\(what): \(run.stderr.prefix(300))")
    }

    @Test func aBatchLineArgumentsAndAReplLine() throws {
        let sandbox = try Sandbox()
        let line = #"{"landmarkId": "\#(Self.huge)", "date": "2031-01-01T10:00:00Z", "partySize": 1}"#
        expectShort(try sandbox.resv(["reserve", "--batch", "-"], stdin: line), "batch landmarkId")
        let date = #"{"landmarkId": "Lake Tahoe", "date": "\#(Self.huge)", "partySize": 1}"#
        expectShort(try sandbox.resv(["reserve", "--batch", "-"], stdin: date), "batch date")
        expectShort(
            try sandbox.resv(["reserve", "-l", Self.long, "-d", "2031-01-01T10:00:00Z", "-n", "1"]), "--landmark")
        expectShort(try sandbox.resv(["reserve", "-l", "Lake Tahoe", "-d", Self.long, "-n", "1"]), "--date")
        expectShort(try sandbox.resv(["show", Self.long]), "show ID")
        expectShort(try sandbox.resv([Self.long]), "a command")
        expectShort(try sandbox.resv(["list", "--" + Self.long]), "an option")
        expectShort(try sandbox.resv(["--store", sandbox.store.path, Self.long]), "an argument after an option")
        expectShort(try sandbox.resv(["repl"], stdin: Self.huge + "\n"), "a REPL line")
    }

    @Test func aServersHugeReason() throws {
        let reason = "no room for " + Self.huge
        let server = try FaultServer { _, _ in
            .respond(
                status: 409, headers: ["Content-Type": "application/json"],
                body: #"{"error": true, "code": "nothingToUndo", "reason": "\#(reason)"}"#)
        }
        defer { server.stop() }
        let sandbox = try Sandbox()
        let run = try sandbox.resv(["undo"], server: server)
        expectShort(run, "a server's reason", status: 1)
    }
}

/// A config value that cannot be a path, and a config that is not a file (4ed91f8).
@Suite("Configs that cannot be", .ownThreads, .timeLimit(.minutes(30)))
struct StrangeConfigTests {
    @Test(arguments: [
        (#"{"store": "a\u0000b"}"#, #"store='a\0b' is invalid: expected a path without a NUL character"#),
        (#"{"store": ""}"#, "store='' is invalid: expected a non-empty value"),
        (
            #"{"profile": "w", "profiles": {"w": {"store": "x\u0000"}}}"#,
            #"profile 'w': store='x\0' is invalid: expected a path without a NUL character"#
        ),
    ])
    func aStoreThatCannotBeAPathIsRefusedNamingTheKey(config: String, message: String) throws {
        let sandbox = try Sandbox()
        let path = sandbox.directory.appendingPathComponent("config.json").path
        try Data(config.utf8).write(to: URL(fileURLWithPath: path))
        let run = try sandbox.resv(["--config", path, "list"], environment: ["RESV_STORE": ""])
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr == "resv: the config file \(path) is invalid: \(message)\n")
        let names = try FileManager.default.contentsOfDirectory(atPath: sandbox.directory.path)
        #expect(names == ["config.json"], "nothing is made in its place")
    }

    @Test func aConfigThatIsNoFileSaysWhatItIs() throws {
        let sandbox = try Sandbox()
        let folder = sandbox.directory.path
        #expect(mkfifo(folder + "/fifo.json", 0o600) == 0)
        #expect(symlink(folder + "/nowhere.json", folder + "/dangling.json") == 0)
        #expect(symlink(folder + "/loop-b", folder + "/loop-a") == 0)
        #expect(symlink(folder + "/loop-a", folder + "/loop-b") == 0)
        for (name, why) in [
            ("fifo.json", "it is a FIFO (named pipe), not a config file"),
            ("/dev/zero", "it is a character device, not a config file"),
            ("dangling.json", "it is a symbolic link to nothing (No such file or directory)"),
            ("loop-a", "its symbolic links loop"),
        ] {
            let path = name.hasPrefix("/") ? name : folder + "/" + name
            let run = try sandbox.resv(["--config", path, "list"])
            #expect(run.status == 64, "\(name): \(run.stderr)")
            #expect(run.stderr == "resv: the config file \(path) is invalid: \(why)\n")
        }
    }
}
