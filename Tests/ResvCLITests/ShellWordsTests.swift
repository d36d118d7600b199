import Testing

@testable import ResvCLI

@Suite("Shell-style splitting of REPL lines")
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

@Suite("REPL completion from the command tree and local data")
struct CompleterTests {
    let completer = Completer(toolInfo: Resv._dumpHelp())
    let data = Completer.LocalData(
        landmarkNames: ["Half Dome", "Golden Gate Bridge", "Lake Tahoe"],
        reservationIDs: ["abcd1111", "abcd2222", "5eed3333"])

    func complete(_ before: String, _ word: String) -> [String] {
        completer.candidates(before: before, word: word, data: data)
    }

    @Test func commandsAtTheStartOfTheLine() {
        #expect(complete("", "lis") == ["list"])
        #expect(complete("", "c") == ["cancel", "config", "confirm"])
        #expect(complete("", "l") == ["landmarks", "list", "log"])
        #expect(complete("", "u") == ["undo"])
        #expect(complete("", "m") == ["modify"])
        #expect(!complete("", "").contains("repl"), "refused inside the REPL, so never offered")
        #expect(complete("", "he") == ["help"], "offered once")
        #expect(complete("", "q") == ["quit"])
        #expect(complete("help ", "res") == ["reserve"])
    }

    @Test func optionsOfTheCommandBeingTyped() {
        #expect(complete("reserve ", "--l") == ["--landmark"])
        #expect(complete("reserve ", "--p") == ["--party-size", "--pending", "--profile"])
        #expect(complete("list ", "--st") == ["--status", "--store"])
        #expect(!complete("list --all ", "--a").contains("--all"), "a flag already given is not offered again")
        #expect(complete("list --status pending ", "--sta") == ["--status"], "repeatable options stay")
    }

    @Test func valuesOfOptions() {
        #expect(complete("reserve --landmark ", "ha") == ["Half Dome"])
        #expect(complete("reserve -l ", "") == ["Golden Gate Bridge", "Half Dome", "Lake Tahoe"])
        #expect(complete("list --status ", "c") == ["confirmed", "cancelled"])
        #expect(complete("list --format ", "") == ["table", "json", "ndjson", "csv", "ics"])
        #expect(complete("reserve --date ", "20") == [])
    }

    @Test func reservationIDs() {
        #expect(complete("cancel ", "abcd") == ["abcd1111", "abcd2222"])
        #expect(complete("cancel abcd1111 ", "5") == ["5eed3333"])
        #expect(complete("show ", "ABCD2") == ["abcd2222"])
        #expect(complete("list ", "ab") == [], "list takes no ids")
        #expect(complete("log ", "5") == ["5eed3333"])
        #expect(complete("modify ", "abcd1") == ["abcd1111"])
        #expect(complete("modify abcd1111 ", "--pa") == ["--party-size"])
        #expect(complete("undo ", "ab") == [], "undo takes no ids")
        #expect(complete("undo ", "--j") == ["--json"])
    }

    @Test func landmarkArguments() {
        #expect(complete("availability ", "la") == ["Lake Tahoe"])
        #expect(complete("availability ", "") == ["Golden Gate Bridge", "Half Dome", "Lake Tahoe"])
        #expect(complete("availability ", "--fr") == ["--from"])
        #expect(complete("cancel ", "la") == [], "cancel takes ids, not landmarks")
    }

    @Test func unknownCommandsAndBrokenQuotesOfferNothing() {
        #expect(complete("bogus ", "--") == [])
        #expect(complete("reserve --landmark 'Half ", "D") == [])
    }
}
