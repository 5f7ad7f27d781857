import Testing
@testable import DarkroomCore

@Suite("ColorMath")
struct ColorMathTests {
    /// Sharma, Wu & Dalal (2005), Table 1: the 34 published CIEDE2000 test pairs.
    static let sharma: [(SIMD3<Double>, SIMD3<Double>, Double)] = [
        (SIMD3(50.0000, 2.6772, -79.7751), SIMD3(50.0000, 0.0000, -82.7485), 2.0425),
        (SIMD3(50.0000, 3.1571, -77.2803), SIMD3(50.0000, 0.0000, -82.7485), 2.8615),
        (SIMD3(50.0000, 2.8361, -74.0200), SIMD3(50.0000, 0.0000, -82.7485), 3.4412),
        (SIMD3(50.0000, -1.3802, -84.2814), SIMD3(50.0000, 0.0000, -82.7485), 1.0000),
        (SIMD3(50.0000, -1.1848, -84.8006), SIMD3(50.0000, 0.0000, -82.7485), 1.0000),
        (SIMD3(50.0000, -0.9009, -85.5211), SIMD3(50.0000, 0.0000, -82.7485), 1.0000),
        (SIMD3(50.0000, 0.0000, 0.0000), SIMD3(50.0000, -1.0000, 2.0000), 2.3669),
        (SIMD3(50.0000, -1.0000, 2.0000), SIMD3(50.0000, 0.0000, 0.0000), 2.3669),
        (SIMD3(50.0000, 2.4900, -0.0010), SIMD3(50.0000, -2.4900, 0.0009), 7.1792),
        (SIMD3(50.0000, 2.4900, -0.0010), SIMD3(50.0000, -2.4900, 0.0010), 7.1792),
        (SIMD3(50.0000, 2.4900, -0.0010), SIMD3(50.0000, -2.4900, 0.0011), 7.2195),
        (SIMD3(50.0000, 2.4900, -0.0010), SIMD3(50.0000, -2.4900, 0.0012), 7.2195),
        (SIMD3(50.0000, -0.0010, 2.4900), SIMD3(50.0000, 0.0009, -2.4900), 4.8045),
        (SIMD3(50.0000, -0.0010, 2.4900), SIMD3(50.0000, 0.0010, -2.4900), 4.8045),
        (SIMD3(50.0000, -0.0010, 2.4900), SIMD3(50.0000, 0.0011, -2.4900), 4.7461),
        (SIMD3(50.0000, 2.5000, 0.0000), SIMD3(50.0000, 0.0000, -2.5000), 4.3065),
        (SIMD3(50.0000, 2.5000, 0.0000), SIMD3(73.0000, 25.0000, -18.0000), 27.1492),
        (SIMD3(50.0000, 2.5000, 0.0000), SIMD3(61.0000, -5.0000, 29.0000), 22.8977),
        (SIMD3(50.0000, 2.5000, 0.0000), SIMD3(56.0000, -27.0000, -3.0000), 31.9030),
        (SIMD3(50.0000, 2.5000, 0.0000), SIMD3(58.0000, 24.0000, 15.0000), 19.4535),
        (SIMD3(50.0000, 2.5000, 0.0000), SIMD3(50.0000, 3.1736, 0.5854), 1.0000),
        (SIMD3(50.0000, 2.5000, 0.0000), SIMD3(50.0000, 3.2972, 0.0000), 1.0000),
        (SIMD3(50.0000, 2.5000, 0.0000), SIMD3(50.0000, 1.8634, 0.5757), 1.0000),
        (SIMD3(50.0000, 2.5000, 0.0000), SIMD3(50.0000, 3.2592, 0.3350), 1.0000),
        (SIMD3(60.2574, -34.0099, 36.2677), SIMD3(60.4626, -34.1751, 39.4387), 1.2644),
        (SIMD3(63.0109, -31.0961, -5.8663), SIMD3(62.8187, -29.7946, -4.0864), 1.2630),
        (SIMD3(61.2901, 3.7196, -5.3901), SIMD3(61.4292, 2.2480, -4.9620), 1.8731),
        (SIMD3(35.0831, -44.1164, 3.7933), SIMD3(35.0232, -40.0716, 1.5901), 1.8645),
        (SIMD3(22.7233, 20.0904, -46.6940), SIMD3(23.0331, 14.9730, -42.5619), 2.0373),
        (SIMD3(36.4612, 47.8580, 18.3852), SIMD3(36.2715, 50.5065, 21.2231), 1.4146),
        (SIMD3(90.8027, -2.0831, 1.4410), SIMD3(91.1528, -1.6435, 0.0447), 1.4441),
        (SIMD3(90.9257, -0.5406, -0.9208), SIMD3(88.6381, -0.8985, -0.7239), 1.5381),
        (SIMD3(6.7747, -0.2908, -2.4247), SIMD3(5.8714, -0.0985, -2.2286), 0.6377),
        (SIMD3(2.0776, 0.0795, -1.1350), SIMD3(0.9033, -0.0636, -0.5514), 0.9082),
    ]

