import Foundation
import SQLiteNIO

/// The one writing connection. Requests queue here; while a transaction
/// commits, the next ones gather, and all of them commit together: one fsync
/// for many bookings. Each request runs in its own savepoint, so one that
/// fails leaves the others' work in place.
actor SQLiteWriter {
    private struct Job: Sendable {
        /// Runs the work; returns whether it failed and how to answer once the transaction ends.
        let run: @Sendable (SQLiteConnection) async -> (failed: Bool, finish: @Sendable ((any Error)?) -> Void)
        let fail: @Sendable (any Error) -> Void
    }

    private let connection: SQLiteConnection
    private var pending: [Job] = []
    private var draining = false

    init(_ connection: SQLiteConnection) { self.connection = connection }

    func perform<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) async throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let job = Job(
                run: { connection in
                    do {
                        let value = try await body(connection)
                        return (
                            false,
                            { commitError in
                                if let commitError {
                                    continuation.resume(throwing: commitError)
                                } else {
                                    continuation.resume(returning: value)
                                }
                            }
                        )
                    } catch {
                        return (true, { _ in continuation.resume(throwing: error) })
                    }
                },
                fail: { continuation.resume(throwing: $0) }
            )
            pending.append(job)
            if !draining {
                draining = true
                Task { await self.drain() }
            }
        }
    }

    func close() async throws {
        try await connection.close()
    }

    private func drain() async {
        while !pending.isEmpty {
            let batch = pending
            pending.removeAll(keepingCapacity: true)
            var finishers: [@Sendable ((any Error)?) -> Void] = []
            finishers.reserveCapacity(batch.count)
            do {
                try await execute("BEGIN IMMEDIATE")
                for job in batch {
                    try await execute("SAVEPOINT request")
                    let (failed, finish) = await job.run(connection)
                    if failed { try await execute("ROLLBACK TO request") }
                    try await execute("RELEASE request")
                    finishers.append(finish)
                }
                try await execute("COMMIT")
                for finish in finishers { finish(nil) }
            } catch {
                _ = try? await execute("ROLLBACK")
                for finish in finishers { finish(error) }
                for job in batch.dropFirst(finishers.count) { job.fail(error) }
            }
        }
        draining = false
    }

    private func execute(_ sql: String) async throws {
        _ = try await connection.query(sql)
    }
}
