import DarkroomCore
import Foundation
@testable import DarkroomIO

/// The per-opcode conformance DNGs in `SDKReference/` (written by `DNGWriter` from these
/// definitions; `RECORD_SDK_FIXTURES=1 swift test --filter SDKStageOpcodeTests` rewrites them) and
/// what each one checks. Their stage-2/3 dumps were made with the Adobe DNG SDK 1.7.1's
/// `dng_validate` (see SDKReference/README.md).
struct SDKOpcodeCase: Sendable, CustomStringConvertible {
    var name: String
    /// 1: a CFA mosaic with `cfa`; 3: LinearRaw RGB.
    var planes: Int = 1
    var cfa: CFAPattern? = .rggb
    var list1: [DNGOpcode] = []
    var list2: [DNGOpcode] = []
    var list3: [DNGOpcode] = []
    /// BlackLevel per 2×2 site (and BlackLevelDeltaH/V) instead of one black level.
    var variedBlack = false
    /// Compare stage 3 too (LinearRaw only: a mosaic's stage 3 depends on the demosaic).
    var stage3 = false
    /// Largest difference allowed, in codes (1 unless a documented departure needs more).
    var tolerance = 1
    /// Pixels (x, y) not compared with this file's own dump: bad pixels whose BayerPhase is written
    /// in the specification's numbering, where the SDK's reading disagrees with the CFA pattern.
    /// They are compared with `sameAs`'s dump instead (the same image with the SDK's numbering).
    var phaseMismatch: [(Int, Int)] = []
    var sameAs: String? = nil
    /// A one-pixel-tall FixBadPixelsList rectangle (row y, columns left..<right): the SDK's
    /// FixSingleRow writes its estimates 4 rows up and 4 columns right (`p4 [4]` in the transposed
    /// buffer of dng_opcode_FixBadPixelsList::FixSingleColumn should be `p4 [4 * cs]`), leaving the
    /// row unrepaired. Those pixels are not compared; the first estimate is compared with where the
    /// SDK put it.
    var sdkMisplacedRow: (y: Int, left: Int, right: Int)? = nil
    /// Pixels within this distance of the edge are not compared at stage 3 (no case needs it today:
    /// the warps, which once did, now resample as the SDK does).
    var skipBorder = 0
    /// Image size; 64×48 (one SDK processing tile) unless a case needs the SDK's tiling.
    var width = SDKOpcodeCase.width, height = SDKOpcodeCase.height

    var description: String { name }

    static let width = 64, height = 48
    static let white = 16383.0

    /// The stored samples: a smooth ramp plus deterministic noise, from below black to above white
    /// in a few places, so rounding and clipping are both exercised.
    func samples(black: [Double]) -> [UInt16] {
        let w = width, h = height
        // Cases compared with another case's dump (`sameAs`) share its samples.
        let seed = sameAs ?? name
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15 &+ UInt64(seed.utf8.reduce(0) { $0 &* 31 &+ Int($1) } & 0xFFFF)
        var out: [UInt16] = []
        out.reserveCapacity(w * h * planes)
        for y in 0..<h {
            for x in 0..<w {
                for p in 0..<planes {
                    state = state &* 6364136223846793005 &+ 1442695040888963407
                    let noise = Double(state >> 40 & 0xFFFF) / 65535 - 0.5
                    let u = Double(x) / Double(w - 1), v = Double(y) / Double(h - 1)
                    let level = 0.02 + 0.9 * u * (0.6 + 0.4 * v) + 0.1 * Double(p) * v + 0.03 * noise
                    let b = black[((y & 1) * 2 + (x & 1)) % black.count]
                    let value = b + level * (Self.white - b)
                    out.append(UInt16(min(max(value.rounded(), 0), 65535)))
                }
            }
        }
        // A few samples below black and at/above white.
        for i in [3, 77, 500] where i < out.count { out[i] = 100 }
        for i in [9, 1300, 2500] where i < out.count { out[i] = 16383 }
        return out
    }

