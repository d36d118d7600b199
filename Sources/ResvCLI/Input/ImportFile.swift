import ArgumentParser
import Foundation
import ReservationCore

/// What `resv import` reads: the events of an iCalendar file or the rows of a
/// CSV file, each an `Entry` (its id, landmark, start, party, status, note as
/// the file says them), then, against a catalog and a time, an `Outcome`: a
/// request to book, an event that has ended (skipped), or a refusal.
///
/// Ids: resv's own export keeps its reservation's id (`UID:<id>@resv`, the CSV's
/// `id`), so it comes back as itself; another calendar's event gets a name-based
/// UUID (`NameBasedID`) of the user and its UID (and `RECURRENCE-ID`), the same
/// at every import, so importing twice finds it there; the user is folded in
/// because an id is unique across a server's users.
enum ImportFile {
    enum Format: String, CaseIterable, Sendable {
        case ics, csv

        /// The format a file's name says; nil for another extension.
        init?(path: String) {
            switch (path as NSString).pathExtension.lowercased() {
            case "ics", "ical", "ifb", "icalendar": self = .ics
            case "csv": self = .csv
            default: return nil
            }
        }
    }

    /// The most a file may hold: room for far more events than a batch takes (10,000).
    static let maxBytes = 16 << 20

    /// Why a file is not of its format (exit 65): the line, and what is wrong there.
    struct NotTheFormat: Error {
        var line: Int
        var reason: String
    }

    /// One event or row, as the file says it.
    struct Entry {
        /// The line it starts on (a refusal names it), and how to name it: `event 'UID'`, `row 3`.
        var line: Int
        var origin: String
        var id: Reservation.ID
        var landmark: LandmarkHint
        var start: Start?
        var partySize: Int
        /// As the file says it: a cancelled or expired one has ended.
        var status: Reservation.Status
        var note: String?
        /// resv's series it was booked in (`X-RESV-SERIES`, the CSV's `series`), kept as it was.
        var series: Reservation.SeriesID?
        /// Why it cannot be booked, whatever the catalog and the time (a value that does not read).
        var problem: ReservationError?
        /// What kind of reason `problem` is, as the skipped events are counted.
        var kind = Unbookable.unreadable
        /// A repeating event's rule (RRULE that `--every` can book): `visits(in:now:)` makes its visits.
        var rule: Rule?
        /// The text its name-based id is made of (the UID; with --new-ids the user and the UID),
        /// and its visits' ids and series'.
        var idBase = ""
        /// The id the other choice of --new-ids makes (and the text of its visits' ids), when it is
        /// another: an event booked under it is already there.
        var otherID: Reservation.ID?
        var otherBase: String?
        /// The event's UID, as the file says it (a CSV row has none).
        var uid: String?
        /// It has an RRULE, RDATE or EXRULE: its start alone does not say whether it has ended.
        var repeats = false
        /// It has a RECURRENCE-ID: it changes one visit of a repeating event.
        var changesVisit = false
    }

    /// Why an event is not booked (skipped and counted, or, with --strict, refused), in the
    /// words of the count `import` prints.
    enum Unbookable: String, CaseIterable, Sendable {
        case allDay = "all-day"
        case recurrence = "repeating beyond --every"
        case landmark = "landmark not found"
        case zone = "time zone not read"
        case twoStarts = "two DTSTARTs"
        case party = "party out of range"
        case unreadable = "unreadable"
        case refused = "refused"
    }

    /// An RRULE that `reserve --every` can book: FREQ DAILY, WEEKLY or MONTHLY, INTERVAL 1,
    /// COUNT or UNTIL, BYDAY or BYMONTHDAY only as the start's own day, and EXDATEs.
    struct Rule {
        var every: Recurrence
        var count: Int?
        /// UNTIL as written (a date or a date-time, UTC or floating).
        var until: String?
        /// BYDAY (two letters, WEEKLY) or BYMONTHDAY (MONTHLY) as given: each must be the first visit's.
        var byDay: String?
        var byMonthDay: Int?
        var exdates: [ICalendarReader.Property]
    }

