// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "subprocess-check",
    platforms: [.macOS(.v15)],
    dependencies: [.package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2")],
    targets: [
        .executableTarget(
            name: "subprocess-check", dependencies: [.product(name: "Subprocess", package: "swift-subprocess")])
    ],
    swiftLanguageModes: [.v6]
)
