import Foundation
import ResvTestKit
import Testing

@testable import ReservationCore
@testable import ReservationFile

#if canImport(Glibc)
    import Glibc
#endif

/// Stores that are links, lock files and temporary files that are not what
/// they seem, modes the user chose, and paths that are not files at all.
extension JSONFileStoreTests {
    func service(at url: URL) -> ReservationService {
        .jsonFile(JSONFileStore(url: url), now: { [now] in now }, clock: .continuous)
    }

    func names(in directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    func storedCount(_ path: String) throws -> Int {
        let root = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
        return try #require((root as? [String: Any])?["reservations"] as? [Any]).count
    }

    func linkDestination(_ path: String) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: path)
    }

    func subdirectory(_ name: String) throws -> URL {
        let sub = directory.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        return sub
    }

    // MARK: - Symbolic links

    @Test(arguments: [false, true])
    func aSymlinkedStoreIsWrittenThroughAndStaysALink(absolute: Bool) async throws {
        let data = try subdirectory("data")
        let real = data.appendingPathComponent("real.json")
        try Data(#"{"version": 1, "reservations": []}"#.utf8).write(to: real)
        let destination = absolute ? real.path : "data/real.json"
        try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: destination)

        _ = try await service().reserve(request())
        _ = try await service().reserve(request())

        #expect(linkDestination(url.path) == destination, "the link was replaced by a file")
        #expect(try storedCount(real.path) == 2)
        #expect(try names(in: directory) == ["data", "store.json"], "no lock or temporary file beside the link")
        #expect(try names(in: data) == ["real.json", "real.json.history", "real.json.lock"])
        #expect(try await service().fetch().reservations.count == 2)
    }

    @Test func aChainOfLinksIsFollowedEachRelativeToItsOwnDirectory() async throws {
        let links = try subdirectory("links")
        let data = try subdirectory("data")
        // store.json → links/next.json → ../data/real.json (relative to links/, not to the store's folder).
        try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: "links/next.json")
        try FileManager.default.createSymbolicLink(
            atPath: links.appendingPathComponent("next.json").path, withDestinationPath: "../data/real.json")

        _ = try await service().reserve(request())

        #expect(linkDestination(url.path) == "links/next.json")
        #expect(linkDestination(links.appendingPathComponent("next.json").path) == "../data/real.json")
        #expect(try names(in: data) == ["real.json", "real.json.history", "real.json.lock"])
        #expect(try storedCount(data.appendingPathComponent("real.json").path) == 1)
    }

    @Test func aDanglingLinkCreatesItsTargetOwnerOnly() async throws {
        let data = try subdirectory("data")
        try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: "data/new.json")
        #expect(try await service().fetch().reservations.isEmpty, "a dangling link reads as an empty store")

        _ = try await service().reserve(request())

        #expect(linkDestination(url.path) == "data/new.json")
        let created = data.appendingPathComponent("new.json").path
        #expect(try storedCount(created) == 1)
        #expect(try mode(created) == 0o600)
        #expect(try names(in: data) == ["new.json", "new.json.history", "new.json.lock"])
    }

    @Test func aLoopOfLinksIsRefusedAndLeftAlone() async throws {
        let other = directory.appendingPathComponent("other.json").path
        try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: "other.json")
        try FileManager.default.createSymbolicLink(atPath: other, withDestinationPath: "store.json")

        for run in [{ _ = try await service().fetch() }, { _ = try await service().reserve(request()) }] {
            let error = try await #require(throws: FileStoreError.self) { try await run() }
            #expect(error.localizedDescription.contains("Too many levels of symbolic links"), "\(error)")
        }
        #expect(linkDestination(url.path) == "other.json")
        #expect(linkDestination(other) == "store.json")
    }

    // MARK: - The lock file

    @Test func theLockIsNeverOpenedThroughASymlink() async throws {
        let victim = directory.appendingPathComponent("victim").path
        try FileManager.default.createSymbolicLink(atPath: url.path + ".lock", withDestinationPath: victim)

        let error = try await #require(throws: FileStoreError.self) { try await service().reserve(request()) }

        guard case .unwritable = error else { throw error }
        #expect(error.localizedDescription.contains("\(url.path).lock: it is a symbolic link"), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: victim), "the link's target was created")
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(linkDestination(url.path + ".lock") == victim)
    }

    @Test(arguments: [SpecialFile.directory, .fifo])
    func aLockPathThatIsNotARegularFileIsRefused(_ kind: SpecialFile) async throws {
        try kind.make(at: url.path + ".lock")

        let error = try await #require(throws: FileStoreError.self) { try await service().reserve(request()) }

        guard case .unwritable = error else { throw error }
        #expect(error.localizedDescription.contains("\(url.path).lock: it is \(kind), not a regular file"), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    // MARK: - Temporary files

    @Test func onlyTemporaryFilesResvMadeAreCleanedUp() async throws {
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        func make(_ name: String) throws {
            try Data("{\"version\": 1, \"reserv".utf8).write(to: URL(fileURLWithPath: path(name)))
        }
        // What a `kill -9` between mkstemp and rename leaves: a half-written temporary file.
        try make(".store.json.resv-tmp.Ab12Cd")
        // Not resv's: a name that only looks alike, a link, a folder, another user's file.
        try make(".store.json.Ab12Cd")
        try make(".store.json.resv-tmp.Ab12Cd7")
        try make("victim")
        try FileManager.default.createSymbolicLink(
            atPath: path(".store.json.resv-tmp.Link01"), withDestinationPath: path("victim"))
        try FileManager.default.createDirectory(
            atPath: path(".store.json.resv-tmp.Dir001"), withIntermediateDirectories: false)
        let otherUser = geteuid() == 0
        if otherUser {
            try make(".store.json.resv-tmp.Other1")
            #expect(chown(path(".store.json.resv-tmp.Other1"), 4242, 4242) == 0)
        }

        _ = try await service().fetch()
        #expect(FileManager.default.fileExists(atPath: path(".store.json.resv-tmp.Ab12Cd")), "a read removes nothing")

        _ = try await service().reserve(request())

        var kept = [
            ".store.json.Ab12Cd", ".store.json.resv-tmp.Ab12Cd7", ".store.json.resv-tmp.Dir001",
            ".store.json.resv-tmp.Link01", "store.json", "store.json.history", "store.json.lock", "victim",
        ]
        if otherUser { kept.append(".store.json.resv-tmp.Other1") }
        #expect(try names(in: directory) == kept.sorted())
        #expect(linkDestination(path(".store.json.resv-tmp.Link01")) == path("victim"))
    }

    // MARK: - Permissions

    @Test func aRewriteKeepsOnlyThePermissionBits() async throws {
        try Data(#"{"version": 1, "reservations": []}"#.utf8).write(to: url)
        #expect(chmod(url.path, S_ISUID | S_ISGID | S_ISVTX | 0o750) == 0)
        _ = try await service().reserve(request())
        #expect(try mode(url.path) == 0o750)
    }

    @Test(arguments: [0o444, 0o555, 0o077])
    func aStoreItsOwnerMayNotWriteIsRefusedAndUntouched(permissions: Int) async throws {
        try Data(#"{"version": 1, "reservations": []}"#.utf8).write(to: url)
        #expect(chmod(url.path, mode_t(permissions)) == 0)
        let before = try Data(contentsOf: url)
        let inode = try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? Int

        let error = try await #require(throws: FileStoreError.self) { try await service().reserve(request()) }

        guard case .unwritable = error else { throw error }
        #expect(error.localizedDescription.contains(String(format: "mode %04o", permissions)), "\(error)")
        #expect(try Data(contentsOf: url) == before)
        #expect(try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? Int == inode)
        #expect(try mode(url.path) == permissions)
        #expect(try await service().fetch().reservations.isEmpty, "reading it still works")
    }

    // MARK: - Paths that are not files

    @Test(arguments: SpecialFile.allCases.filter { !$0.needsRoot })
    func aStorePathThatIsNotARegularFileIsRefusedWithoutBlocking(_ kind: SpecialFile) async throws {
        try await refusesWithoutBlocking(kind)
    }

    /// Device files: only root can make them.
    @Test(
        .enabled(if: Requirement.root.isMet, "needs root, to make device files"),
        arguments: SpecialFile.allCases.filter { $0.needsRoot })
    func aDeviceFileOnTheStorePathIsRefusedWithoutBlocking(_ kind: SpecialFile) async throws {
        try await refusesWithoutBlocking(kind)
    }

    func refusesWithoutBlocking(_ kind: SpecialFile) async throws {
        try kind.make(at: url.path)
        // Were resv to open a FIFO for reading and wait for a writer, this would end the wait.
        let unblock = Task.detached { [path = url.path] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(2))
                let fd = open(path, O_WRONLY | O_NONBLOCK)
                if fd >= 0 { close(fd) }
            }
        }
        defer { unblock.cancel() }
        let started = ContinuousClock.now

        for run in [{ _ = try await service().fetch() }, { _ = try await service().reserve(request()) }] {
            let error = try await #require(throws: FileStoreError.self) { try await run() }
            guard case .unreadable = error else { throw error }
            #expect(error.localizedDescription == "cannot read \(url.path): it is \(kind), not a store file")
        }

        #expect(ContinuousClock.now - started < .seconds(1))
        #expect(try names(in: directory) == ["store.json"], "no lock file was made for it")
        #expect(try SpecialFile(at: url.path) == kind)
    }

    @Test func aCharacterDeviceOutsideTheSandboxIsRefused() throws {
        let store = JSONFileStore(url: URL(fileURLWithPath: "/dev/null"))
        let error = try #require(throws: FileStoreError.self) { try store.snapshot() }
        #expect(error.localizedDescription == "cannot read /dev/null: it is a character device, not a store file")
    }

    // MARK: - Size

    @Test func aStoreOverTheSizeLimitIsRefusedBeforeItIsRead() async throws {
        // Sparse: 300 MiB that take no disk, and that a reader reading it whole would hold in memory.
        let fd = open(url.path, O_WRONLY | O_CREAT, 0o600)
        #expect(ftruncate(fd, 300 << 20) == 0)
        close(fd)
        let started = ContinuousClock.now

        for run in [{ _ = try await service().fetch() }, { _ = try await service().reserve(request()) }] {
            let error = try await #require(throws: FileStoreError.self) { try await run() }
            guard case .tooLarge(_, let bytes, let limit) = error else { throw error }
            #expect(bytes == 300 << 20)
            #expect(limit == 256 << 20)
            #expect(
                error.localizedDescription.hasPrefix(
                    "\(url.path) is 300 MiB (314572800 bytes), more than the 256 MiB (268435456 bytes) resv reads;"),
                "\(error)")
        }

        #expect(ContinuousClock.now - started < .seconds(1))
        #expect(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int == 300 << 20)
    }

    @Test func theSizeLimitIsSetPerStore() async throws {
        _ = try await service().reserve(request())
        let bytes = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)

        let tight = JSONFileStore(url: url, maxBytes: bytes - 1)
        let error = try #require(throws: FileStoreError.self) { try tight.snapshot() }
        #expect(error.localizedDescription.contains("more than the \(bytes - 1) bytes resv reads"), "\(error)")
        #expect(try JSONFileStore(url: url, maxBytes: bytes).snapshot().reservations.count == 1)
    }
}

