import Foundation
import Testing

/// `resv admin` through the built binary against a running `resv-server` (one server for
/// the test): what only a process shows, its exit codes and its one line on stderr.
@Suite("resv admin end to end", .serialized, .timeLimit(.minutes(30)))
struct AdminEndToEndTests {
    @Test func aClosedDayRefusesBookingsAndTheOwnersLogNamesTheReason() throws {
        let remote = try RemoteTests.Remote()
        // alice an admin, as `resv-server user set` makes one, before her token is first used.
        let database = remote.sandbox.directory.appendingPathComponent("server.sqlite").path
        let promote = try runProcess(
            Binary.server.path, ["user", "set", "alice", "--role", "admin", "--database", database],
            environment: ["RESV_SERVER_CONFIG": ""], stdin: nil)
        #expect(promote.status == 0, "\(promote.stderr)")
        let manager = remote.alice
        // bob, a member, may not close a day (403, exit 77), and nothing changes.
        let member = try remote.resv("admin", "close", "half dome", "2030-12-01", "--reason", "x", token: remote.bob)
        #expect(member.status == 77, "\(member.stderr)")
        let booked = try remote.resv(
            "reserve", "-l", "half dome", "-d", "2030-12-01 10:00", "-n", "3", token: remote.bob)
        #expect(booked.status == 0, "\(booked.stderr)")

        let over = try remote.resv("admin", "close", "half dome", "2030-12-01", "--reason", "rockfall", token: manager)
        #expect(over.status == 1)
        #expect(over.stderrLines.count == 1, "\(over.stderr)")
        #expect(over.stderr.contains("3 places are over at Half Dome on 2030-12-01"))

        let closed = try remote.resv(
            "admin", "close", "half dome", "2030-12-01", "--reason", "rockfall", "--cancel", token: manager)
        #expect(closed.status == 0, "\(closed.stderr)")
        #expect(closed.stdout == "2030-12-01  closed: rockfall\n")

        let refused = try remote.resv(
            "reserve", "-l", "half dome", "-d", "2030-12-01 12:00", "-n", "1", token: remote.bob)
        #expect(refused.status == 1)
        #expect(refused.stderr == "resv: Half Dome is closed on 2030-12-01: rockfall\n", "\(refused.stderr)")

        let log = try remote.resv("log", "--json", token: remote.bob)
        #expect(log.stdout.contains(#""reason" : "closed: rockfall""#), "\(log.stdout)")

        let bad = try remote.resv(
            "admin", "capacity", "half dome", "5", "--on", "2030-12-01..2032-01-01", token: manager)
        #expect(bad.status == 64)
        #expect(bad.stderrLines.count == 1, "\(bad.stderr)")

        let read = try remote.resv("availability", "half dome", "--from", "2030-12-01", "--to", "2030-12-01", "--json")
        #expect(read.stdout.contains(#""closed" : "rockfall""#), "\(read.stdout)")
    }
}
