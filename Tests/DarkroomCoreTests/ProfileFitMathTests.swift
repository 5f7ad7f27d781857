import DarkroomCore
import Foundation
import Testing

/// The maths under `profile fit`: Nelder–Mead, the constrained least squares, and the matrix fit
/// on a Luther camera (camera RGB an exact 3 × 3 transform of XYZ), where the fit must recover the
/// camera's matrix and reproduce the chart to the matrices' 1e-4 rounding.
@Suite("Profile fit maths")
struct ProfileFitMathTests {
    /// Rosenbrock's valley, the classic test of a minimiser: minimum 0 at (1, 1).
    @Test func nelderMeadFindsRosenbrocksMinimum() {
        let r = NelderMead.minimise({ p in pow(1 - p[0], 2) + 100 * pow(p[1] - p[0] * p[0], 2) }, start: [-1.2, 1], step: 0.1,
                                    maximumIterations: 5000, tolerance: 1e-16)
        #expect(abs(r.point[0] - 1) < 1e-4 && abs(r.point[1] - 1) < 1e-4, "\(r.point)")
        #expect(r.value < 1e-8)
        // Deterministic.
        let again = NelderMead.minimise({ p in pow(1 - p[0], 2) + 100 * pow(p[1] - p[0] * p[0], 2) }, start: [-1.2, 1], step: 0.1,
                                        maximumIterations: 5000, tolerance: 1e-16)
        #expect(again == r)
    }

    /// The constraint holds exactly; with consistent data the constrained and plain solutions agree.
    @Test func constrainedLeastSquaresKeepsTheConstraint() throws {
        let truth = SIMD3<Double>(0.7, -0.2, 0.5)
        let a: [SIMD3<Double>] = (0..<10).map { (i: Int) -> SIMD3<Double> in
            let x = Double(i % 3) + 0.3, y = Double(i % 4) * 0.5 + 0.1, z = sin(Double(i)) + 1.2
            return SIMD3(x, y, z)
        }
        let b = a.map { ($0 * truth).sum() }
        let c = SIMD3<Double>(1, 1, 1)
        let exact = try #require(ProfileMatrixFit.constrainedLeastSquares(a, b, constraint: c, equals: (c * truth).sum()))
        #expect(abs(exact.x - truth.x) < 1e-9 && abs(exact.y - truth.y) < 1e-9 && abs(exact.z - truth.z) < 1e-9)
        let forced = try #require(ProfileMatrixFit.constrainedLeastSquares(a, b, constraint: c, equals: 2))
        #expect(abs((forced * c).sum() - 2) < 1e-12)
        #expect(ProfileMatrixFit.constrainedLeastSquares([a[0], a[0]], [1, 1], constraint: c, equals: 1) == nil)   // rank 1
    }

    /// A Luther camera under D65 (camera = M · XYZ): ColorMatrix ∝ M, and the chart reproduced
    /// within the 1e-4 rounding of the matrices (mean ΔE2000 < 0.02).
    @Test func lutherCameraIsRecovered() throws {
        let m = Matrix3([0.9, 0.25, -0.1, -0.3, 1.2, 0.1, 0.05, -0.2, 0.8])
        let d65 = Spectral.d65
        let white = Spectral.chromaticity(d65)
        let toD50 = ColorMath.bradford(from: white, to: ColorMath.d50)
        let patches = (0..<24).map { i -> ProfileMatrixFit.Observation in
            let xyz = Spectral.xyz(reflectance: ColorCheckerClassic.reflectance(i), illuminant: d65)
            return ProfileMatrixFit.Observation(cameraRGB: 0.7 * (m * xyz), referenceXYZD50: toD50 * xyz)
        }
        let r = try ProfileMatrixFit.fit(patches, white: white)
        let w = ColorMath.xyToXYZ(white)
        let scale = 1 / (m * w).max()
        for (a, b) in zip(r.colorMatrix.m, (scale * m).m) { #expect(abs(a - b) < 2e-3, "\(r.colorMatrix) vs \(scale * m)") }
        let mean = r.fittedDeltaE.reduce(0, +) / 24
        #expect(mean < 0.02 && (r.fittedDeltaE.max() ?? 1) < 0.06, "mean \(mean), max \(r.fittedDeltaE.max() ?? 0)")
        #expect(abs(r.exposure - 0.7 * (m * w).max()) < 0.02)
        #expect(r.whitePatch == 18 && r.neutralPatches.contains(18))
        // FM · (1, 1, 1) = D50 to the rounding.
        let d50 = ColorMath.xyToXYZ(ColorMath.d50)
        let row = try #require(r.forwardMatrix) * SIMD3(1, 1, 1)
        #expect(abs(row.x - d50.x) < 3e-4 && abs(row.y - d50.y) < 3e-4 && abs(row.z - d50.z) < 3e-4)
        // ColorMatrix only: the same matrix, the chart reproduced as well.
        let c = try ProfileMatrixFit.fit(patches, white: white, forwardMatrix: false)
        #expect(c.forwardMatrix == nil)
        for (a, b) in zip(c.colorMatrix.m, (scale * m).m) { #expect(abs(a - b) < 2e-3) }
        #expect(c.fittedDeltaE.reduce(0, +) / 24 < 0.02)
    }

    /// Too few usable patches, or none neutral, are errors with a reason.
    @Test func unusableChartsAreErrors() {
        let grey = ProfileMatrixFit.Observation(cameraRGB: SIMD3(0.2, 0.2, 0.2), referenceXYZD50: ColorMath.xyToXYZ(ColorMath.d50) * 0.2)
        #expect(throws: ProfileMatrixFit.Failure.tooFewPatches(usable: 2)) { try ProfileMatrixFit.fit([grey, grey], white: ColorMath.d50) }
        let red = ProfileMatrixFit.Observation(cameraRGB: SIMD3(0.5, 0.1, 0.1), referenceXYZD50: SIMD3(0.3, 0.2, 0.05))
        #expect(throws: ProfileMatrixFit.Failure.noNeutralPatch) { try ProfileMatrixFit.fit([red, red, red, red], white: ColorMath.d50) }
    }
}
