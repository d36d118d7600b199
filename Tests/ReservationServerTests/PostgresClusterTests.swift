import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import PostgresNIO
import ReservationCore
import ResvTestKit
import Synchronization
import Testing

@testable import ReservationServer
@testable import ReservationStorage

#if canImport(Glibc)
    import Glibc
#endif

/// `--database` with libpq's host list: each rule of the URL case by case, the host
/// chosen among them, and the pool moving when the host in use is lost.
@Suite("A PostgreSQL cluster's hosts", .timeLimit(.minutes(30)))
struct PostgresClusterTests {
    @Test(arguments: [
        (
            "postgres://u@h1:5433,h2,[::1]:6000/db", ["h1:5433", "h2:5432", "[::1]:6000"],
            PostgresTarget.Sessions.readWrite
        ),
        ("postgres://u@h1/db", ["h1:5432"], .any),
        ("postgresql://u:pw@h1:1,h2:65535/db?target_session_attrs=primary", ["h1:1", "h2:65535"], .primary),
        ("postgres://u@h1,h2/db?target_session_attrs=any&sslmode=disable", ["h1:5432", "h2:5432"], .any),
        ("postgres://u@h1/db?target_session_attrs=read-write", ["h1:5432"], .readWrite),
    ])
    func aHostListIsReadAsLibpqReadsIt(url: String, hosts: [String], sessions: PostgresTarget.Sessions) throws {
        let target = try PostgresTarget(url)
        #expect(target.hosts.map(\.description) == hosts)
        #expect(target.sessions == sessions)
        #expect(target.database == "db")
        #expect(target.username == "u")
    }

    @Test(arguments: [
        ("postgres://u@h1:0/db", "'0' is not a port (1 to 65535)"),
        ("postgres://u@h1:65536/db", "'65536' is not a port (1 to 65535)"),
        ("postgres://u@h1:port/db", "'port' is not a port (1 to 65535)"),
        ("postgres://u@h1:/db", "'' is not a port (1 to 65535)"),
        ("postgres://u@h1,,h2/db", "a host is missing (two commas, or none before the path)"),
        ("postgres://u@/db", "a host is missing (two commas, or none before the path)"),
        ("postgres://u@:5432/db", "':5432' names no host"),
        ("postgres://u@h1,h1:5432/db", "a host is named twice"),
        ("postgres://u@[::1/db", "'[::1' opens [ without ]"),
        ("postgres://h1,h2/db", "the user name is missing"),
        (
            "postgres://u@h1/db?target_session_attrs=standby",
            "resv-server writes: target_session_attrs 'standby' cannot be served; use read-write"
        ),
        (
            "postgres://u@h1/db?target_session_attrs=fast",
            "target_session_attrs 'fast' is not read-write, primary or any"
        ),
        ("postgres://u@h1/db?sslmode=maybe", "sslmode 'maybe' is not disable, prefer or require"),
        (
            "postgres://u@" + (1...17).map { "h\($0)" }.joined(separator: ",") + "/db",
            "17 hosts; at most 16 are taken"
        ),
    ])
    func aURLThatCannotBeUsedSaysWhy(url: String, why: String) {
        #expect(throws: DatabaseError.self) { try PostgresTarget(url) }
        do {
            _ = try PostgresTarget(url)
        } catch {
            #expect(error.isBadURL)
            #expect(
                error.localizedDescription == "'\(PostgresTarget.redact(url))' is not a usable database URL: \(why)")
        }
    }

    @Test func thePasswordIsNeverShown() {
        let url = "postgres://u:s3cret@h1:1,h2:0/db"
        #expect(PostgresTarget.redact(url) == "postgres://u:***@h1:1,h2:0/db")
        do {
            _ = try PostgresTarget(url)
            Issue.record("port 0 was taken")
        } catch {
            #expect(!error.localizedDescription.contains("s3cret"))
        }
    }
}

