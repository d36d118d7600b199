import Foundation
import ResvTestKit
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The file store's guarantees (docs/contracts.md, "JSON file store"), checked on
/// the built binary: concurrent writers, `kill -9` at random moments, a full and a
/// read-only file system.
@Suite("Store safety", .ownThreads, .timeLimit(.minutes(30)))
struct StoreSafetyTests {
    @Test func eightProcessesTimes25ReservesAreAllKept() throws {
        let sandbox = try Sandbox()
        let script = """
            pids=()
            for p in $(seq 8); do
              ( for i in $(seq 25); do
                  resv reserve -l "Lake Tahoe" -d 2030-01-01T10:00:00Z -n 1 --format ndjson || exit 1
                done ) &
              pids+=($!)
            done
            failed=0
            for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
            exit $failed
            """
        let run = try sandbox.shell(script)
        #expect(run.status == 0, "\(run.stderr)")
        let reported = Set(try run.stdout.split(separator: "\n").map { try Self.id(of: String($0)) })
        #expect(reported.count == 200)
        let stored = try Self.storedIDs(sandbox)
        #expect(stored.count == 200)
        #expect(Set(stored) == reported)
    }

    @Test func killedReservesNeverBreakTheStoreNorLoseWhatTheyReported() throws {
        let sandbox = try Sandbox()
        try sandbox.seed(Self.store(count: 10_000))
        // One undisturbed run, to learn how long a reserve takes here.
        let clock = ContinuousClock()
        let started = clock.now
        let first = try sandbox.resv("reserve", "-l", "Lake Tahoe", "-d", "2030-01-01T10:00:00Z", "-n", "1", "--json")
        let duration = clock.now - started
        // Kill anywhere from before the start to a little after a normal run would end.
        let window = Int(duration / .milliseconds(1) * 1.3)
        #expect(first.status == 0, "\(first.stderr)")
        var reported: Set<String> = [try Self.id(of: first.stdout)]
        var killed = 0
        var delays: [Int] = []

        let reserve = ["reserve", "-l", "Lake Tahoe", "-d", "2030-01-01T10:00:00Z", "-n", "1", "--json"]
        for _ in 0..<30 {
            let process = try ChildProcess(
                Binary.resv.path, reserve.map(YearsAhead.forward),
                environment: ["RESV_STORE": sandbox.store.path, "HOME": sandbox.directory.path, "TZ": "UTC"],
                stdin: .null, stdout: .pipe, stderr: .null)
            let milliseconds = Int.random(in: 0...window)
            delays.append(milliseconds)
            usleep(UInt32(milliseconds * 1000))
            process.signal(SIGKILL)
            let printed = process.readToEnd().stdout
            if process.wait().wasSignalled { killed += 1 }
            if !printed.isEmpty { reported.insert(try Self.id(of: String(decoding: printed, as: UTF8.self))) }

            let stored = try Self.storedIDs(sandbox)
            #expect(stored.count >= 10_001, "delays so far (ms): \(delays)")
            #expect(reported.isSubset(of: Set(stored)), "delays so far (ms): \(delays)")
        }
        #expect(killed > 0, "no run was killed before it finished; delays (ms): \(delays)")

        // The next writer clears what killed writers left; no temporary file stays.
        let last = try sandbox.resv("reserve", "-l", "Lake Tahoe", "-d", "2030-01-01T10:00:00Z", "-n", "1")
        #expect(last.status == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: sandbox.directory.path).sorted()
        #expect(names == ["reservations.json", "reservations.json.history", "reservations.json.lock"])
    }

