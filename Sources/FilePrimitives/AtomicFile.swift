import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The one way resv replaces a file: a whole old file or a whole new one,
/// whatever happens (kill -9, a full disk, power loss when `durable`). Used by
/// the store, the config file and the response cache.
///
/// A temporary file beside the target (`mkstemp`, so `O_EXCL`: it never opens
/// a link someone planted), its mode set, written whole, fsynced; renamed over
/// the target; the directory fsynced, so the rename itself is on disk.
public enum AtomicFile {
    /// Replaces `path` with `data`. The temporary file is `.<name><mark>XXXXXX` in
    /// the same directory (`removeAbandoned` finds those of killed writers).
    /// `durable: false` skips both fsyncs, for a file that may be lost in a crash
    /// (a cache, fetched again), never for one that holds the only copy of anything.
    /// `owner` is given the new file when this process is root (root rewriting
    /// another user's file keeps it theirs, with its group).
    public static func write(
        _ data: Data, to path: String, mode: mode_t, mark: String = ".resv-tmp.", durable: Bool = true,
        owner: (uid_t, gid_t)? = nil
    ) throws(FileError) {
        let directory = directory(of: path)
        var template = Array((directory + "/." + name(of: path) + mark + "XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw .system("creating a temporary file in \(directory)") }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var renamed = false
        defer {
            if !renamed { unlink(temporary) }
        }
        do {
            defer { close(descriptor) }
            // Only root may give a file away; anyone else writes a shared store as before (theirs).
            if geteuid() == 0, let (user, group) = owner, user != 0 || group != getegid() {
                guard fchown(descriptor, user, group) == 0 else {
                    throw FileError.system("giving \(temporary) to \(Ownership.name(of: user))")
                }
            }
            guard fchmod(descriptor, mode) == 0 else { throw FileError.system("setting the mode of \(temporary)") }
            let failed = data.withUnsafeBytes { FileDescriptor.writeAll(descriptor, $0) }
            if let failed { throw FileError.system("writing \(temporary)", failed) }
            if durable, fsync(descriptor) != 0 { throw FileError.system("syncing \(temporary)") }
        }
        guard rename(temporary, path) == 0 else { throw .system("renaming \(temporary) over \(path)") }
        renamed = true
        guard durable else { return }
        let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryDescriptor >= 0 else { throw .system("opening \(directory) to sync it") }
        defer { close(directoryDescriptor) }
        guard fsync(directoryDescriptor) == 0 else { throw .system("syncing \(directory)") }
    }

    /// Removes the temporary files `write` left when its writer was killed
    /// before the rename. Only what resv can have made goes: a regular file (by
    /// `lstat`: never a link's target) of this user with exactly such a name.
    /// Call it only while holding the lock that writers of `path` hold.
    public static func removeAbandoned(of path: String, mark: String = ".resv-tmp.") {
        let directory = directory(of: path)
        let prefix = "." + name(of: path) + mark
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.hasPrefix(prefix) && name.count == prefix.count + 6 {
            let candidate = directory + "/" + name
            var info = stat()
            guard lstat(candidate, &info) == 0, FileKind.isRegular(info), info.st_uid == geteuid() else { continue }
            unlink(candidate)
        }
    }

    /// The directory part of a path as written, without resolving it, so that
    /// `..` after a linked directory means what the kernel says it means.
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    public static func name(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
