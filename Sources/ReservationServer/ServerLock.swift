import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An exclusive `flock` on a file beside the database, held while serving.
/// (A separate file: SQLite's own POSIX locks on the database are dropped when
/// any descriptor of it closes, so the database itself is not touched.)
final class ServerLock: Sendable {
    private let descriptor: Int32

    init(_ path: String, database: String) throws {
        let descriptor = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StoreError.cannotOpen(
                database, "cannot create its lock file \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw StoreError.inUse(database)
        }
        self.descriptor = descriptor
    }

    func release() {
        close(descriptor)
    }
}
