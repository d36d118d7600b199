import Foundation
import ReservationCore

@testable import ReservationFile
@testable import ReservationHTTP
@testable import ResvCLI

/// A parser fed one input: it may refuse it (any thrown error is an answer), never trap,
/// hang or grow without bound. Each reads what the real code reads, through the real code.
struct Target: Sendable {
    var name: String
    var summary: String
    var feed: @Sendable (Data) -> Void
}

/// The clock and zone typed dates are read against: fixed, so a finding replays.
let now = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-18
let zone = TimeZone(identifier: "America/Los_Angeles")!

let targets: [Target] = [
    Target(name: "typed-date", summary: "the date words of -d, --from and --to (TypedDate)") { data in
        let text = String(decoding: data, as: UTF8.self)
        _ = try? TypedDate.resolve(text, now: now, zone: zone)
        _ = try? TypedDate.day(text, now: now, zone: zone)
        _ = try? TypedDate.bound(text, end: true, now: now, zone: zone)
        _ = TypedDate.needsZone(text)
    },
    Target(name: "iso8601", summary: "ISO 8601 instants of the wire and the store (DateTime.parse)") { data in
        let text = String(decoding: data, as: UTF8.self)
        if let date = try? DateTime.parse(text) { _ = DateTime.format(date) }
    },
    Target(name: "store", summary: "a store file's document (StoreDocument)") { data in
        _ = try? StoreDocument.snapshot(data: data, path: "fuzz.json")
        _ = try? StoreDocument.header(data: data, path: "fuzz.json")
    },
    Target(name: "journal", summary: "a store's journal read from its end (Journal.readBackward)") { data in
        // The real reader over a real file: lines split from the end in chunks, each parsed.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("resv-fuzz-\(getpid())")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = folder.appendingPathComponent("store.json").path
        let journal = Journal(storeFile: store, storePath: store)
        guard FileManager.default.createFile(atPath: journal.path, contents: data) else { return }
        _ = try? journal.readBackward(committed: Int.max) { _, _ in true }
    },
    Target(name: "ics", summary: "an .ics file given to import (ICalendarReader, ImportFile)") { data in
        _ = try? ICalendarReader.events(data)
        if let entries = try? ImportFile.entries(ics: data, user: "fuzz") {
            for entry in entries { _ = entry.outcome(in: .builtIn, now: now) }
        }
    },
    Target(name: "csv", summary: "a .csv file given to import (CSVReader, ImportFile)") { data in
        _ = try? CSVReader.records(data)
        if let entries = try? ImportFile.entries(csv: data, user: "fuzz") {
            for entry in entries { _ = entry.outcome(in: .builtIn, now: now) }
        }
    },
    Target(name: "request-body", summary: "the server's request bodies (JSONValue, CreateReservationRequest)") { data in
        guard let json = try? JSONValue.parse(data) else { return }
        _ = try? CreateReservationRequest(json: json)
        _ = try? ReservationApiModel(json: json)
        if case .array(let items) = json {
            for item in items.prefix(100) { _ = try? CreateReservationRequest(json: item) }
        }
    },
    Target(name: "outbox", summary: "an outbox file's items (Outbox.items)") { data in
        guard let items = try? Outbox.items(from: data, path: "fuzz.json") else { return }
        for item in items {
            _ = (item.kind, item.reservationID, item.key, item.queuedAt, item.version, item.refusal, item.sent)
            if item.kind == .reserve, let request = item.request { _ = try? CreateReservationRequest(json: request) }
        }
    },
    // The check that the fuzzer finds what it should: a trap behind a four-byte word, which
    // coverage of comparisons leads it to in seconds (`scripts/fuzz --all` leaves it out;
    // `make test` runs it and requires the finding).
    Target(name: "seeded-trap", summary: "a deliberate trap behind the bytes RESV (the fuzzer's own check)") { data in
        // A byte at a time, in this module's own (instrumented) comparisons: each one matched is new coverage.
        let bytes = Array(data.prefix(4))
        guard bytes.count == 4, bytes[0] == 0x52 else { return }
        guard bytes[1] == 0x45 else { return }
        guard bytes[2] == 0x53 else { return }
        guard bytes[3] == 0x56 else { return }
        fatalError("the seeded trap, found")
    },
]

/// The target named by `RESV_FUZZ_TARGET`, found once.
let chosen: Target = {
    let name = ProcessInfo.processInfo.environment["RESV_FUZZ_TARGET"] ?? ""
    if name == "--list" {
        for target in targets { print("\(target.name)\t\(target.summary)") }
        exit(0)
    }
    guard let target = targets.first(where: { $0.name == name }) else {
        FileHandle.standardError.write(
            Data("RESV_FUZZ_TARGET must name a target: \(targets.map(\.name).joined(separator: ", "))\n".utf8))
        exit(64)
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    chosen.feed(Data(bytes: start, count: count))
    return 0
}
