// swift-tools-version:6.0
import PackageDescription

// Layers, top to bottom (see DESIGN.md): preflight -> PreflightService -> MigrationCore
// -> CSpaceVFS -> CSQLite / CMicroHTTPD. Nothing here comes from outside the toolchain.
let package = Package(
    name: "Preflight",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "MigrationCore", targets: ["MigrationCore"]),
        .executable(name: "preflight", targets: ["preflight"]),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite"),
        .systemLibrary(name: "CMicroHTTPD", path: "Sources/CMicroHTTPD"),
        .target(name: "CSpaceVFS", dependencies: ["CSQLite"], path: "Sources/CSpaceVFS"),
        .target(name: "CHash", path: "Sources/CHash"),
        .target(name: "MigrationCore", dependencies: ["CSQLite", "CSpaceVFS", "CHash"]),
        .target(name: "CProcess", path: "Sources/CProcess"),
        .target(
            name: "PreflightService", dependencies: ["MigrationCore", "CMicroHTTPD", "CSpaceVFS", "CProcess"],
            // Documents are files, built into the binary as bytes (`PackageResources`), no bundle at run time.
            resources: [
                .embedInCode("Resources/openapi.json"),
                // A copy of Config/preflight.json (SwiftPM embeds only files inside the target);
                // ConfigurationTests keeps the two byte for byte the same.
                .embedInCode("Resources/preflight.json"),
            ]),
        .executableTarget(name: "preflight", dependencies: ["PreflightService", "MigrationCore"]),
        .executableTarget(
            name: "preflight-bench", dependencies: ["MigrationCore", "PreflightService", "CMicroHTTPD"],
            path: "Benchmarks"),
        .target(name: "TestSupport", dependencies: ["MigrationCore", "CSQLite"], path: "Tests/TestSupport"),
        .testTarget(name: "MigrationCoreTests", dependencies: ["MigrationCore", "TestSupport", "CSQLite"]),
        .testTarget(
            name: "PreflightServiceTests",
            dependencies: ["PreflightService", "MigrationCore", "TestSupport", "CSQLite"]),
        .testTarget(
            name: "DifferentialTests", dependencies: ["MigrationCore", "TestSupport", "CSQLite"],
            exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
