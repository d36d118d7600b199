import Foundation
import ResvReference
import ResvTestKit
import Testing

/// `make dist` stamps the package's version into built binaries (scripts/stamp-version):
/// the stamped copy says it with --version, the build itself says Reference.version.
@Suite("The version stamp of packaged binaries", .ownThreads, .timeLimit(.minutes(30)))
struct VersionStampTests {
    @Test(arguments: [Binary.resv, Binary.server])
    func aStampedBinarySaysItsVersion(binary: URL) throws {
        let sandbox = try Sandbox()
        let copy = sandbox.directory.appendingPathComponent(binary.lastPathComponent)
        try FileManager.default.copyItem(at: binary, to: copy)
        let script = Binary.packageRoot.appendingPathComponent("scripts/stamp-version").path

        let unstamped = try runProcess(
            copy.path, ["--version"], environment: ["HOME": sandbox.directory.path], stdin: nil)
        #expect(unstamped.stdout == Reference.version + "\n", "\(unstamped.stderr)")

        let stamp = try runProcess(script, ["0.1.0+git.457.4c71338.dirty", copy.path], environment: [:], stdin: nil)
        #expect(stamp.status == 0, "\(stamp.stderr)")
        let stamped = try runProcess(
            copy.path, ["--version"], environment: ["HOME": sandbox.directory.path], stdin: nil)
        #expect(stamped.stdout == "0.1.0+git.457.4c71338.dirty\n", "\(stamped.stderr)")

        // Stamped again (a shorter version): the padding is rewritten too.
        _ = try runProcess(script, ["1.2.3", copy.path], environment: [:], stdin: nil)
        let again = try runProcess(copy.path, ["--version"], environment: ["HOME": sandbox.directory.path], stdin: nil)
        #expect(again.stdout == "1.2.3\n")

        // A version longer than the stamp, or not a version: refused, the file unchanged.
        let before = try Data(contentsOf: copy)
        for bad in [String(repeating: "9", count: 200), "1.0 beta"] {
            let refused = try runProcess(script, [bad, copy.path], environment: [:], stdin: nil)
            #expect(refused.status == 1, "\(bad): \(refused.stderr)")
        }
        #expect(try Data(contentsOf: copy) == before)
    }
}
