import Foundation
import ResvTestKit
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Ctrl-C at the REPL's prompt (a key, never lost) and while a command runs
/// (the command stops, the prompt or the shell comes back).
extension ReplTests {
    /// Runs `count` busy loops beside the test until the returned closure is called.
    func burnCPU(_ count: Int) throws -> () -> Void {
        let burners = try (0..<count).map { _ in
            try ChildProcess(
                "/usr/bin/yes", [], environment: ProcessInfo.processInfo.environment, stdout: .null, stderr: .inherit)
        }
        return {
            for burner in burners {
                burner.signal(SIGKILL)
                _ = burner.wait()
            }
        }
    }

    @Test func hundredsOfCtrlCsTypedWithoutPauseUnderLoadEachClearTheirLine() throws {
        let sandbox = try Sandbox()
        let terminal = try startRepl(sandbox)
        let stop = try burnCPU(3)
        defer { stop() }
        let rounds = 300
        // All at once: the keys and the Ctrl-Cs reach resv in one stream, faster than it reads them.
        terminal.send(String(repeating: "show ffff" + ctrlC, count: rounds))
        for round in 1...rounds {
            do {
                try terminal.expect("^C\r\nresv> ")
            } catch {
                Issue.record("round \(round) of \(rounds) drew no fresh prompt: \(error)")
                return
            }
        }
        // Each cleared its line: Enter now runs an empty line, then a real command runs once.
        terminal.send("\r")
        try terminal.expect("resv> ")
        terminal.send("show abcd\r")
        try terminal.expect("no reservation matches 'abcd'")
        try terminal.expect("resv> ")
        #expect(!terminal.transcript.contains("'ffff'"), "a cleared line must never run")
        terminal.send(ctrlD)
        #expect(terminal.waitForExit() == 0)
    }

    @Test func ctrlCStopsARequestToAServerThatNeverAnswers() throws {
        let server = try FaultServer { _, _ in .delayed(seconds: 60, .drop) }
        defer { server.stop() }
        let sandbox = try Sandbox()
        let terminal = try startRepl(sandbox, environment: ["RESV_SERVER": server.url, "RESV_TOKEN": "t"])
        for _ in 0..<2 {
            let before = server.requests.count
            terminal.send("list\r")
            try waitUntil("the request at the server") { server.requests.count > before }
            try interruptRunningCommand(terminal)
        }
        // The REPL goes on: a command that needs no server works.
        terminal.send("help\r")
        try terminal.expect("exit, quit")
        try terminal.expect("resv> ")
        terminal.send("exit\r")
        #expect(terminal.waitForExit() == 0)
    }

