import Foundation
import Testing
@testable import DarkroomCore

@Suite struct OpcodeApplyTests {
    static func randomImage(_ w: Int, _ h: Int, _ planes: Int, seed: UInt64) -> [Float] {
        var rng = LCG(state: seed)
        return (0..<(w * h * planes)).map { _ in rng.unit() }
    }

    /// A GainMap holding 1/vignette at its points brings a vignetted flat field flat within 0.5 %.
    @Test(arguments: [1, 3])
    func gainMapFlattensVignette(planes: Int) throws {
        let w = 96, h = 64
        func vignette(_ u: Double, _ v: Double) -> Double { 1 - 0.4 * ((u - 0.5) * (u - 0.5) + (v - 0.5) * (v - 0.5)) }
        var px = [Float](repeating: 0, count: w * h * planes)
        for y in 0..<h { for x in 0..<w { for p in 0..<planes {
            px[(y * w + x) * planes + p] = Float(0.5 * vignette((Double(x) + 0.5) / Double(w), (Double(y) + 0.5) / Double(h)))
        } } }
        let n = 17
        var gains: [Float] = []
        for i in 0..<n { for j in 0..<n { gains.append(Float(1 / vignette(Double(j) / 16, Double(i) / 16))) } }
        let map = DNGOpcode.GainMap(area: OpcodeArea(top: 0, left: 0, bottom: UInt32(h), right: UInt32(w), plane: 0, planes: UInt32(planes)),
                                    mapPointsV: UInt32(n), mapPointsH: UInt32(n), mapSpacingV: 1.0 / 16, mapSpacingH: 1.0 / 16,
                                    mapOriginV: 0, mapOriginH: 0, mapPlanes: 1, gains: gains)
        var width = w, height = h
        try OpcodeList(opcodes: [.gainMap(map)]).applyWhole(to: &px, width: &width, height: &height, planes: planes, cfa: planes == 1 ? .rggb : nil)
        let worst = px.map { abs($0 / 0.5 - 1) }.max() ?? 1
        print("[opcodes] GainMap vignette residual, planes \(planes): \(worst * 100) %")
        #expect(worst < 0.005)
    }

    /// GainMap interpolation and edge clamping at exact positions: a 2x3 map over a 4x8 image.
    @Test func gainMapExactInterpolation() throws {
        // Points at relative (v, h) = (0, 0), (0, .5), (0, 1), (1, …); pixel centres (x + .5)/8, (y + .5)/4.
        let g = OpcodeFixtures.gainMap   // gains row 0: 1, 1.5, 2; row 1: 1.25, 1.75, 2.25
        var px = [Float](repeating: 1, count: 4 * 8)
        var w = 8, h = 4
        var map = g
        map.area = OpcodeArea(top: 0, left: 0, bottom: 4, right: 8)
        try OpcodeList(opcodes: [.gainMap(map)]).applyWhole(to: &px, width: &w, height: &h, planes: 1, cfa: nil)
        // Pixel (x 0, y 0): rows frac 0.125, cols index 0.0625/0.5 = 0.125.
        let cf: Float = 0.125, rf: Float = 0.125
        let top: Float = 1 + (1.5 - 1) * cf, bottom: Float = 1.25 + (1.75 - 1.25) * cf
        #expect(px[0] == top + (bottom - top) * rf)
        // Pixel (x 7, y 3): column index 0.9375/0.5 = 1.875, row 0.875.
        let t2: Float = 1.5 + (2 - 1.5) * 0.875, b2: Float = 1.75 + (2.25 - 1.75) * 0.875
        #expect(px[3 * 8 + 7] == t2 + (b2 - t2) * 0.875)
        // Map origin beyond the pixel: clamped to the first point.
        var shifted = map
        shifted.mapOriginV = 0.9; shifted.mapOriginH = 0.9
        var q = [Float](repeating: 1, count: 32)
        try OpcodeList(opcodes: [.gainMap(shifted)]).applyWhole(to: &q, width: &w, height: &h, planes: 1, cfa: nil)
        #expect(q[0] == 1)
    }

