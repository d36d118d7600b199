import Foundation
import ResvTestKit
import Testing

@testable import ReservationCore
@testable import ReservationFile

/// The undo table (Tests/ResvTestKit/UndoCases.swift) on the memory and file
/// backends, and what the file keeps of an undo.
@Suite("Undo on memory and file", .timeLimit(.minutes(30)))
struct UndoTests {
    /// Where the file backend's store is, removed after each test.
    let folder: TemporaryDirectory

    init() throws { folder = try TemporaryDirectory("undo") }

    /// One case on one backend; memory has no "someone else" (no other program
    /// writes its records), so the cases that need one run on the file only.
    struct Run: Sendable, CustomTestStringConvertible {
        let kind: ModifyTests.Kind
        let index: Int
        var testDescription: String { "\(kind.rawValue): \(UndoCase.all[index].description)" }
    }

    static let runs: [Run] = ModifyTests.Kind.allCases.flatMap { kind in
        UndoCase.all.indices.filter { index in
            kind == .file
                || !UndoCase.all[index].steps.contains { step in
                    switch step {
                    case .elsewhere, .edit: true
                    default: false
                    }
                }
        }.map { Run(kind: kind, index: $0) }
    }

    /// The adapter, with another program's bookings and edits written into the file itself.
    static func backend(_ service: ReservationService, file url: URL?) -> UndoCase.Backend {
        var backend = UndoCase.backend(service)
        guard let url else { return backend }
        @Sendable func rewrite(_ change: (inout [JSONValue]) throws -> Void) throws {
            var document = try JSONValue.parse(Data(contentsOf: url))
            guard case .array(var records)? = document["reservations"] else { throw ModelFailure("no reservations") }
            try change(&records)
            document["reservations"] = .array(records)
            try Data(document.encoded()).write(to: url)
        }
        backend.elsewhere = { landmark, date, party in
            try rewrite { records in
                records.append(
                    ReservationApiModel(
                        id: UUID().uuidString.lowercased(), landmarkId: landmark.id.description,
                        date: DateTime.format(date), partySize: party, status: "confirmed"
                    ).json)
            }
        }
        backend.edit = { id, party in
            try rewrite { records in
                guard let index = records.firstIndex(where: { $0["id"] == .string(id) }) else {
                    throw ModelFailure("no record \(id)")
                }
                records[index]["partySize"] = .integer(Int64(party))
            }
        }
        return backend
    }

    @Test(arguments: runs)
    func undoRules(run: Run) async throws {
        let hall = ModifyCase.hall()
        let (service, url) = try ModifyTests.service(run.kind, hall: hall, in: folder)
        let problems = try await UndoCase.all[run.index].run(on: Self.backend(service, file: url), at: hall)
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test(arguments: ModifyTests.Kind.allCases)
    func anUndoIsRecordedAsUndoneChangesNamingTheCommand(kind: ModifyTests.Kind) async throws {
        let hall = ModifyCase.hall()
        let (service, url) = try ModifyTests.service(kind, hall: hall, in: folder)
        let batch = try await service.reserve(
            (0..<50).map { _ in
                try NewReservation(landmarkID: hall.id, date: ModifyCase.date(0), partySize: 2, now: Date())
            })
        let result = try await service.undo()
        #expect(result.changes.count == 50)
        #expect(Set(result.changes.map(\.command)).count == 1)
        let history = try await service.history(nil, nil)
        #expect(history.count == 100)
        let created = history.filter { $0.change == .created }
        #expect(Set(created.map(\.command)) == [result.command])
        #expect(history.prefix(50).allSatisfy { $0.change == .undone && $0.undoes == result.command })
        #expect(history[0].before?.status == "confirmed")
        #expect(history[0].after.status == "cancelled")
        #expect(history[0].after.version == 2)
        let now = try await service.fetch().reservations
        #expect(now.count == 50)
        #expect(now.allSatisfy { $0.status == .cancelled })
        #expect(Set(now.map(\.id)) == Set(batch.map(\.id)))
        // The undo is no command of its own: nothing is left to take back.
        #expect(await UndoCase.answer { try await service.undo() } == .nothingToUndo)
        if let url {
            // In the journal beside the store, one change a line.
            let kept = try String(contentsOf: url.appendingPathExtension("history"), encoding: .utf8)
                .split(separator: "\n").compactMap {
                    try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
                }
            #expect(kept.count == 100)
            #expect(kept.last?["undoes"] as? String == result.command)
        }
    }
}
