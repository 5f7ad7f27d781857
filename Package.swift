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
    ],
    targets: [
        // One tiny module per C library, found through pkg-config (Debian -dev packages).
        .systemLibrary(name: "CLibRaw", pkgConfig: "libraw_r", providers: [.apt(["libraw-dev"])]),
        .systemLibrary(name: "CTIFF", pkgConfig: "libtiff-4", providers: [.apt(["libtiff-dev"])]),
        .systemLibrary(name: "CLCMS2", pkgConfig: "lcms2", providers: [.apt(["liblcms2-dev"])]),
        .systemLibrary(name: "CHeif", pkgConfig: "libheif", providers: [.apt(["libheif-dev"])]),
        .systemLibrary(name: "CJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CJXL", pkgConfig: "libjxl", providers: [.apt(["libjxl-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng16", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CXXHash", pkgConfig: "libxxhash", providers: [.apt(["libxxhash-dev"])]),
        .systemLibrary(name: "COpenEXR", pkgConfig: "OpenEXR", providers: [.apt(["libopenexr-dev"])]),
        // XNNPACK (neural-network kernels) and pthreadpool: Debian ships no .pc file for either, so the
        // module map links them by name.
        .systemLibrary(name: "CXNNPACK", providers: [.apt(["libxnnpack-dev", "libpthreadpool-dev"])]),
        // lensfun's C API and its lens database (lens corrections).
        .systemLibrary(name: "CLensfun", pkgConfig: "lensfun", providers: [.apt(["liblensfun-dev", "liblensfun-data-v1"])]),
        // OpenSSL 3's libcrypto: MD5 and SHA-256 through EVP (DarkroomIO's MessageDigest).
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // Small C glue: error-handler capture for libtiff / lcms2.
        .target(name: "CShims", dependencies: ["CTIFF", "CLCMS2", "CLibRaw"]),
        // Our own C: the SIGBUS guard for file mappings (a signal handler cannot be Swift).
        .target(name: "CMapGuard"),

        .target(
            name: "DarkroomCore",
            swiftSettings: coreSettings,
            linkerSettings: [.linkedLibrary("m")]
        ),
        // Everything that parses or writes file bytes in Swift (TIFF/DNG tags, raw layouts, the
        // uncompressed and lossless-JPEG decoders, opcode lists, EXIF/MPF/XMP/ISOBMFF), compiled
        // with Swift's runtime checks: no `-Ounchecked` here, ever (FormatsBoundaryTests).
        .target(name: "DarkroomFormats", dependencies: ["DarkroomCore", "CMapGuard"]),
        // TFLite flatbuffer reader + XNNPACK runtime (neural mattes). It parses model bytes, so it is
        // compiled with Swift's runtime checks (no `-Ounchecked`); every offset is bounds-checked.
        .target(name: "DarkroomNeural", dependencies: ["CXNNPACK"]),
        .target(
            name: "DarkroomIO",
            dependencies: ["DarkroomCore", "DarkroomFormats", "DarkroomNeural", "CLibRaw", "CTIFF", "CLCMS2", "CHeif", "CJPEG", "CZlib", "CPNG", "CXXHash", "CShims", "CJXL", "CLensfun",
                           "COpenEXR", "CCrypto"]
        ),
        .target(name: "DarkroomBatch", dependencies: [
            "DarkroomCore", "DarkroomIO", .product(name: "Yams", package: "Yams"),
        ]),
        .target(
            name: "DarkroomCLI",
            dependencies: [
                "DarkroomCore", "DarkroomIO", "DarkroomBatch", "CShims",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "darkroom", dependencies: ["DarkroomCLI", "CShims"]),
        .executableTarget(
            name: "darkroom-bench",
            dependencies: ["DarkroomCore", "DarkroomIO", "DarkroomBatch", "DarkroomNeural", "CLibRaw", "CJPEG", "CHeif", "CJXL"],
            path: "Benchmarks/darkroom-bench"
        ),
        .executableTarget(
            name: "bench-quality",
            dependencies: ["DarkroomCore", "DarkroomIO"],
            path: "Benchmarks/bench-quality"
        ),
        .executableTarget(
            name: "bench-demosaic",
            dependencies: ["DarkroomCore", "DarkroomIO", "CShims"],
            path: "Benchmarks/bench-demosaic",
            swiftSettings: [.unsafeFlags(["-Ounchecked"], .when(configuration: .release))]
        ),

        // Helpers every test target shares (paths, temporary directories, subprocesses); used only by tests.
        .target(name: "DarkroomTestSupport", path: "Tests/DarkroomTestSupport"),
        // The libFuzzer targets' bodies (Tests/Fuzz): the fuzz executables of `make fuzz` and the
        // regression test that replays their saved crashers both call them.
        .target(name: "DarkroomFuzzBodies", dependencies: ["DarkroomCore", "DarkroomFormats", "DarkroomIO"],
                path: "Tests/Fuzz/Bodies"),
        .testTarget(name: "DarkroomCoreTests", dependencies: ["DarkroomCore", "DarkroomFormats", "DarkroomTestSupport"]),
        .testTarget(name: "DarkroomIOTests", dependencies: ["DarkroomCore", "DarkroomFormats", "DarkroomIO", "DarkroomFuzzBodies", "CTIFF", "CHeif", "CJPEG", "CLCMS2", "CJXL", "CZlib", "COpenEXR", "DarkroomTestSupport"],
                    exclude: ["SDKReference"]),
        .testTarget(name: "DarkroomNeuralTests", dependencies: ["DarkroomNeural", "DarkroomTestSupport"]),
        .testTarget(name: "DarkroomBatchTests", dependencies: ["DarkroomBatch", "DarkroomIO", "DarkroomCore", "DarkroomTestSupport",
                                                          .product(name: "Yams", package: "Yams")]),
        .testTarget(name: "DarkroomCLITests", dependencies: ["DarkroomCLI", "DarkroomIO", "DarkroomCore", "DarkroomBatch", "DarkroomTestSupport"]),
    ]
)

// libFuzzer targets, one per parser (`make fuzz`): each runs libFuzzer's driver from its own entry
// point, so they link only with `-sanitize=fuzzer` and exist only in builds made with DARKROOM_FUZZ=1.
if ProcessInfo.processInfo.environment["DARKROOM_FUZZ"] == "1" {
    package.targets.append(.target(name: "CFuzzDriver", path: "Tests/Fuzz/CFuzzDriver"))
    package.targets.append(.target(name: "FuzzDriver", dependencies: ["CFuzzDriver"], path: "Tests/Fuzz/Driver"))
    for name in ["FuzzDNGMetadata", "FuzzOpcodeList", "FuzzLosslessJPEG", "FuzzContainers", "FuzzDecode", "FuzzColourFiles"] {
        package.targets.append(.executableTarget(
            name: name, dependencies: ["DarkroomFuzzBodies", "FuzzDriver"], path: "Tests/Fuzz/\(name)"))
    }
}
