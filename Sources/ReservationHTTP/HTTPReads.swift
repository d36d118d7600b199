import Foundation
import ReservationCore

extension HTTPCalls {
    /// A list route's records: from the server (saving them to the cache),
    /// or from the cache when offline or when the server cannot be reached.
    func records(_ name: String) async throws -> (records: [JSONValue], source: SnapshotSource) {
        if case .offline = configuration.cacheMode {
            return try cached(name, HTTPBackendError.nothingCached(configuration.baseURL), unreachable: false)
        }
        await outboxFirst()
        let reply: ServerReply
        do {
            reply = try await client.send("GET", name)
        } catch let error as HTTPBackendError {
            guard case .unavailable = error, CacheFallback.allowed else { throw error }
            return try cached(name, error, unreachable: true)
        }
        guard reply.status == 200, case .array(let records)? = reply.json else {
            throw client.badShape("GET /\(name) did not answer a JSON array (\(reply.status))")
        }
        configuration.cache?.save(name, reply.body)
        return (records, .backend)
    }

    /// The cached answer of a list route, said once per command to be from the
    /// cache (or `error` when none is cached).
    private func cached(_ name: String, _ error: any Error, unreachable: Bool) throws -> (
        records: [JSONValue], source: SnapshotSource
    ) {
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

    /// The server's catalog, read once per backend value.
    func catalog() async throws -> LandmarkCatalog {
        if let catalog = state.catalog.withLock({ $0 }) { return catalog }
        let catalog = LandmarkCatalog(records: try await records("landmarks").records)
        state.catalog.withLock { $0 = catalog }
        return catalog
    }

    /// The user's reservations as they read now.
    func fetch() async throws -> ReservationSnapshot {
        // Both at once: each is a request of its own (a child task, so a
        // failure or a cancel of one ends the other).
        async let landmarks = catalog()
        let (reservations, source) = try await records("reservations")
        let catalog = try await landmarks
        var snapshot = ReservationSnapshot(records: reservations, catalog: catalog)
        // The bookings waiting in the outbox, beside what the server (or its cache) answered.
        let queued = queuedBookings(catalog).filter { booking in !snapshot.reservations.contains { $0.id == booking.id }
        }
        if !queued.isEmpty {
            snapshot = ReservationSnapshot(
                reservations: snapshot.reservations + queued, rejected: snapshot.rejected, catalog: catalog)
            snapshot.queued = Set(queued.map(\.id))
        }
        snapshot.queuedChanges = queuedChanges(over: snapshot)
        snapshot.source = source
        // The server counts waitlist positions; a hold that ended reads as expired here at once.
        return snapshot.settled(at: configuration.now(), countPositions: false)
    }

    /// The reservations this client made or changed lately (`ResponseCache.known`), with the
    /// queued bookings: what a change queued without the user's list is made against.
    func remembered() async throws -> ReservationSnapshot {
        let catalog = try await catalog()
        let records = configuration.cache?.records(ResponseCache.known)?.records ?? []
        var snapshot = ReservationSnapshot(records: records, catalog: catalog)
        let queued = queuedBookings(catalog).filter { booking in !snapshot.reservations.contains { $0.id == booking.id }
        }
        snapshot = ReservationSnapshot(
            reservations: snapshot.reservations + queued, rejected: snapshot.rejected, catalog: catalog)
        snapshot.queued = Set(queued.map(\.id))
        snapshot.queuedChanges = queuedChanges(over: snapshot)
        return snapshot.settled(at: configuration.now(), countPositions: false)
    }

    /// `GET /reservations/{id}`: one of the user's reservations, as it reads now.
    /// When the server cannot be reached, the cached list's (or a queued booking) answers.
    func one(_ id: Reservation.ID) async throws -> Reservation {
        try online()
        await outboxFirst()
        let catalog = try await catalog()
        let reply: ServerReply
        do {
            reply = try await client.send("GET", "reservations/\(id)")
        } catch HTTPBackendError.unavailable(let url, let why) {
            guard CacheFallback.allowed else { throw HTTPBackendError.unavailable(url, why) }
            if let listed = try? await fetch(), let found = listed.reservations.first(where: { $0.id == id }) {
                return found
            }
            // No list cached (or not in it): what this client made or changed lately.
            guard let found = try await remembered().reservations.first(where: { $0.id == id }) else {
                throw HTTPBackendError.unavailable(url, why)
            }
            return found
        }
        // A hold that ended reads as expired here at once, as in `fetch`.
        return try answered(reply, id, "GET /reservations/{id}", catalog).settled(at: configuration.now())
    }

    /// `GET /history[?reservation=ID][&limit=N][&user=NAME]` (another user's: an admin's token).
    func history(_ id: Reservation.ID?, _ limit: Int?, user: String? = nil) async throws -> [HistoryEntry] {
        try online()
        var query = id.map { [URLQueryItem(name: "reservation", value: $0.description)] } ?? []
        if let limit { query.append(URLQueryItem(name: "limit", value: String(limit))) }
        if let user { query.append(URLQueryItem(name: "user", value: user)) }
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
    }

    /// `GET /landmarks/{id}/availability?from&to`, the landmark resolved in the server's catalog.
    func availability(_ text: String, _ range: @Sendable (Landmark) throws -> [CalendarDay]) async throws
        -> LandmarkAvailability
    {
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

    /// `GET /landmarks/{id}/day/{day}`: every party there that day, across users (the server
    /// says who may read it). Never from the cache: only the server sees every user's.
    func manifest(_ text: String, _ day: @Sendable (Landmark) throws -> CalendarDay) async throws -> DayManifest {
        if case .offline = configuration.cacheMode { throw HTTPBackendError.offlineAvailability }
        let catalog = try await catalog()
        let landmark = try catalog.landmark(matching: text)
        let wanted = try day(landmark)
        let path = "landmarks/\(landmark.id)/day/\(wanted)"
        let reply = try await client.send("GET", path)
        if reply.status == 404, reply.code == .unknownLandmark { throw ReservationError.unknownLandmark(landmark.name) }
        guard reply.status == 200 else { throw client.refusal(reply, "GET /\(path)") }
        guard let json = reply.json, let manifest = DayManifest(json: json, catalog: catalog, at: configuration.now())
        else { throw client.badShape("GET /\(path) did not answer {landmark, day, parties, totals}") }
        return manifest
    }

    /// `GET /changes?wait&after`: one long poll of the feed.
    func changes(after: String?, wait: Duration) async throws -> ChangePage {
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
}
