import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import ReservationCore

/// The request context of every route: who is asking, once the bearer token is checked.
public struct ServerContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Set by `AuthMiddleware`; nil on `/health`.
    public var user: UserID?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        user = nil
    }

    func requireUser() throws(APIError) -> UserID {
        guard let user else { throw APIError.unauthorized }
        return user
    }
}

/// The routes of DESIGN.md, "HTTP backend (client) and server", over one
/// `ServerStore`. Input goes through the core's rules: `CreateReservationRequest(json:)`,
/// `NewReservation` (the one date parser, a future date, party size > 0) and
/// the catalog, so the server and the file backend refuse the same requests
/// with the same words.
struct ReservationRoutes: Sendable {
    /// The largest request body accepted; larger ones get 413.
    static let bodyLimit = 64 * 1024
    /// An `Idempotency-Key` is 1 to 255 visible ASCII characters.
    static let maxKeyLength = 255

    let store: ServerStore
    let catalog: LandmarkCatalog
    let now: @Sendable () -> Date
    private let landmarksBody: ByteBuffer
    /// Lists kept between writes, when this process is the store's only writer.
    private let lists: ListCache?

    init(store: ServerStore, catalog: LandmarkCatalog, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.catalog = catalog
        self.now = now
        landmarksBody = ByteBuffer(bytes: Wire.body(catalog.landmarks))
        lists = store.exclusive ? ListCache() : nil
    }

    /// Adds the routes to `routes`, the group behind `AuthMiddleware` (see `buildRouter`).
    func add(to routes: RouterGroup<ServerContext>) {
        routes.get("/landmarks") { _, _ in Response.json(status: .ok, body: landmarksBody) }
        routes.get("/landmarks/:id/availability", use: availability)
        routes.get("/reservations", use: list)
        routes.get("/reservations/:id", use: get)
        routes.post("/reservations", use: create)
        routes.delete("/reservations/:id", use: cancel)
        routes.post("/reservations/:id/confirm", use: confirm)
    }

    @Sendable func list(_ request: Request, context: ServerContext) async throws -> Response {
        let user = try context.requireUser()
        guard let lists else { return .json(status: .ok, body: Wire.body(try await store.list(user))) }
        switch lists.lookup(user) {
        case .success(let body):
            return .json(status: .ok, body: body)
        case .failure(let generation):
            let body = ByteBuffer(bytes: Wire.body(try await store.list(user)))
            lists.keep(body, for: user, readAt: generation)
            return .json(status: .ok, body: body)
        }
    }

