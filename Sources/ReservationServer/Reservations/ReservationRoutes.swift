import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import ReservationCore
import ReservationStorage

/// The routes of DESIGN.md, "HTTP backend (client) and server", over one
/// `ServerStore`. Input goes through the core's rules: `CreateReservationRequest(json:)`,
/// `NewReservation` (the one date parser, a future date, party size > 0) and
/// the catalog, so the server and the file backend refuse the same requests
/// with the same words.
struct ReservationRoutes: Sendable {
    /// The largest request body accepted; larger ones get 413.
    /// The request's body. One that stops arriving (the connection's request
    /// timeout closed it, or the client left) is the client's failure, 408,
    /// never the server's 500; a body over the limit stays 413.
    static func body(of request: Request, upTo limit: Int) async throws -> Data {
        var request = request
        do {
            return Data(try await request.collectBody(upTo: limit).readableBytesView)
        } catch let error as any HTTPResponseError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw APIError(.requestTimeout, .invalidRequest, "the request body did not arrive whole in time")
        }
    }

    static let bodyLimit = 64 * 1024
    /// The largest body of a batch route: room for `batchLimit` requests.
    static let batchBodyLimit = 8 << 20
    /// The most requests (or ids) one batch route takes.
    static let batchLimit = 10_000
    /// An `Idempotency-Key` is 1 to 255 visible ASCII characters.
    static let maxKeyLength = 255

    let store: ServerStore
    let catalog: LandmarkCatalog
    let now: @Sendable () -> Date
    private let landmarksBody: ByteBuffer
    /// Lists kept between writes, when this process is the store's only writer.
    private let lists: ListCache?
    /// The most live holds a user may have.
    let maxHolds: Int

    init(
        store: ServerStore, catalog: LandmarkCatalog, now: @escaping @Sendable () -> Date, lists: ListCache?,
        maxHolds: Int
    ) {
        self.store = store
        self.catalog = catalog
        self.now = now
        self.lists = lists
        self.maxHolds = maxHolds
        landmarksBody = ByteBuffer(bytes: Wire.body(catalog.landmarks))
    }

    /// The routes, all behind a token (see `buildRouter`).
    var endpoints: RouteCollection<AuthenticatedContext> {
        RouteCollection(context: AuthenticatedContext.self)
            .get("/landmarks") { _, _ in Response.json(status: .ok, body: landmarksBody) }
            .get("/landmarks/:id/availability", use: availability)
            .get("/reservations", use: list)
            .get("/reservations/:id", use: get)
            .post("/reservations", use: create)
            .post("/reservations/batch", use: createBatch)
            .post("/reservations/cancel", use: cancelBatch)
            .post("/reservations/confirm", use: confirmBatch)
            .delete("/reservations/:id", use: cancel)
            .patch("/reservations/:id", use: modify)
            .post("/reservations/:id/confirm", use: confirm)
            .get("/history", use: history)
            .post("/undo", use: undo)
    }

    /// `GET /history[?reservation=ID][&limit=N]`: the user's changes, newest
    /// first (the newest N), as `resv log --json` prints them.
    @Sendable func history(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let user = context.user
        var id: Reservation.ID?
        if let text = request.uri.queryParameters.get("reservation") {
            guard let parsed = Reservation.ID(String(text)) else {
                throw APIError(
                    .badRequest, .invalidReservationId,
                    "'\(text.prefix(64))' is not a reservation id: give the whole UUID")
            }
            id = parsed
        }
        var limit: Int?
        if let text = request.uri.queryParameters.get("limit") {
            guard let number = Int(String(text)), number >= 1 else {
                throw APIError(
                    .badRequest, .invalidRequest, "limit '\(text.prefix(64))' is not a whole number of at least 1")
            }
            limit = number
        }
        let entries = try await store.history(user, id, limit)
        return .json(status: .ok, body: [UInt8](JSONValue.array(entries.map(\.json)).encoded()))
    }

    /// `POST /undo`: takes back the user's newest command not yet undone, in one
    /// transaction (`Booking.undo`); answers `{"undid": command, "changes": [...]}`.
    @Sendable func undo(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let at = now()
        let result = try await write(context.user) { try await Booking.undo(now: at, in: $0) }
        return .json(status: .ok, body: [UInt8](result.json.encoded()))
    }

    /// Runs a rule in one write transaction of the user's; a refusal becomes its
    /// `APIError`, a change forgets the user's kept list.
    private func write<Value: Sendable>(
        _ user: UserID, key: IdempotencyKey?, rule: @escaping @Sendable (any BookingTransaction) async throws -> Value,
        keep: @escaping @Sendable (Value) -> StoredResponse? = { _ in nil }
    ) async throws -> Written<Value> {
        do {
            let written = try await store.transaction(user, catalog: catalog, key: key, keep: keep, rule)
            if case .done = written { lists?.invalidate() }
            return written
        } catch let error as ReservationError {
            if case .noCapacity = error { ServerMetrics.bookingsRefused.increment() }
            if case .batchRejected(let refused, _) = error {
                let full = refused.filter { if case .noCapacity = $0.error { true } else { false } }.count
                if full > 0 { ServerMetrics.bookingsRefused.increment(by: full) }
            }
            throw APIError(error)
        }
    }

    /// Stored records as a user reads them at `now`: a hold that has ended is
    /// `expired` (the sweep may not have recorded it yet), a waitlisted one has its place.
    private func read(_ records: [ReservationApiModel], at now: Date) async throws -> [ReservationApiModel] {
        try await withPositions(records.map { $0.settled(at: now) })
    }

    /// The records with each waitlisted one's position on its day's list, which
    /// counts every user's: read only when there is one.
    private func withPositions(_ records: [ReservationApiModel]) async throws -> [ReservationApiModel] {
        var days: [Int: BookingDay] = [:]
        for (index, record) in records.enumerated() where record.status == Reservation.Status.waitlisted.rawValue {
            if let reservation = try? Reservation(record, catalog: catalog),
                let day = BookingDay(reservation.date, at: reservation.landmark)
            {
                days[index] = day
            }
        }
        guard !days.isEmpty else { return records }
        let wanted = Set(days.values).sorted()
        let positions = try await store.waitlists(wanted).mapValues { ids in
            Dictionary(ids.enumerated().map { ($1, $0 + 1) }, uniquingKeysWith: { first, _ in first })
        }
        var records = records
        for (index, day) in days {
            if let position = positions[day]?[records[index].id] {
                records[index].waitlistPosition = position
            }
        }
        return records
    }

    /// A rule without an idempotency key, which so always runs.
    private func write<Value: Sendable>(
        _ user: UserID, _ rule: @escaping @Sendable (any BookingTransaction) async throws -> Value
    ) async throws -> Value {
        switch try await write(user, key: nil, rule: rule) {
        case .done(let value): return value
        case .replay: throw APIError(.internalServerError, "a replay without an Idempotency-Key")
        }
    }

    @Sendable func list(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let user = context.user
        let now = now()
        guard let lists else {
            return .json(status: .ok, body: Wire.body(try await read(store.list(user), at: now)))
        }
        switch lists.lookup(user, at: now) {
        case .success(let body):
            return .json(status: .ok, body: body)
        case .failure(let generation):
            let records = try await read(store.list(user), at: now)
            // Kept until its first live hold ends: from then on that hold reads expired.
            let firstEnd = records.lazy.compactMap(\.holdEnd).min()
            let body = ByteBuffer(bytes: Wire.body(records))
            lists.keep(body, for: user, readAt: generation, until: firstEnd)
            return .json(status: .ok, body: body)
        }
    }

    /// Places taken and left per day, counting every user's reservations
    /// (numbers only: whose they are is not told).
    @Sendable func availability(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let text = context.parameters.get("id") ?? ""
        guard let id = Landmark.ID(text) else {
            throw APIError(.badRequest, .unknownLandmark, "'\(text.prefix(64))' is not a landmark id (a UUID)")
        }
        guard let landmark = catalog[id] else {
            throw APIError(
                .notFound, .unknownLandmark, "landmark \(id) is not a known landmark (GET /landmarks lists them)")
        }
        let calendar = Capacity.calendar(for: landmark)
        func day(_ name: String) throws(APIError) -> CalendarDay? {
            guard let text = request.uri.queryParameters.get(name) else { return nil }
            guard let day = CalendarDay(text) else {
                throw APIError(.badRequest, .invalidDays, "\(name) '\(text.prefix(64))' is not a day: give YYYY-MM-DD")
            }
            return day
        }
        let (first, last) = (try day("from"), try day("to"))
        let days: [CalendarDay]
        do {
            days = try Capacity.days(from: first, through: last, today: CalendarDay(now(), in: calendar))
        } catch {
            throw APIError(error)
        }
        guard let start = days[0].interval(in: calendar)?.start,
            let end = days[days.count - 1].interval(in: calendar)?.end
        else {
            throw APIError(
                .badRequest, "\(days[0]) to \(days[days.count - 1]) has no dates in \(calendar.timeZone.identifier)")
        }
        let parties = try await store.parties(id, start, end, now())
        return .json(status: .ok, body: Wire.body(Capacity.availability(of: landmark, on: days, parties: parties)))
    }

    @Sendable func get(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let user = context.user
        let id = try reservationID(context)
        guard let reservation = try await store.get(user, id) else { throw APIError.notFound(id) }
        return .json(
            status: .ok, body: Wire.body(try await read([reservation], at: now())[0]),
            headers: Self.etag(reservation.version))
    }

    /// The version as an entity tag, for `If-Match` on a later `PATCH`.
    private static func etag(_ version: Int?) -> HTTPFields {
        var headers = HTTPFields()
        headers[.eTag] = "\"\(version ?? 1)\""
        return headers
    }

    /// `PATCH /reservations/{id}` `{date?, partySize?, landmarkId?, note?}` with
    /// `If-Match: "<version>"`: one change in one transaction, by `Booking.modify`.
    /// Without `If-Match` the change is unconditional.
    @Sendable func modify(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let id = try reservationID(context)
        let expected = try expectedVersion(request.headers)
        let body = try await Self.body(of: request, upTo: Self.bodyLimit)
        let json: JSONValue
        do { json = try JSONValue.parse(body) } catch {
            throw APIError(.badRequest, .invalidJSON, "the request body is not valid JSON: \(error.detail)")
        }
        let change = try modifyRequest(json)
        let at = now()
        let reservation = try await write(context.user) {
            try await Booking.modify(id, change, expectedVersion: expected, now: at, in: $0)
        }
        return .json(status: .ok, body: Wire.body(reservation), headers: Self.etag(reservation.version))
    }

    /// `If-Match: "<version>"` (a weak `W/` tag is taken alike); nil when absent or `*`.
    private func expectedVersion(_ headers: HTTPFields) throws(APIError) -> Int? {
        guard var text = headers[.ifMatch]?.trimmingCharacters(in: .whitespaces) else { return nil }
        if text == "*" { return nil }
        if text.hasPrefix("W/") { text.removeFirst(2) }
        guard text.count >= 3, text.hasPrefix("\""), text.hasSuffix("\""),
            let version = Int(text.dropFirst().dropLast()), version >= 1
        else {
            throw APIError(
                .badRequest, .invalidRequest,
                "If-Match must be the reservation's version in quotes (\"3\"), not '\(text.prefix(64))'")
        }
        return version
    }

    /// Reads a modify body into the core's `ReservationChange` (at least one
    /// field, party size, note length; the one date parser); the landmark must
    /// be a known landmark's id. Whether the date is ahead is the rule's to say.
    private func modifyRequest(_ json: JSONValue) throws(APIError) -> ReservationChange {
        guard case .object = json else {
            throw APIError(
                .badRequest, .invalidRequest, "the body must be a JSON object {date?, partySize?, landmarkId?, note?}")
        }
        func text(_ field: String) throws(APIError) -> String? {
            switch json[field] {
            case nil, .null?: return nil
            case .string(let value)?: return value
            case let other?:
                throw APIError(.badRequest, .invalidRequest, "\(field) must be a string, not \(other.typeName)")
            }
        }
        var partySize: Int?
        switch json["partySize"] {
        case nil, .null?: partySize = nil
        case .integer(let value)?:
            guard let exact = Int(exactly: value) else { throw APIError(ReservationError.invalidPartySize(Int.max)) }
            partySize = exact
        case let other?:
            throw APIError(.badRequest, .invalidRequest, "partySize must be a whole number, not \(other.typeName)")
        }
        let landmarkText = try text("landmarkId")
        let (dateText, note) = (try text("date"), try text("note"))
        let change: ReservationChange
        do throws(ReservationError) {
            let date = try dateText.map { text throws(ReservationError) in try DateTime.parseInput(text) }
            change = try ReservationChange(date: date, partySize: partySize, landmark: landmarkText, note: note)
        } catch {
            throw APIError(error)
        }
        if let landmarkText {
            guard let landmarkID = Landmark.ID(landmarkText) else {
                throw APIError(.badRequest, .unknownLandmark, "landmarkId '\(landmarkText.prefix(64))' is not a UUID")
            }
            guard let found = catalog[landmarkID] else {
                throw APIError(
                    .notFound, .unknownLandmark,
                    "landmarkId \(landmarkID) is not a known landmark (GET /landmarks lists them)")
            }
            _ = found
        }
        return change
    }

    @Sendable func cancel(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let changes = try await setStatus(.cancelled, of: [try reservationID(context)], for: context.user)
        return .json(status: .ok, body: Wire.body(changes[0].reservation))
    }

    @Sendable func confirm(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let changes = try await setStatus(.confirmed, of: [try reservationID(context)], for: context.user)
        return .json(status: .ok, body: Wire.body(changes[0].reservation))
    }

    /// `POST /reservations/cancel` `{"ids": […]}`: all or none, in one transaction.
    @Sendable func cancelBatch(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let ids = try await batchIDs(request)
        return .json(status: .ok, body: Wire.body(try await setStatus(.cancelled, of: ids, for: context.user)))
    }

    /// `POST /reservations/confirm` `{"ids": […]}`: all or none, in one transaction.
    @Sendable func confirmBatch(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let ids = try await batchIDs(request)
        return .json(status: .ok, body: Wire.body(try await setStatus(.confirmed, of: ids, for: context.user)))
    }

    private func setStatus(_ status: Reservation.Status, of ids: [Reservation.ID], for user: UserID)
        async throws -> [StatusChange]
    {
        let at = now()
        return try await write(user) { try await Booking.setStatus(status, of: ids, now: at, in: $0) }
    }

    /// The ids of a cancel or confirm of several: `{"ids": ["<uuid>", …]}`, 1 to `batchLimit` whole UUIDs.
    private func batchIDs(_ request: Request) async throws -> [Reservation.ID] {
        let body = try await Self.body(of: request, upTo: Self.batchBodyLimit)
        let json: JSONValue
        do { json = try JSONValue.parse(body) } catch {
            throw APIError(.badRequest, .invalidJSON, "the request body is not valid JSON: \(error.detail)")
        }
        guard case .array(let items)? = json["ids"] else {
            throw APIError(.badRequest, .invalidRequest, #"the body must be {"ids": ["<reservation id>", …]}"#)
        }
        guard (1...Self.batchLimit).contains(items.count) else {
            throw APIError(
                .badRequest, .invalidRequest,
                "ids must hold 1 to \(Self.batchLimit) reservation ids, not \(items.count)")
        }
        var ids: [Reservation.ID] = []
        var failures: [JSONValue] = []
        for (index, item) in items.enumerated() {
            if case .string(let text) = item, let id = Reservation.ID(text) {
                ids.append(id)
            } else {
                failures.append(
                    Wire.failure(
                        ("request", .integer(Int64(index + 1))), code: .invalidReservationId,
                        reason: "ids[\(index)] is not a reservation id: give the whole UUID"))
            }
        }
        guard failures.isEmpty else {
            var error = APIError(
                .badRequest, .invalidReservationId,
                "\(failures.count) of \(items.count) ids are not reservation ids (whole UUIDs), nothing changed")
            error.failures = failures
            throw error
        }
        return ids
    }

    @Sendable func create(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let user = context.user
        let body = try await Self.body(of: request, upTo: Self.bodyLimit)
        // Parsed once: for the key's hash and for the checks.
        let json = Result { () throws(JSONSyntaxError) in try JSONValue.parse(body) }
        let key = try idempotencyKey(request.headers, route: "POST /reservations", body: body, json: json)
        if let key, let kept = try await store.storedResponse(user, key.key) {
            return try replay(kept, for: key)
        }
        let reservation = try newReservation(try parsed(json))
        let at = now()
        let written = try await write(
            user, key: key,
            rule: { [maxHolds] in try await Booking.reserve(reservation, now: at, holdLimit: maxHolds, in: $0) },
            keep: { Self.kept([$0], status: 201, key: key) })
        switch written {
        case .done(let created):
            ServerMetrics.bookingsMade.increment()
            var headers = HTTPFields()
            headers[.location] = "/reservations/\(created.id)"
            return .json(status: .created, body: Wire.body(created), headers: headers)
        case .replay(let kept):
            // Another request with this key committed first.
            guard let key else { throw APIError(.internalServerError, "a replay without an Idempotency-Key") }
            return try replay(kept, for: key)
        }
    }

    /// The answer to keep for an idempotency key: what a create of one (its
    /// first) or of a batch (all) answers.
    private static func kept(_ created: [Reservation], status: Int, key: IdempotencyKey?, batch: Bool = false)
        -> StoredResponse?
    {
        guard let key, let first = created.first else { return nil }
        return StoredResponse(
            status: status, body: batch ? Wire.body(created) : Wire.body(first), requestHash: key.requestHash)
    }

    /// `POST /reservations/batch` `{"reservations": [CreateReservationRequest, …]}`:
    /// every request booked or none, in one transaction, capacity counted across
    /// the batch; every refused request named by its number (from 1) and reason.
    @Sendable func createBatch(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let user = context.user
        let body = try await Self.body(of: request, upTo: Self.batchBodyLimit)
        let json = Result { () throws(JSONSyntaxError) in try JSONValue.parse(body) }
        let key = try idempotencyKey(request.headers, route: "POST /reservations/batch", body: body, json: json)
        if let key, let kept = try await store.storedResponse(user, key.key) {
            return try replay(kept, for: key)
        }
        guard case .array(let items)? = try parsed(json)["reservations"] else {
            throw APIError(
                .badRequest, .invalidRequest, #"the body must be {"reservations": [CreateReservationRequest, …]}"#)
        }
        guard (1...Self.batchLimit).contains(items.count) else {
            throw APIError(
                .badRequest, .invalidRequest,
                "reservations must hold 1 to \(Self.batchLimit) requests, not \(items.count)")
        }
        var checked: [NewReservation] = []
        var failures: [(index: Int, error: APIError)] = []
        for (index, item) in items.enumerated() {
            do throws(APIError) {
                checked.append(try newReservation(item))
            } catch {
                failures.append((index, error))
            }
        }
        if !failures.isEmpty {
            throw batchRejected(failures, total: items.count, status: .badRequest)
        }
        let requests = checked
        let at = now()
        let written = try await write(
            user, key: key,
            rule: { [maxHolds] in try await Booking.reserve(requests, now: at, holdLimit: maxHolds, in: $0) },
            keep: { Self.kept($0, status: 201, key: key, batch: true) })
        switch written {
        case .done(let reservations):
            ServerMetrics.bookingsMade.increment(by: reservations.count)
            return .json(status: .created, body: Wire.body(reservations))
        case .replay(let kept):
            guard let key else { throw APIError(.internalServerError, "a replay without an Idempotency-Key") }
            return try replay(kept, for: key)
        }
    }

    /// The refusal of a whole batch, naming each refused request.
    private func batchRejected(_ failures: [(index: Int, error: APIError)], total: Int, status: HTTPResponse.Status)
        -> APIError
    {
        let listed = failures.prefix(3).map { "request \($0.index + 1): \($0.error.reason)" }
        let more = failures.count > 3 ? "; and \(failures.count - 3) more" : ""
        var error = APIError(
            status, .batchRejected,
            "\(failures.count) of \(total) requests refused, nothing reserved: " + listed.joined(separator: "; ") + more
        )
        error.failures = failures.map {
            Wire.failure(("request", .integer(Int64($0.index + 1))), code: $0.error.code, reason: $0.error.reason)
        }
        return error
    }

    private func parsed(_ json: Result<JSONValue, JSONSyntaxError>) throws(APIError) -> JSONValue {
        switch json {
        case .success(let value): return value
        case .failure(let error):
            throw APIError(.badRequest, .invalidJSON, "the request body is not valid JSON: \(error.detail)")
        }
    }

    /// Checks a create body with the core's rules (`NewReservation`: the one
    /// date parser, a future date, a party size, a status); its landmark must be
    /// a known landmark's id.
    private func newReservation(_ json: JSONValue) throws(APIError) -> NewReservation {
        let wire: CreateReservationRequest
        do { wire = try CreateReservationRequest(json: json) } catch { throw APIError(error) }
        guard let landmarkID = Landmark.ID(wire.landmarkId) else {
            throw APIError(.badRequest, .unknownLandmark, "landmarkId '\(wire.landmarkId.prefix(64))' is not a UUID")
        }
        let checked: NewReservation
        do { checked = try NewReservation(wire, now: now()) } catch { throw APIError(error) }
        guard catalog[landmarkID] != nil else {
            throw APIError(
                .notFound, .unknownLandmark,
                "landmarkId \(landmarkID) is not a known landmark (GET /landmarks lists them)")
        }
        return checked
    }

    /// The request's `Idempotency-Key` with a hash of what was asked: the body
    /// as canonical JSON when it parses (so spacing and key order do not make a
    /// different request), else its bytes.
    private func idempotencyKey(
        _ headers: HTTPFields, route: String, body: Data, json: Result<JSONValue, JSONSyntaxError>
    ) throws(APIError) -> IdempotencyKey? {
        guard let key = headers[.idempotencyKey] else { return nil }
        guard (1...Self.maxKeyLength).contains(key.utf8.count), key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else {
            throw APIError(
                .badRequest, "Idempotency-Key must be 1 to \(Self.maxKeyLength) visible ASCII characters")
        }
        let canonical = (try? json.get().encoded()) ?? body
        var hash = SHA256()
        hash.update(data: Array((route + "\n").utf8))
        hash.update(data: canonical)
        return IdempotencyKey(key: key, requestHash: Hex.string(hash.finalize()), receivedAt: now())
    }

    private func replay(_ kept: StoredResponse, for key: IdempotencyKey) throws(APIError) -> Response {
        guard kept.requestHash == key.requestHash else {
            throw APIError(
                .unprocessableContent, .idempotencyKeyReused,
                "Idempotency-Key '\(key.key)' was already used with a different request; use a new key")
        }
        var headers = HTTPFields()
        headers[.idempotentReplayed] = "true"
        let status: HTTPResponse.Status = kept.status == 201 ? .created : .init(code: kept.status)
        return .json(status: status, body: kept.body, headers: headers)
    }

    private func reservationID(_ context: AuthenticatedContext) throws(APIError) -> Reservation.ID {
        let text = context.parameters.get("id") ?? ""
        guard let id = Reservation.ID(text) else {
            throw APIError(
                .badRequest, .invalidReservationId, "'\(text.prefix(64))' is not a reservation id: give the whole UUID")
        }
        return id
    }
}

extension HTTPField.Name {
    static let idempotencyKey = Self("Idempotency-Key")!
    static let idempotentReplayed = Self("Idempotent-Replayed")!
}
