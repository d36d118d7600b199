import Foundation

/// The changes waiting in a server's outbox (`--queue`) for a reservation the server has:
/// what they would make of it once sent, shown beside the server's values and marked
/// queued (docs/contracts.md, "Offline"). Never stored, never on the wire: the server
/// decides each change when it arrives.
public struct QueuedChange: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable { case cancel, confirm, modify }

    /// The changes in the order they were queued.
    public var kinds: [Kind]
    /// The reservation as the changes would leave it.
    public var after: Reservation

    public init(kinds: [Kind], after: Reservation) {
        self.kinds = kinds
        self.after = after
    }

    /// "modify, cancel": the kinds in order, each once.
    public var summary: String {
        var seen: [Kind] = []
        for kind in kinds where !seen.contains(kind) { seen.append(kind) }
        return seen.map(\.rawValue).joined(separator: ", ")
    }

    /// The fields the changes would change, by the name `--json` gives them, with their new
    /// values: `date`, `landmarkId`, `partySize`, `status`, `note` (null when removed).
    public func changedFields(from before: Reservation) -> [(field: String, value: JSONValue)] {
        var fields: [(String, JSONValue)] = []
        if after.landmark.id != before.landmark.id {
            fields.append(("landmarkId", .string(after.landmark.id.description)))
        }
        if after.date != before.date { fields.append(("date", .string(DateTime.format(after.date)))) }
        if after.partySize != before.partySize { fields.append(("partySize", .integer(Int64(after.partySize)))) }
        if after.status != before.status { fields.append(("status", .string(after.status.rawValue))) }
        if after.note != before.note { fields.append(("note", after.note.map(JSONValue.string) ?? .null)) }
        return fields
    }
}
