import Foundation
import ReservationCore

/// What an engine supplies to the booking rules: the reads and writes of one
/// transaction, and its way of serialising what must not interleave (SQLite's
/// one writer does that already; PostgreSQL takes advisory and row locks).
/// The rules themselves are written once, in `Booking`.
protocol BookingTransaction {
    /// Holds off every other writer of this user's idempotency key until the transaction ends.
    func lock(key: String, user: UserID) async throws
    /// The response kept for this user's key, if any.
    func storedResponse(key: String, user: UserID) async throws -> StoredResponse?
    /// Holds off every other booking of this landmark-day until the transaction ends.
    func lock(_ day: BookingDay) async throws
    /// People booked at the landmark in the day: active reservations with a valid party size.
    func booked(_ day: BookingDay) async throws -> Int
    func insert(_ reservation: StoredReservation, user: UserID, startsAt: Double, now: Double) async throws
    func keep(_ response: StoredResponse, key: String, user: UserID, now: Double) async throws
    /// One of the user's reservations, locked until the transaction ends; nil when it has none with this id.
    func reservationForUpdate(_ id: Reservation.ID, user: UserID) async throws -> StoredReservation?
    /// Sets the status, and makes it the next version changed at `now`.
    func setStatus(_ status: Reservation.Status, of id: Reservation.ID, now: Double) async throws
    /// Writes a changed reservation's landmark, date, party size, status, note, change time and version.
    func update(_ reservation: StoredReservation, startsAt: Double) async throws
    /// Appends changes to the user's history, in this transaction.
    func record(_ entries: [HistoryEntry], user: UserID) async throws
    /// Orders the user's changes against their undos, until the transaction ends:
    /// shared for every change (they run side by side), exclusive for an undo,
    /// which so waits for the changes under way and holds off new ones and other
    /// undos: the command it takes back stays the newest. Taken first, before any
    /// other lock.
    func lockHistory(of user: UserID, exclusive: Bool) async throws
    /// The changes, oldest first, of the user's newest command that is neither
    /// an undo nor undone (`Undo.lastCommand`'s rule); empty when none.
    func commandToUndo(user: UserID) async throws -> [HistoryEntry]
}

/// A landmark's day, as capacity counts it: [start, end) in the landmark's zone.
struct BookingDay: Hashable, Comparable {
    let landmark: Landmark.ID
    let start: Double
    let end: Double

    init(landmark: Landmark.ID, day: Capacity.Day) {
        self.landmark = landmark
        start = day.start.timeIntervalSince1970
        end = day.end.timeIntervalSince1970
    }

    /// The order days are locked in, so two batches never wait on each other crosswise.
    static func < (a: BookingDay, b: BookingDay) -> Bool {
        (a.landmark.description, a.start) < (b.landmark.description, b.start)
    }
}

/// What a create (one request or a batch) did.
public enum CreateOutcome: Sendable {
    /// Every request booked, in request order.
    case created([StoredReservation])
    /// Nothing booked: these requests (index from 0, people already booked that day,
    /// counting the requests of the batch before them that fit) do not fit.
    case noCapacity([(index: Int, booked: Int)])
    /// The idempotency key was used before: the kept response (its hash may differ from this request's).
    case replay(StoredResponse)
}

/// What a cancel or confirm of several reservations did; all or nothing.
public enum StatusOutcome: Sendable {
    /// Each reservation as it is now, with its status before, in request order.
    case changed([(StoredReservation, previous: Reservation.Status)])
    /// Nothing changed: the user has no reservation with these ids.
    case notFound([Reservation.ID])
    /// Nothing changed: these are cancelled and cannot be confirmed.
    case conflict([StoredReservation])
}

/// A checked modify: the fields to change (the landmark already found in the
/// catalog), and the catalog for the capacity of the reservation's own landmark.
public struct ModifyRequest: Sendable {
    public var date: Date?
    public var partySize: Int?
    public var landmark: Landmark?
    /// An empty note removes it.
    public var note: String?
    public var catalog: LandmarkCatalog
}

