import Foundation
import Logging
import PostgresNIO
import Testing

@testable import ReservationStorage

extension Engine {
    /// Runs `body` with the URL of a new PostgreSQL database of its own on the test server,
    /// dropped afterwards: for a test that changes what every server of a database shares
    /// (the catalog), which the one database the other suites share must not see.
    static func withOwnPostgresDatabase(_ body: @Sendable (String) async throws -> Void) async throws {
        let shared = try #require(postgresURL)
        var parts = try #require(URLComponents(string: shared))
        let name = "resv_own_\(UUID().uuidString.prefix(8).lowercased())"
        parts.path = "/\(name)"
        let url = try #require(parts.string)
        var logger = Logger(label: "resv-own-database")
        logger.logLevel = .critical
        try await administer(shared, logger: logger, "CREATE DATABASE \(name)")
        do {
            try await body(url)
        } catch {
            try? await administer(shared, logger: logger, "DROP DATABASE \(name) WITH (FORCE)")
            throw error
        }
        try await administer(shared, logger: logger, "DROP DATABASE \(name) WITH (FORCE)")
    }

    /// One statement on the shared database, outside a transaction (as CREATE DATABASE must be).
    private static func administer(_ url: String, logger: Logger, _ statement: String) async throws {
        let admin = try await PostgresCluster(PostgresTarget(url), connections: 1, logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await admin.run() }
            defer { group.cancelAll() }
            try await admin.client.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
    }
}
