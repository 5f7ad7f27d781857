import DarkroomCore
import DarkroomFormats
import Foundation
import Testing

/// `ProfileGainTableMap` against values worked out by hand from the DNG 1.7.1 specification's
/// definition (pixel-centred positions relative to the image, bilinear between tables, table
/// index = input × MapPointsN, linear between entries, edge tables repeated outside the grid).
@Suite("ProfileGainTableMap")
struct ProfileGainTableMapTests {
    /// A 2 × 3 grid of 4-entry tables whose gains are affine in (row, column, entry):
    /// gain = 1 + row + 0.5 · column + 0.25 · entry. Bilinear/linear interpolation reproduces an
    /// affine function exactly, so the expected gain anywhere inside is that formula at the
    /// fractional map position and index. Over a 10 × 6 image, columns are 0.4 apart from 0.05 and
    /// rows 0.5 apart from 0.25: tables sit on the centres of pixels x = 0, 4, 8 and y = 1, 4 (with
    /// v = (y + 0.5) / 6: y = 1 → 0.25, y = 4 → 0.75).
    static func affineMap(weights: [Float] = [1, 0, 0, 0, 0], gamma: Float = 1) throws -> ProfileGainTableMap {
        var gains: [Float] = []
        for r in 0..<2 { for c in 0..<3 { for k in 0..<4 { gains.append(1 + Float(r) + 0.5 * Float(c) + 0.25 * Float(k)) } } }
        return try ProfileGainTableMap(pointsV: 2, pointsH: 3, spacingV: 0.5, spacingH: 0.4, originV: 0.25, originH: 0.05,
                                       pointsN: 4, inputWeights: weights, gamma: gamma, gains: gains)
    }

    /// Expected gain of the affine map: row/column fractions pinned to the grid, index pinned to
    /// the last entry (index = t · 4, entries 0…3).
    static func expected(x: Int, y: Int, t: Float) -> Float {
        let col = min(max(((Float(x) + 0.5) / 10 - 0.05) / 0.4, 0), 2)
        let row = min(max(((Float(y) + 0.5) / 6 - 0.25) / 0.5, 0), 1)
        let index = min(max(t, 0), 1) * 4
        return 1 + row + 0.5 * col + 0.25 * min(index, 3)
    }

    static func gain(_ m: ProfileGainTableMap, x: Int, y: Int, _ r: Float, _ g: Float = 0, _ b: Float = 0,
                     weightScale: Float = 1) -> Float {
        m.gain(x: x, y: y, width: 10, height: 6, r: r, g: g, b: b, weightScale: weightScale)
    }

    @Test func nodesGiveTheStoredGains() throws {
        let m = try Self.affineMap()
        // Table (row 0, column 0) at pixel (0, 1); (1, 2) at pixel (8, 4). t = 0.25 → entry 1.
        #expect(abs(Self.gain(m, x: 0, y: 1, 0.25) - 1.25) < 1e-5)
        #expect(abs(Self.gain(m, x: 8, y: 4, 0.25) - (1 + 1 + 1 + 0.25)) < 1e-5)
        #expect(abs(Self.gain(m, x: 4, y: 4, 0.5) - (1 + 1 + 0.5 + 0.5)) < 1e-5)
        // t = 0 → entry 0; t = 0.75 → entry 3 (index 3 = last entry).
        #expect(abs(Self.gain(m, x: 4, y: 1, 0) - 1.5) < 1e-5)
        #expect(abs(Self.gain(m, x: 4, y: 1, 0.75) - 2.25) < 1e-5)
    }

