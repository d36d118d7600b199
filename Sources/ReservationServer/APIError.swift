import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PostgresNIO
import ReservationCore
import ReservationStorage

/// An error answered as `{"error": true, "reason": "…", "code": "…"}` with its
/// status, and for a batch the refused items (`failures`). Every failure reaches
/// the client through this type: `ErrorMiddleware` turns the rest (router, body
/// limit, unexpected) into one.
public struct APIError: HTTPResponseError, Sendable {
    public let status: HTTPResponse.Status
    public let reason: String
    public let code: ErrorCode
    /// A batch's refused items: `{"request": n}` (from 1) or `{"id": …}`, with their code and reason.
    public var failures: [JSONValue] = []
    /// Seconds to wait before sending the request again (`Retry-After`), for a 503.
    public var retryAfter: Int?
    /// The token's scope, for a 403 `forbidden` (the body's top-level `scope`), so a client can name it.
    public var scope: TokenScope?

    public init(_ status: HTTPResponse.Status, _ code: ErrorCode, _ reason: String) {
        self.status = status
        self.code = code
        self.reason = reason
    }

    /// An error whose code follows from its status alone.
    public init(_ status: HTTPResponse.Status, _ reason: String) {
        let code: ErrorCode =
            switch status {
            case .unauthorized: .unauthorized
            case .forbidden: .forbidden
            case .notFound, .methodNotAllowed: .noRoute
            case .contentTooLarge: .bodyTooLarge
            case .tooManyRequests: .rateLimited
            case .unprocessableContent: .idempotencyKeyReused
            case _ where status.code >= 500: .internalError
            default: .invalidRequest
            }
        self.init(status, code, reason)
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        return Response.json(
            status: status, body: Wire.errorBody(reason, code: code, failures: failures, scope: scope),
            headers: headers)
    }

    /// The database cannot be reached (refused, lost, shut down): 503, worth trying again shortly.
    static let databaseUnavailable = {
        var error = APIError(
            .serviceUnavailable, .databaseUnavailable, "the server cannot reach its database; retry later")
        error.retryAfter = 2
        return error
    }()

    /// Whether `error` says the database could not be reached, rather than that it refused
    /// or failed a statement: a connection refused, lost or closed, a pool that gave up
    /// connecting, a server shutting down or starting (SQLSTATE class 08, 57P01–57P03), or
    /// one that has become a standby (25006), or one that did not confirm it is still the
    /// primary (`DatabaseError.unconfirmed`): the cluster's probe finds the new primary.
    static func isDatabaseUnreachable(_ error: any Error) -> Bool {
        switch error {
        case let error as PostgresTransactionError:
            return [error.beginError, error.closureError, error.rollbackError, error.commitError].contains {
                $0.map(isDatabaseUnreachable) ?? false
            }
        case let error as PSQLError:
            if let state = error.serverInfo?[.sqlState] {
                // 25006: the host no longer takes writes (a primary demoted in a switchover).
                return state.hasPrefix("08") || ["57P01", "57P02", "57P03", "25006"].contains(state)
            }
            let lost: [PSQLError.Code] = [
                .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed,
            ]
            return lost.contains(error.code)
        case let error as DatabaseError:
            if case .unconfirmed = error { return true }
            return false
        case is IOError, is NIOConnectionError, is ChannelError:
            return true
        default:
            return isPoolGivingUp(error)
        }
    }

    /// postgres-nio's pool fails a request with its own `ConnectionPoolError` when it has not
    /// connected for a minute (its circuit breaker) or has been shut down (the cluster moved to
    /// a new primary and closed the old pool): the database cannot be reached. postgres-nio has
    /// no public name for that type (it lives in the underscored `_ConnectionPoolModule`, which
    /// the server neither declares nor imports), so it is told by its type's name; every case
    /// but a cancelled request counts. `PoolErrorTests` makes a real one in milliseconds, so a
    /// rename in postgres-nio fails a test instead of turning a failover's 503 into a 500.
    static func isPoolGivingUp(_ error: any Error) -> Bool {
        guard String(reflecting: type(of: error)).hasSuffix(".ConnectionPoolError") else { return false }
        return !String(describing: error).contains("requestCancelled")
    }

    /// The database broke the request's transaction more times than the server retries it
    /// (deadlocks, serialization failures under load): nothing was written, send it again.
    static func busy(_ error: DatabaseError) -> APIError {
        var busy = APIError(.serviceUnavailable, .serverBusy, error.localizedDescription)
        busy.retryAfter = 1
        return busy
    }

    static let unauthorized = APIError(
        .unauthorized, "missing or unknown bearer token: send 'Authorization: Bearer TOKEN' (resv-server token create)")

