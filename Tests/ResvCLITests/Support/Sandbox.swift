import Foundation
import ReservationCore
import Testing

@testable import ResvCLI

/// The backend a table of commands runs over.
enum Backend: String, CaseIterable, Sendable {
    /// The JSON file store at the sandbox's path, opened by the settings (RESV_STORE) as in a shell.
    case jsonFile
    /// One in-memory service that every command of the sandbox talks to, as the REPL does.
    case inMemory
}

/// One command line run in this process: its exit status and what it wrote.
struct Run: Sendable {
    var status: Int32
    var stdout: String
    var stderr: String

    var stderrLines: [Substring] { stderr.split(separator: "\n", omittingEmptySubsequences: true) }
}

/// What a backend holds, compared before and after a command that must change nothing.
enum StoreState: Equatable {
    /// The file's bytes; nil when there is no file.
    case file(Data?)
    case memory(reservations: [Reservation], rejected: [RejectedRecord], changes: Int)
}

/// A temporary directory with a store (a file in it, or in memory), over which `resv`
/// command lines run in this process (`ResvMain.run`) with given stdin and captured output,
/// in UTC, without a terminal. Removed when the test ends.
final class Sandbox: Sendable {
    let backend: Backend
    let directory: URL
    /// The JSON file store's path (RESV_STORE), also for `.inMemory`, where nothing writes it.
    let store: URL
    private let memory: ReservationService?

    /// A sandbox whose store holds `seed` (the JSON file's text): the file itself, or its records in memory.
    init(_ backend: Backend = .jsonFile, seed: String? = nil) throws {
        self.backend = backend
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("resv-cli-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = directory.appendingPathComponent("reservations.json")
        switch backend {
        case .jsonFile:
            if let seed { try Data(seed.utf8).write(to: store) }
            memory = nil
        case .inMemory:
            var records: [JSONValue] = []
            if let seed, case .array(let seeded)? = try JSONValue.parse(Data(seed.utf8))["reservations"] {
                records = seeded
            }
            memory = .inMemory(records: records)
        }
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func storeBytes() throws -> Data { try Data(contentsOf: store) }

    /// What the backend holds now.
    func state() async throws -> StoreState {
        guard let memory else {
            return .file(FileManager.default.fileExists(atPath: store.path) ? try storeBytes() : nil)
        }
        let snapshot = try await memory.fetch()
        return .memory(
            reservations: snapshot.reservations, rejected: snapshot.rejected,
            changes: try await memory.history(nil, nil).count)
    }

    /// Writes `text` to a file of the sandbox and returns its path.
    func file(_ name: String, _ text: String) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// Runs `resv` with `arguments`: HOME is the sandbox, RESV_STORE its store, then `environment`.
    @discardableResult
    func resv(_ arguments: String..., environment: [String: String] = [:], stdin: String? = nil) async -> Run {
        await resv(arguments, environment: environment, stdin: stdin)
    }

    @discardableResult
    func resv(_ arguments: [String], environment: [String: String] = [:], stdin: String? = nil) async -> Run {
        var env = ["HOME": directory.path, "TZ": "UTC", "RESV_STORE": store.path]
        env.merge(environment) { _, new in new }
        var openService = CommandContext.openConfiguredService
        if let memory { openService = { _, _ in memory } }
        let (context, output, messages) = CommandContext.captured(
            input: stdin.map(InputSource.text) ?? .empty, environment: env, timeZone: .gmt, openService: openService)
        let status = await ResvMain.run(arguments, context: context)
        return Run(status: status, stdout: output.text, stderr: messages.text)
    }
}

/// Fixed records for seeding stores: two reservations share the prefix `abcd`
/// (the same as the end-to-end tests' fixture).
enum Fixture {
    static let halfDome = "937fea60-bb7b-4ee8-85da-c79962987917"
    static let goldenGate = "7c6984ff-188e-417e-b476-ec5f30b8d745"
    static let first = "abcd1111-1111-4111-8111-111111111111"
    static let second = "abcd2222-2222-4222-8222-222222222222"
    static let third = "5eed3333-3333-4333-8333-333333333333"

    /// A store with three valid reservations (one cancelled), an unknown
    /// top-level field, an unknown record field, and one record that does not map.
    static let store = """
        {
          "version": 1,
          "owner": "team-a",
          "reservations": [
            {"id": "\(first)", "landmarkId": "\(halfDome)", "date": "2030-06-01T16:00:00Z", "partySize": 4, "status": "confirmed", "note": "bring water"},
            {"id": "\(second)", "landmarkId": "\(goldenGate)", "date": "2030-05-01T10:00:00Z", "partySize": 2, "status": "pending"},
            {"id": "\(third)", "landmarkId": "\(goldenGate)", "date": "2030-07-01T10:00:00Z", "partySize": 1, "status": "cancelled"},
            {"id": "not-a-uuid", "landmarkId": "\(halfDome)", "date": "2030-06-01T16:00:00Z", "partySize": 4, "status": "confirmed"}
          ]
        }

        """
}
