import Foundation
import ReservationCore

/// A value with a stable JSON shape (DESIGN.md): add fields, never rename.
protocol JSONOutput {
    var json: JSONValue { get }
}

extension LandmarkApiModel: JSONOutput {}

extension Reservation: JSONOutput {
    /// The stable JSON shape of a reservation, its landmark written out in full.
    var json: JSONValue {
        .object([
            "id": .string(id.description), "landmark": LandmarkApiModel(landmark).json,
            "date": .string(DateTime.format(date)), "partySize": .integer(Int64(partySize)),
            "status": .string(status.rawValue),
        ])
    }

    /// Writes `json` without building it: fields in sorted order, the landmark
    /// from text rendered once per landmark at this depth.
    func write(to writer: inout JSONWriter, depth: Int, landmark: [UInt8]) {
        writer.beginObject()
        writer.key("date", first: true, depth: depth)
        writer.write(string: DateTime.format(date))
        writer.key("id", depth: depth)
        writer.write(string: id.description)
        writer.key("landmark", depth: depth)
        writer.append(json: landmark)
        writer.key("partySize", depth: depth)
        writer.write(partySize)
        writer.key("status", depth: depth)
        writer.write(string: status.rawValue)
        writer.endObject(depth: depth)
    }
}

/// Turns domain values into text for one output format.
struct Renderer {
    let format: OutputFormat
    let colour: Bool
    /// Built once per renderer: creating a DateFormatter per row dominated a 10,000-row table.
    private let dateFormatter: DateFormatter

    init(_ options: OutputOptions, context: CommandContext) {
        self.init(format: options.resolvedFormat, colour: context.usesColour, timeZone: context.timeZone)
    }

    init(format: OutputFormat, colour: Bool, timeZone: TimeZone) {
        self.format = format
        self.colour = colour
        dateFormatter = DateFormatter()
        dateFormatter.locale = Locale(identifier: "en_US_POSIX")
        dateFormatter.timeZone = timeZone
        dateFormatter.dateFormat = "yyyy-MM-dd HH:mm zzz"
    }

    // MARK: JSON

    static func json(_ value: JSONValue, pretty: Bool) -> String {
        var writer = JSONWriter(pretty: pretty)
        writer.write(value)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// A list: one array in JSON, one object per line in NDJSON, else `table`.
    /// JSON goes to `output` in pieces as it is written, so a long list is
    /// never held twice in memory.
    func write<Value>(
        list values: [Value], json: (Value) -> JSONValue, to output: TextSink, table: () -> String
    ) {
        write(
            list: values, element: { writer, value, depth in writer.write(json(value), depth: depth) }, to: output,
            table: table)
    }

    /// `write(list:json:to:table:)` for values that write themselves.
    func write<Value>(
        list values: [Value], element: (inout JSONWriter, Value, Int) -> Void, to output: TextSink,
        table: () -> String
    ) {
        let pretty = format == .json
        guard format != .table else { return output.write(table()) }
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

    /// A single result: one object in JSON and NDJSON, else `human`.
    func single(_ value: some JSONOutput, human: () -> String) -> String {
        switch format {
        case .json: Self.json(value.json, pretty: true) + "\n"
        case .ndjson: Self.json(value.json, pretty: false) + "\n"
        case .table: human()
        }
    }

    // MARK: Human text

    /// Reservations as a list; each landmark's JSON is made once, not once per reservation.
    func write(reservations: [Reservation], to output: TextSink) {
        var landmarks: [Landmark.ID: [UInt8]] = [:]
        func element(_ writer: inout JSONWriter, _ reservation: Reservation, _ depth: Int) {
            let id = reservation.landmark.id
            let landmark =
                landmarks[id]
                ?? {
                    var text = JSONWriter(pretty: writer.pretty)
                    text.write(LandmarkApiModel(reservation.landmark).json, depth: depth + 1)
                    landmarks[id] = text.bytes
                    return text.bytes
                }()
            reservation.write(to: &writer, depth: depth, landmark: landmark)
        }
        write(list: reservations, element: element, to: output) {
            table(
                header: ["ID", "DATE", "LANDMARK", "PARTY", "STATUS"],
                rows: reservations.map { reservation in
                    [
                        Cell(reservation.id.short), Cell(localDate(reservation.date)), Cell(reservation.landmark.name),
                        Cell(String(reservation.partySize), alignRight: true),
                        Cell(reservation.status.rawValue, style: style(for: reservation.status)),
                    ]
                })
        }
    }

    func reservation(_ reservation: Reservation) -> String {
        single(reservation) { details(reservation) }
    }

    func details(_ reservation: Reservation) -> String {
        let lines: [(String, String)] = [
            ("ID", reservation.id.description),
            ("Landmark", "\(reservation.landmark.name) (\(reservation.landmark.location))"),
            ("Date", localDate(reservation.date)),
            ("Party", String(reservation.partySize)),
            ("Status", paint(reservation.status.rawValue, style(for: reservation.status))),
        ]
        return lines.map { $0.0.padding(toLength: 10, withPad: " ", startingAt: 0) + $0.1 + "\n" }.joined()
    }

    /// "1a2b3c4d  Half Dome  2026-12-01 02:00 PST  party of 4"
    func summary(_ reservation: Reservation) -> String {
        "\(reservation.id.short)  \(reservation.landmark.name)  \(localDate(reservation.date))  party of \(reservation.partySize)"
    }

    private static func landmarkJSON(_ landmark: Landmark) -> JSONValue { LandmarkApiModel(landmark).json }

    func write(landmarks: [Landmark], to output: TextSink) {
        write(list: landmarks, json: Self.landmarkJSON, to: output) {
            table(
                header: ["ID", "NAME", "CATEGORY", "LOCATION", "CAPACITY"],
                rows: landmarks.map { landmark in
                    [
                        Cell(String(landmark.id.description.prefix(8))),
                        Cell(landmark.name, style: landmark.isFeatured ? .bold : nil),
                        Cell(landmark.category.rawValue), Cell(landmark.location),
                        Cell(landmark.capacity.map { "\($0)/day" } ?? "-", alignRight: true),
                    ]
                })
        }
    }

    func localDate(_ date: Date) -> String {
        dateFormatter.string(from: date)
    }

    // MARK: Tables and colour

    enum Style: String {
        case green = "32"
        case yellow = "33"
        case dim = "2"
        case bold = "1"
    }

    struct Cell {
        var text: String
        var alignRight = false
        var style: Style?

        init(_ text: String, alignRight: Bool = false, style: Style? = nil) {
            self.text = text
            self.alignRight = alignRight
            self.style = style
        }
    }

    func style(for status: Reservation.Status) -> Style {
        switch status {
        case .confirmed: .green
        case .pending: .yellow
        case .cancelled: .dim
        }
    }

    func paint(_ text: String, _ style: Style?) -> String {
        guard colour, let style else { return text }
        return "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m"
    }

    func table(header: [String], rows: [[Cell]]) -> String {
        guard !rows.isEmpty else { return "" }
        var widths = header.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.text.count) }
        }
        func line(_ cells: [Cell]) -> String {
            cells.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.text.count)
                let text = paint(cell.text, cell.style)
                if column == cells.count - 1, !cell.alignRight { return text }
                return cell.alignRight ? padding + text : text + padding
            }.joined(separator: "  ") + "\n"
        }
        let headerCells = header.enumerated().map { column, title in
            Cell(title, alignRight: rows[0][column].alignRight, style: .bold)
        }
        return line(headerCells) + rows.map(line).joined()
    }
}
