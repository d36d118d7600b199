import FilePrimitives
import Foundation
import ReservationCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The history of a store file: `NAME.history` beside it, one change a line,
/// each a JSON object with its sequence number (`seq`), appended and fsynced
/// under the store's lock before the store that records the last sequence
/// number is renamed into place. A line whose number is above the store's
/// (a write killed between the two steps) never landed: it is never read,
/// and the next write drops it. Read from the end, so a bounded answer reads
/// a bounded part of it, whatever its length.
struct Journal {
    /// The journal file: the store file's path (at the end of its links) and `.history`.
    let path: String
    /// The store file whose history this is (at the end of its links).
    let storeFile: String
    /// The store as the user named it, for messages.
    let storePath: String

    init(storeFile: String, storePath: String) {
        path = storeFile + ".history"
        self.storeFile = storeFile
        self.storePath = storePath
    }

    /// How much is read from the end at a time.
    static let chunk = 64 << 10
    /// A line longer than this is not a change (resv writes a few hundred bytes a line): skipped, not kept.
    static let maxLine = 16 << 20

    /// The journal's lines that landed (a sequence number up to `committed`),
    /// newest first, to `visit` until it returns false. Returns how many lines
    /// were skipped as not being changes (another program's, or damaged).
    /// Numbers that do not go down from the end are reported: the journal was
    /// edited, and is left as it is.
    ///
    /// A writer may cut a tail no store counts (a killed write's) while this
    /// reads it: those lines were never the reader's to see, so the read
    /// starts again from the journal's new end (`afterOpening` lets a test
    /// cut it at that moment).
    @discardableResult
    func readBackward(
        committed: Int, afterOpening: (() -> Void)? = nil, _ visit: (_ sequence: Int, JSONValue) throws -> Bool
    ) throws -> Int {
        var attempts = 0
        while true {
            attempts += 1
            var delivered = false
            do {
                return try readBackwardOnce(committed: committed, afterOpening: afterOpening) { sequence, entry in
                    delivered = true
                    return try visit(sequence, entry)
                }
            } catch is Shrank where !delivered && attempts < Self.readAttempts {
                // Only lines past the committed ones were cut, and none of them was handed out.
                continue
            } catch is Shrank {
                throw FileStoreError.unreadable(path: storePath, reason: "its history shrank while it was read")
            }
        }
    }

    /// How many times a read starts again after a writer cut the journal's tail under it.
    static let readAttempts = 20

    /// A read found the journal shorter than when it was opened: a writer cut its tail meanwhile.
    struct Shrank: Error {}

    private func readBackwardOnce(
        committed: Int, afterOpening: (() -> Void)?, _ visit: (_ sequence: Int, JSONValue) throws -> Bool
    ) throws -> Int {
        guard let file = try open(writing: false) else { return 0 }
        defer { close(file.descriptor) }
        afterOpening?()
        var skipped = 0
        var newer: Int?
        try Self.lines(file.descriptor, size: file.size, storePath: storePath) { line in
            guard line.terminated else { return true }  // a line still being written, or torn by a kill
            guard !line.bytes.isEmpty || line.oversized else { return true }
            guard let (sequence, entry) = Self.parse(line.bytes) else {
                skipped += 1
                return true
            }
            guard sequence <= committed else { return true }
            if let newer, sequence >= newer {
                throw FileStoreError.corrupt(
                    path: path,
                    detail:
                        "its sequence numbers go backwards (\(sequence) before \(newer)) at byte \(line.offset); it was edited"
                )
            }
            newer = sequence
            return try visit(sequence, entry)
        }
        return skipped
    }

