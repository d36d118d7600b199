import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One HTTP request as the backend sends it.
public struct HTTPRequestData: Sendable, Hashable {
    public var method: String
    public var url: URL
    public var headers: [String: String]
    public var body: Data?
    /// The most seconds this exchange may take in all (connecting, waiting, reading
    /// the body): what is left of the command's deadline. Nil: the transport's own limit.
    public var timeout: TimeInterval?

    public init(
        method: String, url: URL, headers: [String: String] = [:], body: Data? = nil, timeout: TimeInterval? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// One HTTP response: status, headers (names lowercased) and the whole body.
public struct HTTPResponseData: Sendable, Hashable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        self.body = body
    }
}

/// Why a request got no response.
public enum TransportFailure: Error, Sendable, Equatable {
    /// No connection: refused, unknown host, no route.
    case cannotConnect(String)
    /// No progress within the timeout, or the whole request took too long.
    case timedOut
    /// The connection closed before a whole response arrived.
    case connectionLost(String)
    /// A response began but its body ended early.
    case truncated(String)
    /// The body is larger than `HTTPTransport.largestBody`: declared so, or sent so.
    case tooLarge
}

/// The HTTP exchange the backend runs on: a closure, so tests can swap it
/// (the stateful-mock habit of the Landmarks app), and `.urlSession` for real.
public struct HTTPTransport: Sendable {
    public var send: @Sendable (HTTPRequestData) async throws -> HTTPResponseData

    public init(send: @escaping @Sendable (HTTPRequestData) async throws -> HTTPResponseData) {
        self.send = send
    }

    /// The largest response body the client accepts: 64 MiB, far above any list a
    /// server has reason to send, and low enough that a server (or a proxy) that
    /// sends without end cannot fill the memory.
    public static let largestBody = 64 << 20

    /// "64 MiB", for messages.
    public static var largestBodyDescription: String { "\(largestBody >> 20) MiB" }

    /// The `curl` program (Debian's curl package) run once per request.
    ///
    /// Not URLSession: FoundationNetworking links libcurl and its ~35 shared
    /// libraries into `resv`, loaded at every start, file mode included:
    /// `resv --version` went from 5.5 to 12 ms (BENCHMARKS.md). Running curl
    /// costs the same few milliseconds, but only for commands that talk to a
    /// server. The request goes to curl on stdin as a config file, so the token
    /// never appears on a command line (`ps`). `idleTimeout` bounds connecting
    /// and every stall; `requestTimeout` the whole request. A body above
    /// `largestBody` is refused (`TransportFailure.tooLarge`): curl stops at a
    /// larger declared length, and is stopped once it has written more.
    public static func curl(
        idleTimeout: TimeInterval, requestTimeout: TimeInterval, program: String = "curl",
        largestBody: Int = HTTPTransport.largestBody
    ) -> HTTPTransport {
        HTTPTransport { request in
            try await CurlRun(
                request: request, idleTimeout: idleTimeout, requestTimeout: requestTimeout, program: program,
                largestBody: largestBody
            ).response()
        }
    }
}

/// One run of curl: the request as a curl config on stdin, the response's
/// header block and body on stdout, curl's exit code as the transport failure.
struct CurlRun {
    let request: HTTPRequestData
    let idleTimeout: TimeInterval
    let requestTimeout: TimeInterval
    let program: String
    var largestBody = HTTPTransport.largestBody

    /// Room for the header blocks in curl's output, beyond the body (curl takes
    /// at most 100 KiB per header line).
    static let headerAllowance = 1 << 20
    /// The most of curl's error messages kept.
    static let largestMessage = 64 << 10

    /// A value in a curl config file: double-quoted, with `\\`, `\"` and control characters escaped.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A number of seconds curl can take: at least a millisecond, at most a day.
    static func seconds(_ value: TimeInterval) -> TimeInterval {
        value.isFinite ? min(max(value, 0.001), 86_400) : 86_400
    }