extension PostgresClusterTests {
    static var live: (url: String, port: Int)? {
        guard let url = Engine.postgresURL, let target = try? PostgresTarget(url) else { return nil }
        return (url, target.hosts[0].port)
    }

    static let logger = {
        var logger = Logger(label: "resv-cluster-test")
        logger.logLevel = .critical
        return logger
    }()

    /// `url` with its host replaced by `hosts`.
    static func url(_ url: String, hosts: [String], query: String = "") throws -> String {
        let target = try PostgresTarget(url)
        let database = target.database ?? "postgres"
        return "postgres://\(target.username)@\(hosts.joined(separator: ","))/\(database)\(query)"
    }

    @Test(.enabled(if: live != nil)) func theFirstHostThatAnswersIsUsedAndEachOtherSaysWhyNot() async throws {
        let (url, port) = try #require(Self.live)
        let dead = try Loopback.freePorts(2)
        let (dead1, dead2) = (dead[0], dead[1])
        let mixed = try PostgresTarget(Self.url(url, hosts: ["127.0.0.1:\(dead1)", "127.0.0.1:\(port)"]))
        #expect(try await mixed.locate(timeout: .seconds(5), logger: Self.logger).port == port)

        let none = try PostgresTarget(Self.url(url, hosts: ["127.0.0.1:\(dead1)", "127.0.0.1:\(dead2)"]))
        await #expect(throws: DatabaseError.self) { try await none.locate(timeout: .seconds(5), logger: Self.logger) }
        do {
            _ = try await none.locate(timeout: .seconds(5), logger: Self.logger)
        } catch {
            #expect(
                error.localizedDescription
                    == "cannot open the database \(none.redacted): no host takes writes (127.0.0.1:\(dead1): Connection refused; 127.0.0.1:\(dead2): Connection refused)"
            )
        }
    }

    /// A host whose sessions are read-only (as a standby's are) is passed over for
    /// `read-write`, and taken for `any`.
    @Test(.enabled(if: live != nil)) func aReadOnlyHostIsNotUsedForWrites() async throws {
        let (url, port) = try #require(Self.live)
        let name = "resv_ro_\(UUID().uuidString.prefix(8).lowercased())"
        let admin = try await PostgresCluster(PostgresTarget(url), connections: 1, logger: Self.logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await admin.run() }
            defer { group.cancelAll() }
            try await admin.client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: Self.logger)
            try await admin.client.query(
                PostgresQuery(unsafeSQL: "ALTER DATABASE \(name) SET default_transaction_read_only = on"),
                logger: Self.logger)
            let host = "127.0.0.1:\(port)"
            let target = try PostgresTarget(
                Self.url(url, hosts: [host], query: "?target_session_attrs=read-write").replacingOccurrences(
                    of: "/postgres?", with: "/\(name)?"))
            do {
                _ = try await target.locate(timeout: .seconds(5), logger: Self.logger)
                Issue.record("a read-only host was used for writes")
            } catch {
                #expect(
                    error.localizedDescription == "cannot open the database \(target.redacted): \(host) is read-only")
            }
            let any = try PostgresTarget(target.redacted.replacingOccurrences(of: "read-write", with: "any"))
            #expect(try await any.locate(timeout: .seconds(5), logger: Self.logger).port == port)
            try await admin.client.query(PostgresQuery(unsafeSQL: "DROP DATABASE \(name)"), logger: Self.logger)
        }
    }
}