    /// The DNG, as written to SDKReference/NAME.dng.
    func rawImage() -> RawImage {
        let base = SyntheticChart(cfa: cfa ?? .rggb, bitsPerSample: 14, illuminant: ColorMath.d65, width: 60, height: 40).makeRawImage()
        var md = base.metadata
        md.sensorWidth = width; md.sensorHeight = height
        md.activeArea = nil; md.defaultCrop = nil
        md.samplesPerPixel = planes
        md.cfa = planes == 1 ? cfa : nil
        md.orientation = 1
        if variedBlack {
            md.blackLevelRepeatRows = 2; md.blackLevelRepeatColumns = 2
            md.blackLevel = planes == 1 ? [512, 530.5, 498, 541.25] : Array(repeating: [512.0, 530.5, 498], count: 4).flatMap { $0 }
            md.blackLevelDeltaH = (0..<width).map { Double($0 % 5) * 0.75 }
            md.blackLevelDeltaV = (0..<height).map { Double($0 % 3) * 1.5 - 1 }
        } else {
            md.blackLevelRepeatRows = 1; md.blackLevelRepeatColumns = 1
            md.blackLevel = Array(repeating: 512, count: planes)
            md.blackLevelDeltaH = nil; md.blackLevelDeltaV = nil
        }
        md.whiteLevel = Array(repeating: Self.white, count: planes)
        md.opcodeList1 = list1.isEmpty ? nil : OpcodeList(opcodes: list1).encode()
        md.opcodeList2 = list2.isEmpty ? nil : OpcodeList(opcodes: list2).encode()
        md.opcodeList3 = list3.isEmpty ? nil : OpcodeList(opcodes: list3).encode()
        let black = planes == 1 ? md.blackLevel : [512]
        return RawImage(width: width, height: height, samplesPerPixel: planes, pixels: samples(black: black), metadata: md)
    }

    // MARK: - The cases

    static let whole = OpcodeArea(top: 0, left: 0, bottom: UInt32(height), right: UInt32(width))
    /// Rows 5…40, columns 3…60, every second row and third column from there.
    static let pitched = OpcodeArea(top: 5, left: 3, bottom: 41, right: 61, plane: 0, planes: 1, rowPitch: 2, colPitch: 3)

    static func deltas(_ n: Int, scale: Float, offset: Float) -> [Float] { (0..<n).map { Float($0 % 7) * scale + offset } }

    /// Spec numbering of BayerPhase (0 R, 1 G in a red row, 2 G in a blue row, 3 B at the top-left)
    /// and a number the SDK's formula reads the same way as the CFA pattern.
    static func phases(_ cfa: CFAPattern) -> (spec: UInt32, sdk: UInt32) {
        let spec: UInt32 = cfa == .rggb ? 0 : cfa == .grbg ? 1 : cfa == .gbrg ? 2 : 3
        return (spec, cfa.color(x: 0, y: 0) == .green ? 0 : 1)
    }

    static let badPoints: [(Int, Int)] = [(10, 10), (11, 10), (30, 20), (0, 0), (63, 47), (1, 25), (40, 2)]   // (x, y)

    static func constantCase(_ cfa: CFAPattern, spec: Bool) -> SDKOpcodeCase {
        let (specPhase, sdkPhase) = phases(cfa)
        let sdkName = "badconstant_\(cfa.description.lowercased())_sdkphase"
        return SDKOpcodeCase(name: spec ? "badconstant_\(cfa.description.lowercased())_specphase" : sdkName, cfa: cfa,
                             list1: [.fixBadPixelsConstant(.init(constant: 0, bayerPhase: spec ? specPhase : sdkPhase))],
                             phaseMismatch: spec && specPhase != sdkPhase ? badPoints : [], sameAs: spec ? sdkName : nil)
    }

    static func listCase(_ cfa: CFAPattern) -> SDKOpcodeCase {
        let points = [(12, 12), (14, 12), (30, 30), (31, 31), (1, 40), (50, 6)].map { DNGOpcode.FixBadPixelsList.Point(row: UInt32($0.1), column: UInt32($0.0)) }
        let rects = [DNGOpcode.FixBadPixelsList.Rect(top: 20, left: 44, bottom: 24, right: 47),   // clustered
                     DNGOpcode.FixBadPixelsList.Rect(top: 0, left: 60, bottom: 3, right: 64),     // at a corner
                     DNGOpcode.FixBadPixelsList.Rect(top: 30, left: 21, bottom: 46, right: 22),   // single column
                     DNGOpcode.FixBadPixelsList.Rect(top: 41, left: 4, bottom: 42, right: 16),    // single row
                     DNGOpcode.FixBadPixelsList.Rect(top: 2, left: 2, bottom: 12, right: 3)]      // column near the top
        return SDKOpcodeCase(name: "badlist_\(cfa.description.lowercased())", cfa: cfa,
                             list2: [.fixBadPixelsList(.init(bayerPhase: phases(cfa).sdk, points: points, rects: rects))],
                             sdkMisplacedRow: (y: 41, left: 4, right: 16))
    }

    static let gainMap = DNGOpcode.GainMap(area: pitched, mapPointsV: 4, mapPointsH: 5, mapSpacingV: 0.3, mapSpacingH: 0.2,
                                           mapOriginV: 0.05, mapOriginH: 0.1, mapPlanes: 1,
                                           gains: (0..<20).map { 0.7 + Float($0) * 0.04 })

