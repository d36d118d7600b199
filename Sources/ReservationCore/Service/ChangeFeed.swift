import Foundation

/// A change as a feed delivers it (`resv watch`, `GET /changes`): the history
/// entry and the cursor just after it, to resume from with no gap and no duplicate.
public struct FeedChange: Sendable, Hashable {
    public var cursor: String
    public var entry: HistoryEntry

    public init(cursor: String, entry: HistoryEntry) {
        self.cursor = cursor
        self.entry = entry
    }

    /// The entry as `resv log --json` shows it, with its `cursor`.
    public var json: JSONValue {
        guard case .object(var fields) = entry.json else { return entry.json }
        fields["cursor"] = .string(cursor)
        return .object(fields)
    }

    public init?(json: JSONValue) {
        guard case .string(let cursor)? = json["cursor"], ChangeCursor.isPlausible(cursor),
            let entry = HistoryEntry(json: json)
        else { return nil }
        self.init(cursor: cursor, entry: entry)
    }
}

/// What a feed answered: the changes after the cursor asked for, oldest first,
/// and the cursor to ask with next (the last change's, or the one asked with
/// when there were none; the newest when none was given).
public struct ChangePage: Sendable, Hashable {
    public var changes: [FeedChange]
    public var cursor: String

    public init(changes: [FeedChange], cursor: String) {
        self.changes = changes
        self.cursor = cursor
    }

    /// `{"changes": [...], "cursor": "…"}`, as `GET /changes` answers.
    public var json: JSONValue {
        .object(["changes": .array(changes.map(\.json)), "cursor": .string(cursor)])
    }

    public init?(json: JSONValue) {
        guard case .array(let items)? = json["changes"], case .string(let cursor)? = json["cursor"],
            ChangeCursor.isPlausible(cursor)
        else { return nil }
        var changes: [FeedChange] = []
        changes.reserveCapacity(items.count)
        for item in items {
            guard let change = FeedChange(json: item) else { return nil }
            changes.append(change)
        }
        self.init(changes: changes, cursor: cursor)
    }
}

/// Cursors: opaque to users, each backend's own. A file's and a client
/// memory's are `f` and `m` with the sequence number of the change; a
/// server's are its own (`s…`, checked by the server).
public enum ChangeCursor {
    /// The most characters a cursor has: anything longer is refused before it is sent or parsed.
    public static let maxLength = 128

    /// Whether `text` may be a cursor at all: short, of letters, digits, `.`, `-` and `_`.
    public static func isPlausible(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= maxLength
            && text.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2E
                    || $0 == 0x2D || $0 == 0x5F
            }
    }

    /// The cursor of change number `sequence` of a store of kind `prefix` (`f`, `m`).
    public static func make(_ prefix: Character, _ sequence: Int) -> String { "\(prefix)\(sequence)" }

    /// The sequence number of a cursor of kind `prefix`; `invalidCursor` when it is not one.
    public static func sequence(_ text: String, prefix: Character) throws(ReservationError) -> Int {
        guard isPlausible(text), text.first == prefix, let number = Int(text.dropFirst()), number >= 0,
            String(number) == text.dropFirst()
        else { throw .invalidCursor(text) }
        return number
    }
}
