import Foundation
import ReservationCore
import Synchronization

extension ReservationService {
    /// The HTTP backend: the routes of DESIGN.md on a `resv-server` (or any
    /// server speaking them). Every record goes through the one mapping, as
    /// with the file store; landmarks come from the server's catalog.
    ///
    /// A server has no batch route, so a batch is booked one create at a time,
    /// each with its own `Idempotency-Key`; when one is refused, the ones
    /// already booked are cancelled again, so the batch stays all or nothing.
    public static func http(_ configuration: HTTPBackendConfiguration, transport: HTTPTransport)
        -> ReservationService
    {
        let client = ServerClient(configuration: configuration, transport: transport)
        let state = ServiceState()

        /// A list route's records: from the server (saving them to the cache),
        /// or from the cache when offline or when the server cannot be reached.
        @Sendable func records(_ name: String) async throws -> [JSONValue] {
            @Sendable func cached(_ error: any Error) throws -> [JSONValue] {
                guard let (records, saved) = configuration.cache?.records(name) else { throw error }
                if case .fallback(let stale) = configuration.cacheMode, !state.warned.withLock({ $0 }) {
                    state.warned.withLock { $0 = true }
                    stale(Date().timeIntervalSince(saved))
                }
                return records
            }
            if case .offline = configuration.cacheMode {
                return try cached(HTTPBackendError.nothingCached(configuration.baseURL))
            }
            let reply: ServerReply
            do {
                reply = try await client.send("GET", name)
            } catch let error as HTTPBackendError {
                guard case .unavailable = error else { throw error }
                return try cached(error)
            }
            guard reply.status == 200, case .array(let records)? = reply.json else {
                throw client.badShape("GET /\(name) did not answer a JSON array (\(reply.status))")
            }
            configuration.cache?.save(name, reply.body)
            return records
        }

        @Sendable func catalog() async throws -> LandmarkCatalog {
            if let catalog = state.catalog.withLock({ $0 }) { return catalog }
            let catalog = LandmarkCatalog(records: try await records("landmarks"))
            state.catalog.withLock { $0 = catalog }
            return catalog
        }

        /// Changes need the server.
        @Sendable func online() throws {
            if case .offline = configuration.cacheMode { throw HTTPBackendError.offlineChange }
        }

        @Sendable func reservation(_ reply: ServerReply, _ catalog: LandmarkCatalog) throws -> Reservation {
            guard let json = reply.json else { throw HTTPBackendError.invalidReservation("the body is empty") }
            do {
                return try Reservation(ReservationApiModel(json: json), catalog: catalog)
            } catch {
                throw HTTPBackendError.invalidReservation(error.description)
            }
        }

        /// The reservation as it is now; 404 is the reservation layer's not-found.
        @Sendable func current(_ id: Reservation.ID, _ catalog: LandmarkCatalog) async throws -> Reservation {
            let reply = try await client.send("GET", "reservations/\(id)")
            if reply.status == 404 { throw ReservationError.reservationNotFound(id.description) }
            guard reply.status == 200 else { throw client.refusal(reply, "GET /reservations/\(id)") }
            return try reservation(reply, catalog)
        }

        return ReservationService(
            landmarks: { try await catalog() },
            fetch: {
                // Both at once: each is a request of its own (a child task, so a
                // failure or a cancel of one ends the other).
                async let landmarks = catalog()
                let reservations = try await records("reservations")
                return ReservationSnapshot(records: reservations, catalog: try await landmarks)
            },
            reserve: { requests in
                try online()
                let baseKey = configuration.idempotencyKey ?? "resv-\(UUID().uuidString.lowercased())"
                let keys = requests.indices.map { requests.count == 1 ? baseKey : "\(baseKey)-\($0 + 1)" }
                // Every key checked before any request, so none is booked and then taken back.
                guard keys.allSatisfy({ HeaderValue.isValid($0, longest: HeaderValue.longestKey) }) else {
                    throw HeaderValue.badKey
                }
                let catalog = try await catalog()
                var failures: [BatchFailure] = []
                var landmarks: [Landmark] = []
                for (index, request) in requests.enumerated() {
                    do throws(ReservationError) {
                        landmarks.append(try catalog.landmark(matching: request.landmark))
                    } catch {
                        failures.append(BatchFailure(index: index, error: error))
                    }
                }
                if !failures.isEmpty { throw ReservationError.batchRejected(failures, total: requests.count) }

                var created: [Reservation] = []
                for (key, (request, landmark)) in zip(keys, zip(requests, landmarks)) {
                    let body = CreateReservationRequest(
                        landmarkId: landmark.id.description, date: DateTime.format(request.date),
                        partySize: request.partySize, status: request.status.rawValue)
                    do {
                        let reply = try await client.send("POST", "reservations", body: body.json, idempotencyKey: key)
                        guard reply.status == 200 || reply.status == 201 else {
                            throw client.refusal(reply, "POST /reservations")
                        }
                        created.append(try reservation(reply, catalog))
                    } catch {
                        // All or nothing: take back what this batch booked.
                        for booked in created { _ = try? await client.send("DELETE", "reservations/\(booked.id)") }
                        throw error
                    }
                }
                return created
            },
            cancel: { ids in
                try online()
                let catalog = try await catalog()
                var changes: [StatusChange] = []
                for id in ids {
                    let before = try await current(id, catalog)
                    let reply = try await client.send("DELETE", "reservations/\(id)")
                    switch reply.status {
                    case 200:
                        changes.append(
                            StatusChange(reservation: try reservation(reply, catalog), previous: before.status))
                    case 204:
                        changes.append(
                            StatusChange(reservation: before.with(status: .cancelled), previous: before.status))
                    case 404:
                        throw ReservationError.reservationNotFound(id.description)
                    default:
                        throw client.refusal(reply, "DELETE /reservations/\(id)")
                    }
                }
                return changes
            },
            confirm: { id in
                try online()
                let catalog = try await catalog()
                let before = try await current(id, catalog)
                let reply = try await client.send("POST", "reservations/\(id)/confirm")
                switch reply.status {
                case 200:
                    return StatusChange(reservation: try reservation(reply, catalog), previous: before.status)
                case 404:
                    throw ReservationError.reservationNotFound(id.description)
                case 409:
                    throw ReservationError.cannotConfirmCancelled(before)
                default:
                    throw client.refusal(reply, "POST /reservations/\(id)/confirm")
                }
            },
            availability: { text, range in
                // Only the server sees every user's reservations: a cached list would undercount.
                if case .offline = configuration.cacheMode { throw HTTPBackendError.offlineAvailability }
                let landmark = try await catalog().landmark(matching: text)
                let days = try range(landmark)
                guard let first = days.first, let last = days.last else {
                    return LandmarkAvailability(landmark: landmark, days: [])
                }
                let path = "landmarks/\(landmark.id)/availability"
                let reply = try await client.send(
                    "GET", path,
                    query: [URLQueryItem(name: "from", value: "\(first)"), URLQueryItem(name: "to", value: "\(last)")])
                if reply.status == 404 { throw ReservationError.unknownLandmark(landmark.name) }
                guard reply.status == 200 else { throw client.refusal(reply, "GET /\(path)") }
                guard case .array(let items)? = reply.json else {
                    throw client.badShape("GET /\(path) did not answer a JSON array")
                }
                let answered = try items.map { item in
                    guard let day = DayAvailability(json: item) else {
                        throw client.badShape("GET /\(path) answered a day that is not {date, capacity, taken}")
                    }
                    return day
                }
                return LandmarkAvailability(landmark: landmark, days: answered)
            }
        )
    }
}

/// What one backend value remembers between calls: the server's catalog (read
/// once per command), and whether the stale-cache warning was given.
private final class ServiceState: Sendable {
    let catalog = Mutex<LandmarkCatalog?>(nil)
    let warned = Mutex(false)
}
