// swift-tools-version: 6.1
import PackageDescription

// The `resv` product depends only on swift-argument-parser: building it must
// never compile the server's packages (see DESIGN.md, "Shipped files").
let package = Package(
    name: "resv",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "resv", targets: ["resv"]),
        .library(name: "ReservationCore", targets: ["ReservationCore"]),
        // For the in-process benchmarks (Benchmarks/Package.swift) and other front ends.
        .library(name: "ReservationFile", targets: ["ReservationFile"]),
        .library(name: "ResvCLI", targets: ["ResvCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2")
    ],
    targets: [
        .target(name: "ReservationCore"),
        .target(name: "ReservationFile", dependencies: ["ReservationCore"]),
        // Exit codes and the reference text of --help and the man page; no dependencies,
        // so the man page tool can use it without being taken for a second command-line tool.
        .target(name: "ResvReference"),
        .systemLibrary(name: "CReadline", providers: [.apt(["libreadline-dev"])]),
        // glibc's mallopt, to tune the allocator for one short run (Linux only).
        .systemLibrary(name: "CMalloc"),
        .target(
            name: "ResvCLI",
            dependencies: [
                "ReservationCore",
                "ReservationFile",
                "ResvReference",
                "CReadline",
                .target(name: "CMalloc", condition: .when(platforms: [.linux])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "resv", dependencies: ["ResvCLI"]),
        // Development tool of scripts/generate-docs; not shipped.
        .executableTarget(name: "resv-docs", dependencies: ["ResvReference"]),
        .testTarget(name: "ReservationCoreTests", dependencies: ["ReservationCore"]),
        .testTarget(name: "ReservationFileTests", dependencies: ["ReservationCore", "ReservationFile"]),
        .testTarget(name: "ResvCLITests", dependencies: ["ResvCLI"]),
        .testTarget(
            name: "ResvEndToEndTests",
            dependencies: ["ReservationCore", "ResvCLI", "ResvReference"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
