// Development tool for scripts/generate-docs: finishes the man pages that
// swift-argument-parser's generate-manual plugin writes.
//   resv-docs finish-manual [resv|resv-server] < generated.1 > man/PAGE.1
import Foundation
import ResvReference

let arguments = Array(CommandLine.arguments.dropFirst())
let manuals = ["resv": Reference.resvManual, "resv-server": Reference.serverManual]
guard arguments.first == "finish-manual", arguments.count <= 2,
    let manual = manuals[arguments.count == 2 ? arguments[1] : "resv"]
else {
    FileHandle.standardError.write(Data("usage: resv-docs finish-manual [resv|resv-server] < PAGE > PAGE\n".utf8))
    exit(64)
}
let page = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
FileHandle.standardOutput.write(Data(Reference.finishManual(page, manual).utf8))
