import Foundation
import ReservationCore

extension ReservationService {
    /// The JSON file backend: every call reads the file afresh, every change
    /// happens under the store's lock and lands with an atomic, durable write.
    public static func jsonFile(
        _ store: JSONFileStore, now: @escaping @Sendable () -> Date
    ) -> ReservationService {
        // Every write first records the holds that have ended and the promotions
        // they make, in the same locked write as the command (DESIGN.md).
        @Sendable func write<T>(
            notes: JSONFileStore.HistoryNotes? = nil, _ rule: (LedgerTransaction, Date) async throws -> T
        ) async throws -> T {
            let at = now()
            return try await store.update(notes: notes) { transaction in
                try await Booking.expireHolds(now: at, limit: .max, in: transaction)
                return try await rule(transaction, at)
            }
        }
        var service = ReservationService(
            landmarks: { try store.header().ledger.catalog },
            fetch: { try store.snapshot().settled(at: now(), countPositions: true) },
            reserve: { requests in
                try await write { try await Booking.reserve(requests, now: $1, in: $0) }
            },
            cancel: { ids in
                try await write { try await Booking.setStatus(.cancelled, of: ids, now: $1, in: $0) }
            },
            confirm: { ids in
                try await write { try await Booking.setStatus(.confirmed, of: ids, now: $1, in: $0) }
            },
            modify: { id, change, version in
                try await write { try await Booking.modify(id, change, expectedVersion: version, now: $1, in: $0) }
            },
            history: { id, limit in try store.history(of: id, limit: limit) },
            undo: {
                let notes = JSONFileStore.HistoryNotes()
                var result = try await write(notes: notes) { try await Booking.undo(now: $1, in: $0) }
                result.skippedHistory = notes.skipped
                return result
            },
            eachChange: { id, limit, visit in try store.history(of: id, limit: limit, visit) }
        )
        // Another process's write renames a new store into place: its file's stamp tells.
        service.changes = { after, wait in
            try await ChangePage.polling(after: after, prefix: "f", wait: wait, stamp: store.stamp) {
                try store.changes(after: $0)
            }
        }
        return service
    }
}
