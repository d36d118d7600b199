import Foundation
import ReservationCore
import SQLiteNIO

/// The booking rules' reads and writes on SQLite, inside one of `SQLiteWriter`'s
/// transactions. Its one writing connection already serialises every write, so
/// the locks are nothing here.
struct SQLiteTransaction: BookingTransaction {
    let db: SQLiteConnection

    func lock(key: String, user: UserID) async throws {}

    func storedResponse(key: String, user: UserID) async throws -> StoredResponse? {
        try await SQLiteStore.storedResponse(db, user: user, key: key)
    }

    func lock(_ day: BookingDay) async throws {}

    func booked(_ day: BookingDay) async throws -> Int {
        // TOTAL, a float, cannot overflow as SUM can with huge parties.
        let total =
            try await db.query(
                """
                SELECT TOTAL(party_size) AS booked FROM reservations
                WHERE landmark_id = ? AND status <> 'cancelled' AND party_size BETWEEN 1 AND 10000 AND starts_at >= ? AND starts_at < ?
                """,
                [.text(day.landmark.description), .float(day.start), .float(day.end)]
            ).first?.column("booked")?.double ?? 0
        return Int(exactly: total.rounded()) ?? Int.max
    }

    func insert(_ reservation: StoredReservation, user: UserID, startsAt: Double, now: Double) async throws {
        _ = try await db.query(
            """
            INSERT INTO reservations
                (id, user_id, landmark_id, date, starts_at, party_size, status, created_at, updated_at, version, note)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(reservation.id.description), .integer(Int(user.rawValue)),
                .text(reservation.landmarkID.description), .text(reservation.date), .float(startsAt),
                .integer(reservation.partySize), .text(reservation.status.rawValue), .float(reservation.createdAt),
                .float(reservation.updatedAt), .integer(reservation.version),
                reservation.note.map { .text($0) } ?? .null,
            ])
    }

    func keep(_ response: StoredResponse, key: String, user: UserID, now: Double) async throws {
        _ = try await db.query(
            """
            INSERT INTO idempotency_keys (user_id, key, request_hash, status, body, created_at)
            VALUES (?, ?, ?, ?, ?, ?)
            """,
            [
                .integer(Int(user.rawValue)), .text(key), .text(response.requestHash), .integer(response.status),
                .blob(ByteBuffer(bytes: response.body)), .float(now),
            ])
    }

    func reservationForUpdate(_ id: Reservation.ID, user: UserID) async throws -> StoredReservation? {
        try await db.query(
            "SELECT \(SQLiteStore.columns) FROM reservations WHERE id = ? AND user_id = ?",
            [.text(id.description), .integer(Int(user.rawValue))]
        ).first.map(SQLiteStore.reservation)
    }

    func setStatus(_ status: Reservation.Status, of id: Reservation.ID, now: Double) async throws {
        _ = try await db.query(
            "UPDATE reservations SET status = ?, updated_at = ?, version = version + 1 WHERE id = ?",
            [.text(status.rawValue), .float(now), .text(id.description)])
    }

    func update(_ reservation: StoredReservation, startsAt: Double) async throws {
        _ = try await db.query(
            """
            UPDATE reservations SET landmark_id = ?, date = ?, starts_at = ?, party_size = ?, status = ?, note = ?,
                updated_at = ?, version = ?
            WHERE id = ?
            """,
            [
                .text(reservation.landmarkID.description), .text(reservation.date), .float(startsAt),
                .integer(reservation.partySize), .text(reservation.status.rawValue),
                reservation.note.map { .text($0) } ?? .null,
                .float(reservation.updatedAt), .integer(reservation.version), .text(reservation.id.description),
            ])
    }

    func record(_ entries: [HistoryEntry], user: UserID) async throws {
        for entry in entries {
            _ = try await db.query(
                "INSERT INTO history (user_id, reservation_id, command, change, undoes, entry) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    .integer(Int(user.rawValue)), .text(entry.reservationID.description), .text(entry.command),
                    .text(entry.change.rawValue), entry.undoes.map { .text($0) } ?? .null, .text(entry.storedText),
                ])
        }
    }

    func lockHistory(of user: UserID, exclusive: Bool) async throws {}

    func commandToUndo(user: UserID) async throws -> [HistoryEntry] {
        try await db.query(
            """
            SELECT entry FROM history WHERE user_id = ? AND command = (
                SELECT h.command FROM history h WHERE h.user_id = ? AND h.change <> 'undone'
                AND NOT EXISTS (SELECT 1 FROM history u WHERE u.undoes = h.command)
                ORDER BY h.seq DESC LIMIT 1)
            ORDER BY seq
            """,
            [.integer(Int(user.rawValue)), .integer(Int(user.rawValue))]
        ).map { row in try HistoryEntry(stored: row.column("entry")?.string, user: nil) }
    }
}
