extension StringProtocol {
    /// The value as a message quotes it: at most `limit` characters, cut with
    /// "…". Any value may be huge (an argument, a batch line, a store, a
    /// server's answer, a REPL line): a message never echoes it whole.
    public func quoted(limit: Int = 200) -> String {
        let head = prefix(limit + 1)
        return head.count <= limit ? String(self) : String(head.prefix(limit)) + "…"
    }
}
