/// The most one batch of bookings may be (`POST /reservations/batch`, and so `reserve
/// --batch` and `import` on a server): the server refuses more, and a client that has more
/// sends them in batches of this size.
public enum BatchLimit {
    /// The most requests (or ids) one batch holds.
    public static let requests = 10_000
    /// The largest body of a batch route, in bytes: room for `requests` requests with short notes.
    public static let bytes = 8 << 20
}
