import Foundation
import ReservationCore
import Synchronization

extension ReservationService {
    /// The HTTP backend: the routes of docs/contracts.md on a `resv-server` (or any
    /// server speaking them). Every record goes through the one mapping, as
    /// with the file store; landmarks come from the server's catalog.
    ///
    /// A batch, a cancel or a confirm of several is one request and one
    /// transaction on the server, all or nothing. What this client changes is
    /// written through to its cache, so a read from the cache (`--offline`, or a
    /// server that cannot be reached) never contradicts it.
    public static func http(_ configuration: HTTPBackendConfiguration, transport: HTTPTransport)
        -> ReservationService
    {
        let client = ServerClient(configuration: configuration, transport: transport)
        let state = ServiceState()

        /// A list route's records: from the server (saving them to the cache),
        /// or from the cache when offline or when the server cannot be reached.
        @Sendable func records(_ name: String) async throws -> (records: [JSONValue], source: SnapshotSource) {
            @Sendable func cached(_ error: any Error, unreachable: Bool) throws -> ([JSONValue], SnapshotSource) {
                guard let (records, saved) = configuration.cache?.records(name) else { throw error }
                let age = configuration.now().timeIntervalSince(saved)
                if !state.warned.withLock({ warned in
                    defer { warned = true }
                    return warned
                }) {
                    switch configuration.cacheMode {
                    case .fallback(let stale): stale(age)
                    case .offline: configuration.offlineNotice(age)
                    }
                }
                return (records, .cache(saved: saved, unreachable: unreachable ? error : nil))
            }
            if case .offline = configuration.cacheMode {
                return try cached(HTTPBackendError.nothingCached(configuration.baseURL), unreachable: false)
            }
            let reply: ServerReply
            do {
                reply = try await client.send("GET", name)
            } catch let error as HTTPBackendError {
                guard case .unavailable = error, CacheFallback.allowed else { throw error }
                return try cached(error, unreachable: true)
            }
            guard reply.status == 200, case .array(let records)? = reply.json else {
                throw client.badShape("GET /\(name) did not answer a JSON array (\(reply.status))")
            }
            configuration.cache?.save(name, reply.body)
            return (records, .backend)
        }

        @Sendable func catalog() async throws -> LandmarkCatalog {
            if let catalog = state.catalog.withLock({ $0 }) { return catalog }
            let catalog = LandmarkCatalog(records: try await records("landmarks").records)
            state.catalog.withLock { $0 = catalog }
            return catalog
        }

        /// Changes need the server.
        @Sendable func online() throws {
            if case .offline = configuration.cacheMode { throw HTTPBackendError.offlineChange }
        }

        @Sendable func reservation(_ json: JSONValue?, _ catalog: LandmarkCatalog) throws -> Reservation {
            guard let json else { throw HTTPBackendError.invalidReservation("the body is empty") }
            do {
                return try Reservation(ReservationApiModel(json: json), catalog: catalog)
            } catch {
                throw HTTPBackendError.invalidReservation(error.description)
            }
        }

        /// Cancels or confirms `ids` in one request: `POST /reservations/cancel` or `/confirm`.
        @Sendable func setStatus(_ verb: String, _ ids: [Reservation.ID]) async throws -> [StatusChange] {
            try online()
            guard !ids.isEmpty else { return [] }
            let catalog = try await catalog()
            let route = "reservations/\(verb)"
            let body = JSONValue.object(["ids": .array(ids.map { .string($0.description) })])
            let reply = try await client.send("POST", route, body: body)
            guard reply.status == 200 else {
                // The id the file store would name, so both backends say the same.
                if reply.code == .reservationNotFound, let id = firstFailureID(reply) ?? ids.first?.description {
                    throw ReservationError.reservationNotFound(id)
                }
                throw client.refusal(reply, "POST /\(route)")
            }
            guard case .array(let items)? = reply.json, items.count == ids.count else {
                throw client.badShape("POST /\(route) did not answer one change per id")
            }
            var changes: [StatusChange] = []
            var records: [JSONValue] = []
            for item in items {
                guard case .string(let text)? = item["previousStatus"],
                    let previous = Reservation.Status(rawValue: text)
                else { throw client.badShape("POST /\(route) answered a change without a previousStatus") }
                let changed = try reservation(item["reservation"], catalog)
                changes.append(StatusChange(reservation: changed, previous: previous))
                if let record = item["reservation"] { records.append(record) }
            }
            configuration.cache?.writeThrough("reservations", records)
            return changes
        }

        /// The `id` of the first refused item of a batch answer.
        @Sendable func firstFailureID(_ reply: ServerReply) -> String? {
            guard case .array(let failures)? = reply.json?["failures"], case .string(let id)? = failures.first?["id"]
            else { return nil }
            return id
        }

        var service = ReservationService(
            landmarks: { try await catalog() },
            fetch: {
                // Both at once: each is a request of its own (a child task, so a
                // failure or a cancel of one ends the other).
                async let landmarks = catalog()
                let (reservations, source) = try await records("reservations")
                var snapshot = ReservationSnapshot(records: reservations, catalog: try await landmarks)
                snapshot.source = source
                // The server counts waitlist positions; a hold that ended reads as expired here at once.
                return snapshot.settled(at: configuration.now(), countPositions: false)
            },
            reserve: { requests in
                try online()
                let key = configuration.idempotencyKey ?? "resv-\(UUID().uuidString.lowercased())"
                guard HeaderValue.isValid(key, longest: HeaderValue.longestKey) else { throw HeaderValue.badKey }
                let catalog = try await catalog()
                var failures: [BatchFailure] = []
                var bodies: [JSONValue] = []
                for (index, request) in requests.enumerated() {
                    do throws(ReservationError) {
                        let landmark = try catalog.landmark(matching: request.landmark)
                        bodies.append(
                            CreateReservationRequest(
                                landmarkId: landmark.id.description, date: DateTime.format(request.date),
                                partySize: request.partySize, status: request.status.rawValue, note: request.note,
                                hold: request.hold, waitlist: request.waitlist ? true : nil
                            ).json)
                    } catch {
                        failures.append(BatchFailure(index: index, error: error))
                    }
                }
                if !failures.isEmpty { throw ReservationError.batchRejected(failures, total: requests.count) }
                guard !bodies.isEmpty else { return [] }
                // One request for one booking; one request and one transaction for a batch.
                let batch = bodies.count > 1
                let route = batch ? "reservations/batch" : "reservations"
                let reply = try await client.send(
                    "POST", route, body: batch ? .object(["reservations": .array(bodies)]) : bodies[0],
                    idempotencyKey: key)
                guard reply.status == 200 || reply.status == 201 else {
                    if batch, reply.code == .batchRejected, case .array(let items)? = reply.json?["failures"] {
                        throw ReservationError.batchRejected(
                            try items.map { item in
                                guard case .integer(let number)? = item["request"],
                                    (1...Int64(bodies.count)).contains(number),
                                    case .string(let reason)? = item["reason"]
                                else {
                                    throw client.badShape(
                                        "POST /\(route) named a refused request that is not in the batch")
                                }
                                let code =
                                    item["code"].flatMap { code -> ErrorCode? in
                                        if case .string(let text) = code { return ErrorCode(rawValue: text) }
                                        return nil
                                    } ?? .batchRejected
                                return BatchFailure(index: Int(number) - 1, error: .refusedByServer(code, reason))
                            }, total: requests.count)
                    }
                    throw client.refusal(reply, "POST /\(route)")
                }
                let records: [JSONValue]
                if batch {
                    guard case .array(let items)? = reply.json, items.count == bodies.count else {
                        throw client.badShape("POST /\(route) did not answer one reservation per request")
                    }
                    records = items
                } else {
                    guard let json = reply.json else { throw HTTPBackendError.invalidReservation("the body is empty") }
                    records = [json]
                }
                let created = try records.map { try reservation($0, catalog) }
                configuration.cache?.writeThrough("reservations", records)
                return created
            },
            cancel: { ids in try await setStatus("cancel", ids) },
            confirm: { ids in try await setStatus("confirm", ids) },
            modify: { id, change, version in
                // PATCH with If-Match: a reservation changed since it was read is refused (412), never overwritten.
                try online()
                let catalog = try await catalog()
                var fields: [String: JSONValue] = [:]
                if let date = change.date { fields["date"] = .string(DateTime.format(date)) }
                if let partySize = change.partySize { fields["partySize"] = .integer(Int64(partySize)) }
                if let landmark = change.landmark {
                    fields["landmarkId"] = .string(try catalog.landmark(matching: landmark).id.description)
                }
                if let note = change.note { fields["note"] = .string(note) }
                let route = "reservations/\(id)"
                let reply = try await client.send("PATCH", route, body: .object(fields), ifMatch: version)
                guard reply.status == 200 else {
                    if reply.status == 404, reply.code == .reservationNotFound {
                        throw ReservationError.reservationNotFound(id.description)
                    }
                    throw client.refusal(reply, "PATCH /reservations/{id}")
                }
                let modified = try reservation(reply.json, catalog)
                if let json = reply.json { configuration.cache?.writeThrough("reservations", [json]) }
                return modified
            },
            history: { id, limit in
                try online()
                var query = id.map { [URLQueryItem(name: "reservation", value: $0.description)] } ?? []
                if let limit { query.append(URLQueryItem(name: "limit", value: String(limit))) }
                let reply = try await client.send("GET", "history", query: query)
                guard reply.status == 200 else { throw client.refusal(reply, "GET /history") }
                guard case .array(let items)? = reply.json else {
                    throw client.badShape("GET /history did not answer a JSON array")
                }
                // No more than asked for, whatever the server sends.
                return try items.prefix(max(0, limit ?? .max)).map { item in
                    guard let entry = HistoryEntry(json: item) else {
                        throw client.badShape(
                            "GET /history answered a change that is not {at, change, reservationId, after, command}")
                    }
                    return entry
                }
            },
            undo: {
                // A POST without a key: never retried, so one `resv undo` takes back at most one command.
                try online()
                let reply = try await client.send("POST", "undo")
                guard reply.status == 200 else { throw client.refusal(reply, "POST /undo") }
                guard let json = reply.json, let result = UndoResult(json: json) else {
                    throw client.badShape("POST /undo did not answer {undid, changes}")
                }
                configuration.cache?.writeThrough("reservations", result.changes.map(\.after.json))
                return result
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
        service.changes = { after, wait in
            try online()
            // Whole seconds, rounded up (a wait of 0.2 s is a wait, not a poll at once), at most the server's 60.
            let (whole, fraction) = wait.components
            let seconds = min(max(0, Int(clamping: whole) + (fraction > 0 ? 1 : 0)), 60)
            var query = [URLQueryItem(name: "wait", value: String(seconds))]
            if let after {
                guard ChangeCursor.isPlausible(after) else { throw ReservationError.invalidCursor(after) }
                query.append(URLQueryItem(name: "after", value: after))
            }
            // The poll's own wait comes on top of the time a command has (RESV_REQUEST_TIMEOUT).
            let reply = try await CommandDeadline.$start.withValue(ContinuousClock.now + .seconds(seconds)) {
                // The server says nothing while it waits: that is no stall.
                try await client.send("GET", "changes", query: query, quietTime: Double(seconds) + 10)
            }
            guard reply.status == 200 else { throw client.refusal(reply, "GET /changes") }
            guard let json = reply.json, let page = ChangePage(json: json) else {
                throw client.badShape("GET /changes did not answer {changes, cursor} with a cursor for each change")
            }
            return page
        }
        return service
    }
}

/// Whether reads may fall back on the cache when the server cannot be reached.
/// `resv fetch` means "read afresh" and turns it off for its run.
public enum CacheFallback {
    @TaskLocal public static var allowed = true
}

/// What one backend value remembers between calls: the server's catalog (read
/// once per command), and whether the stale-cache warning was given.
private final class ServiceState: Sendable {
    let catalog = Mutex<LandmarkCatalog?>(nil)
    let warned = Mutex(false)
}
