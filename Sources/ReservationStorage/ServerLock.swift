import FilePrimitives
import Foundation

/// An exclusive lock on a file beside the database, held while serving.
/// (A separate file: SQLite's own POSIX locks on the database are dropped when
/// any descriptor of it closes, so the database itself is not touched.)
final class ServerLock: Sendable {
    private let lock: FileLock

    init(_ path: String, database: String) throws {
        let held: FileLock?
        do {
            held = try FileLock.attempt(path)
        } catch {
            throw DatabaseError.cannotOpen(database, "cannot create its lock file \(path): \(error.reason)")
        }
        guard let held else { throw DatabaseError.inUse(database) }
        lock = held
    }

    func release() {
        lock.release()
    }
}