    /// How an entry names its landmark.
    enum LandmarkHint {
        /// resv's own: the landmark's id, and its name when the id is not in this catalog.
        case id(Landmark.ID, name: String?)
        /// A CSV's `landmark` column: an id, a name or its words, as `--landmark` reads it.
        case typed(String)
        /// Another calendar's event: a landmark whose name is in LOCATION, else in SUMMARY,
        /// else whose location LOCATION is.
        case words(location: String?, summary: String?)
    }

    /// When it starts.
    enum Start {
        case instant(Date)
        /// An instant read in the file's own VTIMEZONE, which differs from the zone of that name.
        case defined(Date)
        /// A wall time (`2026-12-01T08:00:00`) in this zone, or the landmark's (nil).
        case wall(String, zone: TimeZone?)
    }

    /// Why an event is skipped as ended.
    enum Ended: String, CaseIterable {
        case cancelled, past
    }

    enum Outcome {
        case book(NewReservation)
        case ended(Ended)
        case refused(ReservationError, Unbookable)
    }
}

// MARK: - From an entry to a request

extension ImportFile.Entry {
    /// What becomes of it at `now`: cancelled or passed, it has ended; else it is a
    /// request (resv's statuses: confirmed stays confirmed, pending and held come
    /// back pending, waitlisted pending on the waitlist), or the reason it cannot be.
    func outcome(in catalog: LandmarkCatalog, now: Date) -> ImportFile.Outcome {
        guard status.isActive else { return .ended(.cancelled) }
        let landmark: Landmark
        var kind = kind
        do throws(ReservationError) {
            if let problem { throw problem }
            kind = .unreadable
            guard start != nil else { throw .invalidRequestField("DTSTART", "is missing: an event needs its start") }
            kind = .landmark
            landmark = try resolveLandmark(in: catalog)
        } catch {
            // A visit that has passed is skipped, whatever else is wrong with it (a series: its rule).
            return roughlyPast(now) && !repeats ? .ended(.past) : .refused(error, kind)
        }
        if rule != nil {
            return .refused(.invalidRequestField("RRULE", "is not read into visits (a bug)"), .recurrence)
        }
        do throws(ReservationError) {
            let date: Date
            switch start {
            case .instant(let instant)?, .defined(let instant)?: date = instant
            case .wall(let text, let zone)?:
                date = try TypedDate.resolve(text, now: now, zone: zone ?? landmark.timeZone ?? .gmt)
            case nil: return .refused(.invalidRequestField("DTSTART", "is missing"), .unreadable)
            }
            guard date > now else { return .ended(.past) }
            var request = try NewReservation(
                landmark: landmark.id.description, date: date, partySize: partySize,
                status: status == .confirmed ? .confirmed : .pending, note: note, waitlist: status == .waitlisted,
                series: series, now: now)
            request.id = id
            return .book(request)
        } catch {
            if case .invalidPartySize = error { return .refused(error, .party) }
            return .refused(error, .unreadable)
        }
    }

