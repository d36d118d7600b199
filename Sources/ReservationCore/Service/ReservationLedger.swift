import Foundation

/// The records of a store, as the file and memory engines keep them: what
/// `Booking`'s rules read and write through a `LedgerTransaction`. It edits
/// records in place, so fields the tool does not know and records that do not
/// map survive every change.
public struct ReservationLedger: Sendable {
    /// The records exactly as stored, valid or not.
    public private(set) var records: [JSONValue]
    /// Counts changes, so a store writes only when there is something to write.
    public private(set) var revision = 0
    /// Every change, oldest first, as stored (entries this version cannot read are kept as they are).
    public private(set) var history: [JSONValue]
    public let catalog: LandmarkCatalog
    /// The landmark-days' own rules (`DayRule`) exactly as stored, valid or not: a rule is
    /// edited in place, so fields this version does not know survive.
    public private(set) var dayRules: [JSONValue]
    fileprivate var reservations: [Reservation]
    private let rejected: [RejectedRecord]
    /// For each reservation, the index of the record it maps from. A change finds
    /// its reservation by a scan, which costs less than building an index of
    /// every id for a command that changes one or two.
    private var positions: [Int]

    public init(records: [JSONValue], history: [JSONValue] = [], catalog: LandmarkCatalog, dayRules: [JSONValue] = []) {
        let mapped = ReservationSnapshot.map(records, catalog: catalog)
        self.records = records
        self.dayRules = dayRules
        self.history = history
        self.catalog = catalog
        self.reservations = mapped.reservations
        self.rejected = mapped.rejected
        self.positions = mapped.positions
    }

    /// What the records map to now.
    public var snapshot: ReservationSnapshot {
        ReservationSnapshot(reservations: reservations, rejected: rejected, catalog: catalog)
    }

    /// Appends new reservations' records.
    fileprivate mutating func append(_ new: [Reservation]) {
        records.reserveCapacity(records.count + new.count)
        reservations.reserveCapacity(reservations.count + new.count)
        positions.reserveCapacity(positions.count + new.count)
        for reservation in new {
            positions.append(records.count)
            var record = ReservationApiModel(reservation)
            record.waitlistPosition = nil  // counted when read, never stored
            records.append(record.json)
            reservations.append(reservation)
        }
        revision += new.count
    }

    /// The rules that read (`DayRule(json:)`), by their key.
    public var rules: [String: DayRule] {
        var found: [String: DayRule] = [:]
        for json in dayRules { if let rule = DayRule(json: json) { found[rule.key] = rule } }
        return found
    }

    /// Stores a day's rule in place of the one with its key (fields of its record this
    /// version does not know are kept); an empty rule removes the day's.
    fileprivate mutating func store(_ rule: DayRule) {
        let index = dayRules.firstIndex { DayRule(json: $0)?.key == rule.key }
        if rule.isEmpty {
            if let index { dayRules.remove(at: index) }
        } else if let index {
            var record = dayRules[index]
            let fields = rule.json
            for key in ["capacity", "closed"] { record[key] = fields[key] }
            dayRules[index] = record
        } else {
            dayRules.append(rule.json)
        }
        revision += 1
    }

    /// Appends changes to the history, in the same write as the change.
    fileprivate mutating func record(_ entries: [HistoryEntry]) {
        history.append(contentsOf: entries.map(\.json))
    }

    /// The index in `reservations` of each id.
    fileprivate func indexes(of ids: some Collection<Reservation.ID>) -> [Reservation.ID: Int] {
        var found: [Reservation.ID: Int] = [:]
        // A scan per id costs less than an index of every id for a command that changes one or two.
        if ids.count <= 8 {
            for id in ids { if let index = reservations.firstIndex(where: { $0.id == id }) { found[id] = index } }
            return found
        }
        let wanted = Set(ids)
        for (index, reservation) in reservations.enumerated() where wanted.contains(reservation.id) {
            if found[reservation.id] == nil { found[reservation.id] = index }
        }
        return found
    }

