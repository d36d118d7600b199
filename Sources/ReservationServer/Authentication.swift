import Foundation
import HTTPTypes
import Hummingbird
import ReservationCore
import ReservationStorage

/// The request context of every route: who is asking, once `AuthMiddleware` has read the bearer token.
public struct ServerContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The user of a valid bearer token; nil without one, and on the routes that need none (`/health`).
    public var user: UserID?
    /// What that token may do.
    public var scope: TokenScope?
    /// Everything the token grants: the user's name, role and landmarks, the token's public id.
    public var grant: TokenGrant?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        user = nil
        scope = nil
        grant = nil
    }
}

/// The context of the routes behind a token (Hummingbird's child request
/// context): its user is always there, so no handler checks for one.
public struct AuthenticatedContext: ChildRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let user: UserID
    /// What the token may do; `ScopeMiddleware` refuses (403) a route outside it.
    public let scope: TokenScope
    /// The user's role and landmarks as this token may use them: the scope narrows the role. A
    /// `calendar` token acts as a member (its routes are the calendar's); a `read` token keeps the
    /// role but reaches only the read routes (`ScopeMiddleware`), so an admin's reads only.
    public let access: UserAccess
    /// Who is acting, as each change's history entry names them: the user and the token's public id.
    public let actor: HistoryActor?

    /// Refuses (401) a request without the user of a valid token.
    public init(context: ServerContext) throws {
        guard let user = context.user, let scope = context.scope else { throw APIError.unauthorized }
        // The whole storage, route parameters included (`.init(source:)` would start them afresh).
        coreContext = context.coreContext
        self.user = user
        self.scope = scope
        access = scope == .calendar ? .member : (context.grant?.access ?? .member)
        actor = context.grant?.name.map { HistoryActor(user: $0, token: context.grant?.tokenID) }
    }
}

/// Reads `Authorization: Bearer TOKEN` and puts the token's user in the context.
/// Without a valid token the user stays nil, and `AuthenticatedContext` refuses the request.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = ServerContext
    let tokens: TokenCache

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        var context = context
        if let grant = try await grant(of: request) {
            context.user = grant.user
            context.scope = grant.scope
            context.grant = grant
            context.logger[metadataKey: "user"] = "\(grant.user)"
        }
        return try await next(request, context)
    }

    /// What the request's bearer token grants; nil without a valid one.
    private func grant(of request: Request) async throws -> TokenGrant? {
        guard let header = request.headers[.authorization] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return try await tokens.grant(for: parts[1].trimmingCharacters(in: .whitespaces))
    }
}
