import HummingbirdCore
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle
import UnixSignals

/// HummingbirdTLS's `TLSChannel`, but taking the TLS context afresh for each
/// accepted connection from a `TLSIdentity`: after a reload (SIGHUP) the next
/// connection uses the new certificate, while each open one keeps its own.
struct ReloadableTLSChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let identity: TLSIdentity

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let context = identity.context
        return channel.eventLoop.makeCompletedFuture {
            // First in the pipeline: every handler after it (the request deadline, HTTP) sees plain bytes.
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// `serve --tls-cert --tls-key`: HTTPS from `identity`, reloaded on each signal of
/// `reloads` (SIGHUP), each reload said in one line to `report`.
public struct TLSOptions: Sendable {
    public var identity: TLSIdentity
    public var reloads: UnixSignalsSequence?
    public var report: @Sendable (String) -> Void

    public init(
        identity: TLSIdentity, reloads: UnixSignalsSequence? = nil,
        report: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.identity = identity
        self.reloads = reloads
        self.report = report
    }

    /// HTTPS from `identity`, reloaded on each SIGHUP from now on (the signal
    /// caught from here, before the server listens: not the default, which ends the process).
    public static func reloadingOnHangup(
        _ identity: TLSIdentity, report: @escaping @Sendable (String) -> Void
    ) async -> TLSOptions {
        TLSOptions(identity: identity, reloads: await UnixSignalsSequence(trapping: .sighup), report: report)
    }
}

/// Reloads the certificate and key on each SIGHUP, saying in one line (`report`)
/// whether the new pair serves the next connection or was refused, the old one kept.
struct TLSReload: Service {
    let identity: TLSIdentity
    /// Made before the server starts, so a SIGHUP from the moment it listens is caught.
    let signals: UnixSignalsSequence
    let report: @Sendable (String) -> Void

    func run() async throws {
        for await _ in signals.cancelOnGracefulShutdown() {
            do {
                try identity.reload()
                report("reloaded the TLS certificate \(identity.certificateFile) and key \(identity.keyFile)")
            } catch {
                report("kept the TLS certificate in use: \(error.localizedDescription)")
            }
        }
    }
}
