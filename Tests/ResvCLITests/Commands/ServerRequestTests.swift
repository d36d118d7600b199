import Foundation
import MemoryEngine
import ReservationCore
import ReservationHTTP
import ResvTestKit
import Synchronization
import Testing

@testable import ResvCLI

/// How many requests `cancel`, `confirm` and `modify` make on a server: a whole id goes
/// straight to its request, with no read of the user's whole list; a prefix is resolved in
/// that list as before. What they print is the same either way.
@Suite("Requests a whole id saves on a server", .timeLimit(.minutes(30)))
struct ServerRequestTests {
    /// The commands' HOME: no configuration in it, removed after each test.
    let home: TemporaryDirectory

    init() throws { home = try TemporaryDirectory("requests") }

    /// The routes `resv` uses, answered as a server would from an in-memory service (the
    /// same rules), every request counted as "METHOD /path"; the server, the backend and the
    /// commands read the time from one clock the test holds, at `Sandbox.defaultNow`.
    final class CountingServer: Sendable {
        let clock = TestClock(Sandbox.defaultNow)
        let memory: ReservationService
        let requests = Mutex<[String]>([])

        init() { memory = .inMemory(now: clock.now, clock: .continuous) }

        var counted: [String] { requests.withLock { $0 } }
        func forget() { requests.withLock { $0 = [] } }

        /// The backend a command gets: `resv` over this server, as a configured server is opened.
        var backend: ResvCLI.Backend {
            let configuration = HTTPBackendConfiguration(
                baseURL: URL(string: "http://server.test")!, token: "t0k", now: clock.now)
            let server = ServerBackend(configuration, transport: HTTPTransport { try await self.answer($0) })
            return ResvCLI.Backend(server.service, server: server)
        }

        func book(_ partySize: Int, waitlist: Bool = false, status: Reservation.Status = .confirmed) async throws
            -> Reservation
        {
            let now = clock.now()
            return try await memory.reserve(
                NewReservation(
                    landmark: "Half Dome", date: now.addingTimeInterval(30 * 86_400), partySize: partySize,
                    status: status, waitlist: waitlist, now: now))
        }

        func answer(_ request: HTTPRequestData) async throws -> HTTPResponseData {
            let path = request.url.path
            requests.withLock { $0.append("\(request.method) \(path)") }
            let body = try request.body.map { try JSONValue.parse($0) }
            do {
                switch (request.method, path) {
                case ("GET", "/landmarks"):
                    return Self.json(.array(try await memory.landmarks().landmarks.map { LandmarkApiModel($0).json }))
                case ("GET", "/reservations"):
                    return Self.json(.array(try await memory.fetch().reservations.map(Self.record)))
                case ("GET", "/history"):
                    let limit = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems?
                        .first { $0.name == "limit" }?.value.flatMap { Int($0) }
                    return Self.json(.array(try await memory.history(nil, limit).map(\.json)))
                case ("POST", "/reservations/cancel"), ("POST", "/reservations/confirm"):
                    guard case .array(let items)? = body?["ids"] else { return Self.json(.null, status: 400) }
                    let ids = items.compactMap { item -> Reservation.ID? in
                        if case .string(let text) = item { return Reservation.ID(text) }
                        return nil
                    }
                    let changes =
                        path.hasSuffix("cancel") ? try await memory.cancel(ids) : try await memory.confirm(ids)
                    return Self.json(
                        .array(
                            changes.map {
                                .object([
                                    "previousStatus": .string($0.previous.rawValue),
                                    "reservation": Self.record($0.reservation),
                                ])
                            }))
                case ("GET", _) where path.hasPrefix("/reservations/"):
                    let id = Reservation.ID(String(path.dropFirst("/reservations/".count)))
                    guard let found = try await memory.fetch().reservations.first(where: { $0.id == id }) else {
                        throw ReservationError.reservationNotFound(path)
                    }
                    return Self.json(Self.record(found))
                case ("PATCH", _) where path.hasPrefix("/reservations/"):
                    guard let id = Reservation.ID(String(path.dropFirst("/reservations/".count))) else {
                        throw ReservationError.reservationNotFound(path)
                    }
                    var partySize: Int?
                    if case .integer(let size)? = body?["partySize"] { partySize = Int(size) }
                    let version = request.headers["If-Match"].flatMap { Int($0.trimmingCharacters(in: ["\""])) }
                    var note: String?
                    if case .string(let text)? = body?["note"] { note = text }
                    let change = try ReservationChange(partySize: partySize, note: note)
                    let modified = try await memory.modify(id, change, version)
                    return Self.json(Self.record(modified))
                default:
                    return Self.json(.object(["error": .bool(true), "reason": .string("no route")]), status: 404)
                }
            } catch let error as ReservationError {
                let status = error.code == .reservationNotFound ? 404 : 409
                return Self.json(
                    .object([
                        "error": .bool(true), "reason": .string(error.errorDescription ?? ""),
                        "code": .string(error.code.rawValue),
                    ]), status: status)
            }
        }

        static func record(_ reservation: Reservation) -> JSONValue { ReservationApiModel(reservation).json }

