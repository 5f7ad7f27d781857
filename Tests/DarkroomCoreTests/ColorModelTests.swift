import Testing
@testable import DarkroomCore

@Suite("DNG colour model")
struct ColorModelTests {
    static let cm1 = SyntheticChart.colorMatrix1
    static let cm2 = SyntheticChart.colorMatrix2
    static let fm1 = Matrix3([0.6470, 0.2288, 0.0884, 0.2524, 0.8422, -0.0946, 0.0395, -0.2410, 1.0267])
    static let fm2 = Matrix3([0.6878, 0.2094, 0.0670, 0.2828, 0.8590, -0.1418, 0.0403, -0.1370, 0.9219])

    static func metadata(fm: Bool = false, neutral: [Double]? = [0.5, 1, 0.7]) -> RawMetadata {
        var m = RawMetadata()
        m.cfa = .rggb
        var p = CameraProfile()
        p.calibrationIlluminant1 = 17; p.calibrationIlluminant2 = 21
        p.colorMatrix1 = cm1; p.colorMatrix2 = cm2
        if fm { p.forwardMatrix1 = fm1; p.forwardMatrix2 = fm2 }
        m.profile = p
        m.asShotNeutral = neutral
        return m
    }

    static func close(_ a: Matrix3, _ b: Matrix3, _ tol: Double = 1e-12) -> Bool {
        zip(a.m, b.m).allSatisfy { abs($0 - $1) <= tol }
    }

    @Test("Interpolated ColorMatrix is CM1 at illuminant 1, CM2 at illuminant 2, 1/CCT-linear between")
    func interpolation() throws {
        let model = try DNGColorModel(metadata: Self.metadata())
        let a = model.solve(.whiteXY(ColorMath.illuminantA))
        #expect(a.weight1 == 1 && a.colorMatrix == Self.cm1)
        let d65 = model.solve(.whiteXY(ColorMath.d65))
        #expect(d65.weight1 == 0 && d65.colorMatrix == Self.cm2)
        // Clamped outside the range.
        #expect(model.solve(.temperature(kelvin: 2000, tint: 0)).weight1 == 1)
        #expect(model.solve(.temperature(kelvin: 10000, tint: 0)).weight1 == 0)
        // 4500 K: w = (1/4500 − 1/T2) / (1/T1 − 1/T2) with T1, T2 the Robertson CCTs of A and D65.
        let t1 = try #require(model.calibrationTemperature1), t2 = try #require(model.calibrationTemperature2)
        #expect(abs(t1 - 2855.755) < 0.01 && abs(t2 - 6503.00) < 0.01)
        let s = model.solve(.temperature(kelvin: 4500, tint: 0))
        let w = (1 / 4500 - 1 / t2) / (1 / t1 - 1 / t2)
        #expect(abs(s.weight1 - w) < 1e-9, "\(s.weight1) vs \(w)")
        #expect(Self.close(s.colorMatrix, Matrix3.lerp(Self.cm2, Self.cm1, w), 1e-12))
        #expect(abs(s.temperatureKelvin - 4500) < 1e-6 && abs(s.tint) < 1e-6)
    }

    @Test("Swapped illuminant order gives the same matrices")
    func swappedOrder() throws {
        var m = Self.metadata()
        m.profile?.calibrationIlluminant1 = 21; m.profile?.calibrationIlluminant2 = 17
        m.profile?.colorMatrix1 = Self.cm2; m.profile?.colorMatrix2 = Self.cm1
        let swapped = try DNGColorModel(metadata: m).solve(.temperature(kelvin: 4000, tint: 5))
        let normal = try DNGColorModel(metadata: Self.metadata()).solve(.temperature(kelvin: 4000, tint: 5))
        #expect(abs(swapped.weight1 - (1 - normal.weight1)) < 1e-12)
        #expect(Self.close(swapped.cameraToXYZD50, normal.cameraToXYZD50, 1e-12))
    }