    @Test func ctrlCStopsAWaitForALockAnotherProcessHolds() throws {
        let sandbox = try Sandbox()
        let holder = try LockHolder(sandbox.store.path + ".lock")
        let terminal = try startRepl(sandbox, environment: ["RESV_LOCK_TIMEOUT": "60"])
        terminal.send("reserve -l 'Lake Tahoe' -d 2030-01-01T10:00:00Z -n 2\r")
        try terminal.expect("-n 2\r\n")
        try waitUntil("resv waiting for the lock") { flocks(on: sandbox.store.path + ".lock").waiting == 1 }
        try interruptRunningCommand(terminal)
        #expect(!FileManager.default.fileExists(atPath: sandbox.store.path), "nothing was written")

        // Once the other process lets go, the same command books.
        holder.release()
        terminal.send("reserve -l 'Lake Tahoe' -d 2030-01-01T10:00:00Z -n 2 --format ndjson\r")
        try terminal.expect(#""partySize":2"#)
        try terminal.expect("resv> ")
        terminal.send(ctrlD)
        #expect(terminal.waitForExit() == 0)
        #expect((try sandbox.storeJSON()["reservations"] as? [Any])?.count == 1)
    }

    @Test func helpAtThePromptIsTheREPLsOwnAndTabNeverOffersRepl() throws {
        let sandbox = try Sandbox()
        let terminal = try startRepl(sandbox)
        terminal.send("help\r")
        let help = try terminal.expect("resv> ")
        #expect(help.contains("without 'resv'"))
        #expect(help.contains("  reserve "))
        #expect(help.contains("exit, quit"))
        #expect(!help.contains("USAGE: resv"), "the shell's usage is not the REPL's")
        #expect(!help.contains("  repl "), "repl is not a command inside the REPL")
        // `res` is only `reserve` (`re` is also `redo`); `rep` completes to nothing.
        terminal.send("res" + tab)
        try terminal.expect("reserve ")
        terminal.send(ctrlU + "rep" + tab + tab + ctrlU + "help\r")
        let offered = try terminal.expect("exit, quit")
        #expect(!offered.contains("repl"), "\(offered)")
        terminal.send("exit\r")
        #expect(terminal.waitForExit() == 0)
    }

    /// Ctrl-C while a command runs: one line says so, and the prompt is back, not after
    /// the wait it interrupted (a minute's lock or server); within seconds, not a bound a
    /// loaded CI machine could miss (unloaded it is back in milliseconds).
    func interruptRunningCommand(_ terminal: PseudoTerminal) throws {
        let sent = ContinuousClock.now
        terminal.send(ctrlC)
        try terminal.expect("resv: interrupted\r\n")
        try terminal.expect("resv> ")
        let waited = ContinuousClock.now - sent
        #expect(waited < .seconds(10), "the prompt came back after \(waited)")
    }

    // MARK: From the shell and from a script

    @Test func ctrlCEndsAShellCommandWaitingForTheLockWith130AndTheStoreUntouched() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Fixture.store)
        let lock = sandbox.store.path + ".lock"
        let holder = try LockHolder(lock)
        defer { holder.release() }
        let run = try interruptedRun(
            sandbox, ["reserve", "-l", "Lake Tahoe", "-d", "2030-01-01T10:00:00Z", "-n", "2"],
            environment: ["RESV_LOCK_TIMEOUT": "60"], when: { pid in waitsForLock(pid: pid, on: lock) })
        #expect(run.status == 130)
        #expect(run.stderrLines == ["resv: interrupted"])
        #expect(run.stdout.isEmpty)
        #expect(try sandbox.storeBytes() == Data(Fixture.store.utf8))
    }

    @Test func ctrlCEndsAShellCommandWaitingForAServerWith130() throws {
        let server = try FaultServer { _, _ in .delayed(seconds: 60, .drop) }
        defer { server.stop() }
        let sandbox = try Sandbox()
        let run = try interruptedRun(
            sandbox, ["list"], environment: ["RESV_SERVER": server.url, "RESV_TOKEN": "t"],
            when: { _ in !server.requests.isEmpty })
        // 130 and this line are the interrupt's: a request timeout would be 69 and another line.
        #expect(run.status == 130)
        #expect(run.stderrLines == ["resv: interrupted"])
    }

    @Test func aScriptNamesTheLineThatFailedAndHashStartsAComment() throws {
        let sandbox = try Sandbox()
        let script = """
            # a comment, then a blank line

            reserve -l "Lake Tahoe" -d 2030-01-01T10:00:00Z -n 2 --format ndjson  # the first one
            show ffff  # not there
            reserve -l "Lake Tahoe" -d 2030-01-01T10:00:00Z -n '#2'
            landmarks --json  #--bogus
            """
        let run = try sandbox.resv(["repl"], stdin: script)
        #expect(run.status == 64)
        #expect(
            run.stderrLines == [
                "resv: line 4: no reservation matches 'ffff' (see 'resv list --all')",
                "resv: line 5: the value '#2' is invalid for '-n <n>' (see 'help reserve')",
            ])
        #expect(run.stdout.contains(#""partySize":2"#))
        #expect(run.stdout.contains("Half Dome"), "the comment after landmarks was not an option")
    }

    /// Runs resv without a terminal, sends it SIGINT once `when` holds for its pid (the wait
    /// it is to interrupt seen under way), and returns what it did.
    private func interruptedRun(
        _ sandbox: Sandbox, _ arguments: [String], environment: [String: String],
        when ready: @escaping (pid_t) -> Bool
    ) throws -> Run {
        var env = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": sandbox.directory.path, "TZ": "UTC", "RESV_STORE": sandbox.store.path,
        ]
        env.merge(environment) { _, new in new }
        let child = try ChildProcess(
            Binary.resv.path, arguments.map(YearsAhead.forward), environment: env, stdin: .null)
        try waitUntil("resv in the wait to interrupt") { ready(child.pid) }
        child.signal(SIGINT)
        let output = child.readToEnd()
        let termination = child.wait()
        #expect(!termination.wasSignalled, "resv ended by its exit status, not by the signal")
        return Run((termination, output))
    }
}

/// Whether process `pid` is blocked in flock(2) waiting for the lock on `path`: the kernel
/// lists each waiter in /proc/locks as `N: -> FLOCK  ADVISORY  WRITE PID MAJ:MIN:INODE 0 EOF`.
func waitsForLock(pid: pid_t, on path: String) -> Bool {
    var info = stat()
    guard stat(path, &info) == 0, let locks = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else {
        return false
    }
    return locks.split(separator: "\n").contains { line in
        let fields = line.split(separator: " ")
        guard fields.count >= 7, fields[1] == "->", fields[2] == "FLOCK" else { return false }
        return fields[5] == "\(pid)" && fields[6].hasSuffix(":\(info.st_ino)")
    }
}

/// Another process's hold on a store's lock: `flock(1)` running `cat`, which
/// ends (and lets go) when its input is closed.
final class LockHolder {
    private let process: ChildProcess

    init(_ path: String) throws {
        // Only cat holds the pipe (ChildProcess's pipes are close-on-exec): a resv started
        // later does not keep its input open.
        process = try ChildProcess(
            "/usr/bin/flock", ["--close", path, "cat"], environment: ProcessInfo.processInfo.environment,
            stdin: .pipe, stdout: .null, stderr: .inherit)
        // flock(1) runs cat once it holds the lock: wait until it holds it, so the hold is real.
        let probe = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        defer { close(probe) }
        try waitUntil("flock(1) holding the lock") {
            guard flock(probe, LOCK_EX | LOCK_NB) == 0 else { return true }
            flock(probe, LOCK_UN)
            return false
        }
    }

    func release() {
        process.closeStdin()
        _ = process.wait()
    }

    deinit { release() }
}
