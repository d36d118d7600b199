import Foundation
import ResvTestKit
import Testing

/// Small things a new user meets first, through the built `resv`.
@Suite("First steps: -v, did you mean, a mistyped store, tokens, ended holds", .ownThreads, .timeLimit(.minutes(30)))
struct SmallerPromisesTests {
    @Test func dashVAloneIsTheVersion() throws {
        let sandbox = try Sandbox()
        let version = try sandbox.resv("--version")
        let short = try sandbox.resv("-v")
        #expect(short.status == 0 && !version.stdout.isEmpty)
        #expect(short.stdout == version.stdout, "\(short.stdout)")
        // After a command, -v is still --verbose.
        let verbose = try sandbox.resv("list", "-v")
        #expect(verbose.status == 0 && verbose.stdout != version.stdout)
    }

    @Test func theStartOfAnOptionSuggestsThatOption() throws {
        let sandbox = try Sandbox()
        let run = try sandbox.resv("reserve", "-l", "half dome", "-d", "tomorrow 10:00", "--party", "3")
        #expect(run.status == 64)
        #expect(
            run.stderrLines == [
                "resv: unknown option '--party': did you mean '--party-size'? (see 'resv reserve --help')"
            ], "\(run.stderr)")
    }

    @Test func aStoreInAFolderThatIsNotThereIsRefusedAndNoFolderMade() throws {
        let sandbox = try Sandbox()
        let missing = sandbox.directory.appendingPathComponent("typo/dir")
        let store = missing.appendingPathComponent("x.json").path
        for (arguments, environment) in [
            (["--store", store, "reserve", "-l", "half dome", "-d", "tomorrow 10:00", "-n", "1"], [String: String]()),
            (["list"], ["RESV_STORE": store]),
        ] {
            let run = try sandbox.resv(arguments, environment: environment)
            #expect(run.status == 73, "\(run.stderr)")
            #expect(run.stderrLines.count == 1)
            #expect(run.stderr.contains("\(missing.path) does not exist"), "\(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: sandbox.directory.appendingPathComponent("typo").path))
        // The default store's folder is still made at the first write.
        let fresh = try sandbox.resv(
            ["reserve", "-l", "half dome", "-d", "tomorrow 10:00", "-n", "1"],
            environment: ["RESV_STORE": "", "XDG_DATA_HOME": sandbox.directory.appendingPathComponent("data").path])
        #expect(fresh.status == 0, "\(fresh.stderr)")
    }

    @Test func cancelOfAHoldThatEndedSaysItExpired() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(
            #"{"version": 1, "reservations": [{"id": "5eed4444-4444-4444-8444-444444444444", "#
                + #""landmarkId": "7c6984ff-188e-417e-b476-ec5f30b8d745", "date": "2031-06-01T10:00:00Z", "#
                + #""partySize": 2, "status": "held", "expiresAt": "2020-01-01T00:00:00Z"}]}"#)
        let run = try sandbox.resv("cancel", "5eed4444")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("Already expired: 5eed4444"), "\(run.stdout)")
    }

    @Test func aServerThatSaysTheTokenExpiredIsBelieved() throws {
        let server = try FaultServer { _, _ in
            .respond(status: 401, body: #"{"error":true,"reason":"the token expired at 2026-01-01T00:00:00Z"}"#)
        }
        defer { server.stop() }
        let sandbox = try Sandbox()
        let run = try sandbox.resv(["list"], server: server)
        #expect(run.status == 77)
        #expect(run.stderr.contains("says the token has expired (401)"), "\(run.stderr)")
    }
}
