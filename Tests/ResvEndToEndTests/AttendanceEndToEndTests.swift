import Foundation
import Testing

/// `resv checkin`, `resv noshow` and `resv day` run as users run them: exit codes, one-line
/// refusals, undo, and the manifest's three formats, on a file store and on a real server.
@Suite("Check-in and the day's manifest, end to end", .ownThreads, .timeLimit(.minutes(30)))
struct AttendanceEndToEndTests {
    static let hall = "aaaa0000-0000-4000-8000-00000000e2e1"
    static let catalog = """
        [{"id": "\(hall)", "name": "Small Hall", "location": "Testville", "category": "lakes", "capacity": 120,
          "timeZone": "Europe/Paris"}]
        """
    static let ahead = "e2e10001-0000-4000-8000-00000000e201"
    static let passed = "e2e20002-0000-4000-8000-00000000e202"
    static let later = "e2e30003-0000-4000-8000-00000000e203"
    static let gone = "e2e40004-0000-4000-8000-00000000e204"

    static func record(_ id: String, _ date: String, _ party: Int, _ status: String, note: String? = nil) -> String {
        let noted = note.map { #", "note": "\#($0)""# } ?? ""
        return
            #"{"id": "\#(id)", "landmarkId": "\#(hall)", "date": "\#(date)", "partySize": \#(party), "status": "\#(status)"\#(noted)}"#
    }

    /// On a file: a check-in, a second one refused saying when, a no-show before the visit refused,
    /// one after it recorded, both undone; the manifest as a table, JSON and CSV.
    @Test func checkInNoShowUndoAndTheDayOnAFile() throws {
        let sandbox = try Sandbox()
        let records = [
            Self.record(Self.ahead, "2100-03-01T09:00:00Z", 3, "confirmed", note: "ramp"),
            Self.record(Self.later, "2100-03-01T14:30:00Z", 2, "pending"),
            Self.record(Self.gone, "2100-03-01T11:00:00Z", 5, "cancelled"),
            Self.record(Self.passed, "2020-03-01T10:00:00Z", 4, "confirmed"),
        ]
        try sandbox.seed(
            #"{"version": 1, "landmarks": \#(Self.catalog), "reservations": [\#(records.joined(separator: ", "))]}"#)

        let checkin = try sandbox.resv("checkin", Self.ahead)
        #expect(checkin.status == 0, "\(checkin.stderr)")
        #expect(checkin.stdout.hasPrefix("Checked in "), "\(checkin.stdout)")
        let again = try sandbox.resv("checkin", String(Self.ahead.prefix(8)))
        #expect(again.status == 1 && again.stdout.isEmpty, "\(again.stderr)")
        #expect(again.stderrLines.count == 1, "\(again.stderr)")
        #expect(again.stderr.contains("was already checked in at "), "\(again.stderr)")
        let cancelled = try sandbox.resv("checkin", Self.gone)
        #expect(cancelled.status == 1 && cancelled.stderrLines.count == 1, "\(cancelled.stderr)")
        #expect(cancelled.stderr.contains("is cancelled and cannot be checked in"), "\(cancelled.stderr)")
        let early = try sandbox.resv("noshow", Self.later)
        #expect(early.status == 1 && early.stderrLines.count == 1, "\(early.stderr)")
        #expect(early.stderr.contains("still ahead"), "\(early.stderr)")
        let noShow = try sandbox.resv("noshow", Self.passed, "--json")
        #expect(noShow.status == 0, "\(noShow.stderr)")
        let marked = try JSONSerialization.jsonObject(with: Data(noShow.stdout.utf8)) as? [String: Any]
        #expect(marked?["status"] as? String == "no-show", "\(noShow.stdout)")
        let listed = try sandbox.resv("list", "--status", "checked-in", "--status", "no-show", "--format", "csv")
        #expect(listed.stdout.split(separator: "\r\n").count == 3, "\(listed.stdout)")

        // The manifest of 2100-03-01 at the hall (Paris: 10:00, 15:30), the cancelled one left out.
        let table = try sandbox.resv("day", "2100-03-01", "--landmark", "small hall")
        #expect(table.status == 0, "\(table.stderr)")
        let lines = table.stdout.split(separator: "\n")
        #expect(lines.count == 5, "\(table.stdout)")
        #expect(lines[0] == "Small Hall, 2100-03-01 (Europe/Paris)")
        #expect(lines[2].hasPrefix("10:00") && lines[2].contains("checked-in") && lines[2].contains("ramp"))
        #expect(lines[3].hasPrefix("15:30") && lines[3].contains("pending"))
        #expect(lines[4] == "2 parties, 5 people: 2 pending, 3 checked-in", "\(table.stdout)")
        let json = try sandbox.resv("day", "2100-03-01", "--landmark", "small hall", "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let totals = try #require(object["totals"] as? [String: Any])
        #expect(totals["parties"] as? Int == 2 && totals["people"] as? Int == 5, "\(json.stdout)")
        let parties = try #require(object["parties"] as? [[String: Any]])
        #expect(parties.compactMap { $0["id"] as? String } == [Self.ahead, Self.later])
        let csv = try sandbox.resv("day", "2100-03-01", "-l", "small hall", "--format", "csv")
        #expect(csv.stdout.hasPrefix("time,user,partySize,status,note,id,date\r\n10:00,"), "\(csv.stdout)")
        // A day that is no day: one line, usage (64).
        let bad = try sandbox.resv("day", "fortnight", "--landmark", "small hall")
        #expect(bad.status == 64 && bad.stderrLines.count == 1, "\(bad.stderr)")

        // Undo takes back the no-show, then the check-in.
        #expect(try sandbox.resv("undo", "--yes").status == 0)
        #expect(try sandbox.resv("undo", "--yes").status == 0)
        let after = try sandbox.resv("list", "--all", "--format", "csv")
        #expect(!after.stdout.contains("checked-in") && !after.stdout.contains("no-show"), "\(after.stdout)")
    }

    /// On a server: the same commands through its routes (a whole id sent as it is), a refusal
    /// in one line with exit 1, and the manifest across two users.
    @Test func checkInAndTheDayOnAServer() throws {
        let remote = try RemoteTests.Remote(landmarks: Self.catalog)
        // alice an admin, as `resv-server user set` makes one, before her token is first used.
        let database = remote.sandbox.directory.appendingPathComponent("server.sqlite").path
        let promote = try runProcess(
            Binary.server.path, ["user", "set", "alice", "--role", "admin", "--database", database],
            environment: ["RESV_SERVER_CONFIG": ""], stdin: nil)
        #expect(promote.status == 0, "\(promote.stderr)")
        let manager = remote.alice
        // bob, a member, may not check a party in, nor read the day.
        #expect(try remote.resv("day", "2100-03-01", "--landmark", "small hall", token: remote.bob).status == 77)
        let mine = try remote.resv(
            "reserve", "-l", "small hall", "-d", "2100-03-01T09:00:00Z", "-n", "3", "--json", token: manager)
        #expect(mine.status == 0, "\(mine.stderr)")
        let id = try #require(
            (try JSONSerialization.jsonObject(with: Data(mine.stdout.utf8)) as? [String: Any])?["id"] as? String)
        let bobs = try remote.resv(
            "reserve", "-l", "small hall", "-d", "2100-03-01T16:00:00Z", "-n", "2", "--json", token: remote.bob)
        #expect(bobs.status == 0, "\(bobs.stderr)")
        let bobsID = try #require(
            (try JSONSerialization.jsonObject(with: Data(bobs.stdout.utf8)) as? [String: Any])?["id"] as? String)
        let checkin = try remote.resv("checkin", id, token: manager)
        #expect(checkin.status == 0, "\(checkin.stderr)")
        let again = try remote.resv("checkin", id, token: manager)
        #expect(again.status == 1 && again.stderrLines.count == 1, "\(again.stderr)")
        #expect(again.stderr.contains("already checked in at"), "\(again.stderr)")
        let early = try remote.resv("noshow", String(id.prefix(8)), token: manager)
        #expect(early.status == 1 && early.stderrLines.count == 1, "\(early.stderr)")
        let day = try remote.resv("day", "2100-03-01", "--landmark", "small hall", "--json", token: manager)
        #expect(day.status == 0, "\(day.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(day.stdout.utf8)) as? [String: Any])
        let parties = try #require(object["parties"] as? [[String: Any]])
        #expect(parties.compactMap { $0["user"] as? String } == ["alice", "bob"], "\(day.stdout)")
        #expect(parties.compactMap { $0["status"] as? String } == ["checked-in", "confirmed"])
        #expect(try remote.resv("undo", "--yes", token: manager).status == 0)
        let shown = try remote.resv("show", id, "--json", token: manager)
        #expect(shown.stdout.contains("confirmed"), "\(shown.stdout)")
        // The manager cancels bob's party by its whole id, as `resv cancel` sends it; bob sees it cancelled.
        let cancel = try remote.resv("cancel", bobsID, token: manager)
        #expect(cancel.status == 0, "\(cancel.stderr)")
        let seen = try remote.resv("show", bobsID, "--json", token: remote.bob)
        #expect(seen.stdout.contains("\"cancelled\""), "\(seen.stdout)")
    }
}
