import CCurl
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

extension HTTPTransport {
    /// HTTP inside the process, over libcurl (Debian's libcurl4), loaded with
    /// dlopen on the first request: `resv --version` and the file-store
    /// commands never load it or its ~35 shared libraries (linking it, as
    /// FoundationNetworking does, doubled the start-up time; BENCHMARKS.md).
    ///
    /// Connections are kept between requests, for the rest of the process (a
    /// command's requests, a REPL session). `connectTimeout` bounds connecting
    /// and every stall; `request.timeout` (else `requestTimeout`) the whole
    /// exchange. A body above `largestBody` is refused (`TransportFailure.tooLarge`),
    /// declared so or sent so. Cancelling the task aborts the transfer at once.
    /// An https server's certificate is verified against the system's CA store, or the
    /// certificates of `caFile` (PEM) in its place; one that does not verify ends the
    /// exchange before a byte of the request is sent (`TransportFailure.untrusted`).
    public static func libcurl(
        connectTimeout: TimeInterval, requestTimeout: TimeInterval, largestBody: Int = HTTPTransport.largestBody,
        caFile: String? = nil
    ) -> HTTPTransport {
        HTTPTransport { request in
            let transfer = LibCurlTransfer(
                request: request, connectTimeout: connectTimeout,
                requestTimeout: request.timeout ?? requestTimeout, largestBody: largestBody, caFile: caFile)
            return try await transfer.response()
        }
    }
}

/// One exchange over libcurl, performed on a thread of its own: libcurl blocks,
/// and the cooperative pool has only a thread per core (a fetch sends two requests at once).
struct LibCurlTransfer: Sendable {
    let request: HTTPRequestData
    let connectTimeout: TimeInterval
    let requestTimeout: TimeInterval
    let largestBody: Int
    /// The CA certificates to verify with instead of the system's; nil: the system's.
    var caFile: String? = nil

    /// What `HTTPTransport.libcurl` says when there is no libcurl to load.
    static let notInstalled = TransportFailure.cannotConnect("libcurl is not installed (apt-get install libcurl4)")

    /// The data of an empty body.
    static var empty: UnsafeRawPointer { UnsafeRawPointer(("" as StaticString).utf8Start) }

    /// A number of milliseconds libcurl can take: at least one, at most a day (no
    /// huge, negative or nan value may trap converting it).
    static func milliseconds(_ seconds: TimeInterval) -> Int {
        let seconds = seconds.isFinite ? min(max(seconds, 0.001), 86_400) : 86_400
        return Int((seconds * 1000).rounded(.up))
    }

