import Testing

@testable import ResvCLI

@Suite("Shell-style splitting of REPL lines", .timeLimit(.minutes(30)))
struct ShellWordsTests {
    @Test(arguments: [
        ("list", ["list"]),
        ("  list   --all  ", ["list", "--all"]),
        (#"reserve --landmark "Turtle Rock" -n 2"#, ["reserve", "--landmark", "Turtle Rock", "-n", "2"]),
        ("reserve --landmark 'Half Dome'", ["reserve", "--landmark", "Half Dome"]),
        (#"a\ b c"#, ["a b", "c"]),
        (#""say \"hi\"""#, [#"say "hi""#]),
        (#""keep \n as is""#, [#"keep \n as is"#]),
        (#"'no \escapes'"#, [#"no \escapes"#]),
        (#"x""y'z'"#, ["xyz"]),
        (#""""#, [""]),
        ("", []),
        ("\t", []),
        ("# a comment", []),
        ("show abcd  # old one", ["show", "abcd"]),
        ("show abcd#1", ["show", "abcd#1"]),
        ("list 'a # b' \"#c\" \\#d", ["list", "a # b", "#c", "#d"]),
    ])
    func splits(_ line: String, _ words: [String]) throws {
        #expect(try ShellWords.split(line) == words)
    }

    @Test(arguments: [
        (#"reserve --landmark "Half Dome"#, ShellWords.Failure.unbalancedQuote("\"")),
        ("list 'x", .unbalancedQuote("'")),
        (#"list \"#, .trailingBackslash),
    ])
    func refuses(_ line: String, _ failure: ShellWords.Failure) {
        #expect(throws: failure) { try ShellWords.split(line) }
    }

    @Test(arguments: ["Half Dome", "St. Mary Lake", #"a "quoted" \ word"#, "plain", "", "it's"])
    func quoteRoundTrips(_ word: String) throws {
        #expect(try ShellWords.split(ShellWords.quote(word)) == [word])
    }

    @Test func endsInWordTellsCompletionWhereTheCursorIs() throws {
        #expect(try ShellWords.scan("list --st").endsInWord)
        #expect(try !ShellWords.scan("list ").endsInWord)
    }
}

@Suite("REPL completion from the command tree; data from the shells' completion functions", .timeLimit(.minutes(30)))
struct CompleterTests {
    let completer = Completer(toolInfo: ResvDescribed._dumpHelp())

    /// Stands for `ShellCompletion`: names which function was asked ("reserve --landmark"), with what words.
    static let ask: Completer.Ask = { path, argument, words in
        let asked = (path + [argument]).joined(separator: " ")
        return ["\(asked)|\(words.joined(separator: ","))", "Half Dome", "Lake Tahoe", "abcd1111"]
    }

    func complete(_ before: String, _ word: String, leading: [String] = []) -> [String] {
        completer.candidates(before: before, word: word, leading: leading, ask: Self.ask)
    }

    /// Which completion function Tab asks after `before`, and the words it hands over; nil when none.
    func asked(_ before: String, leading: [String] = []) -> (function: String, words: [String])? {
        guard let answer = complete(before, "", leading: leading).first(where: { $0.contains("|") }) else {
            return nil
        }
        let parts = answer.split(separator: "|", omittingEmptySubsequences: false)
        return (String(parts[0]), parts[1].split(separator: ",", omittingEmptySubsequences: false).map(String.init))
    }

    @Test func commandsAtTheStartOfTheLine() {
        #expect(complete("", "lis") == ["list"])
        #expect(complete("", "c") == ["calendar", "cancel", "checkin", "completion", "config", "confirm"])
        #expect(complete("", "l") == ["landmarks", "list", "log", "login", "logout"])
        #expect(complete("", "u") == ["undo"])
        #expect(complete("", "m") == ["modify"])
        #expect(!complete("", "").contains("repl"), "refused inside the REPL, so never offered")
        #expect(complete("", "he") == ["help"], "offered once")
        #expect(complete("", "q") == ["quit"])
        #expect(complete("help ", "res") == ["reserve"])
        #expect(complete("help list ", "") == [])
        #expect(complete("resv ", "lis") == ["list"], "a line may start with resv")
    }

    @Test func optionsOfTheCommandBeingTyped() {
        #expect(complete("reserve ", "--l") == ["--landmark"])
        #expect(complete("reserve ", "--p") == ["--party-size", "--pending", "--profile"])
        #expect(complete("list ", "--st") == ["--status", "--store"])
        #expect(!complete("list --all ", "--a").contains("--all"), "a flag already given is not offered again")
        #expect(!complete("list -l x ", "--l").contains("--landmark"), "nor an option by its short name")
        #expect(complete("list --status pending ", "--sta") == ["--status"], "repeatable options stay")
    }

    @Test func fixedValuesComeFromTheTree() {
        #expect(complete("list --status ", "c") == ["confirmed", "cancelled", "checked-in"])
        #expect(complete("list --format ", "") == ["table", "json", "ndjson", "csv", "ics"])
        #expect(complete("list --format=", "") == [], "a value after = is not asked for: the word is the option")
        #expect(complete("reserve --date ", "20") == [])
        #expect(
            complete("config get ", "") == ["store", "server", "token", "connectTimeout", "requestTimeout", "queue"])
        #expect(complete("config set ", "req") == ["requestTimeout"])
        #expect(complete("config set store ", "") == [], "the value of a setting is not a key")
    }

    @Test func dataComesFromTheFunctionTheShellsCall() {
        #expect(asked("reserve --landmark ")?.function == "reserve --landmark")
        #expect(asked("reserve -l ")?.function == "reserve --landmark", "asked by the long name")
        #expect(asked("availability ")?.function == "availability positional@0")
        #expect(asked("cancel ")?.function == "cancel positional@0")
        #expect(asked("cancel abcd1111 ")?.function == "cancel positional@0", "cancel takes any number")
        #expect(asked("confirm ")?.function == "confirm positional@0")
        #expect(asked("modify ")?.function == "modify positional@0")
        #expect(asked("modify abcd1111 ") == nil, "modify takes one id")
        #expect(asked("modify abcd1111 --landmark ")?.function == "modify --landmark")
        #expect(asked("config use ")?.function == "config use positional@0")
        #expect(asked("config remove ")?.function == "config remove positional@0")
        #expect(asked("list --profile ")?.function == "list --profile")
        #expect(asked("list ") == nil, "list takes no ids")
        #expect(asked("undo ") == nil, "undo takes no ids")
    }

    @Test func optionsBeforeTheCommand() {
        #expect(asked("--profile ")?.function == "--profile", "the root's own")
        #expect(complete("--store x.json ", "sh") == ["show"])
        #expect(complete("--json ", "--st") == ["--store"])
        #expect(asked("--store x.json show ")?.function == "show positional@0")
        #expect(asked("--store x.json show ")?.words == ["resv", "--store", "x.json", "show", ""])
        #expect(complete("--profile work config ", "u") == ["unset", "use"])
    }

    /// The options the parser moves from before a command (`LeadingOptions`) are the ones the
    /// completion tree declares there: the two lists cannot drift apart unnoticed.
    @Test func theOptionsMovedFromBeforeACommandAreTheOnesCompletedThere() {
        let declared = Set(completer.root.options.flatMap(\.names)).subtracting(["--version", "-h", "--help"])
        #expect(declared == LeadingOptions.valued.union(LeadingOptions.flags))
        for option in completer.root.options where !option.names.contains("--help") && option.names != ["--version"] {
            let name = option.names.first { $0.hasPrefix("--") } ?? ""
            #expect(option.takesValue == LeadingOptions.valued.contains(name), "\(name)")
        }
    }

    @Test func theReplsBackendComesFirstAndTheLinesOwnLater() {
        let words = asked("cancel --store b.json ", leading: ["--store", "a.json"])?.words
        #expect(words == ["resv", "--store", "a.json", "cancel", "--store", "b.json", ""])
        // Words go over quoted, as a shell hands them: the functions unquote them.
        let spaced = asked(#"cancel --store 'my "b".json' "#)?.words
        #expect(spaced == ["resv", "cancel", "--store", #""my \"b\".json""#, ""])
    }

    @Test func landmarkNamesAreMatchedByPrefixInAnyCase() {
        #expect(complete("availability ", "Ha") == ["Half Dome"])
        #expect(complete("availability ", "ha") == ["Half Dome"], "as a typed name is read")
        #expect(complete("list --status ", "PE") == [], "a fixed value keeps its case")
        #expect(complete("cancel ", "abcd") == ["abcd1111"])
    }

    @Test func unknownCommandsAndBrokenQuotesOfferNothing() {
        #expect(complete("bogus ", "--") == [])
        #expect(complete("bogus ", "") == [])
        #expect(complete("reserve --landmark 'Half ", "D") == [])
    }
}