    @Test("Neutral stays neutral: camera neutral → D50 white (Y = 1) → RGB (1,1,1) in every space",
          arguments: [false, true])
    func neutralStaysNeutral(forward: Bool) throws {
        var meta = Self.metadata(fm: forward)
        meta.analogBalance = [1.05, 1, 0.97]
        meta.cameraCalibration1 = Matrix3([1.02, 0, 0, 0, 1, 0, 0, 0, 0.98])
        meta.cameraCalibration2 = Matrix3([1.01, 0, 0, 0, 1, 0, 0, 0, 0.99])
        let model = try DNGColorModel(metadata: meta)
        let d50 = ColorMath.xyToXYZ(ColorMath.d50)
        for wb in [WhiteBalanceSpec.asShot, .whiteXY(ColorMath.d65), .temperature(kelvin: 3200, tint: -8),
                   .temperature(kelvin: 4800, tint: 12), .cameraNeutral([0.45, 1, 0.8])] {
            let s = model.solve(wb)
            #expect(s.forwardMatrix != nil || !forward)
            #expect(s.cameraNeutral.max() == 1)
            let xyz = s.cameraToXYZD50 * s.cameraNeutral
            #expect(abs(xyz - d50).max() < 1e-12, "\(wb): \(xyz)")
            #expect(abs(s.balancedCameraToXYZD50 * SIMD3(1, 1, 1) - d50).max() < 1e-12)
            for space in OutputColorSpace.allCases {
                let rgb = space.xyzD50ToLinearRGB * (0.18 * xyz)
                #expect(abs(rgb - SIMD3(repeating: 0.18)).max() < 1e-12)
            }
        }
    }

    @Test("ForwardMatrix path: FM · diag(1/((AB·CC)⁻¹·n)) · (AB·CC)⁻¹ with FM normalised to D50")
    func forwardMatrix() throws {
        var meta = Self.metadata(fm: true)
        meta.analogBalance = [1.1, 1, 0.9]
        let model = try DNGColorModel(metadata: meta)
        let s = model.solve(.whiteXY(ColorMath.d65))
        #expect(s.weight1 == 0)
        let fm = try #require(s.forwardMatrix)
        #expect(abs(fm * SIMD3(1, 1, 1) - ColorMath.xyToXYZ(ColorMath.d50)).max() < 1e-12)
        let ab = Matrix3.diagonal(SIMD3(1.1, 1, 0.9))
        let i2r = try #require(ab.inverse)
        let ref = i2r * s.cameraNeutral
        let expected = fm * Matrix3.diagonal(1 / ref) * i2r
        #expect(Self.close(s.cameraToXYZD50, expected, 1e-12))
        // The colour matrix includes AnalogBalance.
        #expect(Self.close(s.colorMatrix, ab * Self.cm2, 1e-12))
    }

    @Test("Neutral → white xy iteration recovers the white", arguments: [2400.0, 2856, 3500, 4500, 5500, 6504, 9000])
    func neutralToXY(kelvin: Double) throws {
        let model = try DNGColorModel(metadata: Self.metadata())
        for tint in [-15.0, 0, 15] {
            let white = ColorMath.temperatureTintToXY(kelvin: kelvin, tint: tint)
            let n = model.neutral(white: white)
            let s = model.solve(.cameraNeutral([n.x * 3, n.y * 3, n.z * 3]))
            #expect(abs(s.whiteXY.x - white.x) < 1e-6 && abs(s.whiteXY.y - white.y) < 1e-6, "\(kelvin) K \(tint)")
            #expect(abs(s.cameraNeutral - n).max() < 1e-6)
            #expect(!s.warnings.contains { $0.contains("converge") })
        }
    }

