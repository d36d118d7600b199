import Foundation
import Logging
import NIOCore
import PostgresNIO

#if canImport(Glibc)
    import Glibc
#endif

/// Where the server keeps its data, from `--database`: a `postgres://` URL,
/// or else the path of an SQLite file (created when missing).
public enum Database {
    /// Opens the database, creates or checks its schema, runs `body` with the
    /// store, and closes it again, whatever `body` does. `connections` bounds
    /// the PostgreSQL connection pool; `serving` takes an SQLite file's server
    /// lock (one server per file).
    public static func withStore<Result: Sendable>(
        _ spec: String, logger: Logger, connections: Int = 20, serving: Bool = false,
        now: @escaping @Sendable () -> Date,
        _ body: @escaping @Sendable (ServerStore) async throws -> Result
    ) async throws -> Result {
        if spec.hasPrefix("postgres://") || spec.hasPrefix("postgresql://") {
            // The pool retries an unreachable database for a minute, logging each attempt: the
            // cluster first finds its host with connections of its own, and says at once why not.
            let target = try PostgresTarget(spec)
            let cluster = try await PostgresCluster(target, connections: connections, logger: logger)
            let opened = PostgresStore.open(cluster: cluster, logger: logger, now: now)
            return try await withThrowingTaskGroup(of: Result?.self) { group in
                group.addTask {
                    await cluster.run()
                    return nil
                }
                group.addTask {
                    var store = opened
                    try await PostgresStore.migrate(cluster.client, url: target.redacted, logger: logger)
                    store.cursorKey = try await PostgresStore.cursorKey(cluster.client, logger: logger)
                    // The server's probe: finds the primary again, and moves the pool when it moved.
                    let reachability = Reachability(probe: { await cluster.check() })
                    cluster.whenMoved { reachability.interrupt() }
                    store.reachability = reachability
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
            throw DatabaseError.badDatabaseURL(spec, "use a postgres:// URL or the path of an SQLite file")
        }
        let path = absolute(spec)
        let folder = (path as NSString).deletingLastPathComponent
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw DatabaseError.cannotOpen(path, "the folder \(folder) does not exist")
        }
        try restrictFileModes(path)
        let store = try await SQLiteStore.open(path: path, serving: serving, logger: logger, now: now)
        do {
            let result = try await body(store)
            try await store.close()
            return result
        } catch {
            try? await store.close()
            throw error
        }
    }

    /// A connection failure in a few words: the server's message, or the socket's.
    static func reason(_ error: PSQLError, host: String, port: Int) -> String {
        if let message = error.serverInfo?[.message] { return message }
        if var underlying = error.underlying {
            if let failures = underlying as? NIOConnectionError, let first = failures.connectionErrors.first?.error {
                underlying = first
            }
            if let io = underlying as? IOError {
                return "cannot connect to \(host):\(port): \(String(cString: strerror(io.errnoCode)))"
            }
            if case ChannelError.connectTimeout = underlying {
                return "no answer from \(host):\(port) (connect timeout)"
            }
            return "cannot connect to \(host):\(port): \(underlying)"
        }
        if error.code == .serverClosedConnection { return "\(host):\(port) closed the connection before answering" }
        return "cannot connect to \(host):\(port): \(error.code)"
    }

    /// The database, its -wal and -shm files and the lock beside them hold
    /// every user's reservations: owner only, whatever the umask. A new file is
    /// created 0600 before SQLite opens it (SQLite gives its -wal and -shm the
    /// database's mode); existing ones are narrowed to 0600.
    static func restrictFileModes(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw DatabaseError.cannotOpen(path, String(cString: strerror(errno)))
        }
        close(descriptor)
        for file in [path, path + "-wal", path + "-shm", path + "-journal"] {
            var info = stat()
            guard lstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == getuid(),
                info.st_mode & 0o077 != 0
            else { continue }
            _ = chmod(file, info.st_mode & 0o700)
        }
    }

    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}
