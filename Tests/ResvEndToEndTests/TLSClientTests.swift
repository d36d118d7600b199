import Foundation
import ResvTestKit
import Testing

/// resv against `resv-server` over TLS (docs/contracts.md, "Trust"): with the server's CA
/// (`--cacert`, or kept by `login --cacert`) it works; without it, with another CA, with an
/// expired certificate or another host's, it refuses in one line, exit 69, and the server
/// logs no request: nothing was sent. curl, given the same files, agrees with each verdict.
@Suite("resv over TLS", .ownThreads, .timeLimit(.minutes(30)))
struct TLSClientTests {
    /// The test's CAs and pairs (`TLSTests.Certificates`), and two more pairs signed by the
    /// first CA: one expired in 2020, one for another host only.
    final class Site {
        let files: TLSTests.Certificates
        let server: ServerProcess
        let token: String
        let sandbox: Sandbox

        init(certificate: String = "first-cert.pem", key: String = "first-key.pem") throws {
            files = try TLSTests.Certificates()
            try Self.sign(
                files, "expired", hosts: "IP:127.0.0.1,DNS:localhost", dates: ("20200101000000Z", "20200102000000Z"))
            try Self.sign(files, "otherhost", hosts: "DNS:other.example", dates: nil)
            try files.install(certificate: certificate, key: key)
            token = try ServerProcess.createToken(
                "tls-\(UUID().uuidString.prefix(6).lowercased())", database: files.database)
            server = try ServerProcess(
                database: files.database,
                arguments: ["--tls-cert", files.path("cert.pem"), "--tls-key", files.path("key.pem")])
            sandbox = try Sandbox()
        }

        deinit { server.stop() }

        var url: String { "https://127.0.0.1:\(server.port)" }

        /// `NAME-cert.pem` with `NAME-key.pem`, signed by the first CA with `openssl ca` (which
        /// can date a certificate in the past), for `hosts`.
        static func sign(
            _ files: TLSTests.Certificates, _ name: String, hosts: String, dates: (String, String)?
        ) throws {
            let folder = files.path("ca-\(name)")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Data().write(to: URL(fileURLWithPath: folder + "/index.txt"))
            try Data("01\n".utf8).write(to: URL(fileURLWithPath: folder + "/serial"))
            let config = """
                [ca]
                default_ca = here
                [here]
                database = \(folder)/index.txt
                serial = \(folder)/serial
                new_certs_dir = \(folder)
                default_md = sha256
                default_days = 2
                policy = any
                [any]
                commonName = supplied
                """
            try Data(config.utf8).write(to: URL(fileURLWithPath: folder + "/ca.cnf"))
            try Data("subjectAltName=\(hosts)\nbasicConstraints=CA:FALSE\n".utf8)
                .write(to: URL(fileURLWithPath: folder + "/ext"))
            try openssl([
                "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
                files.path("\(name)-key.pem"), "-out", folder + "/csr", "-subj", "/CN=\(name)",
            ])
            try openssl(
                [
                    "ca", "-batch", "-config", folder + "/ca.cnf", "-cert", files.path("first-ca.pem"), "-keyfile",
                    files.path("first-ca.key"), "-in", folder + "/csr", "-out", files.path("\(name)-cert.pem"),
                    "-extfile", folder + "/ext", "-notext",
                ] + (dates.map { ["-startdate", $0.0, "-enddate", $0.1] } ?? []))
        }

        static func openssl(_ arguments: [String]) throws {
            let run = try runProcess("/usr/bin/openssl", arguments, environment: [:], stdin: nil)
            guard run.status == 0 else { throw ServerStartFailure(log: "openssl \(arguments): \(run.stderr)") }
        }

        func resv(_ arguments: [String], environment: [String: String] = [:], stdin: String? = nil) throws -> Run {
            var env = [
                "RESV_STORE": "", "RESV_SERVER": url, "RESV_TOKEN": token,
                "XDG_CACHE_HOME": sandbox.directory.appendingPathComponent("cache").path,
                "XDG_CONFIG_HOME": sandbox.directory.appendingPathComponent("config").path,
            ]
            env.merge(environment) { _, new in new }
            return try sandbox.resv(arguments, environment: env, stdin: stdin)
        }

        /// Requests the server logged (one access line each), for "nothing was sent".
        var requestsLogged: Int {
            let log = (try? String(contentsOf: server.log, encoding: .utf8)) ?? ""
            return log.split(separator: "\n").filter { $0.contains("GET /") || $0.contains("POST /") }.count
        }

        /// curl's verdict on the same server with the same CA file (nil: the system's).
        func curlAgrees(caFile: String?) throws -> Bool {
            let run = try TLSTests.curl((caFile.map { ["--cacert", $0] } ?? []) + ["\(url)/health"])
            return run.status == 0
        }
    }