    /// A map over the whole of a 520×40 image with 9 × 13 points, every third column of every row.
    static let wideGainMap = DNGOpcode.GainMap(area: OpcodeArea(top: 0, left: 1, bottom: 40, right: 520, plane: 0, planes: 1, rowPitch: 1, colPitch: 3),
                                               mapPointsV: 9, mapPointsH: 13, mapSpacingV: 0.125, mapSpacingH: 1.0 / 12,
                                               mapOriginV: 0, mapOriginH: 0, mapPlanes: 1,
                                               gains: (0..<117).map { 0.75 + Float(($0 * 37) % 23) * 0.025 })

    static let all: [SDKOpcodeCase] = {
        var cases: [SDKOpcodeCase] = [
            SDKOpcodeCase(name: "linearise_rggb"),
            SDKOpcodeCase(name: "linearise_variedblack_rggb", variedBlack: true),
            SDKOpcodeCase(name: "linearise_linearraw", planes: 3, cfa: nil, variedBlack: true, stage3: true),
            SDKOpcodeCase(name: "deltaperrow_list2", list2: [.deltaPerRow(.init(area: pitched, values: deltas(18, scale: 150, offset: -400)))]),
            SDKOpcodeCase(name: "deltapercolumn_list2", list2: [.deltaPerColumn(.init(area: pitched, values: deltas(20, scale: -90, offset: 250)))]),
            SDKOpcodeCase(name: "scaleperrow_list2", list2: [.scalePerRow(.init(area: pitched, values: deltas(18, scale: 0.05, offset: 0.85)))]),
            SDKOpcodeCase(name: "scalepercolumn_list2", list2: [.scalePerColumn(.init(area: pitched, values: deltas(20, scale: -0.04, offset: 1.2)))]),
            SDKOpcodeCase(name: "deltaperrow_list1", list1: [.deltaPerRow(.init(area: whole, values: deltas(48, scale: 40, offset: -100)))]),
            SDKOpcodeCase(name: "scalepercolumn_list1", list1: [.scalePerColumn(.init(area: whole, values: deltas(64, scale: 0.03, offset: 0.9)))]),
            SDKOpcodeCase(name: "mappolynomial_list2", list2: [.mapPolynomial(.init(area: pitched, coefficients: [0.01, 1.3, -0.4, 0.05]))]),
            // MapTable tables cover every input that occurs: the SDK maps inputs past the end to
            // table[count], an entry it never sets, instead of the last entry (see README).
            SDKOpcodeCase(name: "maptable_list2", list2: [
                .mapPolynomial(.init(area: whole, coefficients: [0, 0.3])),
                .mapTable(.init(area: pitched, table: (0..<20000).map { UInt16(min(65535, Double($0) * 2.9 + 200)) })),
            ]),
            SDKOpcodeCase(name: "maptable_list1", list1: [.mapTable(.init(area: whole, table: (0..<16384).map { UInt16(Double($0) * 0.9 + 600) }))]),
            SDKOpcodeCase(name: "gainmap_list2", list2: [.gainMap(gainMap)]),
            // OpcodeList1 runs on stored codes (white 16383): a gain evaluated per pixel instead of
            // stepped along the SDK's tile rows rounds 1 stage-1 code differently, which
            // linearisation multiplies by 65535 / (16383 − 512) ≈ 4.1 (SDKGainMapStepping).
            SDKOpcodeCase(name: "gainmap_list1", list1: [.gainMap(gainMap)]),
            // Wider than one SDK processing tile (520 columns → three tiles of 174, 174 and 172 columns,
            // see SDKGainMapStepping.tileSize): the gain steps restart at each tile's left
            // edge, in both lists; pitch 3 so tile edges fall between selected columns.
            SDKOpcodeCase(name: "gainmap_tiled_list1", list1: [.gainMap(wideGainMap)], width: 520, height: 40),
            SDKOpcodeCase(name: "gainmap_tiled_list2", list2: [.gainMap(wideGainMap)], width: 520, height: 40),
            SDKOpcodeCase(name: "vignette_list2", list2: [.fixVignetteRadial(.init(k: [0.3, -0.1, 0.05, 0.02, -0.01], cx: 0.45, cy: 0.55))]),
            SDKOpcodeCase(name: "trimbounds_list2", list2: [.trimBounds(.init(top: 3, left: 5, bottom: 44, right: 61))]),
            SDKOpcodeCase(name: "chain_variedblack_list2", list2: [
                .mapPolynomial(.init(area: whole, coefficients: [0, 1.1])),
                .deltaPerColumn(.init(area: whole, values: deltas(64, scale: 30, offset: -60))),
                .gainMap(gainMap),
                .scalePerRow(.init(area: whole, values: deltas(48, scale: 0.02, offset: 0.95))),
            ], variedBlack: true),
            SDKOpcodeCase(name: "list3_linearraw", planes: 3, cfa: nil, list3: [
                .gainMap(.init(area: OpcodeArea(top: 0, left: 0, bottom: 48, right: 64, plane: 0, planes: 3), mapPointsV: 3, mapPointsH: 3,
                               mapSpacingV: 0.5, mapSpacingH: 0.5, mapOriginV: 0, mapOriginH: 0, mapPlanes: 3,
                               gains: (0..<27).map { 0.8 + Float($0 % 9) * 0.05 })),
                .deltaPerRow(.init(area: OpcodeArea(top: 0, left: 0, bottom: 48, right: 64, plane: 1, planes: 2), values: deltas(48, scale: 100, offset: -200))),
                .fixVignetteRadial(.init(k: [0.4, 0.1, 0, 0, 0], cx: 0.5, cy: 0.5)),
                .mapPolynomial(.init(area: OpcodeArea(top: 0, left: 0, bottom: 48, right: 64, plane: 2, planes: 1), coefficients: [0, 0.9, 0.1])),
            ], stage3: true),
            // Warps: resampled as the SDK's dng_filter_warp does (bicubic weight table, its window clip
            // at the edges), compared over the whole image.
            SDKOpcodeCase(name: "warprectilinear_list3_linearraw", planes: 3, cfa: nil, list3: [
                .warpRectilinear(.init(planes: [.init(kr: [1, 0.02, -0.01, 0], kt: [0.001, -0.002])], cx: 0.48, cy: 0.52)),
            ], stage3: true),
            SDKOpcodeCase(name: "warpfisheye_list3_linearraw", planes: 3, cfa: nil, list3: [
                .warpFisheye(.init(planes: [[1, 0.05, 0, 0]], cx: 0.5, cy: 0.5)),
            ], stage3: true),
            SDKOpcodeCase(name: "warprectilinear2_list3_linearraw", planes: 3, cfa: nil, list3: [
                .warpRectilinear2(.init(planes: [.init(kr: [1, 0, 0.015] + Array(repeating: 0, count: 12), kt: [0, 0])], cx: 0.5, cy: 0.5)),
            ], stage3: true),
            // Wider than one SDK processing tile: the SDK clips each tile's tap window on its own.
            SDKOpcodeCase(name: "warprectilinear_wide_list3_linearraw", planes: 3, cfa: nil, list3: [
                .warpRectilinear(.init(planes: [.init(kr: [1, 0.02, -0.01, 0], kt: [0.001, -0.002])], cx: 0.48, cy: 0.52)),
            ], stage3: true, width: 520, height: 24),
            SDKOpcodeCase(name: "list3_trim_linearraw", planes: 3, cfa: nil, list3: [.trimBounds(.init(top: 2, left: 4, bottom: 40, right: 50))], stage3: true),
        ]
        for cfa in CFAPattern.all {
            cases.append(constantCase(cfa, spec: false))
            cases.append(constantCase(cfa, spec: true))
            cases.append(listCase(cfa))
            cases.append(SDKOpcodeCase(name: "gainmap_pitch2_\(cfa.description.lowercased())", cfa: cfa, list2: [
                .gainMap(.init(area: OpcodeArea(top: 1, left: 0, bottom: 48, right: 64, plane: 0, planes: 1, rowPitch: 2, colPitch: 2),
                               mapPointsV: 2, mapPointsH: 2, mapSpacingV: 1, mapSpacingH: 1, mapOriginV: 0, mapOriginH: 0, mapPlanes: 1,
                               gains: [1.3, 0.9, 1.1, 0.6])),
            ]))
        }
        return cases
    }()

