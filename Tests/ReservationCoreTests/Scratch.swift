import Foundation
import Testing
@testable import ReservationCore
@Test func scratch() {
    for t in ["", "{", #"{"a": }"#, "[1, 2,,]", "nul", "{'a': 1}", #"{"a": 1} x"#, "{\n\"version\": 1,\n \"reservations\": [}"] {
        do { _ = try JSONValue.parse(Data(t.utf8)) } catch { print("DETAIL<\(t)>: \(error.detail)") }
    }
}