    var config: String {
        let idleTimeout = Self.seconds(idleTimeout)
        var lines = [
            "url = \(Self.quoted(request.url.absoluteString))",
            "request = \(Self.quoted(request.method))",
            "silent", "show-error", "http1.1",
            "dump-header = \"-\"",
            "connect-timeout = \(idleTimeout)",
            "speed-limit = 1", "speed-time = \(max(1, Int(idleTimeout.rounded(.up))))",
            "max-time = \(Self.seconds(requestTimeout))",
            "max-filesize = \(largestBody)",
            // No curl default headers we did not ask for.
            "header = \"Expect:\"", "header = \"User-Agent: resv\"",
        ]
        for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) {
            lines.append("header = \(Self.quoted("\(name): \(value)"))")
        }
        if let body = request.body {
            lines.append("data-binary = \(Self.quoted(String(decoding: body, as: UTF8.self)))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    func response() async throws -> HTTPResponseData {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program, "--disable", "--config", "-"]
        // curl's stdin is one end of a socket pair, not a pipe: if curl is gone
        // before it reads (not installed), the write fails with EPIPE instead
        // of raising SIGPIPE, which would kill resv.
        var ends: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0 else {
            throw TransportFailure.cannotConnect("cannot start curl: \(String(cString: strerror(errno)))")
        }
        let ours = FileHandle(fileDescriptor: ends[0], closeOnDealloc: true)
        let theirs = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = theirs
        process.standardOutput = output
        process.standardError = errors
        let exited = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { exited.continuation.yield($0.terminationStatus) }
        do {
            try process.run()
        } catch {
            throw TransportFailure.cannotConnect(
                "cannot run curl (apt-get install curl): \(error.localizedDescription)")
        }
        try? theirs.close()
        // Ctrl-C (a cancelled task) ends curl at once; its answer, if any, is then not wanted.
        let pid = process.processIdentifier
        let ((data, end), message, status) = await withTaskCancellationHandler {
            await exchange(ends[0], output, errors, exited.stream, stop: { kill(pid, SIGKILL) })
        } onCancel: {
            kill(pid, SIGKILL)
        }
        try? ours.close()
        try Task.checkCancellation()
        let detail = String(decoding: message, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            .replacingOccurrences(of: "curl: ", with: "")
        // curl was stopped, whatever its status says.
        switch end {
        case .complete: break
        case .overLimit: throw TransportFailure.tooLarge
        case .failed: throw TransportFailure.connectionLost("cannot read curl's output")
        }
        switch status {
        case 0:
            let response = try Self.parse(data)
            guard response.body.count <= largestBody else { throw TransportFailure.tooLarge }
            return response
        case 63: throw TransportFailure.tooLarge  // "Maximum file size exceeded": a larger Content-Length
        case 127: throw TransportFailure.cannotConnect("curl is not installed (apt-get install curl)")
        case 28: throw TransportFailure.timedOut
        case 18: throw TransportFailure.truncated(detail)
        case 52, 55, 56, 8: throw TransportFailure.connectionLost(detail)
        default: throw TransportFailure.cannotConnect(detail.isEmpty ? "curl exited with \(status)" : detail)
        }
    }

    /// Sends the config on curl's stdin, then reads its output and error
    /// streams to their end and waits for its exit status. When curl writes
    /// more than a body of the largest size and its headers, `stop` ends it and
    /// the rest is never read.
    private func exchange(
        _ input: Int32, _ output: Pipe, _ errors: Pipe, _ exited: AsyncStream<Int32>,
        stop: @escaping @Sendable () -> Void
    ) async -> ((Data, ReadEnd), Data, Int32) {
        let bytes = Array(config.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(input, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }  // curl is gone; its exit status says why
            sent += count
        }
        shutdown(input, Int32(SHUT_WR))
        let limit = largestBody + Self.headerAllowance
        async let out = Self.onThread {
            let (data, end) = Self.read(output.fileHandleForReading, keeping: limit)
            if end != .complete { stop() }
            return (data, end)
        }
        async let err = Self.onThread {
            let (message, end) = Self.read(errors.fileHandleForReading, keeping: Self.largestMessage)
            if end != .complete { stop() }  // no curl has that much to say
            return message
        }
        let (data, message) = await (out, err)
        var status: Int32 = -1
        for await code in exited {
            status = code
            break
        }
        return (data, message, status)
    }

    /// Runs `work`, which blocks (reading a pipe), on a thread of its own: the
    /// cooperative pool has only a thread per core, and a fetch reads two curls' two pipes.
    static func onThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: work()) }
        }
    }

    /// How a bounded read ended.
    enum ReadEnd { case complete, overLimit, failed }

    /// Reads `handle` to its end, keeping at most `limit` bytes. Past the limit, or
    /// on a read error, it stops at once: the writer must then be stopped, or it
    /// would block on a full pipe.
    static func read(_ handle: FileHandle, keeping limit: Int) -> (data: Data, end: ReadEnd) {
        // In pieces of a mebibyte, joined at the end: a growing Data would hold
        // its old and its new buffer at once, twice the answer at the worst moment.
        let piece = 1 << 20
        var pieces: [Data] = []
        var total = 0
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        func joined() -> Data {
            var data = Data(capacity: total)
            for index in pieces.indices {
                data.append(pieces[index])
                pieces[index] = Data()
            }
            return data
        }
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(handle.fileDescriptor, $0.baseAddress, $0.count) }
            if count == 0 { return (joined(), .complete) }
            if count < 0 {
                if errno == EINTR { continue }
                return (Data(), .failed)
            }
            guard total + count <= limit else { return (Data(), .overLimit) }
            if pieces.isEmpty || pieces[pieces.count - 1].count + count > piece {
                pieces.append(Data(capacity: piece))
            }
            pieces[pieces.count - 1].append(contentsOf: chunk[..<count])
            total += count
        }
    }

    /// Splits curl's output: header blocks (skipping 1xx ones), then the body.
    static func parse(_ data: Data) throws -> HTTPResponseData {
        var rest = data[...]
        let separator = Data("\r\n\r\n".utf8)
        while true {
            guard let end = rest.range(of: separator) else {
                throw TransportFailure.connectionLost("no complete HTTP header in the answer")
            }
            let head = String(decoding: rest[rest.startIndex..<end.lowerBound], as: UTF8.self)
            rest = rest[end.upperBound...]
            let lines = head.components(separatedBy: "\r\n")
            let parts = lines.first?.split(separator: " ", maxSplits: 2) ?? []
            guard parts.count >= 2, let status = Int(parts[1]) else {
                throw TransportFailure.connectionLost("the answer is not HTTP")
            }
            if (100..<200).contains(status) { continue }
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
                    .trimmingCharacters(in: .whitespaces)
            }
            return HTTPResponseData(status: status, headers: headers, body: Data(rest))
        }
    }
}
