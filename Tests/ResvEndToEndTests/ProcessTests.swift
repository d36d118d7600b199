import Foundation
import ResvTestKit
import Testing

@Suite("Several processes, terminals and shipped files", .ownThreads, .timeLimit(.minutes(30)))
struct ProcessTests {
    @Test func aLockHeldByAnotherProcessExits75WithinTheBound() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Fixture.store)
        let before = try sandbox.storeBytes()
        let lock = sandbox.store.path + ".lock"
        let script = """
            flock -x "\(lock)" -c 'touch "\(lock).held"; sleep 5' &
            while [ ! -e "\(lock).held" ]; do sleep 0.05; done
            start=$(date +%s%N)
            RESV_LOCK_TIMEOUT=0.5 resv cancel abcd1111
            status=$?
            echo "status=$status elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))"
            kill %1 2>/dev/null
            """
        let run = try sandbox.shell(script)
        #expect(run.stdout.contains("status=75"), "\(run.stdout) \(run.stderr)")
        #expect(run.stderr.contains("another resv holds the store"))
        let elapsed = run.stdout.split(separator: "=").last.flatMap {
            Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        #expect((elapsed ?? 99_999) < 3_000)
        #expect(try sandbox.storeBytes() == before)
    }

    @Test func colourOnATerminalButNeverWithNoColor() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Fixture.store)
        let coloured = try sandbox.shell("script -qec 'resv list' /dev/null")
        #expect(coloured.status == 0)
        #expect(coloured.stdout.contains("\u{1B}[32mconfirmed\u{1B}[0m"))
        let plain = try sandbox.shell("NO_COLOR=1 script -qec 'resv list' /dev/null")
        #expect(plain.status == 0)
        #expect(plain.stdout.contains("confirmed"))
        #expect(!plain.stdout.contains("\u{1B}["))
    }

    static let commands = [
        "list", "reserve", "cancel", "confirm", "modify", "log", "undo", "show", "availability", "fetch", "landmarks",
        "config", "repl", "whoami", "sync", "outbox", "calendar", "import", "completion",
    ]

    @Test(arguments: commands)
    func everyCommandHasHelp(_ command: String) throws {
        let sandbox = try Sandbox()
        for arguments in [[command, "--help"], ["help", command]] {
            let run = try sandbox.resv(arguments)
            #expect(run.status == 0)
            #expect(run.stdout.contains("USAGE: resv \(command)"))
            #expect(run.stderr.isEmpty)
        }
    }

    @Test func rootHelpNamesEveryCommandAndTheExitCodes() throws {
        let run = try Sandbox().resv("--help")
        #expect(run.status == 0)
        for command in Self.commands { #expect(run.stdout.contains(command)) }
        // However the text is wrapped.
        let words = run.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("64 usage or invalid input"), "\(run.stdout)")
    }
}
