import Foundation

/// The identity of a landmark or a reservation: a UUID tagged with what it
/// names, so a landmark's id can never be passed where a reservation's is
/// expected. Written as lowercase canonical text.
///
/// Parsing and writing the text is done here rather than with
/// `UUID(uuidString:)` and `uuidString.lowercased()`, which go through
/// `sscanf`/`sprintf` on Linux and were a tenth of reading a store
/// (BENCHMARKS.md). The accepted form is the same: 36 characters, hex digits
/// in groups of 8-4-4-4-12 separated by hyphens, either case.
public struct EntityID<Entity>: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let uuid: UUID

    public init(_ uuid: UUID) { self.uuid = uuid }

    /// The id written as canonical UUID text, or nil.
    public init?(_ text: String) {
        var text = text
        guard let uuid = text.withUTF8(Self.parse) else { return nil }
        self.uuid = uuid
    }

    public var description: String {
        withUnsafeBytes(of: uuid.uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { output in
                var position = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        output[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    output[position] = Hex.digit(byte >> 4)
                    output[position + 1] = Hex.digit(byte & 0x0F)
                    position += 2
                }
                return position
            }
        }
    }

    /// Byte order, which is also the order of the lowercase text.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        withUnsafeBytes(of: lhs.uuid.uuid) { left in
            withUnsafeBytes(of: rhs.uuid.uuid) { right in left.lexicographicallyPrecedes(right) }
        }
    }

    private static func parse(_ utf8: UnsafeBufferPointer<UInt8>) -> UUID? {
        guard utf8.count == 36 else { return nil }
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let valid = withUnsafeMutableBytes(of: &bytes) { output -> Bool in
            var position = 0
            for index in 0..<16 {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    guard utf8[position] == UInt8(ascii: "-") else { return false }
                    position += 1
                }
                guard let high = Hex.value(utf8[position]), let low = Hex.value(utf8[position + 1]) else {
                    return false
                }
                output[index] = high << 4 | low
                position += 2
            }
            return true
        }
        return valid ? UUID(uuid: bytes) : nil
    }
}
