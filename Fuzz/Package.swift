// swift-tools-version: 6.1
import PackageDescription

// libFuzzer targets of resv's parsers, in a package of their own: built with
// `--sanitize fuzzer --sanitize address` by scripts/fuzz, never by `swift build`
// of the project. One executable; the target it feeds is named by RESV_FUZZ_TARGET.
// `@testable` reaches the parsers as they are (a debug build enables testing).
let package = Package(
    name: "resv-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "resv", path: "..")
    ],
    targets: [
        .executableTarget(
            name: "ResvFuzz",
            dependencies: [
                .product(name: "ReservationCore", package: "resv"),
                .product(name: "ReservationFile", package: "resv"),
                .product(name: "ReservationHTTP", package: "resv"),
                .product(name: "ResvCLI", package: "resv"),
            ],
            path: "Sources/ResvFuzz",
            // libFuzzer brings `main`: the target has none of its own.
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        )
    ],
    swiftLanguageModes: [.v6]
)
