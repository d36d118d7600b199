import Foundation
import Hummingbird
import ReservationCore
import ReservationStorage

/// `GET /history` (the user's changes, newest first), `POST /undo`, `POST /redo`, and `POST /settle`
/// (what became of a change whose answer was lost).
struct HistoryController: Sendable {
    let backend: RouteBackend

    var endpoints: RouteCollection<AuthenticatedContext> {
        RouteCollection(context: AuthenticatedContext.self)
            .get("/history", use: history)
            .post("/undo", use: undo)
            .post("/redo", use: redo)
            .post("/settle", use: settle)
    }

    @Sendable func settle(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        try await backend.settle(request, as: context.acting)
    }

    /// `GET /history[?reservation=ID][&limit=N][&user=NAME]`: the user's changes, newest
    /// first (the newest N), as `resv log --json` prints them; an admin's token reads any
    /// user's with `user` (anyone else: 403, unless it names themselves; an unknown name: 404).
    @Sendable func history(_ request: Request, context: AuthenticatedContext) async throws -> Response {
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
        var user = context.user
        if let name = request.uri.queryParameters.get("user").map({ String($0) }) {
            let found = try await backend.store.tokens.user(named: name)
            if found != context.user {
                guard context.access.role == .admin else {
                    throw APIError(
                        .forbidden, .forbidden,
                        "only an admin may read another user's history; you are a \(context.access.role.rawValue)")
                }
                guard let found else {
                    throw APIError(.notFound, .invalidRequest, "there is no user named \(UserName.printable(name))")
                }
                user = found
            }
        }
        let entries = try await backend.store.history(user, id, limit)
        return .json(status: .ok, body: [UInt8](JSONValue.array(entries.map(\.json)).encoded()))
    }

    /// `POST /undo`: takes back the user's newest command not yet undone, in one
    /// transaction (`Booking.undo`); answers `{"undid": command, "changes": [...]}`.
    @Sendable func undo(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let at = backend.now()
        let body = try await RouteBackend.body(of: request, upTo: ReservationRoutes.bodyLimit)
        return try await backend.keyedChange(
            request, body: body, as: context.acting, rule: { try await Booking.undo(now: at, in: $0) },
            answer: { (.ok, [UInt8]($0.json.encoded())) })
    }

    /// `POST /redo`: takes back the user's newest undo while nothing else changed since, in
    /// one transaction (`Booking.redo`), keyed as `POST /undo`; answers `{"redid": undo, "changes": [...]}`.
    @Sendable func redo(_ request: Request, context: AuthenticatedContext) async throws -> Response {
        let at = backend.now()
        let body = try await RouteBackend.body(of: request, upTo: ReservationRoutes.bodyLimit)
        return try await backend.keyedChange(
            request, body: body, as: context.acting, rule: { try await Booking.redo(now: at, in: $0) },
            answer: { (.ok, [UInt8]($0.json.encoded())) })
    }
}
