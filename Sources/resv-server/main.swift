import Foundation
import ResvServerCommands

// A thin entry point: the commands, and their tests, are in ResvServerCommands.
exit(await ResvServerMain.run(Array(CommandLine.arguments.dropFirst()), context: .live()))