    /// Places taken and left per day, counting every user's reservations
    /// (numbers only: whose they are is not told).
    @Sendable func availability(_ request: Request, context: ServerContext) async throws -> Response {
        _ = try context.requireUser()
        let text = context.parameters.get("id") ?? ""
        guard let id = Landmark.ID(text) else {
            throw APIError(.badRequest, "'\(text.prefix(64))' is not a landmark id (a UUID)")
        }
        guard let landmark = catalog[id] else {
            throw APIError(.notFound, "landmark \(id) is not a known landmark (GET /landmarks lists them)")
        }
        let calendar = Capacity.calendar(for: landmark)
        func day(_ name: String) throws(APIError) -> CalendarDay? {
            guard let text = request.uri.queryParameters.get(name) else { return nil }
            guard let day = CalendarDay(text) else {
                throw APIError(.badRequest, "\(name) '\(text.prefix(64))' is not a day: give YYYY-MM-DD")
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
        let parties = try await store.parties(id, start, end)
        return .json(status: .ok, body: Wire.body(Capacity.availability(of: landmark, on: days, parties: parties)))
    }

    @Sendable func get(_ request: Request, context: ServerContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try reservationID(context)
        guard let reservation = try await store.get(user, id) else { throw APIError.notFound(id) }
        return .json(status: .ok, body: Wire.body(reservation))
    }

    @Sendable func cancel(_ request: Request, context: ServerContext) async throws -> Response {
        try await setStatus(.cancelled, context: context)
    }

    @Sendable func confirm(_ request: Request, context: ServerContext) async throws -> Response {
        try await setStatus(.confirmed, context: context)
    }

    private func setStatus(_ status: Reservation.Status, context: ServerContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try reservationID(context)
        switch try await store.setStatus(user, id, status) {
        case .notFound:
            throw APIError.notFound(id)
        case .changed(let reservation, let previous):
            if reservation.status != previous { lists?.invalidate(user) }
            return .json(status: .ok, body: Wire.body(reservation))
        case .conflict:
            throw APIError(
                .conflict, "reservation \(id) is cancelled and cannot be confirmed; make a new reservation")
        }
    }

    @Sendable func create(_ request: Request, context: ServerContext) async throws -> Response {
        let user = try context.requireUser()
        var request = request
        let body = Data(try await request.collectBody(upTo: Self.bodyLimit).readableBytesView)
        // Parsed once: for the key's hash and for the checks.
        let json = Result { () throws(JSONSyntaxError) in try JSONValue.parse(body) }
        let key = try idempotencyKey(request.headers, body: body, json: json)
        if let key, let kept = try await store.storedResponse(user, key.key) {
            return try replay(kept, for: key)
        }
        let (record, landmark) = try newRecord(json)
        switch try await store.create(user, record, key) {
        case .created(let reservation):
            lists?.invalidate(user)
            ServerMetrics.bookingsMade.increment()
            var headers = HTTPFields()
            headers[.location] = "/reservations/\(reservation.id)"
            return .json(status: .created, body: Wire.body(reservation), headers: headers)
        case .noCapacity(let booked):
            ServerMetrics.bookingsRefused.increment()
            let day = record.capacity?.day.text ?? ""
            throw APIError(
                ReservationError.noCapacity(
                    landmark, day: day, requested: record.reservation.partySize, booked: booked))
        case .replay(let kept):
            // Another request with this key committed first.
            guard let key else { throw APIError(.internalServerError, "a replay without an Idempotency-Key") }
            return try replay(kept, for: key)
        }
    }

    /// Checks a create body with the core's rules and prepares its row.
    private func newRecord(_ parsed: Result<JSONValue, JSONSyntaxError>) throws(APIError) -> (NewRecord, Landmark) {
        let json: JSONValue
        switch parsed {
        case .success(let value): json = value
        case .failure(let error): throw APIError(.badRequest, "the request body is not valid JSON: \(error.detail)")
        }
        let wire: CreateReservationRequest
        do { wire = try CreateReservationRequest(json: json) } catch { throw APIError(error) }
        guard let landmarkID = Landmark.ID(wire.landmarkId) else {
            throw APIError(.badRequest, "landmarkId '\(wire.landmarkId.prefix(64))' is not a UUID")
        }
        let checked: NewReservation
        do { checked = try NewReservation(wire, now: now()) } catch { throw APIError(error) }
        guard let landmark = catalog[landmarkID] else {
            throw APIError(.notFound, "landmarkId \(landmarkID) is not a known landmark (GET /landmarks lists them)")
        }
        let reservation = StoredReservation(
            id: Reservation.ID(UUID()), landmarkID: landmarkID, date: DateTime.format(checked.date),
            partySize: checked.partySize, status: checked.status)
        var capacity: CapacityCheck?
        if let limit = landmark.capacity, let day = Capacity.Day(of: checked.date, in: Capacity.calendar(for: landmark))
        {
            capacity = CapacityCheck(limit: limit, day: day)
        }
        let record = NewRecord(
            reservation: reservation, startsAt: checked.date.timeIntervalSince1970, capacity: capacity)
        return (record, landmark)
    }

    /// The request's `Idempotency-Key` with a hash of what was asked: the body
    /// as canonical JSON when it parses (so spacing and key order do not make a
    /// different request), else its bytes.
    private func idempotencyKey(_ headers: HTTPFields, body: Data, json: Result<JSONValue, JSONSyntaxError>)
        throws(APIError) -> IdempotencyKey?
    {
        guard let key = headers[.idempotencyKey] else { return nil }
        guard (1...Self.maxKeyLength).contains(key.utf8.count), key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else {
            throw APIError(
                .badRequest, "Idempotency-Key must be 1 to \(Self.maxKeyLength) visible ASCII characters")
        }
        let canonical = (try? json.get().encoded()) ?? body
        var hash = SHA256()
        hash.update(data: Array("POST /reservations\n".utf8))
        hash.update(data: canonical)
        return IdempotencyKey(key: key, requestHash: Hex.string(hash.finalize()))
    }

    private func replay(_ kept: StoredResponse, for key: IdempotencyKey) throws(APIError) -> Response {
        guard kept.requestHash == key.requestHash else {
            throw APIError(
                .unprocessableContent,
                "Idempotency-Key '\(key.key)' was already used with a different request; use a new key")
        }
        var headers = HTTPFields()
        headers[.idempotentReplayed] = "true"
        let status: HTTPResponse.Status = kept.status == 201 ? .created : .init(code: kept.status)
        return .json(status: status, body: kept.body, headers: headers)
    }

    private func reservationID(_ context: ServerContext) throws(APIError) -> Reservation.ID {
        let text = context.parameters.get("id") ?? ""
        guard let id = Reservation.ID(text) else {
            throw APIError(.badRequest, "'\(text.prefix(64))' is not a reservation id: give the whole UUID")
        }
        return id
    }
}

extension HTTPField.Name {
    static let idempotencyKey = Self("Idempotency-Key")!
    static let idempotentReplayed = Self("Idempotent-Replayed")!
}

/// Checks `Authorization: Bearer TOKEN` and puts the token's user in the context.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = ServerContext
    let tokens: TokenCache

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        guard let header = request.headers[.authorization] else { throw APIError.unauthorized }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer",
            let user = try await tokens.user(for: parts[1].trimmingCharacters(in: .whitespaces))
        else { throw APIError.unauthorized }
        var context = context
        context.user = user
        context.logger[metadataKey: "user"] = "\(user)"
        return try await next(request, context)
    }
}
