/// A one-line progress indicator on stderr, shown only when stderr is a
/// terminal and the work is large enough to wait for.
struct ProgressLine {
    let enabled: Bool
    let context: CommandContext

    init(context: CommandContext, lines: Int) {
        self.context = context
        self.enabled = context.messagesAreTerminal && lines >= 1000
    }

    func show(_ text: String) {
        guard enabled else { return }
        context.messages.write("\r\u{1B}[K" + text)
    }

    func finish() {
        guard enabled else { return }
        context.messages.write("\r\u{1B}[K")
    }
}
