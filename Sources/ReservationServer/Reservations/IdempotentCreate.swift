import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import ReservationCore
import ReservationStorage

extension RouteBackend {
    /// A create under an optional `Idempotency-Key`, for `POST /reservations` and
    /// `POST /reservations/batch` alike: the body read and parsed once (for the
    /// key's hash and for the checks), a kept answer replayed, else `check` turns
    /// the body into the rule that runs under the key (and the one day it books,
    /// if it books one, for its group), and `answer` answers what it made;
    /// `keep` is the answer kept for the key.
    func idempotentCreate<Value: Sendable>(
        _ request: Request, user: UserID, route: String, bodyLimit: Int,
        check: (JSONValue) throws(APIError) -> (
            day: BookingDay?, rule: @Sendable (any BookingTransaction) async throws -> Value
        ),
        keep: @escaping @Sendable (Value, IdempotencyKey?) -> StoredResponse?,
        answer: (Value) -> Response
    ) async throws -> Response {
        let body = try await Self.body(of: request, upTo: bodyLimit)
        let json = Result { () throws(JSONSyntaxError) in try JSONValue.parse(body) }
        let key = try idempotencyKey(request.headers, route: route, body: body, json: json)
        if let key, let kept = try await store.storedResponse(user, key.key) {
            return try replay(kept, for: key)
        }
        let (day, rule) = try check(try Self.parsed(json))
        switch try await write(user, key: key, day: day, rule: rule, keep: { keep($0, key) }) {
        case .done(let created):
            return answer(created)
        case .replay(let kept):
            // Another request with this key committed first.
            guard let key else { throw APIError(.internalServerError, "a replay without an Idempotency-Key") }
            return try replay(kept, for: key)
        }
    }

    /// A change of reservations under an optional `Idempotency-Key` (PATCH, DELETE and confirm
    /// of one, the cancels and confirms of several, undo): a kept answer is replayed; else the
    /// rule runs and its answer is kept with the key in the same transaction, so a change whose
    /// answer was lost and is sent again is made once and answered as it was the first time,
    /// on every engine and instance (a second sending while the first runs waits for it on the
    /// key's lock). A refusal is not kept: it changed nothing, and a second sending is decided
    /// afresh. The key's request is the method, the path and the body.
    func keyedChange<Value: Sendable>(
        _ request: Request, body: Data, user: UserID,
        rule: @escaping @Sendable (any BookingTransaction) async throws -> Value,
        answer: @escaping @Sendable (Value) -> (status: HTTPResponse.Status, body: [UInt8]),
        headers: (_ body: [UInt8]) -> HTTPFields = { _ in [:] }
    ) async throws -> Response {
        let route = "\(request.method) \(request.uri.path)"
        let json = Result { () throws(JSONSyntaxError) in try JSONValue.parse(body) }
        let key = try idempotencyKey(request.headers, route: route, body: body, json: json)
        if let key, let kept = try await store.storedResponse(user, key.key) {
            return try replay(kept, for: key, headers: headers(kept.body))
        }
        let written = try await write(
            user, key: key, rule: rule,
            keep: { value in
                guard let key else { return nil }
                let (status, body) = answer(value)
                return StoredResponse(status: Int(status.code), body: body, requestHash: key.requestHash)
            })
        switch written {
        case .done(let value):
            let (status, body) = answer(value)
            return .json(status: status, body: body, headers: headers(body))
        case .replay(let kept):
            guard let key else { throw APIError(.internalServerError, "a replay without an Idempotency-Key") }
            return try replay(kept, for: key, headers: headers(kept.body))
        }
    }

    /// The request's `Idempotency-Key` with a hash of what was asked: the body
    /// as canonical JSON when it parses (so spacing and key order do not make a
    /// different request), else its bytes.
    private func idempotencyKey(
        _ headers: HTTPFields, route: String, body: Data, json: Result<JSONValue, JSONSyntaxError>
    ) throws(APIError) -> IdempotencyKey? {
        guard let key = headers[.idempotencyKey] else { return nil }
        let longest = ReservationRoutes.maxKeyLength
        guard (1...longest).contains(key.utf8.count), key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw APIError(.badRequest, "Idempotency-Key must be 1 to \(longest) visible ASCII characters")
        }
        let canonical = (try? json.get().encoded()) ?? body
        var hash = SHA256()
        hash.update(data: Array((route + "\n").utf8))
        hash.update(data: canonical)
        return IdempotencyKey(key: key, requestHash: Hex.string(hash.finalize()), receivedAt: now())
    }

    private func replay(_ kept: StoredResponse, for key: IdempotencyKey, headers more: HTTPFields = [:])
        throws(APIError) -> Response
    {
        guard kept.requestHash == key.requestHash else {
            throw APIError(
                .unprocessableContent, .idempotencyKeyReused,
                "Idempotency-Key '\(key.key)' was already used with a different request; use a new key")
        }
        var headers = more
        headers[.idempotentReplayed] = "true"
        let status: HTTPResponse.Status = kept.status == 201 ? .created : .init(code: kept.status)
        return .json(status: status, body: kept.body, headers: headers)
    }

    /// The answer to keep for an idempotency key: what a create of one (its
    /// first) or of a batch (all) answers.
    static func kept(_ created: [Reservation], status: Int, key: IdempotencyKey?, batch: Bool = false)
        -> StoredResponse?
    {
        guard let key, let first = created.first else { return nil }
        return StoredResponse(
            status: status, body: batch ? Wire.body(created) : Wire.body(first), requestHash: key.requestHash)
    }
}

extension HTTPField.Name {
    static let idempotencyKey = Self("Idempotency-Key")!
    static let idempotentReplayed = Self("Idempotent-Replayed")!
}
