import Foundation
import ResvTestKit
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Store paths that are links, not files at all, read-only or huge, and a
/// lock path that is a link, on the built binary: one line, the documented
/// exit code, the store untouched, and no wait on a FIFO.
@Suite("Strange store files", .ownThreads, .timeLimit(.minutes(30)))
struct StrangeStoreTests {
    static let reserve = ["reserve", "-l", "Lake Tahoe", "-d", "2030-01-01T10:00:00Z", "-n", "1"]

    @Test(arguments: ["directory", "fifo", "/dev/null"])
    func aStorePathThatIsNotAFileExits69AtOnce(_ kind: String) throws {
        let sandbox = try Sandbox()
        var store = sandbox.store.path
        switch kind {
        case "directory": #expect(mkdir(store, 0o700) == 0)
        case "fifo": #expect(mkfifo(store, 0o600) == 0)
        default: store = kind
        }
        let what = ["directory": "a directory", "fifo": "a FIFO (named pipe)"][kind] ?? "a character device"
        // Never a change on /dev/null: an old resv would make /dev/null.lock.
        let commands = kind.hasPrefix("/") ? [["list"]] : [["list"], Self.reserve]

        for arguments in commands {
            let run = try Spawned(arguments, environment: sandbox.environment(store: store), deadline: .seconds(5))
            #expect(!run.killed, "resv \(arguments[0]) was still running after 5 s")
            #expect(run.status == 69, "\(run.stderr)")
            #expect(run.stderr == "resv: cannot read \(store): it is \(what), not a store file\n")
        }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: sandbox.directory.path).filter { $0.hasSuffix(".lock") }
                == [])
    }

    @Test func aStoreItsOwnerMayNotWriteExits73AndStaysAsItWas() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Fixture.store)
        #expect(chmod(sandbox.store.path, 0o444) == 0)

        let run = try sandbox.resv(Self.reserve)

        #expect(run.status == 73, "\(run.stderr)")
        let errors = run.stderrLines.filter { !$0.hasPrefix("resv: warning:") }
        #expect(errors.count == 1, "\(run.stderr)")
        #expect(errors.first?.contains("its mode 0444 does not let its owner write it; chmod u+w") == true)
        #expect(try sandbox.storeBytes() == Data(Fixture.store.utf8))
        let mode = try FileManager.default.attributesOfItem(atPath: sandbox.store.path)[.posixPermissions] as? Int
        #expect(mode == 0o444)
        #expect(try sandbox.resv("list").status == 0, "a read-only store still lists")
    }

    @Test func anOversizedStoreIsRefusedAtOnceInLittleMemory() throws {
        let sandbox = try Sandbox()
        // Sparse: 300 MiB that take no disk; a resv that read it whole would grow past 300 MiB.
        let fd = open(sandbox.store.path, O_WRONLY | O_CREAT, 0o600)
        #expect(ftruncate(fd, 300 << 20) == 0)
        close(fd)

        for arguments in [["list"], Self.reserve] {
            let run = try Spawned(arguments, environment: sandbox.environment(), deadline: .seconds(10))
            #expect(run.status == 65, "\(run.stderr)")
            #expect(
                run.stderr == "resv: \(sandbox.store.path) is 300 MiB (314572800 bytes), more than the 256 MiB "
                    + "(268435456 bytes) resv reads; it was left unchanged: set RESV_MAX_STORE_BYTES to a larger "
                    + "number of bytes to read it\n")
            #expect(run.peakKiB < 100 * 1024, "peak memory \(run.peakKiB) KiB: the file was not read")
        }
        #expect(try FileManager.default.attributesOfItem(atPath: sandbox.store.path)[.size] as? Int == 300 << 20)
    }

    @Test func theSizeLimitComesFromTheEnvironment() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Fixture.store)
        let size = Fixture.store.utf8.count

        let refused = try sandbox.resv("list", environment: ["RESV_MAX_STORE_BYTES": String(size - 1)])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("more than the \(size - 1) bytes resv reads"), "\(refused.stderr)")
        #expect(try sandbox.resv("list", environment: ["RESV_MAX_STORE_BYTES": String(size)]).status == 0)
        for bad in ["abc", "0", "-5", "1.5"] {
            let run = try sandbox.resv("list", environment: ["RESV_MAX_STORE_BYTES": bad])
            #expect(run.status == 64, "\(bad): \(run.stderr)")
            #expect(run.stderr.contains("RESV_MAX_STORE_BYTES"), "\(bad): \(run.stderr)")
            #expect(run.stderrLines.count == 1)
        }
    }

    @Test func aSymlinkedStoreStaysALink() throws {
        let sandbox = try Sandbox()
        let data = sandbox.directory.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: false)
        try YearsAhead.write(Fixture.store, to: data.appendingPathComponent("real.json"))
        try FileManager.default.createSymbolicLink(atPath: sandbox.store.path, withDestinationPath: "data/real.json")

        #expect(try sandbox.resv(Self.reserve).status == 0)
        #expect(try sandbox.resv("cancel", "abcd1111").status == 0)

        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: sandbox.store.path) == "data/real.json")
        let records = try #require(try sandbox.storeJSON()["reservations"] as? [[String: Any]])
        #expect(records.count == 5)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: data.path).sorted() == [
                "real.json", "real.json.history", "real.json.lock",
            ])
    }

    @Test func aLockFileThatIsASymlinkExits73AndIsNotFollowed() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Fixture.store)
        let victim = sandbox.directory.appendingPathComponent("victim").path
        try FileManager.default.createSymbolicLink(atPath: sandbox.store.path + ".lock", withDestinationPath: victim)

        let run = try sandbox.resv(Self.reserve)

        #expect(run.status == 73, "\(run.stderr)")
        #expect(run.stderrLines.filter { !$0.hasPrefix("resv: warning:") }.count == 1, "\(run.stderr)")
        #expect(run.stderr.contains("\(sandbox.store.path).lock: it is a symbolic link"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: victim))
        #expect(try sandbox.storeBytes() == Data(Fixture.store.utf8))
    }
}