/// The kinds of file system objects a store path might name instead of a file.
enum SpecialFile: String, CaseIterable, Sendable, CustomStringConvertible {
    case directory, fifo, socket, characterDevice, blockDevice

    /// As resv's messages name them: "a directory".
    var description: String {
        switch self {
        case .directory: "a directory"
        case .fifo: "a FIFO (named pipe)"
        case .socket: "a socket"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        }
    }

    var needsRoot: Bool { self == .characterDevice || self == .blockDevice }

    /// What `path` is, by `lstat`.
    init(at path: String) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: self = .directory
        case S_IFIFO: self = .fifo
        case S_IFSOCK: self = .socket
        case S_IFCHR: self = .characterDevice
        case S_IFBLK: self = .blockDevice
        default: throw POSIXError(.EINVAL)
        }
    }

    func make(at path: String) throws {
        let result: Int32
        switch self {
        case .directory: result = mkdir(path, 0o700)
        case .fifo: result = mkfifo(path, 0o600)
        // Device 0:0: never opened, only seen by stat.
        case .characterDevice: result = mknod(path, S_IFCHR | 0o600, 0)
        case .blockDevice: result = mknod(path, S_IFBLK | 0o600, 0)
        case .socket:
            let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8CString)
            guard bytes.count <= MemoryLayout.size(ofValue: address.sun_path) else { throw POSIXError(.ENAMETOOLONG) }
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                bytes.withUnsafeBytes { raw.copyMemory(from: $0) }
            }
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
        }
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }
}
