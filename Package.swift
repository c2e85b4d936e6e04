// swift-tools-version:6.0
import PackageDescription

// Layers, top to bottom (see docs/architecture.md): preflight -> PreflightService -> Simulation
// -> MigrationCore -> CSQLite / CMicroHTTPD / CNettle (SHA-256) / CDeviceSQL (what a device's
// SQLite has that the linked one lacks, on ICU: CICU). MigrationCore is what
// an app embeds; Simulation makes a rehearsal a phone (worker launches, kills, the report, the space
// VFS of CSpaceVFS). Nothing here comes from outside the toolchain.
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
        .systemLibrary(name: "CNettle", path: "Sources/CNettle"),
        .systemLibrary(name: "CICU", path: "Sources/CICU"),
        .target(
            name: "CDeviceSQL", dependencies: ["CSQLite", "CICU"], path: "Sources/CDeviceSQL",
            // C code calls ICU: the module map's links reach only the Swift modules that import it.
            linkerSettings: [.linkedLibrary("icuuc"), .linkedLibrary("icui18n"), .linkedLibrary("sqlite3")]),
        .target(name: "MigrationCore", dependencies: ["CSQLite", "CNettle", "CDeviceSQL"]),
        .target(name: "CProcess", path: "Sources/CProcess"),
        .target(name: "CGetopt", path: "Sources/CGetopt"),
        .target(name: "Simulation", dependencies: ["MigrationCore", "CSQLite", "CSpaceVFS", "CProcess"]),
        .target(
            name: "PreflightService", dependencies: ["Simulation", "MigrationCore", "CMicroHTTPD", "CSQLite", "CGetopt"],
            // Documents are files, built into the binary as bytes (`PackageResources`), no bundle at run time.
            resources: [
                .embedInCode("Resources/openapi.json"),
                // A copy of Config/preflight.json (SwiftPM embeds only files inside the target);
                // ConfigurationTests keeps the two byte for byte the same.
                .embedInCode("Resources/preflight.json"),
            ]),
        .executableTarget(name: "preflight", dependencies: ["PreflightService", "Simulation"]),
        .executableTarget(
            name: "preflight-bench", dependencies: ["MigrationCore", "Simulation", "PreflightService", "CMicroHTTPD"],
            path: "Benchmarks"),
        // An app's launch gate on MigrationCore alone: proves the core is embeddable.
        .executableTarget(name: "launch-gate", dependencies: ["MigrationCore"], path: "Examples/LaunchGate"),
        .target(name: "TestSupport", dependencies: ["MigrationCore", "Simulation", "CSQLite"], path: "Tests/TestSupport"),
        .target(name: "CPageCache", path: "Tests/CPageCache"),
        .testTarget(name: "MigrationCoreTests", dependencies: ["MigrationCore", "TestSupport", "CSQLite", "CSpaceVFS"]),
        .testTarget(
            name: "PreflightServiceTests",
            dependencies: ["PreflightService", "Simulation", "MigrationCore", "TestSupport", "CSQLite", "CPageCache"],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "DifferentialTests", dependencies: ["MigrationCore", "TestSupport", "CSQLite"],
            exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
