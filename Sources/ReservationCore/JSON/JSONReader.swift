import Foundation

/// A strict RFC 8259 parser from UTF-8 bytes straight into `JSONValue`.
///
/// Foundation's JSONDecoder builds its own tree and then decodes `JSONValue`
/// from it through `Codable`, at roughly 25–50 MB/s on Linux; reading a store
/// was the largest part of every command (BENCHMARKS.md). This reader makes
/// one pass over the bytes and allocates only the values it returns.
///
/// Numbers keep the kinds the store had with JSONDecoder: a whole number that
/// fits in Int64 is `.integer` (also when written `4.0` or `1e2`), any other
/// finite number `.double`, unless writing that double would change its text
/// (`12345678901234567890123`, `1.50`): then it is `.number` with its text,
/// so a rewrite keeps it exactly. An object whose key repeats is an error, not
/// a silent choice of one value. A leading byte order mark is skipped. Everything else RFC 8259
/// forbids is an error naming its line and column: trailing commas, unescaped
/// control characters, invalid UTF-8, unpaired surrogate escapes, leading
/// zeros, numbers beyond Double, and text after the value.
struct JSONReader: ~Copyable {
    /// Nesting deeper than this is refused rather than risking the stack.
    static let maximumDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0
    /// The fields of the objects being read, innermost last: a dictionary is
    /// made once its size is known, instead of growing (and rehashing) field by field.
    private var fieldStack: [(key: String, value: JSONValue)] = []

    /// Where and why the text stopped being JSON.
    struct Fault: Error {
        var offset: Int
        var message: String
    }

    /// A key of the top-level object whose array is handed out an element at
    /// a time instead of kept (`parse(_:streaming:_:)`), and what takes it.
    private var streamKey: String?
    private var streamStart: (([(key: String, value: JSONValue)]) -> (JSONValue) -> Void)?

    private init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// `parse(_:)`, but the array under `key` in the top-level object is not
    /// kept: when it is reached, `start` gets the top-level fields read so far
    /// and returns what takes each element, in order, as it is read. The value
    /// returned has an empty array under `key`. A value of another kind under
    /// `key` is kept as it is.
    static func parse(
        _ data: Data, streaming key: String,
        _ start: ([(key: String, value: JSONValue)]) -> (JSONValue) -> Void
    ) throws(JSONSyntaxError) -> JSONValue {
        let result = withoutActuallyEscaping(start) { start in
            data.withUnsafeBytes { raw -> Result<JSONValue, Fault> in
                var reader = JSONReader(raw.bindMemory(to: UInt8.self))
                reader.streamKey = key
                reader.streamStart = start
                return Result { () throws(Fault) in try reader.document() }
            }
        }
        switch result {
        case .success(let value): return value
        case .failure(let fault): throw JSONSyntaxError(data: data, offset: fault.offset, message: fault.message)
        }
    }

    static func parse(_ data: Data) throws(JSONSyntaxError) -> JSONValue {
        let result = data.withUnsafeBytes { raw -> Result<JSONValue, Fault> in
            var reader = JSONReader(raw.bindMemory(to: UInt8.self))
            return Result { () throws(Fault) in try reader.document() }
        }
        switch result {
        case .success(let value): return value
        case .failure(let fault): throw JSONSyntaxError(data: data, offset: fault.offset, message: fault.message)
        }
    }

    // MARK: Structure

    private mutating func document() throws(Fault) -> JSONValue {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
        let value = try self.value()
        skipWhitespace()
        guard index == bytes.count else { throw fault("unexpected \(describe(bytes[index])) after the JSON value") }
        return value
    }

