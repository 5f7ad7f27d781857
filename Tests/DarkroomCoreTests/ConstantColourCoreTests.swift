@testable import DarkroomCore
import Foundation
import Testing

/// The constant-colour building blocks on synthetic data with exact expectations.
@Suite("ConstantColour core")
struct ConstantColourCoreTests {
    /// Box means equal a brute-force sum over the clipped window, with and without weights, for
    /// several sizes, radii and thread counts.
    @Test(arguments: [(1, 1, 0), (7, 5, 1), (13, 9, 3), (31, 4, 15)])
    func boxFilterMatchesBruteForce(_ size: (Int, Int, Int)) {
        let (w, h, r) = size
        let plane = (0..<(w * h)).map { Float(($0 * 37) % 101) / 7 }
        let weight = (0..<(w * h)).map { Float(($0 * 13) % 3) }
        for threads in [1, 3] {
            let got = BoxFilter.weightedMean(plane, weight: weight, width: w, height: h, radius: r, threads: threads)
            for y in 0..<h { for x in 0..<w {
                var sv = 0.0, sw = 0.0
                for yy in max(0, y - r)...min(h - 1, y + r) { for xx in max(0, x - r)...min(w - 1, x + r) {
                    sv += Double(plane[yy * w + xx] * weight[yy * w + xx]); sw += Double(weight[yy * w + xx])
                } }
                let want = sw > 0 ? sv / sw : 0
                #expect(abs(Double(got[y * w + x]) - want) < 1e-4 * max(1, abs(want)), "\(w)x\(h) r\(r) (\(x),\(y))")
            }}
        }
    }

    /// A textured frame and the same frame shifted by (dx, dy) and lit 3× brighter plus an
    /// offset: registration finds the shift exactly, the residual is small, and larger when
    /// registration is off.
    @Test(arguments: [(0, 0), (3, 0), (-2, 5), (7, -6)])
    func registrationFindsTheShift(_ shift: (Int, Int)) {
        let w = 96, h = 64
        func scene(_ x: Int, _ y: Int) -> Float {
            let cell = ((x / 6) * 7 + (y / 5) * 13) % 11
            return 0.05 + Float(cell) / 15 + 0.02 * Float((x * y) % 5)
        }
        let ambient = (0..<(w * h)).map { scene($0 % w, $0 / w) }
        // Flash pixel (x + dx, y + dy) shows ambient pixel (x, y).
        let flash = (0..<(w * h)).map { i -> Float in
            let x = i % w - shift.0, y = i / w - shift.1
            return 3 * scene(min(max(x, 0), w - 1), min(max(y, 0), h - 1)) + 0.01
        }
        let r = FrameRegistration.register(ambient: ambient, flash: flash, width: w, height: h, maxShift: 8)
        #expect(r.dx == shift.0 && r.dy == shift.1)
        #expect(r.residual < 0.2)
        if shift != (0, 0) {
            let off = FrameRegistration.register(ambient: ambient, flash: flash, width: w, height: h, maxShift: 0)
            #expect(off.residual > r.residual + 0.2)
        }
    }

