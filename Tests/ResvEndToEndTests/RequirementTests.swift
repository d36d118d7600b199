import ResvTestKit
import Testing

/// Under CI (`RESV_REQUIRE_ALL=1`, set by `.ci/run`) every test that needs root or a program
/// must run: one missing requirement fails here by name, rather than as a quiet skip.
@Suite("What CI must have", .ownThreads, .timeLimit(.minutes(30)))
struct RequirementTests {
    @Test(
        .enabled(if: Requirement.allRequired, "RESV_REQUIRE_ALL is not 1: tests that need one may be skipped"),
        arguments: Requirement.allCases)
    func isMetWhenAllAreRequired(_ requirement: Requirement) {
        #expect(
            requirement.isMet,
            "\(requirement) is missing: the tests that need it were skipped (run as root after `make test-deps`)")
    }
}