    private mutating func value() throws(Fault) -> JSONValue {
        skipWhitespace()
        guard index < bytes.count else { throw fault("unexpected end of the text, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        case let byte: throw fault("unexpected \(describe(byte)), expected a value")
        }
    }

    private mutating func object() throws(Fault) -> JSONValue {
        let start = index
        try enter()
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object([:])
        }
        let base = fieldStack.count
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw fault("unexpected end of the text, expected a key") }
            guard bytes[index] == UInt8(ascii: "\"") else {
                throw fault("unexpected \(describe(bytes[index])), expected a key in double quotes")
            }
            let key = try string()
            skipWhitespace()
            guard index < bytes.count else { throw fault("unexpected end of the text, expected ':'") }
            guard bytes[index] == UInt8(ascii: ":") else {
                throw fault("unexpected \(describe(bytes[index])), expected ':' after a key")
            }
            index += 1
            skipWhitespace()
            if depth == 1, key == streamKey, let streamStart, index < bytes.count, bytes[index] == UInt8(ascii: "[") {
                let consume = streamStart(Array(fieldStack[base...]))
                try array(consume)
                fieldStack.append((key, .array([])))
            } else {
                fieldStack.append((key, try value()))
            }
            skipWhitespace()
            guard index < bytes.count else { throw fault("unexpected end of the text, expected ',' or '}'") }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                var fields = [String: JSONValue](minimumCapacity: fieldStack.count - base)
                for (key, value) in fieldStack[base...] where fields.updateValue(value, forKey: key) != nil {
                    // Keeping either value would lose the other on the next write.
                    let shown = key.count > 40 ? key.prefix(40) + "…" : key
                    throw Fault(offset: start, message: "the key \"\(shown)\" appears twice in this object")
                }
                fieldStack.removeSubrange(base...)
                return .object(fields)
            case let byte: throw fault("unexpected \(describe(byte)), expected ',' or '}'")
            }
        }
    }

    /// An array whose elements go to `consume` as they are read, not kept.
    private mutating func array(_ consume: (JSONValue) -> Void) throws(Fault) {
        try enter()
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return
        }
        while true {
            consume(try value())
            skipWhitespace()
            guard index < bytes.count else { throw fault("unexpected end of the text, expected ',' or ']'") }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return
            case let byte: throw fault("unexpected \(describe(byte)), expected ',' or ']'")
            }
        }
    }

    private mutating func array() throws(Fault) -> JSONValue {
        try enter()
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            elements.append(try value())
            skipWhitespace()
            guard index < bytes.count else { throw fault("unexpected end of the text, expected ',' or ']'") }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return .array(elements)
            case let byte: throw fault("unexpected \(describe(byte)), expected ',' or ']'")
            }
        }
    }

    private mutating func enter() throws(Fault) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw fault("nested deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) throws(Fault) -> JSONValue {
        let start = index
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for byte in expected {
            guard index < bytes.count, bytes[index] == byte else {
                index = start
                throw fault("invalid value, expected \(word)")
            }
            index += 1
        }
        return value
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    // MARK: Strings

    private mutating func string() throws(Fault) -> String {
        let start = index
        index += 1
        var ascii = true
        // The common case: no escapes, so the string is a slice of the input.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[(start + 1)..<index])
                index += 1
                if ascii { return String(decoding: slice, as: UTF8.self) }
                guard let text = String(validating: slice, as: UTF8.self) else {
                    throw Fault(
                        offset: firstInvalidUTF8(in: start + 1..<index - 1), message: "invalid UTF-8 in a string")
                }
                return text
            }
            if byte == UInt8(ascii: "\\") { return try escapedString(from: start) }
            if byte < 0x20 { throw fault("control character \(describe(byte)) in a string; write it as an escape") }
            if byte >= 0x80 { ascii = false }
            index += 1
        }
        throw Fault(offset: start, message: "unterminated string")
    }

    /// The rest of a string that has escapes, decoded into a byte buffer.
    private mutating func escapedString(from start: Int) throws(Fault) -> String {
        var buffer = Array(bytes[(start + 1)..<index])
        let plainStart = start + 1
        var plainEnd = index
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: buffer, as: UTF8.self) else {
                    throw Fault(
                        offset: firstInvalidUTF8(in: plainStart..<plainEnd), message: "invalid UTF-8 in a string")
                }
                return text
            case UInt8(ascii: "\\"):
                let escapeStart = index
                index += 1
                guard index < bytes.count else { break }
                switch bytes[index] {
                case UInt8(ascii: "\""): buffer.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): buffer.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "/"): buffer.append(UInt8(ascii: "/"))
                case UInt8(ascii: "b"): buffer.append(0x08)
                case UInt8(ascii: "f"): buffer.append(0x0C)
                case UInt8(ascii: "n"): buffer.append(0x0A)
                case UInt8(ascii: "r"): buffer.append(0x0D)
                case UInt8(ascii: "t"): buffer.append(0x09)
                case UInt8(ascii: "u"):
                    index += 1
                    let scalar = try unicodeEscape(escapeStart: escapeStart)
                    buffer.append(contentsOf: String(Character(scalar)).utf8)
                    plainEnd = index
                    continue
                case let other:
                    throw Fault(offset: escapeStart, message: "invalid escape '\\\(describeRaw(other))' in a string")
                }
                index += 1
                plainEnd = index
            default:
                if byte < 0x20 { throw fault("control character \(describe(byte)) in a string; write it as an escape") }
                buffer.append(byte)
                index += 1
                plainEnd = index
            }
        }
        throw Fault(offset: start, message: "unterminated string")
    }

    /// After `\u`: four hex digits, and a low surrogate escape after a high one.
    private mutating func unicodeEscape(escapeStart: Int) throws(Fault) -> Unicode.Scalar {
        let first = try hexQuad(escapeStart: escapeStart)
        if (0xDC00...0xDFFF).contains(first) {
            throw Fault(offset: escapeStart, message: "unpaired surrogate \\u\(hex(first)) in a string")
        }
        guard (0xD800...0xDBFF).contains(first) else { return Unicode.Scalar(first)! }
        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
        else { throw Fault(offset: escapeStart, message: "unpaired surrogate \\u\(hex(first)) in a string") }
        let secondStart = index
        index += 2
        let second = try hexQuad(escapeStart: secondStart)
        guard (0xDC00...0xDFFF).contains(second) else {
            throw Fault(offset: escapeStart, message: "unpaired surrogate \\u\(hex(first)) in a string")
        }
        return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))!
    }

    private mutating func hexQuad(escapeStart: Int) throws(Fault) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count else { throw Fault(offset: escapeStart, message: "incomplete \\u escape") }
            guard let digit = Hex.value(bytes[index]) else {
                throw Fault(offset: escapeStart, message: "\\u must be followed by four hex digits")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private func firstInvalidUTF8(in range: Range<Int>) -> Int {
        var position = range.lowerBound
        while position < range.upperBound {
            let byte = bytes[position]
            let length: Int
            switch byte {
            case 0x00...0x7F: length = 1
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: return position
            }
            let end = min(position + length, range.upperBound)
            let slice = UnsafeBufferPointer(rebasing: bytes[position..<end])
            guard end - position == length, String(validating: slice, as: UTF8.self) != nil else { return position }
            position = end
        }
        return range.lowerBound
    }

    // MARK: Numbers

    private mutating func number() throws(Fault) -> JSONValue {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else {
            throw Fault(offset: index, message: "a number needs a digit after '-'")
        }
        // Whole numbers accumulate as negatives, so Int64.min fits.
        var magnitude: Int64 = 0
        var overflow = false
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw fault("a number cannot start with 0") }
        } else {
            while index < bytes.count, isDigit(bytes[index]) {
                let digit = Int64(bytes[index] - UInt8(ascii: "0"))
                let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
                let (next, o2) = times10.subtractingReportingOverflow(digit)
                if o1 || o2 { overflow = true } else { magnitude = next }
                index += 1
            }
        }
        var whole = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            whole = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw fault("a number needs digits after '.'") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            whole = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw fault("a number needs digits in its exponent")
            }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if whole, !overflow {
            if negative { return .integer(magnitude) }
            if magnitude != .min { return .integer(-magnitude) }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let double = Double(text), double.isFinite else {
            // The message stays one short line however many digits the number has.
            let shown = text.count > 24 ? text.prefix(24) + "…" : text
            throw Fault(offset: start, message: "number \(shown) is too large to represent")
        }
        // Digits alone beyond Int64 are never taken for an integer, even when they round to Int64.min.
        if !whole, double == double.rounded(), double >= -0x1p63, double < 0x1p63 { return .integer(Int64(double)) }
        return JSONWriter.text(of: double) == text ? .double(double) : .number(text)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    // MARK: Faults

    private func fault(_ message: String) -> Fault { Fault(offset: index, message: message) }

    private func describe(_ byte: UInt8) -> String {
        switch byte {
        case 0x21...0x7E: "'\(Character(Unicode.Scalar(byte)))'"
        case 0x09: "tab"
        case 0x0A: "line break"
        case 0x0D: "carriage return"
        case 0x20: "space"
        default: "byte 0x\(hex(UInt32(byte), width: 2))"
        }
    }

    private func describeRaw(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? String(Character(Unicode.Scalar(byte))) : "0x\(hex(UInt32(byte), width: 2))"
    }

    private func hex(_ value: UInt32, width: Int = 4) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
