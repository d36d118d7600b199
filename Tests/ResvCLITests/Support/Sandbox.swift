import Foundation
import MemoryEngine
import ReservationCore
import ResvTestKit
import Testing

@testable import ResvCLI

/// The backend a table of commands runs over.
enum Backend: String, CaseIterable, Sendable {
    /// The JSON file store at the sandbox's path, opened by the settings (RESV_STORE) as in a shell.
    case jsonFile
    /// One in-memory service that every command of the sandbox talks to, as the REPL does.
    case inMemory
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
    private let folder: TemporaryDirectory
    let directory: URL
    /// The JSON file store's path (RESV_STORE), also for `.inMemory`, where nothing writes it.
    let store: URL
    private let memory: ReservationService?
    /// The commands' clock (and the memory backend's), held by the test: it stands at
    /// `Sandbox.defaultNow` unless the test gives another, and moves only when the test moves it.
    let clock: TestClock
    var now: @Sendable () -> Date { clock.now }

    /// Where a sandbox's clock stands unless a test says otherwise: 2029-06-01T12:00:00Z, before
    /// every fixed date the tests book (2030 and 2031, `Fixture`) and after the past
    /// ones they use to be refused (2020, 2021), whatever the machine's date.
    static let defaultNow = Date(timeIntervalSince1970: 1_875_009_600)

    /// A sandbox whose store holds `seed` (the JSON file's text): the file itself, or its records
    /// and landmarks in memory; its commands read the time from `clock`.
    init(_ backend: Backend = .jsonFile, seed: String? = nil, clock: TestClock = TestClock(Sandbox.defaultNow)) throws {
        self.backend = backend
        self.clock = clock
        let now = clock.now
        folder = try TemporaryDirectory("cli")
        directory = folder.url
        store = directory.appendingPathComponent("reservations.json")
        switch backend {
        case .jsonFile:
            if let seed { try Data(seed.utf8).write(to: store) }
            memory = nil
        case .inMemory:
            // The file's reservations and, as the file store reads them, its landmarks.
            let document = try seed.map { try JSONValue.parse(Data($0.utf8)) }
            var records: [JSONValue] = []
            if case .array(let seeded)? = document?["reservations"] { records = seeded }
            var catalog = LandmarkCatalog.builtIn
            if case .array(let landmarks)? = document?["landmarks"] { catalog = LandmarkCatalog(records: landmarks) }
            memory = .inMemory(records: records, catalog: catalog, now: now, clock: .continuous)
        }
    }

    func storeBytes() throws -> Data { try Data(contentsOf: store) }

    /// The JSON file store parsed as JSON.
    func storeJSON() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: storeBytes()) as? [String: Any])
    }

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
    func file(_ name: String, _ text: String) throws -> String { try folder.file(name, text) }

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
        if let memory { openService = { _, _ in ResvCLI.Backend(memory) } }
        let (context, output, messages) = CommandContext.captured(
            input: stdin.map(InputSource.text) ?? .empty, environment: env, now: now, timeZone: .gmt,
            openService: openService)
        let status = await ResvMain.run(arguments, context: context)
        return Run(status: status, stdout: output.text, stderr: messages.text)
    }
}

extension Run {
    /// Expects a refused command line: exit 64, nothing on stdout, and one line on stderr
    /// that contains `message`; `label` names the case when one fails.
    func expectUsageError(
        containing message: String, _ label: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(status == 64, "\(label): \(stderr)", sourceLocation: sourceLocation)
        #expect(stdout.isEmpty, "\(label)", sourceLocation: sourceLocation)
        #expect(stderrLines.count == 1, "\(label): \(stderr)", sourceLocation: sourceLocation)
        #expect(stderr.contains(message), "\(label): \(stderr)", sourceLocation: sourceLocation)
    }
}
