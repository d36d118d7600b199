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
        writer.writeReservation(
            ReservationApiModel(reservation), landmark: .object(landmark),
            status: queued.contains(reservation.id) ? Renderer.queuedStatus : nil, queued: queuedJSON(reservation),
            depth: depth)
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
}
