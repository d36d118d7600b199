import Foundation
import ResvTestKit
import Testing

/// `resv-server serve --tls-cert --tls-key` as an operator runs it: certificates made
/// here with openssl (a CA of the test's own, a server certificate for 127.0.0.1 and
/// localhost), spoken to with curl and openssl s_client. Waits are for lines the server
/// writes (it says when it has reloaded), never for a time.
@Suite("resv-server over TLS", .ownThreads, .timeLimit(.minutes(30)))
struct TLSTests {
    /// A folder with two CAs, each with a server certificate and key, and the database.
    final class Certificates {
        let folder: TemporaryDirectory
        var directory: URL { folder.url }
        var database: String { path("db.sqlite") }

        init() throws {
            folder = try TemporaryDirectory("tls")
            try Data("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n".utf8).write(
                to: directory.appendingPathComponent("server.ext"))
            for name in ["first", "second"] { try make(name) }
        }

        func path(_ name: String) -> String { folder.path(name) }

        /// `NAME-ca.pem`, and `NAME-cert.pem` with `NAME-key.pem` signed by it.
        private func make(_ name: String) throws {
            let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
            try openssl(
                ["req", "-x509"] + curve + [
                    "-keyout", path("\(name)-ca.key"), "-out", path("\(name)-ca.pem"), "-days", "2",
                    "-subj", "/CN=resv test CA \(name)",
                ])
            try openssl(
                ["req"] + curve + [
                    "-keyout", path("\(name)-key.pem"), "-out", path("\(name).csr"), "-subj", "/CN=localhost",
                ])
            try openssl([
                "x509", "-req", "-in", path("\(name).csr"), "-CA", path("\(name)-ca.pem"), "-CAkey",
                path("\(name)-ca.key"), "-CAcreateserial", "-out", path("\(name)-cert.pem"), "-days", "2",
                "-extfile", path("server.ext"),
            ])
        }

        private func openssl(_ arguments: [String]) throws {
            let run = try runProcess("/usr/bin/openssl", arguments, environment: [:], stdin: nil)
            guard run.status == 0 else { throw ServerStartFailure(log: "openssl \(arguments): \(run.stderr)") }
        }

        /// Puts the pair `name` (or these files) where the server reads them, as a renewal would.
        func install(certificate: String, key: String) throws {
            for (source, target) in [(certificate, "cert.pem"), (key, "key.pem")] {
                let temporary = path(target + ".new")
                try? FileManager.default.removeItem(atPath: temporary)
                try FileManager.default.copyItem(atPath: path(source), toPath: temporary)
                _ = rename(temporary, path(target))
            }
        }
    }

    static func curl(_ arguments: [String]) throws -> Run {
        try runProcess("/usr/bin/curl", ["-sS"] + arguments, environment: [:], stdin: nil)
    }

    @Test func servesHTTPSAndReloadsOnSIGHUPWhileOpenConnectionsGoOn() async throws {
        let files = try Certificates()
        try files.install(certificate: "first-cert.pem", key: "first-key.pem")
        let token = try ServerProcess.createToken("ada", database: files.database)
        let server = try ServerProcess(
            database: files.database,
            arguments: ["--tls-cert", files.path("cert.pem"), "--tls-key", files.path("key.pem")])
        let base = "https://127.0.0.1:\(server.port)"
        let auth = ["-H", "Authorization: Bearer \(token)"]

        let health = try Self.curl(["--cacert", files.path("first-ca.pem"), "\(base)/health"])
        #expect(health.status == 0 && health.stdout.contains(#""status":"ok""#), "\(health.stderr)")
        let unknownCA = try Self.curl(["\(base)/health"])
        #expect(unknownCA.status != 0, "a certificate of an unknown CA is refused by curl")
        for versions in [["--tlsv1.2", "--tls-max", "1.2"], ["--tlsv1.3"]] {
            let run = try Self.curl(versions + ["--cacert", files.path("first-ca.pem"), "\(base)/health"])
            #expect(run.status == 0 && run.stdout.contains(#""status":"ok""#), "\(versions): \(run.stderr)")
        }
        // Curl allowed TLS 1.1 (its security level lowered): the refusal is the server's alert.
        let old = try Self.curl(
            ["--tlsv1", "--tls-max", "1.1", "--ciphers", "DEFAULT@SECLEVEL=0", "--cacert", files.path("first-ca.pem")]
                + ["\(base)/health"])
        #expect(old.status != 0 && old.stderr.contains("protocol version"), "TLS 1.1: \(old.stderr)")
        let plain = try Self.curl(["http://127.0.0.1:\(server.port)/health"])
        #expect(plain.status != 0 || !plain.stdout.contains(#""status":"ok""#), "no plain HTTP beside HTTPS")

        // A connection made before the reload, which then holds a long poll open across it.
        let cursor = try Self.curl(["--cacert", files.path("first-ca.pem")] + auth + ["\(base)/changes"])
        let after = try #require(cursor.stdout.firstMatch(of: /"cursor":"([^"]+)"/)).output.1
        let open = try OpenConnection(port: server.port, caFile: files.path("first-ca.pem"), in: files)
        try open.send("GET /whoami HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n\r\n")
        #expect(open.waitFor("HTTP/1.1 200"), "the connection works before the reload")
        try open.send(
            "GET /changes?after=\(after)&wait=60 HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(token)\r\n\r\n")

        try files.install(certificate: "second-cert.pem", key: "second-key.pem")
        server.send(SIGHUP)
        #expect(server.waitForLog("resv-server: reloaded the TLS certificate"))
        let second = try Self.curl(["--cacert", files.path("second-ca.pem"), "\(base)/health"])
        #expect(second.status == 0 && second.stdout.contains(#""status":"ok""#), "\(second.stderr)")
        #expect(try Self.curl(["--cacert", files.path("first-ca.pem"), "\(base)/health"]).status != 0)

        // A change made through a new connection wakes the poll on the old one.
        let booked = try Self.curl(
            ["--cacert", files.path("second-ca.pem"), "-H", "Content-Type: application/json"] + auth + [
                "-d",
                #"{"landmarkId":"7c6984ff-188e-417e-b476-ec5f30b8d745","date":"2035-06-01T10:00:00Z","partySize":2}"#,
                "-w", "%{http_code}", "\(base)/reservations",
            ])
        #expect(booked.stdout.hasSuffix("201"), "\(booked.stdout) \(booked.stderr)")
        #expect(open.waitFor(#""changes":[{"#), "the long poll opened before the reload answers the change")
        #expect(open.output.components(separatedBy: "HTTP/1.1 200").count == 3)

        // A bad pair is refused in one line each, and the pair in use goes on serving.
        try Data("not a certificate\n".utf8).write(to: URL(fileURLWithPath: files.path("not-pem.pem")))
        try files.install(certificate: "not-pem.pem", key: "second-key.pem")
        server.send(SIGHUP)
        #expect(server.waitForLog("resv-server: kept the TLS certificate in use: ", count: 1))
        try files.install(certificate: "second-cert.pem", key: "first-key.pem")
        server.send(SIGHUP)
        #expect(server.waitForLog("resv-server: kept the TLS certificate in use: ", count: 2))
        try FileManager.default.removeItem(atPath: files.path("key.pem"))
        server.send(SIGHUP)
        #expect(server.waitForLog("resv-server: kept the TLS certificate in use: ", count: 3))
        let log = try String(contentsOf: server.log, encoding: .utf8)
        let kept = log.split(separator: "\n").filter { $0.contains("kept the TLS certificate") }
        #expect(kept.count == 3)
        #expect(kept[0].contains("not-pem") == false && kept[0].contains("cert.pem is not a certificate"), "\(kept)")
        #expect(kept[1].contains("is not the key of the certificate"), "\(kept)")
        #expect(kept[2].contains("cannot read the TLS file"), "\(kept)")
        #expect(!log.contains(token), "the token never reaches the log")
        let still = try Self.curl(["--cacert", files.path("second-ca.pem"), "\(base)/health"])
        #expect(still.status == 0 && still.stdout.contains(#""status":"ok""#), "\(still.stderr)")
        #expect(server.stop() == 0)
    }

