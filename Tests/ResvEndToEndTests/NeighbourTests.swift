import Foundation
import ResvTestKit
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What another local user can plant beside the files resv keeps
/// (docs/contracts.md, "Backends and configuration" and "JSON file store"), tried
/// as root against files that belong to an unprivileged uid: a link or folder of
/// theirs is never written through nor believed, a lock file of theirs is refused
/// at once, and root's rewrite of their store keeps it theirs.
@Suite(
    "Files another user planted", .enabled(if: Requirement.root.isMet, "needs root, to make files of another user"),
    .ownThreads, .timeLimit(.minutes(30)))
struct NeighbourTests {
    static let other: uid_t = 4242
    static let group: gid_t = 4343
    static let reserve = ["reserve", "-l", "Lake Tahoe", "-d", "2030-01-01T10:00:00Z", "-n", "1"]

    func owner(_ path: String) -> (uid_t, gid_t) {
        var info = stat()
        lstat(path, &info)
        return (info.st_uid, info.st_gid)
    }

    @Test func aLinkAnotherUserOwnsOnTheStorePathIsNotFollowed() throws {
        let sandbox = try Sandbox()
        let target = sandbox.directory.appendingPathComponent("target.json").path
        try Data(#"{"version": 1, "reservations": []}"#.utf8).write(to: URL(fileURLWithPath: target))
        #expect(symlink(target, sandbox.store.path) == 0)
        #expect(lchown(sandbox.store.path, Self.other, Self.group) == 0)
        for arguments in [["list"], Self.reserve] {
            let run = try sandbox.resv(arguments)
            #expect(run.status == 73, "\(arguments): \(run.stderr)")
            #expect(
                run.stderr
                    == "resv: refusing to use \(sandbox.store.path): \(sandbox.store.path) is a symbolic link owned by uid 4242, not you or root; the store was left unchanged\n"
            )
        }
        #expect(try String(contentsOfFile: target, encoding: .utf8) == #"{"version": 1, "reservations": []}"#)
    }

    @Test func aLockFileAnotherUserMadeIsRefusedAtOnceButTheStoreOwnersIsUsed() throws {
        let sandbox = try Sandbox()
        #expect(try sandbox.resv(Self.reserve).status == 0)
        let lock = sandbox.store.path + ".lock"
        #expect(chown(lock, Self.other, Self.group) == 0)
        #expect(chmod(lock, 0o666) == 0)
        // Held by its maker: a wait would end in 75 after RESV_LOCK_TIMEOUT; it is refused before.
        let holder = try ChildProcess(
            "/usr/bin/flock", ["-x", "-o", lock, "sleep", "60"], environment: [:], stdin: .null, stdout: .null,
            stderr: .null)
        defer {
            holder.signal(SIGKILL)
            _ = holder.wait()
        }
        try waitUntil("the lock held by its maker") { flocks(on: lock).held == 1 }  // its maker holds it now
        let run = try sandbox.resv(Self.reserve, environment: ["RESV_LOCK_TIMEOUT": "600"])
        #expect(run.status == 73, "\(run.stderr)")
        #expect(run.stderr.contains("\(lock) is a lock file owned by uid 4242, not you or root"), "\(run.stderr)")
        holder.signal(SIGKILL)
        _ = holder.wait()

        // The store's own owner's lock is theirs to have: root changes their store, which stays theirs.
        #expect(chown(sandbox.store.path, Self.other, Self.group) == 0)
        try FileManager.default.removeItem(atPath: sandbox.store.path + ".history")
        let theirs = try sandbox.resv(Self.reserve)
        #expect(theirs.status == 0, "\(theirs.stderr)")
        #expect(owner(sandbox.store.path) == (Self.other, Self.group))
        #expect(owner(sandbox.store.path + ".history") == (Self.other, Self.group))
    }

