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
        _ request: Request, as acting: Acting, route: String, bodyLimit: Int,
        check: (JSONValue) throws(APIError) -> (
            day: BookingDay?, rule: @Sendable (any BookingTransaction) async throws -> Value
        ),
        keep: @escaping @Sendable (Value, IdempotencyKey?) -> StoredResponse?,
        answer: (Value) -> Response
    ) async throws -> Response {
        let body = try await Self.body(of: request, upTo: bodyLimit)
        let json = Result { () throws(JSONSyntaxError) in try JSONValue.parse(body) }
        let key = try idempotencyKey(request.headers, route: route, body: body, json: json)
        if let key, let kept = try await store.storedResponse(acting.owner, key.key) {
            return try replay(kept, for: key)
        }
        let (day, rule) = try check(try Self.parsed(json))
        switch try await write(acting, key: key, day: day, rule: rule, keep: { keep($0, key) }) {
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
        _ request: Request, body: Data, as acting: Acting,
        rule: @escaping @Sendable (any BookingTransaction) async throws -> Value,
        answer: @escaping @Sendable (Value) -> (status: HTTPResponse.Status, body: [UInt8]),
        headers: (_ body: [UInt8]) -> HTTPFields = { _ in [:] }
    ) async throws -> Response {
        let route = "\(request.method) \(request.uri.path)"
        let json = Result { () throws(JSONSyntaxError) in try JSONValue.parse(body) }
        let key = try idempotencyKey(request.headers, route: route, body: body, json: json)
        if let key, let kept = try await store.storedResponse(acting.owner, key.key) {
            return try replay(kept, for: key, headers: headers(kept.body))
        }
        let written = try await write(
            acting, key: key, rule: rule,
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

    /// `POST /settle` `{"key": K}`: what became of the user's change sent under `K` whose
    /// answer never came. Kept: `{"key", "made": true, "status", "answer"}`, the first answer.
    /// Not kept (never arrived, refused, or not yet run): the key is settled instead, in a
    /// write under the key's lock (after a sending still running has finished), so a copy of
    /// the change that arrives later is never made (409 `keySettled`): `{"key", "made": false}`.
    /// Asked twice, the same answer.
    func settle(_ request: Request, as acting: Acting) async throws -> Response {
        let json = try await Self.json(of: request, upTo: ReservationRoutes.bodyLimit)
        guard case .string(let text)? = json["key"] else {
            throw APIError(.badRequest, .invalidRequest, "the body must be {\"key\": \"<Idempotency-Key>\"}")
        }
        let longest = ReservationRoutes.maxKeyLength
        guard (1...longest).contains(text.utf8.count), text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw APIError(.badRequest, .invalidRequest, "key must be 1 to \(longest) visible ASCII characters")
        }
        let key = IdempotencyKey(key: text, requestHash: IdempotencyKey.settled, receivedAt: now())
        let settled = StoredResponse(
            status: 409, body: Wire.errorBody(Self.settledReason(text), code: .keySettled),
            requestHash: IdempotencyKey.settled)
        let written = try await write(acting, key: key, rule: { _ in true }, keep: { _ in settled })
        var answer: [String: JSONValue] = ["key": .string(text), "made": .bool(false)]
        if case .replay(let kept) = written, kept.requestHash != IdempotencyKey.settled {
            answer["made"] = .bool(true)
            answer["status"] = .integer(Int64(kept.status))
            answer["answer"] = (try? JSONValue.parse(Data(kept.body))) ?? .null
        }
        return .json(status: .ok, body: [UInt8](JSONValue.object(answer).encoded()))
    }

    static func settledReason(_ key: String) -> String {
        "Idempotency-Key '\(key)' was settled as not made by its client after its answer was lost: "
            + "this change was not made; send it again under a new key"
    }

    private func replay(_ kept: StoredResponse, for key: IdempotencyKey, headers more: HTTPFields = [:])
        throws(APIError) -> Response
    {
        if kept.requestHash == IdempotencyKey.settled {
            throw APIError(.conflict, .keySettled, Self.settledReason(key.key))
        }
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

extension IdempotencyKey {
    /// The request hash of a key settled as not made (`POST /settle`): no request's hash is it.
    static let settled = "settled"
}

extension HTTPField.Name {
    static let idempotencyKey = Self("Idempotency-Key")!
    static let idempotentReplayed = Self("Idempotent-Replayed")!
}
