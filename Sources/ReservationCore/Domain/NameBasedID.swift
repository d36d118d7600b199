import Foundation

/// A UUID made from a name (RFC 9562 version 5: SHA-1 of a namespace and the
/// name), so the same name gives the same id on every machine and in every
/// run: `resv import` names another calendar's event by it.
public enum NameBasedID {
    /// resv's namespace for imported events' ids.
    public static let importNamespace = UUID(
        uuid: (
            0x6b, 0x1f, 0x3c, 0x52, 0x8e, 0x7d, 0x4a, 0x90, 0xb2, 0x14, 0x5d, 0xe3, 0x09, 0xa7, 0xc6, 0x48
        ))

    /// The version 5 UUID of `name` in `namespace`.
    public static func uuid(_ name: String, in namespace: UUID = importNamespace) -> UUID {
        let space = withUnsafeBytes(of: namespace.uuid) { Array($0) }
        var digest = sha1(space + Array(name.utf8))
        digest[6] = (digest[6] & 0x0F) | 0x50
        digest[8] = (digest[8] & 0x3F) | 0x80
        return UUID(
            uuid: (
                digest[0], digest[1], digest[2], digest[3], digest[4], digest[5], digest[6], digest[7],
                digest[8], digest[9], digest[10], digest[11], digest[12], digest[13], digest[14], digest[15]
            ))
    }

    /// SHA-1 (FIPS 180-4): only for name-based UUIDs, whose version 5 is defined by it; no secret depends on it.
    static func sha1(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
        var padded = message + [0x80]
        while padded.count % 64 != 56 { padded.append(0) }
        let bits = UInt64(message.count) &* 8
        for shift in stride(from: 56, through: 0, by: -8) { padded.append(UInt8(truncatingIfNeeded: bits >> shift)) }
        var w = [UInt32](repeating: 0, count: 80)
        for block in stride(from: 0, to: padded.count, by: 64) {
            for t in 0..<16 {
                w[t] = padded[block + 4 * t..<block + 4 * t + 4].reduce(0) { $0 << 8 | UInt32($1) }
            }
            for t in 16..<80 {
                let x = w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16]
                w[t] = x << 1 | x >> 31
            }
            var (a, b, c, d, e) = (h[0], h[1], h[2], h[3], h[4])
            for t in 0..<80 {
                let (f, k): (UInt32, UInt32) =
                    switch t {
                    case 0..<20: ((b & c) | (~b & d), 0x5A82_7999)
                    case 20..<40: (b ^ c ^ d, 0x6ED9_EBA1)
                    case 40..<60: ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                    default: (b ^ c ^ d, 0xCA62_C1D6)
                    }
                let temp = (a << 5 | a >> 27) &+ f &+ e &+ k &+ w[t]
                (e, d, c, b, a) = (d, c, b << 30 | b >> 2, a, temp)
            }
            h = [h[0] &+ a, h[1] &+ b, h[2] &+ c, h[3] &+ d, h[4] &+ e]
        }
        return h.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * $0)) } }
    }
}