    /// Puts a changed reservation in its record, editing only the fields the
    /// tool owns, so unknown fields stay.
    fileprivate mutating func write(_ reservation: Reservation, at index: Int) {
        let position = positions[index]
        let fields = ReservationApiModel(reservation).json
        for key in ReservationField.ledgerKeys {
            records[position][key] = fields[key]
        }
        // A "note" that is not text belongs to someone else (an older tool): left as it is.
        if let note = reservation.note {
            records[position]["note"] = .string(note)
        } else if case .string? = records[position]["note"] {
            records[position]["note"] = nil
        }
        reservations[index] = reservation
        revision += 1
    }
}

/// What a modify changes: each field given replaces the reservation's; an
/// empty note removes it. Checked without a backend (party size, note length,
/// at least one field); the landmark stays as the user gave it and the backend
/// resolves it.
public struct ReservationChange: Sendable, Hashable {
    public let date: Date?
    public let partySize: Int?
    public let landmark: String?
    public let note: String?

    public init(date: Date? = nil, partySize: Int? = nil, landmark: String? = nil, note: String? = nil)
        throws(ReservationError)
    {
        guard date != nil || partySize != nil || landmark != nil || note != nil else { throw .nothingToModify }
        if let partySize, !Reservation.partySizes.contains(partySize) { throw .invalidPartySize(partySize) }
        if let note { try Reservation.checkNewNote(note) }
        self.date = date
        self.partySize = partySize
        self.landmark = landmark
        self.note = note
    }
}

/// One change of a ledger, for `Booking`'s rules: it works on a draft, which
/// the engine keeps (and writes) only when the rule returns.
public final class LedgerTransaction: BookingTransaction {
    public private(set) var ledger: ReservationLedger
    /// Where the history before this change is, when not in the ledger (the file's journal).
    private let lastCommand: (() throws -> [HistoryEntry])?
    private let undos: (() throws -> [HistoryEntry])?

    /// `lastCommand` and `undos`, when given, answer `commandToUndo` and
    /// `undosSinceLastCommand` from history kept outside the ledger; the
    /// ledger's history then holds only this change's entries.
    public init(
        _ ledger: ReservationLedger, lastCommand: (() throws -> [HistoryEntry])? = nil,
        undos: (() throws -> [HistoryEntry])? = nil
    ) {
        self.ledger = ledger
        self.lastCommand = lastCommand
        self.undos = undos
    }

    public var catalog: LandmarkCatalog { ledger.catalog }

    /// One process holds the store (its lock, or the actor of memory): nothing to order.
    public func lockHistory(exclusive: Bool) async throws {}

    public func recordsForUpdate(_ ids: [Reservation.ID]) async throws -> [Reservation.ID: StoredReservation] {
        let reservations = ledger.reservations
        return ledger.indexes(of: ids).mapValues { StoredReservation(reservations[$0]) }
    }

    public func takenIDs(_ ids: [Reservation.ID]) async throws -> Set<Reservation.ID> {
        Set(ledger.indexes(of: ids).keys)
    }

    public func booked(_ days: [BookingDay], at now: Date) async throws -> [BookingDay: Int] {
        var totals = Dictionary(uniqueKeysWithValues: days.map { ($0, 0) })
        for (day, reservation) in on(days)
        where reservation.countsTowardCapacity(at: now) {
            totals[day, default: 0] += reservation.partySize
        }
        return totals
    }

    public func waitlisted(_ days: [BookingDay]) async throws -> [BookingDay: [StoredReservation]] {
        var lists: [BookingDay: [Reservation]] = [:]
        for (day, reservation) in on(days) where reservation.status == .waitlisted {
            lists[day, default: []].append(reservation)
        }
        return lists.mapValues { list in
            list.sorted {
                Reservation.waitlistPrecedes(
                    order: $0.waitlistOrder, id: $0.id.description, $1.waitlistOrder, id: $1.id.description)
            }
            .map(StoredReservation.init)
        }
    }

    public func dayRules(_ days: [BookingDay]) async throws -> [BookingDay: DayRule] {
        guard !days.isEmpty, !ledger.dayRules.isEmpty else { return [:] }
        let rules = ledger.rules
        var found: [BookingDay: DayRule] = [:]
        for day in days {
            if let calendarDay = day.calendarDay, let rule = rules["\(day.landmark) \(calendarDay)"] {
                found[day] = rule
            }
        }
        return found
    }

    public func setDayRules(_ rules: [DayRule]) async throws {
        for rule in rules { ledger.store(rule) }
    }

