import Foundation
import Logging
import PostgresNIO
import ReservationCore

/// The booking rules' reads and writes on PostgreSQL, inside one transaction.
/// Several servers may share the database, so what must not interleave takes a
/// transaction-scoped advisory lock (a key, a landmark-day) or a row lock.
struct PostgresTransaction: BookingTransaction {
    let db: PostgresConnection
    let logger: Logger

    func lock(key: String, user: UserID) async throws {
        try await advisoryLock("key \(user.rawValue) \(key)")
    }

    func storedResponse(key: String, user: UserID) async throws -> StoredResponse? {
        try await PostgresStore.storedResponse(db, user: user, key: key, logger: logger)
    }

    func lock(_ day: BookingDay) async throws {
        try await advisoryLock("day \(day.landmark) \(day.start)")
    }

    func booked(_ day: BookingDay) async throws -> Int {
        let total =
            try await db.query(
                """
                SELECT COALESCE(SUM(party_size), 0)::FLOAT8 FROM reservations
                WHERE landmark_id = \(day.landmark.description) AND status <> 'cancelled' AND party_size BETWEEN 1 AND 10000
                AND starts_at >= \(day.start) AND starts_at < \(day.end)
                """, logger: logger
            ).collect().first.map { try $0.decode(Double.self) } ?? 0
        return Int(exactly: total.rounded()) ?? Int.max
    }

    func insert(_ reservation: StoredReservation, user: UserID, startsAt: Double, now: Double) async throws {
        try await db.query(
            """
            INSERT INTO reservations
                (id, user_id, landmark_id, date, starts_at, party_size, status, created_at, updated_at, version, note)
            VALUES (\(reservation.id.description), \(user.rawValue), \(reservation.landmarkID.description),
                    \(reservation.date), \(startsAt), \(reservation.partySize), \(reservation.status.rawValue),
                    \(reservation.createdAt), \(reservation.updatedAt), \(reservation.version), \(reservation.note))
            """, logger: logger)
    }

    func keep(_ response: StoredResponse, key: String, user: UserID, now: Double) async throws {
        let body = ByteBuffer(bytes: response.body)
        try await db.query(
            """
            INSERT INTO idempotency_keys (user_id, key, request_hash, status, body, created_at)
            VALUES (\(user.rawValue), \(key), \(response.requestHash), \(response.status), \(body), \(now))
            """, logger: logger)
    }

    func reservationForUpdate(_ id: Reservation.ID, user: UserID) async throws -> StoredReservation? {
        try await db.query(
            "SELECT \(unescaped: PostgresStore.columns) FROM reservations WHERE id = \(id.description) AND user_id = \(user.rawValue) FOR UPDATE",
            logger: logger
        ).collect().first.map(PostgresStore.reservation)
    }

    func setStatus(_ status: Reservation.Status, of id: Reservation.ID, now: Double) async throws {
        try await db.query(
            """
            UPDATE reservations SET status = \(status.rawValue), updated_at = \(now), version = version + 1
            WHERE id = \(id.description)
            """, logger: logger)
    }

    func update(_ reservation: StoredReservation, startsAt: Double) async throws {
        try await db.query(
            """
            UPDATE reservations SET landmark_id = \(reservation.landmarkID.description), date = \(reservation.date),
                starts_at = \(startsAt), party_size = \(reservation.partySize), status = \(reservation.status.rawValue),
                note = \(reservation.note),
                updated_at = \(reservation.updatedAt), version = \(reservation.version)
            WHERE id = \(reservation.id.description)
            """, logger: logger)
    }

    func record(_ entries: [HistoryEntry], user: UserID) async throws {
        guard !entries.isEmpty else { return }
        // One statement for a whole batch: a round trip per entry would cost seconds for 10,000.
        try await db.query(
            """
            INSERT INTO history (user_id, reservation_id, command, change, undoes, entry)
            SELECT \(user.rawValue), r, c, ch, NULLIF(u, ''), e FROM UNNEST(
                \(entries.map(\.reservationID.description))::TEXT[], \(entries.map(\.command))::TEXT[],
                \(entries.map(\.change.rawValue))::TEXT[], \(entries.map { $0.undoes ?? "" })::TEXT[],
                \(entries.map(\.storedText))::TEXT[]) AS t (r, c, ch, u, e)
            """, logger: logger)
    }

    func lockHistory(of user: UserID, exclusive: Bool) async throws {
        let key = "history \(user.rawValue)"
        if exclusive {
            try await advisoryLock(key)
        } else {
            try await db.query("SELECT pg_advisory_xact_lock_shared(hashtextextended(\(key), 0))", logger: logger)
        }
    }

    func commandToUndo(user: UserID) async throws -> [HistoryEntry] {
        try await db.query(
            """
            SELECT entry FROM history WHERE user_id = \(user.rawValue) AND command = (
                SELECT h.command FROM history h WHERE h.user_id = \(user.rawValue) AND h.change <> 'undone'
                AND NOT EXISTS (SELECT 1 FROM history u WHERE u.undoes = h.command)
                ORDER BY h.seq DESC LIMIT 1)
            ORDER BY seq
            """, logger: logger
        ).collect().map { row in try HistoryEntry(stored: try row.decode(String.self), user: nil) }
    }

    private func advisoryLock(_ name: String) async throws {
        try await db.query("SELECT pg_advisory_xact_lock(hashtextextended(\(name), 0))", logger: logger)
    }
}
