// swift-tools-version:6.0
// PorticoKit's Apple-only tests: run by .ci/apple on an iOS Simulator (and macOS), never on
// Linux. A package of its own so that building it builds PorticoKit alone, not the server and
// its C libraries; `Portico` is a symbolic link to the repository root.
import PackageDescription

let package = Package(
    name: "PorticoKitAppleTests",
    platforms: [.iOS(.v16), .macOS(.v15)],
    dependencies: [.package(path: "Portico")],
    targets: [
        .testTarget(
            name: "PorticoKitAppleTests",
            dependencies: [.product(name: "PorticoKit", package: "Portico")])
    ]
)
