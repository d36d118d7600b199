import Foundation

// A landmark's `hours` and `slots` fields, read and written (docs/contracts.md, "Timed entry").

extension Timetable {
    /// Maps a landmark's `hours` or `slots` field, each plan checked against the day's
    /// `capacity`; the error is the reason the landmark is refused.
    static func mapping(
        _ json: JSONValue, slots: Bool, dayCapacity: Int?
    ) throws(LandmarkRejection) -> Timetable {
        let field = slots ? "slots" : "hours"
        guard case .object(let fields) = json else {
            throw .invalidTimetable(field, "is \(json.typeName), not an object")
        }
        func plan(_ json: JSONValue, _ place: String) throws(LandmarkRejection) -> DayPlan {
            do throws(TimetableProblem) {
                return try slots ? DayPlan.slots(json, dayCapacity: dayCapacity) : DayPlan.hours(json)
            } catch {
                throw .invalidTimetable(field + place, error.text)
            }
        }
        let weekdayKeys = fields.keys.filter { Timetable.weekdays.contains($0) }
        if weekdayKeys.isEmpty { return Timetable(daily: try plan(json, "")) }
        if let stray = fields.keys.sorted().first(where: { !Timetable.weekdays.contains($0) }) {
            throw .invalidTimetable(field, "mixes weekdays with '\(stray.quoted())': give one plan, or one per weekday")
        }
        var byWeekday: [Int: DayPlan] = [:]
        for (index, key) in Timetable.weekdays.enumerated() {
            guard let value = fields[key], value != .null else { continue }
            byWeekday[index + 1] = try plan(value, ".\(key)")
        }
        guard !byWeekday.isEmpty else { throw .invalidTimetable(field, "gives no weekday a plan") }
        return Timetable(byWeekday: byWeekday)
    }

    /// The field as stored and answered: one plan, or one object per weekday.
    public var json: JSONValue {
        if let daily { return daily.json }
        var fields: [String: JSONValue] = [:]
        for (weekday, plan) in byWeekday { fields[Timetable.weekdays[weekday - 1]] = plan.json }
        return .object(fields)
    }
}

/// Why one plan of `hours` or `slots` is refused, in words after the field's name.
struct TimetableProblem: Error {
    let text: String
    init(_ text: String) { self.text = text }
}

extension DayPlan {
    /// `{"open": "08:00", "close": "17:00"}`: the close after the open.
    static func hours(_ json: JSONValue) throws(TimetableProblem) -> DayPlan {
        let fields = try object(json, keys: ["open", "close"])
        let open = try time(fields, "open")
        let close = try time(fields, "close")
        guard open < close else { throw TimetableProblem("close \(close) is not after open \(open)") }
        return .hours(open: open, close: close)
    }

    /// `{"every": "PT1H", "first": "08:00", "last": "15:00", "capacity": 10}`: `every` from
    /// 15 minutes to 24 hours dividing the window from first to last, the capacity at most the day's.
    static func slots(_ json: JSONValue, dayCapacity: Int?) throws(TimetableProblem) -> DayPlan {
        let fields = try object(json, keys: ["every", "first", "last", "capacity"])
        guard case .string(let everyText)? = fields["every"] else {
            throw TimetableProblem("every is missing or not a string: give an ISO 8601 duration such as PT1H")
        }
        guard let every = minutes(ofDuration: everyText) else {
            throw TimetableProblem("every '\(everyText.quoted())' is not a duration in whole minutes such as PT30M")
        }
        guard slotLengths.contains(every) else {
            throw TimetableProblem("every \(everyText) is not from 15 minutes (PT15M) to 24 hours (PT24H)")
        }
        let first = try time(fields, "first")
        let last = try time(fields, "last")
        guard first <= last else { throw TimetableProblem("last \(last) is before first \(first)") }
        guard (last.minutes - first.minutes) % every == 0 else {
            throw TimetableProblem("every \(everyText) does not divide the window \(first)–\(last)")
        }
        let capacity: Int
        switch fields["capacity"] {
        case .integer(let value)?: capacity = Int(exactly: value) ?? 0
        case .double(let value)?:
            guard let whole = Int(exactly: value) else { throw TimetableProblem("capacity is not a whole number") }
            capacity = whole
        default: throw TimetableProblem("capacity is missing or not a number: give each slot's places")
        }
        guard capacity > 0, capacity <= DayRule.capacityLimit else {
            throw TimetableProblem("capacity \(capacity) is not from 1 to 1,000,000")
        }
        if let dayCapacity, capacity > dayCapacity {
            throw TimetableProblem("capacity \(capacity) is above the day's capacity \(dayCapacity)")
        }
        return .slots(every: every, first: first, last: last, capacity: capacity)
    }

    private static func object(_ json: JSONValue, keys: Set<String>) throws(TimetableProblem) -> [String: JSONValue] {
        guard case .object(let fields) = json else { throw TimetableProblem("is \(json.typeName), not an object") }
        if let unknown = fields.keys.sorted().first(where: { !keys.contains($0) }) {
            throw TimetableProblem(
                "has an unknown key '\(unknown.quoted())': give \(keys.sorted().joined(separator: ", "))")
        }
        return fields
    }

    private static func time(_ fields: [String: JSONValue], _ key: String) throws(TimetableProblem) -> WallTime {
        guard case .string(let text)? = fields[key] else {
            throw TimetableProblem("\(key) is missing or not a string: give a wall time such as 08:00")
        }
        guard let time = WallTime(text) else {
            throw TimetableProblem("\(key) '\(text.quoted())' is not a time from 00:00 to 23:59")
        }
        return time
    }

    /// The minutes of an ISO 8601 duration of hours and minutes (`PT1H30M`) or days (`P1D`);
    /// nil for anything else (seconds, months, a fraction).
    static func minutes(ofDuration text: String) -> Int? {
        guard text.hasPrefix("P") else { return nil }
        // Each unit at most once, in order: days, then (after T) hours, then minutes.
        let units: [String: (factor: Int, rank: Int)] = ["D": (1440, 0), "TH": (60, 1), "TM": (1, 2)]
        var total = 0
        var number = ""
        var inTime = false
        var lastRank = -1
        for character in text.dropFirst() {
            if character.isASCII, character.isNumber {
                number.append(character)
            } else if character == "T", !inTime, number.isEmpty {
                inTime = true
            } else {
                guard let value = Int(number), value <= 100_000,
                    let unit = units[inTime ? "T\(character)" : String(character)], unit.rank > lastRank
                else { return nil }
                lastRank = unit.rank
                total += value * unit.factor
                number = ""
            }
        }
        guard number.isEmpty, lastRank >= (inTime ? 1 : 0) else { return nil }
        return total
    }

    /// The plan as stored and answered.
    var json: JSONValue {
        switch self {
        case .hours(let open, let close):
            return .object(["open": .string(open.description), "close": .string(close.description)])
        case .slots(let every, let first, let last, let capacity):
            let duration =
                every % 60 == 0 ? "PT\(every / 60)H" : every > 60 ? "PT\(every / 60)H\(every % 60)M" : "PT\(every)M"
            return .object([
                "every": .string(duration), "first": .string(first.description), "last": .string(last.description),
                "capacity": .integer(Int64(capacity)),
            ])
        }
    }
}