    @Test func aFullFileSystemLeavesTheOldStoreIntact() throws {
        let sandbox = try Sandbox()
        let seed = Self.store(count: 2_000)
        try YearsAhead.write(seed, to: sandbox.directory.appendingPathComponent("seed.json"))
        // In a private mount namespace: a 1 MiB tmpfs with the store, filled up to
        // about 64 KiB free, so the new file is cut short by ENOSPC part-way.
        let run = try sandbox.isolated(
            """
            mnt="$SANDBOX/mnt"; mkdir -p "$mnt"
            mount -t tmpfs -o size=1m tmpfs "$mnt" || exit 90
            cp "$SANDBOX/seed.json" "$mnt/reservations.json"
            free=$(df --output=avail -k "$mnt" | tail -1)
            dd if=/dev/zero of="$mnt/filler" bs=1k count=$((free - 64)) status=none
            export RESV_STORE="$mnt/reservations.json"
            resv reserve -l "Lake Tahoe" -d 2030-01-01T10:00:00Z -n 1 >"$SANDBOX/out" 2>"$SANDBOX/err"
            echo $? >"$SANDBOX/status"
            cp "$mnt/reservations.json" "$SANDBOX/after.json"
            ls -A "$mnt" >"$SANDBOX/listing"
            rm "$mnt/filler"
            resv reserve -l "Lake Tahoe" -d 2030-01-01T10:00:00Z -n 1 >/dev/null 2>&1
            echo $? >"$SANDBOX/status-after-freeing"
            cp "$mnt/reservations.json" "$SANDBOX/freed.json"
            cp "$mnt/reservations.json.history" "$SANDBOX/freed.history"
            """)
        try #require(run.status == 0, "the namespace script failed (\(run.status)): \(run.stderr)")
        let result = try sandbox.files(["status", "out", "err", "listing", "status-after-freeing", "freed.history"])
        #expect(result["status"] == "73")
        #expect(result["out"] == "")
        #expect(result["err"]?.contains("No space left on device") == true, "\(result["err"] ?? "")")
        #expect(result["err"]?.split(separator: "\n").count == 1)
        #expect(try YearsAhead.read(sandbox.directory.appendingPathComponent("after.json")) == seed)
        // The journal took the change's line before the store's write failed: a line the store
        // does not count (it has no lastChange), which the next write replaces.
        #expect(result["listing"] == "filler\nreservations.json\nreservations.json.history\nreservations.json.lock")
        #expect(result["status-after-freeing"] == "0")
        // The line of the change that failed was replaced by the one that landed.
        let journal = result["freed.history"]?.split(separator: "\n") ?? []
        #expect(journal.count == 1)
        #expect(journal.first?.contains(#""seq":1"#) == true)
        let freed =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: sandbox.directory.appendingPathComponent("freed.json"))) as? [String: Any]
        #expect((freed?["reservations"] as? [Any])?.count == 2_001)
    }

    @Test func aFileSizeLimitMidWriteLeavesTheOldStoreIntact() throws {
        let sandbox = try Sandbox()
        let seed = Self.store(count: 2_000)
        try sandbox.seed(seed)
        // ulimit -f 64: writes past 64 KiB fail with EFBIG (the store is ~330 KiB).
        let run = try sandbox.shell(
            "ulimit -f 64; resv reserve -l 'Lake Tahoe' -d 2030-01-01T10:00:00Z -n 1; echo \"status=$?\"")
        #expect(run.stdout.hasSuffix("status=73\n"), "\(run.stdout) \(run.stderr)")
        #expect(run.stderr.contains("File too large"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1)
        #expect(try sandbox.storeBytes() == Data(seed.utf8))
        let names = try FileManager.default.contentsOfDirectory(atPath: sandbox.directory.path).sorted()
        #expect(names == ["reservations.json", "reservations.json.history", "reservations.json.lock"])
    }

    @Test func aReadOnlyFileSystemExits73AndKeepsTheStore() throws {
        let sandbox = try Sandbox()
        try YearsAhead.write(Fixture.store, to: sandbox.directory.appendingPathComponent("seed.json"))
        let run = try sandbox.isolated(
            """
            mnt="$SANDBOX/mnt"; mkdir -p "$mnt"
            mount -t tmpfs -o size=1m tmpfs "$mnt" || exit 90
            cp "$SANDBOX/seed.json" "$mnt/reservations.json"
            mount -o remount,ro "$mnt" || exit 91
            export RESV_STORE="$mnt/reservations.json"
            resv cancel abcd1111 >"$SANDBOX/out" 2>"$SANDBOX/err"
            echo $? >"$SANDBOX/status"
            resv list --json >"$SANDBOX/list" 2>/dev/null
            cp "$mnt/reservations.json" "$SANDBOX/after.json"
            """)
        try #require(run.status == 0, "the namespace script failed (\(run.status)): \(run.stderr)")
        let result = try sandbox.files(["status", "out", "err"])
        #expect(result["status"] == "73")
        #expect(result["out"] == "")
        #expect(result["err"]?.contains("Read-only file system") == true, "\(result["err"] ?? "")")
        // The fixture's unmappable record gets its warning; the failure is one line.
        let errors = result["err"]?.split(separator: "\n").filter { !$0.hasPrefix("resv: warning:") }
        #expect(errors?.count == 1, "\(result["err"] ?? "")")
        #expect(try YearsAhead.read(sandbox.directory.appendingPathComponent("after.json")) == Fixture.store)
        // Reading needs no lock and no write: a read-only store still lists.
        let list = try JSONSerialization.jsonObject(
            with: Data(contentsOf: sandbox.directory.appendingPathComponent("list")))
        #expect((list as? [Any])?.count == 2)
    }

    // MARK: - Helpers

    /// A store of `count` valid reservations on Lake Tahoe (no capacity limit), one per hour from 2030.
    static func store(count: Int) -> String {
        let base = Date(timeIntervalSince1970: 1_893_456_000)  // 2030-01-01T00:00:00Z
        let formatter = ISO8601DateFormatter()
        var lines: [String] = []
        lines.reserveCapacity(count)
        for index in 0..<count {
            let id = String(format: "%08x-0000-4000-8000-%012x", index, index)
            let date = formatter.string(from: base.addingTimeInterval(Double(index) * 3600))
            lines.append(
                #"    {"id": "\#(id)", "landmarkId": "938e63b1-f467-476b-b442-edcb1b3bc450", "date": "\#(date)", "partySize": 2, "status": "confirmed"}"#
            )
        }
        return "{\"version\": 1, \"reservations\": [\n" + lines.joined(separator: ",\n") + "\n]}\n"
    }

    static func id(of json: String) throws -> String {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        return try #require(object["id"] as? String)
    }

    /// The ids in the store file, which must parse.
    static func storedIDs(_ sandbox: Sandbox) throws -> [String] {
        let records = try #require(sandbox.storeJSON()["reservations"] as? [[String: Any]])
        return records.compactMap { $0["id"] as? String }
    }
}