    @Test("As-shot fallbacks: AsShotWhiteXY, then D65")
    func asShotFallbacks() throws {
        var m = Self.metadata(neutral: nil)
        m.asShotWhiteXY = Chromaticity(x: 0.40, y: 0.39)
        let s1 = try DNGColorModel(metadata: m).solve(.asShot)
        #expect(s1.whiteXY == Chromaticity(x: 0.40, y: 0.39))
        m.asShotWhiteXY = nil
        let s2 = try DNGColorModel(metadata: m).solve(.asShot)
        #expect(s2.whiteXY == ColorMath.d65 && s2.warnings.contains { $0.contains("D65") })
        m.asShotNeutral = [0, 1, 1]
        let model = try DNGColorModel(metadata: m)
        #expect(model.warnings.contains { $0.contains("AsShotNeutral") })
    }

    @Test("Single illuminant, ColorMatrix2 only, illuminant 255 with IlluminantData, errors")
    func variants() throws {
        var m = Self.metadata()
        m.profile?.colorMatrix2 = nil
        let single = try DNGColorModel(metadata: m)
        #expect(single.calibrationTemperature2 == nil)
        let s = single.solve(.temperature(kelvin: 6000, tint: 0))
        #expect(s.weight1 == 1 && s.colorMatrix == Self.cm1)

        m = Self.metadata(); m.profile?.colorMatrix1 = nil
        let only2 = try DNGColorModel(metadata: m).solve(.asShot)
        #expect(only2.weight1 == 0 && only2.colorMatrix == Self.cm2)

        m = Self.metadata()
        m.profile?.calibrationIlluminant2 = 255
        m.profile?.illuminantData2 = ColorMath.d65
        let other = try DNGColorModel(metadata: m)
        #expect(abs((other.calibrationTemperature2 ?? 0) - 6503.0) < 0.1)
        m.profile?.illuminantData2 = nil
        let noData = try DNGColorModel(metadata: m)
        #expect(noData.calibrationTemperature2 == nil && !noData.warnings.isEmpty)

        m = Self.metadata(); m.profile = nil
        #expect(throws: ColorModelError.noColorMatrix) { try DNGColorModel(metadata: m) }
        m = Self.metadata(); m.profile?.colorMatrix1 = Matrix3([1, 2, 3, 2, 4, 6, 0, 0, 1])
        #expect(throws: ColorModelError.singularMatrix("ColorMatrix1")) { try DNGColorModel(metadata: m) }
        m = Self.metadata(); m.profile?.colorMatrix2 = Matrix3([.nan, 0, 0, 0, 1, 0, 0, 0, 1])
        #expect(throws: ColorModelError.nonFinite("ColorMatrix2")) { try DNGColorModel(metadata: m) }
        #expect(ColorModelError.noColorMatrix.description == "camera profile has no ColorMatrix1 or ColorMatrix2")
        // An external profile replaces the file's own.
        var ext = CameraProfile(); ext.colorMatrix1 = Self.cm2; ext.calibrationIlluminant1 = 21
        #expect(try DNGColorModel(metadata: Self.metadata(), profile: ext).solve(.asShot).colorMatrix == Self.cm2)
    }

    @Test("ColorMatrix scale is normalised (SDK rule) before interpolation")
    func normalisation() throws {
        var m = Self.metadata()
        m.profile?.colorMatrix1 = 2.5 * Self.cm1
        let model = try DNGColorModel(metadata: m)
        let s = model.solve(.temperature(kelvin: 4000, tint: 0))
        let reference = try DNGColorModel(metadata: Self.metadata()).solve(.temperature(kelvin: 4000, tint: 0))
        // The synthetic CM1 peaks at 1 ± 1 % under D50 already, so scaling it back gives the same model.
        let peak = (Self.cm1 * ColorMath.xyToXYZ(ColorMath.d50)).max()
        if peak >= 0.99 && peak <= 1.01 {
            #expect(Self.close(s.cameraToXYZD50, reference.cameraToXYZD50, 1e-2))
        }
        #expect(abs((s.colorMatrix * ColorMath.xyToXYZ(ColorMath.d50)).max() - 1) < 0.02)
    }
}
