import Foundation
import ResvTestKit
import Testing

/// Profiles (`--profile`, RESV_PROFILE, `resv config use`) and options before the subcommand,
/// in this process over JSON file stores (a profile chooses a store or a server).
@Suite("Profiles and options anywhere", .timeLimit(.minutes(30)))
struct ProfileTests {
    typealias Setup = ConfigTests.Setup

    /// A config file with a default store at the top level and two profiles.
    static func write(_ setup: Setup, chosen: String? = nil) throws -> (home: String, work: String, top: String) {
        let folder = setup.sandbox.directory.path
        let (top, home, work) = ("\(folder)/top.json", "\(folder)/home.json", "\(folder)/work.json")
        let choice = chosen.map { #""profile": "\#($0)", "# } ?? ""
        try setup.write(
            #"{\#(choice)"store": "\#(top)", "requestTimeout": "9", "profiles": {"home": {"store": "\#(home)"}, "work": {"store": "\#(work)", "connectTimeout": "3"}}}"#
        )
        return (home, work, top)
    }

    @Test func precedenceOfProfilesAndSettings() async throws {
        let setup = try Setup()
        let (home, work, top) = try Self.write(setup, chosen: "home")
        // (flag, RESV_PROFILE, expected profile and its source, expected store and its origin)
        let cases: [([String], [String: String], (String, String), (String, String))] = [
            ([], [:], ("home", "config file"), (home, "config file")),
            (["--profile", "work"], [:], ("work", "flag"), (work, "config file")),
            ([], ["RESV_PROFILE": "work"], ("work", "environment"), (work, "config file")),
            (["--profile", "home"], ["RESV_PROFILE": "work"], ("home", "flag"), (home, "config file")),
            (["--profile", "default"], [:], ("default", "flag"), (top, "config file")),
            ([], ["RESV_PROFILE": "default"], ("default", "environment"), (top, "config file")),
            (["--profile", "work"], ["RESV_STORE": "/env.json"], ("work", "flag"), ("/env.json", "environment")),
        ]
        for (flags, environment, profile, store) in cases {
            let run = await setup.resv(["config", "list", "--json"] + flags, environment: environment)
            #expect(run.status == 0, "\(flags) \(environment): \(run.stderr)")
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: [String: String]])
            #expect(json["profile"]?["value"] == profile.0, "\(flags) \(environment)")
            #expect(json["profile"]?["source"] == profile.1, "\(flags) \(environment)")
            #expect(json["store"]?["value"] == store.0, "\(flags) \(environment)")
            #expect(json["store"]?["source"] == store.1, "\(flags) \(environment)")
            // A profile's value says which profile; the top level's and the others' do not.
            let fromProfile = store.1 == "config file" && profile.0 != "default"
            #expect(json["store"]?["profile"] == (fromProfile ? profile.0 : nil), "\(flags) \(environment)")
            // A setting the profile lacks comes from the top level, else its default.
            #expect(json["requestTimeout"]?["value"] == "9")
            #expect(json["requestTimeout"]?["profile"] == nil)
            #expect(json["connectTimeout"]?["value"] == (profile.0 == "work" ? "3" : "5"), "\(flags) \(environment)")
        }

        // The text form names the profile beside each value from it.
        let text = await setup.resv("config", "list", "--profile", "work")
        #expect(text.stdout.contains("profile         work  (flag)"), "\(text.stdout)")
        #expect(text.stdout.contains("store           \(work)  (config file, profile work)"), "\(text.stdout)")
        #expect(text.stderr.contains("(profile work)"))

