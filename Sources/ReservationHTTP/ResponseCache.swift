import FilePrimitives
import Foundation
import ReservationCore

#if canImport(Glibc)
    import Glibc
#endif

/// The last good answers of a server, for reading when it cannot be reached
/// (and for `--offline` and Tab completion, which never use the network).
/// One folder per server and user, under `$XDG_CACHE_HOME/resv/servers/`; the
/// folder's name is a hash of the URL and the token, so the token itself is
/// never written anywhere. A folder holds a file per list route, each at most
/// `largestFile`, and no temporary file outlives the write that made it for long.
public struct ResponseCache: Sendable {
    public let folder: URL

    /// The largest answer saved or read back: what the client accepts from a server.
    public static let largestFile = HTTPTransport.largestBody
    /// Temporary files older than this were left by a writer that was killed.
    static let leftoverAge: TimeInterval = 60

    /// The time, handed in: the age of a leftover temporary file.
    private let now: @Sendable () -> Date

    /// Why the cache is not used: a folder on its path (or the folder itself)
    /// belongs to another user, who could plant answers in it. Nil when it is this
    /// user's (or root's). An untrusted cache is neither read nor written.
    public let untrusted: Ownership.Foreign?

    public init(cacheHome: URL, baseURL: URL, token: String?, now: @escaping @Sendable () -> Date) {
        self.now = now
        let identity = baseURL.absoluteString + "\n" + (token ?? "")
        folder = cacheHome.appendingPathComponent("resv/servers/\(Self.fingerprint(identity))", isDirectory: true)
        // The server's folder, servers/, resv/ and the cache home itself.
        untrusted = Ownership.foreign(folder.path, folders: 3)
    }

    /// What a route answered, and when it was saved.
    public struct Entry: Sendable {
        public let body: Data
        public let saved: Date
    }

    /// What `name` answered last; nil when absent or larger than `largestFile` (never read whole).
    public func load(_ name: String) -> Entry? {
        guard untrusted == nil else { return nil }
        let url = folder.appendingPathComponent(name + ".json")
        // A file (or link) in it that another user made is not believed either.
        guard Ownership.foreign(url.path, folders: 0) == nil else { return nil }
        guard let file = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? file.close() }
        guard let body = try? file.read(upToCount: Self.largestFile + 1) ?? Data(), body.count <= Self.largestFile,
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
            let saved = attributes[.modificationDate] as? Date
        else { return nil }
        return Entry(body: body, saved: saved)
    }

    /// A cached list route's records and when they were saved; nil when absent or not a JSON array.
    public func records(_ name: String) -> (records: [JSONValue], saved: Date)? {
        guard let entry = load(name), case .array(let records)? = try? JSONValue.parse(entry.body) else { return nil }
        return (records, entry.saved)
    }

    /// Saves a body atomically (a whole old file or a whole new one), readable by its owner only.
    /// A cache that cannot be written is not an error: the answer was good. A body
    /// larger than `largestFile` is not saved.
    public func save(_ name: String, _ body: Data) {
        guard untrusted == nil, body.count <= Self.largestFile else { return }
        let manager = FileManager.default
        removeLeftovers()
        try? manager.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // Not durable: a cache lost in a crash is fetched again, and a list should not wait on fsync.
        try? AtomicFile.write(
            body, to: folder.appendingPathComponent(name + ".json").path, mode: 0o600, durable: false)
    }

    /// Writes a change this client made through to the cached list `name`: each
    /// record replaces the cached one with the same `id`, or is added. So an
    /// offline read never contradicts what this client did. A list never cached
    /// stays uncached (a list of only these would look complete); the records are kept
    /// in `known` all the same. Two clients
    /// writing at once take turns (a lock file), so neither loses the other's change.
    public func writeThrough(_ name: String, _ changed: [JSONValue]) {
        guard untrusted == nil, !changed.isEmpty else { return }
        guard let lock = try? FileLock.wait(folder.appendingPathComponent(".lock").path) else { return }
        defer { lock.release() }
        if name == "reservations" {
            // Every reservation this client made or changed, list or no list: what a change
            // queued right after a booking is made against (`known`).
            let kept = Self.merged(records(Self.known)?.records ?? [], changed)
            save(Self.known, JSONValue.array(Array(kept.suffix(Self.mostKnown))).encoded())
        }
        guard let (records, _) = records(name) else { return }
        save(name, JSONValue.array(Self.merged(records, changed)).encoded())
    }

    /// The records this client made or changed lately, newest last, whether or not a list is
    /// cached: `records(ResponseCache.known)`. Never shown as the user's list.
    public static let known = "known"
    /// The most records `known` keeps.
    static let mostKnown = 1000

    /// `records` with each of `changed` in place of the one with its `id`, or added at the end.
    private static func merged(_ records: [JSONValue], _ changed: [JSONValue]) -> [JSONValue] {
        var updated = records
        var position: [String: Int] = [:]
        for (index, record) in updated.enumerated() {
            if case .string(let id)? = record["id"] { position[id.lowercased()] = index }
        }
        for record in changed {
            guard case .string(let id)? = record["id"] else { continue }
            if let index = position[id.lowercased()] {
                updated[index] = record
            } else {
                position[id.lowercased()] = updated.count
                updated.append(record)
            }
        }
        return updated
    }

    /// Removes the temporary files of writers that were killed before their rename.
    func removeLeftovers() {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: folder.path) else { return }
        // AtomicFile.write's temporary files (".<name>.json.resv-tmp.XXXXXX"), and older resv's (".<name>.<uuid>.tmp").
        for name in names where name.hasPrefix(".") && (name.contains(".resv-tmp.") || name.hasSuffix(".tmp")) {
            let path = folder.appendingPathComponent(name).path
            guard let modified = (try? manager.attributesOfItem(atPath: path))?[.modificationDate] as? Date,
                now().timeIntervalSince(modified) > Self.leftoverAge
            else { continue }
            try? manager.removeItem(atPath: path)
        }
    }

    /// FNV-1a, 64 bits, twice with different seeds: a stable folder name that
    /// does not reveal the token (and needs no cryptography library).
    static func fingerprint(_ text: String) -> String {
        func fnv(_ seed: UInt64) -> UInt64 {
            var hash = seed
            for byte in text.utf8 {
                hash ^= UInt64(byte)
                hash &*= 0x100_0000_01b3
            }
            return hash
        }
        return String(format: "%016llx%016llx", fnv(0xcbf2_9ce4_8422_2325), fnv(0x8422_2325_cbf2_9ce4))
    }
}

/// How a backend uses its cache.
public enum CacheMode: Sendable {
    /// Ask the server; when it cannot be reached, read the cache and call `stale` with its age.
    case fallback(stale: @Sendable (TimeInterval) -> Void)
    /// Never ask the server: read the cache only (`--offline`).
    case offline
}
