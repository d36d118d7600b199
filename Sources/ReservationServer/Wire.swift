import Foundation
import ReservationCore
import ReservationStorage

/// The JSON bodies the server sends, written with the core's `JSONWriter`
/// (compact, sorted keys): the same shapes the client's mapping reads.
enum Wire {
    static func body(_ reservation: Reservation) -> [UInt8] { body(ReservationApiModel(reservation)) }

    static func body(_ reservations: [Reservation]) -> [UInt8] { body(reservations.map(ReservationApiModel.init)) }

    static func body(_ reservation: ReservationApiModel) -> [UInt8] {
        var writer = JSONWriter(pretty: false, capacity: 160)
        write(reservation, to: &writer)
        return writer.take()
    }

    static func body(_ reservations: [ReservationApiModel]) -> [UInt8] {
        var writer = JSONWriter(pretty: false, capacity: 160 * reservations.count + 2)
        writer.append("[")
        for (index, reservation) in reservations.enumerated() {
            if index > 0 { writer.append(",") }
            write(reservation, to: &writer)
        }
        writer.append("]")
        return writer.take()
    }

    static func body(_ landmarks: [Landmark]) -> [UInt8] {
        .init(JSONValue.array(landmarks.map { LandmarkApiModel($0).json }).encoded())
    }

    static func body(_ days: [DayAvailability]) -> [UInt8] {
        .init(JSONValue.array(days.map(\.json)).encoded())
    }

    static func errorBody(
        _ reason: String, code: ErrorCode, failures: [JSONValue] = [], scope: TokenScope? = nil
    ) -> [UInt8] {
        var body: [String: JSONValue] = [
            "error": .bool(true), "reason": .string(reason), "code": .string(code.rawValue),
        ]
        if !failures.isEmpty { body["failures"] = .array(failures) }
        if let scope { body["scope"] = .string(scope.rawValue) }
        return .init(JSONValue.object(body).encoded())
    }

    /// A refused item of a batch: `{"request": n}` (from 1) or `{"id": …}`, its code and reason.
    static func failure(_ item: (String, JSONValue), code: ErrorCode, reason: String) -> JSONValue {
        .object([item.0: item.1, "code": .string(code.rawValue), "reason": .string(reason)])
    }

    /// The answer of a cancel or confirm of several: each reservation now, with its status before.
    static func body(_ changes: [StatusChange]) -> [UInt8] {
        var writer = JSONWriter(pretty: false, capacity: 190 * changes.count + 2)
        writer.append("[")
        for (index, change) in changes.enumerated() {
            if index > 0 { writer.append(",") }
            writer.beginObject()
            writer.key("previousStatus", first: true, depth: 0)
            writer.write(string: change.previous.rawValue)
            writer.key("reservation", depth: 0)
            write(ReservationApiModel(change.reservation), to: &writer)
            writer.endObject(depth: 0)
        }
        writer.append("]")
        return writer.take()
    }

    /// A stored record, every field present (the server wrote it).
    private static func write(_ reservation: ReservationApiModel, to writer: inout JSONWriter) {
        writer.writeReservation(reservation, depth: 0)
    }
}
