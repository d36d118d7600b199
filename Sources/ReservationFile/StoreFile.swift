import FilePrimitives
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The store's file system steps done by hand, on descriptors and `lstat`,
/// so that what is checked (a link, the kind of file, its size, its mode) is
/// what is then used, and nothing is opened that could block or follow a
/// link it should not.
enum StoreFile {
    /// The most links followed before giving up, as the kernel's own bound (Linux: 40).
    static let maxLinks = 40

    /// Where a chain of symbolic links starting at `path` ends, and what is
    /// there (nil: nothing yet, as for a missing store or a dangling link,
    /// which a write then creates). Each relative link is read from the
    /// directory of the link that holds it, as the kernel does.
    static func resolvingLinks(_ path: String, storePath: String) throws(FileStoreError) -> (path: String, info: stat?)
    {
        var current = path
        for _ in 0...maxLinks {
            var info = stat()
            guard lstat(current, &info) == 0 else {
                if errno == ENOENT { return (current, nil) }
                throw .unreadable(path: storePath, reason: FileError.describe(errno))
            }
            guard FileKind.isLink(info) else { return (current, info) }
            // A link another user planted on the way is never followed (see `Ownership`).
            guard Ownership.isTrusted(info.st_uid) else {
                let link = Ownership.Foreign(path: current, owner: info.st_uid, what: "a symbolic link")
                throw .foreign(path: storePath, file: link.description)
            }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(current, &buffer, buffer.count - 1)
            guard count >= 0 else { throw .unreadable(path: storePath, reason: FileError.describe(errno)) }
            let destination = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = destination.hasPrefix("/") ? destination : AtomicFile.directory(of: current) + "/" + destination
        }
        throw .unreadable(path: storePath, reason: FileError.describe(ELOOP))
    }

    /// Refuses anything but a regular file as the store, by what it is.
    static func requireStoreFile(_ info: stat, storePath: String) throws(FileStoreError) {
        guard FileKind.isRegular(info) else {
            throw .unreadable(path: storePath, reason: "it is \(FileKind.name(info)), not a store file")
        }
    }

    /// The whole regular file at `path` and its status, from one descriptor;
    /// nil when there is no file. A path that names something else (a FIFO
    /// that would block, a device that never ends) is refused before it is
    /// opened, and again by `fstat` on what was opened; a file larger than
    /// `limit` bytes is refused before any of it is read.
    static func read(_ path: String, limit: Int, storePath: String) throws(FileStoreError) -> (data: Data, info: stat)?
    {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw .unreadable(path: storePath, reason: FileError.describe(errno))
        }
        try requireStoreFile(info, storePath: storePath)
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw .unreadable(path: storePath, reason: FileError.describe(errno))
        }
        defer { close(fd) }
        guard fstat(fd, &info) == 0 else { throw .unreadable(path: storePath, reason: FileError.describe(errno)) }
        try requireStoreFile(info, storePath: storePath)
        let size = Int(info.st_size)
        guard size <= limit else { throw .tooLarge(path: storePath, bytes: size, limit: limit) }
        // One byte more than the size, so the end shows as a read of 0 without growing.
        var data = Data(count: size + 1)
        var count = 0
        while true {
            if count == data.count {
                // Grown since fstat (writers rename, so only someone else's writes do this).
                guard count <= limit else { throw .tooLarge(path: storePath, bytes: count, limit: limit) }
                data.count += max(count / 2, 1 << 16)
            }
            let result = data.withUnsafeMutableBytes { buffer in
                Glibc.read(fd, buffer.baseAddress! + count, buffer.count - count)
            }
            if result == 0 { break }
            if result < 0 {
                if errno == EINTR { continue }
                throw .unreadable(path: storePath, reason: FileError.describe(errno))
            }
            count += result
        }
        guard count <= limit else { throw .tooLarge(path: storePath, bytes: count, limit: limit) }
        data.count = count
        return (data, info)
    }

    /// A store the user made read-only stays so: a rename only needs the
    /// directory's permission, so without this a rewrite would replace it
    /// anyway. The owner's write bit is checked as well as `access`, because
    /// root may write any file.
    static func requireWritable(_ info: stat, path: String, storePath: String) throws(FileStoreError) {
        let step = "checking its permissions"
        guard info.st_mode & S_IWUSR != 0 else {
            let mode = String(format: "%04o", info.st_mode & 0o7777)
            throw .unwritable(
                path: storePath, step: step,
                reason: "its mode \(mode) does not let its owner write it; chmod u+w \(path) to allow changes")
        }
        guard access(path, W_OK) == 0 else {
            throw .unwritable(path: storePath, step: step, reason: FileError.describe(errno))
        }
    }
}
