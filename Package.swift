// swift-tools-version:6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Bullpen",
    // The server and the CLI run on Linux and macOS 15; the `BullpenClient` SDK also on iOS, tvOS, watchOS
    // and visionOS (it needs only Foundation and the OpenAPI runtime and URLSession transport).
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .executable(name: "bullpen", targets: ["bullpen"]),
        .executable(name: "bullpen-bench", targets: ["bullpen-bench"]),
        .library(name: "BullpenCore", targets: ["BullpenCore"]),
        .library(name: "BullpenAPI", targets: ["BullpenAPI"]),
        // The Swift SDK: an app adds this package by URL and depends on this product only.
        .library(name: "BullpenClient", targets: ["BullpenClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/vapor/vapor.git", from: "4.122.3"),
        .package(url: "https://github.com/vapor/fluent-kit.git", from: "1.57.0"),
        .package(url: "https://github.com/vapor/fluent-sqlite-driver.git", from: "4.9.0"),
        .package(url: "https://github.com/vapor/fluent-postgres-driver.git", from: "2.14.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "5.0.1"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/vapor/websocket-kit.git", from: "2.16.2"),
        .package(url: "https://github.com/vapor/sql-kit.git", from: "3.36.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // OpenTelemetry traces over OTLP/HTTP only (its gRPC exporter would build gRPC for nothing).
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-openapi-generator.git", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession.git", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/onevcat/Rainbow.git", from: "4.2.2"),
        // Markdown to HTML for the lessons (Learn/lessons/*.md), rendered on the server.
        .package(url: "https://github.com/JohnSundell/Ink.git", from: "0.6.0"),
        // `swift package generate-documentation --target BullpenClient`: the SDK's DocC documentation.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
    ],
    targets: [
        // The pure domain: no I/O, no Vapor, no Fluent.
        .target(name: "BullpenCore", swiftSettings: strict),
        // Market data sources behind the core's `MarketData` protocol.
        .target(
            name: "BullpenMarketData",
            dependencies: [
                "BullpenCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // Persistence: the only target that imports Fluent.
        .target(
            name: "BullpenStore",
            dependencies: [
                "BullpenCore",
                .product(name: "FluentKit", package: "fluent-kit"),
                .product(name: "FluentSQL", package: "fluent-kit"),
                .product(name: "FluentSQLiteDriver", package: "fluent-sqlite-driver"),
                .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: strict
        ),
        // The wire contract: openapi.yaml and the DTOs shared by server, SDK and CLI.
        .target(name: "BullpenAPI", resources: [.copy("openapi.yaml"), .copy("alpaca.yaml")], swiftSettings: strict),
        // The Vapor application.
        .target(
            name: "BullpenServer",
            dependencies: [
                "BullpenCore", "BullpenMarketData", "BullpenStore", "BullpenAPI",
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
                .product(name: "WebSocketKit", package: "websocket-kit"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Ink", package: "Ink"),
            ],
            resources: [.copy("Web"), .copy("Learn")],
            swiftSettings: strict
        ),
        // The Swift SDK, generated from the contract (Sources/BullpenClient/openapi.yaml is a link to
        // BullpenAPI's) with a small hand-written client over it. Foundation and OpenAPI only.
        .target(
            name: "BullpenClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strict,
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        .executableTarget(
            name: "bullpen",
            dependencies: [
                "BullpenServer", "BullpenStore", "BullpenMarketData", "BullpenCore", "BullpenClient",
                .product(name: "Rainbow", package: "Rainbow"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "bullpen-bench",
            dependencies: [
                "BullpenServer", "BullpenAPI", "BullpenStore", "BullpenMarketData", "BullpenCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
                .product(name: "WebSocketKit", package: "websocket-kit"),
            ],
            swiftSettings: strict
        ),
        // Test-only clocks, id sources and the data pack's location, shared by every test target.
        .target(name: "BullpenTestSupport", dependencies: ["BullpenCore"], swiftSettings: strict),
        .testTarget(
            name: "BullpenCoreTests",
            dependencies: ["BullpenCore", "BullpenTestSupport", .product(name: "PropertyBased", package: "swift-property-based")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "BullpenMarketDataTests",
            dependencies: [
                "BullpenMarketData", "BullpenCore", "BullpenTestSupport",
                .product(name: "Vapor", package: "vapor"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "BullpenStoreTests",
            dependencies: ["BullpenStore", "BullpenCore", "BullpenTestSupport", .product(name: "Logging", package: "swift-log"),
                           .product(name: "SQLKit", package: "sql-kit"), .product(name: "FluentKit", package: "fluent-kit")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "BullpenClientTests",
            dependencies: [
                "BullpenClient", "BullpenServer", "BullpenStore", "BullpenMarketData", "BullpenCore", "BullpenTestSupport",
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "BullpenServerTests",
            dependencies: [
                "BullpenServer", "BullpenAPI", "BullpenMarketData", "BullpenStore", "BullpenCore", "BullpenTestSupport",
                .product(name: "Vapor", package: "vapor"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
