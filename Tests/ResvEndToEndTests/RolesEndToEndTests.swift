import Foundation
import ResvTestKit
import Testing

/// Roles as a team uses them: users made with the built `resv-server`, a real server, and
/// `resv` run as a subprocess by the owner and an admin: the staff's change named by `resv
/// log` and `resv show`, another user's history for an admin only (exit 77 for a member), and
/// `--user` on a file store (64).
@Suite("Roles end to end", .ownThreads, .timeLimit(.minutes(30)))
struct RolesEndToEndTests {
    @Test func theOwnerSeesWhoChangedTheirReservationAndAnAdminReadsTheirLog() async throws {
        let sandbox = try Sandbox()
        let database = sandbox.directory.appendingPathComponent("server.sqlite").path
        func server(_ arguments: String...) throws -> Run {
            try runProcess(
                Binary.server.path, arguments + ["--database", database], environment: ["RESV_SERVER_CONFIG": ""],
                stdin: nil)
        }
        #expect(try server("user", "add", "root", "--role", "admin").status == 0)
        let staff = try server("user", "add", "ranger-joe", "--role", "staff", "--landmark", "Golden Gate Bridge")
        #expect(staff.status == 0, "\(staff.stderr)")
        let ada = try ServerProcess.createToken("ada", database: database)
        let ranger = try ServerProcess.createToken("ranger-joe", database: database)
        let root = try ServerProcess.createToken("root", database: database)
        let process = try ServerProcess(database: database)
        defer { process.stop() }
        func resv(_ token: String, _ arguments: String...) throws -> Run {
            try sandbox.resv(
                arguments,
                environment: [
                    "RESV_SERVER": "http://127.0.0.1:\(process.port)", "RESV_TOKEN": token, "RESV_STORE": "",
                    "XDG_CACHE_HOME": sandbox.directory.appendingPathComponent("cache-\(token.suffix(6))").path,
                    "XDG_CONFIG_HOME": sandbox.directory.appendingPathComponent("config").path,
                ])
        }
        let booked = try resv(
            ada, "reserve", "-l", "Golden Gate Bridge", "-d", "2031-06-01T10:00:00Z", "-n", "2", "--json")
        #expect(booked.status == 0, "\(booked.stderr)")
        let id = try #require(
            (try JSONSerialization.jsonObject(with: Data(booked.stdout.utf8)) as? [String: Any])?["id"] as? String)
        // The staff cancel it through the API (the reservation route of one id).
        let (status, _) = try await process.request("DELETE", "/reservations/\(id)", token: ranger)
        #expect(status == 200)

        let log = try resv(ada, "log")
        #expect(log.status == 0, "\(log.stderr)")
        #expect(log.stdout.contains("cancelled by ranger-joe"), "\(log.stdout)")
        #expect(!log.stdout.contains("created by"), "the owner's own change names no one: \(log.stdout)")
        let show = try resv(ada, "show", String(id.prefix(8)))
        #expect(show.stdout.contains("Changed   cancelled by ranger-joe, "), "\(show.stdout)")
        let csv = try resv(ada, "log", "--format", "csv")
        #expect(csv.stdout.hasPrefix("at,change,reservationId,detail,user,actor\r\n"), "\(csv.stdout)")
        #expect(csv.stdout.contains(",status confirmed → cancelled,ada,ranger-joe\r\n"), "\(csv.stdout)")

        // Another user's history: an admin reads it, a member is refused in one line, exit 77.
        let read = try resv(root, "log", "--user", "ada", "--json")
        #expect(read.status == 0, "\(read.stderr)")
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(read.stdout.utf8)) as? [[String: Any]])
        #expect(entries.map { $0["change"] as? String } == ["cancelled", "created"])
        #expect((entries.first?["actor"] as? [String: Any])?["user"] as? String == "ranger-joe")
        #expect(!read.stdout.contains(ranger) && !read.stdout.contains(root))
        let refused = try resv(ada, "log", "--user", "root")
        #expect(refused.status == 77, "\(refused.stderr)")
        #expect(refused.stdout.isEmpty && refused.stderrLines.count == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("only an admin may read another user's history"))

        // On a file store there is no other user.
        let file = try sandbox.resv("log", "--user", "ada")
        #expect(file.status == 64 && file.stderrLines.count == 1, "\(file.stderr)")
    }
}
