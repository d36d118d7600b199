import Foundation
import ReservationCore
import Synchronization

extension ReservationService {
    /// The JSON file backend: every call reads the file afresh, every change
    /// happens under the store's lock and lands with an atomic, durable write.
    public static func jsonFile(
        _ store: JSONFileStore, now: @escaping @Sendable () -> Date, clock: WaitClock
    ) -> ReservationService {
        // Every write first records the holds that have ended and the promotions
        // they make, in the same locked write as the command (docs/contracts.md).
        @Sendable func write<T>(
            notes: JSONFileStore.HistoryNotes? = nil, _ rule: (LedgerTransaction, Date) async throws -> T
        ) async throws -> T {
            let at = now()
            return try await store.update(notes: notes) { transaction in
                try await Booking.expireHolds(now: at, limit: .max, in: transaction)
                return try await rule(transaction, at)
            }
        }
        // No server ends holds on a file: every read settles them first, as a write would.
        @Sendable func read() async throws -> ReservationSnapshot {
            try await store.settledSnapshot(at: now()).snapshot
        }
        var service = ReservationService(
            landmarks: { try store.header().ledger.catalog },
            fetch: read,
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
            history: { id, limit in
                _ = try await store.settledSnapshot(at: now())
                return try store.history(of: id, limit: limit)
            },
            undo: {
                let notes = JSONFileStore.HistoryNotes()
                var result = try await write(notes: notes) { try await Booking.undo(now: $1, in: $0) }
                result.skippedHistory = notes.skipped
                return result
            },
            availability: { text, days in
                let at = now()
                let snapshot = try await store.settledSnapshot(at: at).snapshot
                let landmark = try snapshot.catalog.landmark(matching: text)
                let rules = Array(try store.header().ledger.rules.values)
                return LandmarkAvailability(
                    landmark: landmark,
                    days: Capacity.availability(
                        of: landmark, on: try days(landmark), reservations: snapshot.reservations, at: at,
                        rules: rules))
            },
            eachChange: { id, limit, visit in
                _ = try await store.settledSnapshot(at: now())
                return try store.history(of: id, limit: limit, visit)
            }
        )
        // The store's owner is its admin: the user running resv, every party theirs.
        service.manifest = { text, day in
            let at = now()
            let snapshot = try await store.settledSnapshot(at: at).snapshot
            return try DayManifest(of: text, on: day, in: snapshot, owner: ProcessInfo.processInfo.userName, at: at)
        }
        service.attend = { id, status in
            try await write { try await Booking.attend(id, as: status, now: $1, in: $0) }
        }
        // The store's owner is its admin: every change of days is theirs to make.
        service.changeDays = { landmark, days, change, overflow in
            try await write {
                try await Booking.changeDays(change, at: landmark, days: days, overflow: overflow, now: $1, in: $0)
            }
        }
        service.redo = {
            let notes = JSONFileStore.HistoryNotes()
            var result = try await write(notes: notes) { try await Booking.redo(now: $1, in: $0) }
            result.skippedHistory = notes.skipped
            return result
        }
        // Another process's write renames a new store into place: its file's stamp tells.
        // A hold that ends while a watcher waits is a change too: once the clock
        // passes the next hold's end, that end (and the promotions it makes) is
        // recorded, and read as the store's change.
        service.changes = { after, wait in
            let nextHoldEnd = Mutex<Date?>(nil)
            return try await ChangePage.polling(
                after: after, prefix: "f", wait: wait, clock: clock,
                stamp: {
                    let ended = nextHoldEnd.withLock { $0 }.map { $0 <= now() } ?? false
                    return (store.stamp() ?? []) + [ended ? 1 : 0]
                },
                prepare: {
                    let end = try await store.settledSnapshot(at: now()).nextHoldEnd
                    nextHoldEnd.withLock { $0 = end }
                },
                read: { try store.changes(after: $0) })
        }
        return service
    }
}
