import Foundation
import Testing

@testable import ReservationHTTP

/// A server URL's user name and password never reach a message.
@Suite("Server URLs in messages", .timeLimit(.minutes(30)))
struct RedactionTests {
    @Test(arguments: [
        ("http://ada:secret@host:8080/x", "http://host:8080/x"),
        ("https://ada@host", "https://host"),
        ("http://ada:p@ss@host", "http://host"),
        ("http://ada:a/b@host/", "http://host/"),
        ("http://ada:secret@", "http://"),
        ("ftp://ada:secret@host", "ftp://host"),
        ("http://host:8080", "http://host:8080"),
        ("http://host/?q=a@b", "http://host/?q=a@b"),
        ("http://host/#a@b", "http://host/#a@b"),
        ("ada:secret@host", "ada:secret@host"),
        ("", ""),
    ])
    func userInfoIsRemoved(text: String, shown: String) {
        #expect(URL.redacting(text) == shown)
    }

    @Test func userInfoCanBeMasked() {
        #expect(URL.redacting("http://ada:secret@host", with: "****@") == "http://****@host")
        #expect(URL.redacting("http://host", with: "****@") == "http://host")
    }

    @Test func everyErrorNamingTheServerLeavesOutItsUserAndPassword() throws {
        let url = try #require(URL(string: "http://ada:s3cret@127.0.0.1:1/base"))
        #expect(url.redacted == "http://127.0.0.1:1/base")
        let errors: [HTTPBackendError] = [
            .unavailable(url, "refused"), .notAuthorised(url, 401, nil), .notAuthorised(url, 403, "no"),
            .rateLimited(url), .serverError(url, 500, nil), .badResponse(url, "HTML"), .nothingCached(url),
        ]
        for error in errors {
            let message = try #require(error.errorDescription)
            #expect(message.contains("http://127.0.0.1:1/base"), "\(message)")
            #expect(!message.contains("s3cret") && !message.contains("ada"), "\(message)")
        }
    }
}