    /// Appends `entries` as the changes numbered from `committed + 1`, after
    /// dropping what a killed write left past `committed`, and makes them
    /// durable. Runs under the store's lock, before the store is written.
    func append(_ entries: [JSONValue], after committed: Int, mode: mode_t, owner: (uid_t, gid_t)? = nil) throws {
        guard !entries.isEmpty else { return }
        let created = (try? StoreFile.resolvingLinks(path, storePath: storePath))?.info == nil
        guard let file = try open(writing: true, mode: mode) else { return }
        defer { close(file.descriptor) }
        // A journal root creates for another user's store is that user's, as the store is.
        if created, let (user, group) = owner, user != geteuid() { _ = fchown(file.descriptor, user, group) }
        do {
            try append(entries, after: committed, to: file)
        } catch {
            // A journal this write created holds nothing when the write fails: it is not left behind.
            if created, let (end, _) = try? StoreFile.resolvingLinks(path, storePath: storePath) { unlink(end) }
            throw error
        }
    }

    private func append(_ entries: [JSONValue], after committed: Int, to file: (descriptor: Int32, size: Int)) throws {
        var cut = file.size
        do {
            try Self.lines(file.descriptor, size: file.size, storePath: storePath) { line in
                guard line.terminated else {
                    cut = line.offset
                    return true
                }
                guard let (sequence, _) = Self.parse(line.bytes) else { return true }
                guard sequence > committed else { return false }
                cut = line.offset
                return true
            }
        } catch is Shrank {
            // Writers hold the store's lock: only another program cuts it now.
            throw FileStoreError.unreadable(path: storePath, reason: "its history shrank while it was read")
        }
        var text: [UInt8] = []
        text.reserveCapacity(entries.count * 400)
        for (index, entry) in entries.enumerated() {
            guard case .object(var fields) = entry else { continue }
            fields["seq"] = .integer(Int64(committed + index + 1))
            text.append(contentsOf: JSONValue.object(fields).encoded())
            text.append(UInt8(ascii: "\n"))
        }
        let step = "appending to \(path)"
        guard cut == file.size || ftruncate(file.descriptor, off_t(cut)) == 0 else {
            throw FileStoreError.unwritable(path: storePath, step: step, reason: FileError.describe(errno))
        }
        var written = 0
        while written < text.count {
            let result = text.withUnsafeBytes { bytes in
                pwrite(file.descriptor, bytes.baseAddress! + written, bytes.count - written, off_t(cut + written))
            }
            if result < 0 {
                if errno == EINTR { continue }
                let reason = FileError.describe(errno)
                _ = ftruncate(file.descriptor, off_t(cut))
                throw FileStoreError.unwritable(path: storePath, step: step, reason: reason)
            }
            written += result
        }
        guard fsync(file.descriptor) == 0 else {
            throw FileStoreError.unwritable(path: storePath, step: step, reason: FileError.describe(errno))
        }
    }

    /// The sequence number and entry of a line; nil when the line is not a change.
    static func parse(_ bytes: [UInt8]) -> (Int, JSONValue)? {
        guard let json = try? JSONValue.parse(Data(bytes)), case .object(var fields) = json,
            case .integer(let sequence)? = fields["seq"], sequence > 0, let number = Int(exactly: sequence)
        else { return nil }
        fields["seq"] = nil
        return (number, .object(fields))
    }

    /// Opens the journal (following links, as the store does); nil when there is
    /// none to read. Anything but a regular file is refused before it is opened
    /// and again after, as the store is.
    private func open(writing: Bool, mode: mode_t = 0o600) throws -> (descriptor: Int32, size: Int)? {
        let (file, info) = try StoreFile.resolvingLinks(path, storePath: storePath)
        if let info {
            try requireJournalFile(info)
        } else if !writing {
            return nil
        }
        let flags = (writing ? O_RDWR | O_CREAT : O_RDONLY) | O_NONBLOCK | O_CLOEXEC
        let descriptor = Glibc.open(file, flags, mode)
        guard descriptor >= 0 else {
            if errno == ENOENT && !writing { return nil }
            let reason = FileError.describe(errno)
            if writing { throw FileStoreError.unwritable(path: storePath, step: "opening \(path)", reason: reason) }
            throw FileStoreError.unreadable(path: path, reason: reason)
        }
        var opened = stat()
        guard fstat(descriptor, &opened) == 0 else {
            close(descriptor)
            throw FileStoreError.unreadable(path: path, reason: FileError.describe(errno))
        }
        do {
            try requireJournalFile(opened)
            try requireTrusted(opened)
        } catch {
            close(descriptor)
            throw error
        }
        return (descriptor, Int(opened.st_size))
    }

