import Foundation
import ResvTestKit
import Testing

/// Calendar subscriptions (docs/contracts.md, "Calendar subscriptions"): `resv calendar
/// url|reset` against a server that misbehaves as the client must not, and the feed read
/// by real clients: curl's conditional requests, vdirsyncer's `http` storage and khal.
@Suite("Calendar subscriptions", .ownThreads, .timeLimit(.minutes(30)))
struct CalendarTests {
    typealias Remote = RemoteTests.Remote

    @Test func theURLIsTheServersWithoutItsPasswordAndThePathItAnswered() throws {
        let secret = "abcDEF0123456789_-abcdefghijklmnopqrstuvwxy"
        let server = try FaultServer(
            FaultTests.routes { request, _ in
                request.method == "POST" && request.path == "/calendar"
                    ? .respond(status: 200, body: #"{"path":"/calendar/\#(secret).ics"}"#)
                    : .respond(status: 404, body: #"{"error":true,"reason":"no route"}"#)
            })
        defer { server.stop() }
        let withPassword = server.url.replacingOccurrences(of: "http://", with: "http://ada:pw@")
        let run = try FaultTests().resv(server, "calendar", "url", environment: ["RESV_SERVER": withPassword])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "\(server.url)/calendar/\(secret).ics\n")
        let json = try FaultTests().resv(server, "calendar", "--json")
        #expect(
            json.stdout == #"{"url":"\#(server.url)/calendar/\#(secret).ics"}"# + "\n" || json.stdout.contains(secret))
        #expect(server.requests.filter { $0.method == "POST" }.allSatisfy { $0.path == "/calendar" })
    }

    @Test(arguments: [
        #"{"path":"https://evil.example/calendar/x.ics"}"#, #"{"path":"/calendar/../../etc.ics"}"#,
        #"{"path":"/calendar/a b.ics"}"#, #"{"url":"/calendar/x.ics"}"#, "[]", "not json",
    ])
    func anAnswerThatIsNoCalendarPathIs65(body: String) throws {
        let server = try FaultServer(FaultTests.routes { _, _ in .respond(status: 200, body: body) })
        defer { server.stop() }
        let run = try FaultTests().resv(server, "calendar", "url")
        #expect(run.status == 65, "\(body): \(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test func anOlderServerAndTheFileStoreSayWhy() throws {
        let server = try FaultServer(
            FaultTests.routes { request, _ in
                .respond(status: 404, body: #"{"error":true,"reason":"no route \#(request.method) \#(request.path)"}"#)
            })
        defer { server.stop() }
        let older = try FaultTests().resv(server, "calendar", "reset")
        #expect(older.status == 69, "\(older.stderr)")
        #expect(older.stderr.contains("has no route POST /calendar/reset"), "\(older.stderr)")
        let file = try Sandbox().resv("calendar", "url")
        #expect(file.status == 64)
        #expect(file.stderr.contains("a calendar subscription is served by a resv-server"), "\(file.stderr)")
    }

    // MARK: - The real server, read by real clients

    /// The calendar's URL for alice, as `resv calendar url` prints it.
    static func url(_ remote: Remote) throws -> String {
        let run = try remote.resv("calendar", "url")
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `curl -sS -D - URL` with extra arguments: the status line, the headers and the body.
    static func curl(_ url: String, _ extra: [String] = []) throws -> (
        status: Int, headers: [String: String], body: String
    ) {
        let run = try runProcess("/usr/bin/curl", ["-sS", "-D", "-"] + extra + [url], environment: [:], stdin: nil)
        #expect(run.status == 0, "\(run.stderr)")
        let parts = run.stdout.components(separatedBy: "\r\n\r\n")
        let head = parts.first ?? ""
        var headers: [String: String] = [:]
        for line in head.components(separatedBy: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        return (status, headers, parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    @Test func curlsConditionalRequestsAreAnsweredByTagAndByDate() throws {
        let remote = try Remote()
        let made = try remote.resv(
            "reserve", "-l", "half dome", "-d", visitAhead(days: 20), "-n", "2", "--note", "bring water", "--json")
        #expect(made.status == 0, "\(made.stderr)")
        let url = try Self.url(remote)
        #expect(try Self.url(remote) == url, "the same URL each time")
        let first = try Self.curl(url)
        #expect(first.status == 200)
        #expect(first.headers["content-type"] == "text/calendar; charset=utf-8")
        #expect(first.body.hasPrefix("BEGIN:VCALENDAR\r\n"))
        #expect(first.body.contains("SUMMARY:Half Dome\\, party of 2"))
        #expect(first.body.contains("bring water"))
        let etag = try #require(first.headers["etag"])
        #expect(try Self.curl(url).headers["etag"] == etag, "unchanged, the same bytes")
        #expect(try Self.curl(url, ["-H", "If-None-Match: \(etag)"]).status == 304)
        // By date: the route tests move a held clock through the seconds (a Last-Modified is
        // never the second it is sent in); here, only that one is sent.
        #expect(first.headers["last-modified"] != nil)
        // A change: a new tag.
        let object = try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: Any]
        let id = try #require(object?["id"] as? String)
        #expect(try remote.resv("cancel", String(id.prefix(8))).status == 0)
        let after = try Self.curl(url, ["-H", "If-None-Match: \(etag)"])
        #expect(after.status == 200)
        #expect(after.headers["etag"] != etag)
        #expect(after.body.contains("STATUS:CANCELLED"))
        // HEAD: the headers, no body.
        let head = try runProcess("/usr/bin/curl", ["-sS", "-I", url], environment: [:], stdin: nil)
        #expect(head.stdout.hasPrefix("HTTP/1.1 200"), "\(head.stdout)")
        #expect(head.stdout.lowercased().contains("etag: \(after.headers["etag"] ?? "none")"), "\(head.stdout)")
        #expect(head.stdout.hasSuffix("\r\n\r\n"), "headers only")
        // Reset: the old URL is gone at once.
        let reset = try remote.resv("calendar", "reset")
        #expect(reset.status == 0)
        #expect(reset.stderr.contains("The old calendar URL no longer works"))
        #expect(try Self.curl(url).status == 404)
        #expect(try Self.curl(reset.stdout.trimmingCharacters(in: .whitespacesAndNewlines)).status == 200)
        // The secret is in no line of the server's log.
        let secret = String(url.split(separator: "/").last ?? "").replacingOccurrences(of: ".ics", with: "")
        let log = try String(contentsOf: remote.server.log, encoding: .utf8)
        #expect(!log.contains(secret), "the calendar's secret reached the log")
        #expect(log.contains("/calendar/"), "the requests are logged, without it")
    }

    /// The README's vdirsyncer and khal configurations, as copied: each block is the README's text,
    /// only its example URL replaced by this server's, written where the README says to put it
    /// (`~/.config/vdirsyncer/config`, `~/.config/khal/config`, with HOME a fresh folder), then
    /// the README's commands (`vdirsyncer discover resv`, answering y; `vdirsyncer sync`; khal).
    @Test(
        .enabled(
            if: Requirement.vdirsyncer.isMet && Requirement.khal.isMet, "needs vdirsyncer and khal (make test-deps)"))
    func theReadmesVdirsyncerAndKhalSnippetsWorkAsCopied() throws {
        let remote = try Remote()
        let day = visitAhead(days: 25)
        #expect(try remote.resv("reserve", "-l", "half dome", "-d", day, "-n", "3").status == 0)
        #expect(try remote.resv("reserve", "-l", "turtle rock", "-d", day, "-n", "1", "--note", "sunrise").status == 0)
        let url = try Self.url(remote)
        let readme = try String(contentsOf: Binary.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let vdirsyncer = try Self.block(in: readme, after: "For khal, vdirsyncer keeps a local copy:")
        let khal = try Self.block(in: readme, after: "point khal at that folder in")
        let example = "https://resv.example.com/calendar/SECRET.ics"
        #expect(vdirsyncer.contains(example), "the README's example URL changed: \(vdirsyncer)")
        let home = remote.sandbox.directory.appendingPathComponent("home")
        func write(_ text: String, to path: String) throws {
            let file = home.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
        try write(vdirsyncer.replacingOccurrences(of: example, with: url), to: ".config/vdirsyncer/config")
        try write(khal, to: ".config/khal/config")
        let environment = [
            "HOME": home.path, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TZ": "UTC",
        ]
        // `discover` asks whether to make the local folder: the README says to answer y.
        let discover = try runProcess(
            "/usr/bin/vdirsyncer", ["discover", "resv"], environment: environment, stdin: "y\n")
        #expect(discover.status == 0, "\(discover.stdout) \(discover.stderr)")
        let sync = try runProcess("/usr/bin/vdirsyncer", ["sync"], environment: environment, stdin: nil)
        #expect(sync.status == 0, "\(sync.stdout) \(sync.stderr)")
        let folder = home.appendingPathComponent(".local/share/calendars/resv")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(files.filter { $0.hasSuffix(".ics") }.count == 2, "\(files)")
        let list = try runProcess("/usr/bin/khal", ["list", "today", "30d"], environment: environment, stdin: nil)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains("Half Dome, party of 3"), "\(list.stdout) \(list.stderr)")
        #expect(list.stdout.contains("Turtle Rock, party of 1"), "\(list.stdout)")
        // A second sync after nothing changed changes nothing.
        let again = try runProcess("/usr/bin/vdirsyncer", ["sync"], environment: environment, stdin: nil)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(
            !again.stdout.contains("Copying") && !again.stderr.contains("Copying"), "nothing to copy: \(again.stderr)")
    }

    /// The first fenced block after `marker` in `text`: its lines between the fences.
    static func block(in text: String, after marker: String) throws -> String {
        let at = try #require(text.range(of: marker), "the README says \(marker)")
        let rest = text[at.upperBound...]
        let open = try #require(rest.range(of: "```"), "a block follows \(marker)")
        let body = rest[open.upperBound...].drop { $0 != "\n" }.dropFirst()
        let close = try #require(body.range(of: "\n```"), "the block after \(marker) ends")
        return String(body[..<close.lowerBound]) + "\n"
    }
}
