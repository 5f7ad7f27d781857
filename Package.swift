// swift-tools-version: 6.1
import Foundation
import PackageDescription

// DarkroomCore's kernels (demosaic, colour, tone, quantisation) are compiled for x86-64-v3
// (Haswell-class: AVX2, FMA, BMI2; Intel 2013+, AMD 2015+) on x86-64 hosts; `darkroom` checks
// the CPU when it starts and says so on an older one. DARKROOM_PORTABLE=1 builds for the x86-64
// baseline instead. The output bytes are the same either way (no fused multiply-add: Swift does
// not contract a * b + c).
#if arch(x86_64)
let portable = ProcessInfo.processInfo.environment["DARKROOM_PORTABLE"] == "1"
#else
let portable = true
#endif
let coreSettings: [SwiftSetting] = portable
    ? [.unsafeFlags(["-Ounchecked"], .when(configuration: .release))]
    : [.unsafeFlags(["-Ounchecked", "-target-cpu", "haswell"], .when(configuration: .release)),
       .define("DARKROOM_X86_64_V3", .when(configuration: .release))]

let package = Package(
    name: "Darkroom",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "darkroom", targets: ["darkroom"]),
        .library(name: "DarkroomCore", targets: ["DarkroomCore"]),
        .library(name: "DarkroomIO", targets: ["DarkroomIO"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        // One tiny module per C library, found through pkg-config (Debian -dev packages).
        .systemLibrary(name: "CLibRaw", pkgConfig: "libraw_r", providers: [.apt(["libraw-dev"])]),
        .systemLibrary(name: "CTIFF", pkgConfig: "libtiff-4", providers: [.apt(["libtiff-dev"])]),
        .systemLibrary(name: "CLCMS2", pkgConfig: "lcms2", providers: [.apt(["liblcms2-dev"])]),
        .systemLibrary(name: "CHeif", pkgConfig: "libheif", providers: [.apt(["libheif-dev"])]),
        .systemLibrary(name: "CJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng16", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CXXHash", pkgConfig: "libxxhash", providers: [.apt(["libxxhash-dev"])]),
        // Small C glue: error-handler capture for libtiff / lcms2.
        .target(name: "CShims", dependencies: ["CTIFF", "CLCMS2", "CLibRaw"]),

        .target(
            name: "DarkroomCore",
            swiftSettings: coreSettings,
            linkerSettings: [.linkedLibrary("m")]
        ),
        .target(
            name: "DarkroomIO",
            dependencies: ["DarkroomCore", "CLibRaw", "CTIFF", "CLCMS2", "CHeif", "CJPEG", "CZlib", "CPNG", "CXXHash", "CShims"]
        ),
        .target(name: "DarkroomBatch", dependencies: [
            "DarkroomCore", "DarkroomIO", .product(name: "Yams", package: "Yams"), .product(name: "Crypto", package: "swift-crypto"),
        ]),
        .target(
            name: "DarkroomCLI",
            dependencies: [
                "DarkroomCore", "DarkroomIO", "DarkroomBatch", "CShims",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "darkroom", dependencies: ["DarkroomCLI"]),
        .executableTarget(
            name: "darkroom-bench",
            dependencies: ["DarkroomCore", "DarkroomIO", "DarkroomBatch", "CLibRaw", "CJPEG", "CHeif"],
            path: "Benchmarks/darkroom-bench"
        ),
        .executableTarget(
            name: "bench-demosaic",
            dependencies: ["DarkroomCore", "DarkroomIO"],
            path: "Benchmarks/bench-demosaic",
            swiftSettings: [.unsafeFlags(["-Ounchecked"], .when(configuration: .release))]
        ),

        // Helpers every test target shares (paths, temporary directories, subprocesses); used only by tests.
        .target(name: "DarkroomTestSupport", path: "Tests/DarkroomTestSupport"),
        .testTarget(name: "DarkroomCoreTests", dependencies: ["DarkroomCore", "DarkroomTestSupport"]),
        .testTarget(name: "DarkroomIOTests", dependencies: ["DarkroomCore", "DarkroomIO", "CTIFF", "CHeif", "CJPEG", "CLCMS2", "DarkroomTestSupport"]),
        .testTarget(name: "DarkroomBatchTests", dependencies: ["DarkroomBatch", "DarkroomIO", "DarkroomCore", "DarkroomTestSupport"]),
        .testTarget(name: "DarkroomCLITests", dependencies: ["DarkroomCLI", "DarkroomIO", "DarkroomCore", "DarkroomBatch", "DarkroomTestSupport"]),
    ]
)
