import Foundation
import Testing

/// A value of any size, from anywhere, is quoted in a message by at most about
/// 200 characters: the message stays one short line (issue 34).
@Suite("Huge values in messages")
struct HugeValueTests {
    static let huge = String(repeating: "x", count: 1_000_000)
    /// As long as one argument may be (Linux: 128 KiB).
    static let long = String(repeating: "x", count: 100_000)

    /// One line, short, with the value cut by "…".
    func expectShort(_ run: Run, _ what: String, status: Int32 = 64) {
        #expect(run.status == status, "\(what): \(run.stderr.prefix(300))")
        #expect(run.stderr.utf8.count < 1_200, "\(what): \(run.stderr.utf8.count) bytes on stderr")
        #expect(run.stderr.contains("xxxx…"), "\(what): \(run.stderr.prefix(300))")
    }

    @Test func aBatchLineArgumentsAndAReplLine() throws {
        let sandbox = try Sandbox()
        let line = #"{"landmarkId": "\#(Self.huge)", "date": "2031-01-01T10:00:00Z", "partySize": 1}"#
        expectShort(try sandbox.resv(["reserve", "--batch", "-"], stdin: line), "batch landmarkId")
        let date = #"{"landmarkId": "Lake Tahoe", "date": "\#(Self.huge)", "partySize": 1}"#
        expectShort(try sandbox.resv(["reserve", "--batch", "-"], stdin: date), "batch date")
        expectShort(
            try sandbox.resv(["reserve", "-l", Self.long, "-d", "2031-01-01T10:00:00Z", "-n", "1"]), "--landmark")
        expectShort(try sandbox.resv(["reserve", "-l", "Lake Tahoe", "-d", Self.long, "-n", "1"]), "--date")
        expectShort(try sandbox.resv(["show", Self.long]), "show ID")
        expectShort(try sandbox.resv([Self.long]), "a command")
        expectShort(try sandbox.resv(["list", "--" + Self.long]), "an option")
        expectShort(try sandbox.resv(["--store", sandbox.store.path, Self.long]), "an argument after an option")
        expectShort(try sandbox.resv(["repl"], stdin: Self.huge + "\n"), "a REPL line")
    }

    @Test func aServersHugeReason() throws {
        let reason = "no room for " + Self.huge
        let server = try FaultServer { _, _ in
            .respond(
                status: 409, headers: ["Content-Type": "application/json"],
                body: #"{"error": true, "code": "nothingToUndo", "reason": "\#(reason)"}"#)
        }
        defer { server.stop() }
        let sandbox = try Sandbox()
        let run = try sandbox.resv(
            ["undo"],
            environment: [
                "RESV_SERVER": server.url, "RESV_TOKEN": "resv_test",
                "XDG_CACHE_HOME": sandbox.directory.appendingPathComponent("cache").path,
            ])
        expectShort(run, "a server's reason", status: 1)
    }
}