    @Test func withItsCAResvWorksAndLoginKeepsTheCA() throws {
        let site = try Site()
        let ca = site.files.path("first-ca.pem")
        let list = try site.resv(["list", "--cacert", ca])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(try site.curlAgrees(caFile: ca))
        let login = try site.resv(
            ["login", site.url, "--cacert", ca], environment: ["RESV_SERVER": "", "RESV_TOKEN": ""],
            stdin: site.token + "\n")
        #expect(login.status == 0, "\(login.stderr)")
        // The CA kept with the token: no flag needed after.
        let after = try site.resv(["whoami"], environment: ["RESV_SERVER": "", "RESV_TOKEN": ""])
        #expect(after.status == 0, "\(after.stderr)")
        #expect(after.stdout.contains("at https://127.0.0.1:\(site.server.port)"), "\(after.stdout)")
        // An https server's calendar address is https too.
        let calendar = try site.resv(["calendar", "url"], environment: ["RESV_SERVER": "", "RESV_TOKEN": ""])
        #expect(calendar.status == 0, "\(calendar.stderr)")
        #expect(calendar.stdout.hasPrefix("https://127.0.0.1:\(site.server.port)/calendar/"), "\(calendar.stdout)")
    }

    /// Each way a certificate fails: one line naming the origin and the reason, 69, no request.
    @Test(
        arguments: [
            ("first-cert.pem", "first-key.pem", nil, "certificate"),
            ("first-cert.pem", "first-key.pem", "second-ca.pem", "certificate"),
            ("expired-cert.pem", "expired-key.pem", "first-ca.pem", "expired"),
            ("otherhost-cert.pem", "otherhost-key.pem", "first-ca.pem", "127.0.0.1"),
        ] as [(String, String, String?, String)])
    func aCertificateThatDoesNotVerifyIsRefusedAndNothingIsSent(
        certificate: String, key: String, ca: String?, reason: String
    ) throws {
        let site = try Site(certificate: certificate, key: key)
        let caFile = ca.map { site.files.path($0) }
        let before = site.requestsLogged
        let run = try site.resv(["list"] + (caFile.map { ["--cacert", $0] } ?? []))
        #expect(run.status == 69, "\(run.stderr)")
        #expect(run.stderrLines.count == 1, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("resv: cannot trust https://127.0.0.1:\(site.server.port): "), "\(run.stderr)")
        #expect(run.stderr.contains(reason), "\(run.stderr)")
        #expect(run.stderr.contains("nothing was sent"), "\(run.stderr)")
        #expect(!run.stderr.contains(site.token))
        #expect(site.requestsLogged == before, "the server logged a request: something was sent")
        #expect(try site.curlAgrees(caFile: caFile) == false, "curl refuses it too")
        // The control: with the right CA and a good pair, the same server logs the request.
        if certificate == "first-cert.pem", ca == nil {
            #expect(try site.resv(["list", "--cacert", site.files.path("first-ca.pem")]).status == 0)
            #expect(site.requestsLogged > before)
        }
    }

    @Test func anUnreadableCAFileIsOneLineBeforeAnyConnection() throws {
        let site = try Site()
        let run = try site.resv(["list", "--cacert", site.files.path("missing-ca.pem")])
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderrLines.count == 1)
        #expect(run.stderr.contains("missing-ca.pem (the CA certificates)"), "\(run.stderr)")
    }
}

/// A token's scope as resv says it: a read token lists, and a change is one line naming the
/// scope, exit 77, nothing changed (the server's 403 `forbidden`).
@Suite("resv with a scoped token", .ownThreads, .timeLimit(.minutes(30)))
struct ScopedTokenEndToEndTests {
    @Test func aReadTokenReadsAndAChangeIsRefusedNamingItsScope() async throws {
        let sandbox = try Sandbox()
        let database = sandbox.directory.appendingPathComponent("server.sqlite").path
        let name = "reader-\(UUID().uuidString.prefix(6).lowercased())"
        let created = try runProcess(
            Binary.server.path, ["token", "create", name, "--scope", "read", "--database", database],
            environment: [:], stdin: nil)
        #expect(created.status == 0, "\(created.stderr)")
        let token = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try ServerProcess(database: database)
        defer { server.stop() }
        let environment = [
            "RESV_SERVER": "http://127.0.0.1:\(server.port)", "RESV_TOKEN": token, "RESV_STORE": "",
            "XDG_CACHE_HOME": sandbox.directory.appendingPathComponent("cache").path,
        ]
        let list = try sandbox.resv(["list"], environment: environment)
        #expect(list.status == 0, "\(list.stderr)")
        let whoami = try sandbox.resv(["whoami"], environment: environment)
        #expect(whoami.stdout == "\(name) at http://127.0.0.1:\(server.port) (scope read)\n", "\(whoami.stdout)")
        let reserve = try sandbox.resv(
            ["reserve", "-l", "Golden Gate Bridge", "-d", "2031-06-01T10:00:00Z", "-n", "2", "--json"],
            environment: environment)
        #expect(reserve.status == 77, "\(reserve.stderr)")
        #expect(reserve.stderrLines.count == 1, "\(reserve.stderr)")
        #expect(
            reserve.stderr.contains("this token's scope is read: it cannot change reservations (403)"),
            "\(reserve.stderr)")
        #expect(try ErrorJSONTests.error(reserve)["code"] as? String == "forbidden", "\(reserve.stderr)")
        let (status, body) = try await server.request("GET", "/reservations", token: token)
        #expect(status == 200 && String(decoding: body, as: UTF8.self) == "[]", "nothing was booked")
    }
}
