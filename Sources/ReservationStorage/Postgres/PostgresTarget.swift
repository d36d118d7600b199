import Foundation
import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `--database`'s PostgreSQL URL as libpq reads it: one host, or a list of them
/// (`postgres://user@h1:5432,h2:5432,h3/db?target_session_attrs=read-write`), which is
/// how a cluster that moves its primary (Patroni, pg_auto_failover) is named.
/// postgres-nio connects to one host, so choosing among them is `PostgresCluster`'s.
public struct PostgresTarget: Sendable {
    public struct Host: Sendable, Hashable, CustomStringConvertible {
        public let name: String
        public let port: Int

        public var description: String { name.contains(":") ? "[\(name)]:\(port)" : "\(name):\(port)" }
    }

    /// libpq's `target_session_attrs`, the values a server that writes can use.
    public enum Sessions: String, Sendable {
        /// A host that takes writes (`transaction_read_only` off): libpq's meaning.
        case readWrite = "read-write"
        /// A host that is not a standby (`pg_is_in_recovery()` false).
        case primary
        /// The first host that answers.
        case any
    }

    public let hosts: [Host]
    public let sessions: Sessions
    let username: String
    let password: String?
    let database: String?
    let sslMode: String
    /// The URL without its password, for messages and logs.
    public let redacted: String

    /// More hosts than any cluster has: a list this long is a mistake (a pasted file, a loop).
    public static let maximumHosts = 16

    public init(_ url: String) throws(DatabaseError) {
        // URLComponents takes one host: the host list is read here and a placeholder stands in for it.
        guard let schemeEnd = url.range(of: "://") else { throw Self.bad(url, "expected postgres://…") }
        let afterScheme = url[schemeEnd.upperBound...]
        let authorityEnd = afterScheme.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? afterScheme.endIndex
        let authority = afterScheme[..<authorityEnd]
        let at = authority.lastIndex(of: "@")
        let hostList = at.map { authority[authority.index(after: $0)...] } ?? authority
        let userInfo = at.map { String(authority[..<$0]) + "@" } ?? ""
        let single = url[..<schemeEnd.upperBound] + userInfo + "placeholder" + afterScheme[authorityEnd...]
        let shown = Self.redact(url)
        guard let components = URLComponents(string: String(single)), let scheme = components.scheme,
            ["postgres", "postgresql"].contains(scheme)
        else {
            throw DatabaseError.badDatabaseURL(shown, "expected postgres://user[:password]@host[:port]/database")
        }
        redacted = shown
        let entries = hostList.split(separator: ",", omittingEmptySubsequences: false)
        guard entries.count <= Self.maximumHosts else {
            throw DatabaseError.badDatabaseURL(shown, "\(entries.count) hosts; at most \(Self.maximumHosts) are taken")
        }
        var hosts: [Host] = []
        for entry in entries {
            hosts.append(try Self.host(String(entry), url: shown))
        }
        guard Set(hosts).count == hosts.count else {
            throw DatabaseError.badDatabaseURL(shown, "a host is named twice")
        }
        self.hosts = hosts
        guard let user = components.user, !user.isEmpty else {
            throw DatabaseError.badDatabaseURL(shown, "the user name is missing")
        }
        username = user
        password = components.password
        database = components.path.split(separator: "/").first.map(String.init)
        let query = components.queryItems ?? []
        sslMode = query.last { $0.name == "sslmode" }?.value ?? "prefer"
        guard ["disable", "prefer", "allow", "require", "verify-ca", "verify-full"].contains(sslMode) else {
            throw DatabaseError.badDatabaseURL(shown, "sslmode '\(sslMode)' is not disable, prefer or require")
        }
        let attributes = query.last { $0.name == "target_session_attrs" }?.value
        switch attributes {
        case nil:
            // libpq's default is `any`; a list of hosts is a cluster, whose point is the primary.
            sessions = hosts.count > 1 ? .readWrite : .any
        case "read-only", "standby", "prefer-standby":
            throw DatabaseError.badDatabaseURL(
                shown, "resv-server writes: target_session_attrs '\(attributes ?? "")' cannot be served; use read-write"
            )
        case let value?:
            guard let known = Sessions(rawValue: value) else {
                throw DatabaseError.badDatabaseURL(
                    shown, "target_session_attrs '\(value)' is not read-write, primary or any")
            }
            sessions = known
        }
    }

