import Hummingbird
import HummingbirdCore
import Logging
import Metrics
import NIOCore
import NIOHTTPTypes

/// How long a connection may take and sit: `serve --request-timeout` and `--idle-timeout`.
public struct ConnectionLimits: Sendable {
    /// A request must arrive whole (head and body) within this time of its first byte.
    public var requestTimeout: Duration
    /// A connection with no request under way is closed after this time.
    public var idleTimeout: Duration

    public init(requestTimeout: Duration = .seconds(10), idleTimeout: Duration = .seconds(60)) {
        self.requestTimeout = requestTimeout
        self.idleTimeout = idleTimeout
    }

    /// Hummingbird's HTTP/1 server with both limits. The idle timeout is
    /// Hummingbird's own (it counts from the last request or response);
    /// the request timeout needs the raw bytes, which Hummingbird's handlers
    /// only see decoded, so it is two handlers of ours around the decoder.
    var server: HTTPServerBuilder { server(tls: nil) }

    /// The same, behind TLS from `identity` (read per connection) when there is one.
    func server(tls identity: TLSIdentity?) -> HTTPServerBuilder {
        let limits = self
        return HTTPServerBuilder { responder in
            let http = LimitedHTTP1Channel(responder: responder, limits: limits)
            guard let identity else { return http }
            return ReloadableTLSChannel(base: http, identity: identity)
        }
    }
}

/// `HTTP1Channel` with a `RequestDeadline` per connection.
struct LimitedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let responder: HTTPChannelHandler.Responder
    let limits: ConnectionLimits

    private var configuration: HTTP1Channel.Configuration {
        HTTP1Channel.Configuration(idleTimeout: TimeAmount(limits.idleTimeout))
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let deadline = RequestDeadline(timeout: TimeAmount(limits.requestTimeout), channel: channel)
        let bound = NIOLoopBound(deadline, eventLoop: channel.eventLoop)
        do {
            // First in the pipeline: it sees the bytes before the HTTP decoder does,
            // and writes a 408 beneath the encoder when a head never arrives whole.
            let first = FirstByteHandler(deadline)
            deadline.rawWriter = first
            try channel.pipeline.syncOperations.addHandler(first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        var configuration = configuration
        configuration.additionalChannelHandlers = { [RequestPartsHandler(bound.value)] }
        return HTTP1Channel(responder: responder, configuration: configuration).setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await HTTP1Channel(responder: responder, configuration: configuration).handle(value: value, logger: logger)
    }
}

/// One connection's clock for the request being received: started by its
/// first byte, stopped once the whole request is decoded, and ready again
/// once the answer is written. When it runs out the connection is closed:
/// after a 408 written here when the request's head never arrived whole (no
/// route has it to answer), else at once (the route reading the body answers
/// 408 and counts it as its read fails).
final class RequestDeadline {
    static let timedOut = Counter(label: "resv_connections_timed_out_total")

    /// What a client whose request head never arrived whole gets before the connection closes.
    static let timeoutAnswer: ByteBuffer = {
        let body = #"{"code":"invalidRequest","error":true,"reason":"the request did not arrive whole in time"}"#
        return ByteBuffer(
            string: "HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json; charset=utf-8\r\n"
                + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body)
    }()

    private let timeout: TimeAmount
    private let channel: any Channel
    private var scheduled: Scheduled<Void>?
    /// A request has started and its answer is not yet written.
    private var busy = false
    /// The request's head was decoded: a route has it, and answers it.
    private var headDecoded = false
    /// Writes beneath the HTTP encoder, for the 408 no route will send.
    weak var rawWriter: FirstByteHandler?

    init(timeout: TimeAmount, channel: any Channel) {
        self.timeout = timeout
        self.channel = channel
    }

    var eventLoop: any EventLoop { channel.eventLoop }

    func bytesArrived() {
        guard !busy else { return }
        busy = true
        let channel = channel
        // The task runs on the connection's event loop, where this object lives.
        let bound = NIOLoopBound(self, eventLoop: channel.eventLoop)
        scheduled = channel.eventLoop.scheduleTask(in: timeout) {
            RequestDeadline.timedOut.increment()
            let deadline = bound.value
            if !deadline.headDecoded, let rawWriter = deadline.rawWriter {
                rawWriter.write(Self.timeoutAnswer).whenComplete { _ in channel.close(promise: nil) }
            } else {
                channel.close(promise: nil)
            }
        }
    }

    func headArrived() { headDecoded = true }

    func requestComplete() {
        scheduled?.cancel()
        scheduled = nil
    }

    func answered() {
        requestComplete()
        busy = false
        headDecoded = false
    }
}

/// Starts the deadline at a request's first byte.
final class FirstByteHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let deadline: RequestDeadline
    private var context: ChannelHandlerContext?

    init(_ deadline: RequestDeadline) { self.deadline = deadline }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        deadline.bytesArrived()
        context.fireChannelRead(data)
    }

    /// Writes bytes straight to the socket, beneath the HTTP encoder.
    func write(_ bytes: ByteBuffer) -> EventLoopFuture<Void> {
        guard let context else { return deadline.eventLoop.makeSucceededVoidFuture() }
        return context.writeAndFlush(NIOAny(bytes))
    }
}

/// Stops the deadline when a request is whole, and readies it when its answer ends.
final class RequestPartsHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let deadline: RequestDeadline

    init(_ deadline: RequestDeadline) { self.deadline = deadline }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: deadline.headArrived()
        case .end: deadline.requestComplete()
        case .body: break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { deadline.answered() }
        context.write(data, promise: promise)
    }
}

@available(*, unavailable)
extension RequestDeadline: Sendable {}
@available(*, unavailable)
extension FirstByteHandler: Sendable {}
@available(*, unavailable)
extension RequestPartsHandler: Sendable {}
