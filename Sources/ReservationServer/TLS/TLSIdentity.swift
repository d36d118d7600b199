import Foundation
import NIOSSL
import Synchronization

/// `serve --tls-cert FILE --tls-key FILE`: the PEM files, and the TLS context
/// made from them, which `reload()` (on SIGHUP) replaces for the connections
/// accepted after. A connection keeps the context it began with, so those
/// already open (a long poll among them) are untouched by a reload.
public final class TLSIdentity: Sendable {
    public let certificateFile: String
    public let keyFile: String
    private let current: Mutex<NIOSSLContext>

    /// Reads both files; throws `TLSFileError` when one is missing, unreadable,
    /// not PEM, or the key is not the certificate's.
    public init(certificateFile: String, keyFile: String) throws(TLSFileError) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        current = Mutex(try Self.load(certificate: certificateFile, key: keyFile))
    }

    /// The context a new connection uses.
    var context: NIOSSLContext { current.withLock { $0 } }

    /// Reads the files again; on success the next connection uses them, on
    /// failure (thrown) the pair in use stays.
    public func reload() throws(TLSFileError) {
        let fresh = try Self.load(certificate: certificateFile, key: keyFile)
        current.withLock { $0 = fresh }
    }

    /// A server context of the certificate chain and key in the files: TLS 1.2 and 1.3.
    static func load(certificate: String, key: String) throws(TLSFileError) -> NIOSSLContext {
        let chain = try read(certificate)
        let keyBytes = try read(key)
        guard chain.pem, let certificates = try? NIOSSLCertificate.fromPEMBytes(chain.bytes), !certificates.isEmpty
        else { throw .notPEM(path: certificate, what: "a certificate") }
        guard keyBytes.pem, let privateKey = try? NIOSSLPrivateKey(bytes: keyBytes.bytes, format: .pem) else {
            throw .notPEM(path: key, what: "a private key")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: certificates.map { .certificate($0) }, privateKey: .privateKey(privateKey))
        configuration.minimumTLSVersion = .tlsv12
        configuration.maximumTLSVersion = .tlsv13
        // BoringSSL refuses a key that is not the leaf certificate's (KEY_VALUES_MISMATCH).
        guard let context = try? NIOSSLContext(configuration: configuration) else {
            throw .keyMismatch(certificate: certificate, key: key)
        }
        return context
    }

    /// A file's bytes, and whether they look like PEM at all.
    private static func read(_ path: String) throws(TLSFileError) -> (bytes: [UInt8], pem: Bool) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .unreadable(path: path, why: "no such file")
        }
        guard !isDirectory.boolValue else { throw .unreadable(path: path, why: "it is a directory") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .unreadable(path: path, why: "permission denied")
        }
        let bytes = [UInt8](data)
        return (bytes, String(decoding: bytes, as: UTF8.self).contains("-----BEGIN "))
    }
}

/// Why a certificate or key cannot serve: one case per failure, each a line that
/// says what to do. Unreadable is exit 66 at start; the others 78.
public enum TLSFileError: Error, LocalizedError, Sendable {
    /// Missing, a directory, or not readable by the server.
    case unreadable(path: String, why: String)
    /// Not PEM, or PEM without a certificate (a key) in it.
    case notPEM(path: String, what: String)
    /// The key is not the certificate's.
    case keyMismatch(certificate: String, key: String)

    public var errorDescription: String? {
        switch self {
        case .unreadable(let path, let why):
            "cannot read the TLS file \(path): \(why)"
        case .notPEM(let path, let what):
            "\(path) is not \(what) in PEM form (-----BEGIN …-----): give --tls-cert a PEM certificate chain and --tls-key its PEM key"
        case .keyMismatch(let certificate, let key):
            "the key in \(key) is not the key of the certificate in \(certificate): give the certificate's own key"
        }
    }

    /// Whether the file could not be read at all (exit 66), rather than read and refused (78).
    public var isUnreadable: Bool {
        if case .unreadable = self { return true }
        return false
    }
}