    @Test(arguments: [(2, 2, 0.1), (5, 3, 0.6), (7, 1, 0.33), (1, 4, 0.05), (6, 2, 0.7)] as [(Int, Int, Float)])
    func betweenNodesIsTrilinear(x: Int, y: Int, t: Float) throws {
        let m = try Self.affineMap()
        #expect(abs(Self.gain(m, x: x, y: y, t) - Self.expected(x: x, y: y, t: t)) < 1e-5)
        // Hand check of one: pixel (5, 3), t 0.6: column (0.55 − 0.05)/0.4 = 1.25, row
        // (0.5833 − 0.25)/0.5 = 0.6667, index 2.4 → 1 + 0.6667 + 0.625 + 0.6 = 2.8917.
        if x == 5 && y == 3 { #expect(abs(Self.gain(m, x: 5, y: 3, 0.6) - 2.891667) < 1e-5) }
    }

    @Test func edgesRepeatOutsideTheGridAndTheLastEntryCoversTheTop() throws {
        let m = try Self.affineMap()
        // x = 9 lies beyond the last column (0.95 > 0.85), y = 0 above the first row, y = 5 below the last.
        #expect(abs(Self.gain(m, x: 9, y: 0, 0) - (1 + 0 + 1)) < 1e-5)
        #expect(abs(Self.gain(m, x: 9, y: 5, 0) - (1 + 1 + 1)) < 1e-5)
        // Index = t · N: t in 0.75…1 stays on the last entry (not t · (N − 1)); above 1 and below 0 pin.
        #expect(abs(Self.gain(m, x: 0, y: 1, 0.9) - 1.75) < 1e-5)
        #expect(abs(Self.gain(m, x: 0, y: 1, 7) - 1.75) < 1e-5)
        #expect(abs(Self.gain(m, x: 0, y: 1, -3) - 1) < 1e-5)
    }

    @Test func inputWeightsGammaAndExposureScale() throws {
        // Weights on min and max: t = 0.5 · min + 0.5 · max = 0.5 · 0.1 + 0.5 · 0.5 = 0.3 → index 1.2.
        let mm = try Self.affineMap(weights: [0, 0, 0, 0.5, 0.5])
        #expect(abs(Self.gain(mm, x: 0, y: 1, 0.5, 0.1, 0.3) - 1.3) < 1e-5)
        // R, G, B weights: 0.2 · 0.5 + 0.3 · 0.1 + 0.5 · 0.3 = 0.28 → index 1.12.
        let rgb = try Self.affineMap(weights: [0.2, 0.3, 0.5, 0, 0])
        #expect(abs(Self.gain(rgb, x: 0, y: 1, 0.5, 0.1, 0.3) - 1.28) < 1e-5)
        // Gamma 2: t = 0.5² = 0.25 → index 1.
        let g2 = try Self.affineMap(gamma: 2)
        #expect(abs(Self.gain(g2, x: 0, y: 1, 0.5) - 1.25) < 1e-5)
        // The exposure scale multiplies the weighted input before clamping: 0.2 × 2 = 0.4 → index 1.6.
        let m = try Self.affineMap()
        #expect(abs(Self.gain(m, x: 0, y: 1, 0.2, weightScale: 2) - 1.4) < 1e-5)
    }

    @Test func singleTableIgnoresSpacingAndOrigin() throws {
        // One table in each direction: spacing and origin are forced to 1 and 0 (even 0 and NaN-free
        // garbage is accepted there), and every pixel gets that table.
        let m = try ProfileGainTableMap(pointsV: 1, pointsH: 1, spacingV: 0, spacingH: -5, originV: 3, originH: 9,
                                        pointsN: 2, inputWeights: [1, 0, 0, 0, 0], gains: [1, 3])
        #expect(m.spacingV == 1 && m.spacingH == 1 && m.originV == 0 && m.originH == 0)
        // t = 0.25 → index 0.5 → 2.
        for (x, y) in [(0, 0), (9, 5), (4, 2)] { #expect(abs(Self.gain(m, x: x, y: y, 0.25) - 2) < 1e-6) }
    }

    @Test func applyRowUsesAbsolutePositionsAndPins() throws {
        let m = try Self.affineMap()
        let s = ProfileGainTableMap.Sampler(map: m, imageWidth: 10, imageHeight: 6, weightScale: 1)
        // Pixels 3…6 of row 2 as a run starting at x = 3 equal the same pixels one by one.
        var r: [Float] = [0.1, 0.2, 0.3, 0.9], g: [Float] = [0.1, 0.1, 0.1, 0.9], b: [Float] = [0, 0, 0, 0.9]
        let expected = (0..<4).map { i in min(r[i] * Self.gain(m, x: 3 + i, y: 2, r[i], g[i], b[i]), 1) }
        r.withUnsafeMutableBufferPointer { rp in g.withUnsafeMutableBufferPointer { gp in b.withUnsafeMutableBufferPointer { bp in
            s.applyRow(rp.baseAddress!, gp.baseAddress!, bp.baseAddress!, count: 4, x: 3, y: 2)
        } } }
        for i in 0..<4 { #expect(abs(r[i] - expected[i]) < 1e-6) }
        #expect(r[3] == 1)   // 0.9 × ~2.7 pinned to 1
    }

    /// The eight-lane kernel gives bit for bit the scalar gain, for every start column (so how a
    /// row splits into groups of eight cannot change a pixel), with and without gamma, including
    /// lanes beyond the image edge.
    @Test(arguments: [Float(1), 2.2])
    func eightLanesEqualTheScalarGain(gamma: Float) throws {
        let m = try Self.affineMap(weights: [0.2, 0.3, 0.1, 0.15, 0.25], gamma: gamma)
        let s = ProfileGainTableMap.Sampler(map: m, imageWidth: 10, imageHeight: 6, weightScale: 1.3)
        for y in 0..<6 {
            for x0 in -3..<8 {
                var r = SIMD8<Float>(), g = r, b = r
                for l in 0..<8 {
                    r[l] = Float((x0 + 3 * l + y) % 7) / 6; g[l] = Float((l * 5 + y) % 9) / 8; b[l] = l == 3 ? 0 : 0.37
                }
                let v = m.gains.withUnsafeBufferPointer { s.gain8($0, row: s.row(y), x: x0, r: r, g: g, b: b) }
                for l in 0..<8 {
                    let scalar = m.gain(x: x0 + l, y: y, width: 10, height: 6, r: r[l], g: g[l], b: b[l], weightScale: 1.3)
                    #expect(v[l] == scalar, "x \(x0 + l) y \(y)")
                }
            }
        }
    }

    /// JSON (metadata sent to batch workers, `info --json`) round-trips, and decoding runs the
    /// same checks as reading a file.
    @Test func codableRoundTripAndCheckedDecoding() throws {
        let m = try Self.affineMap(gamma: 2.2)
        let json = try JSONEncoder().encode(m)
        #expect(try JSONDecoder().decode(ProfileGainTableMap.self, from: json) == m)
        let bad = try #require(String(data: json, encoding: .utf8)).replacingOccurrences(of: "\"pointsN\":4", with: "\"pointsN\":5")
        #expect(bad != String(data: json, encoding: .utf8))
        #expect(throws: ProfileGainTableMap.Invalid.gainCount(found: 24, expected: 30)) {
            try JSONDecoder().decode(ProfileGainTableMap.self, from: Data(bad.utf8))
        }
    }

    @Test func integerEncodingsFollowGainMinMax() {
        // Spec example: GainMin 0.7, GainMax 2.3, 8-bit: 0 → 0.7, 255 → 2.3; 51 → 0.7 + 0.2 · 1.6.
        let u8 = ProfileGainTableMap.DataType.unsigned8, u16 = ProfileGainTableMap.DataType.unsigned16
        #expect(abs(ProfileGainTableMap.decode(stored: 0, dataType: u8, gainMin: 0.7, gainMax: 2.3) - 0.7) < 1e-6)
        #expect(abs(ProfileGainTableMap.decode(stored: 255, dataType: u8, gainMin: 0.7, gainMax: 2.3) - 2.3) < 1e-6)
        #expect(abs(ProfileGainTableMap.decode(stored: 51, dataType: u8, gainMin: 0.7, gainMax: 2.3) - 1.02) < 1e-6)
        #expect(abs(ProfileGainTableMap.decode(stored: 65535, dataType: u16, gainMin: 1, gainMax: 4) - 4) < 1e-6)
        #expect(abs(ProfileGainTableMap.decode(stored: 13107, dataType: u16, gainMin: 1, gainMax: 4) - 1.6) < 1e-6)
    }

    @Test func hostileMapsAreRefused() {
        func make(v: UInt32 = 1, h: UInt32 = 1, n: UInt32 = 2, spacing: Double = 0.5, origin: Double = 0,
                  weights: [Float] = [1, 0, 0, 0, 0], gamma: Float = 1, gainMin: Float = 1, gainMax: Float = 1,
                  gains: [Float]? = nil) throws(ProfileGainTableMap.Invalid) {
            let count = v < 100 && h < 100 && n < 100 ? Int(v) * Int(h) * Int(n) : 1
            _ = try ProfileGainTableMap(pointsV: v, pointsH: h, spacingV: spacing, spacingH: spacing, originV: origin,
                                        originH: origin, pointsN: n, inputWeights: weights, gamma: gamma,
                                        gainMin: gainMin, gainMax: gainMax,
                                        gains: gains ?? [Float](repeating: 1, count: min(count, 64)))
        }
        #expect(throws: ProfileGainTableMap.Invalid.gridSize(pointsV: 0, pointsH: 1, pointsN: 2)) { try make(v: 0) }
        #expect(throws: ProfileGainTableMap.Invalid.gridSize(pointsV: 1, pointsH: 1, pointsN: 0)) { try make(n: 0) }
        // (2^32 − 1)² overflows Int (reported as Int.max); 4096² is exactly the 2^24 limit.
        #expect(throws: ProfileGainTableMap.Invalid.tooManyPoints(Int.max)) { try make(v: .max, h: .max, n: .max) }
        #expect(throws: ProfileGainTableMap.Invalid.tooManyPoints(1 << 24)) { try make(v: 4096, h: 4096, n: 1) }
        #expect(throws: ProfileGainTableMap.Invalid.self) { try make(v: 2, h: 2, spacing: 0) }
        #expect(throws: ProfileGainTableMap.Invalid.self) { try make(v: 2, h: 2, spacing: -0.5) }
        #expect(throws: ProfileGainTableMap.Invalid.self) { try make(v: 2, h: 2, spacing: .nan) }
        #expect(throws: ProfileGainTableMap.Invalid.self) { try make(v: 2, h: 2, spacing: 1e-300) }   // 0 in Float
        #expect(throws: ProfileGainTableMap.Invalid.self) { try make(v: 2, h: 2, origin: .infinity) }
        #expect(throws: ProfileGainTableMap.Invalid.weights([1, 0, 0, 0])) { try make(weights: [1, 0, 0, 0]) }
        #expect(throws: ProfileGainTableMap.Invalid.self) { try make(weights: [1, .nan, 0, 0, 0]) }
        #expect(throws: ProfileGainTableMap.Invalid.gamma(0.1)) { try make(gamma: 0.1) }
        #expect(throws: ProfileGainTableMap.Invalid.gamma(9)) { try make(gamma: 9) }
        #expect(throws: ProfileGainTableMap.Invalid.self) { try make(gamma: .nan) }
        #expect(throws: ProfileGainTableMap.Invalid.gainRange(min: 0, max: 1)) { try make(gainMin: 0) }
        #expect(throws: ProfileGainTableMap.Invalid.gainRange(min: 1, max: 5000)) { try make(gainMax: 5000) }
        #expect(throws: ProfileGainTableMap.Invalid.gainCount(found: 3, expected: 2)) { try make(gains: [1, 1, 1]) }
        #expect(throws: ProfileGainTableMap.Invalid.gain(0, row: 0, column: 0, entry: 1)) { try make(gains: [1, 0]) }
        #expect(throws: ProfileGainTableMap.Invalid.self) { try make(gains: [.nan, 1]) }
        #expect(throws: ProfileGainTableMap.Invalid.self) { try make(gains: [1, .infinity]) }
        #expect(throws: ProfileGainTableMap.Invalid.gain(4097, row: 0, column: 0, entry: 0)) { try make(gains: [4097, 1]) }
        // The limits themselves are accepted.
        #expect(throws: Never.self) { try make(gamma: 0.125, gainMin: 1.0 / 4096, gainMax: 4096, gains: [1.0 / 4096, 4096]) }
        #expect(throws: Never.self) { try make(gamma: 8) }
    }
}
