import Foundation
import ResvCLI

// A thin entry point: everything testable lives in ResvCLI.
ResvMain.configureProcess()
let status = await ResvMain.run(Array(CommandLine.arguments.dropFirst()), context: .live())
exit(status)