    /// applyPointwise on 4 uneven tiles equals applyWhole, bit for bit.
    @Test(arguments: [1, 3])
    func tilesMatchWholeImage(planes: Int) throws {
        let w = 37, h = 29
        let area = OpcodeArea(top: 3, left: 5, bottom: 27, right: 33, plane: 0, planes: UInt32(planes), rowPitch: 2, colPitch: 3)
        let list = OpcodeList(opcodes: [
            .fixVignetteRadial(.init(k: [0.3, -0.1, 0.02, 0, 0.001], cx: 0.45, cy: 0.55)),
            .gainMap(.init(area: OpcodeArea(top: 0, left: 0, bottom: UInt32(h), right: UInt32(w), plane: 0, planes: UInt32(planes), rowPitch: 1, colPitch: 2),
                           mapPointsV: 3, mapPointsH: 4, mapSpacingV: 0.4, mapSpacingH: 0.3, mapOriginV: 0.1, mapOriginH: 0.05,
                           mapPlanes: UInt32(planes), gains: (0..<(12 * planes)).map { 1 + Float($0) * 0.01 })),
            .mapPolynomial(.init(area: area, coefficients: [0.01, 0.9, 0.1])),
            .deltaPerRow(.init(area: area, values: (0..<12).map { Float($0) * 0.001 })),
            .scalePerColumn(.init(area: OpcodeArea(top: 0, left: 1, bottom: UInt32(h), right: UInt32(w), planes: UInt32(planes), colPitch: 2),
                                  values: (0..<18).map { 1 + Float($0) * 0.003 })),
            .deltaPerColumn(.init(area: OpcodeArea(top: 0, left: 0, bottom: UInt32(h), right: UInt32(w)), values: (0..<w).map { Float($0) * -0.0005 })),
            .scalePerRow(.init(area: OpcodeArea(top: 1, left: 0, bottom: 9, right: UInt32(w), planes: UInt32(planes)), values: (0..<8).map { 0.9 + Float($0) * 0.02 })),
            .mapTable(.init(area: OpcodeArea(top: 10, left: 10, bottom: 20, right: 20), table: (0..<4096).map { UInt16($0 * 16) })),
        ])
        #expect(list.isPointwise)
        try list.validate(imageWidth: w, imageHeight: h, planes: planes)
        let source = Self.randomImage(w, h, planes, seed: 7)
        var whole = source
        var ww = w, hh = h
        try list.applyWhole(to: &whole, width: &ww, height: &hh, planes: planes, cfa: planes == 1 ? .rggb : nil)
        #expect(whole != source)
        var tiled = source
        let tiles = [PixelRect(x: 0, y: 0, width: 14, height: 11), PixelRect(x: 14, y: 0, width: 23, height: 11),
                     PixelRect(x: 0, y: 11, width: 20, height: 18), PixelRect(x: 20, y: 11, width: 17, height: 18)]
        for t in tiles {
            let stride = t.width * planes + 5
            var buf = [Float](repeating: .nan, count: stride * t.height)
            for y in 0..<t.height { for i in 0..<(t.width * planes) { buf[y * stride + i] = source[((t.y + y) * w + t.x) * planes + i] } }
            buf.withUnsafeMutableBufferPointer { b in
                list.applyPointwise(to: b.baseAddress!, rowStride: stride, region: t, planes: planes, imageWidth: w, imageHeight: h)
            }
            for y in 0..<t.height { for i in 0..<(t.width * planes) { tiled[((t.y + y) * w + t.x) * planes + i] = buf[y * stride + i] } }
        }
        #expect(tiled.map(\.bitPattern) == whole.map(\.bitPattern))
    }

