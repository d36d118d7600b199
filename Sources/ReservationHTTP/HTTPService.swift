import Foundation
import ReservationCore
import Synchronization

extension ReservationService {
    /// The HTTP backend: the routes of docs/contracts.md on a `resv-server` (or
    /// any server speaking them). Every record goes through the one mapping, as
    /// with the file store; landmarks come from the server's catalog.
    ///
    /// A batch, a cancel or a confirm of several is one request and one
    /// transaction on the server, all or nothing. What this client changes is
    /// written through to its cache, so a read from the cache (`--offline`, or a
    /// server that cannot be reached) never contradicts it.
    public static func http(_ configuration: HTTPBackendConfiguration, transport: HTTPTransport)
        -> ReservationService
    {
        ServerBackend(configuration, transport: transport).service
    }
}

/// The HTTP backend as a command line holds it: the service, and the reads a server
/// answers that the service's closures have no room for. One value: both share the
/// catalog read once per command.
public struct ServerBackend: Sendable {
    public let service: ReservationService
    /// One of the user's reservations by its whole id (`GET /reservations/{id}`), settled
    /// at now: what `modify` reads when it is given a whole id, instead of the user's
    /// whole list. `reservationNotFound` when the user has none with that id.
    public let reservation: @Sendable (Reservation.ID) async throws -> Reservation
    /// The reservations this client made or changed lately, from its cache, with the queued
    /// bookings: for a change queued when the user's list was never read.
    public let remembered: @Sendable () async throws -> ReservationSnapshot
    /// Sends the outbox (`resv sync`).
    public let sync: @Sendable (Outbox) async throws -> OutboxReport
    /// The outbox of the token's user, asking the server whose the token is when that is
    /// not written down yet; nil without one.
    public let ownOutbox: @Sendable () async -> Outbox?
    /// What booking these requests would make now, asked of the server (every user's bookings
    /// and ids counted) and changing nothing: `resv import --dry-run`.
    public let wouldReserve: @Sendable ([NewReservation]) async throws -> [Reservation]

    public init(_ configuration: HTTPBackendConfiguration, transport: HTTPTransport) {
        let calls = HTTPCalls(
            client: ServerClient(configuration: configuration, transport: transport), configuration: configuration)
        reservation = { id in try await calls.one(id) }
        sync = { outbox in try await calls.sync(outbox) }
        remembered = { try await calls.remembered() }
        ownOutbox = { await calls.ownOutbox() }
        wouldReserve = { requests in try await calls.wouldReserve(requests) }
        var service = ReservationService(
            landmarks: { try await calls.catalog() },
            fetch: { try await calls.fetch() },
            reserve: { requests in try await calls.reserve(requests) },
            cancel: { ids in try await calls.setStatus("cancel", ids) },
            confirm: { ids in try await calls.setStatus("confirm", ids) },
            modify: { id, change, version in try await calls.modify(id, change, version) },
            history: { id, limit in try await calls.history(id, limit) },
            undo: { try await calls.undo() },
            availability: { text, range in try await calls.availability(text, range) }
        )
        service.changes = { after, wait in try await calls.changes(after: after, wait: wait) }
        service.redo = { try await calls.redo() }
        service.historyOf = { user, id, limit in try await calls.history(id, limit, user: user) }
        service.attend = { id, status in try await calls.attend(id, status) }
        service.manifest = { text, day in try await calls.manifest(text, day) }
        service.changeDays = { landmark, days, change, overflow in
            try await calls.changeDays(landmark, days, change, overflow)
        }
        self.service = service
    }
}

/// Whether reads may fall back on the cache when the server cannot be reached.
/// `resv fetch` means "read afresh" and turns it off for its run.
public enum CacheFallback {
    @TaskLocal public static var allowed = true
}

/// The calls of one HTTP backend value, a request (or none) each: the reads in
/// `HTTPReads.swift`, the changes in `HTTPWrites.swift`.
struct HTTPCalls: Sendable {
    let client: ServerClient
    let configuration: HTTPBackendConfiguration
    let state = ServiceState()

    /// Changes need the server (or `--queue`, which keeps them in the outbox).
    func online() throws {
        if case .offline = configuration.cacheMode { throw HTTPBackendError.offlineChange }
    }

    /// The reservation a `GET` or `PATCH` of `/reservations/{id}` answered (200), through
    /// the one mapping and written through to the cache; 404 `reservationNotFound` names `id`.
    func answered(_ reply: ServerReply, _ id: Reservation.ID, _ route: String, _ catalog: LandmarkCatalog) throws
        -> Reservation
    {
        guard reply.status == 200 else {
            if reply.status == 404, reply.code == .reservationNotFound {
                throw ReservationError.reservationNotFound(id.description)
            }
            throw client.refusal(reply, route)
        }
        let found = try reservation(reply.json, catalog)
        if let json = reply.json { configuration.cache?.writeThrough("reservations", [json]) }
        return found
    }

    /// A reservation the server answered, through the one mapping.
    func reservation(_ json: JSONValue?, _ catalog: LandmarkCatalog) throws -> Reservation {
        guard let json else { throw HTTPBackendError.invalidReservation("the body is empty") }
        do {
            return try Reservation(ReservationApiModel(json: json), catalog: catalog)
        } catch {
            throw HTTPBackendError.invalidReservation(error.description)
        }
    }
}

/// What one backend value remembers between calls: the server's catalog (read
/// once per command), and whether the stale-cache warning was given.
final class ServiceState: Sendable {
    let catalog = Mutex<LandmarkCatalog?>(nil)
    let warned = Mutex(false)
    /// Whether the outbox was sent (or tried) by this backend value.
    let outboxTried = Mutex(false)
    /// The sending of the outbox under way, which other calls of the command wait for.
    let outboxSending = Mutex<Task<Void, Never>?>(nil)
    /// The user's outbox, once the server said whose the token is (`HTTPCalls.ownOutbox`).
    let ownOutbox = Mutex<Outbox?>(nil)
}
