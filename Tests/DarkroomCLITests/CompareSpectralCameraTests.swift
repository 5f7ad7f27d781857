import DarkroomCore
@testable import DarkroomIO
import DarkroomTestSupport
import Foundation
import Testing

/// `darkroom compare` on a non-Luther camera: the NPL-measured Nikon D5100 sensitivities
/// photographing the ColorChecker's spectra (`CameraSensitivities`), with ColorMatrix1/2 fitted by
/// least squares under A and D65. No 3 × 3 matrix is exact for it, so compare reports real
/// profile error — which must equal an independent computation in the test.
@Suite("Compare spectral camera")
struct CompareSpectralCameraTests {
    /// Raw response of patch `i` (or the perfect diffuser for nil) under `illuminant`.
    typealias Sensitivities = (red: SampledSpectrum, green: SampledSpectrum, blue: SampledSpectrum)
    static func response(_ i: Int?, _ illuminant: SampledSpectrum, camera: Sensitivities = CameraSensitivities.nikonD5100) -> SIMD3<Double> {
        let r = i.map(ColorCheckerClassic.reflectance) ?? SampledSpectrum(values: [Double](repeating: 1, count: 81))
        return CameraSensitivities.response(camera, reflectance: r, illuminant: illuminant)
    }

    /// The least-squares XYZ → camera matrix over `patches` (default all 24; XYZ under the illuminant itself).
    static func fitColorMatrix(_ illuminant: SampledSpectrum, patches: [Int] = Array(0..<24),
                               camera: Sensitivities = CameraSensitivities.nikonD5100) -> Matrix3 {
        var a = Matrix3([0, 0, 0, 0, 0, 0, 0, 0, 0])
        var b = [SIMD3<Double>](repeating: .zero, count: 3)
        for i in patches {
            let xyz = Spectral.xyz(reflectance: ColorCheckerClassic.reflectance(i), illuminant: illuminant)
            let cam = response(i, illuminant, camera: camera)
            for r in 0..<3 { for c in 0..<3 { a[r, c] += xyz[r] * xyz[c] } }
            for ch in 0..<3 { b[ch] += xyz * cam[ch] }
        }
        let inv = a.inverse ?? .identity
        let rows = b.map { inv * $0 }
        return Matrix3(rows: rows[0], rows[1], rows[2])
    }

    static func q(_ m: Matrix3) -> Matrix3 { Matrix3(m.m.map { ($0 * 10000).rounded() / 10000 }) }

    /// A chart DNG shot under `illuminant` (`spectrum`): the SyntheticChart geometry and raw
    /// encoding, this camera's responses (white at 85 % of clipping), ColorMatrix1/2 fitted under A
    /// and D65 (or `colorMatrices`, for a file whose own matrices are poor).
    static func write(to path: String, white: Chromaticity, spectrum: SampledSpectrum,
                      colorMatrices: (Matrix3, Matrix3)? = nil, camera: Sensitivities = CameraSensitivities.nikonD5100) throws -> (SyntheticChart, RawImage) {
        let chart = SyntheticChart(cfa: .rggb, bitsPerSample: 14, illuminant: white)
        var m = chart.metadata
        m.profile?.colorMatrix1 = q(colorMatrices?.0 ?? fitColorMatrix(Spectral.illuminantA, camera: camera))
        m.profile?.colorMatrix2 = q(colorMatrices?.1 ?? fitColorMatrix(Spectral.d65, camera: camera))
        m.profile?.name = "Fitted D5100"
        let whiteResponse = response(nil, spectrum, camera: camera)
        let k = 0.85 / whiteResponse.max()
        m.asShotNeutral = [whiteResponse.x, whiteResponse.y, whiteResponse.z].map { (($0 / whiteResponse.max()) * 10000).rounded() / 10000 }
        let values = (0..<24).map { k * response($0, spectrum, camera: camera) }
        let surround = k * 0.03 * whiteResponse
        let blacks = chart.blackLevels.map(Double.init), top = Double(chart.whiteLevel)
        var index = [Int](repeating: -1, count: chart.width * chart.height)
        for (i, r) in chart.patchRects.enumerated() {
            for y in r.y..<r.maxY { for x in r.x..<r.maxX { index[y * chart.width + x] = i } }
        }
        var pixels = [UInt16](repeating: 0, count: chart.width * chart.height)
        for y in 0..<chart.height {
            for x in 0..<chart.width {
                let site = (y & 1) << 1 | (x & 1)
                let v = index[y * chart.width + x] < 0 ? surround : values[index[y * chart.width + x]]
                let c = v[Int(chart.cfa.color(x: x, y: y).rawValue)]
                pixels[y * chart.width + x] = UInt16(min(max((blacks[site] + c * (top - blacks[site])).rounded(), 0), top))
            }
        }
        let raw = RawImage(width: chart.width, height: chart.height, samplesPerPixel: 1, pixels: pixels, metadata: m)
        try DNGWriter.write(raw, to: path)
        return (chart, raw)
    }

