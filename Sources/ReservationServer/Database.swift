import Foundation
import Logging
import PostgresNIO

/// Where the server keeps its data, from `--database`: a `postgres://` URL,
/// or else the path of an SQLite file (created when missing).
public enum Database {
    /// Opens the database, creates or checks its schema, runs `body` with the
    /// store, and closes it again, whatever `body` does. `connections` bounds
    /// the PostgreSQL connection pool; `serving` takes an SQLite file's server
    /// lock (one server per file).
    public static func withStore<Result: Sendable>(
        _ spec: String, logger: Logger, connections: Int = 20, serving: Bool = false,
        _ body: @escaping @Sendable (ServerStore) async throws -> Result
    ) async throws -> Result {
        if spec.hasPrefix("postgres://") || spec.hasPrefix("postgresql://") {
            let (store, client) = try await PostgresStore.open(url: spec, connections: connections, logger: logger)
            return try await withThrowingTaskGroup(of: Result?.self) { group in
                group.addTask {
                    await client.run()
                    return nil
                }
                group.addTask {
                    try await PostgresStore.migrate(client, url: spec, logger: logger)
                    return try await body(store)
                }
                defer { group.cancelAll() }
                while let result = try await group.next() {
                    if let result { return result }
                }
                throw CancellationError()
            }
        }
        if spec.contains("://") {
            throw StoreError.badDatabaseURL(spec, "use a postgres:// URL or the path of an SQLite file")
        }
        let path = absolute(spec)
        let folder = (path as NSString).deletingLastPathComponent
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw StoreError.cannotOpen(path, "the folder \(folder) does not exist")
        }
        let store = try await SQLiteStore.open(path: path, serving: serving, logger: logger)
        do {
            let result = try await body(store)
            try await store.close()
            return result
        } catch {
            try? await store.close()
            throw error
        }
    }

    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}
