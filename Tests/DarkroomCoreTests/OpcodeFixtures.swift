@testable import DarkroomCore

/// Sample opcodes, one per specification id, shared by the opcode tests.
enum OpcodeFixtures {
    static let area = OpcodeArea(top: 2, left: 4, bottom: 10, right: 12, plane: 0, planes: 1, rowPitch: 2, colPitch: 2)

    static let gainMap = DNGOpcode.GainMap(
        area: OpcodeArea(top: 0, left: 0, bottom: 12, right: 16, plane: 0, planes: 3), mapPointsV: 2, mapPointsH: 3,
        mapSpacingV: 1, mapSpacingH: 0.5, mapOriginV: 0, mapOriginH: 0, mapPlanes: 1,
        gains: [1, 1.5, 2, 1.25, 1.75, 2.25])

    static var all: [DNGOpcode] {
        [
            .warpRectilinear(.init(planes: [.init(kr: [1, -0.02, 0.001, 0], kt: [0.0005, -0.0003])], cx: 0.5, cy: 0.48)),
            .warpFisheye(.init(planes: [[1, 0.01, 0, 0]], cx: 0.5, cy: 0.5, flags: 1)),
            .fixVignetteRadial(.init(k: [0.3, -0.05, 0.01, 0, 0], cx: 0.52, cy: 0.5)),
            .fixBadPixelsConstant(.init(constant: 0, bayerPhase: 1)),
            .fixBadPixelsList(.init(bayerPhase: 0, points: [.init(row: 3, column: 5), .init(row: 7, column: 1)],
                                    rects: [.init(top: 1, left: 8, bottom: 2, right: 11)])),
            .trimBounds(.init(top: 1, left: 2, bottom: 11, right: 14)),
            .mapTable(.init(area: area, table: [0, 10, 20, 30, 65535])),
            .mapPolynomial(.init(area: area, coefficients: [0.1, 2, -0.5])),
            .gainMap(gainMap),
            .deltaPerRow(.init(area: area, values: [0.01, -0.02, 0.03, 0.04])),
            .deltaPerColumn(.init(area: area, values: [0.5, 0.25, 0.125, 0.0625])),
            .scalePerRow(.init(area: area, values: [1.5, 0.5, 2, 1])),
            .scalePerColumn(.init(area: area, values: [1, 2, 3, 4], flags: 2)),
            .warpRectilinear2(.init(planes: [
                .init(kr: [1, 0, -0.02] + Array(repeating: 0, count: 12), kt: [0, 0], minValidRadius: 0, maxValidRadius: 1),
                .init(kr: [1.001, 0, -0.02] + Array(repeating: 0, count: 12), kt: [0.0001, 0], minValidRadius: 0.1, maxValidRadius: 0.9),
                .init(kr: [0.999, 0, -0.02] + Array(repeating: 0, count: 12), kt: [0, 0.0001], minValidRadius: 0, maxValidRadius: 1),
            ], cx: 0.5, cy: 0.5, reciprocalRadial: 1)),
            .unknown(id: 99, version: 0x0107_0000, flags: 1, data: [1, 2, 3, 4, 5]),
        ]
    }
}

/// Deterministic 64-bit LCG (Knuth MMIX constants) for fuzzing and synthetic images.
struct LCG {
    var state: UInt64
    mutating func next() -> UInt64 {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return state >> 16
    }
    mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    mutating func unit() -> Float { Float(next() % 65536) / 65535 }
}

/// Big-endian byte building for hand-written opcode streams.
struct BE {
    var bytes: [UInt8] = []
    mutating func u32(_ v: UInt32) { bytes += [UInt8(v >> 24), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }
    mutating func u16(_ v: UInt16) { bytes += [UInt8(v >> 8), UInt8(v & 255)] }
    mutating func f32(_ v: Float) { u32(v.bitPattern) }
    mutating func f64(_ v: Double) { u32(UInt32(v.bitPattern >> 32)); u32(UInt32(v.bitPattern & 0xFFFF_FFFF)) }
}
