import Foundation
import ResvCLI

// A thin entry point: everything testable lives in ResvCLI.
ResvMain.configureProcess()
exit(await ResvMain.runProcess(Array(CommandLine.arguments.dropFirst())))
