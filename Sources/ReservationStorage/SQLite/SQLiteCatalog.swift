import Foundation
import ReservationCore
import SQLiteNIO

/// The catalog on SQLite (`StoredCatalog`): its one writer orders a change
/// against every booking, which reads the version in its own transaction.
extension SQLiteEngine {
    func catalog(newerThan version: Int64) async throws -> StoredCatalog? {
        let db = readers.next()
        let stored = try await SQLiteCatalog.version(db)
        guard stored != 0, stored != version else { return nil }
        return try await SQLiteCatalog.load(db)
    }

    func changeCatalog(_ edit: @escaping @Sendable (StoredCatalog) throws -> [CatalogWrite]) async throws
        -> StoredCatalog
    {
        try await writer.perform { db in
            let stored = try await SQLiteCatalog.load(db)
            let writes = try edit(stored)
            guard !writes.isEmpty else { return stored }
            let version = stored.version + 1
            var position =
                try await db.query("SELECT COALESCE(MAX(position), 0) AS p FROM landmarks").first?
                .column("p")?.integer ?? 0
            for write in writes {
                position += 1
                _ = try await db.query(
                    """
                    INSERT INTO landmarks (id, position, record, retired, version) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET record = excluded.record, retired = excluded.retired,
                        version = excluded.version
                    """,
                    [
                        .text(write.id.description), .integer(position),
                        .text(String(decoding: write.record.encoded(), as: UTF8.self)), .integer(write.retired ? 1 : 0),
                        .integer(Int(version)),
                    ])
            }
            return try await SQLiteCatalog.load(db)
        }
    }

    /// The catalog in force in the writer's transaction under way.
    static func catalog(in db: SQLiteConnection, known: LandmarkCatalog) async throws -> LandmarkCatalog {
        try await StoredCatalog.inForce(known: known, version: try await SQLiteCatalog.version(db)) {
            try await SQLiteCatalog.load(db)
        }
    }
}

enum SQLiteCatalog {
    static func version(_ db: SQLiteConnection) async throws -> Int64 {
        Int64(
            try await db.query("SELECT COALESCE(MAX(version), 0) AS v FROM landmarks").first?.column("v")?.integer ?? 0)
    }

    static func load(_ db: SQLiteConnection) async throws -> StoredCatalog {
        let rows = try await db.query("SELECT record, version FROM landmarks ORDER BY position, id")
        var version: Int64 = 0
        var records: [JSONValue] = []
        for row in rows {
            version = max(version, Int64(row.column("version")?.integer ?? 0))
            guard let text = row.column("record")?.string else { throw DatabaseError.corruptRow("a landmark") }
            do { records.append(try JSONValue.parse(Data(text.utf8))) } catch {
                throw DatabaseError.corruptRow("a landmark")
            }
        }
        return StoredCatalog(version: version, records: records)
    }
}
