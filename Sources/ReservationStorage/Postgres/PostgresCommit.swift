import Foundation
import Logging
import PostgresNIO
import ReservationCore

/// A transaction's statements that write many rows at once: new reservations'
/// arrays (`unnest`), and `finish`, the entries numbered and written at the end.
extension PostgresTransaction {
    /// Writes the entries kept, numbering each after its owner's last
    /// (`users.last_position`) and moving the owner's `users.changed_at` on
    /// (`CommitTime`, from `now`): the owners' rows locked in id order, the last
    /// locks of the transaction, held until it commits. A transaction that
    /// numbers a user's change after this one waits for this one's commit, so
    /// the feed never serves a number before every lower one is committed, and
    /// the calendar's date follows the order of commits. In the same statement
    /// (one round trip once the owners' rows are locked): the new reservations
    /// `created` (a group's, of any users) inserted, the answers of keyed
    /// requests kept, and the owners notified on `channel` (`PostgresEngine.listen`), at commit.
    func finish(
        inserting created: [(owner: UserID, reservation: Reservation)],
        keeping answers: [(user: UserID, key: IdempotencyKey, response: StoredResponse)], notifying channel: String?,
        at now: Date
    ) async throws {
        let entries = pending.all
        let (last, changed, positions) = try await number(entries, at: now)
        var binds = PostgresBindings()
        /// Binds `value`; its placeholder.
        func bind(_ value: some PostgresDynamicTypeEncodable) -> String {
            binds.append(value)
            return "$\(binds.count)"
        }
        var steps: [String] = []
        if !created.isEmpty {
            let owners = bind(created.map(\.owner.rawValue))
            let rows = Self.unnest(
                ReservationRow.fields, of: created.map(\.reservation), after: binds.count, into: &binds,
                leading: ("\(owners)::BIGINT[]", "owner"))
            steps.append(
                """
                INSERT INTO reservations (user_id, \(ReservationRow.fields.map(\.column).joined(separator: ", ")))
                SELECT t.owner, \(rows.values.joined(separator: ", ")) FROM \(rows.table)
                """)
        }
        if !entries.isEmpty {
            steps.append(
                """
                UPDATE users SET last_position = n.p, changed_at = n.c
                FROM UNNEST(
                    \(bind(Array(last.keys)))::BIGINT[], \(bind(Array(last.values)))::BIGINT[],
                    \(bind(last.keys.map { changed[$0] ?? now.timeIntervalSince1970 }))::FLOAT8[]) AS n (u, p, c)
                WHERE users.id = n.u
                """)
            steps.append(
                """
                INSERT INTO history (user_id, position, reservation_id, command, change, undoes, entry)
                SELECT o, p, r, c, ch, NULLIF(u, ''), e FROM UNNEST(
                    \(bind(entries.map(\.owner.rawValue)))::BIGINT[], \(bind(positions))::BIGINT[],
                    \(bind(entries.map(\.entry.reservationID.description)))::TEXT[],
                    \(bind(entries.map(\.entry.command)))::TEXT[], \(bind(entries.map(\.entry.change.rawValue)))::TEXT[],
                    \(bind(entries.map { $0.entry.undoes ?? "" }))::TEXT[], \(bind(entries.map(\.entry.storedText)))::TEXT[]
                ) WITH ORDINALITY AS h (o, p, r, c, ch, u, e, i) ORDER BY i
                """)
        }
        if !answers.isEmpty {
            steps.append(
                """
                INSERT INTO idempotency_keys (user_id, key, request_hash, status, body, created_at)
                SELECT u, k, h, s, decode(b, 'hex'), c FROM UNNEST(
                    \(bind(answers.map(\.user.rawValue)))::BIGINT[], \(bind(answers.map(\.key.key)))::TEXT[],
                    \(bind(answers.map(\.response.requestHash)))::TEXT[], \(bind(answers.map(\.response.status)))::BIGINT[],
                    \(bind(answers.map { Hex.string($0.response.body) }))::TEXT[],
                    \(bind(answers.map(\.key.receivedAt.timeIntervalSince1970)))::FLOAT8[]) AS a (u, k, h, s, b, c)
                """)
        }
        let users = Set(entries.map(\.owner))
        let notice = channel.flatMap {
            users.isEmpty ? nil : "SELECT pg_notify(\(bind($0)), \(bind(PostgresStore.payload(users))))"
        }
        guard !steps.isEmpty || notice != nil else { return }
        // Each a step of one statement: data-modifying WITH queries run once each, whatever the main one reads.
        let with = steps.enumerated().map { "s\($0.offset) AS (\($0.element))" }.joined(separator: ",\n")
        try await run(
            PostgresQuery(
                unsafeSQL: (steps.isEmpty ? "" : "WITH \(with)\n") + (notice ?? "SELECT 1"), binds: binds))
        touched.insert(contentsOf: users)
    }

