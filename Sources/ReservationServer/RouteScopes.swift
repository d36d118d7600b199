import HTTPTypes
import Hummingbird
import ReservationStorage

/// Which token scope may call which route: the one table (docs/contracts.md,
/// "Token scopes"). Every route behind a token has a line; a route without one
/// is open to `write` tokens only, so a route added and forgotten here is never
/// open to a narrower scope. `ScopeRouteTests` checks the table against the router.
enum RouteScopes {
    /// A route behind a token: what calling it does, in the words of a 403
    /// ("it cannot …"), and the scopes that may call it.
    struct Rule: Sendable {
        let method: HTTPRequest.Method
        let path: String
        let action: String
        let scopes: Set<TokenScope>
    }

    private static let reads: Set<TokenScope> = [.read, .write]
    private static let changes: Set<TokenScope> = [.write]
    private static let calendars: Set<TokenScope> = [.write, .calendar]

    static let rules: [Rule] = [
        Rule(method: .get, path: "/whoami", action: "ask whose it is", scopes: [.read, .write, .calendar]),
        Rule(method: .get, path: "/landmarks", action: "read landmarks", scopes: reads),
        Rule(method: .get, path: "/landmarks/:id/availability", action: "read availability", scopes: reads),
        Rule(method: .get, path: "/landmarks/:id/day/:day", action: "read a day's parties", scopes: reads),
        Rule(method: .get, path: "/reservations", action: "read reservations", scopes: reads),
        Rule(method: .get, path: "/reservations/:id", action: "read reservations", scopes: reads),
        Rule(method: .get, path: "/history", action: "read the history", scopes: reads),
        Rule(method: .get, path: "/changes", action: "read the change feed", scopes: reads),
        Rule(method: .post, path: "/reservations", action: "change reservations", scopes: changes),
        Rule(method: .post, path: "/reservations/batch", action: "change reservations", scopes: changes),
        Rule(method: .post, path: "/reservations/batch/dry-run", action: "change reservations", scopes: changes),
        Rule(method: .post, path: "/reservations/cancel", action: "change reservations", scopes: changes),
        Rule(method: .post, path: "/reservations/confirm", action: "change reservations", scopes: changes),
        Rule(method: .post, path: "/reservations/:id/confirm", action: "change reservations", scopes: changes),
        Rule(method: .post, path: "/reservations/:id/checkin", action: "check parties in", scopes: changes),
        Rule(method: .post, path: "/reservations/:id/noshow", action: "mark no-shows", scopes: changes),
        Rule(method: .delete, path: "/reservations/:id", action: "change reservations", scopes: changes),
        Rule(method: .patch, path: "/reservations/:id", action: "change reservations", scopes: changes),
        Rule(method: .post, path: "/landmarks/:id/days", action: "change a landmark's days", scopes: changes),
        Rule(method: .post, path: "/landmarks", action: "change the catalog", scopes: changes),
        Rule(method: .patch, path: "/landmarks/:id", action: "change the catalog", scopes: changes),
        Rule(method: .post, path: "/landmarks/:id/retire", action: "change the catalog", scopes: changes),
        Rule(method: .post, path: "/undo", action: "change reservations", scopes: changes),
        Rule(method: .post, path: "/redo", action: "change reservations", scopes: changes),
        Rule(method: .post, path: "/settle", action: "settle a change's key", scopes: changes),
        Rule(method: .post, path: "/calendar", action: "make a calendar address", scopes: calendars),
        Rule(method: .post, path: "/calendar/reset", action: "reset the calendar address", scopes: calendars),
    ]

    /// The rules by method and the path as the router describes a matched route (`context.endpointPath`).
    private static let byRoute: [String: Rule] = {
        var table: [String: Rule] = [:]
        for rule in rules { table[key(rule.method, RouterPath(rule.path).description)] = rule }
        return table
    }()

    private static func key(_ method: HTTPRequest.Method, _ endpoint: String) -> String {
        "\(method == .head ? HTTPRequest.Method.get : method) \(endpoint)"
    }

    /// The rule of a matched route; nil for a route the table does not name.
    static func rule(_ method: HTTPRequest.Method, endpoint: String) -> Rule? { byRoute[key(method, endpoint)] }

    /// nil when `scope` may call the route, else the 403 to answer.
    static func refusal(_ method: HTTPRequest.Method, endpoint: String?, scope: TokenScope) -> APIError? {
        let found = endpoint.flatMap { Self.rule(method, endpoint: $0) }
        if found?.scopes.contains(scope) ?? (scope == .write) { return nil }
        return forbidden(scope, cannot: found?.action ?? "call this route")
    }

    /// `403 forbidden`: "this token's scope is read: it cannot change reservations", with the scope.
    static func forbidden(_ scope: TokenScope, cannot action: String) -> APIError {
        var error = APIError(.forbidden, .forbidden, "this token's scope is \(scope.rawValue): it cannot \(action)")
        error.scope = scope
        return error
    }
}

/// Refuses (403 `forbidden`) a route the token's scope may not call, before the route runs.
struct ScopeMiddleware: RouterMiddleware {
    typealias Context = AuthenticatedContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        if let refusal = RouteScopes.refusal(request.method, endpoint: context.endpointPath, scope: context.scope) {
            throw refusal
        }
        return try await next(request, context)
    }
}
