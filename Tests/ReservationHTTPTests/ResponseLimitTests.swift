import Foundation
import ReservationCore
import Testing

@testable import ReservationHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// A server's answer is read up to `HTTPTransport.largestBody` and no further,
/// and the cache never keeps more than that.
@Suite("Response size limit")
struct ResponseLimitTests {
    static let limit = HTTPTransport.largestBody

    /// A fetch whose reservations are answered with `body`: the error it throws, if any.
    static func fetchError(reservations body: Data) async -> HTTPBackendError? {
        let script = HTTPServiceTests.Script { request, _ in
            request.url.path == "/landmarks"
                ? HTTPServiceTests.ok(HTTPServiceTests.landmarks) : HTTPResponseData(status: 200, body: body)
        }
        do {
            _ = try await script.service.fetch()
            return nil
        } catch let error as HTTPBackendError {
            #expect(script.paths("GET").filter { $0 == "/reservations" }.count == 1, "not retried")
            return error
        } catch {
            Issue.record("expected an HTTPBackendError, got \(error)")
            return nil
        }
    }

    @Test func theLimitIs64MiB() {
        #expect(Self.limit == 67_108_864)
        #expect(HTTPTransport.largestBodyDescription == "64 MiB")
    }

    @Test func anAnswerOfTheLimitIsReadAndOneByteMoreIsRefused() async throws {
        var body = Data(repeating: UInt8(ascii: " "), count: Self.limit)
        body[0] = UInt8(ascii: "[")
        body[Self.limit - 1] = UInt8(ascii: "]")
        #expect(await Self.fetchError(reservations: body) == nil)

        body.append(UInt8(ascii: " "))
        let error = try #require(await Self.fetchError(reservations: body))
        guard case .badResponse = error else {
            Issue.record("expected badResponse, got \(error)")
            return
        }
        #expect(
            error.localizedDescription
                == "the server at http://server.test sent an invalid response: "
                + "the server's answer is larger than 64 MiB, the most resv accepts")
    }

    @Test func curlIsToldTheLimit() {
        let run = CurlRun(
            request: HTTPRequestData(method: "GET", url: URL(string: "http://h:1/reservations")!),
            idleTimeout: 5, requestTimeout: 30, program: "curl")
        #expect(run.config.contains("\nmax-filesize = 67108864\n"))
    }

    @Test(arguments: [1e300, .infinity, .nan, -1, 0])
    func curlIsGivenTimeoutsItCanTake(seconds: Double) {
        let run = CurlRun(
            request: HTTPRequestData(method: "GET", url: URL(string: "http://h:1/reservations")!),
            idleTimeout: seconds, requestTimeout: seconds, program: "curl")
        let lines = run.config.split(separator: "\n")
        for name in ["connect-timeout", "max-time", "speed-time"] {
            let value = lines.first { $0.hasPrefix(name + " = ") }.flatMap { Double($0.dropFirst(name.count + 3)) }
            #expect(value.map { $0 > 0 && $0 <= 86_400 } == true, "\(name) for \(seconds): \(run.config)")
        }
    }

    /// A stand-in for curl in a temporary folder: a shell script that writes its
    /// process id to `pid` and then runs `body`.
    final class FakeCurl {
        let folder: URL
        var program: String { folder.appendingPathComponent("curl").path }
        var pidFile: URL { folder.appendingPathComponent("pid") }

        init(_ body: String) throws {
            folder = FileManager.default.temporaryDirectory
                .appendingPathComponent("resv-fake-curl-\(UUID().uuidString.prefix(8))", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data("#!/bin/sh\necho $$ > '\(pidFile.path)'\n\(body)\n".utf8).write(
                to: folder.appendingPathComponent("curl"))
            chmod(program, 0o755)
        }

        deinit { try? FileManager.default.removeItem(at: folder) }

        /// Whether the fake's process still runs (a zombie not yet reaped counts as gone).
        var isRunning: Bool {
            guard let text = try? String(contentsOf: pidFile, encoding: .utf8),
                let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
            else { return false }
            let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?
                .split(separator: ")").last?.split(separator: " ").first
            return state != nil && state != "Z"
        }
    }

    /// A curl that writes a header and then never stops: it is stopped once it
    /// has written more than the limit, so memory stays bounded.
    @Test(arguments: [1 << 20, HTTPTransport.largestBody])
    func anEndlessBodyIsCutOffAndCurlStopped(limit: Int) async throws {
        let fake = try FakeCurl(#"printf 'HTTP/1.1 200 OK\r\n\r\n'; exec cat /dev/zero"#)
        let transport = HTTPTransport.curl(
            idleTimeout: 5, requestTimeout: 30, program: fake.program, largestBody: limit)
        let request = HTTPRequestData(method: "GET", url: URL(string: "http://127.0.0.1:1/reservations")!)
        // That it ends at all is the point (a body without end would hold this test for ever);
        // how fast is the benchmark's business: under a full parallel run it took 89 s, alone ~1 s.
        await #expect(throws: TransportFailure.tooLarge) { _ = try await transport.send(request) }
        for _ in 0..<50 where fake.isRunning { try await Task.sleep(for: .milliseconds(100)) }
        #expect(!fake.isRunning, "curl is stopped")
    }

    /// Header blocks do not count against the body's limit; a body of exactly the limit is read.
    @Test func aBodyOfTheLimitAfterItsHeadersIsRead() async throws {
        let limit = 1 << 20
        let fake = try FakeCurl(
            #"printf 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nX-Pad: %04000d\r\n\r\n' 0; "#
                + "head -c \(limit) /dev/zero")
        let transport = HTTPTransport.curl(
            idleTimeout: 5, requestTimeout: 30, program: fake.program, largestBody: limit)
        let request = HTTPRequestData(method: "GET", url: URL(string: "http://127.0.0.1:1/reservations")!)
        let response = try await transport.send(request)
        #expect(response.status == 200)
        #expect(response.body.count == limit)
    }

    @Test func curlsOwnRefusalOfALargerDeclaredLengthIsTooLarge() async throws {
        // curl's exit status 63: "Maximum file size exceeded".
        let fake = try FakeCurl("echo 'curl: (63) Maximum file size exceeded' >&2; exit 63")
        let transport = HTTPTransport.curl(idleTimeout: 5, requestTimeout: 30, program: fake.program)
        let request = HTTPRequestData(method: "GET", url: URL(string: "http://127.0.0.1:1/reservations")!)
        await #expect(throws: TransportFailure.tooLarge) { _ = try await transport.send(request) }
    }

    // MARK: The cache

    /// A cache in a temporary folder, removed when the test ends.
    final class TemporaryCache {
        let home: URL
        let cache: ResponseCache

        init() throws {
            home = FileManager.default.temporaryDirectory
                .appendingPathComponent("resv-cache-\(UUID().uuidString.prefix(8))", isDirectory: true)
            cache = ResponseCache(cacheHome: home, baseURL: HTTPServiceTests.base, token: "t0k")
        }

        deinit { try? FileManager.default.removeItem(at: home) }

        /// The names in the server's folder, sorted.
        var files: [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: cache.folder.path)) ?? []).sorted()
        }
    }

    @Test func anAnswerLargerThanTheLimitIsNeverSaved() throws {
        let temporary = try TemporaryCache()
        temporary.cache.save("reservations", Data("[]".utf8))
        temporary.cache.save("reservations", Data(count: ResponseCache.largestFile + 1))
        #expect(temporary.cache.load("reservations")?.body == Data("[]".utf8), "the last answer that fits stays")
        temporary.cache.save("landmarks", Data(count: ResponseCache.largestFile + 1))
        #expect(temporary.files == ["reservations.json"])

        temporary.cache.save("landmarks", Data(count: ResponseCache.largestFile))
        #expect(temporary.cache.load("landmarks")?.body.count == ResponseCache.largestFile)
    }

    @Test func aCachedFileLargerThanTheLimitIsNotRead() throws {
        let temporary = try TemporaryCache()
        temporary.cache.save("reservations", Data("[]".utf8))
        let file = temporary.cache.folder.appendingPathComponent("reservations.json")
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: UInt64(ResponseCache.largestFile) * 4)  // sparse: no disk used
        try handle.close()
        #expect(temporary.cache.load("reservations") == nil)
        #expect(temporary.cache.records("reservations") == nil)
    }

    @Test func temporaryFilesOfAKilledWriterAreRemovedByTheNextSave() throws {
        let temporary = try TemporaryCache()
        temporary.cache.save("landmarks", Data("[]".utf8))
        let folder = temporary.cache.folder
        let old = folder.appendingPathComponent(".reservations.\(UUID().uuidString).tmp")
        let recent = folder.appendingPathComponent(".landmarks.\(UUID().uuidString).tmp")
        try Data(count: 1000).write(to: old)
        try Data(count: 1000).write(to: recent)
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: old.path)
        temporary.cache.save("reservations", Data("[]".utf8))
        // Another writer's file of a moment ago may still be renamed: it stays.
        #expect(temporary.files == [recent.lastPathComponent, "landmarks.json", "reservations.json"].sorted())
    }
}