    /// Locks the owners of `entries` (their `users` rows, in id order) and
    /// numbers each entry after its owner's last: each owner's new last number,
    /// its new `changed_at` (`CommitTime`, from `now`), and each entry's number.
    private func number(_ entries: [(owner: UserID, entry: HistoryEntry)], at now: Date) async throws -> (
        last: [Int64: Int64], changed: [Int64: Double], positions: [Int64]
    ) {
        var last: [Int64: Int64] = [:]
        var changed: [Int64: Double] = [:]
        var positions: [Int64] = []
        if !entries.isEmpty {
            let owners = Set(entries.map(\.owner.rawValue)).sorted()
            for row in try await run(
                """
                SELECT id, last_position, changed_at FROM users WHERE id = ANY(\(owners)::BIGINT[])
                ORDER BY id FOR NO KEY UPDATE
                """)
            {
                let (id, position, before) = try row.decode((Int64, Int64, Double?).self)
                last[id] = position
                changed[id] =
                    CommitTime.next(after: before.map(Date.init(timeIntervalSince1970:)), at: now)
                    .timeIntervalSince1970
            }
            positions.reserveCapacity(entries.count)
            for (owner, _) in entries {
                let next = last[owner.rawValue, default: 0] + 1
                last[owner.rawValue] = next
                positions.append(next)
            }
        }
        return (last, changed, positions)
    }

    /// `UNNEST` of one array per field (bound after parameter `after`), a row
    /// per reservation, as table `t` with the fields' columns (after a
    /// `leading` array bound before, when given); and each column's
    /// value in it. Arrays of binds hold no NULLs here: NULL goes as a value no
    /// field takes ('' for text, -1 for an integer, NaN for a real) and `NULLIF` turns it back.
    static func unnest(
        _ fields: [ReservationField], of reservations: [Reservation], after: Int, into binds: inout PostgresBindings,
        leading: (array: String, column: String)? = nil
    ) -> (table: String, values: [String]) {
        var arrays: [String] = leading.map { [$0.array] } ?? []
        for (offset, field) in fields.enumerated() {
            let values = reservations.map { field.value($0) }
            let type: String
            switch field.kind {
            case .text:
                type = "TEXT"
                binds.append(values.map { if case .text(let text) = $0 { text } else { "" } })
            case .integer:
                type = "BIGINT"
                binds.append(values.map { if case .integer(let integer) = $0 { integer } else { -1 } })
            case .real:
                type = "FLOAT8"
                binds.append(values.map { if case .real(let real) = $0 { real } else { Double.nan } })
            }
            arrays.append("$\(after + offset + 1)::\(type)[]")
        }
        let columns = ((leading.map { [$0.column] } ?? []) + fields.map(\.column)).joined(separator: ", ")
        let values = fields.map { field in
            guard field.optional else { return "t.\(field.column)" }
            let none =
                switch field.kind {
                case .text: "''"
                case .integer: "-1"
                case .real: "'NaN'"
                }
            return "NULLIF(t.\(field.column), \(none))"
        }
        return ("UNNEST(\(arrays.joined(separator: ", "))) AS t (\(columns))", values)
    }
}

extension UserID {
    /// The name of the user's history lock (an advisory lock: `lockHistory`, a group's members).
    var historyLock: String { "history \(rawValue)" }
}

extension PostgresConnection {
    /// Runs a statement and reads its whole answer: an error PostgreSQL sends
    /// after the answer began (a deadlock found while a lock is waited for) is
    /// thrown here, not lost with an unread answer to fail the next statement
    /// with 25P02 ("current transaction is aborted").
    @discardableResult
    func run(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRow] {
        try await self.query(query, logger: logger).collect()
    }
}
