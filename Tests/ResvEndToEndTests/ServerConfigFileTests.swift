import Foundation
import ResvTestKit
import Testing

/// `resv-server --config FILE` and `RESV_SERVER_<KEY>`, run as the built binary: each key
/// from the file, from the environment over the file, from a flag over both (read back from
/// the settings line the server logs at debug level when it starts), and each bad input
/// refused with one line naming the file (or variable) and the key, exit 78, nothing started.
@Suite("resv-server's configuration file", .ownThreads, .timeLimit(.minutes(30)))
struct ServerConfigFileTests {
    /// A folder of the test's own: the files a configuration names.
    final class Folder {
        let sandbox: Sandbox
        var directory: URL { sandbox.directory }

        init() throws { sandbox = try Sandbox() }

        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

        /// Writes `text` to `name`; returns its path.
        @discardableResult
        func write(_ name: String, _ text: String) throws -> String {
            try Data(text.utf8).write(to: directory.appendingPathComponent(name))
            return path(name)
        }

        /// A folder `name` with `mode`; returns its path.
        func folder(_ name: String, mode: mode_t = 0o700) throws -> String {
            try FileManager.default.createDirectory(atPath: path(name), withIntermediateDirectories: true)
            chmod(path(name), mode)
            return path(name)
        }

        /// A landmarks file the server accepts.
        func catalog(_ name: String) throws -> String {
            try write(name, CapacityEndToEndTests.catalog())
        }
    }

    /// One value of every key but the TLS pair, as a file holds them, and each as the
    /// settings line shows it.
    struct Values {
        var json: [String: Any]
        var shown: [String: String]

        static func make(_ folder: Folder, tag: String, port: Int) throws -> Values {
            let database = folder.path("\(tag).sqlite")
            let landmarks = try folder.catalog("\(tag)-landmarks.json")
            let state = try folder.folder("\(tag)-state")
            // Different for each tag used below.
            let index = ["file": 1, "environment": 2, "flags-win": 3][tag] ?? 4
            let number = Double(index)
            let json: [String: Any] = [
                "database": database, "host": "127.0.0.1", "port": port, "log-level": "debug",
                "landmarks": landmarks, "request-timeout": 10 + number, "idle-timeout": 60 + number,
                "rate-limit": 100 + number, "max-holds-per-user": 7 + index, "no-metrics": true,
                "state-directory": state, "token-recheck": number / 10,
            ]
            let shown: [String: String] = [
                "database": database, "host": "127.0.0.1", "port": String(port), "log-level": "debug",
                "landmarks": landmarks, "request-timeout": String(10 + number), "idle-timeout": String(60 + number),
                "rate-limit": String(100 + number), "max-holds-per-user": String(7 + index),
                "no-metrics": "true", "state-directory": state, "token-recheck": String(number / 10),
            ]
            return Values(json: json, shown: shown)
        }

        /// The values as environment variables.
        var environment: [String: String] {
            Dictionary(
                uniqueKeysWithValues: json.map { key, value in
                    ("RESV_SERVER_" + key.uppercased().replacingOccurrences(of: "-", with: "_"), "\(value)")
                })
        }

        /// The values as flags (`--no-metrics` alone).
        var flags: [String] {
            json.keys.sorted().flatMap { key -> [String] in
                key == "no-metrics" ? ["--no-metrics"] : ["--\(key)", "\(json[key] ?? "")"]
            }
        }

