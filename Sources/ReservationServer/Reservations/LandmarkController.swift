import Foundation
import Hummingbird
import ReservationCore
import ReservationStorage

/// `GET /landmarks` (the catalog, written once) and
/// `GET /landmarks/{id}/availability`.
struct LandmarkController: Sendable {
    let backend: RouteBackend
    private let landmarksBody: ByteBuffer

    init(backend: RouteBackend) {
        self.backend = backend
        landmarksBody = ByteBuffer(bytes: Wire.body(backend.catalog.landmarks))
    }

    var endpoints: RouteCollection<AuthenticatedContext> {
        RouteCollection(context: AuthenticatedContext.self)
            .get("/landmarks") { [landmarksBody] _, _ in Response.json(status: .ok, body: landmarksBody) }
            .get("/landmarks/:id/availability", use: availability)
            .get("/landmarks/:id/day/:day", use: day)
    }

    /// `GET /landmarks/{id}/day/{day}`: every party at the landmark that day (`YYYY-MM-DD` in its
    /// zone), every user's, with whose each is (`DayManifest`): for who manages the landmark.
    @Sendable func day(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let landmark = try known(context)
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

    /// The landmark the path names: 400 for what is not an id, 404 for one not in the catalog.
    private func known(_ context: AuthenticatedContext) throws(APIError) -> Landmark {
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
        return .json(status: .ok, body: Wire.body(Capacity.availability(of: landmark, on: days, parties: parties)))
    }
}
