import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Whose a file is, for the rule that a file resv keeps for a user (REPL
/// history, cache, lock files, the journal) is never written or believed
/// through a link another user owns, or in a folder another user owns: another
/// local user could otherwise plant what resv reads, or aim what it writes.
/// Trusted owners are this user and root, and whoever `also` names (the owner
/// of the store a lock or journal belongs to).
public enum Ownership {
    /// A file, link or folder that belongs to someone resv does not trust.
    public struct Foreign: Error, Sendable, Equatable {
        public let path: String
        public let owner: uid_t
        /// "a symbolic link", "a folder", "a file", "a lock file".
        public let what: String

        public init(path: String, owner: uid_t, what: String) {
            self.path = path
            self.owner = owner
            self.what = what
        }

        /// "/tmp/x/resv is a folder owned by mallory (uid 1001)".
        public var description: String { "\(path) is \(what) owned by \(Ownership.name(of: owner))" }
    }

    public static func isTrusted(_ owner: uid_t, also: Set<uid_t> = []) -> Bool {
        owner == geteuid() || owner == 0 || also.contains(owner)
    }

    /// The first of `path` (its own entry, not followed: a link is judged by
    /// its owner) and its `folders` nearest folders that belongs to an
    /// untrusted user; nil when all are trusted or absent.
    public static func foreign(_ path: String, folders: Int = 1, also: Set<uid_t> = []) -> Foreign? {
        var current = path
        for level in 0...folders {
            var info = stat()
            if lstat(current, &info) == 0, !isTrusted(info.st_uid, also: also) {
                let what =
                    level > 0 || FileKind.isDirectory(info)
                    ? "a folder" : FileKind.isLink(info) ? "a symbolic link" : "a file"
                return Foreign(path: current, owner: info.st_uid, what: what)
            }
            let parent = AtomicFile.directory(of: current)
            guard parent != current else { break }
            current = parent
        }
        return nil
    }

    /// A user's name and uid, as messages give them: "mallory (uid 1001)", or "uid 1001".
    public static func name(of uid: uid_t) -> String {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name
        else { return "uid \(uid)" }
        return "\(String(cString: name)) (uid \(uid))"
    }
}
