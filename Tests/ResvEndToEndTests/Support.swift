import Foundation
import ReservationCore
import ResvTestKit
import Testing

/// A temporary directory with a store path inside, removed when the test ends.
final class Sandbox {
    private let folder: TemporaryDirectory
    let directory: URL
    let store: URL

    init() throws {
        folder = try TemporaryDirectory("e2e")
        directory = folder.url
        store = directory.appendingPathComponent("reservations.json")
    }

    /// Writes `text` as the store file.
    func seed(_ text: String) throws {
        try Data(YearsAhead.forward(text).utf8).write(to: store)
    }

    /// The store file, its years as the test wrote them (`YearsAhead`).
    func storeBytes() throws -> Data {
        let bytes = try Data(contentsOf: store)
        guard YearsAhead.years != 0 else { return bytes }
        return Data(YearsAhead.back(String(decoding: bytes, as: UTF8.self)).utf8)
    }

    /// The store parsed as JSON.
    func storeJSON() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: storeBytes()) as? [String: Any])
    }

    /// Runs `resv` with `arguments` on this sandbox's store, in UTC, without a terminal.
    @discardableResult
    func resv(_ arguments: String..., environment: [String: String] = [:], stdin: String? = nil) throws -> Run {
        try resv(arguments, environment: environment, stdin: stdin)
    }

    func resv(_ arguments: [String], environment: [String: String] = [:], stdin: String? = nil) throws -> Run {
        var env = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": directory.path,
            "TZ": "UTC",
            "RESV_STORE": store.path,
        ]
        env.merge(environment) { _, new in new }
        return try runProcess(Binary.resv.path, arguments, environment: env, stdin: stdin)
    }

    /// What `resv(_:)` runs with: the sandbox's home and store, in UTC.
    var environment: [String: String] {
        [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": directory.path, "TZ": "UTC",
            "RESV_STORE": store.path,
        ]
    }

    /// Runs `resv` with `arguments` against `server` (a test token, a cache in the sandbox).
    func resv(_ arguments: [String], server: FaultServer) throws -> Run {
        try resv(
            arguments,
            environment: [
                "RESV_SERVER": server.url, "RESV_TOKEN": "resv_test",
                "XDG_CACHE_HOME": directory.appendingPathComponent("cache").path,
            ])
    }

    /// Runs a shell pipeline with `resv` on PATH, for pipes users write (`resv list --json | jq`).
    func shell(_ script: String) throws -> Run {
        let env = [
            "PATH": Binary.resv.deletingLastPathComponent().path + ":"
                + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
            "HOME": directory.path, "TZ": "UTC", "RESV_STORE": store.path,
        ]
        return try runProcess("/bin/bash", ["-c", "set -o pipefail; " + script], environment: env, stdin: nil)
    }
}

enum Binary {
    /// The `resv` built beside this test bundle (or `RESV_BIN`).
    static let resv: URL = built("resv", override: "RESV_BIN")
    /// The `resv-server` built beside this test bundle (or `RESV_SERVER_BIN`).
    static let server: URL = built("resv-server", override: "RESV_SERVER_BIN")

    private static func built(_ name: String, override: String) -> URL {
        if let path = ProcessInfo.processInfo.environment[override] { return URL(fileURLWithPath: path) }
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = here.deletingLastPathComponent()
        // On Linux the test runner is `<bin>/resvPackageTests.xctest`; on macOS a bundle inside <bin>.
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return here.deletingLastPathComponent().appendingPathComponent(name)
    }

    /// The repository root, for comparing generated files with committed ones.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
}

/// Runs `executable` to its end (see `ChildProcess.run`): `stdin` written to a pipe and closed.
/// The years of its arguments and stdin are moved ahead, and those of its output back (`YearsAhead`).
func runProcess(_ executable: String, _ arguments: [String], environment: [String: String], stdin: String?) throws
    -> Run
{
    Run(
        try ChildProcess.run(
            executable, arguments.map(YearsAhead.forward), environment: environment,
            stdin: stdin.map(YearsAhead.forward)), checked: YearsAhead.readsTheClock(executable))
}

/// `runProcess` on a thread of its own, leaving Swift concurrency's threads free while the child runs.
func runProcessAsync(_ executable: String, _ arguments: [String], environment: [String: String], stdin: String?)
    async throws -> Run
{
    Run(
        try await ChildProcess.runAsync(
            executable, arguments.map(YearsAhead.forward), environment: environment,
            stdin: stdin.map(YearsAhead.forward)), checked: YearsAhead.readsTheClock(executable))
}

extension Run {
    /// With `checked`, a year the shift missed in what the child printed is the test's issue (`YearsAhead.back`).
    init(_ run: (termination: ChildProcess.Termination, output: ChildProcess.Output), checked: Bool = false) {
        self.init(
            status: run.termination.status,
            stdout: YearsAhead.back(String(decoding: run.output.stdout, as: UTF8.self), checked: checked),
            stderr: YearsAhead.back(String(decoding: run.output.stderr, as: UTF8.self), checked: checked))
    }
}

/// A failure as the text line it stands for: `{"error": {"message": M, …}}` (what resv
/// prints with --json) becomes `resv: M`; any other line stays as it is.
func plainError(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
        guard line.hasPrefix(#"{"error":"#),
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let message = (object["error"] as? [String: Any])?["message"] as? String
        else { return String(line) }
        return "resv: " + message
    }.joined(separator: "\n")
}

/// The flock(2) locks on the file at `path` as the kernel lists them (/proc/locks):
/// how many are held, and how many processes wait for one.
func flocks(on path: String) -> (held: Int, waiting: Int) {
    var info = stat()
    guard stat(path, &info) == 0, let table = procFile("/proc/locks") else { return (0, 0) }
    let inode = ":\(info.st_ino) "
    var counts = (held: 0, waiting: 0)
    for line in table.split(separator: "\n") where line.contains("FLOCK") && line.contains(inode) {
        if line.contains("->") { counts.waiting += 1 } else { counts.held += 1 }
    }
    return counts
}

/// A file of /proc, read whole: to its end, a read at a time. (Its size says 0, and one
/// read gives at most a page: with a suite's many locks, /proc/locks is longer, and the
/// line looked for may be past the first page.)
func procFile(_ path: String) -> String? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { return count == 0 ? String(decoding: bytes, as: UTF8.self) : nil }
        bytes += buffer[..<count]
    }
}

extension Sandbox {
    /// The start of a shell script that runs `resv` here on `backend`: this sandbox's store
    /// ("file"), or a resv-server on an SQLite database here with a token for `user`
    /// ("sqlite"), running until the server returned is stopped.
    func shellSetup(backend: String, user: String) throws -> (script: String, server: ServerProcess?) {
        var script = "cd '\(directory.path)'\n"
        guard backend == "sqlite" else { return (script, nil) }
        let database = directory.appendingPathComponent("server.sqlite").path
        let token = try ServerProcess.createToken(user, database: database)
        let server = try ServerProcess(database: database)
        script += "export RESV_SERVER=http://127.0.0.1:\(server.port) RESV_TOKEN=\(token); unset RESV_STORE\n"
        return (script, server)
    }
}

/// A visit `days` days from now at 18:00 UTC, as `resv reserve -d` takes it: a date the
/// binaries, on the real clock, find ahead whenever the test runs.
func visitAhead(days: Int = 400) -> String {
    let day = (Date().timeIntervalSince1970 / 86_400).rounded(.down) + Double(days)
    return DateTime.format(Date(timeIntervalSince1970: day * 86_400 + 18 * 3_600))
}
