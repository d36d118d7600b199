import Foundation
import Synchronization

/// A zone's abbreviation as the tz database writes it (PST, CET, CEST, JST,
/// AEDT), which Foundation on Linux does not give (it says GMT+1). Read from
/// the zone's TZif file the first time a zone is shown, and only then; a zone
/// whose database name is numeric (+03) or unreadable gets Foundation's GMT+3.
enum ZoneNames {
    private struct Kind: Hashable {
        let zone: String
        let offset: Int
        let daylight: Bool
    }

    private static let cache = Mutex<[Kind: String]>([:])
    private static let files = Mutex<[String: [(offset: Int, daylight: Bool, name: String)]]>([:])

    static func abbreviation(_ zone: TimeZone, at date: Date) -> String {
        // Foundation on Linux names UTC "GMT"; London in winter stays GMT (its own zone).
        if ["GMT", "UTC", "Etc/UTC", "Etc/GMT", "Universal", "Zulu"].contains(zone.identifier) { return "UTC" }
        let kind = Kind(
            zone: zone.identifier, offset: zone.secondsFromGMT(for: date),
            daylight: zone.isDaylightSavingTime(for: date))
        if let known = cache.withLock({ $0[kind] }) { return known }
        let types = files.withLock { files in
            if let types = files[kind.zone] { return types }
            let types = read(kind.zone)
            files[kind.zone] = types
            return types
        }
        // The last type with this offset and daylight saving: the zone's current name for it.
        let named = types.last { $0.offset == kind.offset && $0.daylight == kind.daylight }?.name
        let name = named.flatMap { $0.allSatisfy(\.isLetter) && $0.count >= 2 ? $0 : nil } ?? gmt(kind.offset)
        cache.withLock { $0[kind] = name }
        return name
    }

    /// "GMT", "GMT+1", "GMT-3:30".
    static func gmt(_ offset: Int) -> String {
        guard offset != 0 else { return "GMT" }
        let hours = abs(offset) / 3600
        let minutes = abs(offset) % 3600 / 60
        return "GMT" + (offset < 0 ? "-" : "+") + String(hours) + (minutes == 0 ? "" : String(format: ":%02d", minutes))
    }

    /// The local time types of a TZif file (RFC 8536): offset, daylight saving, abbreviation.
    private static func read(_ identifier: String) -> [(offset: Int, daylight: Bool, name: String)] {
        // Names come from TimeZone(identifier:), which knows only real zones; never a path of another kind.
        guard !identifier.contains(".."), !identifier.hasPrefix("/") else { return [] }
        let folder = ProcessInfo.processInfo.environment["TZDIR"] ?? "/usr/share/zoneinfo"
        guard let handle = FileHandle(forReadingAtPath: folder + "/" + identifier),
            let data = try? handle.read(upToCount: 1 << 20)
        else { return [] }
        try? handle.close()
        let bytes = [UInt8](data)
        guard bytes.count >= 44, bytes[0..<4].elementsEqual("TZif".utf8) else { return [] }
        func count(_ at: Int) -> Int {
            Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
        }
        let (utCount, standardCount, leapCount, timeCount, typeCount, charCount) =
            (count(20), count(24), count(28), count(32), count(36), count(40))
        let types = 44 + timeCount * 5
        let chars = types + typeCount * 6
        guard typeCount > 0, chars + charCount <= bytes.count, utCount >= 0, standardCount >= 0, leapCount >= 0
        else { return [] }
        let all = (0..<typeCount).map { index in
            let at = types + index * 6
            let offset = Int(Int32(bitPattern: UInt32(count(at))))
            let start = min(chars + Int(bytes[at + 5]), chars + charCount)
            let end = bytes[start..<(chars + charCount)].firstIndex(of: 0) ?? (chars + charCount)
            return (
                offset: offset, daylight: bytes[at + 4] != 0, name: String(decoding: bytes[start..<end], as: UTF8.self)
            )
        }
        // Ordered by their last use: the type table also holds names long gone (1945's PPT
        // beside PDT), so the one the latest transition uses must come last.
        let used = bytes[(44 + timeCount * 4)..<(44 + timeCount * 5)].map(Int.init).filter { $0 < typeCount }
        var order: [Int] = []
        for index in used.reversed() where !order.contains(index) { order.append(index) }
        let unused = (0..<typeCount).filter { !order.contains($0) }
        return (unused + order.reversed()).map { all[$0] }
    }
}