    /// One entry of the host list: `name`, `name:port`, `[v6]` or `[v6]:port`.
    private static func host(_ entry: String, url: String) throws(DatabaseError) -> Host {
        var name = Substring(entry)
        var port: Substring?
        if name.hasPrefix("[") {
            guard let close = name.firstIndex(of: "]") else { throw bad(url, "'\(entry)' opens [ without ]") }
            let rest = name[name.index(after: close)...]
            name = name[name.index(after: name.startIndex)..<close]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { throw bad(url, "'\(entry)' is not host:port") }
                port = rest.dropFirst()
            }
        } else if let colon = name.lastIndex(of: ":") {
            port = name[name.index(after: colon)...]
            name = name[..<colon]
        }
        guard !name.isEmpty else {
            throw bad(
                url,
                entry.isEmpty ? "a host is missing (two commas, or none before the path)" : "'\(entry)' names no host")
        }
        guard let port else { return Host(name: String(name), port: 5432) }
        guard !port.isEmpty, port.count <= 5, port.allSatisfy(\.isASCII), let number = Int(port),
            (1...65_535).contains(number)
        else { throw bad(url, "'\(port)' is not a port (1 to 65535)") }
        return Host(name: String(name), port: number)
    }

    private static func bad(_ url: String, _ why: String) -> DatabaseError { .badDatabaseURL(redact(url), why) }

    /// The URL without its password.
    static func redact(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@"),
            let colon = rest[..<at].firstIndex(of: ":")
        else { return url }
        return String(url[..<rest.index(after: colon)]) + "***" + String(rest[at...])
    }

    /// The pool's configuration for `host`.
    public func clientConfiguration(for host: Host) -> PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS =
            switch sslMode {
            case "disable": .disable
            case "require", "verify-ca", "verify-full": .require(.makeClientConfiguration())
            default: .prefer(.makeClientConfiguration())
            }
        return PostgresClient.Configuration(
            host: host.name, port: host.port, username: username, password: password, database: database, tls: tls)
    }

    /// Whether `host` answers within `timeout` and takes the sessions asked for: nil if so,
    /// else why not, in a few words.
    func refusal(_ host: Host, timeout: Duration, logger: Logger) async -> String? {
        var configuration = PostgresConnection.Configuration(
            host: host.name, port: host.port, username: username, password: password, database: database,
            tls: .disable)
        if sslMode != "disable" {
            guard let context = try? NIOSSLContext(configuration: .makeClientConfiguration()) else {
                return "cannot set up TLS"
            }
            configuration.tls = sslMode == "prefer" || sslMode == "allow" ? .prefer(context) : .require(context)
        }
        configuration.options.connectTimeout = TimeAmount.nanoseconds(Int64(timeout / .nanoseconds(1)))
        var quiet = logger
        quiet.logLevel = .critical
        let settings = configuration
        let probeLogger = quiet
        let sessions = self.sessions
        do {
            return try await withThrowingTaskGroup(of: String??.self) { group in
                group.addTask {
                    let connection = try await PostgresConnection.connect(
                        configuration: settings, id: 0, logger: probeLogger)
                    defer { Task { try? await connection.close() } }
                    guard sessions != .any else { return .some(nil) }
                    let rows = try await connection.run(
                        "SELECT pg_is_in_recovery(), current_setting('transaction_read_only')", logger: probeLogger)
                    guard let (standby, readOnly) = try rows.first?.decode((Bool, String).self) else {
                        return "did not say whether it takes writes"
                    }
                    if standby { return "is a standby" }
                    if sessions == .readWrite, readOnly != "off" { return "is read-only" }
                    return .some(nil)
                }
                group.addTask {
                    try await Task.sleep(for: timeout + .seconds(1))
                    return .none
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let answer = first else {
                    return "no answer within \(timeout.components.seconds) s"
                }
                return answer
            }
        } catch let error as PSQLError {
            return Database.reason(error, host: host.name, port: host.port)
        } catch {
            return "\(error)"
        }
    }

    /// The first host in the list's order that answers and takes the sessions asked for,
    /// all asked at once within `timeout`; else `cannotOpen` with each host's reason.
    public func locate(timeout: Duration, logger: Logger) async throws(DatabaseError) -> Host {
        let answers = await withTaskGroup(of: (Int, String?).self) { group in
            for (index, host) in hosts.enumerated() {
                group.addTask { (index, await refusal(host, timeout: timeout, logger: logger)) }
            }
            var answers = [String?](repeating: nil, count: hosts.count)
            for await (index, reason) in group { answers[index] = reason }
            return answers
        }
        if let found = answers.firstIndex(where: { $0 == nil }) { return hosts[found] }
        if hosts.count == 1, let reason = answers[0] {
            if reason.hasPrefix("cannot connect") || reason.hasPrefix("no answer") || !reason.hasPrefix("is ") {
                throw .cannotOpen(redacted, reason)
            }
            throw .cannotOpen(redacted, "\(hosts[0]) \(reason)")
        }
        let reasons = zip(hosts, answers).map { host, reason in
            let reason = (reason ?? "").replacingOccurrences(of: "cannot connect to \(host): ", with: "")
            return reason.hasPrefix("is ") || reason.hasPrefix("did ") ? "\(host) \(reason)" : "\(host): \(reason)"
        }
        let wanted = sessions == .any ? "answers" : "takes writes"
        throw .cannotOpen(redacted, "no host \(wanted) (\(reasons.joined(separator: "; ")))")
    }
}
