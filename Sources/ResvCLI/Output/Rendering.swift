import Foundation
import ReservationCore
import Synchronization

/// A value with a stable JSON shape (docs/contracts.md): add fields, never rename.
protocol JSONOutput {
    var json: JSONValue { get }
}

extension LandmarkApiModel: JSONOutput {}

/// A reservation's JSON shape in resv's output (`JSONWriter.writeReservation`),
/// its landmark written out in full; each landmark's text is rendered once and
/// reused, so one instance serves one list (or one reservation) at one depth.
struct ReservationJSONWriter {
    private var landmarks: [Landmark.ID: [UInt8]] = [:]
    /// Bookings waiting in the outbox: status `queued` (docs/contracts.md, "Offline").
    var queued: Set<Reservation.ID> = []
    /// Changes waiting in the outbox for reservations the server has: `queued` beside its values.
    var queuedChanges: [Reservation.ID: QueuedChange] = [:]

    init(queued: Set<Reservation.ID> = [], changes: [Reservation.ID: QueuedChange] = [:]) {
        self.queued = queued
        self.queuedChanges = changes
    }

    mutating func write(_ reservation: Reservation, to writer: inout JSONWriter, depth: Int) {
        let landmark = landmarkText(reservation.landmark, pretty: writer.pretty, depth: depth + 1)
        let status = queued.contains(reservation.id) ? Renderer.queuedStatus : reservation.status.rawValue
        writer.writeReservation(
            id: reservation.id.description, landmark: .object(landmark), date: DateTime.format(reservation.date),
            partySize: reservation.partySize, status: status, note: reservation.note,
            createdAt: reservation.createdAt.map(DateTime.format),
            updatedAt: reservation.updatedAt.map(DateTime.format),
            version: reservation.version, expiresAt: reservation.expiresAt.map(DateTime.format),
            waitlistPosition: reservation.waitlistPosition, series: reservation.series?.description,
            queued: queuedJSON(reservation), depth: depth)
    }

    /// `"queued": {"changes": ["modify", …], FIELD: NEW VALUE…}`: the changes waiting for it and the
    /// fields they would change, beside the server's values (docs/contracts.md, "Offline").
    private func queuedJSON(_ reservation: Reservation) -> JSONValue? {
        guard let change = queuedChanges[reservation.id] else { return nil }
        var fields: [String: JSONValue] = ["changes": .array(change.kinds.map { .string($0.rawValue) })]
        for (field, value) in change.changedFields(from: reservation) { fields[field] = value }
        return .object(fields)
    }

    private mutating func landmarkText(_ landmark: Landmark, pretty: Bool, depth: Int) -> [UInt8] {
        if let text = landmarks[landmark.id] { return text }
        var text = JSONWriter(pretty: pretty)
        text.write(LandmarkApiModel(landmark).json, depth: depth)
        landmarks[landmark.id] = text.bytes
        return text.bytes
    }
}

/// Turns domain values into text for one output format.
struct Renderer {
    let format: OutputFormat
    let colour: Bool
    /// Where a visit's time is shown: nil for each at its landmark's time (the default).
    let visitZone: TimeZone?
    /// Where the time of a change is shown: `TZ`, unless `--tz` names another.
    let changeZone: TimeZone

    /// When this output is made: the DTSTAMP of calendar events.
    let now: Date
    /// The terminal's width, which tables fit (cut with "…"); nil when not a terminal.
    let width: Int?
    /// Bookings waiting in a server's outbox, shown with status `queued`.
    var queued: Set<Reservation.ID> = []
    /// Changes waiting in it for reservations the server has, shown beside its values.
    var queuedChanges: [Reservation.ID: QueuedChange] = [:]

    /// The status a queued booking shows: never on the wire, never stored.
    static let queuedStatus = "queued"