/// What a modify did.
public enum ModifyOutcome: Sendable {
    /// Changed (or already so: the same version), as it is now.
    case modified(StoredReservation)
    case notFound
    /// The reservation is at another version than the client read.
    case versionMismatch(current: Int)
    case cancelled(StoredReservation)
    /// The target day has `booked` people without this reservation; nothing changed.
    case noCapacity(Landmark, day: Capacity.Day, requested: Int, booked: Int)
}

/// The server's booking rules, the same on every engine: an idempotent replay,
/// then the capacity sums of the days concerned, then the fit of every request
/// (counting the batch's earlier ones), then the inserts and the response kept
/// for the key; status changes are checked all before any is written.
enum Booking {
    static func create(
        _ records: [NewRecord], user: UserID, key: IdempotencyKey?, response: ([StoredReservation]) -> [UInt8],
        in transaction: some BookingTransaction
    ) async throws -> CreateOutcome {
        try await transaction.lockHistory(of: user, exclusive: false)
        if let key {
            try await transaction.lock(key: key.key, user: user)
            if let kept = try await transaction.storedResponse(key: key.key, user: user) { return .replay(kept) }
        }
        let days = records.map { record in
            record.capacity.map { BookingDay(landmark: record.reservation.landmarkID, day: $0.day) }
        }
        var booked: [BookingDay: Int] = [:]
        for day in Set(days.compactMap { $0 }).sorted() {
            try await transaction.lock(day)
            booked[day] = try await transaction.booked(day)
        }
        var refused: [(index: Int, booked: Int)] = []
        for (index, record) in records.enumerated() {
            guard let capacity = record.capacity, let day = days[index], let already = booked[day] else { continue }
            if Capacity.fits(record.reservation.partySize, booked: already, capacity: capacity.limit) {
                booked[day] = already + record.reservation.partySize
            } else {
                refused.append((index, already))
            }
        }
        guard refused.isEmpty else { return .noCapacity(refused) }
        let now = Date().timeIntervalSince1970.rounded(.down)
        var created: [StoredReservation] = []
        created.reserveCapacity(records.count)
        for record in records {
            var reservation = record.reservation
            reservation.createdAt = now
            reservation.updatedAt = now
            reservation.version = 1
            try await transaction.insert(reservation, user: user, startsAt: record.startsAt, now: now)
            created.append(reservation)
        }
        let command = newCommand()
        try await transaction.record(
            created.map { HistoryEntry(.created, before: nil, after: $0, at: now, command: command) }, user: user)
        if let key {
            let kept = StoredResponse(status: 201, body: response(created), requestHash: key.requestHash)
            try await transaction.keep(kept, key: key.key, user: user, now: now)
        }
        return .created(created)
    }

    /// Cancels (`.cancelled`) or confirms (`.confirmed`) the user's reservations `ids`.
    static func setStatus(
        _ status: Reservation.Status, of ids: [Reservation.ID], user: UserID, in transaction: some BookingTransaction
    ) async throws -> StatusOutcome {
        try await transaction.lockHistory(of: user, exclusive: false)
        var current: [Reservation.ID: StoredReservation] = [:]
        var missing: Set<Reservation.ID> = []
        // Locked in one order, so two changes never wait on each other crosswise.
        for id in Set(ids).sorted(by: { $0.description < $1.description }) {
            if let reservation = try await transaction.reservationForUpdate(id, user: user) {
                current[id] = reservation
            } else {
                missing.insert(id)
            }
        }
        guard missing.isEmpty else { return .notFound(ids.filter(missing.contains)) }
        let original = current
        let now = Date().timeIntervalSince1970.rounded(.down)
        var changes: [(StoredReservation, previous: Reservation.Status)] = []
        var conflicts: [StoredReservation] = []
        for id in ids {
            guard let reservation = current[id] else { continue }
            switch StatusTransition(from: reservation.status, to: status) {
            case .refused:
                conflicts.append(reservation)
            case .unchanged:
                changes.append((reservation, previous: reservation.status))
            case .to(let next):
                var changed = reservation
                changed.status = next
                changed.updatedAt = now
                changed.version += 1
                current[id] = changed
                changes.append((changed, previous: reservation.status))
            }
        }
        guard conflicts.isEmpty else { return .conflict(conflicts) }
        var entries: [HistoryEntry] = []
        let command = newCommand()
        for (reservation, previous) in changes where reservation.status != previous {
            try await transaction.setStatus(reservation.status, of: reservation.id, now: now)
            let before = original[reservation.id]
            entries.append(
                HistoryEntry(
                    reservation.status == .cancelled ? .cancelled : .confirmed, before: before, after: reservation,
                    at: now, command: command))
        }
        try await transaction.record(entries, user: user)
        return .changed(changes)
    }

