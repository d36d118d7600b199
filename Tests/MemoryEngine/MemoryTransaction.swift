import Foundation
import ReservationCore
import ReservationStorage

/// One write of a user's: the ledger's transaction, limited to the user's own
/// reservations and history.
final class MemoryTransaction: BookingTransaction {
    let user: UserID
    let ledger: LedgerTransaction
    private(set) var data: MemoryData
    /// The users whose history this transaction added to.
    private(set) var touched: Set<UserID> = []

    /// `ledger` is the draft of `data.ledger` the write runs on.
    init(user: UserID, data: MemoryData, ledger: LedgerTransaction) {
        self.user = user
        self.data = data
        self.ledger = ledger
    }

    /// Keeps the answer to the key with the write.
    func keep(_ response: StoredResponse, for key: IdempotencyKey) {
        data.keys[user, default: [:]][key.key] = (response, key.receivedAt)
    }

    /// Each user's entries as kept, in the order they came: as the SQL engines keep them, the
    /// stored JSON (`HistoryEntry.json`) read back, without the user (a row's, named when read).
    private func keep(_ entries: [(owner: UserID, entry: HistoryEntry)]) {
        for (owner, entry) in entries {
            var entry = HistoryEntry(json: entry.json) ?? entry
            entry.user = nil
            touched.insert(owner)
            data.history[owner, default: []].append(entry)
        }
    }

    var catalog: LandmarkCatalog { ledger.catalog }

    /// One write at a time: nothing to order.
    func lockHistory(exclusive: Bool) async throws {}

    func recordsForUpdate(_ ids: [Reservation.ID]) async throws -> [Reservation.ID: StoredReservation] {
        try await ledger.recordsForUpdate(ids.filter { data.owners[$0] == user })
    }

    func takenIDs(_ ids: [Reservation.ID]) async throws -> Set<Reservation.ID> {
        Set(ids.filter { data.owners[$0] != nil })
    }

    func booked(_ days: [BookingDay], at now: Date) async throws -> [BookingDay: Int] {
        try await ledger.booked(days, at: now)
    }

    func waitlisted(_ days: [BookingDay]) async throws -> [BookingDay: [StoredReservation]] {
        try await ledger.waitlisted(days)
    }

    func dayRules(_ days: [BookingDay]) async throws -> [BookingDay: DayRule] { try await ledger.dayRules(days) }

    func setDayRules(_ rules: [DayRule]) async throws { try await ledger.setDayRules(rules) }

    func takingPlaces(_ days: [BookingDay], at now: Date) async throws -> [BookingDay: [StoredReservation]] {
        try await ledger.takingPlaces(days, at: now)
    }

    func dueHolds(on days: [BookingDay]?, at now: Date, limit: Int) async throws -> [StoredReservation] {
        try await ledger.dueHolds(on: days, at: now, limit: limit)
    }

    /// The user's live holds in the draft, as the ledger counts them (`Reservation.isLiveHold`).
    func liveHolds(at now: Date) async throws -> Int {
        ledger.ledger.snapshot.reservations.count {
            data.owners[$0.id] == user && Reservation.isLiveHold($0.status, expiresAt: $0.expiresAt, at: now)
        }
    }

    func updateAny(_ reservations: [Reservation], entries: [HistoryEntry]) async throws {
        try await ledger.update(reservations)
        keep(entries.compactMap { entry in data.owners[entry.reservationID].map { ($0, entry) } })
    }

    func insert(_ reservations: [Reservation]) async throws {
        // An id is the key of every user's reservations: a client's own id may be taken.
        if let taken = reservations.first(where: { data.owners[$0.id] != nil }) {
            throw ReservationError.reservationIDInUse(taken.id)
        }
        try await ledger.insert(reservations)
        for reservation in reservations { data.owners[reservation.id] = user }
    }

    func update(_ reservations: [Reservation]) async throws { try await ledger.update(reservations) }

    func append(_ entries: [HistoryEntry]) async throws { keep(entries.map { (user, $0) }) }

    func commandToUndo() async throws -> [HistoryEntry] { Undo.lastCommand(in: data.history[user] ?? []) }

    func undosSinceLastCommand() async throws -> [HistoryEntry] { data.history[user] ?? [] }
}