    /// MapTable, MapPolynomial, Delta and Scale give exact values on the selected samples only.
    @Test func mapAndDeltaScaleExactValues() throws {
        let w = 6, h = 4
        let base: [Float] = (0..<(w * h)).map { Float($0) / 65535 }
        let a = OpcodeArea(top: 1, left: 1, bottom: 4, right: 6, plane: 0, planes: 1, rowPitch: 2, colPitch: 2)
        func run(_ op: DNGOpcode) throws -> [Float] {
            var px = base
            var ww = w, hh = h
            try OpcodeList(opcodes: [op]).applyWhole(to: &px, width: &ww, height: &hh, planes: 1, cfa: nil)
            return px
        }
        // Selected: rows 1, 3; columns 1, 3, 5.
        let selected = Set([7, 9, 11, 19, 21, 23])
        let table = try run(.mapTable(.init(area: a, table: (0..<20).map { UInt16(1000 + $0) })))
        let poly = try run(.mapPolynomial(.init(area: a, coefficients: [0.125, 2, -1])))
        let dRow = try run(.deltaPerRow(.init(area: a, values: [0.25, -0.5])))
        let dCol = try run(.deltaPerColumn(.init(area: a, values: [0.1, 0.2, 0.3])))
        let sRow = try run(.scalePerRow(.init(area: a, values: [3, 5])))
        let sCol = try run(.scalePerColumn(.init(area: a, values: [2, 4, 8])))
        for i in 0..<(w * h) {
            let v = base[i]
            guard selected.contains(i) else {
                for out in [table, poly, dRow, dCol, sRow, sCol] { #expect(out[i] == v) }
                continue
            }
            let x = i % w, y = i / w
            #expect(table[i] == Float(1000 + min(i, 19)) / 65535)
            #expect(poly[i] == (Float(-1) * v + 2) * v + 0.125)
            // Delta values are 16-bit stage codes (DNG SDK: × 1/65535).
            #expect(dRow[i] == v + (y == 1 ? 0.25 : -0.5) / 65535)
            #expect(dCol[i] == v + [Float(0.1), 0.2, 0.3][(x - 1) / 2] / 65535)
            #expect(sRow[i] == v * (y == 1 ? 3 : 5))
            #expect(sCol[i] == v * [Float(2), 4, 8][(x - 1) / 2])
        }
    }

    /// OpcodeList1 on stored UInt16 codes: MapTable maps codes directly; the others see code/65535
    /// and are rounded back after each opcode.
    @Test func rawStageExactValues() throws {
        let w = 4, h = 2
        var px: [UInt16] = [0, 100, 1000, 4000, 5, 6, 7, 65535]
        let all = OpcodeArea(top: 0, left: 0, bottom: 2, right: 4)
        try OpcodeList(opcodes: [
            .mapTable(.init(area: all, table: [9, 8, 7, 6, 5, 4, 3, 2])),         // codes ≥ 7 → 2
            .scalePerRow(.init(area: OpcodeArea(top: 1, left: 0, bottom: 2, right: 4), values: [1000])),
            .deltaPerColumn(.init(area: all, values: [1, 0, 0, -3])),   // codes
        ]).applyRaw(to: &px, width: w, height: h, planes: 1, cfa: .rggb, whiteLevel: 4095)
        #expect(px == [10, 2, 2, 0, 4001, 3000, 2000, 1997])
        var poly: [UInt16] = [0, 32768, 65535, 1000]
        try OpcodeList(opcodes: [.mapPolynomial(.init(area: OpcodeArea(top: 0, left: 0, bottom: 1, right: 4), coefficients: [0.5, 0.25]))])
            .applyRaw(to: &poly, width: 4, height: 1, planes: 1, cfa: nil, whiteLevel: 65535)
        let expected = [0, 32768, 65535, 1000].map { (c: Int) -> UInt16 in quantized16((Float(0.25) * (Float(c) / 65535)) + 0.5) }
        #expect(poly == expected)
        #expect(poly[0] == 32768 && poly[2] == 49151)
        var trim: [UInt16] = [1, 2, 3, 4]
        #expect(throws: OpcodeError.self) {
            try OpcodeList(opcodes: [.trimBounds(.init(top: 0, left: 0, bottom: 1, right: 1))]).applyRaw(to: &trim, width: 2, height: 2, planes: 1, cfa: nil, whiteLevel: 4095)
        }
    }

