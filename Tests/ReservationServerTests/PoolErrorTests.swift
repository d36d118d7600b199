import Foundation
import Logging
import PostgresNIO
import Testing

@testable import ReservationServer

/// postgres-nio's pool fails a request with an error of its underscored module when it gives
/// up: shut down (as when the cluster moves to a new primary and closes the old pool), or its
/// circuit breaker after a minute without a connection. The server tells that error by its
/// type's name (`APIError.isPoolGivingUp`); a pool shut down before its first request gives a
/// real one at once, with no database, so a rename in postgres-nio fails here rather than turn
/// a failover's 503 into a 500.
@Suite("postgres-nio's pool giving up", .timeLimit(.minutes(30)))
struct PoolErrorTests {
    @Test func aPoolThatWasShutDownIsTakenForAnUnreachableDatabase() async throws {
        var logger = Logger(label: "resv-test-pool-error")
        logger.logLevel = .critical
        // Never contacted: the pool keeps no idle connection and is shut down before its first request.
        let configuration = PostgresClient.Configuration(
            host: "127.0.0.1", port: 1, username: "postgres", password: nil, database: "postgres", tls: .disable)
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        let running = Task { await client.run() }
        running.cancel()
        await running.value
        let caught: (any Error)?
        do {
            _ = try await client.query("SELECT 1")
            caught = nil
        } catch {
            caught = error
        }
        let error = try #require(caught, "a pool that was shut down answered a query")
        #expect(String(reflecting: type(of: error)).hasSuffix(".ConnectionPoolError"), "\(String(reflecting: error))")
        #expect(APIError.isPoolGivingUp(error), "\(String(reflecting: error))")
        #expect(APIError.isDatabaseUnreachable(error))
        // Not every error: a cancelled request is the client's doing, not the database's.
        #expect(!APIError.isPoolGivingUp(CancellationError()))
        #expect(!APIError.isDatabaseUnreachable(CancellationError()))
    }
}
