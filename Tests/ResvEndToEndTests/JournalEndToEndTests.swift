import Foundation
import ResvTestKit
import Testing

/// The journal as a user meets it through the built `resv`: exit codes and
/// messages for what another program did to it, the size limit on a write,
/// and a long history streamed.
@Suite("Store journal, end to end", .ownThreads, .timeLimit(.minutes(30)))
struct JournalEndToEndTests {
    static let reserve = ["reserve", "-l", "Lake Tahoe", "-d", "2030-01-01T10:00:00Z", "-n", "1"]

    static func batch(_ count: Int) -> String {
        (0..<count).map { _ in #"{"landmarkId": "Lake Tahoe", "date": "2030-01-01T10:00:00Z", "partySize": 1}"# }
            .joined(separator: "\n")
    }

    var journal: (Sandbox) -> String { { $0.store.path + ".history" } }

    @Test func linesThatAreNotChangesAreSkippedWithOneWarning() throws {
        let sandbox = try Sandbox()
        #expect(try sandbox.resv(Self.reserve).status == 0)
        let handle = try #require(FileHandle(forWritingAtPath: journal(sandbox)))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("written by hand\n{\"note\": \"by hand\"}\n".utf8))
        try handle.close()
        let log = try sandbox.resv("log", "--json")
        #expect(log.status == 0)
        #expect(
            log.stderr == "resv: warning: skipped 2 lines of the history that are not changes (they stay in the file)\n"
        )
        let shown = try #require(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]])
        #expect(shown.map { $0["change"] as? String } == ["created"])
        let undo = try sandbox.resv("undo")
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(
            undo.stderr
                == "resv: warning: skipped 2 lines of the history that are not changes (they stay in the file)\n")
        #expect(try sandbox.resv(Self.reserve).status == 0)
        #expect(try String(contentsOfFile: journal(sandbox), encoding: .utf8).contains("written by hand\n"))
    }

    @Test func anEditedJournalIsBadDataAndABoundedLogStillReads() throws {
        let sandbox = try Sandbox()
        for _ in 0..<3 { #expect(try sandbox.resv(Self.reserve).status == 0) }
        var lines = try String(contentsOfFile: journal(sandbox), encoding: .utf8).split(separator: "\n")
        lines.swapAt(0, 1)
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: journal(sandbox)))
        let whole = try sandbox.resv("log")
        #expect(whole.status == 65, "\(whole.stderr)")
        #expect(whole.stderrLines.count == 1)
        #expect(whole.stderr.contains("its sequence numbers go backwards"), "\(whole.stderr)")
        #expect(try sandbox.resv("log", "--limit", "1").status == 0)
    }

    @Test func aJournalThatIsADirectoryIsRefusedAsAStoreWouldBe() throws {
        let sandbox = try Sandbox()
        #expect(try sandbox.resv(Self.reserve).status == 0)
        let before = try sandbox.storeBytes()
        try FileManager.default.removeItem(atPath: journal(sandbox))
        try FileManager.default.createDirectory(atPath: journal(sandbox), withIntermediateDirectories: false)
        for arguments in [["log"], Self.reserve, ["undo"]] {
            let run = try sandbox.resv(arguments)
            #expect(run.status == 69, "\(arguments): \(run.stderr)")
            #expect(run.stderr == "resv: cannot read \(journal(sandbox)): it is a directory, not a store's history\n")
        }
        #expect(try sandbox.storeBytes() == before)
    }

    @Test func aChangeThatWouldPassTheSizeLimitIsRefusedWith73() throws {
        let sandbox = try Sandbox()
        #expect(try sandbox.resv(Self.reserve).status == 0)
        let before = try sandbox.storeBytes()
        let journalBefore = try Data(contentsOf: URL(fileURLWithPath: journal(sandbox)))
        let limit = before.count + 64
        let run = try sandbox.resv(Self.reserve, environment: ["RESV_MAX_STORE_BYTES": String(limit)])
        #expect(run.status == 73, "\(run.stderr)")
        #expect(run.stderrLines.count == 1)
        #expect(run.stderr.contains("more than the \(limit) bytes resv reads; nothing was changed"), "\(run.stderr)")
        #expect(try sandbox.storeBytes() == before)
        #expect(try Data(contentsOf: URL(fileURLWithPath: journal(sandbox))) == journalBefore)
        let list = try sandbox.resv(["list", "--json"], environment: ["RESV_MAX_STORE_BYTES": String(limit)])
        #expect(list.status == 0, "every other command still works: \(list.stderr)")
        #expect(try sandbox.resv(["undo"], environment: ["RESV_MAX_STORE_BYTES": String(limit)]).status == 0)
    }

    /// 1,500 changes: JSON and CSV whole, a table aligned past its first block of rows.
    @Test func aLongHistoryIsWrittenWholeInEveryFormat() throws {
        let sandbox = try Sandbox()
        #expect(try sandbox.resv(["reserve", "--batch", "-"], stdin: Self.batch(1_500)).status == 0)
        let json = try sandbox.resv("log", "--json")
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [Any])
        #expect(entries.count == 1_500)
        #expect(try sandbox.resv("log", "--format", "ndjson").stdout.split(separator: "\n").count == 1_500)
        #expect(try sandbox.resv("log", "--format", "csv").stdout.split(separator: "\r\n").count == 1_501)
        let table = try sandbox.resv("log").stdout.split(separator: "\n")
        #expect(table.count == 1_501)
        #expect(Set(table.dropFirst().map { $0.firstRange(of: "created")?.lowerBound.utf16Offset(in: $0) }).count == 1)
    }
}
