import Hummingbird

/// One access line per request at info: method, path, status, milliseconds.
/// Never headers, so never a token; never a calendar's secret (`LoggedPath`). Outside `ErrorMiddleware`, so a request
/// that failed is logged with the status it was answered with.
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        if context.logger.logLevel <= .info {
            let elapsed = (ContinuousClock.now - start) / .milliseconds(1)
            context.logger.info(
                "\(request.method) \(LoggedPath.of(request)) \(response.status.code)",
                metadata: ["ms": "\((elapsed * 100).rounded() / 100)"])
        }
        return response
    }
}