    /// Planted bad pixels of each colour become the rounded mean of their 4 nearest same-colour
    /// neighbours that are not bad (the DNG SDK's ring); green/non-green comes from the CFA
    /// pattern whatever BayerPhase says.
    @Test(arguments: [0, 1, 2, 3] as [UInt32])
    func fixBadPixelsConstantRepairsToNeighbourMean(phase: UInt32) throws {
        let w = 16, h = 12
        var rng = LCG(state: 99 + UInt64(phase))
        let stored: [UInt16] = (0..<(w * h)).map { _ in UInt16(100 + rng.int(3000)) }
        var raw = stored
        // Bad pixels: two adjacent same-colour (even offsets), one at the corner, one interior.
        let bad = [(5, 5), (6, 5), (7, 5), (0, 0), (9, 8), (10, 3)]
        for (x, y) in bad { raw[y * w + x] = 0 }
        let source = raw
        var floats = raw.map { Float($0) / 65535 }
        let op = DNGOpcode.fixBadPixelsConstant(.init(constant: 0, bayerPhase: phase))
        try OpcodeList(opcodes: [op]).applyRaw(to: &raw, width: w, height: h, planes: 1, cfa: .rggb, whiteLevel: 4095)
        var ww = w, hh = h
        try OpcodeList(opcodes: [op]).applyWhole(to: &floats, width: &ww, height: &hh, planes: 1, cfa: .rggb)
        for (x, y) in bad {
            let green = CFAPattern.rggb.color(x: x, y: y) == .green
            let ring = green ? [(-1, -1), (1, -1), (-1, 1), (1, 1)] : [(0, -2), (-2, 0), (2, 0), (0, 2)]
            let values = ring.compactMap { (dx, dy) -> Double? in
                let nx = x + dx, ny = y + dy
                guard nx >= 0, ny >= 0, nx < w, ny < h, source[ny * w + nx] != 0 else { return nil }
                return Double(source[ny * w + nx])
            }
            #expect(!values.isEmpty)
            let mean = values.reduce(0, +) / Double(values.count)
            #expect(raw[y * w + x] == UInt16(mean.rounded()), "pixel (\(x), \(y))")
            #expect(floats[y * w + x] == Float(UInt16(mean.rounded())) / 65535)
        }
        // Everything else untouched.
        for i in 0..<(w * h) where source[i] != 0 { #expect(raw[i] == stored[i]) }
    }

    @Test func fixBadPixelsListRepairsPointsAndRects() throws {
        let w = 12, h = 10
        var px = [UInt16](repeating: 0, count: w * h)
        for y in 0..<h { for x in 0..<w { px[y * w + x] = UInt16(100 * x + 7 * y) } }
        let original = px
        for (x, y) in [(4, 4), (6, 2), (7, 2)] { px[y * w + x] = 60000 }
        let list = OpcodeList(opcodes: [.fixBadPixelsList(.init(bayerPhase: 0, points: [.init(row: 4, column: 4)],
                                                                 rects: [.init(top: 2, left: 6, bottom: 3, right: 8)]))])
        try list.applyRaw(to: &px, width: w, height: h, planes: 1, cfa: .rggb, whiteLevel: 65535)
        // The field is linear in x and y and every ring is symmetric, so each repaired pixel gets its
        // original value back: (4, 4) red from (±2, 0)/(0, ±2); (6, 2) red likewise, skipping bad (7, 2)
        // is not needed (it is another colour); (7, 2) green from its four diagonals.
        #expect(px[4 * w + 4] == original[4 * w + 4])
        #expect(px[2 * w + 6] == original[2 * w + 6])
        #expect(px[2 * w + 7] == original[2 * w + 7])
        #expect(throws: OpcodeError.self) {
            try OpcodeList(opcodes: [.fixBadPixelsList(.init(bayerPhase: 0, points: [.init(row: 40, column: 0)], rects: []))])
                .applyRaw(to: &px, width: w, height: h, planes: 1, cfa: .rggb, whiteLevel: 65535)
        }
    }

