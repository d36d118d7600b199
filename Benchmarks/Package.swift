// swift-tools-version: 6.1
import PackageDescription

// In-process benchmarks of resv's parts (ordo-one/benchmark), in a package of
// their own so that building and testing resv never compiles the benchmark
// library. Run from the repository root: `make bench`, or here:
//   swift package --allow-writing-to-package-directory benchmark
let package = Package(
    name: "resv-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "resv", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "ResvBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "ReservationCore", package: "resv"),
                .product(name: "ReservationFile", package: "resv"),
                .product(name: "ResvCLI", package: "resv"),
            ],
            path: "Benchmarks/ResvBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ],
    swiftLanguageModes: [.v6]
)