        static func json(_ value: JSONValue, status: Int = 200) -> HTTPResponseData {
            HTTPResponseData(status: status, headers: ["Content-Type": "application/json"], body: value.encoded())
        }
    }

    /// `resv ARGUMENTS` against the server, in this process.
    func resv(_ server: CountingServer, _ arguments: String...) async -> Run {
        let backend = server.backend
        let (context, output, messages) = CommandContext.captured(
            environment: ["HOME": home.url.path, "TZ": "UTC"], now: server.clock.now,
            openService: { _, _ in backend })
        let status = await ResvMain.run(arguments, context: context)
        return Run(status: status, stdout: output.text, stderr: messages.text)
    }

    /// A full day at Half Dome (300 places) and a party of 2 waiting for it.
    func fullDay(_ server: CountingServer) async throws -> (full: Reservation, waiting: Reservation) {
        let full = try await server.book(300)
        let waiting = try await server.book(2, waitlist: true)
        #expect(waiting.status == .waitlisted)
        server.forget()
        return (full, waiting)
    }

    @Test func aCancelByWholeIDSendsTheCancelAndReadsOnlyTheHistoryForPromotions() async throws {
        let byID = CountingServer()
        let (full, waiting) = try await fullDay(byID)
        let run = await resv(byID, "cancel", full.id.description)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("Cancelled \(full.id.short)"), "\(run.stdout)")
        #expect(run.stderr.hasPrefix("Promoted from the waitlist: \(waiting.id.short)  Half Dome"), "\(run.stderr)")
        #expect(run.stderr.hasSuffix("party of 2, confirmed\n"), "\(run.stderr)")
        // Before: GET /landmarks, GET /reservations, POST /reservations/cancel, GET /reservations.
        #expect(byID.counted == ["GET /landmarks", "POST /reservations/cancel", "GET /history"])

        // By prefix: the list resolves it, and is read again for the promotion; the same words.
        let byPrefix = CountingServer()
        let (other, _) = try await fullDay(byPrefix)
        let prefixed = await resv(byPrefix, "cancel", other.id.short)
        #expect(prefixed.status == 0, "\(prefixed.stderr)")
        #expect(
            byPrefix.counted.sorted()
                == ["GET /landmarks", "GET /reservations", "GET /reservations", "POST /reservations/cancel"])
        #expect(prefixed.stderrLines.count == 1 && prefixed.stderr.contains("Promoted from the waitlist: "))
    }

    @Test func aCancelThatGivesUpNoPlacesIsOneRequestAndTheLandmarks() async throws {
        let server = CountingServer()
        let (_, waiting) = try await fullDay(server)
        let run = await resv(server, "cancel", waiting.id.description, "--json")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains(#""status" : "cancelled""#), "\(run.stdout)")
        #expect(run.stderr.isEmpty)
        #expect(server.counted == ["GET /landmarks", "POST /reservations/cancel"])
    }

    @Test func aConfirmByWholeIDIsOneRequestAndTheLandmarks() async throws {
        let server = CountingServer()
        let pending = try await server.book(2, status: .pending)
        server.forget()
        let run = await resv(server, "confirm", pending.id.description)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("Confirmed \(pending.id.short)"), "\(run.stdout)")
        // Before: GET /landmarks, GET /reservations, POST /reservations/confirm.
        #expect(server.counted == ["GET /landmarks", "POST /reservations/confirm"])
    }

    @Test func aModifyByWholeIDReadsThatReservationAlone() async throws {
        let server = CountingServer()
        let (full, waiting) = try await fullDay(server)
        let run = await resv(server, "modify", full.id.description, "--party-size", "298")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("Promoted from the waitlist: \(waiting.id.short)  Half Dome"), "\(run.stderr)")
        // Before: GET /landmarks, GET /reservations, PATCH, GET /reservations.
        #expect(
            server.counted == [
                "GET /landmarks", "GET /reservations/\(full.id)", "PATCH /reservations/\(full.id)", "GET /history",
            ])

        // A change that gives up no places reads no history. Before: GET /landmarks, GET /reservations, PATCH.
        server.forget()
        let noted = await resv(server, "modify", waiting.id.description, "--note", "window seat")
        #expect(noted.status == 0, "\(noted.stderr)")
        #expect(noted.stderr.isEmpty, "\(noted.stderr)")
        #expect(
            server.counted == [
                "GET /landmarks", "GET /reservations/\(waiting.id)", "PATCH /reservations/\(waiting.id)",
            ])
    }

    @Test func anUnknownWholeIDIsNamedAsTyped() async throws {
        let server = CountingServer()
        _ = try await fullDay(server)
        let unknown = "FFFF0000-0000-4000-8000-000000000000"
        for command in ["cancel", "confirm", "modify"] {
            let run =
                command == "modify"
                ? await resv(server, command, unknown, "-n", "2") : await resv(server, command, unknown)
            #expect(run.status == 1, "\(command): \(run.stderr)")
            #expect(
                run.stderr == "resv: no reservation matches '\(unknown)' (see 'resv list --all')\n",
                "\(command): \(run.stderr)")
        }
        #expect(!server.counted.contains("GET /reservations"))
    }
}