extension Sandbox {
    /// Runs `script` in bash as root of a private user and mount namespace
    /// (`unshare -rm`), so it may mount a tmpfs that vanishes when it ends; where
    /// namespaces are not allowed but the tests run as root, directly, unmounting
    /// `$SANDBOX/mnt` at the end. `$SANDBOX` is this sandbox's directory; `resv` is on PATH.
    /// The script's years move ahead like a shell's (`YearsAhead`).
    func isolated(_ script: String) throws -> Run {
        let file = directory.appendingPathComponent("isolated.sh")
        let cleanup = "trap 'umount -l \"$SANDBOX/mnt\" 2>/dev/null' EXIT\n"
        try YearsAhead.write("set -u\n" + cleanup + script + "\n", to: file)
        return try shell(
            """
            export SANDBOX='\(directory.path)'
            if unshare -rm true 2>/dev/null; then unshare -rm bash '\(file.path)'
            elif [ "$(id -u)" = 0 ]; then bash '\(file.path)'
            else echo "this test needs unshare -rm (user namespaces) or root" >&2; exit 95
            fi
            """)
    }

    /// The named files of this sandbox, without a trailing newline, their years moved back (`YearsAhead`).
    func files(_ names: [String]) throws -> [String: String] {
        var contents: [String: String] = [:]
        for name in names {
            let text = try YearsAhead.read(directory.appendingPathComponent(name))
            contents[name] = text.hasSuffix("\n") ? String(text.dropLast()) : text
        }
        return contents
    }
}
