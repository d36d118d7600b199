import Foundation
import ReservationCore

/// Tables on a terminal or in a pipe, and their colours.
extension Renderer {
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