    /// A flat grey material under a reddish ambient light and a neutral flash (camera = XYZ, an
    /// identity profile at D50): the result is the flash's (neutral) colour at the ambient's
    /// luminance, confidence follows ρ/(ρ + ½) with a noise-free frame, and the exposure scale
    /// is honoured.
    @Test func flatPairGivesTheFlashColourAtAmbientLuminance() throws {
        let w = 24, h = 16, n = w * h
        let ambientLight = SIMD3<Float>(0.6, 0.3, 0.1)   // camera RGB of the grey under the ambient light
        let flashLight = SIMD3<Float>(0.2, 0.2, 0.2)     // … under the flash (neutral)
        let k: Float = 0.5
        func planar(_ v: SIMD3<Float>) -> [Float] { (0..<3).flatMap { c in [Float](repeating: v[c], count: n) } }
        let noNoise: [(scale: Double, offset: Double)] = Array(repeating: (1e-12, 1e-14), count: 3)
        let a = ConstantColourFrame(width: w, height: h, rgb: planar(ambientLight), clipped: [UInt8](repeating: 0, count: n), noise: noNoise)
        let f = ConstantColourFrame(width: w, height: h, rgb: planar(ambientLight * k + flashLight), clipped: [UInt8](repeating: 0, count: n), noise: noNoise)
        let input = ConstantColourSolver.Input(ambient: a, flash: f, ambientScale: Double(k), flashCameraToXYZD50: .identity, ambientCameraToXYZD50: .identity)
        var exact = ConstantColourParameters()
        exact.ambientScaleUncertainty = 0  // noise-free and exact exposures: no predicted error
        let r = try ConstantColourSolver.solve(input, parameters: exact)
        // Expected: XYZ D50 ∝ (1, 1, 1) scaled to the ambient's Y (0.3), Bradford to D65.
        let want = ColorMath.bradford(from: ColorMath.d50, to: ColorMath.d65) * SIMD3<Double>(0.3, 0.3, 0.3)
        for i in [0, n / 2 + w / 2, n - 1] {
            for c in 0..<3 { #expect(abs(Double(r.xyzD65[3 * i + c]) - want[c]) < 1e-5) }
        }
        // ρ = Y(flash-only) / (k · Y(ambient)) = 0.2 / 0.15; terms: ratio, error ≈ 1, registration 1.
        let rho = 0.2 / 0.15
        #expect(r.confidence.allSatisfy { abs(Int($0) - Int((255 * rho / (rho + 0.5)).rounded())) <= 1 })
        #expect(abs(r.medianFlashRatio - rho) < 1e-4)
        #expect(r.registration.dx == 0 && r.registration.dy == 0)
        // Clipped pixels get 0; a zero or negative exposure scale is refused.
        var clipped = [UInt8](repeating: 0, count: n); clipped[5] = 1
        let c = try ConstantColourSolver.solve(.init(ambient: ConstantColourFrame(width: w, height: h, rgb: a.rgb, clipped: clipped, noise: noNoise),
                                                     flash: f, ambientScale: Double(k), flashCameraToXYZD50: .identity, ambientCameraToXYZD50: .identity),
                                               parameters: exact)
        #expect(c.confidence[5] == 0 && c.confidence[6] > 0)
        #expect(throws: ConstantColourSolver.Failure.badExposureScale(0)) {
            try ConstantColourSolver.solve(.init(ambient: a, flash: f, ambientScale: 0, flashCameraToXYZD50: .identity, ambientCameraToXYZD50: .identity))
        }
    }