    func response() async throws -> HTTPResponseData {
        let cancellation = LibCurlCancellation()
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                Thread.detachNewThread { continuation.resume(returning: perform(cancellation)) }
            }
        } onCancel: {
            cancellation.cancel()
        }
        if cancellation.isCancelled { throw CancellationError() }
        return try outcome.get()
    }

    /// The whole exchange, blocking this thread.
    func perform(_ cancellation: LibCurlCancellation) -> Result<HTTPResponseData, TransportFailure> {
        // libcurl writes with MSG_NOSIGNAL; should any write still raise SIGPIPE (a
        // TLS library's own), it stays pending on this thread instead of killing resv.
        var pipe = sigset_t()
        sigemptyset(&pipe)
        sigaddset(&pipe, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipe, nil)

        guard ccurl_load(nil) == 0 else { return .failure(Self.notInstalled) }
        guard let handles = LibCurlHandles.take(for: request.url, caFile: caFile) else {
            return .failure(.cannotConnect("libcurl cannot start a transfer (out of memory?)"))
        }
        defer { LibCurlHandles.give(handles) }
        let receiver = LibCurlReceiver(limit: largestBody)
        var message = [CChar](repeating: 0, count: Int(CCURL_ERROR_SIZE))
        var headers: UnsafeMutablePointer<ccurl_slist>?
        for line in ["Expect:", "User-Agent: resv"]
            + request.headers.sorted(by: { $0.key < $1.key }).map({
                "\($0.key): \($0.value)"
            })
        {
            headers = ccurl_slist_append(headers, line)
        }
        defer { ccurl_slist_free_all(headers) }
        let easy = handles.easy
        let code = request.body.map { Array($0) }.withUnsafeBufferPointerIfAny { body in
            message.withUnsafeMutableBufferPointer { message in
                configure(easy, headers: headers, body: body)
                ccurl_setopt_pointer(easy, CCURLOPT_ERRORBUFFER, message.baseAddress)
                ccurl_setopt_pointer(easy, CCURLOPT_WRITEDATA, Unmanaged.passUnretained(receiver).toOpaque())
                defer {
                    // Nothing of this request may outlive it in a handle kept for the next one.
                    for option in [CCURLOPT_ERRORBUFFER, CCURLOPT_WRITEDATA, CCURLOPT_HTTPHEADER, CCURLOPT_POSTFIELDS] {
                        ccurl_setopt_pointer(easy, option, nil)
                    }
                }
                return handles.run(cancellation)
            }
        }
        if cancellation.isCancelled { return .failure(.connectionLost("cancelled")) }
        if receiver.isOverLimit { return .failure(.tooLarge) }
        guard code == CCURLE_OK else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let detail = text.isEmpty ? String(cString: ccurl_easy_strerror(code)) : text
            return .failure(Self.failure(code, detail))
        }
        var status = 0
        ccurl_getinfo_long(easy, CCURLINFO_RESPONSE_CODE, &status)
        return .success(HTTPResponseData(status: status, headers: Self.headers(easy), body: receiver.body()))
    }

    /// Sets every option of the request: a kept handle still holds the last request's.
    private func configure(
        _ easy: UnsafeMutableRawPointer, headers: UnsafeMutablePointer<ccurl_slist>?,
        body: UnsafeBufferPointer<UInt8>?
    ) {
        ccurl_setopt_pointer(easy, CCURLOPT_URL, request.url.absoluteString)
        ccurl_setopt_pointer(easy, CCURLOPT_PROTOCOLS_STR, "http,https")
        ccurl_setopt_long(easy, CCURLOPT_HTTP_VERSION, CCURL_HTTP_VERSION_1_1)
        ccurl_setopt_long(easy, CCURLOPT_NOSIGNAL, 1)
        ccurl_setopt_long(easy, CCURLOPT_FOLLOWLOCATION, 0)
        ccurl_setopt_long(easy, CCURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(connectTimeout))
        ccurl_setopt_long(easy, CCURLOPT_TIMEOUT_MS, Self.milliseconds(requestTimeout))
        // A stall: less than a byte a second for connectTimeout (whole seconds), or the request's quiet time.
        ccurl_setopt_long(easy, CCURLOPT_LOW_SPEED_LIMIT, 1)
        ccurl_setopt_long(
            easy, CCURLOPT_LOW_SPEED_TIME,
            max(1, (Self.milliseconds(request.quietTime ?? connectTimeout) + 999) / 1000))
        ccurl_setopt_off_t(easy, CCURLOPT_MAXFILESIZE_LARGE, Int64(largestBody))
        ccurl_setopt_pointer(easy, CCURLOPT_HTTPHEADER, headers)
        ccurl_setopt_write_function(easy, libcurlWrite)
        // GET resets what a last POST set; a body makes it a POST, whose data
        // libcurl reads from `body` (alive until the transfer ends), at its exact length.
        ccurl_setopt_long(easy, CCURLOPT_HTTPGET, 1)
        if let body {
            ccurl_setopt_off_t(easy, CCURLOPT_POSTFIELDSIZE_LARGE, Int64(body.count))
            // An empty body still needs a pointer, or libcurl would ask for a read callback.
            ccurl_setopt_pointer(easy, CCURLOPT_POSTFIELDS, body.baseAddress.map(UnsafeRawPointer.init) ?? Self.empty)
        }
        let method = request.method.uppercased()
        // libcurl sends a request again, on a new connection, when a kept one dies before any
        // answer: it assumes the server never saw it. A change the server may have made must not
        // be sent twice, so one without an Idempotency-Key (which makes a second sending
        // harmless) gets a connection of its own, which libcurl never retries.
        let repeatable = ["GET", "HEAD"].contains(method) || request.headers["Idempotency-Key"] != nil
        ccurl_setopt_long(easy, CCURLOPT_FRESH_CONNECT, repeatable ? 0 : 1)
        let usual = body == nil ? "GET" : "POST"
        if method == usual {
            ccurl_setopt_pointer(easy, CCURLOPT_CUSTOMREQUEST, nil)
        } else {
            ccurl_setopt_pointer(easy, CCURLOPT_CUSTOMREQUEST, method)
        }
    }

    /// The final response's headers (libcurl keeps 1xx and a proxy's CONNECT
    /// answer apart), names lowercased; of a repeated name, the last.
    static func headers(_ easy: UnsafeMutableRawPointer) -> [String: String] {
        var headers: [String: String] = [:]
        var header = ccurl_easy_nextheader(easy, CCURLH_HEADER, -1, nil)
        while let current = header {
            if let name = current.pointee.name, let value = current.pointee.value {
                headers[String(cString: name).lowercased()] = String(cString: value)
            }
            header = ccurl_easy_nextheader(easy, CCURLH_HEADER, -1, current)
        }
        return headers
    }

    /// The transport failure of a libcurl error, as curl's exit codes were mapped.
    static func failure(_ code: Int32, _ detail: String) -> TransportFailure {
        switch code {
        case CCURLE_OPERATION_TIMEDOUT: .timedOut
        case CCURLE_PARTIAL_FILE: .truncated(detail)
        case CCURLE_GOT_NOTHING, CCURLE_SEND_ERROR, CCURLE_RECV_ERROR, CCURLE_WEIRD_SERVER_REPLY:
            .connectionLost(detail)
        case CCURLE_FILESIZE_EXCEEDED: .tooLarge
        case CCURLE_SSL_CONNECT_ERROR, CCURLE_SSL_CERTPROBLEM, CCURLE_PEER_FAILED_VERIFICATION,
            CCURLE_SSL_CACERT_BADFILE, CCURLE_SSL_ISSUER_ERROR:
            .untrusted(detail)
        default: .cannotConnect(detail)
        }
    }
}