    /// No calendar at this address: never one, or replaced by `POST /calendar/reset`.
    /// The reason does not repeat the secret.
    static let calendarNotFound = APIError(
        .notFound, .calendarNotFound, "no calendar at this address: resv calendar url prints the current one")

    static func notFound(_ id: Reservation.ID) -> APIError {
        APIError(ReservationError.reservationNotFound(id.description))
    }

    /// The one place a reservation-layer error becomes an HTTP status; the
    /// reason is the same message the file backend prints. A refused batch
    /// names each refused request (`failures`), and is a conflict when every
    /// refusal is one (no room), else a bad request; a reservation not found
    /// names its id.
    init(_ error: ReservationError) {
        self.init(Self.status(of: error), error.code, error.localizedDescription)
        switch error {
        case .batchRejected(let refused, _):
            failures = refused.map {
                Wire.failure(
                    ("request", .integer(Int64($0.index + 1))), code: $0.error.code,
                    reason: $0.error.localizedDescription)
            }
        case .reservationNotFound(let id):
            failures = [Wire.failure(("id", .string(id)), code: .reservationNotFound, reason: reason)]
        default:
            break
        }
    }

    private static func status(of error: ReservationError) -> HTTPResponse.Status {
        switch error {
        case .batchRejected(let refused, _):
            return refused.allSatisfy({ status(of: $0.error) == .conflict }) ? .conflict : .badRequest
        default:
            return switch error {
            case .unknownLandmark, .unknownLandmarkSuggesting: .notFound
            case .reservationNotFound, .seriesNotFound: .notFound
            case .noCapacity, .closed, .retired, .placesOver: .conflict
            case .cannotConfirmCancelled, .cannotModifyCancelled, .nothingToUndo, .undoConflict, .undoInPast,
                .nothingToRedo, .redoConflict, .redoInPast,
                .holdExpired, .tooManyHolds, .cannotConfirmWaitlisted, .cannotAttend, .alreadyAttended, .visitAhead:
                .conflict
            case .versionMismatch: .preconditionFailed
            case .reservationIDInUse: .unprocessableContent
            case .cursorExpired: .gone
            case .invalidDate, .invalidNote, .noteWithNUL, .nothingToModify, .dateInPast, .invalidPartySize,
                .invalidInitialStatus, .invalidHold, .holdWithWaitlist,
                .invalidRequestField, .invalidSeries, .invalidCursor,
                .invalidReservationID, .ambiguousLandmark, .ambiguousReservationID, .ambiguousSeries, .batchRejected,
                .invalidDays:
                .badRequest
            case .unexpectedCount, .unimplemented: .internalServerError
            case .refusedByServer: .badGateway
            }
        }
    }
}

extension Response {
    /// A JSON response with exactly these bytes.
    static func json(status: HTTPResponse.Status, body: [UInt8], headers: HTTPFields = [:]) -> Response {
        json(status: status, body: ByteBuffer(bytes: body), headers: headers)
    }

    static func json(status: HTTPResponse.Status, body: ByteBuffer, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        fields[.contentLength] = String(body.readableBytes)
        return Response(status: status, headers: fields, body: .init(byteBuffer: body))
    }
}

/// Answers every error in the contract's shape: a route or method that does
/// not exist (404), a body over the limit (413), a database that cannot be reached
/// or keeps breaking transactions (503 with Retry-After), anything unexpected (500,
/// logged with its detail, which the client never sees).
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            return try error.response(from: request, context: context)
        } catch let error as DatabaseError where error.isBusy {
            return try APIError.busy(error).response(from: request, context: context)
        } catch let error where APIError.isDatabaseUnreachable(error) {
            context.logger.warning(
                "the database cannot be reached", metadata: ["error": "\(error)", "path": "\(LoggedPath.of(request))"])
            return try APIError.databaseUnavailable.response(from: request, context: context)
        } catch let error as any HTTPResponseError {
            let reason: String =
                switch error.status {
                case .notFound: "no route \(request.method) \(LoggedPath.of(request))"
                case .contentTooLarge:
                    "the request body is larger than \(ReservationRoutes.bodyLimit(of: request.uri.path)) bytes"
                        + (ReservationRoutes.bodyLimit(of: request.uri.path) == ReservationRoutes.batchBodyLimit
                            ? " (a batch holds at most \(ReservationRoutes.batchLimit) requests)" : "")
                default: error.status.reasonPhrase.lowercased()
                }
            return try APIError(error.status, reason).response(from: request, context: context)
        } catch {
            context.logger.error(
                "request failed",
                metadata: ["error": "\(String(reflecting: error))", "path": "\(LoggedPath.of(request))"])
            return try APIError(.internalServerError, "internal error; the server's log has the detail")
                .response(from: request, context: context)
        }
    }
}