    /// The predicted error equals the CIEDE2000 (Sharma-tested `ColorMath.ciede2000`) of the
    /// perturbation it linearises — an output XYZ moved by a 1 % change of one camera channel (or
    /// a mixed bias), luminance matched — within 3 % (first-order error), and noise and bias add
    /// in quadrature.
    @Test(arguments: [SIMD3<Double>(0.20, 0.18, 0.10), SIMD3<Double>(0.45, 0.40, 0.42), SIMD3<Double>(0.10, 0.15, 0.30)])
    func predictedDeltaEMatchesCIEDE2000(_ xyzD65: SIMD3<Double>) {
        // A camera whose channels map to XYZ through a fixed matrix; C = the camera values of xyzD65.
        let m = Matrix3(rows: SIMD3(0.6, 0.3, 0.1), SIMD3(0.25, 0.7, 0.05), SIMD3(0.02, 0.1, 0.95))
        guard let inv = m.inverse else { Issue.record("singular"); return }
        let cam = inv * xyzD65
        let cols = (0..<3).map { c in SIMD3<Float>(Float(m.m[c]), Float(m.m[3 + c]), Float(m.m[6 + c])) * Float(cam[c]) }
        let xyz = SIMD3<Float>(Float(xyzD65.x), Float(xyzD65.y), Float(xyzD65.z))
        func measured(_ e: SIMD3<Double>) -> Double {
            let moved = m * (cam * (1 + e))
            let s = moved.x + moved.y + moved.z
            let matched = ColorMath.xyToXYZ(Chromaticity(x: moved.x / s, y: moved.y / s), Y: xyzD65.y)
            return ColorMath.ciede2000(ColorMath.xyzToLab(matched, white: ColorMath.d65), ColorMath.xyzToLab(xyzD65, white: ColorMath.d65))
        }
        for c in 0..<3 {
            var sigma = SIMD3<Float>(0, 0, 0); sigma[c] = 0.01
            var e = SIMD3<Double>(0, 0, 0); e[c] = 0.01
            let predicted = Double(ConstantColourSolver.predictedDeltaE(xyz: xyz, columns: (cols[0], cols[1], cols[2]), sigma: sigma, beta: .zero))
            let want = measured(e)
            #expect(abs(predicted - want) <= 0.03 * want + 1e-3, "channel \(c): predicted \(predicted), CIEDE2000 \(want)")
        }
        let beta = SIMD3<Float>(0.02, 0.01, 0.03)
        let bias = Double(ConstantColourSolver.predictedDeltaE(xyz: xyz, columns: (cols[0], cols[1], cols[2]), sigma: .zero, beta: beta))
        let want = measured(SIMD3(0.02, 0.01, 0.03))
        #expect(abs(bias - want) <= 0.03 * want + 1e-3, "bias: predicted \(bias), CIEDE2000 \(want)")
        let both = Double(ConstantColourSolver.predictedDeltaE(xyz: xyz, columns: (cols[0], cols[1], cols[2]), sigma: SIMD3(0.01, 0, 0), beta: beta))
        let noise = Double(ConstantColourSolver.predictedDeltaE(xyz: xyz, columns: (cols[0], cols[1], cols[2]), sigma: SIMD3(0.01, 0, 0), beta: .zero))
        #expect(abs(both - (noise * noise + bias * bias).squareRoot()) < 1e-4)
    }

    /// The confidence falls monotonically as the flash weakens against a coloured ambient light
    /// (the ambient uncertainty's bias grows as 1/ρ), and equals the product of its terms.
    @Test func confidenceFallsWithTheFlashRatio() throws {
        let w = 24, h = 16, n = w * h
        let ambientLight = SIMD3<Float>(0.6, 0.3, 0.1)
        let noNoise: [(scale: Double, offset: Double)] = Array(repeating: (1e-12, 1e-14), count: 3)
        func planar(_ v: SIMD3<Float>) -> [Float] { (0..<3).flatMap { c in [Float](repeating: v[c], count: n) } }
        var last = 256
        for flash: Float in [0.4, 0.2, 0.1, 0.05, 0.02] {
            let a = ConstantColourFrame(width: w, height: h, rgb: planar(ambientLight), clipped: [UInt8](repeating: 0, count: n), noise: noNoise)
            let f = ConstantColourFrame(width: w, height: h, rgb: planar(ambientLight * 0.5 + SIMD3(repeating: flash)), clipped: [UInt8](repeating: 0, count: n), noise: noNoise)
            let r = try ConstantColourSolver.solve(.init(ambient: a, flash: f, ambientScale: 0.5, flashCameraToXYZD50: .identity, ambientCameraToXYZD50: .identity))
            let c = Int(r.confidence[n / 2 + w / 2])
            let rho = Double(flash) / 0.15, de = Double(r.predictedDeltaE[n / 2 + w / 2])
            let want = 255 * rho / (rho + 0.5) / (1 + (de / 2) * (de / 2))
            #expect(abs(Double(c) - want) <= 1, "flash \(flash): \(c) vs \(want)")
            #expect(de > 0 && c < last, "flash \(flash)")
            last = c
        }
    }
}