    init(_ options: OutputOptions, context: CommandContext) {
        let chosen = options.tz.flatMap { OutputOptions.zone($0, local: context.timeZone) }
        self.init(
            format: options.resolvedFormat, colour: context.usesColour, timeZone: chosen ?? context.timeZone,
            visitZone: chosen, now: context.now(), width: context.terminalSize()?.columns)
        queued = context.queued
        queuedChanges = context.queuedChanges
    }

    /// `timeZone` for the times of changes; `visitZone` for visits, nil for each at its landmark.
    init(
        format: OutputFormat, colour: Bool, timeZone: TimeZone, visitZone: TimeZone? = nil, now: Date,
        width: Int? = nil
    ) {
        self.format = format
        self.colour = colour
        self.now = now
        self.changeZone = timeZone
        self.visitZone = visitZone
        self.width = width
    }

    // MARK: JSON

    /// How one kind of value is written in the formats besides JSON.
    struct Shape<Value> {
        var csvColumns: [String]
        var csvFields: (Value) -> [String?]
        /// Only reservations are calendar events; commands listing anything else refuse `--format ics`.
        var event: ((inout ICalendarWriter, Value) -> Void)?
    }

    /// A list: one array in JSON, one object per line in NDJSON, a header and
    /// a record per value in CSV, a calendar in ICS, else `table`. The text
    /// goes to `output` in pieces as it is written, so a long list is never
    /// held twice in memory.
    func write<Value>(
        list values: [Value], json: (Value) -> JSONValue, shape: Shape<Value>, to output: TextSink,
        table: () -> String
    ) {
        write(
            list: values, element: { writer, value, depth in writer.write(json(value), depth: depth) }, shape: shape,
            to: output, table: table)
    }

    /// `write(list:json:shape:to:table:)` for values that write themselves.
    func write<Value>(
        list values: [Value], element: (inout JSONWriter, Value, Int) -> Void, shape: Shape<Value>,
        to output: TextSink, table: () -> String
    ) {
        let pretty = format == .json
        switch format {
        case .table: return output.write(table())
        case .csv: return writeCSV(values, shape: shape, to: output)
        case .ics:
            guard let event = shape.event else { return writeCSV(values, shape: shape, to: output) }
            return writeCalendar(values, event: event, to: output)
        case .json, .ndjson: break
        }
        guard !values.isEmpty || !pretty else { return output.write(pretty ? "[]\n" : "") }
        var writer = JSONWriter(pretty: pretty, capacity: 1 << 17)
        func flush() { output.write(String(decoding: writer.take(), as: UTF8.self)) }
        if pretty { writer.append("[") }
        for (index, value) in values.enumerated() {
            if pretty {
                if index > 0 { writer.append(",") }
                writer.newline(depth: 1)
            }
            element(&writer, value, pretty ? 1 : 0)
            if !pretty { writer.append("\n") }
            if writer.bytes.count >= 1 << 16 { flush() }
        }
        if pretty { writer.append("\n]\n") }
        flush()
    }

    private func writeCSV<Value>(_ values: [Value], shape: Shape<Value>, to output: TextSink) {
        var csv = CSVWriter(columns: shape.csvColumns)
        for value in values {
            csv.row(shape.csvFields(value))
            if csv.text.utf8.count >= 1 << 16 { output.write(csv.take()) }
        }
        output.write(csv.take())
    }

    private func writeCalendar<Value>(
        _ values: [Value], event: (inout ICalendarWriter, Value) -> Void, to output: TextSink
    ) {
        var calendar = ICalendarWriter(product: "resv \(Resv.version)", stamp: .at(now))
        for value in values {
            event(&calendar, value)
            if calendar.text.utf8.count >= 1 << 16 { output.write(calendar.take()) }
        }
        calendar.finish()
        output.write(calendar.take())
    }

    static var reservationShape: Shape<Reservation> {
        Shape(
            csvColumns: CSVShape.reservationColumns, csvFields: CSVShape.fields,
            event: { calendar, reservation in calendar.event(reservation) })
    }

