import Foundation
import ResvTestKit
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Settings: flag > environment > config file > default, and `resv config`.
@Suite("Configuration", .timeLimit(.minutes(30)))
struct ConfigTests {
    /// A sandbox whose config file is `config/resv/config.json`, without RESV_STORE.
    struct Setup {
        let sandbox: Sandbox
        var configFile: URL { sandbox.directory.appendingPathComponent("config/resv/config.json") }

        /// `seed`: the JSON file store's text, as for `Sandbox`.
        init(seed: String? = nil) throws { sandbox = try Sandbox(seed: seed) }

        func write(_ json: String, mode: Int = 0o600) throws {
            try FileManager.default.createDirectory(
                at: configFile.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(json.utf8).write(to: configFile)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: configFile.path)
        }

        @discardableResult
        func resv(_ arguments: String..., environment: [String: String] = [:], stdin: String? = nil) async -> Run {
            await resv(arguments, environment: environment, stdin: stdin)
        }

        func resv(_ arguments: [String], environment: [String: String] = [:], stdin: String? = nil) async -> Run {
            var env = Fixture.homeEnvironment(in: sandbox.directory)
            env.merge(environment) { _, new in new }
            return await sandbox.resv(arguments, environment: env, stdin: stdin)
        }

        /// `config list --json` as key → (value, source).
        func listed(environment: [String: String] = [:]) async throws -> [String: (String, String)] {
            let run = await resv("config", "list", "--json", environment: environment)
            #expect(run.status == 0, "\(run.stderr)")
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: [String: String]])
            return json.mapValues { ($0["value"] ?? "", $0["source"] ?? "") }
        }
    }

    /// Issue 60: with a server in use, the store's line says it is not, rather than "(default)" alone.
    @Test func aStoreBesideAServerInUseIsSaidToBeIdle() async throws {
        let setup = try Setup()
        let alone = await setup.resv("config", "list")
        let storeLine = alone.stdout.split(separator: "\n").first { $0.hasPrefix("store ") }
        #expect(storeLine?.hasSuffix("(default)") == true, "\(alone.stdout)")
        let served = await setup.resv(["config", "list"], environment: ["RESV_SERVER": "http://127.0.0.1:1"])
        let idle = served.stdout.split(separator: "\n").first { $0.hasPrefix("store ") }
        #expect(idle?.hasSuffix("(default; not in use)") == true, "\(served.stdout)")
        #expect(served.stderr.contains("using the server http://127.0.0.1:1"), "\(served.stderr)")
    }

    @Test func eachLayerOverridesTheOneBelow() async throws {
        let setup = try Setup()
        let data = setup.sandbox.directory.appendingPathComponent("data/resv/reservations.json").path
        #expect(try await setup.listed()["store"]! == (data, "default"))
        #expect(try await setup.listed()["server"] == nil)

        try setup.write(#"{"store": "/from/file.json", "server": "http://file.example:1", "requestTimeout": "12"}"#)
        var listed = try await setup.listed()
        #expect(listed["store"]! == ("/from/file.json", "config file"))
        #expect(listed["server"]! == ("http://file.example:1", "config file"))
        #expect(listed["requestTimeout"]! == ("12", "config file"))
        #expect(listed["connectTimeout"]! == ("5", "default"))

        listed = try await setup.listed(environment: ["RESV_STORE": "/from/env.json", "RESV_REQUEST_TIMEOUT": "7"])
        #expect(listed["store"]! == ("/from/env.json", "environment"))
        #expect(listed["requestTimeout"]! == ("7", "environment"))
        #expect(listed["server"]! == ("http://file.example:1", "config file"))

        // The backend is the one named at the highest layer: RESV_STORE beats the file's server.
        let local = await setup.resv("list", environment: ["RESV_STORE": setup.sandbox.store.path])
        #expect(local.status == 0, "\(local.stderr)")
        // A --store flag beats RESV_SERVER.
        let flagged = await setup.resv(
            "list", "--store", setup.sandbox.store.path, environment: ["RESV_SERVER": "http://127.0.0.1:1"])
        #expect(flagged.status == 0, "\(flagged.stderr)")
        // --config names another file.
        let other = try setup.sandbox.file("other.json", #"{"store": "/from/other.json"}"#)
        let named = await setup.resv("config", "get", "store", "--config", other)
        #expect(named.stdout == "/from/other.json\n")
        let byEnvironment = await setup.resv("config", "get", "store", environment: ["RESV_CONFIG": other])
        #expect(byEnvironment.stdout == "/from/other.json\n")
    }

    @Test func aTokenInAFileOthersCanReadIsRefused() async throws {
        let setup = try Setup()
        try setup.write(#"{"server": "http://127.0.0.1:1", "token": "resv_secret"}"#, mode: 0o644)
        let run = await setup.resv("list")
        #expect(run.status == 77)
        #expect(run.stderr.contains("chmod 600 \(setup.configFile.path)"), "\(run.stderr)")
        #expect(!run.stderr.contains("resv_secret"))
        // Without a token, the same permissions are fine.
        try setup.write(#"{"store": "\#(setup.sandbox.store.path)"}"#, mode: 0o644)
        #expect(await setup.resv("list").status == 0)
    }

    @Test func setGetUnsetAndPath() async throws {
        let setup = try Setup()
        #expect(await setup.resv("config", "path").stdout == setup.configFile.path + "\n")
        #expect(await setup.resv("config", "set", "server", "http://127.0.0.1:8080").status == 0)
        #expect(await setup.resv("config", "get", "server").stdout == "http://127.0.0.1:8080\n")
        let mode = try FileManager.default.attributesOfItem(atPath: setup.configFile.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let token = await setup.resv("config", "set", "token", stdin: "resv_typed\n")
        #expect(token.status == 0, "\(token.stderr)")
        #expect(try String(contentsOf: setup.configFile, encoding: .utf8).contains("resv_typed"))
        #expect(await setup.resv("config", "get", "token").stdout == "****\n")
        let list = await setup.resv("config", "list")
        #expect(!list.stdout.contains("resv_typed"))
        #expect(list.stdout.contains("****"))

        let onArgv = await setup.resv("config", "set", "token", "resv_visible")
        #expect(onArgv.status == 64)
        #expect(onArgv.stderr.contains("ps"))
        #expect(await setup.resv("config", "set", "server", "ftp://x").status == 64)
        #expect(await setup.resv("config", "set", "requestTimeout", "-1").status == 64)
        #expect(await setup.resv("config", "set", "colour", "red").status == 64)

        #expect(await setup.resv("config", "unset", "server").status == 0)
        let unset = await setup.resv("config", "get", "server")
        #expect(unset.status == 1)
        #expect(unset.stderr.contains("server is not set"))
    }

    @Test(arguments: ["", "\n", "  \r\n"])
    func aTokenFromEmptyInputIsRefused(_ input: String) async throws {
        let setup = try Setup()
        let run = await setup.resv("config", "set", "token", stdin: input)
        #expect(run.status == 64)
        #expect(run.stderr.contains("a token on stdin"), "\(run.stderr)")
        #expect(run.stderrLines.count == 1)
        #expect(!FileManager.default.fileExists(atPath: setup.configFile.path))
    }

    @Test func aServerWithoutATokenSaysTheTokenIsMissing() async throws {
        let setup = try Setup()
        let run = await setup.sandbox.resv(["list"], environment: ["RESV_SERVER": "http://127.0.0.1:1"])
        #expect(run.status == 77)
        #expect(
            run.stderrLines == [
                "resv: not logged in to http://127.0.0.1:1: run 'resv login http://127.0.0.1:1' (an admin makes a token with 'resv-server token create')"
            ])
    }

    @Test(
        arguments: [
            (["list", "--server", "notaurl"], [:], "--server='notaurl' is invalid"),
            (["list"], ["RESV_SERVER": "ftp://x"], "RESV_SERVER='ftp://x' is invalid"),
            (["list", "--server", "http://127.0.0.1:1", "--store", "x.json"], [:], "--store and --server"),
            (["list"], ["RESV_SERVER": "http://127.0.0.1:1", "RESV_REQUEST_TIMEOUT": "soon"], "RESV_REQUEST_TIMEOUT"),
            (["list", "--offline"], [:], "no server is configured"),
        ] as [([String], [String: String], String)])
    func badServerSettingsAreUsageErrors(_ arguments: [String], _ environment: [String: String], _ message: String)
        async throws
    {
        let setup = try Setup()
        let run = await setup.sandbox.resv(arguments, environment: environment)
        #expect(run.status == 64, "\(arguments) \(environment): \(run.stderr)")
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(run.stderrLines.count == 1)
    }

    @Test func aBrokenConfigFileIsOneLine() async throws {
        let setup = try Setup()
        try setup.write("{ not json")
        let run = await setup.resv("list")
        #expect(run.status == 64)
        #expect(run.stderr.contains("the config file \(setup.configFile.path) is invalid"), "\(run.stderr)")
        #expect(run.stderrLines.count == 1)
        try FileManager.default.removeItem(at: setup.configFile)
        try FileManager.default.createDirectory(at: setup.configFile, withIntermediateDirectories: true)
        let folder = await setup.resv("list")
        #expect(folder.status == 64)
        #expect(folder.stderr.contains("it is a folder"), "\(folder.stderr)")
    }

    /// `config set`, `unset`, `use` and `remove` read, change and write the file under its lock:
    /// many at once, each of another key or profile, all keep their change.
    @Test func concurrentSetsOfDifferentKeysAllSurvive() async throws {
        let setup = try Setup()
        let profiles = (1...24).map { "p\($0)" }
        let keys = [("store", "/from/set.json"), ("server", "http://127.0.0.1:9"), ("requestTimeout", "12")]
        let runs = await withTaskGroup(of: Run.self) { group in
            for profile in profiles {
                group.addTask {
                    await setup.resv("config", "set", "server", "http://\(profile).example", "--profile", profile)
                }
            }
            for (key, value) in keys {
                group.addTask { await setup.resv("config", "set", key, value) }
            }
            group.addTask { await setup.resv("config", "set", "token", "--profile", "p1", stdin: "resv_secret\n") }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(runs.allSatisfy { $0.status == 0 }, "\(runs.map(\.stderr))")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: setup.configFile)) as? [String: Any])
        for (key, value) in keys { #expect(json[key] as? String == value, "\(key): \(json)") }
        let written = try #require(json["profiles"] as? [String: [String: String]])
        #expect(Set(written.keys) == Set(profiles))
        for profile in profiles { #expect(written[profile]?["server"] == "http://\(profile).example") }
        #expect(written["p1"]?["token"] == "resv_secret")

        // Unsets and removals at once keep each other's changes too.
        let removals = await withTaskGroup(of: Run.self) { group in
            for profile in profiles.prefix(12) { group.addTask { await setup.resv("config", "remove", profile) } }
            for (key, _) in keys { group.addTask { await setup.resv("config", "unset", key) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(removals.allSatisfy { $0.status == 0 }, "\(removals.map(\.stderr))")
        let after = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: setup.configFile)) as? [String: Any])
        #expect(keys.allSatisfy { after[$0.0] == nil }, "\(after)")
        let left = (after["profiles"] as? [String: Any]).map { Set($0.keys) } ?? []
        #expect(left == Set(profiles.dropFirst(12)))
    }

    /// A config file whose lock another resv holds is not written: exit 75 after the lock wait.
    @Test func aHeldLockIsWaitedForThenRefused() async throws {
        let setup = try Setup()
        try setup.write(#"{"store": "/before.json"}"#)
        // The lock another resv would hold: flock on the file beside it, as `FileLock` takes it.
        let lock = open(setup.configFile.path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        try #require(lock >= 0 && flock(lock, LOCK_EX) == 0)
        let run = await setup.resv("config", "set", "store", "/after.json", environment: ["RESV_LOCK_TIMEOUT": "0.2"])
        close(lock)
        #expect(run.status == 75, "\(run.stderr)")
        #expect(run.stderrLines.count == 1)
        #expect(run.stderr.contains("another resv holds the config file"), "\(run.stderr)")
        #expect(await setup.resv("config", "get", "store").stdout == "/before.json\n")
        #expect(await setup.resv("config", "set", "store", "/after.json").status == 0)
        #expect(await setup.resv("config", "get", "store").stdout == "/after.json\n")
    }
}
