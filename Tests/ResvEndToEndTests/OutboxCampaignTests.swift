import Foundation
import ResvTestKit
import Synchronization
import Testing

/// A randomized campaign against the outbox (docs/contracts.md, "Offline" and "Exactly once"):
/// modifies and cancels of several reservations queued while the server is away, then sent by
/// syncs through a proxy that drops answers after the server acted, with alice's token
/// rotated between syncs. At the end every item was applied at most once and in its chain's
/// order, every refused item is kept with its reason, and no chain held back another: each
/// reservation is exactly what applying its own items in order (stopping at the first
/// refusal) makes of it. Seeds: `RESV_CAMPAIGN_SEEDS` (comma-separated), else two.
@Suite("Offline: a randomized outbox campaign", .serialized, .ownThreads, .timeLimit(.minutes(30)))
struct OutboxCampaignTests {
    static var seeds: [UInt64] {
        let given = ProcessInfo.processInfo.environment["RESV_CAMPAIGN_SEEDS"]?.split(separator: ",")
            .compactMap { UInt64($0.trimmingCharacters(in: .whitespaces)) }
        return given?.isEmpty == false ? given! : [7, 2027]
    }

    /// What the server should hold of one reservation after its chain.
    struct Expected: Equatable, CustomStringConvertible {
        var partySize = 2
        var cancelled = false
        var version = 1
        /// Items kept: the first refusal of the chain and all behind it, waiting.
        var kept = 0
        var held = false

        var description: String { "party \(partySize), \(cancelled ? "cancelled" : "confirmed"), v\(version)" }

        /// One queued item applied as the server decides it, unless an earlier one was refused.
        mutating func apply(_ op: Op) {
            guard !held else {
                kept += 1
                return
            }
            switch op {
            case .modify(let size):
                if cancelled {  // cannotModifyCancelled: kept, holds back the rest of the chain
                    held = true
                    kept += 1
                } else if size != partySize {
                    partySize = size
                    version += 1
                }
            case .cancel:
                if !cancelled {
                    cancelled = true
                    version += 1
                }
            }
        }
    }

    enum Op {
        case modify(Int)
        case cancel
    }

    @Test(arguments: seeds)
    func queuedChangesOfSeveralReservationsEndAsTheirChainsSay(seed: UInt64) async throws {
        var random = SeededRandom(seed: seed)
        let site = try OutboxTests.Site()
        var ids: [String] = []
        for day in 0..<4 {
            let made = try site.resv(
                "reserve", "-l", "half dome", "-d", visitAhead(days: 120 + day), "-n", "2", "--json")
            ids.append(try #require((try OutboxTests.json(made) as? [String: Any])?["id"] as? String))
        }
        #expect(try site.resv("list").status == 0)
        site.stop()
        var expected = Dictionary(uniqueKeysWithValues: ids.map { ($0, Expected()) })
        var queued = 0
        for _ in 0..<10 {
            let id = ids[random.next(below: ids.count)]
            let op: Op = random.next(below: 3) == 0 ? .cancel : .modify(1 + random.next(below: 4))
            let arguments: [String] =
                switch op {
                case .modify(let size): ["modify", String(id.prefix(8)), "-n", "\(size)", "--queue"]
                case .cancel: ["cancel", String(id.prefix(8)), "--queue"]
                }
            let run = try site.resv(arguments)
            // resv itself refuses a change of what its cache shows cancelled: nothing queued.
            if run.status == 0 {
                expected[id]?.apply(op)
                queued += 1
            } else {
                #expect(run.status == 1, "\(arguments): \(run.stderr)")
            }
        }
        #expect(site.items().count == queued)
        // The server on another port, behind a proxy on the site's that drops the first answer
        // to half the change requests (the first always), after the server acted.
        let server = try ServerProcess(database: site.database)
        defer { server.stop() }
        let picks = Mutex((count: 0, random: random))
        let proxy = try DropAnswerProxy(upstream: server.port, port: site.port) { line, earlier in
            guard earlier == 0, line.hasPrefix("PATCH ") || line.hasPrefix("POST /reservations/cancel") else {
                return false
            }
            // The first change's answer always, then half of them.
            return picks.withLock { state in
                state.count += 1
                return state.count == 1 || state.random.next(below: 2) == 0
            }
        }
        defer { proxy.stop() }
        var token = site.alice
        for round in 0..<4 {
            if round > 0 {
                // A new token for alice each round after the first; the old one revoked.
                let revoke = try runProcess(
                    Binary.server.path, ["token", "revoke", "alice", "--database", site.database], environment: [:],
                    stdin: nil)
                #expect(revoke.status == 0, "\(revoke.stderr)")
                token = try ServerProcess.createToken("alice", database: site.database)
            }
            let sync = try site.resv(["sync"], token: token)
            #expect([0, 1, 69].contains(sync.status), "round \(round): \(sync.stderr)")
        }
        #expect(!proxy.dropped.isEmpty, "answers were lost: \(proxy.seen)")
        let kept = site.items()
        // Left: refused items, each with its reason, and the items of their chains behind them.
        for (index, item) in kept.enumerated() where item["refused"] == nil {
            let earlier = kept[..<index].filter { $0["reservation"] as? String == item["reservation"] as? String }
            #expect(earlier.contains { $0["refused"] != nil }, "left unsent with no refusal before it: \(item)")
        }
        #expect(
            kept.filter { $0["refused"] != nil }.allSatisfy {
                (($0["refused"] as? [String: Any])?["message"] as? String)?.isEmpty == false
            }, "each refused item keeps its reason")
        #expect(kept.count == expected.values.reduce(0) { $0 + $1.kept }, "\(kept)")
        for id in ids {
            let (status, body) = try await server.request("GET", "/reservations/\(id)", token: token)
            #expect(status == 200)
            let stored = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            let want = try #require(expected[id])
            let got = Expected(
                partySize: stored["partySize"] as? Int ?? 0, cancelled: stored["status"] as? String == "cancelled",
                version: stored["version"] as? Int ?? 0)
            #expect(
                got.partySize == want.partySize && got.cancelled == want.cancelled && got.version == want.version,
                "seed \(seed), \(id.prefix(8)): \(got), want \(want) (each change applied once, in order)")
        }
    }
}