    /// The journal is the store's: one that belongs to another user than the
    /// store's owner (you and root aside) could have been planted before the
    /// store's first write, to read what is appended (notes) or to rewrite
    /// what undo takes back. It is neither written nor read.
    private func requireTrusted(_ info: stat) throws(FileStoreError) {
        var store = stat()
        let owner: Set<uid_t> = lstat(storeFile, &store) == 0 ? [store.st_uid] : []
        guard Ownership.isTrusted(info.st_uid, also: owner) else {
            let foreign = Ownership.Foreign(path: path, owner: info.st_uid, what: "a history file")
            throw .foreign(path: storePath, file: foreign.description)
        }
    }

    private func requireJournalFile(_ info: stat) throws(FileStoreError) {
        guard FileKind.isRegular(info) else {
            throw .unreadable(path: path, reason: "it is \(FileKind.name(info)), not a store's history")
        }
    }

    /// One line of the file: where it starts, its bytes (without the newline),
    /// and whether a newline ends it (only the last line can lack one: it is
    /// being written, or a kill tore it). An oversized line comes without its bytes.
    struct Line {
        var offset: Int
        var bytes: [UInt8]
        var terminated: Bool
        var oversized = false
    }

    /// The lines of the first `size` bytes of a file, last first, to `visit`
    /// until it returns false; read a chunk at a time from the end.
    static func lines(_ descriptor: Int32, size: Int, storePath: String, _ visit: (Line) throws -> Bool) throws {
        var end = size
        // The bytes after the newest newline seen: the end of a line whose start is not read yet.
        // Kept as the chunks' pieces, last first, joined once the line's start is found:
        // prepending each chunk would copy a long line over and over.
        var carry: [[UInt8]] = []
        var carried = 0
        var oversized = false
        var terminated = false
        var buffer = [UInt8](repeating: 0, count: min(chunk, max(size, 1)))
        while end > 0 {
            let start = max(0, end - buffer.count)
            let count = end - start
            var read = 0
            while read < count {
                let result = buffer.withUnsafeMutableBytes { bytes in
                    pread(descriptor, bytes.baseAddress! + read, count - read, off_t(start + read))
                }
                if result < 0 {
                    if errno == EINTR { continue }
                    throw FileStoreError.unreadable(path: storePath, reason: FileError.describe(errno))
                }
                if result == 0 { break }
                read += result
            }
            guard read == count else { throw Shrank() }
            var lineEnd = count
            var index = count - 1
            while index >= 0 {
                if buffer[index] == UInt8(ascii: "\n") {
                    let bytes = oversized ? [] : Array(buffer[(index + 1)..<lineEnd]) + carry.reversed().joined()
                    // Not the nothing after the file's final newline.
                    if !bytes.isEmpty || oversized || terminated {
                        let line = Line(
                            offset: start + index + 1, bytes: bytes, terminated: terminated, oversized: oversized)
                        guard try visit(line) else { return }
                    }
                    carry.removeAll(keepingCapacity: true)
                    carried = 0
                    oversized = false
                    terminated = true
                    lineEnd = index
                }
                index -= 1
            }
            if !oversized {
                carry.append(Array(buffer[0..<lineEnd]))
                carried += lineEnd
                if carried > maxLine {
                    oversized = true
                    carry = []
                    carried = 0
                }
            }
            end = start
        }
        if carried > 0 || oversized {
            let bytes = Array(carry.reversed().joined())
            _ = try visit(Line(offset: 0, bytes: bytes, terminated: terminated, oversized: oversized))
        }
    }
}
