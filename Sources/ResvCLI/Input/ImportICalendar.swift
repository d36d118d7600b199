import Foundation
import ReservationCore

extension ImportFile {
    /// The VEVENTs of a calendar as entries; `user` is folded into the ids of other calendars'
    /// events, and with `newIDs` into every event's (resv's own ids and series made anew).
    static func entries(ics data: Data, user: String, newIDs: Bool = false) throws(NotTheFormat) -> [Entry] {
        let calendar: (events: [ICalendarReader.Event], timeZones: [ICalendarReader.TimeZoneDefinition])
        do { calendar = try ICalendarReader.calendar(data) } catch {
            throw NotTheFormat(line: error.line, reason: error.reason)
        }
        var zones: [String: Result<DefinedTimeZone, ReservationError>] = [:]
        for definition in calendar.timeZones {
            guard let tzid = definition.tzid, zones[tzid] == nil else { continue }
            zones[tzid] = Result { () throws(ReservationError) in try DefinedTimeZone(definition) }
        }
        return calendar.events.map { entry($0, user: user, newIDs: newIDs, zones: zones) }
    }

    /// A problem of an event: its error, and how the skipped events are counted by it.
    private typealias Problem = (error: ReservationError, kind: Unbookable)

    private static func entry(
        _ event: ICalendarReader.Event, user: String, newIDs: Bool,
        zones: [String: Result<DefinedTimeZone, ReservationError>]
    ) -> Entry {
        let uid = event.text("UID")
        let recurrence = event.first("RECURRENCE-ID")?.value
        let summary = event.text("SUMMARY")
        let location = event.text("LOCATION")
        // The first problem found is the one said; its kind is how the skipped events are counted.
        var problems: [Problem] = []
        // The UID alone names the event (the same id on every backend); --new-ids folds the user in.
        func named(_ fresh: Bool) -> (id: Reservation.ID, base: String) {
            let base = [
                fresh ? user : "",
                uid ?? "no UID: \(event.first("DTSTART")?.value ?? "")\n\(summary ?? "")\n\(location ?? "")",
            ]
            .joined(separator: "\n")
            let own = fresh ? nil : uid.flatMap(resvID)
            return (own ?? Reservation.ID(NameBasedID.uuid(base + (recurrence.map { "\n" + $0 } ?? ""))), base)
        }
        let (id, idBase) = named(newIDs)
        let other = named(!newIDs)
        var landmark = LandmarkHint.words(location: location, summary: summary)
        if let text = event.first("X-RESV-LANDMARK")?.value, let landmarkID = Landmark.ID(text) {
            landmark = .id(landmarkID, name: summary.map { ownName($0) })
        }
        let partySize = partySize(of: event, summary: summary, &problems)
        let status = status(of: event, &problems)
        let note = note(of: event, uid: uid, &problems)
        let series = series(of: event, user: user, newIDs: newIDs, &problems)
        let start = start(of: event, zones: zones, &problems)
        let repeats = ["RRULE", "RDATE", "EXRULE"].contains { name in event.first(name) != nil }
        var rule: Rule?
        if repeats {
            switch Self.rule(event) {
            case .success(let read): rule = read
            case .failure(let error): problems.append((error, .recurrence))
            }
        }
        return Entry(
            line: event.line, origin: "event '\((uid ?? "without a UID").prefix(80))'", id: id, landmark: landmark,
            start: start, partySize: partySize, status: status, note: note?.isEmpty == true ? nil : note,
            series: series, problem: problems.first?.error, kind: problems.first?.kind ?? .unreadable, rule: rule,
            idBase: idBase, otherID: other.id == id ? nil : other.id, otherBase: other.id == id ? nil : other.base,
            uid: uid, repeats: repeats, changesVisit: recurrence != nil)
    }

    /// `X-RESV-PARTY-SIZE`, else "party of N" at the end of the SUMMARY, else 1.
    private static func partySize(
        of event: ICalendarReader.Event, summary: String?, _ problems: inout [Problem]
    ) -> Int {
        do throws(ReservationError) {
            if let text = event.first("X-RESV-PARTY-SIZE")?.value {
                return try party(text, field: "X-RESV-PARTY-SIZE")
            } else if let summary, let range = summary.range(of: "party of ", options: [.backwards, .caseInsensitive]) {
                let said = summary[range.upperBound...].prefix { $0.isASCII && ($0.isNumber || $0 == "-" || $0 == "+") }
                if said.contains(where: \.isNumber) { return try party(String(said), field: "SUMMARY's party") }
            }
        } catch {
            problems.append((error, .party))
        }
        return 1
    }

