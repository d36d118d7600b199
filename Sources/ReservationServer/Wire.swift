import Foundation
import ReservationCore

/// The JSON bodies the server sends, written with the core's `JSONWriter`
/// (compact, sorted keys): the same shapes the client's mapping reads.
enum Wire {
    static func body(_ reservation: StoredReservation) -> [UInt8] {
        var writer = JSONWriter(pretty: false, capacity: 160)
        write(reservation, to: &writer)
        return writer.take()
    }

    static func body(_ reservations: [StoredReservation]) -> [UInt8] {
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

    static func errorBody(_ reason: String) -> [UInt8] {
        .init(JSONValue.object(["error": .bool(true), "reason": .string(reason)]).encoded())
    }

    private static func write(_ reservation: StoredReservation, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("date", first: true, depth: 0)
        writer.write(string: reservation.date)
        writer.key("id", depth: 0)
        writer.write(string: reservation.id.description)
        writer.key("landmarkId", depth: 0)
        writer.write(string: reservation.landmarkID.description)
        writer.key("partySize", depth: 0)
        writer.write(reservation.partySize)
        writer.key("status", depth: 0)
        writer.write(string: reservation.status.rawValue)
        writer.endObject(depth: 0)
    }
}
