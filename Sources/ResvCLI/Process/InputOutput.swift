import FilePrimitives
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a command's input comes from: stdin, or given bytes in tests.
///
/// Reading blocks its thread, as reading stdin always has: commands read their
/// input once, before they work (a batch), or between the lines they run (a REPL script).
public struct InputSource: Sendable {
    /// True when this is a terminal: the REPL prompts and edits lines, a token is typed unseen.
    public var isTerminal: Bool
    /// The next line without its line break ("\n" or "\r\n"); nil at the end of the input.
    public var readLine: @Sendable () -> String?
    /// The next line, not shown as it is typed when the input is a terminal (a token).
    public var readSecretLine: @Sendable () -> String?
    /// Everything left, to the end of the input.
    public var readToEnd: @Sendable () -> Data
    /// At most this many bytes of what is left (an import reads no further than its bound).
    public var readAtMost: @Sendable (Int) -> Data

    public init(
        isTerminal: Bool, readLine: @escaping @Sendable () -> String?,
        readSecretLine: (@Sendable () -> String?)? = nil, readToEnd: @escaping @Sendable () -> Data,
        readAtMost: (@Sendable (Int) -> Data)? = nil
    ) {
        self.isTerminal = isTerminal
        self.readLine = readLine
        self.readSecretLine = readSecretLine ?? readLine
        self.readToEnd = readToEnd
        self.readAtMost = readAtMost ?? { Data(readToEnd().prefix($0)) }
    }

    /// The process's stdin.
    public static var standardInput: InputSource {
        let terminal = isatty(STDIN_FILENO) == 1
        return InputSource(
            isTerminal: terminal,
            readLine: { Swift.readLine(strippingNewline: true) },
            readSecretLine: {
                guard terminal else { return Swift.readLine(strippingNewline: true) }
                var saved = termios()
                tcgetattr(STDIN_FILENO, &saved)
                var silent = saved
                silent.c_lflag &= ~tcflag_t(ECHO)
                tcsetattr(STDIN_FILENO, TCSANOW, &silent)
                defer { tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
                return Swift.readLine(strippingNewline: true)
            },
            readToEnd: { FileHandle.standardInput.readDataToEndOfFile() },
            readAtMost: { (try? FileHandle.standardInput.read(upToCount: $0)) ?? Data() })
    }

    /// An input with nothing in it, as from `< /dev/null`.
    public static let empty = bytes(Data())

    /// `text` as the input, not a terminal.
    public static func text(_ text: String) -> InputSource { bytes(Data(text.utf8)) }

    /// `data` as the input, not a terminal; each read goes on from where the last one ended.
    public static func bytes(_ data: Data) -> InputSource {
        let remaining = Remaining(data)
        return InputSource(
            isTerminal: false, readLine: { remaining.line() }, readToEnd: { remaining.all() })
    }

    /// Given input, and how far it has been read.
    private final class Remaining: Sendable {
        private let data: Data
        private let offset = Mutex(0)

        init(_ data: Data) { self.data = Data(data) }  // Indices from 0, whatever slice it was.

        /// As `Swift.readLine(strippingNewline: true)` reads: up to "\n", which takes a "\r" before it along.
        func line() -> String? {
            offset.withLock { offset -> String? in
                guard offset < data.count else { return nil }
                let rest = data[offset...]
                guard let newline = rest.firstIndex(of: UInt8(ascii: "\n")) else {
                    offset = data.count
                    return String(decoding: rest, as: UTF8.self)
                }
                var line = data[offset..<newline]
                if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                offset = newline + 1
                return String(decoding: line, as: UTF8.self)
            }
        }

        func all() -> Data {
            offset.withLock { offset in
                defer { offset = data.count }
                return Data(data[offset...])
            }
        }
    }
}

/// Text written to a sink, kept to be read back.
public final class TextBuffer: Sendable {
    private let storage = Mutex("")

    public init() {}

    /// Everything written so far.
    public var text: String { storage.withLock { $0 } }

    /// A sink that appends to this buffer.
    public var sink: TextSink { TextSink { text in self.storage.withLock { $0 += text } } }
}

/// A destination for text: stdout, stderr, or a buffer in tests.
public struct TextSink: Sendable {
    public var write: @Sendable (String) -> Void
    /// The first error a write met since the last call (an errno), which the
    /// command's caller turns into exit 74; a closed pipe is not one.
    public var takeFailure: @Sendable () -> Int32? = { nil }
    /// Whether the reader has gone (a closed pipe: `resv list --jq 'repeat(1)' | head`), so a
    /// writer that could go on for ever stops.
    public var isClosed: @Sendable () -> Bool = { false }

    public init(write: @escaping @Sendable (String) -> Void) { self.write = write }

    public static let standardOutput = descriptor(STDOUT_FILENO)
    public static let standardError = descriptor(STDERR_FILENO)

    /// Writes to `fd`. After a failed write the rest of the command's text is
    /// dropped, so a full disk is reported once, not written around.
    private static func descriptor(_ fd: Int32) -> TextSink {
        let failure = Atomic<Int32>(0)
        let closed = Atomic<Bool>(false)
        var sink = TextSink { text in
            guard failure.load(ordering: .relaxed) == 0, !closed.load(ordering: .relaxed) else { return }
            let error = writeAll(fd, text)
            // A closed pipe (`resv list | head`) is the reader's choice: quiet.
            if error == EPIPE { closed.store(true, ordering: .relaxed) }
            if error != 0, error != EPIPE { failure.store(error, ordering: .relaxed) }
        }
        sink.isClosed = { closed.load(ordering: .relaxed) }
        sink.takeFailure = {
            let error = failure.exchange(0, ordering: .relaxed)
            return error == 0 ? nil : error
        }
        return sink
    }

    /// 0, or the errno of the write that failed.
    private static func writeAll(_ fd: Int32, _ text: String) -> Int32 {
        var text = text
        return text.withUTF8 { FileDescriptor.writeAll(fd, UnsafeRawBufferPointer($0)) } ?? 0
    }
}
