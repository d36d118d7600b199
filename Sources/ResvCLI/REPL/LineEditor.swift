@preconcurrency import CReadline
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// GNU readline with history and Tab completion, where Ctrl-C is a key.
///
/// While readline reads, the terminal's interrupt character is switched off
/// (readline's own terminal preparation, then `c_cc[VINTR]` disabled; its
/// restore puts it back), so Ctrl-C reaches readline as the byte 0x03, in
/// order with the keys around it, and nothing is flushed. It is bound to
/// "clear the line, fresh prompt". A signal could not do this reliably: a
/// SIGINT that reached the readline thread between two reads interrupted
/// nothing while the terminal had already flushed the typed keys, and the
/// Ctrl-C was lost. Ctrl-Z and Ctrl-\ keep their signals. While a command
/// runs the terminal is restored, so Ctrl-C is SIGINT again and cancels it
/// (see `Interrupts`).
final class LineEditor: Sendable {
    let historyPath: String?
    let historyLimit: Int32 = 1000

    init(historyPath: String?, completer: Completer) {
        self.historyPath = historyPath
        CompletionState.shared.withLock { $0.completer = completer }
        rl_readline_name = UnsafePointer(strdup("resv"))
        rl_catch_signals = 0
        rl_catch_sigwinch = 1
        rl_prep_term_function = prepareTerminal
        rl_startup_hook = prepareLine
        rl_attempted_completion_function = attemptCompletion
        rl_completer_quote_characters = UnsafePointer(strdup("\"'"))
        stifle_history(historyLimit)
        if let historyPath {
            read_history(historyPath)
        }
    }

    /// The REPL's own backend options, which completion reads as if typed before each line.
    func setLeadingWords(_ words: [String]) {
        CompletionState.shared.withLock { $0.leading = words }
    }

    /// Reads one line; nil at end of input (Ctrl-D).
    func readLine(prompt: String) -> String? {
        // Resizes reach this thread while it reads (see `forwardResize`); readline
        // keeps the mask it finds here for its waits, so unblock before calling it.
        readlineThread.store(UInt(pthread_self()), ordering: .sequentiallyConsistent)
        setResizeSignal(SIG_UNBLOCK)
        let line = readline(prompt)
        setResizeSignal(SIG_BLOCK)
        readlineThread.store(0, ordering: .sequentiallyConsistent)
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

private struct CompletionState: Sendable {
    var completer: Completer?
    var leading: [String] = []
    var matches: [String] = []
    var next = 0

    static let shared = Mutex(CompletionState())
}

/// readline's terminal preparation, then the interrupt character off, so
/// Ctrl-C is read as a key (readline's restore brings the saved settings back).
private func prepareTerminal(_ meta: Int32) {
    rl_prep_terminal(meta)
    let descriptor = rl_instream.map { fileno($0) } ?? STDIN_FILENO
    var settings = termios()
    guard tcgetattr(descriptor, &settings) == 0 else { return }
    withUnsafeMutableBytes(of: &settings.c_cc) { $0[Int(VINTR)] = 0 }  // _POSIX_VDISABLE on Linux
    tcsetattr(descriptor, TCSADRAIN, &settings)  // TCSADRAIN: keys already typed stay.
}

/// Run by readline before each line, after it has read ~/.inputrc and set
/// its signal handlers: Ctrl-C clears the line in every keymap, whatever the
/// editing mode, and resizes go through `forwardResize`.
private func prepareLine() -> Int32 {
    for name in ["emacs", "vi-insert", "vi-command"] {
        if let keymap = rl_get_keymap_by_name(name) { rl_bind_key_in_map(3, clearLine, keymap) }
    }
    var installed = sigaction()
    sigaction(SIGWINCH, nil, &installed)
    let forward: __sighandler_t = forwardResize
    let current = installed.__sigaction_handler.sa_handler.map { UInt(bitPattern: unsafeBitCast($0, to: Int.self)) }
    // Only readline's handler is wrapped (not SIG_DFL, SIG_IGN or the wrapper itself).
    if let current, current > 1, current != UInt(bitPattern: unsafeBitCast(forward, to: Int.self)) {
        readlineResizeHandler.store(current, ordering: .sequentiallyConsistent)
        installed.__sigaction_handler.sa_handler = forward
        sigaction(SIGWINCH, &installed, nil)
    }
    return 0
}

/// The thread in `readline()`, or 0.
private let readlineThread = Atomic<UInt>(0)
/// readline's own SIGWINCH handler, which it installs for each line and removes after.
private let readlineResizeHandler = Atomic<UInt>(0)

/// A resize, as readline wants it: its handler only notes the signal, and
/// the read it interrupts redraws the line. Process signals land on the main
/// thread (libdispatch keeps it waiting for them), which is never readline's,
/// so the signal is passed on to the readline thread. One that arrives there
/// between two reads is noted all the same and handled at the next key.
private func forwardResize(_ signal: Int32) {
    let target = readlineThread.load(ordering: .sequentiallyConsistent)
    guard target != 0 else { return }
    if pthread_equal(pthread_t(target), pthread_self()) == 0 {
        pthread_kill(pthread_t(target), signal)
        return
    }
    let handler = readlineResizeHandler.load(ordering: .sequentiallyConsistent)
    guard handler != 0 else { return }
    unsafeBitCast(Int(bitPattern: handler), to: (@convention(c) (Int32) -> Void).self)(signal)
}

private func setResizeSignal(_ how: Int32) {
    var mask = sigset_t()
    sigemptyset(&mask)
    sigaddset(&mask, SIGWINCH)
    pthread_sigmask(how, &mask, nil)
}

/// Ctrl-C at the prompt, as in bash: `^C` after what was typed, which stays
/// on screen, and a fresh empty prompt on the next line. Nothing runs.
private func clearLine(_ count: Int32, _ key: Int32) -> Int32 {
    rl_point = rl_end
    rl_redisplay()
    if let out = rl_outstream {
        fputs("^C", out)
        fflush(out)
    }
    rl_crlf()
    rl_replace_line("", 1)
    using_history()
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
    let (completer, leading) = CompletionState.shared.withLock { ($0.completer, $0.leading) }
    var found = completer?.candidates(before: before, word: word, leading: leading, ask: Completer.askResv) ?? []
    if quote == 0 { found = found.map(ShellWords.quote) }
    let matches = CompletionState.shared.withLock { state -> [String] in
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