        var fileText: String {
            String(decoding: try! JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]), as: UTF8.self)
        }
    }

    /// Starts `resv-server ARGUMENTS` with `environment`; returns the log up to the
    /// listening line (or all of it, with the status, when the server ended first).
    func serve(_ arguments: [String], environment: [String: String]) throws -> (status: Int32?, log: String) {
        let folder = try TemporaryDirectory("config")
        defer { withExtendedLifetime(folder) {} }
        let log = URL(fileURLWithPath: try folder.file("server.log", ""))
        let descriptor = open(log.path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        defer { close(descriptor) }
        let process = try ChildProcess(
            Binary.server.path, arguments, environment: environment, stdin: .null, stdout: .null,
            stderr: .descriptor(descriptor))
        while true {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if text.contains("listening on") {
                process.signal(SIGTERM)
                _ = process.wait()
                return (nil, text)
            }
            if process.hasExited {
                let status = process.wait().status
                return (status, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// The `settings:` line's values by key.
    func settings(_ log: String) throws -> [String: String] {
        let line = try #require(log.split(separator: "\n").first { $0.contains("settings: ") }, "\(log)")
        let text = line[line.range(of: "settings: ")!.upperBound...]
        var values: [String: String] = [:]
        for pair in text.split(separator: " ") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            values[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        return values
    }

    /// Every key in `expected` shows its value.
    func expectSettings(_ log: String, _ expected: [String: String], _ comment: String) throws {
        let found = try settings(log)
        for (key, value) in expected.sorted(by: { $0.key < $1.key }) {
            #expect(found[key] == value, "\(comment): \(key)")
        }
    }

    @Test func everyKeyOfTheFileReachesItsOption() throws {
        let folder = try Folder()
        let port = try Loopback.freePort()
        let values = try Values.make(folder, tag: "file", port: port)
        let config = try folder.write("config.json", values.fileText)
        let run = try serve(["serve", "--config", config], environment: [:])
        #expect(run.status == nil, "\(run.log)")
        #expect(run.log.contains("listening on http://127.0.0.1:\(port)"), "\(run.log)")
        try expectSettings(run.log, values.shown, "from the file")
        // Every key is in the line (none forgotten by the reader or the line).
        #expect(Set(try settings(run.log).keys).isSuperset(of: values.json.keys))
    }

    @Test func theEnvironmentWinsOverTheFile() throws {
        let folder = try Folder()
        let ports = try Loopback.freePorts(2)
        let file = try Values.make(folder, tag: "file", port: ports[0])
        let environment = try Values.make(folder, tag: "environment", port: ports[1])
        var fileJSON = file.json
        fileJSON["log-level"] = "trace"
        fileJSON["no-metrics"] = false
        let config = try folder.write(
            "config.json",
            String(decoding: try JSONSerialization.data(withJSONObject: fileJSON), as: UTF8.self))
        let run = try serve(["serve", "--config", config], environment: environment.environment)
        #expect(run.status == nil, "\(run.log)")
        try expectSettings(run.log, environment.shown, "the environment over the file")
        // RESV_SERVER_CONFIG names the file as --config does.
        let named = try serve(
            ["serve"], environment: ["RESV_SERVER_CONFIG": config, "RESV_SERVER_LOG_LEVEL": "debug"])
        #expect(named.status == nil, "\(named.log)")
        try expectSettings(
            named.log, file.shown.filter { !["log-level", "no-metrics"].contains($0.key) }, "RESV_SERVER_CONFIG")
    }

    @Test func aFlagWinsOverTheEnvironmentAndTheFile() throws {
        let folder = try Folder()
        let ports = try Loopback.freePorts(3)
        let file = try Values.make(folder, tag: "file", port: ports[0])
        let environment = try Values.make(folder, tag: "environment", port: ports[1])
        let flags = try Values.make(folder, tag: "flags-win", port: ports[2])
        var environmentVariables = environment.environment
        environmentVariables["RESV_SERVER_LOG_LEVEL"] = "trace"
        let config = try folder.write("config.json", file.fileText)
        let run = try serve(["serve", "--config", config] + flags.flags, environment: environmentVariables)
        #expect(run.status == nil, "\(run.log)")
        try expectSettings(run.log, flags.shown, "a flag over the environment and the file")
    }

    @Test func theTLSPairFromTheFileTheEnvironmentAndAFlag() throws {
        let folder = try Folder()
        let config = try folder.write(
            "config.json",
            #"{"database": "\#(folder.path("db.sqlite"))", "tls-cert": "/nonexistent/file-cert.pem", "#
                + #""tls-key": "/nonexistent/file-key.pem"}"#)
        let cases: [([String], [String: String], String)] = [
            ([], [:], "/nonexistent/file-cert.pem"),
            ([], ["RESV_SERVER_TLS_CERT": "/nonexistent/environment-cert.pem"], "/nonexistent/environment-cert.pem"),
            (
                ["--tls-cert", "/nonexistent/flag-cert.pem"],
                ["RESV_SERVER_TLS_CERT": "/nonexistent/environment-cert.pem"], "/nonexistent/flag-cert.pem"
            ),
        ]
        for (flags, environment, named) in cases {
            let run = try runProcess(
                Binary.server.path, ["serve", "--config", config] + flags, environment: environment, stdin: nil)
            #expect(run.status == 66, "\(named): \(run.stderr)")
            #expect(run.stderr.contains(named), "\(run.stderr)")
            #expect(run.stderrLines.count == 1, "\(run.stderr)")
        }
    }

    @Test func theTokenCommandsReadTheDatabaseOnly() throws {
        let folder = try Folder()
        let fromFile = folder.path("file.sqlite")
        let fromEnvironment = folder.path("environment.sqlite")
        // The serve keys are known (not refused) but do not apply to token commands.
        let config = try folder.write(
            "config.json", #"{"database": "\#(fromFile)", "port": 8443, "log-level": "debug"}"#)
        let created = try runProcess(
            Binary.server.path, ["token", "create", "ada", "--config", config], environment: [:], stdin: nil)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(FileManager.default.fileExists(atPath: fromFile))
        let listed = try runProcess(
            Binary.server.path, ["token", "list", "--config", config], environment: [:], stdin: nil)
        #expect(listed.stdout.contains("ada"), "\(listed.stderr)")
        let other = try runProcess(
            Binary.server.path, ["token", "create", "grace", "--config", config],
            environment: ["RESV_SERVER_DATABASE": fromEnvironment], stdin: nil)
        #expect(other.status == 0, "\(other.stderr)")
        #expect(FileManager.default.fileExists(atPath: fromEnvironment))
        let revoked = try runProcess(
            Binary.server.path, ["token", "revoke", "ada", "--config", config, "--database", fromEnvironment],
            environment: ["RESV_SERVER_DATABASE": fromFile], stdin: nil)
        #expect(revoked.status == 1, "ada has no token in the flag's database: \(revoked.stderr)")
    }

    /// A bad file: (file text, the key or words the line names).
    static let badFiles: [(String, String)] = [
        (#"{"port": 8080"#, "not JSON"),
        (#"port = 8080"#, "not JSON"),
        (#"[{"port": 8080}]"#, "not a JSON object"),
        (#"{"prot": 8080}"#, #"unknown key "prot""#),
        (#"{"database": "db.sqlite", "Port": 8080}"#, #"unknown key "Port""#),
        (#"{"port": "8080"}"#, "port must be a whole number, not a string"),
        (#"{"port": 80.5}"#, "port must be a whole number, not a number"),
        (#"{"port": 0}"#, "port must be a port from 1 to 65535, not 0"),
        (#"{"port": 65536}"#, "port must be a port from 1 to 65535, not 65536"),
        (#"{"port": -1}"#, "port must be a port from 1 to 65535, not -1"),
        (#"{"host": 127}"#, "host must be a string, not a number"),
        (#"{"host": ""}"#, "host must not be empty"),
        (#"{"database": 7}"#, "database must be a string, not a number"),
        (
            #"{"database": "postgres://db.example.com/resv"}"#,
            "database: 'postgres://db.example.com/resv' is not a usable database URL: the user name is missing"
        ),
        (
            #"{"database": "mysql://resv@db.example.com/resv"}"#,
            "database: 'mysql://resv@db.example.com/resv' is not a usable database URL: mysql:// is not"
        ),
        (#"{"log-level": "loud"}"#, "log-level must be one of trace, debug"),
        (#"{"log-level": 3}"#, "log-level must be a string, not a number"),
        (#"{"landmarks": ["a.json"]}"#, "landmarks must be a string, not an array"),
        (#"{"request-timeout": "10"}"#, "request-timeout must be a number, not a string"),
        (#"{"request-timeout": 0}"#, "request-timeout must be a number above 0 to 86400, not 0"),
        (#"{"idle-timeout": 100000}"#, "idle-timeout must be a number above 0 to 86400, not 100000"),
        (#"{"rate-limit": null}"#, "rate-limit must be a number, not null"),
        (#"{"max-holds-per-user": true}"#, "max-holds-per-user must be a whole number, not a boolean"),
        (#"{"max-holds-per-user": -1}"#, "max-holds-per-user must be from 0 to 1000000, not -1"),
        (#"{"no-metrics": "yes"}"#, "no-metrics must be true or false, not a string"),
        (#"{"tls-cert": {}}"#, "tls-cert must be a string, not an object"),
        (#"{"tls-key": false}"#, "tls-key must be a string, not a boolean"),
        (#"{"state-directory": 1}"#, "state-directory must be a string, not a number"),
        (#"{"token-recheck": 2}"#, "token-recheck must be a number from 0 to 1, not 2"),
    ]

    @Test(arguments: badFiles)
    func aBadFileIsOneLineNamingItAndItsKey(text: String, named: String) throws {
        let folder = try Folder()
        let config = try folder.write("config.json", text)
        let database = folder.path("db.sqlite")
        for arguments in [["serve", "--database", database], ["token", "create", "ada", "--database", database]] {
            let run = try runProcess(
                Binary.server.path, arguments + ["--config", config], environment: [:], stdin: nil)
            #expect(run.status == 78, "\(text): \(run.stderr)")
            #expect(run.stderrLines == [run.stderrLines.first ?? ""], "one line: \(run.stderr)")
            #expect(run.stderr.hasPrefix("resv-server: \(config): "), "names the file: \(run.stderr)")
            #expect(run.stderr.contains(named), "\(text): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: database), "nothing started: \(text)")
        }
    }

    /// A bad environment variable: (variable, value, the words the line names).
    static let badVariables: [(String, String, String)] = [
        ("RESV_SERVER_PORT", "http", "port must be a whole number, not 'http'"),
        ("RESV_SERVER_PORT", "70000", "port must be a port from 1 to 65535, not 70000"),
        ("RESV_SERVER_NO_METRICS", "maybe", "no-metrics must be true or false, not 'maybe'"),
        ("RESV_SERVER_IDLE_TIMEOUT", "soon", "idle-timeout must be a number, not 'soon'"),
        ("RESV_SERVER_LOG_LEVEL", "loud", "log-level must be one of"),
        (
            "RESV_SERVER_DATABASE", "postgres://db.example.com/resv",
            "database: 'postgres://db.example.com/resv' is not a usable database URL"
        ),
    ]

    @Test(arguments: badVariables)
    func aBadVariableIsOneLineNamingIt(variable: String, value: String, named: String) throws {
        let run = try runProcess(
            Binary.server.path, ["serve", "--config", ""], environment: [variable: value],
            stdin: nil)
        #expect(run.status == 78, "\(variable)=\(value): \(run.stderr)")
        #expect(run.stderrLines.count == 1, "\(run.stderr)")
        #expect(run.stderr.contains("the environment's \(variable): \(named)"), "\(run.stderr)")
    }

    @Test func aConfigFileNamedThatIsMissingIsSaid() throws {
        let folder = try Folder()
        let missing = folder.path("absent.json")
        let run = try runProcess(
            Binary.server.path, ["serve", "--config", missing, "--database", folder.path("db.sqlite")],
            environment: [:], stdin: nil)
        #expect(run.status == 66, "\(run.stderr)")
        #expect(run.stderr == "resv-server: the configuration file \(missing) does not exist\n")
    }

    @Test func theStateDirectoryMustBeTheServersOwn() throws {
        let folder = try Folder()
        let database = folder.path("db.sqlite")
        let open = try folder.folder("group-writable", mode: 0o770)
        let file = try folder.write("a-file", "")
        for (directory, words) in [
            (folder.path("absent"), "does not exist"),
            (open, "may be written by its group or others (chmod go-w, or 0700)"),
            (file, "is not a folder"),
        ] {
            let run = try runProcess(
                Binary.server.path, ["serve", "--database", database, "--port", "0", "--state-directory", directory],
                environment: [:], stdin: nil)
            #expect(run.status == 73, "\(directory): \(run.stderr)")
            #expect(
                run.stderr == "resv-server: the state directory \(directory) \(words); nothing was started\n",
                "\(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: database))
        }
    }

    @Test(.enabled(if: Requirement.root.isMet, "needs root, to give the state directory to another user"))
    func aStateDirectoryOfAnotherUserIsRefused() throws {
        let folder = try Folder()
        let state = try folder.folder("state")
        #expect(chown(state, 65534, 65534) == 0)
        let config = try folder.write(
            "config.json", #"{"database": "\#(folder.path("db.sqlite"))", "state-directory": "\#(state)"}"#)
        let run = try runProcess(Binary.server.path, ["serve", "--config", config], environment: [:], stdin: nil)
        #expect(run.status == 73, "\(run.stderr)")
        #expect(run.stderrLines.count == 1, "\(run.stderr)")
        #expect(run.stderr.contains("the state directory \(state) belongs to"), "\(run.stderr)")
        #expect(run.stderr.contains("(uid 65534), not"), "\(run.stderr)")
    }

    /// The servers the suites start never read this machine's default file (an installed
    /// package's /etc/resv-server/config.json): the process helper names an empty one for
    /// `resv-server` unless the test names its own, and leaves other programs' alone.
    @Test func theSuitesServersReadNoFileTheyWereNotGiven() {
        let bare = ["HOME": "/tmp"]
        #expect(ChildProcess.hermetic(bare, for: Binary.server.path)["RESV_SERVER_CONFIG"] == "")
        #expect(ChildProcess.hermetic(bare, for: "resv-server")["RESV_SERVER_CONFIG"] == "")
        let named = ["RESV_SERVER_CONFIG": "/tmp/mine.json"]
        #expect(ChildProcess.hermetic(named, for: Binary.server.path) == named)
        #expect(ChildProcess.hermetic(bare, for: Binary.resv.path) == bare)
    }
}