    /// A single result: one object in JSON and NDJSON, else `human`.
    func single(_ value: some JSONOutput, human: () -> String) -> String {
        single(writing: { writer in writer.write(value.json) }, human: human)
    }

    /// A single reservation: its JSON shape, a one-record CSV or a one-event calendar, else `human`.
    func single(_ reservation: Reservation, human: () -> String) -> String {
        if format == .csv || format == .ics {
            let text = Mutex("")
            let sink = TextSink { piece in text.withLock { $0 += piece } }
            write(reservations: [reservation], to: sink)
            return text.withLock { $0 }
        }
        var shape = ReservationJSONWriter(queued: queued, changes: queuedChanges)
        return single(writing: { writer in shape.write(reservation, to: &writer, depth: 0) }, human: human)
    }

    private func single(writing: (inout JSONWriter) -> Void, human: () -> String) -> String {
        guard format != .table else { return human() }
        var writer = JSONWriter(pretty: format == .json)
        writing(&writer)
        writer.append("\n")
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    // MARK: Human text

    /// Reservations as a list; each landmark's JSON is made once, not once per reservation.
    func write(reservations: [Reservation], to output: TextSink) {
        var shape = ReservationJSONWriter(queued: queued, changes: queuedChanges)
        func element(_ writer: inout JSONWriter, _ reservation: Reservation, _ depth: Int) {
            shape.write(reservation, to: &writer, depth: depth)
        }
        write(list: reservations, element: element, shape: Self.reservationShape, to: output) {
            var header = ["ID", "DATE", "LANDMARK", "PARTY", "STATUS"]
            var rows = reservations.map { reservation in
                let after = queuedChanges[reservation.id]?.after
                return [
                    Cell(reservation.id.short),
                    Cell(beside(reservation, after) { visitDate($0.date, at: $0.landmark) }),
                    Cell(beside(reservation, after, \.landmark.name), cuts: true),
                    Cell(beside(reservation, after) { String($0.partySize) }, alignRight: true),
                    Cell(statusText(reservation), style: style(for: reservation.status), cuts: true),
                ]
            }
            // A SERIES column when one of them is a series' visit: the series' short id, what
            // `cancel --series` takes (as it takes any of its visits' ids).
            if reservations.contains(where: { $0.series != nil }) {
                header.append("SERIES")
                for (index, reservation) in reservations.enumerated() {
                    rows[index].append(Cell(reservation.series?.short ?? "-"))
                }
            }
            // A NOTE column when one of them has a note, its line breaks written out: whole in a
            // pipe; on a terminal in the room the other columns leave, cut with "…", and left out
            // when they leave none (`show` has the note).
            guard reservations.contains(where: { $0.note != nil }) else { return table(header: header, rows: rows) }
            var room = Int.max
            if let width {
                let used = columnWidths(header: header, rows: rows).reduce(0, +) + 2 * header.count
                room = width - used
                guard room >= Self.narrowest else { return table(header: header, rows: rows) }
            }
            let notes = reservations.map { Cell(($0.note ?? "").terminalSafe.cut(toWidth: room), cuts: true) }
            return table(header: header + ["NOTE"], rows: zip(rows, notes).map { $0 + [$1] })
        }
    }

    func reservation(_ reservation: Reservation) -> String {
        single(reservation) { details(reservation) }
    }

    func details(_ reservation: Reservation) -> String {
        let change = queuedChanges[reservation.id]
        let after = change?.after
        var lines: [(String, String)] = [
            ("ID", reservation.id.description),
            (
                "Landmark",
                beside(reservation, after) { "\($0.landmark.name) (\($0.landmark.location))" }.terminalSafe
            ),
            ("Date", beside(reservation, after) { visitDate($0.date, at: $0.landmark) }),
            ("Party", beside(reservation, after) { String($0.partySize) }),
            (
                "Status",
                paint(
                    queued.contains(reservation.id) ? Self.queuedStatus : reservation.status.rawValue,
                    style(for: reservation.status)) + (after.map { queuedStatus(reservation, $0) } ?? "")
            ),
        ]
        if let change {
            lines.append(("Queued", "\(change.summary), sent when the server is reached ('resv outbox')"))
        }
        if let expiresAt = reservation.expiresAt {
            lines.append((reservation.status == .held ? "Expires" : "Expired", localDate(expiresAt)))
        }
        if reservation.status == .waitlisted {
            let then = reservation.requestedStatus == .pending ? "pending" : "confirmed"
            let position = reservation.waitlistPosition.map { "position \($0), " } ?? ""
            lines.append(("Waitlist", "\(position)\(then) when places free"))
        }
        if let note = beside(reservation, after, optional: \.note) { lines.append(("Note", note.terminalSafe)) }
        if let series = reservation.series { lines.append(("Series", series.description)) }
        if let createdAt = reservation.createdAt { lines.append(("Created", localDate(createdAt))) }
        if let updatedAt = reservation.updatedAt { lines.append(("Updated", localDate(updatedAt))) }
        lines.append(("Version", String(reservation.version)))
        return lines.map { $0.0.padding(toLength: 10, withPad: " ", startingAt: 0) + $0.1 + "\n" }.joined()
    }

    /// A status as a table shows it: a hold with its end, a waitlisted one with its position.
    func statusText(_ reservation: Reservation) -> String {
        if queued.contains(reservation.id) { return Self.queuedStatus }
        if let after = queuedChanges[reservation.id]?.after {
            return settledStatusText(reservation) + queuedStatus(reservation, after)
        }
        return settledStatusText(reservation)
    }

    /// What a change queued for it would make of its status: " → cancelled (queued)", or
    /// " (queued)" when its status stays.
    func queuedStatus(_ reservation: Reservation, _ after: Reservation) -> String {
        (after.status == reservation.status ? "" : " → \(after.status.rawValue)") + " (queued)"
    }

    /// A field's text, and when a queued change would change it, "then → now": the server's
    /// value beside the one asked for.
    func beside(_ reservation: Reservation, _ after: Reservation?, _ text: (Reservation) -> String) -> String {
        let now = text(reservation)
        guard let after, case let then = text(after), then != now else { return now }
        return "\(now) → \(then)"
    }

    /// An optional field (the note) the same way: "(none)" stands for no value beside one.
    func beside(_ reservation: Reservation, _ after: Reservation?, optional field: (Reservation) -> String?)
        -> String?
    {
        let now = field(reservation)
        guard let after, case let then = field(after), then != now else { return now }
        return "\(now ?? "(none)") → \(then ?? "(none)")"
    }

    private func settledStatusText(_ reservation: Reservation) -> String {
        switch reservation.status {
        case .held:
            guard let end = reservation.expiresAt else { return "held" }
            let text = localDate(end)
            // The day is left out when it is today's.
            let time = text.split(separator: " ").dropFirst().joined(separator: " ")
            return "held to " + (Self.time(now, in: changeZone).hasPrefix(text.prefix(10)) ? time : text)
        case .waitlisted:
            return reservation.waitlistPosition.map { "waitlisted #\($0)" } ?? "waitlisted"
        default:
            return reservation.status.rawValue
        }
    }

    /// "1a2b3c4d  Half Dome  2026-12-01 02:00 PST  party of 4"
    func summary(_ reservation: Reservation) -> String {
        "\(reservation.id.short)  \(reservation.landmark.name.terminalSafe)  \(visitDate(reservation.date, at: reservation.landmark))  party of \(reservation.partySize)"
    }

    private static func landmarkJSON(_ landmark: Landmark) -> JSONValue { LandmarkApiModel(landmark).json }

    func write(landmarks: [Landmark], to output: TextSink) {
        let shape = Shape<Landmark>(csvColumns: CSVShape.landmarkColumns, csvFields: CSVShape.fields)
        write(list: landmarks, json: Self.landmarkJSON, shape: shape, to: output) {
            table(
                header: ["ID", "NAME", "CATEGORY", "LOCATION", "CAPACITY"],
                rows: landmarks.map { landmark in
                    [
                        Cell(String(landmark.id.description.prefix(8))),
                        Cell(landmark.name, style: landmark.isFeatured ? .bold : nil, cuts: true),
                        Cell(landmark.category.rawValue), Cell(landmark.location, cuts: true),
                        Cell(landmark.capacity.map { "\($0)/day" } ?? "-", alignRight: true),
                    ]
                })
        }
    }

    /// Places per day: `DATE TAKEN CAPACITY LEFT`, a full day's LEFT in yellow; with a
    /// `NOTE` column when a day is closed (`closed: REASON`) or has a capacity of its own (`own capacity`).
    func write(availability days: [DayAvailability], to output: TextSink) {
        let shape = Shape<DayAvailability>(csvColumns: CSVShape.availabilityColumns, csvFields: CSVShape.fields)
        let noted = days.contains { $0.closed != nil || $0.override }
        write(list: days, json: \.json, shape: shape, to: output) {
            table(
                header: ["DATE", "TAKEN", "CAPACITY", "LEFT"] + (noted ? ["NOTE"] : []),
                rows: days.map { day in
                    let note = day.closed.map { "closed: \($0)" } ?? (day.override ? "own capacity" : "")
                    return [
                        Cell(day.day.description), Cell(String(day.taken), alignRight: true),
                        Cell(day.capacity.map(String.init) ?? "-", alignRight: true),
                        Cell(day.left.map(String.init) ?? "-", alignRight: true, style: day.left == 0 ? .yellow : nil),
                    ] + (noted ? [Cell(note, style: day.closed != nil ? .yellow : nil, cuts: true)] : [])
                })
        }
    }

    /// The time of a change (when it was made): in `TZ`, or the zone `--tz` names.
    func localDate(_ date: Date) -> String { Self.time(date, in: changeZone) }

    /// The time of a visit: at its landmark, as a ticket shows it, unless `--tz` names a zone.
    func visitDate(_ date: Date, at landmark: Landmark?) -> String {
        Self.time(date, in: visitZone ?? landmark?.timeZone ?? Self.utc)
    }

    /// A landmark without a zone keeps UTC days (see `Capacity`), and is shown so.
    private static let utc = TimeZone(identifier: "UTC") ?? .gmt

    /// "2026-12-01 08:00 PST": the wall time in `zone` and the zone's abbreviation.
    static func time(_ date: Date, in zone: TimeZone) -> String {
        let interval = date.timeIntervalSince1970
        let wall = DateTime.format(Date(timeIntervalSince1970: interval + Double(zone.secondsFromGMT(for: date))))
        // YYYY-MM-DDTHH:MM:SSZ → YYYY-MM-DD HH:MM
        return wall.prefix(10) + " " + wall.dropFirst(11).prefix(5) + " " + ZoneNames.abbreviation(zone, at: date)
    }

    // MARK: Tables and colour

    enum Style: String {
        case green = "32"
        case yellow = "33"
        case dim = "2"
        case bold = "1"
        case red = "31"
        case boldRed = "1;31"
    }

    struct Cell {
        var text: String
        var alignRight = false
        var style: Style?
        /// Whether the table may cut this column first to fit the terminal (names, notes,
        /// details), rather than ids, dates and numbers.
        var cuts = false

        init(_ text: String, alignRight: Bool = false, style: Style? = nil, cuts: Bool = false) {
            self.text = text.terminalSafe
            self.alignRight = alignRight
            self.style = style
            self.cuts = cuts
        }
    }

    func style(for status: Reservation.Status) -> Style {
        switch status {
        case .confirmed, .checkedIn: .green
        case .pending, .held, .waitlisted: .yellow
        case .cancelled, .expired, .noShow: .dim
        }
    }

    func paint(_ text: String, _ style: Style?) -> String {
        guard colour, let style else { return text }
        return "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m"
    }

    func table(header: [String], rows: [[Cell]]) -> String {
        guard !rows.isEmpty else { return "" }
        let widths = columnWidths(header: header, rows: rows)
        let headerCells = header.enumerated().map { column, title in
            Cell(title, alignRight: rows[0][column].alignRight, style: .bold, cuts: rows[0][column].cuts)
        }
        return line(headerCells, widths: widths) + rows.map { line($0, widths: widths) }.joined()
    }

    /// The columns' widths: each its widest cell's, then, on a terminal, narrowed to fit its width.
    func columnWidths(header: [String], rows: [[Cell]]) -> [Int] {
        var widths = header.map(\.terminalWidth)
        for row in rows {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.text.terminalWidth) }
        }
        guard let width, let first = rows.first else { return widths }
        return Self.fit(widths, into: width, cutFirst: first.map(\.cuts), whole: first.map(\.alignRight))
    }

    /// The narrowest a column gets: three characters and "…".
    static let narrowest = 4

    /// `widths` (with two spaces between columns) made to fit `width`: the widest of the columns
    /// that `cutFirst` marks loses a character at a time, then, if that is not enough, the widest
    /// of any but those `whole` marks (numbers, never cut); none below `narrowest`. Past that the
    /// table is wider than the terminal.
    static func fit(_ widths: [Int], into width: Int, cutFirst: [Bool], whole: [Bool]) -> [Int] {
        var widths = widths
        var total = widths.reduce(0, +) + 2 * max(0, widths.count - 1)
        for pass in [true, false] {
            while total > width {
                let candidates = widths.indices.filter {
                    (!pass || cutFirst[$0]) && !whole[$0] && widths[$0] > narrowest
                }
                guard let widest = candidates.max(by: { widths[$0] <= widths[$1] }) else { break }
                widths[widest] -= 1
                total -= 1
            }
        }
        return widths
    }

    /// A row of a table. On a terminal a cell wider than its column is cut with "…"; elsewhere
    /// (a pipe, a file) it is whole, and a row after the widths were set may be wider.
    func line(_ cells: [Cell], widths: [Int]) -> String {
        cells.enumerated().map { column, cell in
            let shown = width == nil ? cell.text : cell.text.cut(toWidth: widths[column])
            let padding = String(repeating: " ", count: max(0, widths[column] - shown.terminalWidth))
            let text = paint(shown, cell.style)
            if column == cells.count - 1, !cell.alignRight { return text }
            return cell.alignRight ? padding + text : text + padding
        }.joined(separator: "  ") + "\n"
    }

    /// A list written as its values come, for lists too long to hold (a file's
    /// whole history): JSON, NDJSON and CSV exactly as `write(list:)` writes
    /// them; a table whose columns take the widths of its first `block` rows.
    final class ListStream<Value> {
        private let renderer: Renderer
        private let output: TextSink
        private let json: (Value) -> JSONValue
        private let shape: Shape<Value>
        private let header: [String]
        private let row: (Value) -> [Cell]
        private let block: Int
        private var writer: JSONWriter
        private var csv: CSVWriter?
        private var count = 0
        private var pending: [[Cell]] = []
        private var widths: [Int]?

        init(
            _ renderer: Renderer, to output: TextSink, json: @escaping (Value) -> JSONValue, shape: Shape<Value>,
            header: [String], block: Int = 1_000, row: @escaping (Value) -> [Cell]
        ) {
            self.renderer = renderer
            self.output = output
            self.json = json
            self.shape = shape
            self.header = header
            self.row = row
            self.block = block
            writer = JSONWriter(pretty: renderer.format == .json, capacity: 1 << 17)
            if renderer.format == .csv { csv = CSVWriter(columns: shape.csvColumns) }
        }

        func add(_ value: Value) {
            defer { count += 1 }
            switch renderer.format {
            case .json:
                writer.append(count == 0 ? "[" : ",")
                writer.newline(depth: 1)
                writer.write(json(value), depth: 1)
                if writer.bytes.count >= 1 << 16 { output.write(String(decoding: writer.take(), as: UTF8.self)) }
            case .ndjson:
                writer.write(json(value), depth: 0)
                writer.append("\n")
                if writer.bytes.count >= 1 << 16 { output.write(String(decoding: writer.take(), as: UTF8.self)) }
            case .csv, .ics:
                csv?.row(shape.csvFields(value))
                if let text = csv?.text, text.utf8.count >= 1 << 16 { output.write(csv!.take()) }
            case .table:
                let cells = row(value)
                if let widths {
                    output.write(renderer.line(cells, widths: widths))
                    return
                }
                pending.append(cells)
                if pending.count >= block { flushTable() }
            }
        }

        private func flushTable() {
            guard !pending.isEmpty else { return }
            let widths = renderer.columnWidths(header: header, rows: pending)
            self.widths = widths
            output.write(renderer.table(header: header, rows: pending))
            pending = []
        }

        func finish() {
            switch renderer.format {
            case .json:
                if count == 0 { writer.append("[]\n") } else { writer.append("\n]\n") }
                output.write(String(decoding: writer.take(), as: UTF8.self))
            case .ndjson: output.write(String(decoding: writer.take(), as: UTF8.self))
            case .csv, .ics: if csv != nil { output.write(csv!.take()) }
            case .table: flushTable()
            }
        }
    }
}

