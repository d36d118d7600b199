import Foundation
import Testing

@testable import ReservationCore

/// `Undo`'s rules on their own, where the backends' table cannot reach: which
/// command is taken back, and dates that have passed by the time of the undo.
@Suite("Undo's rules", .timeLimit(.minutes(30)))
struct UndoPlanTests {
    static let id = Reservation.ID(UUID())

    static func record(_ date: String, party: Int = 4, status: String = "confirmed", version: Int = 1)
        -> ReservationApiModel
    {
        var record = ReservationApiModel(
            id: id.description, landmarkId: Landmark.ID(UUID()).description, date: date, partySize: party,
            status: status)
        record.version = version
        return record
    }

    static func entry(
        _ change: HistoryEntry.Change, _ before: ReservationApiModel?, _ after: ReservationApiModel, command: String,
        undoes: String? = nil
    ) -> HistoryEntry {
        HistoryEntry(
            at: Date(), change: change, reservationID: id, before: before, after: after, command: command,
            undoes: undoes)
    }

    @Test func theNewestCommandNeitherAnUndoNorUndoneIsTakenBack() {
        let made = Self.record("2100-01-01T10:00:00Z")
        let history = [
            Self.entry(.created, nil, made, command: "a"),
            Self.entry(.modified, made, made, command: "b"),
            Self.entry(.modified, made, made, command: "c"),
            Self.entry(.undone, made, made, command: "u1", undoes: "c"),
        ]
        #expect(Undo.lastCommand(in: history).map(\.command) == ["b"])
        #expect(Undo.lastCommand(in: Array(history.prefix(1))).map(\.command) == ["a"])
        let all =
            history + [
                Self.entry(.undone, made, made, command: "u2", undoes: "b"),
                Self.entry(.undone, made, made, command: "u3", undoes: "a"),
            ]
        #expect(Undo.lastCommand(in: all).isEmpty)
        #expect(Undo.lastCommand(in: []).isEmpty)
    }

    @Test func aMoveIsNotTakenBackToADayThatHasPassed() throws {
        let old = Self.record("2030-01-01T10:00:00Z")
        let moved = Self.record("2030-06-01T10:00:00Z", version: 2)
        let command = [Self.entry(.modified, old, moved, command: "m")]
        let before = try DateTime.parse("2029-12-01T00:00:00Z")
        let after = try DateTime.parse("2030-02-01T00:00:00Z")
        let steps = try Undo.plan(command, current: { _ in moved }, now: before)
        #expect(steps.map(\.target.date) == ["2030-01-01T10:00:00Z"])
        #expect(steps.map(\.target.version) == [3])
        let error = #expect(throws: ReservationError.self) {
            try Undo.plan(command, current: { _ in moved }, now: after)
        }
        guard case .undoInPast(let id, let date, command: "m")? = error else {
            Issue.record("expected undoInPast, got \(String(describing: error))")
            return
        }
        #expect(id == Self.id && date == old.date.flatMap { try? DateTime.parse($0) })
        #expect(error?.code == .undoInPast && error?.code.kind == .refused)
        #expect(
            error?.errorDescription
                == "cannot undo command m: reservation \(Self.id.short) would be active again on "
                + "2030-01-01T10:00:00Z, which has passed; nothing changed")
    }

    @Test func aCancelIsNotTakenBackAfterItsDayButABookingAlwaysIs() throws {
        let made = Self.record("2030-01-01T10:00:00Z")
        let cancelled = Self.record("2030-01-01T10:00:00Z", status: "cancelled", version: 2)
        let later = try DateTime.parse("2030-02-01T00:00:00Z")
        let error = #expect(throws: ReservationError.self) {
            try Undo.plan(
                [Self.entry(.cancelled, made, cancelled, command: "c")], current: { _ in cancelled }, now: later)
        }
        guard case .undoInPast(_, _, command: "c")? = error else {
            Issue.record("expected undoInPast, got \(String(describing: error))")
            return
        }
        let steps = try Undo.plan([Self.entry(.created, nil, made, command: "r")], current: { _ in made }, now: later)
        #expect(steps.map(\.target.status) == ["cancelled"])
    }

    @Test func aRecordChangedSinceIsAConflictAndAMissingOneIsNotFound() {
        let made = Self.record("2100-01-01T10:00:00Z")
        var edited = made
        edited.partySize = 5
        let command = [Self.entry(.created, nil, made, command: "r")]
        #expect(throws: ReservationError.self) { try Undo.plan(command, current: { _ in edited }, now: Date()) }
        #expect(throws: ReservationError.self) { try Undo.plan(command, current: { _ in nil }, now: Date()) }
        // A change of version or times alone is no conflict: the values are what the command left.
        var touched = made
        touched.version = 7
        touched.updatedAt = "2099-01-01T00:00:00Z"
        #expect((try? Undo.plan(command, current: { _ in touched }, now: Date()))?.count == 1)
    }
}
