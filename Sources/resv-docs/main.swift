// Development tool for scripts/generate-docs: finishes the man page that
// swift-argument-parser's generate-manual plugin writes.
//   resv-docs finish-manual < generated.1 > man/resv.1
import Foundation
import ResvReference

guard CommandLine.arguments.dropFirst().first == "finish-manual" else {
    FileHandle.standardError.write(Data("usage: resv-docs finish-manual < PAGE > PAGE\n".utf8))
    exit(64)
}
let page = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
FileHandle.standardOutput.write(Data(Reference.finishManual(page).utf8))
