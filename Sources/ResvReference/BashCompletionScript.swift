/// The bash completion script of `resv` and `resv-server`, as
/// swift-argument-parser 1.8 writes it, finished in two places:
///
/// - It registers with `complete -o filenames`, which makes readline treat
///   every word it offers as a file name: in a folder holding `list/`,
///   `resv lis<Tab>` became `resv list/`. Registered without it, only the
///   branches that complete files ask for it (`compopt -o filenames`), so
///   file names are still quoted and folders still get their slash.
/// - It offers words with `compgen -W`, which expands them: a landmark named
///   `$(…)` in a store or a server's cached answers ran at every Tab. Here
///   words are taken literally, matched by prefix in any case, and a word
///   with a space or a shell character is quoted (by readline when no folder
///   has its name, by `printf %q` when one does).
///
/// Both binaries print the finished script for `--generate-completion-script
/// bash`, so `completions/` stays what they generate.
public enum BashCompletionScript {
    /// `script` finished; any other text (another shell's script, help) unchanged.
    public static func finished(_ script: String) -> String {
        if script.hasPrefix("#compdef ") { return zshFinished(script) }
        guard script.hasPrefix("#!/bin/bash"),
            let registration = script.split(separator: "\n").last(where: { $0.hasPrefix("complete -o filenames -F ") })
        else { return script }
        let words = registration.split(separator: " ")  // complete -o filenames -F _resv resv
        guard words.count == 6 else { return script }
        let name = "_\(words[4])_add_completions"
        guard let start = script.range(of: "\n\(name)() {\n"),
            let end = script.range(of: "\n}\n", range: start.upperBound..<script.endIndex)
        else { return script }
        var finished = script
        finished.replaceSubrange(start.lowerBound..<end.upperBound, with: "\n" + addCompletions(name))
        return finished.replacingOccurrences(of: registration, with: "complete -F \(words[4]) \(words[5])")
    }

    /// The zsh script with its values matched in any case (`ha<Tab>` offers Half Dome, as
    /// `resv reserve -l ha` finds it): zsh's `_describe` matches exactly unless told otherwise.
    static func zshFinished(_ script: String) -> String {
        script.replacingOccurrences(
            of: "_describe -V '' non_empty_completions -- empty_completions",
            with: "_describe -V '' non_empty_completions -M 'm:{[:lower:]}={[:upper:]}' -- empty_completions")
    }

    /// The function every value completion goes through: `-W WORDS` (a list, or the
    /// output of `resv ---completion …`), else compgen's file and folder options.
    private static func addCompletions(_ name: String) -> String {
        """
        \(name)() {
            local completion
            if [[ "${1}" != -W ]]; then
                # File and folder names: readline quotes them and marks folders.
                compopt -o filenames 2>/dev/null
                while IFS='' read -r completion; do
                    COMPREPLY+=("${completion}")
                done < <(IFS=$'\\n' compgen "${@}" -- "${cur}")
                return
            fi
            # Words, one a line, taken as they are: compgen -W would expand $(...) in them.
            local -a words=()
            local special=false folder=false
            while IFS='' read -r completion; do
                # In any case: a name is read so when typed (ha finds Half Dome).
                [[ -n "${completion}" && "${completion,,}" == "${cur,,}"* ]] || continue
                words+=("${completion}")
                [[ "${completion}" == *[^[:alnum:]_./:@%+,=-]* ]] && special=true
                [[ -d "${completion}" ]] && folder=true
            done <<< "${2}"
            if "${special}" && "${folder}"; then
                # Quoted here: as file names, readline would add a slash to the folder's name.
                for completion in "${words[@]}"; do
                    printf -v completion '%q' "${completion}"
                    COMPREPLY+=("${completion}")
                done
                return
            fi
            # Readline quotes a word with a space or a shell character only in a file name.
            "${special}" && compopt -o filenames 2>/dev/null
            COMPREPLY+=("${words[@]}")
        }

        """
    }
}
