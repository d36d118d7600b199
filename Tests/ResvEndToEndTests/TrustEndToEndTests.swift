import Foundation
import ResvTestKit
import Testing

/// A token goes only to the origin it was kept for (docs/contracts.md, "Trust"): two real
/// listeners, the token's server and another one on another port, and every mix of config
/// file, profile, RESV_TOKEN, RESV_SERVER and --server a user may type. The other listener
/// must never see an Authorization header.
@Suite("Trust: a token goes only to its own server", .ownThreads, .timeLimit(.minutes(30)))
struct TrustEndToEndTests {
    static let token = "resv_home_secret"

    /// The token's server and another, each answering /whoami for the right token and lists.
    final class Servers {
        let home: FaultServer
        let other: FaultServer
        let sandbox: Sandbox

        init() throws {
            let serve: @Sendable (RecordedRequest, Int) -> FaultReply = { request, _ in
                guard request.headers["authorization"] == "Bearer \(TrustEndToEndTests.token)" else {
                    return .respond(
                        status: 401, body: #"{"error": true, "reason": "unauthorized", "code": "unauthorized"}"#)
                }
                if request.path.hasPrefix("/whoami") {
                    return .respond(status: 200, body: #"{"user": "ada", "scope": "write"}"#)
                }
                return .respond(status: 200, body: "[]")
            }
            home = try FaultServer(serve)
            other = try FaultServer(serve)
            sandbox = try Sandbox()
        }

        deinit {
            home.stop()
            other.stop()
        }

        var configFile: URL { sandbox.directory.appendingPathComponent("config/resv/config.json") }

        func write(_ json: String) throws {
            try FileManager.default.createDirectory(
                at: configFile.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(json.utf8).write(to: configFile)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: configFile.path)
        }

        func resv(_ arguments: [String], environment: [String: String] = [:], stdin: String? = nil) throws -> Run {
            var env = Fixture.homeEnvironment(in: sandbox.directory)
            env.merge(environment) { _, new in new }
            return try sandbox.resv(arguments, environment: env, stdin: stdin)
        }

        /// Every Authorization header the other listener was sent.
        var leaked: [String] { other.requests.compactMap { $0.headers["authorization"] } }
    }

    /// One way of naming servers and tokens that must not reach `other`: HOME and OTHER stand
    /// for the servers' URLs, HOMEORIGIN and OTHERORIGIN for their origins, SECRET for the token.
    struct Mix: CustomTestStringConvertible, Sendable {
        let name: String
        /// The config file; nil: none.
        let config: String?
        let environment: [String: String]
        let arguments: [String]
        /// Part of the one-line message resv must print.
        let says: String

        var testDescription: String { name }
    }

    static let mixes: [Mix] = [
        Mix(
            name: "the config's token, --server another", config: #"{"server": "HOME", "token": "SECRET"}"#,
            environment: [:], arguments: ["--server", "OTHER", "list"], says: "not logged in to OTHERORIGIN"),
        Mix(
            name: "a profile's token, --server another",
            config: #"{"profile": "work", "profiles": {"work": {"server": "HOME", "token": "SECRET"}}}"#,
            environment: [:], arguments: ["--server", "OTHER", "list"], says: "not logged in to OTHERORIGIN"),
        Mix(
            name: "a kept login, --server another", config: #"{"servers": {"HOMEORIGIN": {"token": "SECRET"}}}"#,
            environment: [:], arguments: ["--server", "OTHER", "list"], says: "not logged in to OTHERORIGIN"),
        Mix(
            name: "RESV_TOKEN with RESV_SERVER, --server another", config: nil,
            environment: ["RESV_TOKEN": "SECRET", "RESV_SERVER": "HOME"], arguments: ["--server", "OTHER", "list"],
            says: "RESV_TOKEN is sent only to HOMEORIGIN"),
        Mix(
            name: "RESV_TOKEN with the config's server, --server another", config: #"{"server": "HOME"}"#,
            environment: ["RESV_TOKEN": "SECRET"], arguments: ["--server", "OTHER", "list"],
            says: "RESV_TOKEN is sent only to HOMEORIGIN"),
        Mix(
            name: "RESV_TOKEN and no server but --server", config: nil, environment: ["RESV_TOKEN": "SECRET"],
            arguments: ["--server", "OTHER", "list"], says: "RESV_TOKEN is sent only to RESV_SERVER's server"),
        Mix(
            name: "a kept login, RESV_SERVER another", config: #"{"servers": {"HOMEORIGIN": {"token": "SECRET"}}}"#,
            environment: ["RESV_SERVER": "OTHER"], arguments: ["list"], says: "not logged in to OTHERORIGIN"),
        Mix(
            name: "the top level's token, a profile's server another",
            config: #"{"server": "HOME", "token": "SECRET", "profiles": {"work": {"server": "OTHER"}}}"#,
            environment: [:], arguments: ["--profile", "work", "list"], says: "not logged in to OTHERORIGIN"),
        Mix(
            name: "RESV_TOKEN for the config's server, a profile's server another",
            config: #"{"server": "HOME", "profiles": {"work": {"server": "OTHER"}}}"#,
            environment: ["RESV_TOKEN": "SECRET", "RESV_SERVER": "HOME"],
            arguments: ["--profile", "work", "--server", "OTHER", "whoami"],
            says: "not logged in to OTHERORIGIN"),
        Mix(
            name: "a login kept for another port of the same host, the leading --server",
            config: #"{"servers": {"HOMEORIGIN": {"token": "SECRET"}}}"#, environment: [:],
            arguments: [
                "--server", "OTHER", "reserve", "-l", "Golden Gate Bridge", "-d", "2031-06-01T10:00:00Z", "-n", "2",
            ],
            says: "not logged in to OTHERORIGIN"),
    ]

    static func filled(_ text: String, _ servers: Servers) -> String {
        text.replacingOccurrences(of: "HOMEORIGIN", with: "http://127.0.0.1:\(servers.home.port)")
            .replacingOccurrences(of: "OTHERORIGIN", with: "http://127.0.0.1:\(servers.other.port)")
            .replacingOccurrences(of: "HOME", with: servers.home.url)
            .replacingOccurrences(of: "OTHER", with: servers.other.url)
            .replacingOccurrences(of: "SECRET", with: token)
    }

    @Test(arguments: mixes)
    func noMixSendsTheTokenToAnotherServer(mix: Mix) throws {
        let servers = try Servers()
        if let config = mix.config { try servers.write(Self.filled(config, servers)) }
        let run = try servers.resv(
            mix.arguments.map { Self.filled($0, servers) },
            environment: mix.environment.mapValues { Self.filled($0, servers) })
        #expect(servers.leaked.isEmpty, "\(servers.leaked)")
        #expect(run.status == 77, "\(run.stderr)")
        #expect(run.stderrLines.count == 1, "\(run.stderr)")
        #expect(run.stderr.contains(Self.filled(mix.says, servers)), "\(run.stderr)")
        #expect(!run.stderr.contains(Self.token) && !run.stdout.contains(Self.token))
        // The token's own server was not asked either: nothing was sent anywhere.
        #expect(servers.home.requests.isEmpty)
    }

    /// The same configurations send the token to its own server, however its URL is spelled.
    @Test(arguments: [
        (#"{"server": "HOME", "token": "SECRET"}"#, [String: String](), ["list"]),
        (#"{"servers": {"HOMEORIGIN": {"token": "SECRET"}}}"#, [:], ["--server", "HOME/", "list"]),
        (#"{"servers": {"HOMEORIGIN/": {"token": "SECRET"}}}"#, ["RESV_SERVER": "HOME"], ["list"]),
        (#"{"profiles": {"work": {"server": "HOME", "token": "SECRET"}}}"#, [:], ["--profile", "work", "list"]),
        (#"{"server": "OTHER"}"#, ["RESV_TOKEN": "SECRET", "RESV_SERVER": "HOME"], ["list"]),
    ])
    func theTokenGoesToItsOwnServer(config: String, environment: [String: String], arguments: [String]) throws {
        let servers = try Servers()
        try servers.write(Self.filled(config, servers))
        let run = try servers.resv(
            arguments.map { Self.filled($0, servers) }, environment: environment.mapValues { Self.filled($0, servers) })
        #expect(run.status == 0, "\(run.stderr)")
        let sent = servers.home.requests.map { $0.headers["authorization"] }
        #expect(!sent.isEmpty && sent.allSatisfy { $0 == "Bearer \(Self.token)" }, "\(sent)")
        #expect(servers.other.requests.isEmpty)
    }

    /// A redirect is never followed: the server it points at gets nothing, the token least of all.
    @Test func aRedirectToAnotherOriginIsNotFollowed() throws {
        let other = try FaultServer { _, _ in .respond(status: 200, body: "[]") }
        defer { other.stop() }
        let home = try FaultServer { _, _ in .respond(status: 307, headers: ["Location": "\(other.url)/reservations"]) }
        defer { home.stop() }
        let sandbox = try Sandbox()
        let run = try sandbox.resv(
            ["list"], environment: ["RESV_SERVER": home.url, "RESV_TOKEN": Self.token, "RESV_STORE": ""])
        #expect(run.status != 0)
        #expect(home.requests.count >= 1)
        #expect(other.requests.isEmpty, "followed to \(other.url)")
    }

    /// `login` checks the token with the server and keeps it for that origin only: the other
    /// server gets nothing afterwards, `logout` removes it, a refused token is not kept.
    @Test func loginKeepsTheTokenForItsOriginAndLogoutRemovesIt() throws {
        let servers = try Servers()
        let refused = try servers.resv(["login", servers.home.url], stdin: "resv_wrong\n")
        #expect(refused.status == 77, "\(refused.stderr)")
        #expect(refused.stderr.contains("refused the token (401)"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: servers.configFile.path), "nothing kept")

        let login = try servers.resv(["login", servers.home.url], stdin: Self.token + "\n")
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stdout.isEmpty)
        let origin = "http://127.0.0.1:\(servers.home.port)"
        #expect(login.stderr.contains("logged in to \(origin) as ada (scope write)"), "\(login.stderr)")
        #expect(!login.stderr.contains(Self.token))
        let mode = try FileManager.default.attributesOfItem(atPath: servers.configFile.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let kept = try JSONSerialization.jsonObject(with: Data(contentsOf: servers.configFile)) as? [String: Any]
        let entry = (kept?["servers"] as? [String: Any])?[origin] as? [String: Any]
        #expect(entry?["token"] as? String == Self.token)
        #expect(kept?["server"] as? String == servers.home.url, "the first login names the server")

        let list = try servers.resv(["list"])
        #expect(list.status == 0, "\(list.stderr)")
        let whoami = try servers.resv(["whoami", "--json"])
        #expect(whoami.status == 0, "\(whoami.stderr)")
        let identity = try JSONSerialization.jsonObject(with: Data(whoami.stdout.utf8)) as? [String: String]
        #expect(identity == ["user": "ada", "server": origin, "scope": "write"])
        let elsewhere = try servers.resv(["--server", servers.other.url, "list"])
        #expect(elsewhere.status == 77, "\(elsewhere.stderr)")
        #expect(servers.leaked.isEmpty)

        let logout = try servers.resv(["logout"])
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(logout.stderr == "logged out of \(origin)\n")
        let after = try servers.resv(["list"])
        #expect(after.status == 77, "\(after.stderr)")
        #expect(
            after.stderr
                == "resv: not logged in to \(origin): run 'resv login \(origin)' (an admin makes a token with 'resv-server token create')\n"
        )
        // Every request the home server saw carried the token, except the refused login's.
        let sent = servers.home.requests.map { $0.headers["authorization"] ?? "none" }
        #expect(sent.first == "Bearer resv_wrong")
        #expect(sent.count >= 4 && sent.dropFirst().allSatisfy { $0 == "Bearer \(Self.token)" }, "\(sent)")
    }

    /// A login kept by a config file written before logins (one server, one token) keeps working,
    /// and logout removes that token too.
    @Test func aTokenWrittenBesideItsServerIsThatServersAndLogoutRemovesIt() throws {
        let servers = try Servers()
        try servers.write(Self.filled(#"{"server": "HOME", "token": "SECRET", "store": "/nowhere.json"}"#, servers))
        #expect(try servers.resv(["list"]).status == 0)
        let logout = try servers.resv(["logout"])
        #expect(logout.status == 0, "\(logout.stderr)")
        let kept = try JSONSerialization.jsonObject(with: Data(contentsOf: servers.configFile)) as? [String: Any]
        #expect(kept?["token"] == nil)
        #expect(kept?["store"] as? String == "/nowhere.json", "the rest is kept")
    }

    /// No token over plain http to another machine: refused before any connection (TEST-NET-1
    /// never answers, so a connection tried would end in a timeout and 69, not 64).
    @Test(arguments: ["http://192.0.2.1:9", "http://[2001:db8::1]:9", "http://example.invalid"])
    func aTokenIsNeverSentInClearOverANetwork(server: String) throws {
        let sandbox = try Sandbox()
        let run = try sandbox.resv(
            ["list"],
            environment: [
                "RESV_SERVER": server, "RESV_TOKEN": Self.token, "RESV_STORE": "", "RESV_CONNECT_TIMEOUT": "30",
            ])
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderrLines.count == 1)
        #expect(run.stderr.contains("over plain http"), "\(run.stderr)")
        #expect(run.stderr.contains("use https://"), "\(run.stderr)")
        let login = try sandbox.resv(["login", server], stdin: Self.token + "\n")
        #expect(login.status == 64, "\(login.stderr)")
        #expect(login.stderr.contains("over plain http"), "\(login.stderr)")
    }

    /// A config file with a token kept for something that is no origin: said, kept, never used.
    @Test func aMalformedOriginIsReportedAndLeftAsItIs() throws {
        let servers = try Servers()
        let text = Self.filled(
            #"{"server": "HOME", "token": "SECRET", "servers": {"not a url": {"token": "x"}}}"#, servers)
        try servers.write(text)
        let run = try servers.resv(["list"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("keeps settings for 'not a url', which is no server's origin"), "\(run.stderr)")
        #expect(try String(contentsOf: servers.configFile, encoding: .utf8) == text)
    }
}
