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
            // The pool retries an unreachable database for a minute, logging each
            // attempt: one connection of our own says at once why it cannot.
            try await probe(spec, logger: logger)
            let (store, client) = try await PostgresStore.open(
                url: spec, connections: connections, logger: logger, now: now)
            return try await withThrowingTaskGroup(of: Result?.self) { group in
                group.addTask {
                    await client.run()
                    return nil
                }
                group.addTask {
                    try await PostgresStore.migrate(client, url: spec, logger: logger)
                    var store = store
                    store.cursorKey = try await PostgresStore.cursorKey(client, logger: logger)
                    store.reachability = Reachability(probe: {
                        (try? await probe(spec, timeout: .seconds(2), logger: logger)) != nil
                    })
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

    /// Connects once, within `timeout`, and disconnects: throws `cannotOpen` with
    /// the reason (refused, no answer, a login refused) when that fails.
    static func probe(_ url: String, timeout: Duration = .seconds(10), logger: Logger) async throws {
        _ = try PostgresStore.configuration(url)  // the URL's own errors first
        let components = URLComponents(string: url)
        let host = components?.host ?? "localhost"
        let port = components?.port ?? 5432
        let mode = components?.queryItems?.first { $0.name == "sslmode" }?.value ?? "prefer"
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: components?.user ?? "", password: components?.password,
            database: components?.path.split(separator: "/").first.map(String.init),
            tls: .disable)
        if mode != "disable" {
            let context = try NIOSSLContext(configuration: .makeClientConfiguration())
            configuration.tls = mode == "require" || mode.hasPrefix("verify") ? .require(context) : .prefer(context)
        }
        configuration.options.connectTimeout = TimeAmount.nanoseconds(Int64(timeout / .nanoseconds(1)))
        var quiet = logger
        quiet.logLevel = .critical
        let settings = configuration
        let probeLogger = quiet
        let target = "\(PostgresStore.redacted(url))"
        do {
            let connection = try await withThrowingTaskGroup(of: PostgresConnection?.self) { group in
                group.addTask {
                    try await PostgresConnection.connect(configuration: settings, id: 0, logger: probeLogger)
                }
                group.addTask {
                    try await Task.sleep(for: timeout + .seconds(1))
                    return nil
                }
                defer { group.cancelAll() }
                return try await group.next() ?? nil
            }
            guard let connection else {
                throw DatabaseError.cannotOpen(
                    target, "no answer from \(host):\(port) within \(timeout.components.seconds) s")
            }
            try? await connection.close()
        } catch let error as PSQLError {
            throw DatabaseError.cannotOpen(target, reason(error, host: host, port: port))
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
