import Foundation
import Testing

@testable import ReservationHTTP

/// The origin a token belongs to, rule by rule: spellings of one server are one origin,
/// anything else another; which hosts are this machine.
@Suite("Server origins", .timeLimit(.minutes(30)))
struct ServerOriginTests {
    @Test(arguments: [
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
        ("HTTP://LocalHost:8080/", "http://localhost:8080"),
        ("https://resv.example.com", "https://resv.example.com:443"),
        ("https://resv.example.com:443/api/v1", "https://resv.example.com:443"),
        ("http://resv.example.com", "http://resv.example.com:80"),
        ("http://ada:secret@resv.example.com:81", "http://resv.example.com:81"),
        ("http://[::1]:9", "http://[::1]:9"),
    ])
    func spellingsOfOneServerAreOneOrigin(url: String, origin: String) throws {
        let found = try #require(ServerOrigin(url))
        #expect(found.description == origin)
        #expect(ServerOrigin(origin) == found, "the kept key names the same origin")
    }

    @Test(arguments: [
        ("http://127.0.0.1:8080", "http://127.0.0.1:8081"),
        ("http://127.0.0.1:8080", "https://127.0.0.1:8080"),
        ("http://127.0.0.1:8080", "http://localhost:8080"),
        ("https://resv.example.com", "https://resv.example.com.evil.test"),
        ("https://resv.example.com", "https://evil.test/resv.example.com"),
    ])
    func otherServersAreOtherOrigins(one: String, another: String) {
        #expect(ServerOrigin(one) != nil && ServerOrigin(one) != ServerOrigin(another))
    }

    @Test(arguments: [
        "", "resv.example.com", "ftp://resv.example.com", "http://", "not a url", "http://h:99999",
        "http://h/?q=1", "file:///etc/passwd",
    ])
    func textThatNamesNoServerIsNoOrigin(text: String) {
        #expect(ServerOrigin(text) == nil)
    }

    @Test(arguments: [
        ("http://127.0.0.1:1", true), ("http://127.1.2.3:1", true), ("http://localhost:1", true),
        ("http://api.localhost:1", true), ("http://[::1]:1", true), ("http://128.0.0.1:1", false),
        ("http://127.0.0.1.example.com:1", false), ("http://10.0.0.1:1", false), ("http://127.0.0.256:1", false),
        ("http://[::2]:1", false), ("http://resv.example.com", false),
    ])
    func loopbackIsThisMachineOnly(url: String, loopback: Bool) throws {
        let origin = try #require(ServerOrigin(url))
        #expect(origin.isLoopback == loopback)
        #expect(origin.keepsSecretsOffTheWire == loopback, "over http, only loopback keeps a token off the wire")
        let https = try #require(ServerOrigin(url.replacingOccurrences(of: "http://", with: "https://")))
        #expect(https.keepsSecretsOffTheWire)
    }
}