    /// `X-RESV-STATUS` (resv's own), else the event's STATUS: cancelled, tentative (pending), or confirmed.
    private static func status(of event: ICalendarReader.Event, _ problems: inout [Problem]) -> Reservation.Status {
        let status: Reservation.Status =
            switch event.first("STATUS")?.value.uppercased() {
            case "CANCELLED"?: .cancelled
            case "TENTATIVE"?: .pending
            default: .confirmed
            }
        guard let text = event.first("X-RESV-STATUS")?.value else { return status }
        if let given = Reservation.Status(rawValue: text) { return given }
        problems.append(
            (.invalidRequestField("X-RESV-STATUS '\(text.prefix(32))'", "is not a status of resv"), .unreadable))
        return status
    }

    /// `X-RESV-NOTE` (base64, resv's own), else the DESCRIPTION: resv's own is the reservation in
    /// words, then "Note: …" on a line of its own; another calendar's is the note whole.
    private static func note(of event: ICalendarReader.Event, uid: String?, _ problems: inout [Problem]) -> String? {
        if let encoded = event.first("X-RESV-NOTE")?.value {
            if let data = Data(base64Encoded: encoded), let text = String(data: data, encoding: .utf8) { return text }
            problems.append((.invalidRequestField("X-RESV-NOTE", "is not base64 of UTF-8 text"), .unreadable))
            return nil
        }
        guard let description = event.text("DESCRIPTION") else { return nil }
        guard uid.flatMap(resvID) != nil else { return description }
        return description.range(of: "\nNote: ").map { String(description[$0.upperBound...]) }
    }

    /// `X-RESV-SERIES`, a UUID; with `newIDs`, another user's series booked anew as the importing user's own.
    private static func series(
        of event: ICalendarReader.Event, user: String, newIDs: Bool, _ problems: inout [Problem]
    ) -> Reservation.SeriesID? {
        guard let text = event.first("X-RESV-SERIES")?.value else { return nil }
        guard Reservation.SeriesID(text) != nil else {
            problems.append((.invalidRequestField("X-RESV-SERIES '\(text.prefix(40))'", "is not a UUID"), .unreadable))
            return nil
        }
        guard newIDs else { return Reservation.SeriesID(text) }
        return Reservation.SeriesID(NameBasedID.uuid([user, "series", text].joined(separator: "\n")))
    }

    /// The one DTSTART (`start(_:zones:)`); two are refused, as is one that does not read.
    private static func start(
        of event: ICalendarReader.Event, zones: [String: Result<DefinedTimeZone, ReservationError>],
        _ problems: inout [Problem]
    ) -> Start? {
        let starts = event.properties.filter { $0.name == "DTSTART" }
        if starts.count > 1 {
            problems.append(
                (
                    .invalidRequestField(
                        "DTSTART", "is given \(starts.count) times: an event has one start (which is meant?)"),
                    .twoStarts
                ))
        }
        let (start, startProblem) = start(starts.first, zones: zones)
        if let startProblem {
            let zoned = starts.first?.parameters["TZID"] != nil && !Self.isAllDay(starts.first) && start != nil
            problems.append((startProblem, Self.isAllDay(starts.first) ? .allDay : zoned ? .zone : .unreadable))
        }
        return start
    }

