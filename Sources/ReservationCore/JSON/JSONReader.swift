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

    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
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
        if try open(closedBy: UInt8(ascii: "}")) { return .object([:]) }
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
            guard try isClosed(by: UInt8(ascii: "}")) else { continue }
            var fields = [String: JSONValue](minimumCapacity: fieldStack.count - base)
            for (key, value) in fieldStack[base...] where fields.updateValue(value, forKey: key) != nil {
                // Keeping either value would lose the other on the next write.
                let shown = key.count > 40 ? key.prefix(40) + "…" : key
                throw Fault(offset: start, message: "the key \"\(shown)\" appears twice in this object")
            }
            fieldStack.removeSubrange(base...)
            return .object(fields)
        }
    }

    /// An array whose elements go to `consume` as they are read, not kept.
    private mutating func array(_ consume: (JSONValue) -> Void) throws(Fault) {
        if try open(closedBy: UInt8(ascii: "]")) { return }
        repeat { consume(try value()) } while try !isClosed(by: UInt8(ascii: "]"))
    }

    private mutating func array() throws(Fault) -> JSONValue {
        var elements: [JSONValue] = []
        try array { elements.append($0) }
        return .array(elements)
    }

    /// Steps into the object or array whose opening byte is at `index`; true when it is
    /// empty (`{}`, `[]`), its closing byte read too.
    private mutating func open(closedBy closing: UInt8) throws(Fault) -> Bool {
        try enter()
        index += 1
        skipWhitespace()
        guard index < bytes.count, bytes[index] == closing else { return false }
        index += 1
        depth -= 1
        return true
    }

    /// After a field or an element: false at a comma, true at `closing` (the object or
    /// array ends); either is read.
    private mutating func isClosed(by closing: UInt8) throws(Fault) -> Bool {
        skipWhitespace()
        guard index < bytes.count else {
            throw fault("unexpected end of the text, expected ',' or '\(Character(Unicode.Scalar(closing)))'")
        }
        switch bytes[index] {
        case UInt8(ascii: ","):
            index += 1
            return false
        case closing:
            index += 1
            depth -= 1
            return true
        case let byte:
            throw fault("unexpected \(describe(byte)), expected ',' or '\(Character(Unicode.Scalar(closing)))'")
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

    // MARK: Faults

    func fault(_ message: String) -> Fault { Fault(offset: index, message: message) }

    func describe(_ byte: UInt8) -> String {
        switch byte {
        case 0x21...0x7E: "'\(Character(Unicode.Scalar(byte)))'"
        case 0x09: "tab"
        case 0x0A: "line break"
        case 0x0D: "carriage return"
        case 0x20: "space"
        default: "byte 0x\(hex(UInt32(byte), width: 2))"
        }
    }

    func describeRaw(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? String(Character(Unicode.Scalar(byte))) : "0x\(hex(UInt32(byte), width: 2))"
    }

    func hex(_ value: UInt32, width: Int = 4) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
