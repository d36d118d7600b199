import Foundation

/// A value of a reservation as a store keeps it: what an engine binds to a column.
public enum StoredValue: Sendable, Hashable {
    case text(String)
    case integer(Int)
    case real(Double)
    case null

    public var text: String? { if case .text(let text) = self { text } else { nil } }
    public var integer: Int? { if case .integer(let integer) = self { integer } else { nil } }
    public var real: Double? { if case .real(let real) = self { real } else { nil } }
}

/// One stored field of a reservation, described once: its key in a record (a
/// store file, a server's answer, a history entry: the wire model's key), its key in
/// resv's `--json`, its CSV column and ICS property (if any), its column in the
/// server's `reservations` table, the column's type, whether it may be NULL and the
/// schema version that added it, and its value in a domain reservation.
///
/// Made from `ReservationField.stored`: the columns both SQL engines read
/// (`ReservationRow.columns`) and how a row becomes a record, their `INSERT`
/// and `UPDATE` statements, and the keys the ledger (memory, the file store)
/// writes. Checked against it, field by field, by tests that fail when a field
/// is missed (each shown to fail on a copy of this table with a field more): the
/// schema of a new SQLite and PostgreSQL database (columns, NULL, type, version), the
/// wire model's writer and decoder, the server's answers, resv's CSV, `--json` and ICS
/// export, and what each engine reads back. A new field is a line here, the domain and
/// wire values, the mapping and a schema version (docs/architecture.md, "How to add a
/// field to a reservation").
public struct ReservationField: Sendable {
    public enum Kind: Sendable, Hashable { case text, integer, real }

    /// The key in a record; nil for a column made from other fields (`starts_at`).
    public let key: String?
    public let column: String
    public let kind: Kind
    /// Whether an engine may store NULL (`value` may be `.null`).
    public let optional: Bool
    /// Whether a change writes it: false for what is set once (the id, when it was made).
    public let changes: Bool
    /// Whether a server's answers and `--json` carry it (when it has a value).
    public let answered: Bool
    /// Its key in resv's `--json`: its `key`, or another (`landmark`, written out in full);
    /// nil when not answered.
    public let output: String?
    /// Its column in resv's CSV (`CSVShape.reservationColumns`), if any.
    public let csv: String?
    /// The ICS property that carries it in an event (`ICalendarWriter.event`), if any.
    public let ics: String?
    /// The schema version that added its column (`Schema`; 1: the first table).
    public let since: Int
    /// Its value in a reservation, as stored.
    public let value: @Sendable (Reservation) -> StoredValue
    /// Puts a stored value (of `kind`, or `.null`) into a record read from a row;
    /// nothing for a column without a key. Fields are read in order.
    public let read: @Sendable (inout ReservationApiModel, StoredValue) -> Void

    /// A field; `package` so tests can make a copy of the table with a field more.
    package init(
        key: String?, column: String, kind: Kind, optional: Bool = false, changes: Bool = true,
        answered: Bool = true, output: String? = nil, csv: String? = nil, ics: String? = nil, since: Int = 1,
        read: @escaping @Sendable (inout ReservationApiModel, StoredValue) -> Void = { _, _ in },
        value: @escaping @Sendable (Reservation) -> StoredValue
    ) {
        self.key = key
        self.column = column
        self.kind = kind
        self.optional = optional
        self.changes = changes
        self.answered = answered && key != nil
        self.output = self.answered ? output ?? key : nil
        self.csv = csv
        self.ics = ics
        self.since = since
        self.read = read
        self.value = value
    }
}

