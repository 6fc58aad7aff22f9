// swift-tools-version:6.0
// Portico: "Login with <your platform>" in Swift. See README.md and the DESIGN.
import PackageDescription

let package = Package(
    name: "Portico",
    // PorticoKit needs iOS 16 / Mac Catalyst 16 / macOS 13 (OSAllocatedUnfairLock, Duration);
    // the server, the companion and the tests use Mutex/Atomic, hence macOS 15 for the package.
    // tvOS, watchOS and visionOS are not claimed: parts of ASWebAuthenticationSession (the
    // presentation context) are missing there and nothing here is built for them.
    platforms: [.macOS(.v15), .iOS(.v16), .macCatalyst(.v16)],
    products: [
        .executable(name: "portico", targets: ["portico"]),
        .library(name: "PorticoKit", targets: ["PorticoKit"]),
        .executable(name: "portico-demo", targets: ["portico-demo"]),
        .executable(name: "portico-host-backend", targets: ["portico-host-backend"]),
        .executable(name: "portico-host-demo", targets: ["portico-host-demo"]),
        .executable(name: "portico-agent", targets: ["portico-agent"]),
    ],
    targets: [
        // C libraries from Debian, wrapped as system libraries (module map + shim header).
        .systemLibrary(
            name: "CMicroHTTPD", pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"]), .brew(["libmicrohttpd"])]),
        .systemLibrary(
            name: "COpenSSL", pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),
        .systemLibrary(
            name: "CArgon2", pkgConfig: "libargon2",
            providers: [.apt(["libargon2-dev"]), .brew(["argon2"])]),
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        .systemLibrary(
            name: "CLibPQ", pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]),
        .systemLibrary(
            name: "CQRencode", pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"]), .brew(["qrencode"])]),
        .systemLibrary(
            name: "CCBOR", pkgConfig: "libcbor",
            providers: [.apt(["libcbor-dev"]), .brew(["libcbor"])]),

        // Portico's own modules; dependencies go one way (see the DESIGN).
        .target(name: "PorticoCrypto", dependencies: ["COpenSSL"]),
        .target(name: "PorticoHTTP", dependencies: ["CMicroHTTPD"]),
        // The storage contract, and its backends.
        .target(name: "PorticoStore", dependencies: ["PorticoCrypto"]),
        // The statements both SQL backends run, written once (SQLTransaction and its dialect).
        .target(name: "PorticoStoreSQL", dependencies: ["PorticoStore"]),
        .target(name: "PorticoStoreSQLite", dependencies: ["PorticoStore", "PorticoStoreSQL", "CSQLite"]),
        .target(name: "PorticoStorePostgres", dependencies: ["PorticoStore", "PorticoStoreSQL", "CLibPQ"]),
        // The storage contract's conformance suite: every backend's tests run it. It needs only the
        // contract (no server, no provider harness), so a new backend proves itself on its own.
        .target(name: "PorticoStoreConformance", dependencies: ["PorticoStore"]),
        .target(
            name: "PorticoServer",
            dependencies: ["PorticoHTTP", "PorticoStore", "PorticoCrypto", "CArgon2", "CQRencode", "CCBOR"]),
        // The `portico serve --demo` app: a client of the provider, served beside it; the provider
        // never depends on it (see ProviderApp).
        .target(
            name: "PorticoDemo", dependencies: ["PorticoServer", "PorticoHTTP", "PorticoStore", "PorticoCrypto"]),
        .target(
            name: "PorticoKit", dependencies: [.target(name: "PorticoCrypto", condition: .when(platforms: [.linux]))],
            // The privacy manifest Apple requires of SDKs calling required-reason APIs (stat).
            resources: [.copy("PrivacyInfo.xcprivacy")]),
        .executableTarget(
            name: "portico",
            dependencies: [
                "PorticoServer", "PorticoDemo", "PorticoStore", "PorticoStoreSQLite", "PorticoStorePostgres",
            ]),
        // Test support shared by the test targets and benches, never a dependency of a product:
        // one provider harness, one raw HTTP client, the provider's policy checks.
        .target(
            name: "PorticoTesting",
            dependencies: [
                "PorticoServer", "PorticoDemo", "PorticoHTTP", "PorticoStore", "PorticoStoreSQLite",
                "PorticoStorePostgres", "PorticoCrypto", "PorticoStoreConformance",
            ]),
        // A third-party command-line app on PorticoKit alone (see README, "PorticoKit").
        .executableTarget(name: "portico-demo", dependencies: ["PorticoKit"], path: "Examples/portico-demo"),
        // Account link: a host app on PorticoKit, and its backend on PorticoHTTP (a library, so
        // the SDK's tests run it in process; see Examples/host-backend/README.md).
        .target(
            name: "PorticoHostBackend", dependencies: ["PorticoHTTP", "PorticoCrypto"],
            path: "Examples/host-backend/Sources/HostBackend"),
        .executableTarget(
            name: "portico-host-backend", dependencies: ["PorticoHostBackend"],
            path: "Examples/host-backend/Sources/portico-host-backend"),
        .executableTarget(name: "portico-host-demo", dependencies: ["PorticoKit"], path: "Examples/host-app"),
        // The companion: the platform's signed-in app on a device, on PorticoKit only (DESIGN).
        .executableTarget(name: "portico-agent", dependencies: ["PorticoKit"]),

        // Benchmarks (run by `make bench`, never by tests) and a helper process the store tests kill.
        .executableTarget(
            name: "portico-bench-crypto", dependencies: ["PorticoCrypto", "PorticoServer"], path: "bench/crypto"),
        .executableTarget(
            name: "portico-bench-store", dependencies: ["PorticoStore", "PorticoStoreSQLite", "PorticoServer"],
            path: "bench/store"),
        .executableTarget(
            name: "portico-bench-seed",
            dependencies: [
                "PorticoStore", "PorticoStoreSQLite", "PorticoStorePostgres", "PorticoServer", "PorticoCrypto",
            ],
            path: "bench/idp/seed"),
        .executableTarget(
            name: "portico-store-writer", dependencies: ["PorticoStore", "PorticoStoreSQLite"],
            path: "Tests/StoreWriter"),

        // libFuzzer targets for every parser of outside input (`make fuzz`, fuzz/README.md); in
        // a normal build the driver replays corpora instead.
        .target(
            name: "PorticoFuzzTargets",
            dependencies: [
                "PorticoHTTP", "PorticoCrypto", "PorticoStore", "PorticoStoreSQLite", "PorticoServer", "PorticoKit",
            ],
            path: "fuzz/Targets"),
        .executableTarget(name: "portico-fuzz", dependencies: ["PorticoFuzzTargets"], path: "fuzz/Driver"),

        .testTarget(name: "PorticoCryptoTests", dependencies: ["PorticoCrypto"], exclude: ["Vectors"]),
        .testTarget(name: "PorticoHTTPTests", dependencies: ["PorticoHTTP", "PorticoTesting"]),
        .testTarget(
            name: "PorticoStoreSQLiteTests",
            dependencies: [
                "PorticoStore", "PorticoStoreSQLite", "PorticoServer", "PorticoTesting", "PorticoStoreConformance",
            ]),
        // Runs against the PostgreSQL that scripts/with-postgres starts (skipped without one); its
        // schema test compares with SQLite's, and its CLI tests run the portico binary.
        .testTarget(
            name: "PorticoStorePostgresTests",
            dependencies: [
                "PorticoStorePostgres", "PorticoStore", "PorticoStoreSQLite", "PorticoServer", "PorticoTesting",
                "PorticoCrypto", "PorticoStoreConformance",
            ]),
        .testTarget(
            name: "PorticoFuzzTests",
            dependencies: ["PorticoFuzzTargets", "PorticoHTTP", "PorticoStore", "PorticoStoreSQLite"]),
        .testTarget(
            name: "PorticoServerTests",
            dependencies: [
                "PorticoServer", "PorticoHTTP", "PorticoStore", "PorticoStoreSQLite", "PorticoCrypto", "PorticoTesting",
                "CSQLite", "PorticoStoreConformance",
            ],
            exclude: ["Vectors"]),
        // The SDK's end-to-end tests start a real provider in-process; PorticoKit itself never
        // imports the server.
        .testTarget(
            name: "PorticoKitTests",
            dependencies: [
                "PorticoKit", "PorticoServer", "PorticoStore", "PorticoStoreSQLite", "PorticoHTTP", "PorticoTesting",
                "PorticoHostBackend", "PorticoCrypto",
            ]),
    ]
)
