@preconcurrency import CReadline
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// GNU readline with history and Tab completion, made safe for Ctrl-C under
/// Swift concurrency (see FACTS.md): readline's own signal handling is off;
/// our SIGINT handler marks the interrupt pending and forwards the signal to
/// the thread blocked in `readline()`, whose interrupted read runs
/// `rl_signal_event_hook`, which clears the line and draws a fresh prompt.
/// A signal that lands while that thread is not blocked (between two reads)
/// interrupts nothing; `rl_event_hook`, which readline runs whenever no key
/// came within its input timeout (0.1 s), handles the pending mark then, so
/// no Ctrl-C is ever lost.
final class LineEditor: Sendable {
    let historyPath: String?
    let historyLimit: Int32 = 1000

    init(historyPath: String?, completer: Completer) {
        self.historyPath = historyPath
        CompletionState.shared.withLock { $0.completer = completer }
        rl_readline_name = UnsafePointer(strdup("resv"))
        rl_catch_signals = 0
        rl_catch_sigwinch = 1
        rl_signal_event_hook = clearLineIfInterrupted
        rl_event_hook = clearLineIfInterrupted
        rl_attempted_completion_function = attemptCompletion
        rl_completer_quote_characters = UnsafePointer(strdup("\"'"))
        stifle_history(historyLimit)
        if let historyPath {
            read_history(historyPath)
        }
        installInterruptHandler()
    }

    /// Values for completion, refreshed by the caller before each prompt.
    func setLocalData(_ data: Completer.LocalData) {
        CompletionState.shared.withLock { $0.data = data }
    }

    /// Reads one line; nil at end of input (Ctrl-D).
    func readLine(prompt: String) -> String? {
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGINT)
        var previous = sigset_t()
        pthread_sigmask(SIG_UNBLOCK, &unblock, &previous)
        interruptPending.store(false, ordering: .sequentiallyConsistent)
        readlineThread.store(UInt(pthread_self()), ordering: .sequentiallyConsistent)
        let line = readline(prompt)
        readlineThread.store(0, ordering: .sequentiallyConsistent)
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        guard let line else { return nil }
        defer { free(line) }
        return String(cString: line)
    }

    /// Adds a line to history (not blank, not a repeat of the last) and saves
    /// the file at once, owner-only, so a killed session keeps its lines.
    func remember(_ line: String) {
        guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { return }
        if let last = history_get(history_base + history_length - 1), let text = last.pointee.line,
            String(cString: text) == line
        {
            return
        }
        add_history(line)
        guard let historyPath else { return }
        let directory = (historyPath as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let descriptor = open(historyPath, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            fchmod(descriptor, 0o600)
            close(descriptor)
        }
        write_history(historyPath)
        history_truncate_file(historyPath, historyLimit)
    }
}

// MARK: - C callbacks and the little state they need

/// The thread blocked in `readline()`, or 0; read from the signal handler, so atomic.
private let readlineThread = Atomic<UInt>(0)
/// A Ctrl-C at the prompt that no hook has handled yet.
private let interruptPending = Atomic<Bool>(false)

private struct CompletionState: Sendable {
    var completer: Completer?
    var data = Completer.LocalData()
    var matches: [String] = []
    var next = 0

    static let shared = Mutex(CompletionState())
}

private func installInterruptHandler() {
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { _ in
        let target = readlineThread.load(ordering: .sequentiallyConsistent)
        guard target != 0 else { return }  // No prompt: a running command is not interrupted.
        interruptPending.store(true, ordering: .sequentiallyConsistent)
        if target != UInt(pthread_self()) {
            pthread_kill(pthread_t(target), SIGINT)
        }
    }
    sigemptyset(&action.sa_mask)
    action.sa_flags = 0  // No SA_RESTART: readline's read() must see EINTR.
    sigaction(SIGINT, &action, nil)
}

/// Both hooks: after an interrupted read, and when no key came for a while.
private func clearLineIfInterrupted() -> Int32 {
    guard interruptPending.exchange(false, ordering: .sequentiallyConsistent) else { return 0 }
    // Ctrl-C: drop what was typed and start over on a new line.
    rl_replace_line("", 0)
    rl_crlf()
    rl_on_new_line()
    rl_redisplay()
    return 0
}

private func attemptCompletion(
    _ text: UnsafePointer<CChar>?, _ start: Int32, _ end: Int32
) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
    rl_attempted_completion_over = 1  // Never fall back to file names.
    guard let text, let buffer = rl_line_buffer else { return nil }
    let line = Array(
        UnsafeBufferPointer(start: UnsafeRawPointer(buffer).assumingMemoryBound(to: UInt8.self), count: Int(rl_end)))
    var before = String(decoding: line.prefix(Int(start)), as: UTF8.self)
    let quote = rl_completion_quote_character
    if quote != 0, before.last.map({ $0.asciiValue == UInt8(quote) }) == true { before.removeLast() }
    let word = String(cString: text)
    let matches = CompletionState.shared.withLock { state -> [String] in
        guard let completer = state.completer else { return [] }
        var found = completer.candidates(before: before, word: word, data: state.data)
        if quote == 0 { found = found.map(ShellWords.quote) }
        state.matches = found
        state.next = 0
        return found
    }
    guard !matches.isEmpty else { return nil }
    return rl_completion_matches(text, completionGenerator)
}

private func completionGenerator(_ text: UnsafePointer<CChar>?, _ state: Int32) -> UnsafeMutablePointer<CChar>? {
    CompletionState.shared.withLock { completion in
        guard completion.next < completion.matches.count else { return nil }
        defer { completion.next += 1 }
        return strdup(completion.matches[completion.next])
    }
}
