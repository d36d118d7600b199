import Foundation

/// A landmark-day's own rule (docs/contracts.md, "Capacity by date and closures"): a
/// capacity that replaces the catalog's for that day, or a closure with its reason, or
/// both (the override applies again once the day is opened). Kept by every engine,
/// keyed by landmark and calendar day (in the landmark's zone), and read in the
/// transaction that counts the day.
public struct DayRule: Sendable, Hashable {
    public let landmark: Landmark.ID
    public let day: CalendarDay
    /// The day's capacity in place of the catalog's; nil for the catalog's.
    public var capacity: Int?
    /// Why the day is closed; nil when it is open.
    public var closed: String?

    public init(landmark: Landmark.ID, day: CalendarDay, capacity: Int? = nil, closed: String? = nil) {
        self.landmark = landmark
        self.day = day
        self.capacity = capacity
        self.closed = closed
    }

    /// Neither an override nor a closure: the day as the catalog says (not stored).
    public var isEmpty: Bool { capacity == nil && closed == nil }

    /// The most places a day's capacity may be set to.
    public static let capacityLimit = 1_000_000
    /// The most characters a closure's reason may have.
    public static let reasonLimit = 500

    /// Refuses a capacity outside 0 … `capacityLimit` (0: nobody, without closing the day).
    public static func check(capacity: Int) throws(ReservationError) {
        guard (0...capacityLimit).contains(capacity) else {
            throw .invalidRequestField(
                "capacity", "\(capacity) is out of range: give 0 to 1,000,000")
        }
    }

    /// Refuses a reason that is blank, longer than `reasonLimit` characters, or holds a control character.
    public static func check(reason: String) throws(ReservationError) {
        guard !reason.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw .invalidRequestField("reason", "is empty: say why the day is closed")
        }
        guard reason.count <= reasonLimit else {
            throw .invalidRequestField("reason", "has \(reason.count) characters: at most \(reasonLimit) are kept")
        }
        guard !reason.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidRequestField("reason", "holds a control character: give one line of text")
        }
    }

    /// The rule as stored (a file's `days`, a column's text) and answered.
    public var json: JSONValue {
        var fields: [String: JSONValue] = [
            "landmarkId": .string(landmark.description), "date": .string(day.description),
        ]
        if let capacity { fields["capacity"] = .integer(Int64(capacity)) }
        if let closed { fields["closed"] = .string(closed) }
        return .object(fields)
    }

    /// Reads a stored rule; nil when it is not one (another program's, a damaged one).
    public init?(json: JSONValue) {
        guard case .string(let landmarkText)? = json["landmarkId"], let landmark = Landmark.ID(landmarkText),
            case .string(let dayText)? = json["date"], let day = CalendarDay(dayText)
        else { return nil }
        var capacity: Int?
        switch json["capacity"] {
        case nil, .null?: break
        case .integer(let value)? where value >= 0 && value <= Int64(Self.capacityLimit): capacity = Int(value)
        default: return nil
        }
        var closed: String?
        switch json["closed"] {
        case nil, .null?: break
        case .string(let reason)?: closed = reason
        default: return nil
        }
        self.init(landmark: landmark, day: day, capacity: capacity, closed: closed)
    }

    /// The key a rule is stored under: one rule per landmark and day.
    public var key: String { "\(landmark) \(day)" }
}

/// What `resv admin capacity|close|open` does to each day of its range.
public enum DayChange: Sendable, Hashable {
    /// The day takes this many people (in place of the catalog's capacity).
    case capacity(Int)
    /// The day is closed, for this reason: no booking, no modify onto it.
    case close(reason: String)
    /// The day is as the catalog says again: open, its own capacity gone.
    case open

    /// The rule a day has after this change.
    public func applied(to rule: DayRule) -> DayRule {
        var rule = rule
        switch self {
        case .capacity(let capacity): rule.capacity = capacity
        case .close(let reason): rule.closed = reason
        case .open:
            rule.capacity = nil
            rule.closed = nil
        }
        return rule
    }

    /// The words a history entry and a message give for it.
    public var reason: String? {
        switch self {
        case .close(let reason): "closed: \(reason)"
        case .capacity(let capacity): "capacity lowered to \(capacity)"
        case .open: nil
        }
    }
}

/// What happens to the parties over a day's new capacity (or on a day closed).
public enum Overflow: String, Sendable, Hashable, CaseIterable {
    /// Nothing changes; the change is refused, naming the places over.
    case refuse
    /// The latest booked are cancelled, with the change's reason.
    case cancel
    /// The latest booked go to the head of the day's waitlist, in booking order.
    case waitlist
}

/// What a change of days did: each day's rule now, and the parties it moved.
public struct DaysChanged: Sendable, Hashable {
    /// Each day of the range, as it is now (an empty rule: the catalog's day).
    public let rules: [DayRule]
    /// The parties cancelled (`--cancel`).
    public let cancelled: [Reservation.ID]
    /// The parties moved to the head of their day's waitlist (`--waitlist`).
    public let waitlisted: [Reservation.ID]
    /// The waitlisted parties given places the change freed.
    public let promoted: [Reservation.ID]

    public init(
        rules: [DayRule], cancelled: [Reservation.ID], waitlisted: [Reservation.ID], promoted: [Reservation.ID]
    ) {
        self.rules = rules
        self.cancelled = cancelled
        self.waitlisted = waitlisted
        self.promoted = promoted
    }

    /// The answer of `POST /landmarks/{id}/days`:
    /// `{"days": [{"landmarkId","date","capacity"?,"closed"?}], "cancelled": [id], "waitlisted": [id], "promoted": [id]}`.
    public var json: JSONValue {
        func ids(_ list: [Reservation.ID]) -> JSONValue { .array(list.map { .string($0.description) }) }
        return .object([
            "days": .array(rules.map(\.json)), "cancelled": ids(cancelled), "waitlisted": ids(waitlisted),
            "promoted": ids(promoted),
        ])
    }

    /// Reads the answer back; nil when it is not one.
    public init?(json: JSONValue) {
        guard case .array(let days)? = json["days"] else { return nil }
        let rules = days.compactMap(DayRule.init(json:))
        guard rules.count == days.count else { return nil }
        func ids(_ key: String) -> [Reservation.ID]? {
            guard case .array(let list)? = json[key] else { return nil }
            let found = list.compactMap { value -> Reservation.ID? in
                if case .string(let text) = value { Reservation.ID(text) } else { nil }
            }
            return found.count == list.count ? found : nil
        }
        guard let cancelled = ids("cancelled"), let waitlisted = ids("waitlisted"), let promoted = ids("promoted")
        else { return nil }
        self.init(rules: rules, cancelled: cancelled, waitlisted: waitlisted, promoted: promoted)
    }
}

extension Landmark {
    /// This landmark with another capacity: how a day's override is told in a refusal's numbers.
    package func with(capacity: Int?) -> Landmark {
        Landmark(
            id: id, name: name, location: location, description: description, category: category,
            isFeatured: isFeatured, imageName: imageName, capacity: capacity, timeZone: timeZone,
            timetable: timetable)
    }
}

extension BookingDay {
    /// The day `date` falls on at `landmark`, whether or not the landmark has a capacity:
    /// where a day's rule is looked for.
    public static func ruled(_ date: Date, at landmark: Landmark) -> BookingDay? {
        Capacity.Day(of: date, in: Capacity.calendar(for: landmark)).map {
            BookingDay(landmark: landmark.id, day: $0)
        }
    }

    /// The calendar day this is, as rules are keyed.
    public var calendarDay: CalendarDay? { CalendarDay(day.text) }
}