extension String {
    /// The text with what a terminal would obey written out instead: C0 and C1
    /// control characters (escape sequences that retitle a window or move the
    /// cursor, a carriage return that overwrites a line) and bidirectional
    /// overrides, from data a store or a server holds. JSON output needs none
    /// of this: JSON escapes them itself.
    var terminalSafe: String {
        guard unicodeScalars.contains(where: \.isUnsafeOnATerminal) else { return self }
        var safe = String.UnicodeScalarView()
        for scalar in unicodeScalars {
            guard scalar.isUnsafeOnATerminal else {
                safe.append(scalar)
                continue
            }
            let written: String
            switch scalar {
            case "\n": written = "\\n"
            case "\r": written = "\\r"
            case "\t": written = "\\t"
            case "\u{1B}": written = "\\e"
            default: written = "\\u{" + String(scalar.value, radix: 16) + "}"
            }
            safe.append(contentsOf: written.unicodeScalars)
        }
        return String(safe)
    }
}

extension String {
    /// How many columns a terminal gives the text: two for a wide (East Asian, emoji)
    /// character, none for a zero-width one, one for the rest. Control characters are
    /// written out by `terminalSafe` before text reaches a table.
    var terminalWidth: Int {
        if utf8.allSatisfy({ $0 < 0x80 }) { return utf8.count }
        return reduce(0) { $0 + $1.terminalWidth }
    }

    /// The text cut to at most `width` columns, its end replaced by "…" when cut.
    func cut(toWidth width: Int) -> String {
        guard terminalWidth > width else { return self }
        guard width > 0 else { return "" }
        var kept = ""
        var used = 0
        for character in self {
            let next = character.terminalWidth
            guard used + next <= width - 1 else { break }
            kept.append(character)
            used += next
        }
        return kept + "…"
    }
}

extension Character {
    /// Columns on a terminal, by its first scalar (a combining mark or a variation
    /// selector after it adds none).
    var terminalWidth: Int {
        guard let scalar = unicodeScalars.first else { return 0 }
        if scalar.properties.generalCategory == .nonspacingMark || scalar.properties.generalCategory == .format {
            return 0
        }
        if scalar.properties.isEmojiPresentation || unicodeScalars.contains("\u{FE0F}") { return 2 }
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }
}

extension Unicode.Scalar {
    fileprivate var isUnsafeOnATerminal: Bool {
        value < 0x20 || (0x7F...0x9F).contains(value) || (0x202A...0x202E).contains(value)
            || (0x2066...0x2069).contains(value)
    }
}