    /// A repeating event's visits, each an entry of its own with its own id (of the UID and
    /// the visit's start, as a `RECURRENCE-ID` would name it) carrying one series (of the
    /// UID): the first visit's wall time every day, week or month (`reserve --every`), in
    /// its TZID zone, the landmark's when floating, UTC when given in UTC; EXDATEs left out.
    /// Itself when it does not repeat or cannot be read (its outcome says why); when its rule
    /// cannot be booked (`changed`: the file changes its visits one by one with RECURRENCE-ID),
    /// itself with that problem.
    func visits(in catalog: LandmarkCatalog, now: Date, changed: Bool) -> [ImportFile.Entry] {
        guard let rule, status.isActive, problem == nil, let start,
            let landmark = try? resolveLandmark(in: catalog)
        else { return [self] }
        var alone = self
        alone.rule = nil
        alone.kind = .recurrence
        do throws(ReservationError) {
            if changed {
                throw .invalidRequestField(
                    "RECURRENCE-ID",
                    "changes visits of this series one by one: resv books a series only as its RRULE says")
            }
            let zone: TimeZone
            let first: Date
            let utc: Bool
            switch start {
            case .instant(let date): (zone, first, utc) = (.gmt, date, true)
            case .defined:
                throw .invalidRequestField(
                    "RRULE",
                    "repeats in the file's own VTIMEZONE, whose clocks differ from the zone of that name's: "
                        + "resv books a series in a zone it knows")
            case .wall(let text, let given):
                zone = given ?? landmark.timeZone ?? .gmt
                first = try TypedDate.resolve(text, now: now, zone: zone)
                utc = false
            }
            let firstDay = Self.day(of: first, in: zone)
            if let byDay = rule.byDay, ImportFile.weekdays[byDay] != firstDay.weekday {
                throw .invalidRequestField(
                    "RRULE BYDAY=\(byDay)", "is not the first visit's day: resv books the same day")
            }
            if let byMonthDay = rule.byMonthDay, byMonthDay != firstDay.day {
                throw .invalidRequestField(
                    "RRULE BYMONTHDAY=\(byMonthDay)", "is not the first visit's day: resv books the same day")
            }
            var last: Date?
            var end = Recurrence.End.count(rule.count ?? 1)
            if let count = rule.count, count > Recurrence.longest {
                throw .invalidRequestField(
                    "RRULE COUNT=\(count)", "is more visits than a series books (at most \(Recurrence.longest))")
            }
            let until = rule.until.map { "RRULE UNTIL=\($0.prefix(32))" } ?? ""
            if let text = rule.until {
                guard let (instant, day) = Self.moment(text, zone: zone) else {
                    throw .invalidRequestField(until, "is not a date or a date-time")
                }
                guard day >= firstDay, (instant ?? first) >= first else {
                    throw .invalidRequestField(until, "is before DTSTART")
                }
                last = instant
                end = .until(day)
            }
            var dates: [Date]
            do {
                dates = try rule.every.dates(from: first, to: end, in: zone)
            } catch .invalidSeries {
                throw .invalidRequestField(
                    until, "makes more visits than a series books (at most \(Recurrence.longest))")
            }
            if let last { dates.removeAll { $0 > last } }
            var excludedDays: Set<CalendarDay> = []
            var excluded: Set<Date> = []
            for property in rule.exdates {
                let exZone = property.parameters["TZID"].flatMap { TimeZone(identifier: $0) } ?? zone
                for value in property.value.split(separator: ",") {
                    let text = value.trimmingCharacters(in: .whitespaces)
                    guard let (instant, day) = Self.moment(text, zone: exZone) else {
                        throw .invalidRequestField("EXDATE '\(text.prefix(32))'", "is not a date or a date-time")
                    }
                    if instant == nil { excludedDays.insert(day) } else if let instant { excluded.insert(instant) }
                }
            }
            dates.removeAll { excluded.contains($0) || excludedDays.contains(Self.day(of: $0, in: zone)) }
            guard !dates.isEmpty else { throw .invalidRequestField("EXDATE", "leaves out every visit of the RRULE") }
            let series = Reservation.SeriesID(NameBasedID.uuid(idBase + "\nseries"))
            return dates.map { date in
                var visit = self
                visit.rule = nil
                visit.start = .instant(date)
                visit.series = series
                let named = Self.stamp(date, in: utc ? .gmt : zone) + (utc ? "Z" : "")
                visit.id = Reservation.ID(NameBasedID.uuid(idBase + "\n" + named))
                visit.otherID = otherBase.map { Reservation.ID(NameBasedID.uuid($0 + "\n" + named)) }
                visit.origin = "\(origin) on \(Self.day(of: date, in: zone))"
                return visit
            }
        } catch {
            alone.problem = error
            return [alone]
        }
    }

    /// The day at `zone` of an instant.
    private static func day(of date: Date, in zone: TimeZone) -> CalendarDay {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return CalendarDay(date, in: calendar)
    }

    /// `20310701T100000`, the wall time at `zone` as iCalendar writes it.
    private static func stamp(_ date: Date, in zone: TimeZone) -> String {
        let day = day(of: date, in: zone)
        let seconds = Int(date.timeIntervalSince1970.rounded(.down)) + zone.secondsFromGMT(for: date)
        let time = (seconds % 86_400 + 86_400) % 86_400
        return String(
            format: "%04d%02d%02dT%02d%02d%02d", day.year, day.month, day.day, time / 3600, time / 60 % 60, time % 60)
    }

