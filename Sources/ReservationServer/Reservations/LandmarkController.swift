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