    @Test func trimBoundsCrops() throws {
        var px: [Float] = (0..<(6 * 4 * 3)).map { Float($0) }
        var w = 6, h = 4
        try OpcodeList(opcodes: [.trimBounds(.init(top: 1, left: 2, bottom: 3, right: 5))]).applyWhole(to: &px, width: &w, height: &h, planes: 3, cfa: nil)
        #expect(w == 3 && h == 2)
        #expect(px == [24, 25, 26, 27, 28, 29, 30, 31, 32, 42, 43, 44, 45, 46, 47, 48, 49, 50].map { Float($0) })
    }

    /// The specification's source-position formula, written independently of the implementation.
    static func specSource(x: Double, y: Double, w: Int, h: Int, cx: Double, cy: Double,
                           kr: [Double], kt: [Double]) -> (Double, Double) {
        let ccx = cx * Double(w), ccy = cy * Double(h)
        let corners = [(0.0, 0.0), (Double(w), 0.0), (0.0, Double(h)), (Double(w), Double(h))]
        let m = corners.map { hypot($0.0 - ccx, $0.1 - ccy) }.max()!
        let dx = (x - ccx) / m, dy = (y - ccy) / m
        let r2 = dx * dx + dy * dy
        let f = kr[0] + kr[1] * r2 + kr[2] * r2 * r2 + kr[3] * r2 * r2 * r2
        let dxr = f * dx + kt[0] * 2 * dx * dy + kt[1] * (r2 + 2 * dx * dx)
        let dyr = f * dy + kt[1] * 2 * dx * dy + kt[0] * (r2 + 2 * dy * dy)
        return (ccx + m * dxr, ccy + m * dyr)
    }

    /// WarpRectilinear moves a dot to where the formula says: the destination pixel Q whose source
    /// position S(Q) is the dot's position P shows the dot (centroid within 0.5 px).
    @Test(arguments: [(1, 0, 0), (3, 0, 0), (3, 1, 1), (1, 1, 1)])
    func warpRectilinearMovesDot(planes: Int, useTangential: Int, mosaic: Int) throws {
        let w = 120, h = 90
        let kr = [1.0, 0.12, 0.03, 0.0], kt = useTangential == 1 ? [0.004, -0.003] : [0.0, 0.0]
        for q in [(95.0, 70.0), (20.0, 15.0), (60.0, 45.0)] {
            let p = Self.specSource(x: q.0, y: q.1, w: w, h: h, cx: 0.5, cy: 0.5, kr: kr, kt: kt)
            var px = [Float](repeating: 0, count: w * h * planes)
            for y in 0..<h { for x in 0..<w {
                let d2 = (Double(x) - p.0) * (Double(x) - p.0) + (Double(y) - p.1) * (Double(y) - p.1)
                for c in 0..<planes { px[(y * w + x) * planes + c] = Float(exp(-d2 / (2 * 2.0 * 2.0))) }
            } }
            var ww = w, hh = h
            let op = DNGOpcode.warpRectilinear(.init(planes: [.init(kr: kr, kt: kt)], cx: 0.5, cy: 0.5))
            try OpcodeList(opcodes: [op]).applyWhole(to: &px, width: &ww, height: &hh, planes: planes, cfa: mosaic == 1 ? .rggb : nil)
            for c in 0..<planes {
                var sx = 0.0, sy = 0.0, s = 0.0
                for y in 0..<h { for x in 0..<w {
                    let v = Double(px[(y * w + x) * planes + c])
                    if v > 0.05 { sx += v * Double(x); sy += v * Double(y); s += v }
                } }
                #expect(abs(sx / s - q.0) < 0.5 && abs(sy / s - q.1) < 0.5, "dot at (\(sx / s), \(sy / s)) expected \(q)")
            }
        }
    }