    public func takingPlaces(_ days: [BookingDay], at now: Date) async throws -> [BookingDay: [StoredReservation]] {
        // Ties of the same second go in the order the records were added: the order of booking.
        var lists: [BookingDay: [(index: Int, reservation: Reservation)]] = [:]
        for (index, (day, reservation)) in on(days).enumerated() where reservation.countsTowardCapacity(at: now) {
            lists[day, default: []].append((index, reservation))
        }
        return lists.mapValues { list in
            list.sorted {
                ($0.reservation.createdAt ?? .distantPast, $0.index) < (
                    $1.reservation.createdAt ?? .distantPast, $1.index
                )
            }
            .map { StoredReservation($0.reservation) }
        }
    }

    public func dueHolds(on days: [BookingDay]?, at now: Date, limit: Int) async throws -> [StoredReservation] {
        func due(_ reservation: Reservation) -> Bool {
            Reservation.holdEnded(reservation.status, expiresAt: reservation.expiresAt, at: now)
        }
        guard let days else {
            return ledger.reservations.lazy.filter(due).prefix(max(0, limit)).map(StoredReservation.init)
        }
        return on(days).lazy.map(\.reservation).filter(due).prefix(max(0, limit)).map(StoredReservation.init)
    }

    public func liveHolds(at now: Date) async throws -> Int {
        ledger.reservations.count { Reservation.isLiveHold($0.status, expiresAt: $0.expiresAt, at: now) }
    }

    public func updateAny(_ reservations: [Reservation], entries: [HistoryEntry]) async throws {
        try await update(reservations)
        try await append(entries)
    }

    /// The reservations on any of `days` (sorted), each with its day: one pass
    /// over the reservations, each found among its landmark's days by a binary search.
    private func on(_ days: [BookingDay]) -> [(day: BookingDay, reservation: Reservation)] {
        guard !days.isEmpty else { return [] }
        let byLandmark = Dictionary(grouping: days, by: \.landmark)
        var found: [(day: BookingDay, reservation: Reservation)] = []
        for reservation in ledger.reservations {
            guard let candidates = byLandmark[reservation.landmark.id] else { continue }
            var low = 0
            var high = candidates.count
            while low < high {
                let middle = (low + high) / 2
                if candidates[middle].day.end <= reservation.date { low = middle + 1 } else { high = middle }
            }
            guard low < candidates.count, candidates[low].contains(reservation.landmark.id, reservation.date) else {
                continue
            }
            found.append((candidates[low], reservation))
        }
        return found
    }

    public func insert(_ reservations: [Reservation]) async throws { ledger.append(reservations) }

    public func update(_ reservations: [Reservation]) async throws {
        let indexes = ledger.indexes(of: reservations.map(\.id))
        for reservation in reservations {
            guard let index = indexes[reservation.id] else {
                throw ReservationError.reservationNotFound(reservation.id.description)
            }
            ledger.write(reservation, at: index)
        }
    }

    public func append(_ entries: [HistoryEntry]) async throws { ledger.record(entries) }

    public func commandToUndo() async throws -> [HistoryEntry] {
        if let lastCommand { return try lastCommand() }
        return Undo.lastCommand(in: ledger.history.compactMap(HistoryEntry.init(json:)))
    }

    public func undosSinceLastCommand() async throws -> [HistoryEntry] {
        if let undos { return try undos() }
        return ledger.history.compactMap(HistoryEntry.init(json:))
    }
}

extension ReservationLedger {
    /// Runs one of `Booking`'s rules on a draft of this ledger, and keeps the
    /// draft only when the rule returns: a refusal changes nothing. The one
    /// write of every engine over a ledger: the file store (`JSONFileStore.update`,
    /// which then writes what was kept) and the tests' memory engine.
    /// `lastCommand` and `undos` as `LedgerTransaction.init`'s.
    public mutating func apply<T>(
        lastCommand: (() throws -> [HistoryEntry])? = nil, undos: (() throws -> [HistoryEntry])? = nil,
        _ rule: (LedgerTransaction) async throws -> T
    ) async throws -> T {
        let draft = LedgerTransaction(self, lastCommand: lastCommand, undos: undos)
        let result = try await rule(draft)
        self = draft.ledger
        return result
    }
}