        // Each profile has its own store: a reservation made in one is not in the other.
        let made = await setup.resv(
            "--profile", "work", "reserve", "-l", "half dome", "-d", "2030-01-01T10:00:00Z", "-n", "2")
        #expect(made.status == 0, "\(made.stderr)")
        #expect(FileManager.default.fileExists(atPath: work))
        #expect(!FileManager.default.fileExists(atPath: home))
        #expect(await setup.resv("list", "--json", "--profile", "work").stdout != "[]\n")
        #expect(await setup.resv("list", "--json").stdout == "[]\n")
    }

    @Test func configUseSetAndUnsetWorkOnProfiles() async throws {
        let setup = try Setup()
        var run = await setup.resv("config", "set", "server", "http://work.example:8080", "--profile", "work")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("(profile work)"))
        run = await setup.resv("config", "set", "token", "--profile", "work", stdin: "work-secret\n")
        #expect(run.status == 0, "\(run.stderr)")
        run = await setup.resv("config", "set", "token", stdin: "top-secret\n")
        #expect(run.status == 0, "\(run.stderr)")
        run = await setup.resv("config", "use", "work")
        #expect(run.status == 0, "\(run.stderr)")
        let file = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: setup.configFile)) as? [String: Any])
        #expect(file["profile"] as? String == "work")
        #expect(file["token"] as? String == "top-secret")
        let profiles = try #require(file["profiles"] as? [String: [String: String]])
        #expect(profiles["work"] == ["server": "http://work.example:8080", "token": "work-secret"])
        let mode = try FileManager.default.attributesOfItem(atPath: setup.configFile.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        // The token is never printed, from a profile or not.
        let listed = await setup.resv("config", "list")
        #expect(!listed.stdout.contains("secret") && !listed.stderr.contains("secret"))
        #expect(listed.stdout.contains("token           ****  (config file, profile work)"), "\(listed.stdout)")

        // set and unset act on the profile in use.
        run = await setup.resv("config", "set", "requestTimeout", "4")
        #expect(run.stderr.contains("(profile work)"))
        run = await setup.resv("config", "get", "requestTimeout")
        #expect(run.stdout == "4\n")
        run = await setup.resv("config", "get", "requestTimeout", "--profile", "default")
        #expect(run.stdout == "30\n")
        run = await setup.resv("config", "unset", "requestTimeout")
        #expect(run.status == 0 && run.stderr.contains("unset requestTimeout"), "\(run.stderr)")

        // A profile's server never gets the top level's token.
        try setup.write(
            #"{"token": "top-secret", "profile": "work", "profiles": {"work": {"server": "http://work.example:1"}}}"#)
        run = await setup.resv("list")
        #expect(run.status == 77, "\(run.stderr)")
        #expect(run.stderr.contains("not logged in to"))

        // A profile's token in a file others can read is refused like a top-level one.
        try setup.write(#"{"profiles": {"work": {"token": "x"}}}"#, mode: 0o644)
        run = await setup.resv("list")
        #expect(run.status == 77, "\(run.stderr)")
        #expect(!run.stderr.contains("x\""))

        // Back to the top level.
        try setup.write(#"{"profile": "work", "profiles": {"work": {"store": "/w.json"}}}"#)
        run = await setup.resv("config", "use", "default")
        #expect(run.status == 0)
        #expect(await setup.resv("config", "get", "store").stdout.hasSuffix("data/resv/reservations.json\n"))
    }

    @Test func unknownOrBadProfilesAreUsageErrors() async throws {
        let setup = try Setup()
        _ = try Self.write(setup)
        let cases: [([String], [String: String], String)] = [
            (
                ["list", "--profile", "play"], [:],
                "no profile 'play' in \(setup.configFile.path): use home, work, default"
            ),
            (["--profile", "play", "list"], [:], "no profile 'play'"),
            (["list"], ["RESV_PROFILE": "play"], "no profile 'play'"),
            (["config", "use", "play"], [:], "no profile 'play'"),
            (["config", "list", "--profile", "play"], [:], "no profile 'play'"),
            (["config", "unset", "store", "--profile", "play"], [:], "no profile 'play'"),
            (["list", "--profile", "a b"], [:], "profile='a b' is invalid"),
            (["config", "set", "store", "x", "--profile", "../x"], [:], "profile='../x' is invalid"),
            (["list", "--profile"], [:], "--profile"),
        ]
        for (arguments, environment, message) in cases {
            let run = await setup.resv(arguments, environment: environment)
            run.expectUsageError(containing: message, "\(arguments) \(environment)")
        }
        // A file that chooses a profile it lacks, and malformed profiles.
        for (json, message) in [
            (#"{"profile": "gone"}"#, "no profile 'gone'"),
            (#"{"profiles": {"work": "x"}}"#, "profiles.work must be an object of settings, not a string"),
            (#"{"profiles": {"work": {"store": 3}}}"#, "profiles.work.store must be a string, not a number"),
            (#"{"profiles": []}"#, "profiles must be an object of profiles, not an array"),
            (#"{"profile": true}"#, "profile must be a string, not a boolean"),
        ] {
            try setup.write(json)
            let run = await setup.resv("list")
            #expect(run.status == 64, "\(json): \(run.stderr)")
            #expect(run.stderrLines.count == 1, "\(json): \(run.stderr)")
            #expect(run.stderr.contains(message), "\(json): \(run.stderr)")
        }
        // An unknown key inside a profile is warned about, and the command runs.
        try setup.write(#"{"profiles": {"work": {"sever": "http://x"}}}"#)
        let warned = await setup.resv("list", "--profile", "work")
        #expect(warned.status == 0)
        #expect(warned.stderr.contains("has a key 'profiles.work.sever' that is no setting"), "\(warned.stderr)")
    }

    @Test func optionsBeforeTheSubcommand() async throws {
        let setup = try Setup(seed: Fixture.store)
        let (_, work, _) = try Self.write(setup)
        try Data(Fixture.store.utf8).write(to: URL(fileURLWithPath: work))
        let store = setup.sandbox.store.path
        let listed = await setup.resv("list", "--store", store, "--format", "ndjson").stdout
        #expect(listed.split(separator: "\n").count == 2)
        // Each of these is the same as `list --store STORE --format ndjson` (or the profile work, which holds the same).
        let cases: [[String]] = [
            ["--store", store, "list", "--format", "ndjson"],
            ["--store=\(store)", "--format", "ndjson", "list"],
            ["--format=ndjson", "--store", store, "list"],
            ["--profile", "work", "list", "--format", "ndjson"],
            ["--profile", "work", "--format", "ndjson"],
            ["--config", setup.configFile.path, "--profile", "work", "--format", "ndjson", "list"],
            ["--format", "ndjson", "--store", store],
        ]
        for arguments in cases {
            let run = await setup.resv(arguments)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            #expect(run.stdout == listed, "\(arguments)")
        }
        // Flags, and a value that is a subcommand's name.
        var run = await setup.resv("--json", "--store", store, "show", "abcd1111")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains(#""id" : "\#(Fixture.first)""#), "\(run.stdout)")
        let named = setup.sandbox.directory.appendingPathComponent("list")
        try Data(Fixture.store.utf8).write(to: named)
        run = await setup.resv(["--store", "list", "list", "--format", "ndjson"])
        // Relative to the working directory of the test runner: not there, so an empty store.
        #expect(run.status == 0, "\(run.stderr)")
        run = await setup.resv(["--store", named.path, "list", "--format", "ndjson"])
        #expect(run.stdout == listed)
        // Nested subcommands, and a positional argument after the moved options.
        run = await setup.resv("--profile", "work", "config", "get", "store")
        #expect(run.stdout == work + "\n", "\(run.stderr)")
        run = await setup.resv("--store", store, "cancel", "abcd1111", "--json")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains(#""status" : "cancelled""#))
        // Help and version still work with options first.
        run = await setup.resv("--store", store, "help", "list")
        #expect(run.status == 0)
        #expect(run.stdout.contains("--sort"))
        run = await setup.resv("--help")
        #expect(run.status == 0 && run.stdout.contains("before the subcommand"), "\(run.stdout)")
        // What a subcommand does not take is refused in one line, naming it.
        let refused: [([String], String)] = [
            (["--json", "repl"], "unknown option '--json'"),
            (["--bogus", "list"], "--bogus"),
            (["--store"], "--store"),
            (["--format", "csv", "config", "list"], "--format"),
        ]
        for (arguments, message) in refused {
            let run = await setup.resv(arguments)
            run.expectUsageError(containing: message, "\(arguments)")
        }
    }

    @Test func optionsBeforeTheSubcommandInTheREPL() async throws {
        let setup = try Setup(seed: Fixture.store)
        let run = await setup.resv(
            ["repl"], environment: ["RESV_STORE": setup.sandbox.store.path],
            stdin: "--format ndjson list --sort party-size\n--json --store \(setup.sandbox.store.path) show abcd2222\n")
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.first?.contains(Fixture.second) == true, "\(run.stdout)")
        #expect(run.stdout.contains(#""id" : "\#(Fixture.second)""#), "\(run.stdout)")
    }
}
