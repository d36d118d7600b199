import Foundation
import Hummingbird
import ReservationCore
import ReservationStorage

/// `GET /landmarks` (the catalog, written once), `GET /landmarks/{id}/availability`,
/// `GET /landmarks/{id}/day/{day}` (a day's manifest), and `POST /landmarks/{id}/days` (a day's own
/// capacity, a closure, an opening: `resv admin capacity|close|open`).
struct LandmarkController: Sendable {
    let backend: RouteBackend

    var endpoints: RouteCollection<AuthenticatedContext> {
        RouteCollection(context: AuthenticatedContext.self)
            .get("/landmarks/:id/availability", use: availability)
            .get("/landmarks/:id/day/:day", use: day)
            .post("/landmarks/:id/days", use: changeDays)
    }

    /// `GET /landmarks/{id}/day/{day}`: every party at the landmark that day (`YYYY-MM-DD` in its
    /// zone), every user's, with whose each is (`DayManifest`): for who manages the landmark.
    @Sendable func day(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let landmark = try landmarkOfPath(context)
        try context.requireManager(of: landmark.id)
        let text = context.parameters.get("day") ?? ""
        guard let day = CalendarDay(text) else {
            throw APIError(.badRequest, .invalidDays, "'\(text.prefix(64))' is not a day: give YYYY-MM-DD")
        }
        guard let interval = day.interval(in: Capacity.calendar(for: landmark)) else {
            throw APIError(
                .badRequest, .invalidDays, "\(day) has no dates in \(landmark.timeZone?.identifier ?? "UTC")")
        }
        let now = backend.now()
        let rows = try await backend.store.manifest(landmark.id, interval.start, interval.end)
        var parties: [DayManifest.Party] = []
        for row in rows {
            // A row that does not map is no party anyone can act on; the owner's list reports it.
            guard let reservation = try? Reservation(row.record, catalog: backend.catalog) else { continue }
            parties.append(DayManifest.Party(reservation: reservation, user: row.user))
        }
        let manifest = DayManifest(landmark: landmark, day: day, parties: parties, at: now)
        return .json(status: .ok, body: [UInt8](manifest.json.encoded()))
    }

    /// `POST /landmarks/{id}/days` `{"from": DAY, "to"?: DAY, "capacity": N | "close": REASON |
    /// "open": true, "overflow"?: "refuse"|"cancel"|"waitlist"}` (days `YYYY-MM-DD` in the
    /// landmark's zone, at most 366): one transaction of `Booking.changeDays`, by a manager of
    /// the landmark (`requireManager(of:)`), under an optional `Idempotency-Key`. 200
    /// `DaysChanged`; 409 `noCapacity` naming the places over, 400 for a bad body.
    @Sendable func changeDays(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let landmark = try landmarkOfPath(context)
        try context.requireManager(of: landmark.id)
        let body = try await RouteBackend.body(of: request, upTo: ReservationRoutes.bodyLimit)
        let json = try RouteBackend.parsed(Result { () throws(JSONSyntaxError) in try JSONValue.parse(body) })
        let (days, change, overflow) = try Self.daysRequest(json)
        let at = backend.now()
        let id = landmark.id.description
        return try await backend.keyedChange(
            request, body: body, as: context.acting,
            rule: { try await Booking.changeDays(change, at: id, days: days, overflow: overflow, now: at, in: $0) },
            answer: { (.ok, Array($0.json.encoded())) })
    }