    /// The linear Bradford adaptation, written out (Lam 1985 matrix as in ICC.1 Annex E).
    static func bradford(from s: Chromaticity, to d: Chromaticity) -> Matrix3 {
        let cone = Matrix3([0.8951, 0.2664, -0.1614, -0.7502, 1.7135, 0.0367, 0.0389, -0.0685, 1.0296])
        func xyz(_ c: Chromaticity) -> SIMD3<Double> { SIMD3(c.x / c.y, 1, (1 - c.x - c.y) / c.y) }
        let gain = (cone * xyz(d)) / (cone * xyz(s))
        return (cone.inverse ?? .identity) * Matrix3.diagonal(gain) * cone
    }

    @Test(arguments: ["A", "D65"])
    func nonLutherCameraMatchesIndependentComputation(scene: String) throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let isA = scene == "A"
        let white = isA ? ColorMath.illuminantA : ColorMath.d65
        let spectrum = isA ? Spectral.illuminantA : Spectral.d65
        let (chart, raw) = try Self.write(to: dir + "/d5100.dng", white: white, spectrum: spectrum)
        var o = CompareOptions(files: [dir + "/d5100.dng"], outputDirectory: dir)
        o.chart = .corners(CompareTests.corners(chart))
        o.illuminants = [.chromaticity(white)]   // exactly the calibration illuminant: one ColorMatrix, no interpolation
        let report = try CompareRunner.run(o, reference: .colorChecker24)
        let stage = try #require(report.runs.first?.stages.last)

        // Independent: DNG ch. 6 without ForwardMatrix at a calibration illuminant,
        // camera → XYZ_D50 = (CM · Bradford(D50 → white) / s)⁻¹, s = max(CM · Bradford · XYZ_D50).
        let d50 = Chromaticity(x: 0.34567, y: 0.35850)
        let profile = try #require(raw.metadata.profile)
        let cm = try #require(isA ? profile.colorMatrix1 : profile.colorMatrix2)
        let pcsToCamera = cm * Self.bradford(from: d50, to: white)
        let s = (pcsToCamera * SIMD3(d50.x / d50.y, 1, (1 - d50.x - d50.y) / d50.y)).max()
        let toXYZ = try #require((1 / s * pcsToCamera).inverse)
        let measured = (0..<24).map { toXYZ * CompareTests.decodedCamera(chart, raw: raw, patch: $0) }
        let reference = stage.patches.map { SIMD3($0.referenceXYZ[0], $0.referenceXYZ[1], $0.referenceXYZ[2]) }
        let k = reference[18].y / measured[18].y
        var values: [Double] = []
        for i in 0..<24 {
            let expected = CompareTests.de2000(CompareTests.lab(reference[i]), CompareTests.lab(k * measured[i]))
            values.append(expected)
            #expect(abs(stage.patches[i].deltaE2000 - expected) < 1e-3, "\(scene) \(stage.patches[i].id): \(stage.patches[i].deltaE2000) vs \(expected)")
        }
        // A non-Luther camera through a fitted matrix: real, moderate errors.
        let mean = values.reduce(0, +) / 24
        print("D5100 under \(scene): mean ΔE2000 \(mean), max \(values.max() ?? 0)")
        #expect(mean > 0.3 && mean < 5)
    }
}