    @Test("CIEDE2000 matches Sharma 2005's 34 published pairs to 4 decimals")
    func ciede2000Sharma() {
        #expect(Self.sharma.count == 34)
        for (i, (a, b, expected)) in Self.sharma.enumerated() {
            let d = ColorMath.ciede2000(a, b)
            #expect(abs(d - expected) < 0.00005 + 1e-9, "pair \(i + 1): \(d) vs \(expected)")
            #expect(abs(ColorMath.ciede2000(b, a) - d) < 1e-12, "pair \(i + 1) symmetry")
        }
        #expect(ColorMath.ciede2000(SIMD3(42, -3, 17), SIMD3(42, -3, 17)) == 0)
    }

    @Test("Lab round trips and anchors", arguments: [ColorMath.d50, ColorMath.d65, ColorMath.illuminantA])
    func labRoundTrip(white: Chromaticity) {
        let w = ColorMath.xyToXYZ(white)
        let lw = ColorMath.xyzToLab(w, white: white)
        #expect(abs(lw.x - 100) < 1e-9 && abs(lw.y) < 1e-9 && abs(lw.z) < 1e-9)
        #expect(ColorMath.xyzToLab(SIMD3(0, 0, 0), white: white) == SIMD3(0, 0, 0))
        for xyz in [SIMD3(0.2, 0.18, 0.1), SIMD3(0.9, 0.95, 1.05), SIMD3(0.001, 0.0008, 0.0012),
                    SIMD3(0.0002, 0.0002, 0.0002), SIMD3(0.5, 0.3, 0.02)] {
            let back = ColorMath.labToXYZ(ColorMath.xyzToLab(xyz, white: white), white: white)
            #expect(abs(back - xyz).max() < 1e-12, "\(xyz) → \(back)")
        }
        // 18 % grey: L* = 49.496 (CIE formula).
        #expect(abs(ColorMath.xyzToLab(0.18 * w, white: white).x - 49.4961) < 1e-4)
    }

