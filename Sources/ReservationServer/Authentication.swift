import Foundation
import HTTPTypes
import Hummingbird
import ReservationStorage

/// The request context of every route: who is asking, once `AuthMiddleware` has read the bearer token.
public struct ServerContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The user of a valid bearer token; nil without one, and on the routes that need none (`/health`).
    public var user: UserID?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        user = nil
    }
}

/// The context of the routes behind a token (Hummingbird's child request
/// context): its user is always there, so no handler checks for one.
public struct AuthenticatedContext: ChildRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let user: UserID

    /// Refuses (401) a request without the user of a valid token.
    public init(context: ServerContext) throws {
        guard let user = context.user else { throw APIError.unauthorized }
        // The whole storage, route parameters included (`.init(source:)` would start them afresh).
        coreContext = context.coreContext
        self.user = user
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
        if let user = try await user(of: request) {
            context.user = user
            context.logger[metadataKey: "user"] = "\(user)"
        }
        return try await next(request, context)
    }

    /// The user of the request's bearer token; nil without a valid one.
    private func user(of request: Request) async throws -> UserID? {
        guard let header = request.headers[.authorization] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return try await tokens.user(for: parts[1].trimmingCharacters(in: .whitespaces))
    }
}