    /// A party size as written (`X-RESV-PARTY-SIZE`, "party of N", a CSV's `partySize`): a
    /// number from 1 to the most a party may be; a negative, zero, huge or unreadable one is refused.
    static func party(_ text: String, field: String) throws(ReservationError) -> Int {
        let digits = text.drop { $0 == "+" || $0 == "-" }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), text.count - digits.count <= 1 else {
            throw .invalidRequestField("\(field) '\(text.prefix(32))'", "is not a number")
        }
        let size = text.hasPrefix("-") ? nil : Int(digits)
        guard let size, Reservation.partySizes.contains(size) else {
            throw .invalidRequestField(
                "\(field) '\(text.prefix(32))'",
                "is not a party size: a party is \(Reservation.partySizes.lowerBound) to \(Reservation.partySizes.upperBound)"
            )
        }
        return size
    }

    /// The event's RRULE, when `reserve --every` can book it; else why not.
    private static func rule(_ event: ICalendarReader.Event) -> Result<Rule, ReservationError> {
        let books = "resv books FREQ=DAILY, WEEKLY or MONTHLY, INTERVAL=1, with COUNT or UNTIL (and EXDATE)"
        func beyond(_ what: String, _ why: String) -> Result<Rule, ReservationError> {
            .failure(.invalidRequestField(String(what.prefix(80)), "\(why): \(books)"))
        }
        for name in ["RDATE", "EXRULE"] where event.first(name) != nil {
            return beyond(name, "adds visits or exceptions beyond a rule")
        }
        let rules = event.properties.filter { $0.name == "RRULE" }
        guard rules.count == 1 else { return beyond("RRULE", "is given \(rules.count) times") }
        var parts: [String: String] = [:]
        for part in rules[0].value.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { return beyond("RRULE '\(rules[0].value)'", "is not NAME=VALUE;…") }
            parts[pair[0].uppercased()] = String(pair[1]).uppercased()
        }
        let every: Recurrence
        switch parts["FREQ"] {
        case "DAILY"?: every = .day
        case "WEEKLY"?: every = .week
        case "MONTHLY"?: every = .month
        default: return beyond("RRULE FREQ=\(parts["FREQ"] ?? "")", "repeats otherwise")
        }
        if let interval = parts["INTERVAL"], interval != "1" {
            return beyond("RRULE INTERVAL=\(interval)", "skips periods")
        }
        for name in parts.keys.sorted() {
            switch name {
            case "FREQ", "INTERVAL", "COUNT", "UNTIL", "WKST": continue
            case "BYDAY" where every == .week: continue
            case "BYMONTHDAY" where every == .month: continue
            default: return beyond("RRULE \(name)=\(parts[name] ?? "")", "picks days otherwise")
            }
        }
        var count: Int?
        if let text = parts["COUNT"] {
            guard let number = Int(text), number >= 1 else { return beyond("RRULE COUNT=\(text)", "is not a count") }
            count = number
        }
        guard (count == nil) != (parts["UNTIL"] == nil) else {
            return beyond("RRULE", count == nil ? "never ends (no COUNT or UNTIL)" : "has both COUNT and UNTIL")
        }
        if let byDay = parts["BYDAY"], byDay.count != 2 || weekdays[byDay] == nil {
            return beyond("RRULE BYDAY=\(byDay)", "is not one day of the week")
        }
        var byMonthDay: Int?
        if let text = parts["BYMONTHDAY"] {
            guard let day = Int(text), (1...31).contains(day) else {
                return beyond("RRULE BYMONTHDAY=\(text)", "is not one day of the month")
            }
            byMonthDay = day
        }
        return .success(
            Rule(
                every: every, count: count, until: parts["UNTIL"], byDay: parts["BYDAY"], byMonthDay: byMonthDay,
                exdates: event.properties.filter { $0.name == "EXDATE" }))
    }

    /// iCalendar's two-letter days, as `CalendarDay.weekday` numbers them (Sunday 1).
    static let weekdays = ["SU": 1, "MO": 2, "TU": 3, "WE": 4, "TH": 5, "FR": 6, "SA": 7]

    /// Whether DTSTART is a day alone (`VALUE=DATE`, or eight digits): an all-day event.
    private static func isAllDay(_ property: ICalendarReader.Property?) -> Bool {
        guard let property else { return false }
        let value = property.value.trimmingCharacters(in: .whitespaces)
        return property.parameters["VALUE"]?.uppercased() == "DATE"
            || (value.count == 8 && value.allSatisfy { $0.isASCII && $0.isNumber })
    }

    /// The id of resv's own UID, `<uuid>@resv`.
    private static func resvID(_ uid: String) -> Reservation.ID? {
        guard uid.hasSuffix("@resv"), uid.count == 41 else { return nil }
        return Reservation.ID(String(uid.prefix(36)))
    }

    /// resv's SUMMARY without its ", party of N" and mark: the landmark's name.
    private static func ownName(_ summary: String) -> String {
        guard let range = summary.range(of: ", party of ", options: .backwards) else { return summary }
        return String(summary[..<range.lowerBound])
    }

    /// N of "party of N" in a summary.
    private static func partyOf(_ summary: String) -> Int? {
        guard let range = summary.range(of: "party of ", options: [.backwards, .caseInsensitive]) else { return nil }
        return Int(summary[range.upperBound...].prefix { $0.isASCII && $0.isNumber })
    }

    /// DTSTART: in UTC (`…Z`), in a `TZID` zone, or floating (the landmark's zone); a
    /// date alone (an all-day event) is refused, and ends with its day.
    private static func start(
        _ property: ICalendarReader.Property?, zones: [String: Result<DefinedTimeZone, ReservationError>]
    ) -> (Start?, ReservationError?) {
        guard let property else { return (nil, nil) }
        let value = property.value.trimmingCharacters(in: .whitespaces)
        let digits = value.unicodeScalars.filter { CharacterSet.decimalDigits.contains($0) }
        func iso(_ text: Substring) -> String {
            let d = Array(text)
            return "\(String(d[0..<4]))-\(String(d[4..<6]))-\(String(d[6..<8]))"
        }
        var zone: TimeZone?
        var zoneProblem: ReservationError?
        var defined: DefinedTimeZone?
        if let tzid = property.parameters["TZID"] {
            let name = tzid.hasPrefix("/") ? String(tzid.dropFirst()) : tzid
            // An IANA name, else a Windows name (Outlook's `W. Europe Standard Time`) by CLDR's table.
            zone = TimeZone(identifier: name) ?? WindowsZones.zone(named: name)
            switch zones[tzid] {
            case .success(let definition)?: defined = definition
            case .failure(let problem)?: zoneProblem = problem
            case nil:
                if zone == nil {
                    zoneProblem = .invalidRequestField(
                        "TZID '\(tzid.prefix(64))'",
                        "is not a time zone resv knows: use an IANA name such as Europe/Paris")
                }
            }
        }
        if value.count == 8, digits.count == 8 || property.parameters["VALUE"]?.uppercased() == "DATE" {
            guard digits.count == 8 else {
                return (nil, .invalidRequestField("DTSTART '\(value.prefix(32))'", "is not a date (20261201)"))
            }
            return (
                .wall(iso(value[...]) + "T23:59:59", zone: zone),
                .invalidRequestField(
                    "DTSTART '\(value)'", "is a day without a time (an all-day event): resv books a visit at a time")
            )
        }
        let utc = value.hasSuffix("Z") || value.hasSuffix("z")
        let body = utc ? value.dropLast() : value[...]
        guard body.count == 15, digits.count == 14, body[body.index(body.startIndex, offsetBy: 8)] == "T" else {
            return (
                nil, .invalidRequestField("DTSTART '\(value.prefix(32))'", "is not a date-time (20261201T100000Z)")
            )
        }
        let time = Array(body.suffix(6))
        let text =
            iso(body) + "T\(String(time[0..<2])):\(String(time[2..<4])):\(String(time[4..<6]))"
        if utc {
            do { return (.instant(try DateTime.parse(text + "Z")), nil) } catch { return (nil, .invalidDate(error)) }
        }
        if let defined, zoneProblem == nil {
            // The file's own VTIMEZONE decides; where it agrees with the zone of that name, the
            // zone (which a repeating event's visits need) is taken.
            guard let (day, seconds) = DefinedTimeZone.wall(String(body)),
                let instant = defined.instant(day: day, seconds: seconds)
            else {
                return (
                    nil,
                    .invalidRequestField(
                        "DTSTART '\(value.prefix(32))'",
                        "is not a time in the file's VTIMEZONE '\(property.parameters["TZID"]?.prefix(64) ?? "")' "
                            + "(its clocks skip it)")
                )
            }
            if let zone, (try? TypedDate.resolve(text, now: instant, zone: zone)) == instant {
                return (.wall(text, zone: zone), nil)
            }
            return (.defined(instant), nil)
        }
        return (.wall(text, zone: zone), zoneProblem)
    }
}
