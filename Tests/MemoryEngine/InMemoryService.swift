import Foundation
import ReservationCore
import ReservationStorage

extension ReservationService {
    /// A backend held in memory that behaves like a real one: what you reserve
    /// is there, what you cancel is cancelled, and records that do not map stay
    /// reported, never removed. It is the memory engine (`MemoryStore`) with one
    /// user, who owns every record: the rules run in its writes, its history and
    /// feed are the user's.
    public static func inMemory(
        records: [JSONValue] = [], catalog: LandmarkCatalog = .builtIn,
        now: @escaping @Sendable () -> Date, clock: WaitClock
    ) -> ReservationService {
        let (engine, user) = MemoryEngine.ofOneUser(records: records, catalog: catalog, now: now)
        // As the file store: each write first records the holds that have ended.
        @Sendable func write<T: Sendable>(_ rule: @escaping @Sendable (MemoryTransaction, Date) async throws -> T)
            async throws -> T
        {
            let at = now()
            return try await engine.write(user, catalog) { transaction in
                try await Booking.expireHolds(now: at, limit: .max, in: transaction)
                return try await rule(transaction, at)
            }
        }
        var service = ReservationService(
            landmarks: { catalog },
            // As the file store, a read settles the holds that have ended first (a write that may write nothing).
            fetch: { try await write { $0.snapshot.settled(at: $1, countPositions: true) } },
            reserve: { requests in try await write { try await Booking.reserve(requests, now: $1, in: $0) } },
            cancel: { ids in try await write { try await Booking.setStatus(.cancelled, of: ids, now: $1, in: $0) } },
            confirm: { ids in try await write { try await Booking.setStatus(.confirmed, of: ids, now: $1, in: $0) } },
            modify: { id, change, version in
                try await write { try await Booking.modify(id, change, expectedVersion: version, now: $1, in: $0) }
            },
            history: { id, limit in try await engine.history(user, id, limit) },
            undo: { try await write { try await Booking.undo(now: $1, in: $0) } },
            availability: { text, days in
                let (snapshot, rules, at) = try await write { transaction, at in
                    (transaction.snapshot, Array(transaction.ledger.ledger.rules.values), at)
                }
                let landmark = try snapshot.catalog.landmark(matching: text)
                return LandmarkAvailability(
                    landmark: landmark,
                    days: Capacity.availability(
                        of: landmark, on: try days(landmark), reservations: snapshot.reservations, at: at, rules: rules)
                )
            }
        )
        service.redo = { try await write { try await Booking.redo(now: $1, in: $0) } }
        service.attend = { id, status in try await write { try await Booking.attend(id, as: status, now: $1, in: $0) } }
        service.manifest = { text, day in
            let (snapshot, at) = try await write { transaction, at in (transaction.snapshot, at) }
            return try DayManifest(of: text, on: day, in: snapshot, owner: "", at: at)
        }
        service.changeDays = { landmark, days, change, overflow in
            try await write {
                try await Booking.changeDays(change, at: landmark, days: days, overflow: overflow, now: $1, in: $0)
            }
        }
        // Change number n is the user's n-th (`MemoryEngine.changes`).
        service.changes = { after, wait in
            try await ChangePage.polling(
                after: after, prefix: "m", wait: wait, clock: clock, stamp: { engine.newest(user) },
                read: { sequence in
                    let newest = Int(engine.newest(user))
                    guard let sequence else { return ([], newest) }
                    guard sequence <= newest else { throw ReservationError.cursorExpired }
                    let found = engine.numbered(user, after: Int64(sequence), limit: .max)
                    return (found.map { (sequence: Int($0.sequence), entry: $0.entry) }, newest)
                })
        }
        return service
    }
}

extension MemoryEngine {
    /// An engine of one user, who owns every record of `records` that maps (the client's memory backend).
    static func ofOneUser(records: [JSONValue], catalog: LandmarkCatalog, now: @escaping @Sendable () -> Date)
        -> (engine: MemoryEngine, user: UserID)
    {
        let user = UserID(1)
        var data = MemoryData(ledger: ReservationLedger(records: records, catalog: catalog))
        for reservation in data.ledger.snapshot.reservations { data.owners[reservation.id] = user }
        let engine = MemoryEngine(state: MemoryState(data), turns: OneAtATime(), signal: ChangeSignal(), now: now)
        return (engine, user)
    }
}

extension MemoryTransaction {
    /// What the draft's records map to now.
    var snapshot: ReservationSnapshot { ledger.ledger.snapshot }
}
