/// What one command line (`resv` or `resv-server`, in this process or as a child) returned and wrote.
public struct Run: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String

    public init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }

    public var stderrLines: [Substring] { stderr.split(separator: "\n", omittingEmptySubsequences: true) }
}
