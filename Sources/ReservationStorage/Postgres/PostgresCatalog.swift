import Foundation
import Logging
import PostgresNIO
import ReservationCore

/// The catalog on PostgreSQL (`StoredCatalog`), shared by every instance: a
/// change takes the catalog's advisory lock exclusively, every booking's
/// transaction takes it shared before it reads the version, so a booking is
/// decided by the catalog in force when it commits.
extension PostgresEngine {
    func catalog(newerThan version: Int64) async throws -> StoredCatalog? {
        try await cluster.client.withConnection { db in
            let stored = try await PostgresCatalog.version(db, logger: logger)
            guard stored != 0, stored != version else { return nil }
            return try await PostgresCatalog.load(db, logger: logger)
        }
    }

    func changeCatalog(_ edit: @escaping @Sendable (StoredCatalog) throws -> [CatalogWrite]) async throws
        -> StoredCatalog
    {
        try await PostgresStore.retrying {
            try await cluster.client.withTransaction(logger: logger) { db in
                try await db.run(
                    "SELECT pg_advisory_xact_lock(hashtextextended(\(PostgresCatalog.lock), 0))", logger: logger)
                let stored = try await PostgresCatalog.load(db, logger: logger)
                let writes = try edit(stored)
                guard !writes.isEmpty else { return stored }
                let version = stored.version + 1
                try await db.run(
                    """
                    INSERT INTO landmarks (id, position, record, retired, version)
                    SELECT w.id, (SELECT COALESCE(MAX(position), 0) FROM landmarks) + w.i, w.record, w.retired, \(version)
                    FROM UNNEST(\(writes.map(\.id.description))::TEXT[],
                                \(writes.map { String(decoding: $0.record.encoded(), as: UTF8.self) })::TEXT[],
                                \(writes.map { $0.retired ? 1 : 0 })::BIGINT[]) WITH ORDINALITY AS w (id, record, retired, i)
                    ON CONFLICT (id) DO UPDATE SET record = EXCLUDED.record, retired = EXCLUDED.retired,
                        version = EXCLUDED.version
                    """, logger: logger)
                return try await PostgresCatalog.load(db, logger: logger)
            }
        }
    }

    /// The catalog in force in the transaction under way: its lock taken shared first (a
    /// statement of its own, so the version is read after any change holding it committed).
    static func catalog(in db: PostgresConnection, known: LandmarkCatalog, logger: Logger) async throws
        -> LandmarkCatalog
    {
        try await db.run(
            "SELECT pg_advisory_xact_lock_shared(hashtextextended(\(PostgresCatalog.lock), 0))", logger: logger)
        return try await StoredCatalog.inForce(
            known: known, version: try await PostgresCatalog.version(db, logger: logger)
        ) { try await PostgresCatalog.load(db, logger: logger) }
    }
}

enum PostgresCatalog {
    static let lock = "catalog"

    static func version(_ db: PostgresConnection, logger: Logger) async throws -> Int64 {
        try await db.run("SELECT COALESCE(MAX(version), 0)::BIGINT FROM landmarks", logger: logger).first?
            .decode(Int64.self) ?? 0
    }

    static func load(_ db: PostgresConnection, logger: Logger) async throws -> StoredCatalog {
        let rows = try await db.run(
            "SELECT record, version FROM landmarks ORDER BY position, id COLLATE \"C\"", logger: logger)
        var version: Int64 = 0
        var records: [JSONValue] = []
        for row in rows {
            let (text, rowVersion) = try row.decode((String, Int64).self)
            version = max(version, rowVersion)
            do { records.append(try JSONValue.parse(Data(text.utf8))) } catch {
                throw DatabaseError.corruptRow("a landmark")
            }
        }
        return StoredCatalog(version: version, records: records)
    }
}
