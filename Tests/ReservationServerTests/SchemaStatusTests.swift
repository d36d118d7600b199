import Foundation
import ReservationCore
import Testing

@testable import ReservationServer
@testable import ReservationStorage

/// The statuses a database keeps are frozen when its schema step runs: the status CHECK
/// (versions 5 and 14) and PostgreSQL's day-count trigger (`resv_count_day`, versions 10
/// and 14) name them as the step wrote them, and an upgraded database keeps them. Each
/// step names its statuses itself (`Schema.checked`, `Schema.takingPlaces`), so a new
/// database is what an upgraded one is; here a freshly migrated one is read back and held
/// to the domain's statuses. A status added to `Reservation.Status` without a schema step
/// that writes the CHECK and the trigger anew fails here.
@Suite("A new database's status CHECK and day counts know every status", .timeLimit(.minutes(30)))
struct SchemaStatusTests {
    @Test(arguments: Engine.available.filter { $0 != .memory })
    func theStatusCheckAllowsEveryStatus(engine: Engine) async throws {
        try await withHarness(engine) { h in
            let definition: String
            if engine == .sqlite {
                let sql = try await ConditionTests.ids(
                    "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'reservations'", h)
                definition = try #require(sql.first)
            } else {
                let check = try await ConditionTests.ids(
                    """
                    SELECT pg_get_constraintdef(oid) FROM pg_constraint
                    WHERE conname = 'reservations_status_check' AND conrelid = 'reservations'::regclass
                    """, h)
                definition = try #require(check.first)
            }
            let allowed = try #require(
                Self.statuses(in: definition, after: engine == .sqlite ? "status IN (" : "CHECK"))
            #expect(Set(allowed) == Set(Reservation.Status.allCases.map(\.rawValue)), "\(definition)")
        }
    }

    @Test(.enabled(if: Engine.postgresURL != nil, "needs RESV_TEST_POSTGRES_URL (scripts/with-postgres)"))
    func theDayCountTriggerCountsTheStatusesThatTakePlaces() async throws {
        try await withHarness(.postgres) { h in
            let source = try #require(
                try await ConditionTests.ids("SELECT prosrc FROM pg_proc WHERE oid = 'resv_count_day'::regproc", h)
                    .first)
            for row in ["OLD", "NEW"] {
                let counted = try #require(Self.statuses(in: source, after: "\(row).status IN ("), "\(source)")
                #expect(Set(counted) == Set(Reservation.Status.takingPlaces.map(\.rawValue)), "\(row): \(source)")
            }
        }
    }

    /// The quoted words of the first parenthesised list after `marker` in `text`
    /// (`'pending'::text` reads `pending`), in order; nil when `marker` is not there.
    static func statuses(in text: String, after marker: String) -> [String]? {
        guard let start = text.range(of: marker) else { return nil }
        // Up to the first closing parenthesis: `IN ('a', 'b')`, or PostgreSQL's `ANY (ARRAY['a'::text])`.
        let list = text[start.upperBound...].prefix { $0 != ")" }
        let words = list.split(separator: "'", omittingEmptySubsequences: false)
        return stride(from: 1, to: words.count, by: 2).map { String(words[$0]) }
    }

    @Test func statusesAreReadFromEachDatabasesText() {
        #expect(
            Self.statuses(
                in: "CHECK (party_size > 0), status TEXT CHECK (status IN ('a', 'b-c'))", after: "status IN (")
                == ["a", "b-c"])
        #expect(
            Self.statuses(in: "CHECK ((status = ANY (ARRAY['a'::text, 'b-c'::text])))", after: "CHECK") == ["a", "b-c"])
        #expect(Self.statuses(in: "CHECK (x > 0)", after: "status IN (") == nil)
    }
}
