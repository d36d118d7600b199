import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import ReservationCore
import ResvTestKit
import Testing

@testable import ReservationServer
@testable import ReservationStorage

#if canImport(Glibc)
    import Glibc
#endif

/// A primary deposed while it still answers (its Patroni paused past the lease, cut from
/// etcd while this server still reaches it) is shown here without a cluster: a PostgreSQL of
/// the test's own whose synchronous standby is gone (`synchronous_standby_names` naming a
/// standby that never acknowledges, as a promoted or cut-off one does). It answers, it is
/// not in recovery, so the probe keeps it; its reads must still be refused, never answered
/// (`PostgresCluster.confirm`). `scripts/faults --fault pause` shows the same on a cluster.
@Suite("A deposed primary answers no reads", .ownThreads, .timeLimit(.minutes(30)))
struct PostgresFenceTests {
    /// PostgreSQL's server binaries (`scripts/with-postgres` installs them), or nil.
    static var binaries: String? {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return versions.sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }.map { "\(root)/\($0)/bin" }.first {
            FileManager.default.isExecutableFile(atPath: "\($0)/initdb")
                && FileManager.default.isExecutableFile(atPath: "\($0)/pg_ctl")
        }
    }

    static let logger = {
        var logger = Logger(label: "resv-fence-test")
        logger.logLevel = .critical
        return logger
    }()

    @Test(
        .enabled(
            if: Engine.postgresURL != nil && binaries != nil,
            "a PostgreSQL of its own: run under scripts/with-postgres, which installs the server binaries"))
    func aPrimaryWhoseSynchronousStandbyIsGoneAnswersNoReads() async throws {
        let postgres = try PrivatePostgres(bin: try #require(Self.binaries))
        defer { postgres.stop() }
        let clock: @Sendable () -> Date = { Date() }
        try await Database.withStore(postgres.url, logger: Self.logger, connections: 2, serving: true, now: clock) {
            store in
            try await withRouter(over: store, user: "fence") { call in
                let start = try await call(.get, "/changes")
                let cursor = try #require(start.object["cursor"] as? String)
                let booked = try await call(
                    .post, "/reservations", body: Fixture.body(Fixture.halfDome, Fixture.futureDate(), 2))
                #expect(booked.status == .created, "\(booked.text)")
                #expect((try await call(.get, "/reservations")).status == .ok)

                // The standby this primary waits for is gone (promoted elsewhere, or cut off).
                try postgres.setStandbys("promoted_elsewhere")
                #expect(await store.reachability.probe?() == true, "it answers and takes writes: the probe keeps it")
                async let listed = call(.get, "/reservations")
                async let feed = call(.get, "/changes?after=\(cursor)&wait=0")
                async let one = call(.get, "/reservations/\(booked.object["id"] as? String ?? "")")
                for reply in [try await listed, try await feed, try await one] {
                    #expect(reply.status == .serviceUnavailable, "\(reply.text)")
                    #expect(reply.code == .databaseUnavailable, "\(reply.text)")
                }

                // Its standby back (or none named): the reads are answered again, the booking there.
                try postgres.setStandbys("")
                let again = try await call(.get, "/reservations")
                #expect(again.status == .ok, "\(again.text)")
                #expect(again.array.compactMap { $0["id"] as? String } == [booked.object["id"] as? String])
            }
        }
    }
}

/// A PostgreSQL in a temporary folder on a free loopback port (initdb, pg_ctl; as the
/// postgres user when the tests run as root), stopped and removed by `stop`.
final class PrivatePostgres: Sendable {
    let bin: String
    /// Removed by `stop`, or when let go.
    private let directory: TemporaryDirectory
    let folder: String
    let port: Int
    private let asPostgres: Bool

    var url: String { "postgres://postgres@127.0.0.1:\(port)/postgres" }

    init(bin: String) throws {
        self.bin = bin
        directory = try TemporaryDirectory("fence")
        folder = directory.url.path
        asPostgres = geteuid() == 0
        if asPostgres, let user = getpwnam("postgres") {
            _ = chown(folder, user.pointee.pw_uid, user.pointee.pw_gid)
        }
        port = try Loopback.freePort()
        try run([
            "\(bin)/initdb", "-D", "\(folder)/data", "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-locale", "-N",
        ])
        try run([
            "\(bin)/pg_ctl", "-D", "\(folder)/data", "-w", "-l", "\(folder)/log", "-o",
            "-p \(port) -c listen_addresses=127.0.0.1 -k \(folder) -c fsync=off", "start",
        ])
    }

    /// Names the synchronous standbys (none: "") and returns once the server uses the new value.
    func setStandbys(_ names: String) throws {
        let value = names.isEmpty ? "DEFAULT" : "'\(names)'"
        _ = try sql("ALTER SYSTEM SET synchronous_standby_names = \(value)")
        _ = try sql("SELECT pg_reload_conf()")
        // A reload is read by each backend when it next waits: asked again until a new session shows it.
        var shown = ""
        for _ in 0..<1000 {
            shown = try sql("SHOW synchronous_standby_names")
            if shown == names { break }
        }
        #expect(shown == names)
    }

    func sql(_ statement: String) throws -> String {
        try run(["\(bin)/psql", "-h", folder, "-p", "\(port)", "-U", "postgres", "-XAtc", statement, "postgres"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs a program (as postgres when root) to its end (the kit's `ChildProcess`: not
    /// Foundation's `Process`, whose child went unreaped here under runuser), its output and
    /// errors through one file.
    @discardableResult
    private func run(_ arguments: [String]) throws -> String {
        let argv = asPostgres ? ["/usr/sbin/runuser", "-u", "postgres", "--"] + arguments : arguments
        let output = "\(folder)/output-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let file = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        try #require(file >= 0, "\(output): \(String(cString: strerror(errno)))")
        defer { close(file) }
        let child = try ChildProcess(
            argv[0], Array(argv.dropFirst()), environment: ProcessInfo.processInfo.environment, stdin: .null,
            stdout: .descriptor(file), stderr: .descriptor(file))
        let termination = child.wait()
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        try #require(termination == .exited(0), "\(arguments.joined(separator: " ")) (\(termination)): \(text)")
        return text
    }

    func stop() {
        _ = try? run(["\(bin)/pg_ctl", "-D", "\(folder)/data", "-m", "immediate", "stop"])
        try? FileManager.default.removeItem(atPath: folder)
    }
}
