import Foundation
import ResvCLI

// A thin entry point: everything testable lives in ResvCLI.
ResvMain.configureProcess()
let status = await ResvMain.runProcess(Array(CommandLine.arguments.dropFirst()))
// Ends without running the libraries' exit handlers: after a request, libcurl's
// (OpenSSL's, libldap's) clean-up ran while another thread still held a pooled
// connection, and resv crashed with signal 11 after printing its answer (seen once,
// in CI, after a timed-out request). Everything resv keeps is already on disk
// (each write is fsynced and renamed); only stdio's buffers are left to flush.
fflush(nil)
_exit(status)
