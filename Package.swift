// swift-tools-version: 6.1
import PackageDescription

// The `resv` product depends only on swift-argument-parser: building it must
// never compile the server's packages (see docs/contracts.md, "Shipped files").
let package = Package(
    name: "resv",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "resv", targets: ["resv"]),
        .library(name: "ReservationCore", targets: ["ReservationCore"]),
        // For the in-process benchmarks (Benchmarks/Package.swift) and other front ends.
        .library(name: "ReservationFile", targets: ["ReservationFile"]),
        .library(name: "ResvCLI", targets: ["ResvCLI"]),
        // For the fuzz targets (Fuzz/Package.swift): the outbox reader.
        .library(name: "ReservationHTTP", targets: ["ReservationHTTP"]),
        .executable(name: "resv-server", targets: ["resv-server"]),
        .library(name: "ReservationServer", targets: ["ReservationServer"]),
        .library(name: "ReservationStorage", targets: ["ReservationStorage"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // The server's packages: compiled for resv-server and its tests only.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/vapor/sqlite-nio", from: "1.13.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        .target(name: "ReservationCore"),
        // The one atomic file replacement and the one file lock: store, config, cache, server lock.
        .target(name: "FilePrimitives"),
        .target(name: "ReservationFile", dependencies: ["ReservationCore", "FilePrimitives"]),
        // The HTTP backend, over libcurl loaded on the first request (see HTTPTransport.libcurl):
        // no packages to build, and no libcurl-dev (CCurl declares the little of its ABI it uses).
        .target(name: "CCurl"),
        .target(name: "ReservationHTTP", dependencies: ["ReservationCore", "FilePrimitives", "CCurl"]),
        // --jq's jq, libjq loaded on first use as libcurl is: no libjq-dev to build, not loaded without --jq.
        .target(name: "CJQ"),
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
                "ReservationHTTP",
                "FilePrimitives",
                "ResvReference",
                "CJQ",
                "CReadline",
                .target(name: "CMalloc", condition: .when(platforms: [.linux])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "resv", dependencies: ["ResvCLI"]),
        // The server's storage: the schema once, SQLite and PostgreSQL engines of the core's
        // booking transaction, tokens and idempotency keys. No Hummingbird: no HTTP here.
        .target(
            name: "ReservationStorage",
            dependencies: [
                "ReservationCore",
                "FilePrimitives",
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                // The TLS configuration of a database connection, and its event loops.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // resv-server's HTTP layer: routes, authentication, idempotency, limits, metrics.
        .target(
            name: "ReservationServer",
            dependencies: [
                "ReservationCore",
                "ReservationStorage",
                "ResvReference",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // SIGHUP, which reloads the TLS certificate and key.
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                // HTTPS: the TLS handler of each connection, its context reloadable (TLS/).
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                // Only to tell a database that cannot be reached (503) from other failures (500).
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        // resv-server's commands, apart from its entry point so that tests run them in their process.
        .target(
            name: "ResvServerCommands",
            dependencies: [
                "ReservationCore",
                "ReservationServer",
                "ReservationStorage",
                "ResvReference",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(name: "resv-server", dependencies: ["ResvServerCommands"]),
        // Development tool of scripts/generate-docs; not shipped.
        .executableTarget(name: "resv-docs", dependencies: ["ResvReference"]),
        // What the test targets share, built for tests only: the capacity model every backend's
        // tests run against, the fixed stores, the test clock, the process runner, loopback
        // sockets, the one bounded wait for an event, hostile JSON for the fuzz tests.
        .target(name: "ResvTestKit", dependencies: ["ReservationCore"], path: "Tests/ResvTestKit"),
        // The memory engine (`MemoryStore`) and the client's `ReservationService.inMemory` over
        // it; built for tests only, so neither resv nor resv-server compiles it.
        .target(
            name: "MemoryEngine", dependencies: ["ReservationCore", "ReservationStorage"], path: "Tests/MemoryEngine"),
        .testTarget(name: "ReservationCoreTests", dependencies: ["ResvTestKit", "ReservationCore", "MemoryEngine"]),
        .testTarget(
            name: "ReservationFileTests",
            dependencies: ["ResvTestKit", "ReservationCore", "ReservationFile", "FilePrimitives", "MemoryEngine"]),
        .testTarget(
            name: "ResvCLITests",
            dependencies: ["ResvTestKit", "ReservationCore", "ReservationHTTP", "ResvCLI", "MemoryEngine"]),
        .testTarget(
            name: "ReservationHTTPTests", dependencies: ["ResvTestKit", "ReservationCore", "ReservationHTTP"]),
        .testTarget(
            name: "ReservationServerTests",
            dependencies: [
                "ResvTestKit",
                "MemoryEngine",
                "ReservationCore",
                "ReservationServer",
                "ReservationStorage",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "ResvServerCommandsTests",
            dependencies: [
                "ResvServerCommands", "ReservationServer", "ReservationStorage", "ResvReference", "ResvTestKit",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "ResvEndToEndTests",
            dependencies: [
                "ResvTestKit",
                "ReservationCore",
                "ResvCLI",
                "ResvReference",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
