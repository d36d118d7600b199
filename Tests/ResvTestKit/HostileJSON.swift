import Foundation

/// JSON texts a hostile or broken program could leave where resv expects its data.
public enum HostileJSON {
    public static let numbers = [
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "12345678901234567890123",
        "0", "-1", "1", "10000", "10001", "2147483648", "1e308", "-1e308", "1.5", "1e2", "-0", "4.0", "1e-400",
    ]
    public static let strings = [
        #""""#, #""x""#, #""\u001b]0;owned\u0007""#, #""a\r\nb""#, #""\u0000""#, #""\ud83d\ude00""#,
        "\"" + String(repeating: "é", count: 3000) + "\"", #""Half Dome""#, #""half""#, #""abcd""#,
        #""937fea60-bb7b-4ee8-85da-c79962987917""#, #""00000000-0000-0000-0000-000000000000""#,
        #""9999-12-31T23:59:59Z""#, #""9999-12-31T23:59:59-14:00""#, #""0000-01-01T00:00:00+00:01""#,
        #""2030-02-30T10:00:00Z""#, #""2030-06-01T16:00:00.9999999999Z""#, #""2030-06-01T16:00:00+23:59""#,
        #""pending""#, #""confirmed""#, #""cancelled""#, #""Pacific/Auckland""#, #""Not/AZone""#,
    ]

    public static func value<G: RandomNumberGenerator>(_ rng: inout G, depth: Int = 0) -> String {
        switch Int.random(in: 0..<10, using: &rng) {
        case 0...2: return numbers.randomElement(using: &rng)!
        case 3...6: return strings.randomElement(using: &rng)!
        case 7: return ["null", "true", "false"].randomElement(using: &rng)!
        case 8 where depth < 3:
            return "["
                + (0..<Int.random(in: 0...2, using: &rng)).map { _ in value(&rng, depth: depth + 1) }.joined(
                    separator: ",") + "]"
        default: return "{}"
        }
    }

    /// A reservation record with some fields right, some hostile, some missing.
    public static func reservation<G: RandomNumberGenerator>(_ rng: inout G, landmarks: [String]) -> String {
        let id = String(format: "%08x-0000-4000-8000-%012x", UInt32.random(in: 0...0xFFFF, using: &rng), 1)
        var fields = [
            #""id": "\#(id)""#, #""landmarkId": "\#(landmarks.randomElement(using: &rng)!)""#,
            #""date": "2030-06-0\#(Int.random(in: 1...3, using: &rng))T16:00:00Z""#,
            #""partySize": \#(Int.random(in: 1...400, using: &rng))"#, #""status": "confirmed""#,
        ]
        for _ in 0..<Int.random(in: 0...3, using: &rng) {
            let index = Int.random(in: 0..<fields.count, using: &rng)
            let name = fields[index].split(separator: ":", maxSplits: 1)[0]
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: fields.remove(at: index)
            default: fields[index] = "\(name): \(value(&rng))"
            }
            if fields.isEmpty { break }
        }
        if Bool.random(using: &rng) { fields.append(#""extra": \#(value(&rng))"#) }
        return "{" + fields.joined(separator: ", ") + "}"
    }

    public static func landmark<G: RandomNumberGenerator>(_ rng: inout G, id: String) -> String {
        var fields = [
            #""id": "\#(id)""#,
            #""name": \#(Bool.random(using: &rng) ? #""Tiny \u001b[31mTower""# : #""Tiny Tower""#)"#,
            #""location": "Auckland""#, #""description": "", "category": "mountains""#, #""isFeatured": false"#,
        ]
        if Bool.random(using: &rng) { fields.append(#""capacity": \#(value(&rng))"#) }
        if Bool.random(using: &rng) { fields.append(#""timeZone": \#(value(&rng))"#) }
        return "{" + fields.joined(separator: ", ") + "}"
    }

    public static func store<G: RandomNumberGenerator>(_ rng: inout G) -> String {
        var landmarks = ["937fea60-bb7b-4ee8-85da-c79962987917"]
        var landmarkRecords: [String] = []
        if Bool.random(using: &rng) {
            let own = "aaaa0000-0000-4000-8000-000000000001"
            landmarks = [own]
            landmarkRecords = [landmark(&rng, id: own)]
        }
        let records = (0..<Int.random(in: 0...12, using: &rng)).map { _ in
            Int.random(in: 0..<8, using: &rng) == 0 ? value(&rng) : reservation(&rng, landmarks: landmarks)
        }
        var top = [#""version": \#(Int.random(in: 0..<10, using: &rng) == 0 ? value(&rng) : "1")"#]
        top.append(#""reservations": [\#(records.joined(separator: ", "))]"#)
        if !landmarkRecords.isEmpty { top.append(#""landmarks": [\#(landmarkRecords.joined(separator: ", "))]"#) }
        if Int.random(in: 0..<10, using: &rng) == 0 { top.append(#""reservations": []"#) }
        return "{" + top.joined(separator: ", ") + "}"
    }
}