    /// WarpFisheye moves a dot to where its formula says: source = c + R·(d/r)·Σ kri θ^(2i+1), θ = atan r.
    @Test func warpFisheyeMovesDot() throws {
        let w = 100, h = 100
        let k = [0.9, 0.2, 0.0, 0.0]
        let m = hypot(50.0, 50.0)
        for q in [(80.0, 65.0), (30.0, 20.0)] {
            let dx = (q.0 - 50) / m, dy = (q.1 - 50) / m
            let r = hypot(dx, dy), t = atan(r)
            let ratio = (k[0] * t + k[1] * pow(t, 3)) / r
            let p = (50 + m * dx * ratio, 50 + m * dy * ratio)
            var px = [Float](repeating: 0, count: w * h)
            for y in 0..<h { for x in 0..<w {
                px[y * w + x] = Float(exp(-(pow(Double(x) - p.0, 2) + pow(Double(y) - p.1, 2)) / 8))
            } }
            var ww = w, hh = h
            try OpcodeList(opcodes: [.warpFisheye(.init(planes: [k], cx: 0.5, cy: 0.5))]).applyWhole(to: &px, width: &ww, height: &hh, planes: 1, cfa: nil)
            var sx = 0.0, sy = 0.0, s = 0.0
            for y in 0..<h { for x in 0..<w { let v = Double(px[y * w + x]); if v > 0.05 { sx += v * Double(x); sy += v * Double(y); s += v } } }
            #expect(abs(sx / s - q.0) < 0.5 && abs(sy / s - q.1) < 0.5)
        }
    }

    /// Identity warps (kr0 = 1, the rest 0) leave the image unchanged.
    @Test func identityWarpsAreNoOps() throws {
        let w = 20, h = 14
        let src = Self.randomImage(w, h, 3, seed: 3)
        for op: DNGOpcode in [
            .warpRectilinear(.init(planes: [.init(kr: [1, 0, 0, 0], kt: [0, 0])], cx: 0.3, cy: 0.6)),
            .warpRectilinear2(.init(planes: [.init(kr: [1] + Array(repeating: 0, count: 14), kt: [0, 0])], cx: 0.5, cy: 0.5)),
        ] {
            var px = src
            var ww = w, hh = h
            try OpcodeList(opcodes: [op]).applyWhole(to: &px, width: &ww, height: &hh, planes: 3, cfa: nil)
            let worst = zip(px, src).map { abs($0 - $1) }.max() ?? 1
            #expect(worst < 1e-6, "\(op.name)")
        }
    }

    @Test func vignetteGainFollowsFormula() throws {
        let w = 10, h = 8
        var px = [Float](repeating: 0.25, count: w * h)
        var ww = w, hh = h
        let k = [0.5, 0.25, 0.125, 0.0625, 0.03125]
        try OpcodeList(opcodes: [.fixVignetteRadial(.init(k: k, cx: 0.5, cy: 0.5))]).applyWhole(to: &px, width: &ww, height: &hh, planes: 1, cfa: nil)
        // Pixel centres (x + 0.5, y + 0.5), as the DNG SDK; its 16-bit gain table (2^-15 steps over
        // 65536 r² steps) keeps the gain within 1e-4 of the formula.
        let m = hypot(5.0, 4.0)
        for (x, y) in [(5, 4), (0, 0), (9, 7), (2, 6), (4, 3)] {
            let r2 = (pow(Double(x) + 0.5 - 5, 2) + pow(Double(y) + 0.5 - 4, 2)) / (m * m)
            let gain = 1 + k[0] * r2 + k[1] * pow(r2, 2) + k[2] * pow(r2, 3) + k[3] * pow(r2, 4) + k[4] * pow(r2, 5)
            #expect(abs(Double(px[y * w + x]) - 0.25 * gain) < 1e-4 * 0.25)
        }
    }
}
