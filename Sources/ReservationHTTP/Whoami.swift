import Foundation
import ReservationCore

extension HTTPBackendConfiguration {
    /// The name of the user the token belongs to, from `GET /whoami`.
    public func whoami(transport: HTTPTransport) async throws -> String {
        try await identity(transport: transport).user
    }

    /// Whose the token is and what it may do, from `GET /whoami`.
    public func identity(transport: HTTPTransport) async throws -> (user: String, scope: String?) {
        let reply = try await ServerClient(configuration: self, transport: transport).send("GET", "whoami")
        switch reply.status {
        case 200:
            guard case .string(let user)? = reply.json?["user"], !user.isEmpty else {
                throw HTTPBackendError.badResponse(baseURL, "GET /whoami did not answer {\"user\": NAME}")
            }
            // A server older than scopes names none: its tokens can do everything.
            guard case .string(let scope)? = reply.json?["scope"] else { return (user, nil) }
            return (user, scope)
        case 404:
            throw HTTPBackendError.unavailable(baseURL, "it has no GET /whoami (a resv-server older than this resv)")
        default:
            throw HTTPBackendError.badResponse(baseURL, "GET /whoami answered \(reply.status)")
        }
    }
}

extension HTTPBackendConfiguration {
    /// The URL of the user's calendar subscription (`POST /calendar`, made on first use), or a new
    /// one in its place (`POST /calendar/reset`: the old one stops working at once). Absolute: the
    /// server's URL, without any user name and password it holds, and the path the server answered.
    public func calendarURL(reset: Bool, transport: HTTPTransport) async throws -> URL {
        let route = reset ? "calendar/reset" : "calendar"
        let client = ServerClient(configuration: self, transport: transport)
        let reply = try await client.send("POST", route)
        guard reply.status == 200 else { throw client.refusal(reply, "POST /\(route)") }
        // Only a path of the calendar's own shape is joined to the server's URL.
        guard case .string(let path)? = reply.json?["path"], path.hasPrefix("/calendar/"), path.hasSuffix(".ics"),
            path.utf8.count <= 200,
            path.dropFirst("/calendar/".count).dropLast(4).allSatisfy({
                $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_")
            }),
            let url = URL(string: URL.redacting(baseURL.absoluteString).trimmingSuffix("/") + path)
        else {
            throw HTTPBackendError.badResponse(baseURL, "POST /\(route) did not answer {\"path\": \"/calendar/….ics\"}")
        }
        return url
    }
}

extension String {
    /// The string without one trailing `suffix`, if it ends with it.
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