extension Sandbox {
    /// What `resv` runs with here, with the store at `store` (by default this sandbox's).
    func environment(store: String? = nil) -> [String: String] {
        ["PATH": "/usr/bin:/bin", "HOME": directory.path, "TZ": "UTC", "RESV_STORE": store ?? self.store.path]
    }
}

/// One run of the built `resv` under a small Python parent, which reports the
/// child's peak memory (`RUSAGE_CHILDREN`) and kills it if it outlives
/// `deadline`. Not posix_spawn from this process: its child shares this (large)
/// test process's memory until exec, and Linux counts that in the child's
/// `ru_maxrss`.
struct Spawned {
    var status: Int32 = -1
    var stderr = ""
    /// The largest resident set the process had, in KiB (`ru_maxrss`).
    var peakKiB = 0
    var elapsed = Duration.zero
    var killed = false

    static let parent = """
        import resource, subprocess, sys
        try:
            run = subprocess.run(sys.argv[2:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, timeout=float(sys.argv[1]))
            code = run.returncode if run.returncode >= 0 else 128 - run.returncode
        except subprocess.TimeoutExpired:
            code = 999
        print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, code)
        """

    init(_ arguments: [String], environment: [String: String], deadline: Duration) throws {
        let clock = ContinuousClock()
        let started = clock.now
        let seconds = Double(deadline.components.seconds)
        let run = try runProcess(
            "/usr/bin/python3", ["-c", Self.parent, String(seconds), Binary.resv.path] + arguments,
            environment: environment, stdin: nil)
        elapsed = clock.now - started
        let figures = run.stdout.split(separator: " ").compactMap {
            Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        guard figures.count == 2 else { throw POSIXError(.EIO) }
        peakKiB = figures[0]
        killed = figures[1] == 999
        status = killed ? 137 : Int32(figures[1])
        stderr = run.stderr
    }
}