    /// Files that cannot serve, at start: one line and 66 (cannot be read) or 78 (not PEM, the wrong key).
    @Test(arguments: [
        ("missing.pem", "first-key.pem", Int32(66), "cannot read the TLS file"),
        ("first-cert.pem", "missing.pem", 66, "cannot read the TLS file"),
        ("garbage.pem", "first-key.pem", 78, "is not a certificate in PEM form"),
        ("first-cert.pem", "garbage.pem", 78, "is not a private key in PEM form"),
        ("first-cert.pem", "first-ca.pem", 78, "is not a private key in PEM form"),
        ("first-cert.pem", "second-key.pem", 78, "is not the key of the certificate"),
    ])
    func filesThatCannotServeAreOneLineAtStart(
        certificate: String, key: String, status: Int32, message: String
    ) throws {
        let files = try Certificates()
        try Data("-----BEGIN CERTIFICATE-----\nnot base64 at all!\n-----END CERTIFICATE-----\n".utf8)
            .write(to: URL(fileURLWithPath: files.path("garbage.pem")))
        let run = try runProcess(
            Binary.server.path,
            [
                "serve", "--database", files.database, "--port", "0", "--tls-cert", files.path(certificate),
                "--tls-key", files.path(key),
            ], environment: [:], stdin: nil)
        #expect(run.status == status, "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix("resv-server: ") && run.stderr.contains(message), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "one line: \(run.stderr)")
    }

    @Test(arguments: [["--tls-cert", "cert.pem"], ["--tls-key", "key.pem"]])
    func oneOfTheTwoFilesAloneIsAUsageError(arguments: [String]) throws {
        let files = try Certificates()
        let run = try runProcess(
            Binary.server.path, ["serve", "--database", files.database, "--port", "0"] + arguments,
            environment: [:], stdin: nil)
        #expect(run.status == 64)
        #expect(run.stderr.hasPrefix("Error: --tls-cert and --tls-key go together"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: files.database))
    }
}

/// A TLS connection of `openssl s_client` (the certificate checked against one CA), held
/// open: what the test writes goes to the server, what the server answers into a file.
final class OpenConnection {
    private let process: ChildProcess
    private let outputFile: URL

    init(port: Int, caFile: String, in files: TLSTests.Certificates) throws {
        outputFile = files.directory.appendingPathComponent("s_client-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        let descriptor = open(outputFile.path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        process = try ChildProcess(
            "/usr/bin/openssl",
            [
                "s_client", "-quiet", "-connect", "127.0.0.1:\(port)", "-CAfile", caFile, "-verify_return_error",
                "-servername", "localhost",
            ],
            environment: [:], stdin: .pipe, stdout: .descriptor(descriptor), stderr: .null)
    }

    var output: String { (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "" }

    func send(_ text: String) throws { try process.write(Data(text.utf8)) }

    /// Waits until the server's answers hold `text` (true), or the connection has ended (false).
    func waitFor(_ text: String) -> Bool {
        try? waitUntil("\(text.debugDescription) from the server", every: .milliseconds(20)) {
            output.contains(text) || process.hasExited
        }
        return output.contains(text)
    }

    deinit {
        process.signal(SIGTERM)
        _ = process.wait()
    }
}
