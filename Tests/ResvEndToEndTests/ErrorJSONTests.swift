import Foundation
import ResvTestKit
import Testing

/// A script that asked for JSON gets its failure as JSON on stderr, one line:
/// `{"error": {"code", "exitCode", "message"}}`, with the server's codes
/// (docs/contracts.md, "Command line"); without JSON asked for, the one line of text.
@Suite("Errors as JSON", .ownThreads, .timeLimit(.minutes(30)))
struct ErrorJSONTests {
    /// The one line of stderr as `{"error": {...}}`.
    static func error(_ run: Run) throws -> [String: Any] {
        #expect(run.stderrLines.count == 1, "\(run.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(run.stderr.utf8)) as? [String: Any]
        let error = try #require(object?["error"] as? [String: Any], "\(run.stderr)")
        #expect(Set(error.keys) == ["code", "exitCode", "message"])
        #expect(error["exitCode"] as? Int == Int(run.status))
        return error
    }

    @Test func eachFailureCarriesItsCodeAndExitCode() throws {
        let sandbox = try Sandbox()
        try sandbox.resv("reserve", "-l", "Half Dome", "-d", "2031-01-01T10:00:00Z", "-n", "2")
        let cases: [(arguments: [String], code: String, status: Int32)] = [
            (["show", "ffff", "--json"], "reservationNotFound", 1),
            (
                ["reserve", "-l", "Nowhere", "-d", "2031-01-01T10:00:00Z", "-n", "2", "--format", "ndjson"],
                "unknownLandmark", 64
            ),
            (["--json", "show", "zz"], "invalidReservationId", 64),
            (["list", "--json", "--bogus"], "invalidRequest", 64),
            (["reserve", "-l", "Half Dome", "-d", "2031-01-01T10:00:00Z", "-n", "400", "--json"], "noCapacity", 1),
            (["watch", "--after", "f99", "--no-follow", "--format=ndjson"], "cursorExpired", 1),
        ]
        for (arguments, code, status) in cases {
            let run = try sandbox.resv(arguments)
            #expect(run.status == status, "\(arguments): \(run.stderr)")
            let error = try Self.error(run)
            #expect(error["code"] as? String == code, "\(arguments): \(run.stderr)")
            #expect((error["message"] as? String)?.hasPrefix("resv:") == false)
        }
        // The same failure without JSON asked for: one line of text.
        let text = try sandbox.resv("show", "ffff")
        #expect(text.stderr == "resv: no reservation matches 'ffff' (see 'resv list --all')\n")
    }

    @Test func aStoreThatIsNotJSONAndAServerThatRefusesTheToken() throws {
        let sandbox = try Sandbox()
        try sandbox.seed("{not json")
        let corrupt = try sandbox.resv("list", "--json")
        #expect(corrupt.status == 65)
        #expect(try Self.error(corrupt)["code"] as? String == "invalidJSON")
        let database = sandbox.directory.appendingPathComponent("server.sqlite").path
        _ = try ServerProcess.createToken("someone", database: database)
        let server = try ServerProcess(database: database)
        defer { server.stop() }
        let refused = try sandbox.resv(
            "list", "--json",
            environment: ["RESV_SERVER": "http://127.0.0.1:\(server.port)", "RESV_TOKEN": "resv_nope"])
        #expect(refused.status == 77)
        #expect(try Self.error(refused)["code"] as? String == "unauthorized")
    }
}
