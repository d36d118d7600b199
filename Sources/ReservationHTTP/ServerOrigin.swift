import Foundation

/// A server's origin: scheme, host and port, the unit a token belongs to (as a
/// browser's cookies, gh's hosts and git's credentials are kept per host). Two
/// spellings of one server (`HTTP://Host`, `http://host:80/api`) are one origin;
/// the user name and password a URL may carry are no part of it.
public struct ServerOrigin: Sendable, Hashable, CustomStringConvertible {
    /// `http` or `https`.
    public let scheme: String
    /// The host, lowercased; an IPv6 address without its brackets.
    public let host: String
    public let port: Int

    /// The origin of an http:// or https:// URL with a host; nil for anything else.
    public init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host(percentEncoded: false)?.lowercased(), !host.isEmpty,
            host.allSatisfy({ $0.isASCII && !$0.isWhitespace })
        else { return nil }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        guard (1...65_535).contains(port) else { return nil }
        self.scheme = scheme
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.port = port
    }

    /// The origin of a URL's text (a config file's key, an argument); nil when it names none
    /// or holds more than an origin and a path (a query, a fragment).
    public init?(_ text: String) {
        guard let url = URL(string: text), url.query == nil, url.fragment == nil else { return nil }
        self.init(url)
    }

    /// `https://resv.example.com:443`: the form the config file keeps tokens under.
    public var description: String {
        "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// Whether the host is this machine: 127.0.0.0/8, ::1, or `localhost` (which libcurl
    /// answers itself with a loopback address, never asking a name server).
    public var isLoopback: Bool {
        if host == "localhost" || host.hasSuffix(".localhost") || host == "::1" || host == "0:0:0:0:0:0:0:1" {
            return true
        }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && Int(part).map { $0 <= 255 } == true
        }
    }

    /// Whether a token may go to this origin as it is: over https, or over http to this machine only.
    public var keepsSecretsOffTheWire: Bool { scheme == "https" || isLoopback }
}