    /// Modifies the user's reservation `id`: locked first (its row), then the
    /// version checked, then the target day locked and counted without this
    /// reservation's own places (it holds one day, so there is one lock order:
    /// row, then day, and no two changes wait on each other crosswise).
    static func modify(
        _ id: Reservation.ID, _ request: ModifyRequest, expectedVersion: Int?, user: UserID,
        in transaction: some BookingTransaction
    ) async throws -> ModifyOutcome {
        try await transaction.lockHistory(of: user, exclusive: false)
        guard let current = try await transaction.reservationForUpdate(id, user: user) else { return .notFound }
        if let expectedVersion, expectedVersion != current.version { return .versionMismatch(current: current.version) }
        guard current.status.isActive else { return .cancelled(current) }
        var target = current
        if let landmark = request.landmark { target.landmarkID = landmark.id }
        if let date = request.date { target.date = DateTime.format(date) }
        if let partySize = request.partySize { target.partySize = partySize }
        if let note = request.note { target.note = note.isEmpty ? nil : note }
        guard target != current else { return .modified(current) }
        guard let startsAt = try? DateTime.parse(target.date).timeIntervalSince1970 else {
            throw DatabaseError.corruptRow("reservation \(id) has the date '\(target.date)'")
        }
        // A note, or a smaller party on the same day, takes no place from anyone.
        let takesMore =
            target.landmarkID != current.landmarkID || target.date != current.date
            || target.partySize > current.partySize
        if takesMore, let landmark = request.landmark ?? request.catalog[target.landmarkID],
            let capacity = landmark.capacity,
            let day = Capacity.Day(of: Date(timeIntervalSince1970: startsAt), in: Capacity.calendar(for: landmark))
        {
            let bookingDay = BookingDay(landmark: landmark.id, day: day)
            try await transaction.lock(bookingDay)
            var booked = try await transaction.booked(bookingDay)
            // Its own places, when they are on this day, are released by this change.
            if current.landmarkID == landmark.id, Reservation.partySizes.contains(current.partySize),
                let old = try? DateTime.parse(current.date).timeIntervalSince1970,
                old >= bookingDay.start, old < bookingDay.end
            {
                booked -= current.partySize
            }
            guard Capacity.fits(target.partySize, booked: booked, capacity: capacity) else {
                return .noCapacity(landmark, day: day, requested: target.partySize, booked: booked)
            }
        }
        target.updatedAt = Date().timeIntervalSince1970.rounded(.down)
        target.version = current.version + 1
        try await transaction.update(target, startsAt: startsAt)
        try await transaction.record(
            [HistoryEntry(.modified, before: current, after: target, at: target.updatedAt, command: newCommand())],
            user: user)
        return .modified(target)
    }

