// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "filmcache",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "filmcache", targets: ["filmcache"]),
        .executable(name: "omdb-standin", targets: ["omdb-standin"]),
        .library(name: "FilmCacheKit", targets: ["FilmCacheKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/LebJe/TOMLKit", exact: "0.6.0"),
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
        .package(
            url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1", traits: ["FullFoundation"]),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", exact: "2.4.1"),
        .package(url: "https://github.com/apple/swift-metrics", exact: "2.13.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // libcurl through functions that load it when a transport is made (dlopen): it is not linked, so the
        // commands that fetch nothing start without its libraries. Its headers: libcurl4-openssl-dev.
        .target(name: "CCurl"),
        // libcrypto the same way, for the key's PBKDF2 and SHA-256 (CCrypto.h). Its headers: libssl-dev.
        .target(name: "CCrypto"),
        .systemLibrary(name: "CFilmCacheSystem"),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(
            name: "FilmCacheKit",
            dependencies: [
                "CCrypto",
                "CCurl",
                "CFilmCacheSystem",
                "CivilDays",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]
        ),
        .executableTarget(
            name: "filmcache",
            dependencies: [
                "FilmCacheKit", "FilmCachePostgres", "FilmCachePrometheus", "FilmCacheSQLite", "FilmCacheServe",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        .target(name: "SplitMix"),
        .target(name: "CivilDays"),
        // The handler that closes an HTTP/1.0 connection after its answer, for serve and the stand-in.
        .target(
            name: "HTTP10Close",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // The OMDb stand-in: Hummingbird on NIO, its faults below HTTP as channel handlers.
        .target(
            name: "OMDbStandIn",
            dependencies: [
                "CivilDays", "HTTP10Close", "SplitMix",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "omdb-standin",
            dependencies: [
                "OMDbStandIn",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "filmcache-bench",
            dependencies: [
                "FilmCacheKit",
                "FilmCachePostgres",
                "FilmCacheSQLite",
                "OMDbStandIn",
                "SplitMix",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // What the test targets share: sample films, a temporary directory, databases on the scratch server.
        .target(
            name: "FilmCacheTestSupport",
            dependencies: [
                "FilmCacheKit", "FilmCachePostgres", "PostgresScratch",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/FilmCacheTestSupport"
        ),
        .testTarget(
            name: "FilmCacheKitTests",
            dependencies: [
                "FilmCacheKit", "FilmCachePrometheus", "FilmCacheSQLite", "FilmCacheTestSupport", "OMDbStandIn",
                "SplitMix",
            ],
            resources: [.copy("Golden")]
        ),
        .testTarget(name: "OMDbStandInTests", dependencies: ["OMDbStandIn"]),
        // What both SQL drivers share: each table's columns and the SQL that pages and merges it, the
        // values bound to statements, a film as a row's values.
        .target(name: "FilmCacheSQL", dependencies: ["FilmCacheKit"]),
        // The SQLite backend, the embedded default; libsqlite3 stays out of FilmCacheKit.
        .target(
            name: "FilmCacheSQLite",
            dependencies: [
                "FilmCacheKit", "FilmCacheSQL", "CSQLite",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The PostgreSQL backend; NIO stays out of FilmCacheKit. PostgresScratch runs a throwaway server for tests.
        .target(
            name: "FilmCachePostgres",
            dependencies: [
                "FilmCacheKit", "FilmCacheSQL", .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // `filmcache serve`'s HTTP side: Hummingbird, swift-metrics and its Prometheus exporter stay out of
        // FilmCacheKit, which holds what the endpoint answers (FilmCacheKit/Serve).
        .target(
            name: "FilmCacheServe",
            dependencies: [
                "FilmCacheKit", "HTTP10Close",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The serve endpoint in process: HummingbirdTesting drives its routes over a real SQLite file.
        .testTarget(
            name: "FilmCacheServeTests",
            dependencies: [
                "FilmCacheServe", "FilmCacheKit", "FilmCacheSQLite", "FilmCacheTestSupport", "SplitMix",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The warm's Prometheus textfile rendered by swift-prometheus, which stays out of FilmCacheKit.
        .target(
            name: "FilmCachePrometheus",
            dependencies: ["FilmCacheKit", .product(name: "Prometheus", package: "swift-prometheus")]
        ),
        .target(name: "PostgresScratch"),
        .testTarget(
            name: "FilmCachePostgresTests",
            dependencies: [
                "FilmCachePostgres", "FilmCacheKit", "FilmCacheSQLite", "FilmCacheTestSupport", "PostgresScratch",
                "SplitMix",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The contract of the store seam, one suite run over every backend: memory, SQLite, PostgreSQL.
        .testTarget(
            name: "FilmCacheContractTests",
            dependencies: [
                "FilmCachePostgres", "FilmCacheKit", "FilmCacheSQLite", "FilmCacheTestSupport", "PostgresScratch",
                "SplitMix",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "EndToEndTests", dependencies: ["OMDbStandIn", "CSQLite", "SplitMix", "PostgresScratch"],
            exclude: ["Golden"]),
    ],
    swiftLanguageModes: [.v6]
)

// Our Swift targets reach a generic type's metadata through its accessor, handed the conformances it
// needs, never by demangling the type's name at first use. Demangling a type that holds a
// conformance (a `Set<String>`, a `Setting<Int>`) finds that conformance by scanning every
// conformance record of the binary, and the binary holds NIO's, Hummingbird's and PostgresNIO's
// too: 17% of the samples of `show`, `quota` and `plan` (dynamic build) went to those scans.
let cTargets: Set<String> = ["CCurl", "CCrypto", "CFilmCacheSystem", "CSQLite"]
for target in package.targets where !cTargets.contains(target.name) {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"])
        ]
}