    /// An UNTIL or EXDATE value: a date-time (UTC with `Z`, else a wall time at `zone`) with
    /// its day at `zone`, or a date alone (nil instant); nil when it is neither.
    private static func moment(_ text: String, zone: TimeZone) -> (Date?, CalendarDay)? {
        let digits = text.filter { $0.isASCII && $0.isNumber }
        let chars = Array(text)
        guard digits.count == 8 || digits.count == 14, chars.count >= 8 else { return nil }
        guard let day = CalendarDay("\(String(chars[0..<4]))-\(String(chars[4..<6]))-\(String(chars[6..<8]))")
        else { return nil }
        if text.count == 8 { return (nil, day) }
        let utc = text.hasSuffix("Z") || text.hasSuffix("z")
        guard chars.count == (utc ? 16 : 15), chars[8] == "T" else { return nil }
        let time = "\(String(chars[9..<11])):\(String(chars[11..<13])):\(String(chars[13..<15]))"
        let iso = "\(day)T\(time)"
        if utc {
            guard let instant = try? DateTime.parse(iso + "Z") else { return nil }
            return (instant, Self.day(of: instant, in: zone))
        }
        guard let instant = try? TypedDate.resolve(iso, now: Date(timeIntervalSince1970: 0), zone: zone) else {
            return nil
        }
        return (instant, day)
    }

    /// Whether the start has passed at `now` in any zone (a wall time read 14 hours
    /// later, the farthest zone behind): an event of a landmark not found is skipped
    /// as ended only then.
    private func roughlyPast(_ now: Date) -> Bool {
        switch start {
        case .instant(let date)?, .defined(let date)?: return date <= now
        case .wall(let text, let zone)?:
            guard let date = try? TypedDate.resolve(text, now: now, zone: zone ?? .gmt) else { return false }
            return date.addingTimeInterval(zone == nil ? 14 * 3600 : 0) <= now
        case nil: return false
        }
    }

    private func resolveLandmark(in catalog: LandmarkCatalog) throws(ReservationError) -> Landmark {
        switch landmark {
        case .id(let id, let name):
            if let known = catalog[id] { return known }
            guard let name else { throw .unknownLandmark(id.description) }
            return try catalog.landmark(matching: name)
        case .typed(let text):
            return try catalog.landmark(matching: text)
        case .words(let location, let summary):
            for text in [location, summary].compactMap(\.self) {
                if let found = try ImportFile.landmark(namedIn: text, catalog) { return found }
            }
            if let location {
                let placed = catalog.landmarks.filter { Words.of($0.location) == Words.of(location) }
                if placed.count == 1 { return placed[0] }
                if placed.count > 1 { throw .ambiguousLandmark(location, placed) }
            }
            let said = [("LOCATION", location), ("SUMMARY", summary)].compactMap { name, text in
                text.map { "\(name) '\($0.prefix(80))'" }
            }
            throw .invalidRequestField(
                said.isEmpty ? "the event" : said.joined(separator: " and "),
                "\(said.count > 1 ? "name" : "names") no landmark (see 'resv landmarks'): put its name in LOCATION")
        }
    }
}

extension ImportFile {
    /// The landmark whose whole name is among the words of `text`, in order (`Hike
    /// to Half Dome` → Half Dome); of several, the longest name; nil for none.
    static func landmark(namedIn text: String, _ catalog: LandmarkCatalog) throws(ReservationError) -> Landmark? {
        let words = Words.of(text)
        var found: [(landmark: Landmark, length: Int)] = []
        for landmark in catalog.landmarks {
            let name = Words.of(landmark.name)
            guard !name.isEmpty, name.count <= words.count else { continue }
            let contained = (0...(words.count - name.count)).contains { Array(words[$0..<$0 + name.count]) == name }
            if contained { found.append((landmark, name.count)) }
        }
        guard let longest = found.map(\.length).max() else { return nil }
        let best = found.filter { $0.length == longest }.map(\.landmark)
        guard best.count == 1 else { throw .ambiguousLandmark(text, best) }
        return best[0]
    }
}

