import CJQ
import Foundation
import ResvReference
import Synchronization

/// `--jq PROGRAM` (docs/contracts.md, "Command line"): the JSON a command writes to stdout,
/// each JSON text in it an input of a jq program run by libjq (loaded on first use, as
/// libcurl is), each result a line: a string as itself, anything else as compact JSON, as
/// gh's `--jq` and `jq -r` print them.
final class JQFilter: Sendable {
    private let machine: Mutex<Machine>
    private let output: TextSink
    /// What ends the command at the first failure: a `watch` would otherwise go on unseen.
    private let stop = Mutex<(@Sendable () -> Void)?>(nil)

    /// The program compiled now, before the command runs: one that does not compile
    /// changes nothing.
    init(program: String, output: TextSink) throws {
        var reason: UnsafePointer<CChar>?
        guard cjq_load(&reason) == 0 else { throw CLIError.jqNotInstalled(reason.map { String(cString: $0) } ?? "") }
        var errors = [CChar](repeating: 0, count: 4096)
        guard let state = cjq_compile(program, &errors, errors.count) else {
            throw CLIError.jqDoesNotCompile(errors.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        }
        guard let parser = cjq_parser_new() else {
            cjq_teardown(state)
            throw CLIError.jqFailed("out of memory")
        }
        // Once jq finds no memory nothing more can be allocated, here or in jq: one line and the code.
        cjq_on_out_of_memory(
            ExitStatus.internalError,
            "resv: --jq ran out of memory running the program (jq stopped); what it printed is all there is: "
                + "narrow the program (limit(N; …), first(…)) or allow more memory",
            "resv: --jq stopped inside jq: memory ran out, or a value was nested too deep for its stack; what "
                + "it printed is all there is: narrow the program (limit(N; …), first(…))")
        machine = Mutex(Machine(state: state, parser: parser))
        self.output = output
    }

    deinit {
        machine.withLock { machine in
            cjq_parser_free(machine.parser)
            cjq_teardown(machine.state)
        }
    }

    /// Where the command writes: its text read as it comes, so `watch`'s lines are filtered
    /// as they happen. A write error is the real output's.
    var sink: TextSink {
        var sink = TextSink { [self] text in write(text) }
        sink.takeFailure = output.takeFailure
        sink.isClosed = output.isClosed
        return sink
    }

    private func write(_ text: String) {
        var text = text
        let output = output
        let stopped = text.withUTF8 { bytes in
            machine.withLock { machine in
                machine.read(bytes, partial: true, to: output)
                return machine.failure != nil || output.isClosed()
            }
        }
        if stopped, let stop = stop.withLock({ $0.take() }) { stop() }
    }

    /// The end of the command's output: the last text read; the first failure thrown.
    func finish() throws {
        let output = output
        let failure = machine.withLock { machine in
            machine.read(UnsafeBufferPointer(start: nil, count: 0), partial: false, to: output)
            return machine.failure
        }
        if let failure { throw failure }
    }

    /// Runs `body`, cancelled at the first failure of the program; that failure thrown.
    func stoppingAtFailure(_ body: @escaping @Sendable () async throws -> Void) async throws {
        let task = Task { try await body() }
        stop.withLock { $0 = { task.cancel() } }
        if machine.withLock({ $0.failure != nil }) { task.cancel() }
        do {
            try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
        } catch {
            if let failure = machine.withLock({ $0.failure }) { throw failure }
            // The reader has gone: stopped quietly, as a program whose output is closed does.
            if output.isClosed() { return }
            throw error
        }
    }

    /// libjq's parser and program; used under the lock only, so sent between threads with it.
    private struct Machine: @unchecked Sendable {
        let state: OpaquePointer
        let parser: OpaquePointer
        var failure: CLIError?
        /// After a failure or `halt`, the rest of the output is not read.
        var ended = false

        /// The results of the JSON texts `bytes` completes, each a line written to `output` as
        /// jq makes it (a program that never ends prints as it goes), until the reader is gone.
        mutating func read(_ bytes: UnsafeBufferPointer<UInt8>, partial: Bool, to output: TextSink) {
            guard !ended else { return }
            // jv_parser_set_buf takes an int length; the end of the output is an empty piece (not NULL,
            // which jq takes for no piece yet).
            var start = 0
            repeat {
                let piece = UnsafeBufferPointer(rebasing: bytes[start..<min(bytes.count, start + (1 << 30))])
                start += piece.count
                let last = !partial && start >= bytes.count
                let base = UnsafeRawPointer(piece.baseAddress ?? Self.empty.utf8Start)
                cjq_parser_set_buf(parser, base, Int32(piece.count), last ? 0 : 1)
                // jq reads the piece as it parses: `bytes` lives until `read` returns.
                while !ended {
                    let value = cjq_parser_next(parser)
                    guard cjq_is_valid(value) != 0 else {
                        if let message = Self.take(cjq_error_text(value)) {
                            fail(.jqUnreadableOutput(message))
                        }
                        break
                    }
                    run(value, into: output)
                }
            } while start < bytes.count && !ended
        }

        private static let empty: StaticString = ""

        private mutating func run(_ input: cjq_jv, into output: TextSink) {
            cjq_start(state, input)
            while !ended {
                let result = cjq_next(state)
                guard cjq_is_valid(result) != 0 else {
                    if let message = Self.take(cjq_error_text(result)) { return fail(.jqFailed(message)) }
                    var message: UnsafeMutablePointer<CChar>?
                    switch cjq_halted(state, &message) {
                    case 0: return
                    case 1: ended = true
                    default: fail(.jqFailed(Self.take(message) ?? "halt_error"))
                    }
                    return
                }
                var length = 0
                guard let bytes = cjq_output_text(result, &length) else { return fail(.jqFailed("out of memory")) }
                defer { free(bytes) }
                output.write(
                    String(decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self) + "\n")
                // The reader has gone (`| head`): nothing more is read or run, quietly.
                if output.isClosed() { ended = true }
            }
        }

        private mutating func fail(_ error: CLIError) {
            if failure == nil { failure = error }
            ended = true
        }

        /// A malloc'd C string as a String, freed.
        static func take(_ text: UnsafeMutablePointer<CChar>?) -> String? {
            guard let text else { return nil }
            defer { free(text) }
            return String(cString: text)
        }
    }
}
