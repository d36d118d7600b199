/// Hexadecimal digits as bytes, for UUID text and JSON `\u` escapes.
public enum Hex {
    /// The value of one hex digit, either case, or nil.
    public static func value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The lowercase digit for a value below 16.
    public static func digit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }

    /// Lowercase hex text of bytes, two digits each (digests, tokens).
    public static func string(_ bytes: some Sequence<UInt8>) -> String {
        var text = [UInt8]()
        for byte in bytes {
            text.append(digit(byte >> 4))
            text.append(digit(byte & 0x0F))
        }
        return String(decoding: text, as: UTF8.self)
    }
}