/// The body as it arrives, in pieces of a mebibyte joined at the end (a growing
/// Data would hold its old and its new buffer at once, twice the answer at the
/// worst moment); past `limit` it stops the transfer.
final class LibCurlReceiver {
    let limit: Int
    private var pieces: [Data] = []
    private var total = 0
    private(set) var isOverLimit = false

    init(limit: Int) { self.limit = limit }

    /// Whether to go on.
    func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard total + bytes.count <= limit else {
            isOverLimit = true
            pieces = []
            return false
        }
        let piece = 1 << 20
        if pieces.isEmpty || pieces[pieces.count - 1].count + bytes.count > piece {
            pieces.append(Data(capacity: max(piece, bytes.count)))
        }
        pieces[pieces.count - 1].append(contentsOf: bytes)
        total += bytes.count
        return true
    }

    func body() -> Data {
        if pieces.count == 1 { return pieces[0] }
        var data = Data(capacity: total)
        for index in pieces.indices {
            data.append(pieces[index])
            pieces[index] = Data()
        }
        return data
    }
}

/// libcurl's write callback: the body's next bytes, to the transfer's receiver.
private func libcurlWrite(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let context else { return 0 }
    let receiver = Unmanaged<LibCurlReceiver>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    return receiver.append(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : 0
}

/// Cancellation of one transfer, from any thread: wakes the transfer's poll at once.
final class LibCurlCancellation: Sendable {
    private let state = Mutex<(cancelled: Bool, handles: LibCurlHandles?)>((false, nil))

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    func cancel() {
        state.withLock { state in
            state.cancelled = true
            if let handles = state.handles { ccurl_multi_wakeup(handles.multi) }
        }
    }

    /// The handles the transfer runs on, while it runs (nil after: they go back to the pool).
    func running(on handles: LibCurlHandles?) -> Bool {
        state.withLock { state in
            state.handles = handles
            return !state.cancelled
        }
    }
}

/// An easy handle and the multi handle it runs in, used by one transfer at a
/// time. The multi handle keeps the connections between transfers, so they are
/// kept in a process-wide pool: a command's requests and a REPL session's reuse them.
struct LibCurlHandles: @unchecked Sendable {
    let easy: UnsafeMutableRawPointer
    let multi: UnsafeMutableRawPointer
    /// Scheme, host and port of the server its connections go to, and the CA file they were verified with.
    let origin: String

    /// Handles not in use, the last returned last.
    private static let pool = Mutex<[LibCurlHandles]>([])
    /// Enough for many servers' transfers at once (a fetch runs two; the tests run
    /// dozens of servers in one process, and 16 let one test's handles close
    /// another's connections); the least recently used beyond are closed.
    private static let kept = 64

    /// The handles that last talked to `url`'s server (each multi handle keeps its
    /// own connections, so theirs is the likeliest open), else new ones.
    /// A handle's CA file is set once, when it is made: handles are kept per origin and CA file.
    static func take(for url: URL, caFile: String? = nil) -> LibCurlHandles? {
        let origin = origin(url) + (caFile.map { " " + $0 } ?? "")
        let kept = pool.withLock { pool in pool.lastIndex { $0.origin == origin }.map { pool.remove(at: $0) } }
        if let kept { return kept }
        guard let easy = ccurl_easy_init() else { return nil }
        guard let multi = ccurl_multi_init() else {
            ccurl_easy_cleanup(easy)
            return nil
        }
        if let caFile { ccurl_setopt_pointer(easy, CCURLOPT_CAINFO, caFile) }
        return LibCurlHandles(easy: easy, multi: multi, origin: origin)
    }

    /// Back to the pool; past `kept`, the least recently used are closed.
    static func give(_ handles: LibCurlHandles) {
        let closed = pool.withLock { pool in
            pool.append(handles)
            return pool.count > kept ? pool.removeFirst() : nil
        }
        if let closed {
            ccurl_multi_cleanup(closed.multi)
            ccurl_easy_cleanup(closed.easy)
        }
    }

    static func origin(_ url: URL) -> String {
        "\(url.scheme ?? "")://\(url.host ?? ""):\(url.port.map(String.init) ?? "")"
    }

    /// Runs the configured transfer to its end, or until `cancellation`: its CURLcode.
    func run(_ cancellation: LibCurlCancellation) -> Int32 {
        guard ccurl_multi_add_handle(multi, easy) == 0 else { return CCURLE_OPERATION_TIMEDOUT }
        defer {
            _ = cancellation.running(on: nil)
            // Mid-transfer (cancelled), this aborts it and closes its connection.
            ccurl_multi_remove_handle(multi, easy)
        }
        guard cancellation.running(on: self) else { return CCURLE_ABORTED_BY_CALLBACK }
        var running: Int32 = 1
        while true {
            guard ccurl_multi_perform(multi, &running) == 0 else { return CCURLE_RECV_ERROR }
            if running == 0 { break }
            // Waits for the sockets or libcurl's next timer, a second at most;
            // `cancel()` wakes it at once.
            _ = ccurl_multi_poll(multi, 1000)
            if cancellation.isCancelled { return CCURLE_ABORTED_BY_CALLBACK }
        }
        let result = ccurl_multi_result(multi)
        return result < 0 ? CCURLE_GOT_NOTHING : result
    }
}

extension Optional where Wrapped == [UInt8] {
    /// The bytes' buffer, or nil, for as long as `body` runs.
    fileprivate func withUnsafeBufferPointerIfAny<T>(_ body: (UnsafeBufferPointer<UInt8>?) -> T) -> T {
        switch self {
        case .some(let bytes): bytes.withUnsafeBufferPointer { body($0) }
        case .none: body(nil)
        }
    }
}
