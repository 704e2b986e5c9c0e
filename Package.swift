// swift-tools-version:6.2
//
// CLup Kiosk: the store-entrance daemon (kioskd), its drivers, clup-server and the device emulators.
// Module layout and dependency direction: docs/architecture.md (Scripts/check-rules.py enforces them).
import Foundation
import PackageDescription

/// Our own targets build with warnings as errors; dependencies keep their own settings.
let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

let package = Package(
    name: "clup-kiosk",
    products: [
        .executable(name: "kioskd", targets: ["kioskd"]),
        .executable(name: "kiosk-demo", targets: ["kiosk-demo"]),
        .executable(name: "escpos-emulator", targets: ["escpos-emulator"]),
        .executable(name: "clup-server", targets: ["clup-server"]),
        .executable(name: "scanner-emulator", targets: ["scanner-emulator"]),
        .executable(name: "clup-sim", targets: ["clup-sim"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        .package(url: "https://github.com/apple/swift-numerics", from: "1.1.1"),
    ],
    targets: [
        // MARK: C modules: one per system library, plus shims for macro/variadic-only APIs.
        .systemLibrary(
            name: "CLibUSB",
            pkgConfig: "libusb-1.0",
            providers: [.apt(["libusb-1.0-0-dev"])]
        ),
        .systemLibrary(
            name: "CQREncode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]
        ),
        // libcups' headers (libcups2-dev); the library itself is opened at first use, not linked.
        // Functions of a library opened at first use, looked up by name: what the four modules below share.
        .target(name: "CLibraryTable"),
        .target(name: "CCUPS", dependencies: ["CLibraryTable"]),
        // The voice's: libespeak-ng's and libasound's headers (libespeak-ng-dev, libasound2-dev); both libraries
        // are opened when voice is configured, not linked.
        .target(name: "CESpeak", dependencies: ["CLibraryTable"]),
        .target(name: "CALSA", dependencies: ["CLibraryTable"]),
        // The door's lines: libgpiod's header (libgpiod-dev); the library is opened when lines are configured.
        .target(name: "CGPIOD", dependencies: ["CLibraryTable"]),
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        .target(name: "CLinuxShims"),
        // The one way our Swift code calls the kernel: EINTR retried, errno kept with the call's name.
        .target(
            name: "SystemCalls",
            dependencies: [.product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: strict
        ),

        // MARK: Pure domain: no I/O, no C, no Glibc.
        .target(
            name: "KioskCore",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HashTreeCollections", package: "swift-collections"),
                // Logarithms, exponentials and erf for the wait estimate's visit lengths.
                .product(name: "RealModule", package: "swift-numerics"),
            ],
            swiftSettings: strict
        ),

        // MARK: The sync API's messages, shared by kioskd, clup-server, the demo and the tests.
        .target(name: "SyncWire", dependencies: ["KioskCore"], swiftSettings: strict),

        // MARK: QR symbols (libqrencode), for printers, the emulator and the server's pages.
        .target(name: "QRSymbol", dependencies: ["KioskCore", "CQREncode"], swiftSettings: strict),

        // MARK: Configuration files: TOML read key by key, an unknown key an error naming the file and key.
        .target(
            name: "StrictTOML",
            dependencies: [.product(name: "TOMLKit", package: "TOMLKit")],
            swiftSettings: strict
        ),

        // MARK: Hardware.
        .target(
            name: "Drivers",
            dependencies: [
                "KioskCore", "QRSymbol", "CLibUSB", "CCUPS", "CESpeak", "CALSA", "CGPIOD", "CLinuxShims", "SystemCalls",
                "StrictTOML",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Profiles")],
            swiftSettings: strict
        ),

        // MARK: Station runtime and the daemon.
        // The station's log: its SQLite file, the replica folded from it, and `StationLog`, the one way to write
        // either. Outside this module both are read-only (tests seed them through `@_spi(Seeding)`).
        .target(
            name: "StationStore",
            dependencies: [
                "KioskCore", "ServiceSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "KioskStation",
            dependencies: [
                "KioskCore", "StationStore", "Drivers", "ServiceSupport", "SyncWire", "StrictTOML",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strict
        ),
        // The daemon links only what a store's kiosk runs: no server, no emulators.
        .executableTarget(
            name: "kioskd",
            dependencies: [
                "KioskStation", "StationStore", "Drivers", "KioskCore", "ServiceSupport", "SyncWire",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        // `make demo`: the kiosk with emulated devices and an embedded clup-server, the keyboard as customers.
        .executableTarget(
            name: "kiosk-demo",
            dependencies: [
                "KioskStation", "Drivers", "DeviceEmulators", "KioskCore", "ServiceSupport", "CLupServer", "SyncWire",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),

        // MARK: What the kiosk runtime and the server share: service plumbing.
        .target(
            name: "ServiceSupport",
            dependencies: [
                "KioskCore", "CLinuxShims", "SystemCalls",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),

        // MARK: The central server.
        .target(
            name: "CLupServer",
            dependencies: [
                "KioskCore", "ServiceSupport", "QRSymbol", "SyncWire", "CZlib", "StrictTOML",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
                // Web Push: the server posts to browsers' push services.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "clup-server",
            dependencies: [
                "CLupServer", "ServiceSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),

        // MARK: Device emulators: real programs on real kernel interfaces.
        .target(
            name: "DeviceEmulators",
            dependencies: [
                "Drivers", "KioskCore", "QRSymbol", "CZlib", "CLinuxShims",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "escpos-emulator",
            dependencies: [
                "DeviceEmulators", "Drivers",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),

        .executableTarget(
            name: "scanner-emulator",
            dependencies: [
                "DeviceEmulators",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),

        // MARK: Benchmarks (not timed tests): `make bench`.
        .executableTarget(
            name: "clup-bench",
            dependencies: [
                "DeviceEmulators", "Drivers", "KioskCore",
                "KioskStation", "StationStore", "CLupServer", "ServiceSupport",
                "ClusterRigs", "StoreSimulation",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/clup-bench",
            swiftSettings: strict
        ),

        // MARK: Tests, one target per module plus host hardware-in-the-loop (pty, TCP, cupsd).
        // Helpers shared by the test targets (not shipped).
        .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: strict),
        .testTarget(name: "KioskCoreTests", dependencies: ["KioskCore", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "DriversTests",
            dependencies: ["Drivers", "KioskCore", "QRSymbol", "StrictTOML", "TestSupport"],
            exclude: ["Recordings"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "DeviceEmulatorsTests",
            dependencies: ["DeviceEmulators", "Drivers", "KioskCore"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "KioskStationTests",
            dependencies: [
                "KioskStation", "StationStore", "KioskCore", "QRSymbol", "StrictTOML", "Rigs",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        // clup-server's services alone (the rules of taking, booking, cancelling, logging in) on SQLite with a
        // set clock: no HTTP, no process; in `make check`.
        .testTarget(
            name: "ServicesTests",
            dependencies: ["CLupServer", "KioskCore", "ServiceSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ServiceSupportTests",
            dependencies: [
                "ServiceSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        // Store days on a virtual clock through clup-server's own code: the wait estimate scored against the
        // best possible (`clup-sim`, and `make bench --only estimate`).
        .target(
            name: "StoreSimulation",
            dependencies: [
                "CLupServer", "KioskCore", "ServiceSupport", "StrictTOML",
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "RealModule", package: "swift-numerics"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "clup-sim",
            dependencies: [
                "StoreSimulation", "StrictTOML",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The real servers tests and clup-bench's fleet group start: a private PostgreSQL cluster, clup-server
        // processes (no test framework: a release build links it).
        .target(
            name: "ClusterRigs",
            path: "Tests/ClusterRigs",
            swiftSettings: strict
        ),
        // What the tests below share: the server and station rigs, processes, ptys, a proxy, a test CA.
        .target(
            name: "Rigs",
            dependencies: [
                "ClusterRigs", "DeviceEmulators", "Drivers", "KioskCore", "KioskStation", "StationStore", "CLupServer",
                "ServiceSupport",
                "CLinuxShims", "SyncWire",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Tests/Rigs",
            swiftSettings: strict
        ),
        // The stations against the device emulators on real kernel interfaces (ptys, TCP, cupsd, usblp, USB gadgets).
        .testTarget(
            name: "HostHILTests",
            dependencies: [
                "DeviceEmulators", "Drivers", "KioskCore", "KioskStation",
                "StationStore", "CLupServer", "ServiceSupport", "QRSymbol",
                "TestSupport", "CLinuxShims", "SyncWire", "Rigs", "StoreSimulation", "ClusterRigs",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strict
        ),
        // clup-server alone: its API, hostile clients, the OpenAPI contract, its pages in a browser.
        .testTarget(
            name: "ServerTests",
            dependencies: [
                "DeviceEmulators", "Drivers", "KioskCore", "KioskStation", "CLupServer", "ServiceSupport", "QRSymbol",
                "TestSupport", "CLinuxShims", "SyncWire", "Rigs", "StrictTOML",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // The whole system: kioskd processes with clup-server (sync, outages, TLS, systemd, crashes, a day's soak,
        // the next morning, the Debian package, the demo).
        .testTarget(
            name: "SystemTests",
            dependencies: [
                "DeviceEmulators", "Drivers", "KioskCore", "KioskStation",
                "StationStore", "CLupServer", "ServiceSupport", "QRSymbol",
                "TestSupport", "CLinuxShims", "SyncWire", "Rigs",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strict
        ),
    ]
)

// MARK: `make check`: only the modules its suites need.
// CLUP_CHECK_SUITES names test targets (comma-separated); the package then declares them and the targets they
// depend on, nothing else, so a change to KioskCore rebuilds neither the station, the server nor the suites that
// need them. The Makefile builds it in its own scratch path (.build-check), beside the whole package's .build/.
// Every package dependency stays declared, so that Package.resolved pins the same versions for both.
if let suites = Context.environment["CLUP_CHECK_SUITES"] {
    let byName = Dictionary(uniqueKeysWithValues: package.targets.map { ($0.name, $0) })
    var needed = Set<String>()
    func need(_ name: String) {
        guard let target = byName[name], needed.insert(name).inserted else { return }
        for dependency in target.dependencies {
            switch dependency {
            case .targetItem(let name, _), .byNameItem(let name, _): need(name)
            default: break
            }
        }
    }
    let tests = package.targets.filter { $0.type == .test }.map(\.name)
    for suite in suites.split(separator: ",").map(String.init) {
        guard tests.contains(suite) else {
            let known = tests.joined(separator: ", ")
            FileHandle.standardError.write(Data("CLUP_CHECK_SUITES: '\(suite)' is not a test target (\(known))\n".utf8))
            exit(2)
        }
        need(suite)
    }
    package.targets.removeAll { !needed.contains($0.name) }
    package.products.removeAll()
}
