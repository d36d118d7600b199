import Foundation
import Logging
import PostgresNIO
import Testing

@testable import ReservationServer

#if canImport(Glibc)
    import Glibc
#endif

/// postgres-nio's pool gives up on a database it has not reached for a minute with an error
/// of a module the server does not import; the server tells it by name (`APIError.isPoolGivingUp`).
/// A real pool against a port nobody listens on trips it, so a rename in postgres-nio fails here
/// rather than turning a database outage's 503 into a 500.
@Suite("postgres-nio's pool giving up", .ownThreads, .timeLimit(.minutes(15)))
struct PoolErrorTests {
    /// A loopback port that was free a moment ago: bound, read and closed.
    static func closedPort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(socket >= 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(socket, address, length) == 0 && getsockname(socket, address, &length) == 0
            }
        }
        try #require(bound)
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test func aPoolThatCannotConnectForAMinuteIsTakenForAnUnreachableDatabase() async throws {
        let port = try Self.closedPort()
        var configuration = PostgresClient.Configuration(
            host: "127.0.0.1", port: port, username: "postgres", password: nil, database: "postgres", tls: .disable)
        configuration.options.connectTimeout = .seconds(1)
        var logger = Logger(label: "pool-error-test")
        logger.logLevel = .critical
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        let caught: (any Error)? = await withTaskGroup(of: Void.self) { group -> (any Error)? in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            do {
                _ = try await client.query("SELECT 1")
                return nil
            } catch {
                return error
            }
        }
        let error = try #require(caught)
        #expect(String(describing: type(of: error)) == "ConnectionPoolError", "\(String(reflecting: error))")
        #expect(APIError.isPoolGivingUp(error), "\(String(reflecting: error))")
        #expect(APIError.isDatabaseUnreachable(error))
        // Not every error of that name: a cancelled request is the client's doing, not the database's.
        #expect(!APIError.isPoolGivingUp(CancellationError()))
    }
}
