import Foundation
import Logging
import ReservationStorage
import ResvReference
import ResvTestKit
import Testing

/// `user add|set|list`: roles and staff's landmarks stored, the last admin kept, bad input one
/// line and its exit status with nothing changed; run in this process on a temporary SQLite file.
@Suite("resv-server user commands: roles", .timeLimit(.minutes(30)))
struct UserCommandTests {
    typealias Sandbox = ServerCommandTests.Sandbox

    static func run(_ arguments: [String]) async -> Run {
        await ServerCommandTests.resvServer(arguments)
    }

    /// The stored users, as `user list --json` prints them: name → (role, landmark names).
    static func users(_ sandbox: Sandbox) async throws -> [String: (role: String, landmarks: [String])] {
        let list = await run(["user", "list", "--json", "--database", sandbox.database])
        #expect(list.status == 0, "\(list.stderr)")
        let array = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        var users: [String: (role: String, landmarks: [String])] = [:]
        for user in array {
            let landmarks = (user["landmarks"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            users[user["name"] as? String ?? ""] = (user["role"] as? String ?? "", landmarks)
        }
        return users
    }

    @Test func rolesAreAddedChangedAndListed() async throws {
        let sandbox = try Sandbox()
        let db = ["--database", sandbox.database]
        let admin = await Self.run(["user", "add", "root", "--role", "admin"] + db)
        #expect(admin.status == 0 && admin.stderr == "resv-server: added root, an admin\n", "\(admin.stderr)")
        let staff = await Self.run(
            [
                "user", "add", "ranger-joe", "--role", "staff", "--landmark", "half dome", "--landmark",
                "Golden Gate Bridge",
            ]
                + db)
        #expect(staff.status == 0, "\(staff.stderr)")
        #expect(staff.stderr == "resv-server: added ranger-joe, staff of Golden Gate Bridge, Half Dome\n")
        // A user token create made is a member; set makes them staff.
        #expect(await Self.run(["token", "create", "ada"] + db).status == 0)
        let set = await Self.run(["user", "set", "ada", "--role", "staff", "--landmark", "half dome"] + db)
        #expect(set.stderr == "resv-server: ada is now staff of Half Dome (was a member)\n", "\(set.stderr)")
        var users = try await Self.users(sandbox)
        #expect(users["root"]?.role == "admin" && users["root"]?.landmarks == [])
        #expect(users["ranger-joe"]?.role == "staff")
        #expect(users["ranger-joe"]?.landmarks.sorted() == ["Golden Gate Bridge", "Half Dome"])
        #expect(users["ada"]?.role == "staff" && users["ada"]?.landmarks == ["Half Dome"])
        // Set replaces the landmarks; back to member clears them.
        #expect(await Self.run(["user", "set", "ada", "--role", "member"] + db).status == 0)
        users = try await Self.users(sandbox)
        #expect(users["ada"]?.role == "member" && users["ada"]?.landmarks == [])
        let table = await Self.run(["user", "list"] + db)
        #expect(table.stdout.split(separator: "\n").first == "NAME        ROLE    TOKENS  LANDMARKS", "\(table.stdout)")
        #expect(table.stdout.contains("ranger-joe  staff   0       Golden Gate Bridge, Half Dome"), "\(table.stdout)")
        #expect(table.stdout.contains("ada         member  1"), "\(table.stdout)")
    }

    @Test func theLastAdminCannotBeDemoted() async throws {
        let sandbox = try Sandbox()
        let db = ["--database", sandbox.database]
        // Before any admin exists, members are changed freely.
        #expect(await Self.run(["user", "add", "ada", "--role", "member"] + db).status == 0)
        #expect(await Self.run(["user", "add", "root", "--role", "admin"] + db).status == 0)
        let refused = await Self.run(["user", "set", "root", "--role", "member"] + db)
        #expect(refused.status == ExitStatus.refused)
        #expect(
            refused.stderr
                == "resv-server: root is the only admin: make another user admin first ('user set NAME --role admin')\n"
        )
        #expect(try await Self.users(sandbox)["root"]?.role == "admin", "nothing changed")
        #expect(await Self.run(["user", "set", "ada", "--role", "admin"] + db).status == 0)
        #expect(await Self.run(["user", "set", "root", "--role", "member"] + db).status == 0)
        #expect(await Self.run(["user", "set", "ada", "--role", "staff", "--landmark", "half dome"] + db).status == 1)
    }

    /// Bad input: one line, its status, nothing stored.
    @Test func badInputIsOneLineAndChangesNothing() async throws {
        let sandbox = try Sandbox()
        let db = ["--database", sandbox.database]
        #expect(await Self.run(["user", "add", "ada", "--role", "member"] + db).status == 0)
        let cases: [(arguments: [String], status: Int32, line: String)] = [
            (
                ["user", "set", "nobody", "--role", "admin"], ExitStatus.usage,
                "resv-server: there is no user named nobody ('resv-server user list' shows them; 'user add' adds one)"
            ),
            (
                ["user", "add", "bo", "--role", "staff", "--landmark", "atlantis"], ExitStatus.usage,
                "resv-server: no landmark matches 'atlantis'"
            ),
            (
                ["user", "add", "ada", "--role", "admin"], ExitStatus.refused,
                "resv-server: ada exists already; 'resv-server user set' changes their role"
            ),
            (["user", "add", "bo", "--role", "staff"], ExitStatus.usage, ""),
            (["user", "add", "bo", "--role", "admin", "--landmark", "half dome"], ExitStatus.usage, ""),
            (["user", "add", "bo", "--role", "owner"], ExitStatus.usage, ""),
            (["user", "add", "b\u{1B}[2Jo", "--role", "member"], ExitStatus.usage, ""),
        ]
        for (arguments, status, line) in cases {
            let run = await Self.run(arguments + db)
            #expect(run.status == status, "\(arguments): \(run.stderr)")
            #expect(run.stdout.isEmpty)
            if !line.isEmpty { #expect(run.stderr.hasPrefix(line), "\(arguments): \(run.stderr)") }
            #expect(run.stderr.filter { $0 == "\n" }.count == 1 || line.isEmpty, "one line: \(run.stderr)")
            #expect(!run.stderr.contains("\u{1B}"))
        }
        let users = try await Self.users(sandbox)
        #expect(users.keys.sorted() == ["ada"] && users["ada"]?.role == "member")
    }
}
