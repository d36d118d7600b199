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
    var server: HTTPServerBuilder {
        let limits = self
        return HTTPServerBuilder { responder in LimitedHTTP1Channel(responder: responder, limits: limits) }
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
            // First in the pipeline: it sees the bytes before the HTTP decoder does.
            try channel.pipeline.syncOperations.addHandler(FirstByteHandler(deadline))
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
/// once the answer is written. When it runs out the connection is closed.
final class RequestDeadline {
    static let timedOut = Counter(label: "resv_connections_timed_out_total")

    private let timeout: TimeAmount
    private let channel: any Channel
    private var scheduled: Scheduled<Void>?
    /// A request has started and its answer is not yet written.
    private var busy = false

    init(timeout: TimeAmount, channel: any Channel) {
        self.timeout = timeout
        self.channel = channel
    }

    func bytesArrived() {
        guard !busy else { return }
        busy = true
        let channel = channel
        scheduled = channel.eventLoop.scheduleTask(in: timeout) {
            RequestDeadline.timedOut.increment()
            channel.close(promise: nil)
        }
    }

    func requestComplete() {
        scheduled?.cancel()
        scheduled = nil
    }

    func answered() {
        requestComplete()
        busy = false
    }
}

/// Starts the deadline at a request's first byte.
final class FirstByteHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let deadline: RequestDeadline

    init(_ deadline: RequestDeadline) { self.deadline = deadline }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        deadline.bytesArrived()
        context.fireChannelRead(data)
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
        if case .end = unwrapInboundIn(data) { deadline.requestComplete() }
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
