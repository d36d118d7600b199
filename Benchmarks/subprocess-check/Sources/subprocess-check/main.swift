// Does swift-subprocess serve resv's end-to-end tests in place of Tests/ResvEndToEndTests/Spawn.swift?
// Runs many short children, eight at a time, collecting their output:
//   subprocess-check none 2000        no input
//   subprocess-check read-all 2000    200 kB of input the child reads whole
//   subprocess-check early-exit 2000  input the child exits without reading (resv refusing its arguments)
// and then sends SIGTERM to a child in its own process group. See BENCHMARKS.md for what it showed.
import Foundation
import Subprocess

#if canImport(Glibc)
    import Glibc
#endif

let mode = CommandLine.arguments.dropFirst().first ?? "none"
let runs = Int(CommandLine.arguments.dropFirst(2).first ?? "2000") ?? 2000
// Without this the first write into a child that exited kills this process with SIGPIPE.
signal(SIGPIPE, SIG_IGN)
let script =
    mode == "read-all" ? "cat >/dev/null; echo out $0; echo err >&2; exit 3" : "echo out $0; echo err >&2; exit 3"
let input = mode == "none" ? "" : String(repeating: "x", count: 200_000)
let start = ContinuousClock.now
var failures = 0
try await withThrowingTaskGroup(of: Bool.self) { group in
    for index in 0..<runs {
        if index >= 8 { if try await group.next() == false { failures += 1 } }
        group.addTask {
            let result =
                mode == "none"
                ? try await run(
                    .path("/bin/sh"), arguments: ["-c", script, "\(index)"],
                    environment: .custom(["PATH": "/usr/bin:/bin"]), input: .none,
                    output: .string(limit: 1 << 20), error: .string(limit: 1 << 20))
                : try await run(
                    .path("/bin/sh"), arguments: ["-c", script, "\(index)"],
                    environment: .custom(["PATH": "/usr/bin:/bin"]), input: .string(input),
                    output: .string(limit: 1 << 20), error: .string(limit: 1 << 20))
            return result.terminationStatus == .exited(3) && result.standardOutput == "out \(index)\n"
                && result.standardError == "err\n"
        }
    }
    for try await ok in group where !ok { failures += 1 }
}
print("\(mode): \(runs) runs, \(failures) wrong, in \(ContinuousClock.now - start)")

var options = PlatformOptions()
options.processGroupID = 0
let signalled = try await run(
    .path("/bin/sleep"), arguments: ["30"], platformOptions: options, input: .none, output: .discarded,
    error: .discarded
) { execution in
    try execution.send(signal: .terminate)
}
print("a child sent SIGTERM: \(signalled.terminationStatus)")