extension PostgresClusterTests {
    /// The host in use is lost (a proxy in front of the database, killed): the probe
    /// finds the next host, the pool moves there, and the server goes on where it was:
    /// the same reservations, the same feed and its cursor.
    @Test(.enabled(if: live != nil)) func whenTheHostInUseIsLostThePoolMovesToTheNextAndNothingIsMissing()
        async throws
    {
        let (url, port) = try #require(Self.live)
        let proxy = try TCPProxy(to: port)
        let spec = try Self.url(url, hosts: ["127.0.0.1:\(proxy.port)", "127.0.0.1:\(port)"])
        let clock: @Sendable () -> Date = { Date() }
        try await Database.withStore(spec, logger: Self.logger, connections: 2, serving: true, now: clock) {
            store in
            try await withRouter(over: store, user: "cluster-\(UUID().uuidString.prefix(8))") { call in
                let start = try await call(.get, "/changes")
                let cursor = try #require(start.object["cursor"] as? String)
                let first = try await call(
                    .post, "/reservations", body: Fixture.body(Fixture.halfDome, Fixture.futureDate(), 2))
                #expect(first.status == .created, "\(first.text)")
                #expect(proxy.connections > 0, "the first host, the proxy, is in use")

                proxy.stop()
                // A request the lost host was answering is answered 503 (never 500); the probe
                // then finds the next host and moves the pool there.
                async let during = call(.get, "/reservations")
                #expect(await store.reachability.probe?() == true)
                let answered = try await during
                #expect(answered.status == .ok || answered.status == .serviceUnavailable, "\(answered.text)")

                let second = try await call(
                    .post, "/reservations", body: Fixture.body(Fixture.halfDome, Fixture.futureDate(), 3))
                #expect(second.status == .created, "\(second.text)")
                let listed = try await call(.get, "/reservations")
                #expect(
                    Set(listed.array.compactMap { $0["id"] as? String })
                        == Set(
                            [first, second].compactMap {
                                $0.object["id"] as? String
                            }))
                let changes = try await call(.get, "/changes?after=\(cursor)")
                #expect(changes.status == .ok, "the cursor from before the move is still valid: \(changes.text)")
                let seen = (changes.object["changes"] as? [[String: Any]] ?? []).compactMap {
                    $0["reservationId"] as? String
                }
                #expect(seen == [first, second].compactMap { $0.object["id"] as? String })
            }
        }
    }
}

/// A TCP proxy on a loopback port to `port` (the kit's `LoopbackListener`), each connection
/// forwarded both ways on threads of its own: `stop()` drops every connection through it
/// and takes no more, as a lost host does.
final class TCPProxy: Sendable {
    private let listener: LoopbackListener
    private let sockets: Sockets

    /// The sockets of the connections under way; none taken once stopped.
    private final class Sockets: Sendable {
        private let state = Mutex<(open: Set<Int32>, stopped: Bool)>(([], false))

        func add(_ sockets: [Int32]) -> Bool {
            state.withLock { state in
                guard !state.stopped else { return false }
                state.open.formUnion(sockets)
                return true
            }
        }

        func remove(_ sockets: [Int32]) { state.withLock { $0.open.subtract(sockets) } }

        /// Ends every connection under way (their threads close them) and refuses later ones.
        func stop() {
            state.withLock { state in
                state.stopped = true
                for socket in state.open { shutdown(socket, Int32(SHUT_RDWR)) }
            }
        }
    }

    init(to target: Int) throws {
        let sockets = Sockets()
        self.sockets = sockets
        listener = try LoopbackListener { client in
            guard let server = Loopback.connect(port: target) else { return }
            defer { close(server) }
            guard sockets.add([client, server]) else { return }
            defer { sockets.remove([client, server]) }
            let answered = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                Self.pump(from: server, to: client)
                shutdown(client, Int32(SHUT_RDWR))
                answered.signal()
            }
            Self.pump(from: client, to: server)
            shutdown(server, Int32(SHUT_RDWR))
            answered.wait()
        }
    }

    var port: Int { listener.port }

    /// The connections made through it so far.
    var connections: Int { listener.accepted }

    func stop() {
        listener.stop()
        sockets.stop()
    }

    deinit { stop() }

    /// Copies what `source` sends to `sink` until either ends.
    private static func pump(from source: Int32, to sink: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            var sent = 0
            while sent < count {
                let written = buffer[sent..<count].withUnsafeBytes {
                    send(sink, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                sent += written
            }
        }
    }
}