// MARK: - iCalendar

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

    private static func entry(
        _ event: ICalendarReader.Event, user: String, newIDs: Bool,
        zones: [String: Result<DefinedTimeZone, ReservationError>]
    ) -> Entry {
        let uid = event.text("UID")
        let recurrence = event.first("RECURRENCE-ID")?.value
        let summary = event.text("SUMMARY")
        let location = event.text("LOCATION")
        // The first problem found is the one said; its kind is how the skipped events are counted.
        var problems: [(error: ReservationError, kind: Unbookable)] = []
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
        var partySize = 1
        do throws(ReservationError) {
            if let text = event.first("X-RESV-PARTY-SIZE")?.value {
                partySize = try party(text, field: "X-RESV-PARTY-SIZE")
            } else if let summary, let range = summary.range(of: "party of ", options: [.backwards, .caseInsensitive]) {
                let said = summary[range.upperBound...].prefix { $0.isASCII && ($0.isNumber || $0 == "-" || $0 == "+") }
                if said.contains(where: \.isNumber) { partySize = try party(String(said), field: "SUMMARY's party") }
            }
        } catch {
            problems.append((error, .party))
        }
        var status: Reservation.Status =
            switch event.first("STATUS")?.value.uppercased() {
            case "CANCELLED"?: .cancelled
            case "TENTATIVE"?: .pending
            default: .confirmed
            }
        if let text = event.first("X-RESV-STATUS")?.value {
            if let given = Reservation.Status(rawValue: text) {
                status = given
            } else {
                problems.append(
                    (.invalidRequestField("X-RESV-STATUS '\(text.prefix(32))'", "is not a status of resv"), .unreadable)
                )
            }
        }
        var note: String?
        if let encoded = event.first("X-RESV-NOTE")?.value {
            if let data = Data(base64Encoded: encoded), let text = String(data: data, encoding: .utf8) {
                note = text
            } else {
                problems.append((.invalidRequestField("X-RESV-NOTE", "is not base64 of UTF-8 text"), .unreadable))
            }
        } else if let description = event.text("DESCRIPTION") {
            // resv's own DESCRIPTION is the reservation in words, then "Note: …" on a line of its own.
            if uid.flatMap(resvID) != nil {
                note = description.range(of: "\nNote: ").map { String(description[$0.upperBound...]) }
            } else {
                note = description
            }
        }
        var series: Reservation.SeriesID?
        if let text = event.first("X-RESV-SERIES")?.value {
            series = Reservation.SeriesID(text)
            if series == nil {
                problems.append(
                    (.invalidRequestField("X-RESV-SERIES '\(text.prefix(40))'", "is not a UUID"), .unreadable))
            } else if newIDs {
                // Another user's series, booked anew as the importing user's own.
                series = Reservation.SeriesID(NameBasedID.uuid([user, "series", text].joined(separator: "\n")))
            }
        }
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

// MARK: - CSV

extension ImportFile {
    /// The rows of resv's CSV export (its header names the columns; others are passed
    /// over): `date` and `landmarkId` or `landmark` are needed, `id`, `partySize` (1
    /// when empty), `status` (confirmed when empty), `note` and `series` are read.
    static func entries(csv data: Data, user: String, newIDs: Bool = false) throws(NotTheFormat) -> [Entry] {
        let records = try CSVReader.records(data)
        guard let header = records.first else { throw NotTheFormat(line: 1, reason: "the file is empty") }
        var columns: [String: Int] = [:]
        for (index, name) in header.fields.enumerated() where columns[name] == nil {
            columns[name.trimmingCharacters(in: .whitespaces)] = index
        }
        guard columns["date"] != nil, columns["landmarkId"] != nil || columns["landmark"] != nil else {
            throw NotTheFormat(
                line: 1, reason: "the header row has no date and landmark (or landmarkId) columns: not resv's CSV")
        }
        return records.dropFirst().compactMap { record -> Entry? in
            func field(_ name: String) -> String? {
                guard let index = columns[name], index < record.fields.count else { return nil }
                let value = record.fields[index]
                return value.isEmpty ? nil : value
            }
            guard record.fields.contains(where: { !$0.isEmpty }) else { return nil }
            var problem: ReservationError?
            let landmarkName = field("landmark")
            let landmark: LandmarkHint =
                if let text = field("landmarkId"), let id = Landmark.ID(text) {
                    .id(id, name: landmarkName)
                } else {
                    .typed(landmarkName ?? field("landmarkId") ?? "")
                }
            let given = field("id")
            // As an event's: the row's id (or the row) alone, with --new-ids and the user's name.
            func named(_ fresh: Bool) -> Reservation.ID {
                let base = [fresh ? user : "", "csv", given ?? record.fields.joined(separator: "\u{1F}")]
                return (fresh ? nil : given.flatMap { Reservation.ID($0) })
                    ?? Reservation.ID(NameBasedID.uuid(base.joined(separator: "\n")))
            }
            let id = named(newIDs)
            let otherID = named(!newIDs)
            var partySize = 1
            var kind = Unbookable.unreadable
            if let text = field("partySize") {
                do throws(ReservationError) {
                    partySize = try party(text, field: "partySize")
                } catch {
                    problem = error
                    kind = .party
                }
            }
            var status = Reservation.Status.confirmed
            if let text = field("status") {
                if let given = Reservation.Status(rawValue: text) {
                    status = given
                } else {
                    problem = problem ?? .invalidRequestField("status '\(text.prefix(32))'", "is not a status of resv")
                }
            }
            var series = field("series").flatMap { Reservation.SeriesID($0) }
            if let text = field("series"), series == nil {
                problem = problem ?? .invalidRequestField("series '\(text.prefix(40))'", "is not a UUID")
            } else if let text = field("series"), newIDs {
                series = Reservation.SeriesID(NameBasedID.uuid([user, "series", text].joined(separator: "\n")))
            }
            var start: Start?
            if let text = field("date") {
                start = (try? DateTime.parse(text)).map(Start.instant) ?? .wall(text, zone: nil)
            } else {
                problem = problem ?? .invalidRequestField("date", "is empty")
            }
            return Entry(
                line: record.line, origin: "row \(record.line)", id: id, landmark: landmark, start: start,
                partySize: partySize, status: status, note: field("note"), series: series, problem: problem,
                kind: kind, otherID: otherID == id ? nil : otherID)
        }
    }
}

/// RFC 4180 records: fields split by commas, quoted ones (`"…"`, a quote doubled
/// inside) may hold commas, quotes and line breaks; lines end in CRLF or LF.
enum CSVReader {
    struct Record {
        /// The line it starts on.
        var line: Int
        var fields: [String]
    }

    static func records(_ data: Data) throws(ImportFile.NotTheFormat) -> [Record] {
        var bytes = data[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ImportFile.NotTheFormat(line: 1, reason: "not UTF-8 text")
        }
        if text.unicodeScalars.contains("\0") {
            throw ImportFile.NotTheFormat(line: 1, reason: "not text: it holds NUL")
        }
        var records: [Record] = []
        var fields: [String] = []
        var field = String.UnicodeScalarView()
        var line = 1
        var start = 1
        var quoted = false
        var wasQuoted = false
        var scalars = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar?
        func endRecord() {
            fields.append(String(field))
            records.append(Record(line: start, fields: fields))
            fields = []
            field = String.UnicodeScalarView()
            wasQuoted = false
        }
        while let scalar = pending ?? scalars.next() {
            pending = nil
            if quoted {
                if scalar == "\"" {
                    let next = scalars.next()
                    if next == "\"" {
                        field.append("\"")
                    } else {
                        quoted = false
                        pending = next
                    }
                } else {
                    if scalar == "\n" { line += 1 }
                    field.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"" where field.isEmpty && !wasQuoted:
                quoted = true
                wasQuoted = true
            case ",":
                fields.append(String(field))
                field = String.UnicodeScalarView()
                wasQuoted = false
            case "\r":
                let next = scalars.next()
                if next != "\n" { pending = next }
                endRecord()
                line += 1
                start = line
            case "\n":
                endRecord()
                line += 1
                start = line
            default:
                if wasQuoted {
                    throw ImportFile.NotTheFormat(line: line, reason: "text after a quoted field's closing quote")
                }
                field.append(scalar)
            }
        }
        if quoted { throw ImportFile.NotTheFormat(line: start, reason: "a quoted field is never closed") }
        if !field.isEmpty || !fields.isEmpty || wasQuoted { endRecord() }
        return records
    }
}