    @Test func aJournalAnotherUserPlantedBeforeTheFirstWriteIsNeitherWrittenNorRead() throws {
        let sandbox = try Sandbox()
        #expect(chmod(sandbox.directory.path, 0o1777) == 0)  // a shared sticky folder
        let journal = sandbox.store.path + ".history"
        #expect(FileManager.default.createFile(atPath: journal, contents: Data()))
        #expect(chown(journal, Self.other, Self.group) == 0)
        #expect(chmod(journal, 0o666) == 0)
        let refusal =
            "resv: refusing to use \(sandbox.store.path): \(journal) is a history file owned by uid 4242, "
            + "not you or root; the store was left unchanged\n"
        let reserve = try sandbox.resv(Self.reserve + ["--note", "secret note"])
        #expect(reserve.status == 73, "\(reserve.stderr)")
        #expect(reserve.stderr == refusal)
        #expect(try Data(contentsOf: URL(fileURLWithPath: journal)).isEmpty, "nothing leaks into it")
        #expect(!FileManager.default.fileExists(atPath: sandbox.store.path))

        // Planted after the owner's first write: what it says is never believed.
        try FileManager.default.removeItem(atPath: journal)
        #expect(try sandbox.resv(Self.reserve).status == 0)
        #expect(chown(journal, Self.other, Self.group) == 0)
        for arguments in [["undo"], ["log"], ["watch", "--after", "f0", "--no-follow"]] {
            let run = try sandbox.resv(arguments)
            #expect(run.status == 73, "\(arguments): \(run.stderr)")
            #expect(run.stderr == refusal, "\(arguments)")
        }
        #expect(try sandbox.resv("list", "--json").stdout.contains("confirmed"), "the booking was not undone")
    }

    @Test func aReplHistoryInAnotherUsersFolderIsNotUsed() throws {
        let sandbox = try Sandbox()
        let folder = sandbox.directory.appendingPathComponent("state/resv")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let victim = sandbox.directory.appendingPathComponent("victim").path
        let lines = (1...3_000).map { "line \($0)" }.joined(separator: "\n") + "\n"
        try Data(lines.utf8).write(to: URL(fileURLWithPath: victim))
        #expect(chmod(victim, 0o644) == 0)
        let history = folder.appendingPathComponent("history").path
        #expect(symlink(victim, history) == 0)
        #expect(lchown(history, Self.other, Self.group) == 0)
        #expect(chown(folder.path, Self.other, Self.group) == 0)
        let terminal = try PseudoTerminal(
            Binary.resv.path, ["repl"],
            environment: [
                "PATH": "/usr/bin:/bin", "HOME": sandbox.directory.path, "TZ": "UTC", "TERM": "xterm",
                "RESV_STORE": sandbox.store.path, "NO_COLOR": "1",
                "XDG_STATE_HOME": sandbox.directory.appendingPathComponent("state").path,
            ])
        try terminal.expect("resv> ")
        #expect(
            terminal.transcript.contains(
                "resv: warning: no history this session: \(history) is a symbolic link owned by uid 4242, not you or root"
            ))
        terminal.send("landmarks --format ndjson\r")
        try terminal.expect("resv> ")
        terminal.send("\u{04}")
        #expect(terminal.waitForExit() == 0)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == lines)
        var info = stat()
        #expect(stat(victim, &info) == 0 && info.st_mode & 0o777 == 0o644)
    }

    @Test func aCacheInAnotherUsersFolderIsNeitherReadNorWritten() throws {
        let remote = try RemoteTests.Remote()
        #expect(try remote.resv("reserve", "-l", "Lake Tahoe", "-d", "2030-01-01T10:00:00Z", "-n", "1").status == 0)
        #expect(try remote.resv("list").status == 0)  // cached
        let cache = remote.sandbox.directory.appendingPathComponent("cache/resv")
        #expect(
            try remote.resv("list", "--offline").stdout.contains("Lake Tahoe"), "the cache is used while it is ours")
        #expect(chown(cache.path, Self.other, Self.group) == 0)
        let offline = try remote.resv("list", "--offline")
        #expect(!offline.stdout.contains("Lake Tahoe"), "another user's cache is not believed")
        #expect(offline.stderr.contains("resv: warning: not using the cache of"), "\(offline.stderr)")
        #expect(offline.stderr.contains("\(cache.path) is a folder owned by uid 4242, not you or root"))
        let online = try remote.resv("list")
        #expect(online.status == 0 && online.stdout.contains("Lake Tahoe"))
    }
}
