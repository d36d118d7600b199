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
        let calls = HTTPCalls(
            client: ServerClient(configuration: configuration, transport: transport), configuration: configuration)
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
        return service
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

    /// Changes need the server.
    func online() throws {
        if case .offline = configuration.cacheMode { throw HTTPBackendError.offlineChange }
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
}