    /// Reads a `POST /landmarks/{id}/days` body; 400 for one that is not such a body.
    static func daysRequest(_ json: JSONValue) throws(APIError) -> ([CalendarDay], DayChange, Overflow) {
        guard case .object(let fields) = json else {
            throw APIError(
                .badRequest, .invalidRequest, "the body must be an object: {\"from\": DAY, \"close\": REASON}")
        }
        let known: Set<String> = ["from", "to", "capacity", "close", "open", "overflow"]
        if let unknown = fields.keys.sorted().first(where: { !known.contains($0) }) {
            throw APIError(.badRequest, .invalidRequest, "'\(unknown.prefix(64))' is not a field of a change of days")
        }
        func day(_ name: String) throws(APIError) -> CalendarDay? {
            switch fields[name] {
            case nil, .null?: return nil
            case .string(let text)?:
                guard let day = CalendarDay(text) else {
                    throw APIError(
                        .badRequest, .invalidDays, "\(name) '\(text.prefix(64))' is not a day: give YYYY-MM-DD")
                }
                return day
            default: throw APIError(.badRequest, .invalidDays, "\(name) must be a day, YYYY-MM-DD")
            }
        }
        guard let first = try day("from") else {
            throw APIError(.badRequest, .invalidDays, "from is missing: give the first day, YYYY-MM-DD")
        }
        let days: [CalendarDay]
        let last = try day("to") ?? first
        do { days = try Capacity.days(from: first, through: last) } catch { throw APIError(error) }
        var changes: [DayChange] = []
        switch fields["capacity"] {
        case nil, .null?: break
        case .integer(let value)?:
            guard let capacity = Int(exactly: value) else {
                throw APIError(.badRequest, .invalidRequest, "capacity \(value) is out of range")
            }
            do { try DayRule.check(capacity: capacity) } catch { throw APIError(error) }
            changes.append(.capacity(capacity))
        default: throw APIError(.badRequest, .invalidRequest, "capacity must be a whole number")
        }
        switch fields["close"] {
        case nil, .null?: break
        case .string(let reason)?:
            do { try DayRule.check(reason: reason) } catch { throw APIError(error) }
            changes.append(.close(reason: reason))
        default: throw APIError(.badRequest, .invalidRequest, "close must be the reason, a string")
        }
        switch fields["open"] {
        case nil, .null?, .bool(false)?: break
        case .bool(true)?: changes.append(.open)
        default: throw APIError(.badRequest, .invalidRequest, "open must be true")
        }
        guard changes.count == 1 else {
            throw APIError(.badRequest, .invalidRequest, "give exactly one of capacity, close and open")
        }
        var overflow = Overflow.refuse
        switch fields["overflow"] {
        case nil, .null?: break
        case .string(let text)?:
            guard let given = Overflow(rawValue: text) else {
                throw APIError(.badRequest, .invalidRequest, "overflow must be refuse, cancel or waitlist")
            }
            overflow = given
        default: throw APIError(.badRequest, .invalidRequest, "overflow must be refuse, cancel or waitlist")
        }
        if overflow != .refuse, case .open = changes[0] {
            throw APIError(.badRequest, .invalidRequest, "overflow is for capacity and close, not open")
        }
        return (days, changes[0], overflow)
    }

    /// The landmark of the path's `:id`: 400 for what is not an id, 404 for an id the catalog does not have.
    private func landmarkOfPath(_ context: AuthenticatedContext) throws(APIError) -> Landmark {
        let text = context.parameters.get("id") ?? ""
        guard let id = Landmark.ID(text) else {
            throw APIError(.badRequest, .unknownLandmark, "'\(text.prefix(64))' is not a landmark id (a UUID)")
        }
        guard let landmark = backend.catalog[id] else {
            throw APIError(
                .notFound, .unknownLandmark, "landmark \(id) is not a known landmark (GET /landmarks lists them)")
        }
        return landmark
    }

    /// Places taken and left per day, counting every user's reservations
    /// (numbers only: whose they are is not told).
    @Sendable func availability(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let text = context.parameters.get("id") ?? ""
        guard let id = Landmark.ID(text) else {
            throw APIError(.badRequest, .unknownLandmark, "'\(text.prefix(64))' is not a landmark id (a UUID)")
        }
        guard let landmark = backend.catalog[id] else {
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
            days = try Capacity.days(from: first, through: last, today: CalendarDay(backend.now(), in: calendar))
        } catch {
            throw APIError(error)
        }
        guard let start = days[0].interval(in: calendar)?.start,
            let end = days[days.count - 1].interval(in: calendar)?.end
        else {
            throw APIError(
                .badRequest, "\(days[0]) to \(days[days.count - 1]) has no dates in \(calendar.timeZone.identifier)")
        }
        let parties = try await backend.store.parties(id, start, end, backend.now())
        let rules = try await backend.store.dayRules(id, days[0], days[days.count - 1])
        return .json(
            status: .ok, body: Wire.body(Capacity.availability(of: landmark, on: days, parties: parties, rules: rules)))
    }
}