    /// Takes back the user's newest command not yet undone (`Undo`'s rules):
    /// the user's history locked (no change of theirs under way or starting, no
    /// other undo), then the command's rows locked in id order, each checked to
    /// be as the command left it, then the days it gives people back to locked
    /// (in the one order) and counted; all written, with `undone` entries, or
    /// nothing. Refusals throw `ReservationError`.
    static func undo(user: UserID, catalog: LandmarkCatalog, in transaction: some BookingTransaction) async throws
        -> UndoResult
    {
        try await transaction.lockHistory(of: user, exclusive: true)
        let command = try await transaction.commandToUndo(user: user)
        guard let taken = command.first?.command else { throw ReservationError.nothingToUndo }
        var rows: [Reservation.ID: StoredReservation] = [:]
        for id in Set(command.map(\.reservationID)).sorted(by: { $0.description < $1.description }) {
            rows[id] = try await transaction.reservationForUpdate(id, user: user)
        }
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let steps = try Undo.plan(command, current: { rows[$0]?.apiModel }, now: now)
        for change in Undo.dayChanges(steps, catalog: catalog) {
            let day = BookingDay(landmark: change.landmark.id, day: change.day)
            try await transaction.lock(day)
            try change.check(booked: try await transaction.booked(day))
        }
        let undo = newCommand()
        var entries: [HistoryEntry] = []
        for step in steps {
            guard let row = rows[step.id], let target = row.applying(step.target),
                let startsAt = try? DateTime.parse(target.date).timeIntervalSince1970
            else {
                throw DatabaseError.corruptRow("history of reservation \(step.id) holds a record that is not valid")
            }
            try await transaction.update(target, startsAt: startsAt)
            entries.append(
                HistoryEntry(
                    at: now, change: .undone, reservationID: step.id, before: step.current, after: target.apiModel,
                    command: undo, undoes: taken))
        }
        try await transaction.record(entries, user: user)
        return UndoResult(command: taken, changes: entries)
    }

    /// A new command id: every change of one request shares it.
    static func newCommand() -> String { UUID().uuidString.lowercased() }
}

extension HistoryEntry {
    /// A server's change of a stored reservation, at `now` (seconds since 1970).
    init(_ change: Change, before: StoredReservation?, after: StoredReservation, at now: Double, command: String) {
        self.init(
            at: Date(timeIntervalSince1970: now), change: change, reservationID: after.id, before: before?.apiModel,
            after: after.apiModel, command: command)
    }
}

extension HistoryEntry {
    /// The entry as the history table's `entry` column holds it (its user is the row's).
    var storedText: String { String(decoding: json.encoded(), as: UTF8.self) }

    /// Reads an `entry` column; `user` is the name of the row's user.
    init(stored text: String?, user: String?) throws {
        guard let text, let json = try? JSONValue.parse(Data(text.utf8)), var entry = HistoryEntry(json: json) else {
            throw DatabaseError.corruptRow("a history entry is not valid: \(text?.prefix(200) ?? "NULL")")
        }
        entry.user = user
        self = entry
    }
}

extension StoredReservation {
    /// The wire record of this reservation.
    var apiModel: ReservationApiModel {
        ReservationApiModel(
            id: id.description, landmarkId: landmarkID.description, date: date, partySize: partySize,
            status: status.rawValue, note: note,
            createdAt: DateTime.format(Date(timeIntervalSince1970: createdAt)),
            updatedAt: DateTime.format(Date(timeIntervalSince1970: updatedAt)), version: version)
    }

    /// This row with the values of a wire record `Undo` planned; nil when a value is not valid.
    func applying(_ record: ReservationApiModel) -> StoredReservation? {
        guard let landmarkText = record.landmarkId, let landmark = Landmark.ID(landmarkText), let date = record.date,
            let partySize = record.partySize, Reservation.partySizes.contains(partySize),
            let status = record.status.flatMap(Reservation.Status.init(rawValue:)), let version = record.version,
            let updated = record.updatedAt.flatMap({ try? DateTime.parse($0) })
        else { return nil }
        var changed = self
        changed.landmarkID = landmark
        changed.date = date
        changed.partySize = partySize
        changed.status = status
        changed.note = record.note
        changed.updatedAt = updated.timeIntervalSince1970
        changed.version = version
        return changed
    }
}

/// What a cancel or confirm does to a status: cancel always ends cancelled;
/// confirm moves pending to confirmed and is refused for a cancelled one.
enum StatusTransition: Equatable {
    case to(Reservation.Status)
    case unchanged
    case refused

    init(from current: Reservation.Status, to target: Reservation.Status) {
        if current == target {
            self = .unchanged
        } else if target == .confirmed && current == .cancelled {
            self = .refused
        } else {
            self = .to(target)
        }
    }
}
