import Foundation
import ReservationCore

extension HTTPCalls {
    /// `POST /reservations` for one booking, `POST /reservations/batch` (one
    /// transaction) for more, under the command's `Idempotency-Key`; each
    /// landmark resolved in the server's catalog to its id.
    ///
    /// With `--queue` a single booking carries an id made here, so that if the server
    /// cannot be reached (or its answer is lost) the request is kept in the outbox
    /// as it was sent, and sending it again books nothing twice.
    func reserve(_ requests: [NewReservation]) async throws -> [Reservation] {
        try online()
        await outboxFirst()
        // A request's own id (an import's) is the one sent, and so the one an outbox would keep.
        let made = (requests.count == 1 ? requests[0].id?.description : nil) ?? UUID().uuidString.lowercased()
        let key = configuration.idempotencyKey ?? "resv-\(made)"
        guard HeaderValue.isValid(key, longest: HeaderValue.longestKey) else { throw HeaderValue.badKey }
        let catalog = try await catalog()
        var bodies = try Self.createBodies(requests, catalog)
        guard !bodies.isEmpty else { return [] }
        // One request for one booking; one request and one transaction for a batch.
        let batch = bodies.count > 1
        let outbox = batch ? nil : queueing
        if outbox != nil { bodies[0].set("id", .string(made)) }
        let route = batch ? "reservations/batch" : "reservations"
        let (sent, arrived) = await ArrivalTrace.tracing {
            try await client.send(
                "POST", route, body: batch ? .object(["reservations": .array(bodies)]) : bodies[0],
                idempotencyKey: key)
        }
        let reply: ServerReply
        do {
            reply = try sent.get()
        } catch HTTPBackendError.unavailable(let url, let why) {
            guard let outbox, let id = Reservation.ID(made) else { throw HTTPBackendError.unavailable(url, why) }
            throw try await queue(bodies[0], id: id, key: key, sent: arrived, in: outbox, catalog)
        }
        guard reply.status == 200 || reply.status == 201 else {
            if batch, reply.code == .batchRejected, case .array(let items)? = reply.json?["failures"] {
                throw ReservationError.batchRejected(
                    try batchFailures(items, of: bodies.count, route: route), total: requests.count)
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
    }

    /// What `reserve` would make of `requests` now, asked of the server and changing nothing
    /// (`POST /reservations/batch/dry-run`, even for one: its transaction is rolled back):
    /// the reservations it would make, or the refusal it would meet, as `reserve` throws it.
    func wouldReserve(_ requests: [NewReservation]) async throws -> [Reservation] {
        try online()
        let catalog = try await catalog()
        let bodies = try Self.createBodies(requests, catalog)
        guard !bodies.isEmpty else { return [] }
        let route = "reservations/batch/dry-run"
        let reply = try await client.send("POST", route, body: .object(["reservations": .array(bodies)]))
        guard reply.status == 200 else {
            if reply.code == .batchRejected, case .array(let items)? = reply.json?["failures"] {
                throw ReservationError.batchRejected(
                    try batchFailures(items, of: bodies.count, route: route), total: requests.count)
            }
            throw client.refusal(reply, "POST /\(route)")
        }
        guard case .array(let items)? = reply.json, items.count == bodies.count else {
            throw client.badShape("POST /\(route) did not answer one reservation per request")
        }
        return try items.map { try reservation($0, catalog) }
    }

    /// The wire requests, each landmark resolved once to its id; any that does
    /// not resolve refuses the whole batch, every such line named.
    private static func createBodies(_ requests: [NewReservation], _ catalog: LandmarkCatalog) throws -> [JSONValue] {
        var failures: [BatchFailure] = []
        var bodies: [JSONValue] = []
        for (index, request) in requests.enumerated() {
            do throws(ReservationError) {
                var wire = request.request
                wire.landmarkId = try catalog.landmark(matching: request.landmark).id.description
                bodies.append(wire.json)
            } catch {
                failures.append(BatchFailure(index: index, error: error))
            }
        }
        if !failures.isEmpty { throw ReservationError.batchRejected(failures, total: requests.count) }
        return bodies
    }

    /// The refused requests a 4xx `batchRejected` names, each by its number (from 1) in the batch.
    private func batchFailures(_ items: [JSONValue], of count: Int, route: String) throws -> [BatchFailure] {
        try items.map { item in
            guard case .integer(let number)? = item["request"], (1...Int64(count)).contains(number),
                case .string(let reason)? = item["reason"]
            else {
                throw client.badShape("POST /\(route) named a refused request that is not in the batch")
            }
            let code =
                item["code"].flatMap { code -> ErrorCode? in
                    if case .string(let text) = code { return ErrorCode(rawValue: text) }
                    return nil
                } ?? .batchRejected
            return BatchFailure(index: Int(number) - 1, error: .refusedByServer(code, reason))
        }
    }

    /// Cancels or confirms `ids` in one request: `POST /reservations/cancel` or `/confirm`.
    /// A queued booking among `ids` (not yet sent) is changed in the outbox, with the others.
    func setStatus(_ verb: String, _ ids: [Reservation.ID], queueing: Bool = true) async throws -> [StatusChange] {
        try online()
        guard !ids.isEmpty else { return [] }
        if queueing { await outboxFirst() }
        let catalog = try await catalog()
        let outbox = queueing ? self.outbox : nil
        if let outbox, !Set(queuedBookings(catalog).map(\.id)).isDisjoint(with: ids) {
            throw try await queueStatus(verb, ids, in: outbox, catalog)
        }
        let route = "reservations/\(verb)"
        let body = JSONValue.object(["ids": .array(ids.map { .string($0.description) })])
        let reply: ServerReply
        do {
            reply = try await client.send("POST", route, body: body, idempotencyKey: changeKey)
        } catch HTTPBackendError.unavailable(let url, let why) {
            guard queueing, let outbox = self.queueing else { throw HTTPBackendError.unavailable(url, why) }
            throw try await queueStatus(verb, ids, in: outbox, catalog)
        }
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
    private func firstFailureID(_ reply: ServerReply) -> String? {
        guard case .array(let failures)? = reply.json?["failures"], case .string(let id)? = failures.first?["id"]
        else { return nil }
        return id
    }

    /// A new `Idempotency-Key` for one change a command sends (kept for that change's retries):
    /// the server answers a second sending of it with the first's answer, never a second change.
    /// The command's own (`--idempotency-key`), so running it again makes the change at most once.
    /// The outbox's sending, which runs before the command's own change, makes keys of its own.
    var changeKey: String {
        (Self.sendingOutbox ? nil : configuration.idempotencyKey) ?? "resv-" + UUID().uuidString.lowercased()
    }

    /// `PATCH /reservations/{id}` with `If-Match`: a reservation changed since it
    /// was read is refused (412), never overwritten.
    /// A queued booking (not yet sent) is changed in the outbox.
    func modify(_ id: Reservation.ID, _ change: ReservationChange, _ version: Int?) async throws -> Reservation {
        try online()
        await outboxFirst()
        let catalog = try await catalog()
        var fields: [String: JSONValue] = [:]
        if let date = change.date { fields["date"] = .string(DateTime.format(date)) }
        if let partySize = change.partySize { fields["partySize"] = .integer(Int64(partySize)) }
        if let landmark = change.landmark {
            fields["landmarkId"] = .string(try catalog.landmark(matching: landmark).id.description)
        }
        if let note = change.note { fields["note"] = .string(note) }
        if let outbox, queuedBookings(catalog).contains(where: { $0.id == id }) {
            throw try await queueModify(id, change, version, fields: fields, in: outbox, catalog)
        }
        let route = "reservations/\(id)"
        let reply: ServerReply
        do {
            reply = try await client.send(
                "PATCH", route, body: .object(fields), idempotencyKey: changeKey, ifMatch: version)
        } catch HTTPBackendError.unavailable(let url, let why) {
            guard let outbox = queueing else { throw HTTPBackendError.unavailable(url, why) }
            throw try await queueModify(id, change, version, fields: fields, in: outbox, catalog)
        }
        return try answered(reply, id, "PATCH /reservations/{id}", catalog)
    }

    /// `POST /reservations/{id}/checkin` or `/noshow`, keyed as every change: the reservation
    /// as the server recorded it. Never queued: a check-in is made at the landmark, online.
    func attend(_ id: Reservation.ID, _ status: Reservation.Status) async throws -> Reservation {
        try online()
        await outboxFirst()
        let catalog = try await catalog()
        let verb = status == .noShow ? "noshow" : "checkin"
        let reply = try await client.send("POST", "reservations/\(id)/\(verb)", idempotencyKey: changeKey)
        return try answered(reply, id, "POST /reservations/{id}/\(verb)", catalog)
    }

    /// `POST /undo` under a key of its own: sent again when its answer is lost (by resv or by
    /// libcurl), the server answers what the first did, so one `resv undo` takes back one command.
    func undo() async throws -> UndoResult {
        try online()
        await outboxFirst()
        let reply = try await client.send("POST", "undo", idempotencyKey: changeKey)
        guard reply.status == 200 else { throw client.refusal(reply, "POST /undo") }
        guard let json = reply.json, let result = UndoResult(json: json) else {
            throw client.badShape("POST /undo did not answer {undid, changes}")
        }
        configuration.cache?.writeThrough("reservations", result.changes.map(\.after.json))
        return result
    }

    /// `POST /landmarks/{id}/days` (`resv admin capacity|close|open`), under the command's key:
    /// the landmark resolved in the server's catalog, the days as the user gave them.
    func changeDays(_ text: String, _ days: [CalendarDay], _ change: DayChange, _ overflow: Overflow)
        async throws -> DaysChanged
    {
        try online()
        await outboxFirst()
        let landmark = try await catalog().landmark(matching: text)
        guard let first = days.first, let last = days.last else {
            throw ReservationError.invalidDays("give from 1 to \(Capacity.longestRange) days")
        }
        var body: [String: JSONValue] = ["from": .string(first.description), "to": .string(last.description)]
        switch change {
        case .capacity(let capacity): body["capacity"] = .integer(Int64(capacity))
        case .close(let reason): body["close"] = .string(reason)
        case .open: body["open"] = .bool(true)
        }
        if overflow != .refuse { body["overflow"] = .string(overflow.rawValue) }
        let route = "landmarks/\(landmark.id)/days"
        let reply = try await client.send("POST", route, body: .object(body), idempotencyKey: changeKey)
        guard reply.status == 200 else { throw client.refusal(reply, "POST /\(route)") }
        guard let json = reply.json, let result = DaysChanged(json: json) else {
            throw client.badShape("POST /\(route) did not answer {days, cancelled, waitlisted, promoted}")
        }
        return result
    }

    /// `POST /redo`, keyed as `POST /undo` is, for the same reason: one `resv redo` takes back one undo.
    func redo() async throws -> UndoResult {
        try online()
        await outboxFirst()
        let reply = try await client.send("POST", "redo", idempotencyKey: changeKey)
        guard reply.status == 200 else { throw client.refusal(reply, "POST /redo") }
        guard let json = reply.json, let result = UndoResult(json: json), result.isRedo else {
            throw client.badShape("POST /redo did not answer {redid, changes}")
        }
        configuration.cache?.writeThrough("reservations", result.changes.map(\.after.json))
        return result
    }
}