extension ReservationField {
    /// Every stored field, in the order the engines read their columns.
    public static let stored: [ReservationField] = [
        ReservationField(
            key: "id", column: "id", kind: .text, changes: false, csv: "id", ics: "UID",
            read: { $0.id = $1.text ?? "" }, value: { .text($0.id.description) }),
        ReservationField(
            key: "landmarkId", column: "landmark_id", kind: .text, output: "landmark", csv: "landmarkId",
            ics: "X-RESV-LANDMARK", read: { $0.landmarkId = $1.text }, value: { .text($0.landmark.id.description) }),
        ReservationField(
            key: "date", column: "date", kind: .text, csv: "date", ics: "DTSTART", read: { $0.date = $1.text },
            value: { .text(DateTime.format($0.date)) }),
        // The visit's instant in seconds, for ranges of days (capacity, waitlists, lists by date).
        ReservationField(key: nil, column: "starts_at", kind: .real, value: { .real($0.date.timeIntervalSince1970) }),
        ReservationField(
            key: "partySize", column: "party_size", kind: .integer, csv: "partySize", ics: "X-RESV-PARTY-SIZE",
            read: { $0.partySize = $1.integer }, value: { .integer($0.partySize) }),
        ReservationField(
            key: "status", column: "status", kind: .text, csv: "status", ics: "X-RESV-STATUS",
            read: { $0.status = $1.text }, value: { .text($0.status.rawValue) }),
        ReservationField(
            key: "note", column: "note", kind: .text, optional: true, csv: "note", ics: "DESCRIPTION", since: 3,
            read: { $0.note = $1.text }, value: { $0.note.map { .text($0) } ?? .null }),
        // Times in seconds, read back in whole seconds; a record older than them is stored with 0,
        // as it always was, and a row without a change time was last changed when it was made.
        ReservationField(
            key: "createdAt", column: "created_at", kind: .real, changes: false, csv: "createdAt",
            read: { $0.createdAt = $1.real.map(wholeSeconds) }, value: { .real(seconds($0.createdAt)) }),
        ReservationField(
            key: "updatedAt", column: "updated_at", kind: .real, optional: true, csv: "updatedAt",
            ics: "LAST-MODIFIED", since: 3, read: { $0.updatedAt = $1.real.map(wholeSeconds) ?? $0.createdAt },
            value: { .real(seconds($0.updatedAt)) }),
        ReservationField(
            key: "version", column: "version", kind: .integer, csv: "version", ics: "SEQUENCE", since: 3,
            read: { $0.version = $1.integer }, value: { .integer($0.version) }),
        ReservationField(
            key: "expiresAt", column: "expires_at", kind: .real, optional: true, csv: "expiresAt", since: 5,
            read: { $0.expiresAt = $1.real.map { DateTime.format(Date(timeIntervalSince1970: $0)) } },
            value: { $0.expiresAt.map { .real($0.timeIntervalSince1970) } ?? .null }),
        // Kept for the rules, never in answers (docs/contracts.md, "The domain").
        ReservationField(
            key: "waitlistOrder", column: "waitlist_order", kind: .integer, optional: true, answered: false, since: 5,
            read: { $0.waitlistOrder = $1.integer }, value: { $0.waitlistOrder.map { .integer($0) } ?? .null }),
        ReservationField(
            key: "requestedStatus", column: "requested_status", kind: .text, optional: true, answered: false,
            since: 5, read: { $0.requestedStatus = $1.text },
            value: { $0.requestedStatus.map { .text($0.rawValue) } ?? .null }),
        // Set when booked in a series (`reserve --every`), never changed.
        ReservationField(
            key: "series", column: "series", kind: .text, optional: true, changes: false, csv: "series",
            ics: "X-RESV-SERIES", since: 9, read: { $0.series = $1.text },
            value: { $0.series.map { .text($0.description) } ?? .null }),
    ]

    /// The keys of the wire model that are counted when read, never stored.
    public static let countedKeys: Set<String> = ["waitlistPosition"]

    /// The keys a changed reservation's record gets from it (the ledger edits
    /// only these, so fields the tool does not know survive): every stored key
    /// but the id, which never changes, and the note, which is another
    /// program's when it is not text (`ReservationLedger`).
    public static let ledgerKeys: [String] = stored.compactMap(\.key).filter { $0 != "id" && $0 != "note" }

    /// The fields with a key: the columns a row is read from, in order.
    public static let read = stored.filter { $0.key != nil }

    /// A record from the stored values of the fields with a key, in order;
    /// nil when one that may not be NULL is (a row that is not valid).
    public static func record(_ values: [StoredValue]) -> ReservationApiModel? {
        var record = ReservationApiModel(id: "", landmarkId: nil, date: nil, partySize: nil, status: nil)
        for (field, value) in zip(read, values) {
            if case .null = value, !field.optional { return nil }
            field.read(&record, value)
        }
        return record
    }

    private static func wholeSeconds(_ seconds: Double) -> String {
        DateTime.format(Date(timeIntervalSince1970: seconds.rounded(.down)))
    }

    private static func seconds(_ date: Date?) -> Double {
        (date ?? Date(timeIntervalSince1970: 0)).timeIntervalSince1970
    }
}
