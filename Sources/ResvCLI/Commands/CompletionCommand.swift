import ArgumentParser
import Foundation
import ResvReference

/// `resv completion bash|zsh|fish`: the completion script, as `completions/` ships it.
struct CompletionCommand: ResvCommand {
    static let configuration = CommandConfiguration(
        commandName: "completion",
        abstract: "Print the shell completion script for bash, zsh or fish.",
        discussion: """
            The same script as the completions/ folder ships. Its words come from resv itself at \
            each Tab (landmark names, reservation ids, profiles), read from the store or a server's \
            cached answers, never the network.

            Examples:
              source <(resv completion bash)
              resv completion zsh > "${fpath[1]}/_resv"
              resv completion fish > ~/.config/fish/completions/resv.fish
            """)

    @Argument(help: "The shell: bash, zsh or fish.", completion: .list(["bash", "zsh", "fish"]))
    var shell: String

    func validate() throws {
        guard ["bash", "zsh", "fish"].contains(shell) else {
            throw ValidationError("'\(shell.quoted())' is not a shell resv completes: give bash, zsh or fish")
        }
    }

    func run(in context: CommandContext) async throws {
        context.output.write(ResvMain.completionScript(shell) + "\n")
    }
}
