// In-process figures for resv's parts on generated stores of 1k, 10k and 100k
// reservations: reading (parse), mapping, writing, date parsing and formatting,
// and whole commands run in the process (no start-up). Whole-command timings
// with process start-up, next to jq, are Benchmarks/commands.sh.
import Benchmark
import Foundation
import ReservationCore
import ReservationFile
import ResvCLI

/// A store of `count` reservations in the layout resv writes: four landmarks,
/// a third each pending, confirmed and cancelled; the same text for the same count.
func storeText(count: Int) -> Data {
    let landmarks = Landmark.builtIn.prefix(4).map { JSONValue.string($0.id.description) }
    let statuses: [JSONValue] = [.string("pending"), .string("confirmed"), .string("cancelled")]
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15 &* UInt64(count)
    func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
    let records: [JSONValue] = (0..<count).map { _ in
        let uuid = UUID(uuid: withUnsafeBytes(of: (next(), next())) { $0.load(as: uuid_t.self) })
        let date = Date(timeIntervalSince1970: 1_893_456_000 + Double(next() % 365 * 86_400 + next() % 24 * 3600))
        return .object([
            "id": .string(Reservation.ID(uuid).description),
            "landmarkId": landmarks[Int(next() % 4)],
            "date": .string(DateTime.format(date)),
            "partySize": .integer(Int64(1 + next() % 8)),
            "status": statuses[Int(next() % 3)],
        ])
    }
    return JSONValue.object(["version": .integer(1), "reservations": .array(records)]).encoded(pretty: true)
}

/// Runs one resv command in this process, its output discarded.
func run(_ arguments: [String]) async {
    let discard = TextSink { _ in }
    let context = CommandContext(
        output: discard, messages: discard, environment: ["NO_COLOR": "1"], now: Date.init, timeZone: .gmt,
        outputIsTerminal: false)
    let status = await ResvMain.run(arguments, context: context)
    precondition(status == 0, "resv \(arguments.joined(separator: " ")) exited with \(status)")
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        // Peak memory is left to Benchmarks/commands.sh: in here it would count
        // the generated stores of every size, which live for the whole run.
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .microseconds,
        warmupIterations: 1,
        maxDuration: .seconds(3),
        maxIterations: 50
    )
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("resv-benchmarks-\(getpid())")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)

    for count in [1_000, 10_000, 100_000] {
        let text = storeText(count: count)
        let path = directory.appendingPathComponent("store-\(count).json").path
        _ = FileManager.default.createFile(atPath: path, contents: text)
        let records: [JSONValue] = {
            guard case .array(let records)? = try? JSONValue.parse(text)["reservations"] else { return [] }
            return records
        }()
        let document = (try? JSONValue.parse(text)) ?? .null

        Benchmark("read: parse the store, \(count)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try JSONValue.parse(text)) }
        }
        Benchmark("map: records to reservations, \(count)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(ReservationSnapshot(records: records, catalog: .builtIn)) }
        }
        Benchmark("write: the store as JSON text, \(count)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(document.encoded(pretty: true)) }
        }
        Benchmark("command: list --json --all, \(count)") { benchmark in
            for _ in benchmark.scaledIterations { await run(["list", "--json", "--all", "--store", path]) }
        }
        Benchmark("command: list (table), \(count)") { benchmark in
            for _ in benchmark.scaledIterations { await run(["list", "--store", path]) }
        }
        // Each iteration adds one reservation to the file: durable write included.
        let working = directory.appendingPathComponent("working-\(count).json").path
        Benchmark(
            "command: reserve, \(count)",
            configuration: .init(
                setup: { _ = FileManager.default.createFile(atPath: working, contents: text) }
            )
        ) { benchmark in
            for _ in benchmark.scaledIterations {
                await run([
                    "reserve", "-l", "Lake Tahoe", "-d", "2031-01-01T10:00:00Z", "-n", "2", "--json", "--store",
                    working,
                ])
            }
        }
    }

    let parsed = (0..<10_000).map { Date(timeIntervalSince1970: 1_893_456_000 + Double($0) * 3_599.5) }
    let dates = parsed.map(DateTime.format)
    Benchmark("dates: parse 10,000") { benchmark in
        for _ in benchmark.scaledIterations {
            for date in dates { blackHole(try DateTime.parse(date)) }
        }
    }
    Benchmark("dates: format 10,000") { benchmark in
        for _ in benchmark.scaledIterations {
            for date in parsed { blackHole(DateTime.format(date)) }
        }
    }
}
