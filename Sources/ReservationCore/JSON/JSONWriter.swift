/// Writes `JSONValue` as UTF-8 JSON text with sorted keys, in the layout
/// Foundation's JSONEncoder used for the same options (`"key" : value`,
/// two-space indents), except that an empty array or object is `[]` or `{}`.
///
/// A direct writer instead of JSONEncoder: encoding through `Encodable` was a
/// fifth of `resv list --json` (BENCHMARKS.md). Bytes accumulate in `bytes`;
/// a caller streaming a long list takes them with `take()` as it goes.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    public let pretty: Bool

    public init(pretty: Bool, capacity: Int = 0) {
        self.pretty = pretty
        bytes.reserveCapacity(capacity)
    }

    /// The text written so far, leaving the writer empty.
    public mutating func take() -> [UInt8] {
        defer { bytes.removeAll(keepingCapacity: true) }
        return bytes
    }

    /// Appends text as it is, for the punctuation between streamed values.
    public mutating func append(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends JSON text written before, such as a value rendered once and repeated.
    public mutating func append(json: [UInt8]) {
        bytes.append(contentsOf: json)
    }

    /// Starts an object whose fields the caller writes with `key(_:first:depth:)`
    /// and values, in sorted key order, and ends with `endObject(depth:)`.
    public mutating func beginObject() {
        bytes.append(UInt8(ascii: "{"))
    }

    /// The separator, line break and `"key" : ` before a field of an object at `depth`.
    public mutating func key(_ key: String, first: Bool = false, depth: Int) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        newline(depth: depth + 1)
        write(string: key)
        pretty ? append(" : ") : append(":")
    }

    public mutating func endObject(depth: Int) {
        newline(depth: depth)
        bytes.append(UInt8(ascii: "}"))
    }

    /// A line break and the indentation of `depth` when pretty, else nothing.
    public mutating func newline(depth: Int) {
        guard pretty else { return }
        bytes.append(0x0A)
        for _ in 0..<depth {
            bytes.append(0x20)
            bytes.append(0x20)
        }
    }

    /// Writes an integer.
    public mutating func write(_ number: Int) {
        writeInteger(Int64(number))
    }

    /// Writes `value` as it appears at nesting `depth` (0 for the top level).
    public mutating func write(_ value: JSONValue, depth: Int = 0) {
        switch value {
        case .null: append("null")
        case .bool(let flag): flag ? append("true") : append("false")
        case .integer(let number): writeInteger(number)
        case .double(let number): writeDouble(number)
        case .number(let text): bytes.append(contentsOf: text.utf8)
        case .string(let text): write(string: text)
        case .array(let elements):
            guard !elements.isEmpty else { return append("[]") }
            bytes.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                newline(depth: depth + 1)
                write(element, depth: depth + 1)
            }
            newline(depth: depth)
            bytes.append(UInt8(ascii: "]"))
        case .object(let fields):
            guard !fields.isEmpty else { return append("{}") }
            beginObject()
            for (position, field) in fields.sorted(by: { $0.key < $1.key }).enumerated() {
                key(field.key, first: position == 0, depth: depth)
                write(field.value, depth: depth + 1)
            }
            endObject(depth: depth)
        }
    }

    private mutating func writeInteger(_ number: Int64) {
        if number >= 0, number < 10 { return bytes.append(UInt8(ascii: "0") + UInt8(number)) }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: enough for Int64.min
        var magnitude = number.magnitude
        withUnsafeMutableBytes(of: &digits) { buffer in
            var position = buffer.count
            repeat {
                position -= 1
                buffer[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if number < 0 {
                position -= 1
                buffer[position] = UInt8(ascii: "-")
            }
            bytes.append(contentsOf: buffer[position...])
        }
    }

    /// Shortest round-tripping form, without a `.0` on whole numbers (as JSONEncoder writes them).
    private mutating func writeDouble(_ number: Double) {
        bytes.append(contentsOf: Self.text(of: number).utf8)
    }

    /// How a double is written.
    static func text(of number: Double) -> String {
        var text = number.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    /// A string in quotes; `"`, `\` and control characters escaped, `/` and non-ASCII as they are.
    public mutating func write(string text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var runStart = 0
            for (position, byte) in utf8.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<position]))
                runStart = position + 1
                switch byte {
                case 0x22: append("\\\"")
                case 0x5C: append("\\\\")
                case 0x08: append("\\b")
                case 0x0C: append("\\f")
                case 0x0A: append("\\n")
                case 0x0D: append("\\r")
                case 0x09: append("\\t")
                default:
                    append("\\u00")
                    bytes.append(Hex.digit(byte >> 4))
                    bytes.append(Hex.digit(byte & 0xF))
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
