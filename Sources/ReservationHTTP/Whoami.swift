import Foundation
import ReservationCore

extension HTTPBackendConfiguration {
    /// The name of the user the token belongs to, from `GET /whoami`.
    public func whoami(transport: HTTPTransport) async throws -> String {
        let reply = try await ServerClient(configuration: self, transport: transport).send("GET", "whoami")
        switch reply.status {
        case 200:
            guard case .string(let user)? = reply.json?["user"], !user.isEmpty else {
                throw HTTPBackendError.badResponse(baseURL, "GET /whoami did not answer {\"user\": NAME}")
            }
            return user
        case 404:
            throw HTTPBackendError.unavailable(baseURL, "it has no GET /whoami (a resv-server older than this resv)")
        default:
            throw HTTPBackendError.badResponse(baseURL, "GET /whoami answered \(reply.status)")
        }
    }
}
