import Foundation
import ReservationCore
import ResvTestKit
import Testing

@testable import ReservationHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// A server's answer is read up to `HTTPTransport.largestBody` and no further,
/// and the cache never keeps more than that.
@Suite("Response size limit", .timeLimit(.minutes(30)))
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

    /// A transport over libcurl with the given body limit.
    static func transport(limit: Int) -> HTTPTransport {
        .libcurl(connectTimeout: 5, requestTimeout: 60, largestBody: limit)
    }

    static func get(_ server: LoopbackServer) -> HTTPRequestData {
        HTTPRequestData(method: "GET", url: URL(string: server.url + "/reservations")!)
    }

    /// A server that sends a header and then never stops: the transfer is stopped
    /// once past the limit (the server's writes then fail), so memory stays bounded.
    @Test(arguments: [1 << 20, HTTPTransport.largestBody])
    func anEndlessBodyIsCutOff(limit: Int) async throws {
        let stopped = Recorder(false)
        let server = try LoopbackServer { connection in
            guard connection.request() != nil else { return }
            connection.send("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
            let zeros = [UInt8](repeating: 0, count: 256 << 10)
            while connection.send(zeros) {}
            stopped.change { $0 = true }
        }
        // That it ends at all is the point (a body without end would hold this test for ever);
        // how fast is the benchmark's business.
        await #expect(throws: TransportFailure.tooLarge) {
            _ = try await Self.transport(limit: limit).send(Self.get(server))
        }
        for _ in 0..<50 where !stopped.value { try await Task.sleep(for: .milliseconds(100)) }
        #expect(stopped.value, "the connection is closed")
    }

    /// Headers (and a 1xx before them) do not count against the body's limit; a body of exactly the limit is read.
    @Test func aBodyOfTheLimitAfterItsHeadersIsRead() async throws {
        let limit = 1 << 20
        let server = try LoopbackServer { connection in
            guard connection.request() != nil else { return }
            connection.send("HTTP/1.1 100 Continue\r\n\r\n")
            connection.send(
                "HTTP/1.1 200 OK\r\nX-Pad: \(String(repeating: "0", count: 4000))\r\nContent-Length: \(limit)\r\n\r\n")
            connection.send([UInt8](repeating: 0, count: limit))
            connection.waitForClose()
        }
        let response = try await Self.transport(limit: limit).send(Self.get(server))
        #expect(response.status == 200)
        #expect(response.body.count == limit)
    }

    @Test func aLargerDeclaredLengthIsRefusedBeforeTheBody() async throws {
        let limit = 1 << 20
        let server = try LoopbackServer { connection in
            guard connection.request() != nil else { return }
            connection.send("HTTP/1.1 200 OK\r\nContent-Length: \(limit + 1)\r\n\r\n")
            connection.waitForClose()
        }
        await #expect(throws: TransportFailure.tooLarge) {
            _ = try await Self.transport(limit: limit).send(Self.get(server))
        }
    }

    // MARK: The cache

    /// A cache in a temporary folder, removed when the test ends.
    final class TemporaryCache {
        let home: TemporaryDirectory
        let cache: ResponseCache

        init() throws {
            home = try TemporaryDirectory("cache")
            cache = ResponseCache(cacheHome: home.url, baseURL: HTTPServiceTests.base, token: "t0k", now: { Date() })
        }

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