    @Test("Bradford D65→D50 matches Lindbloom's published matrix to 1e-4")
    func bradfordLindbloom() {
        let m = ColorMath.bradford(from: ColorMath.d65, to: ColorMath.d50)
        let lindbloom = [1.0478112, 0.0228866, -0.0501270,
                         0.0295424, 0.9904844, -0.0170491,
                         -0.0092345, 0.0150436, 0.7521316]
        for i in 0..<9 { #expect(abs(m.m[i] - lindbloom[i]) < 1e-4, "element \(i): \(m.m[i])") }
        // Maps white to white exactly, and inverts its reverse.
        let d50 = m * ColorMath.xyToXYZ(ColorMath.d65)
        #expect(abs(d50 - ColorMath.xyToXYZ(ColorMath.d50)).max() < 1e-12)
        let round = ColorMath.bradford(from: ColorMath.d50, to: ColorMath.d65) * m
        for i in 0..<9 { #expect(abs(round.m[i] - Matrix3.identity.m[i]) < 1e-12) }
        #expect(ColorMath.bradford(from: ColorMath.d50, to: ColorMath.d50) == .identity)
    }

    @Test("Robertson CCT: D65 ≈ 6504 K, A ≈ 2856 K, D50 ≈ 5003 K")
    func robertsonAnchors() {
        let d65 = ColorMath.xyToTemperatureTint(ColorMath.d65)
        #expect(abs(d65.kelvin - 6504) < 2, "\(d65)")
        let a = ColorMath.xyToTemperatureTint(ColorMath.illuminantA)
        #expect(abs(a.kelvin - 2856) < 2, "\(a)")
        #expect(abs(a.tint) < 1, "A is on the Planckian locus: \(a)")
        let d50 = ColorMath.xyToTemperatureTint(ColorMath.d50)
        #expect(abs(d50.kelvin - 5003) < 2, "\(d50)")
        // Daylight lies above the Planckian locus: greenish, positive tint in the DNG convention.
        #expect(d65.tint > 0 && d50.tint > 0, "\(d65) \(d50)")
    }

    @Test("temperatureTintToXY inverts xyToTemperatureTint", arguments: [1700.0, 2000, 2856, 3200, 4500, 5003, 6504, 7500, 10000, 25000])
    func robertsonInverse(kelvin: Double) {
        for tint in [-60.0, -10, 0, 10, 60] {
            let xy = ColorMath.temperatureTintToXY(kelvin: kelvin, tint: tint)
            let back = ColorMath.xyToTemperatureTint(xy)
            let xy2 = ColorMath.temperatureTintToXY(kelvin: back.kelvin, tint: back.tint)
            #expect(abs(xy2.x - xy.x) < 1e-5 && abs(xy2.y - xy.y) < 1e-5)
            #expect(abs(back.kelvin - kelvin) / kelvin < 1e-6, "\(kelvin) K tint \(tint) → \(back)")
            #expect(abs(back.tint - tint) < 1e-5)
        }
    }

    @Test("xy ↔ XYZ")
    func xyXYZ() {
        let v = ColorMath.xyToXYZ(ColorMath.d50)
        #expect(abs(v.x - 0.964212) < 1e-6 && v.y == 1 && abs(v.z - 0.825188) < 1e-6, "\(v)")
        let c = ColorMath.xyzToXY(0.3 * v)
        #expect(abs(c.x - ColorMath.d50.x) < 1e-15 && abs(c.y - ColorMath.d50.y) < 1e-15)
        #expect(ColorMath.xyzToXY(SIMD3(0, 0, 0)) == ColorMath.d50)
    }

    @Test("EXIF LightSource whites")
    func lightSources() {
        #expect(ColorMath.lightSourceWhite(0) == nil)
        #expect(ColorMath.lightSourceWhite(255) == nil)
        #expect(ColorMath.lightSourceWhite(17) == ColorMath.illuminantA)
        #expect(ColorMath.lightSourceWhite(21) == ColorMath.d65)
        #expect(ColorMath.lightSourceWhite(23) == ColorMath.d50)
        // Nominal CCTs of each defined code are in the right neighbourhood.
        let expected: [Int: ClosedRange<Double>] = [
            1: 5400...5600, 2: 4100...4300, 3: 2800...2900, 4: 5400...5600, 9: 5400...5600, 10: 6400...6600,
            11: 7400...7600, 12: 6300...6500, 13: 4900...5100, 14: 4100...4300, 15: 3350...3550,
            16: 2850...3050, 17: 2800...2900, 18: 4800...4900, 19: 6700...6800, 20: 5450...5550,
            21: 6450...6550, 22: 7450...7550, 23: 4950...5050, 24: 3195...3205,
        ]
        for (code, range) in expected {
            guard let w = ColorMath.lightSourceWhite(code) else { Issue.record("code \(code) missing"); continue }
            let k = ColorMath.xyToTemperatureTint(w).kelvin
            #expect(range.contains(k), "code \(code): \(k) K")
        }
    }
}

func abs(_ v: SIMD3<Double>) -> SIMD3<Double> { SIMD3(Swift.abs(v.x), Swift.abs(v.y), Swift.abs(v.z)) }