    /// SDKReference/ next to this file.
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("SDKReference").path

    /// The planted bad pixels of the bad-pixel cases are code 0 (the constant).
    func withBadPixels(_ raw: RawImage) -> RawImage {
        var r = raw
        let constant = list1.contains { if case .fixBadPixelsConstant = $0 { return true } else { return false } }
        let listed = list2.compactMap { op -> DNGOpcode.FixBadPixelsList? in if case .fixBadPixelsList(let p) = op { return p } else { return nil } }.first
        if constant { for (x, y) in Self.badPoints { r.pixels[y * width + x] = 0 } }
        if let listed {
            for p in listed.points { r.pixels[Int(p.row) * width + Int(p.column)] = 65000 }
            for rc in listed.rects { for y in Int(rc.top)..<Int(rc.bottom) { for x in Int(rc.left)..<Int(rc.right) { r.pixels[y * width + x] = 3 } } }
        }
        return r
    }

    /// Writes SDKReference/NAME.dng.
    func record() throws {
        try FileManager.default.createDirectory(atPath: Self.directory, withIntermediateDirectories: true)
        try DNGWriter.write(withBadPixels(rawImage()), to: "\(Self.directory)/\(name).dng",
                            options: DNGWriteOptions(rowsPerStrip: height, software: "Darkroom SDK conformance fixture",
                                                     dateTime: "2026:11:26 00:00:00"))
    }
}
