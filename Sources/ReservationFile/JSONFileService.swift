import Foundation
import ReservationCore
import Synchronization

extension ReservationService {
    /// The JSON file backend: every call reads the file afresh, every change
    /// happens under the store's lock and lands with an atomic, durable write.
    public static func jsonFile(
        _ store: JSONFileStore, now: @escaping @Sendable () -> Date, clock: WaitClock
    ) -> ReservationService {
        let file = JSONFileBackend(store: store, now: now, clock: clock)
        var service = ReservationService(
            landmarks: { try store.header().ledger.catalog },
            fetch: { try await file.read() },
            reserve: { requests in
                try await file.write { try await Booking.reserve(requests, now: $1, in: $0) }
            },
            cancel: { ids in
                try await file.write { try await Booking.setStatus(.cancelled, of: ids, now: $1, in: $0) }
            },
            confirm: { ids in
                try await file.write { try await Booking.setStatus(.confirmed, of: ids, now: $1, in: $0) }
            },
            modify: { id, change, version in
                try await file.write {
                    try await Booking.modify(id, change, expectedVersion: version, now: $1, in: $0)
                }
            },
            history: { id, limit in try await file.history(of: id, limit: limit) },
            undo: { try await file.writeUndo { try await Booking.undo(now: $1, in: $0) } },
            availability: { text, days in try await file.availability(at: text, on: days) },
            eachChange: { id, limit, visit in try await file.eachChange(of: id, limit: limit, visit) }
        )
        service.manifest = { text, day in try await file.manifest(of: text, on: day) }
        service.attend = { id, status in
            try await file.write { try await Booking.attend(id, as: status, now: $1, in: $0) }
        }
        // The store's owner is its admin: every change of days is theirs to make.
        service.changeDays = { landmark, days, change, overflow in
            try await file.write {
                try await Booking.changeDays(change, at: landmark, days: days, overflow: overflow, now: $1, in: $0)
            }
        }
        service.redo = { try await file.writeUndo { try await Booking.redo(now: $1, in: $0) } }
        service.changes = { after, wait in try await file.changes(after: after, wait: wait) }
        return service
    }
}

/// The steps `ReservationService.jsonFile` is made of, each over the one store and clock.
private struct JSONFileBackend: Sendable {
    let store: JSONFileStore
    let now: @Sendable () -> Date
    let clock: WaitClock

    /// Every write first records the holds that have ended and the promotions
    /// they make, in the same locked write as the command (docs/contracts.md).
    func write<T>(
        notes: JSONFileStore.HistoryNotes? = nil, _ rule: (LedgerTransaction, Date) async throws -> T
    ) async throws -> T {
        let at = now()
        return try await store.update(notes: notes) { transaction in
            try await Booking.expireHolds(now: at, limit: .max, in: transaction)
            return try await rule(transaction, at)
        }
    }

    /// An undo or a redo: a write that also tells how many history lines it skipped.
    func writeUndo(_ rule: (LedgerTransaction, Date) async throws -> UndoResult) async throws -> UndoResult {
        let notes = JSONFileStore.HistoryNotes()
        var result = try await write(notes: notes, rule)
        result.skippedHistory = notes.skipped
        return result
    }

    /// No server ends holds on a file: every read settles them first, as a write would.
    func read() async throws -> ReservationSnapshot {
        try await store.settledSnapshot(at: now()).snapshot
    }

    func history(of id: Reservation.ID?, limit: Int?) async throws -> [HistoryEntry] {
        _ = try await store.settledSnapshot(at: now())
        return try store.history(of: id, limit: limit)
    }

    func eachChange(
        of id: Reservation.ID?, limit: Int?, _ visit: (HistoryEntry) throws -> Bool
    ) async throws -> Int {
        _ = try await store.settledSnapshot(at: now())
        return try store.history(of: id, limit: limit, visit)
    }

    func availability(
        at text: String, on days: @Sendable (Landmark) throws -> [CalendarDay]
    ) async throws -> LandmarkAvailability {
        let at = now()
        let snapshot = try await store.settledSnapshot(at: at).snapshot
        let landmark = try snapshot.catalog.landmark(matching: text)
        let rules = Array(try store.header().ledger.rules.values)
        return LandmarkAvailability(
            landmark: landmark,
            days: Capacity.availability(
                of: landmark, on: try days(landmark), reservations: snapshot.reservations, at: at, rules: rules))
    }

    /// The store's owner is its admin: the user running resv, every party theirs.
    func manifest(of text: String, on day: @Sendable (Landmark) throws -> CalendarDay) async throws -> DayManifest {
        let at = now()
        let snapshot = try await store.settledSnapshot(at: at).snapshot
        return try DayManifest(of: text, on: day, in: snapshot, owner: ProcessInfo.processInfo.userName, at: at)
    }

    /// Another process's write renames a new store into place: its file's stamp tells.
    /// A hold that ends while a watcher waits is a change too: once the clock
    /// passes the next hold's end, that end (and the promotions it makes) is
    /// recorded, and read as the store's change.
    func changes(after: String?, wait: Duration) async throws -> ChangePage {
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
}
