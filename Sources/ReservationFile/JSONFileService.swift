import Foundation
import ReservationCore

extension ReservationService {
    /// The JSON file backend: every call reads the file afresh, every change
    /// happens under the store's lock and lands with an atomic, durable write.
    public static func jsonFile(
        _ store: JSONFileStore, now: @escaping @Sendable () -> Date
    ) -> ReservationService {
        ReservationService(
            landmarks: { try store.header().ledger.catalog },
            fetch: { try store.snapshot() },
            reserve: { requests in
                try await store.update { try await Booking.reserve(requests, now: now(), in: $0) }
            },
            cancel: { ids in
                try await store.update { try await Booking.setStatus(.cancelled, of: ids, now: now(), in: $0) }
            },
            confirm: { ids in
                try await store.update { try await Booking.setStatus(.confirmed, of: ids, now: now(), in: $0) }
            },
            modify: { id, change, version in
                try await store.update {
                    try await Booking.modify(id, change, expectedVersion: version, now: now(), in: $0)
                }
            },
            history: { id, limit in try store.history(of: id, limit: limit) },
            undo: {
                let notes = JSONFileStore.HistoryNotes()
                var result = try await store.update(notes: notes) { try await Booking.undo(now: now(), in: $0) }
                result.skippedHistory = notes.skipped
                return result
            },
            eachChange: { id, limit, visit in try store.history(of: id, limit: limit, visit) }
        )
    }
}
