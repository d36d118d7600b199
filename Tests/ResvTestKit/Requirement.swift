import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What some tests need of the machine besides Swift: root (files of another user, device
/// files) or a program from Debian (a shell, a calendar client, the failover cluster's). A test
/// that needs one says so with `.enabled(if: Requirement.root.isMet, "why")`, so a run without
/// it shows the test as skipped, and counts it, rather than passing it. CI must run them all:
/// `.ci/run` sets `RESV_REQUIRE_ALL=1`, and then `RequirementTests` fails for each one missing.
public enum Requirement: String, CaseIterable, Sendable, CustomStringConvertible {
    case root
    case vdirsyncer
    case khal
    case zsh
    case fish
    case patroni
    case etcd

    /// Whether this machine, and this test run, has it.
    public var isMet: Bool {
        switch self {
        case .root: geteuid() == 0
        default: FileManager.default.isExecutableFile(atPath: "/usr/bin/\(rawValue)")
        }
    }

    /// `RESV_REQUIRE_ALL=1` (set by `.ci/run`): every requirement must be met.
    public static var allRequired: Bool { ProcessInfo.processInfo.environment["RESV_REQUIRE_ALL"] == "1" }

    public var description: String { self == .root ? "root" : "/usr/bin/\(rawValue)" }
}
