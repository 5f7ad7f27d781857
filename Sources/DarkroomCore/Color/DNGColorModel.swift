/// The DNG colour model (Adobe DNG Specification 1.6/1.7, chapter 6 "Mapping Camera Color
/// Space to CIE XYZ Space"): from a camera profile and the file's calibration tags to the
/// camera-native → XYZ D50 matrix for any scene white.
///
/// Definitions (3-colour cameras):
/// - AB = diag(`AnalogBalance`), CC = `CameraCalibration1/2` (identity when absent),
///   CM = `ColorMatrix1/2` (XYZ → reference camera), FM = `ForwardMatrix1/2`.
/// - Each set's XYZ → camera matrix is `AB · CC · CM`.
/// - Interpolation between the two sets is linear in inverse correlated colour temperature of
///   the scene white, clamped to the calibration illuminants' CCTs (`weight1` = 1 at or below the
///   cooler illuminant's CCT when that is set 1). The calibration illuminants' CCTs are the
///   Robertson CCTs of their chromaticities (`ColorMath.lightSourceWhite`, or `IlluminantData`
///   for code 255), so a white exactly at an illuminant selects that set exactly.
/// - Without ForwardMatrix: `CameraToXYZ_D50 = inverse(CM_w · Bradford(D50 → white) / s)`, where
///   s = max(CM_w · Bradford(D50 → white) · XYZ_D50) so the camera neutral (max 1) maps to the
///   D50 white with Y = 1.
/// - With ForwardMatrix: `CameraToXYZ_D50 = FM_w · diag(1 / ((AB·CC_w)⁻¹ · neutral)) · (AB·CC_w)⁻¹`,
///   each FM first normalised so FM · (1, 1, 1) = XYZ_D50.
/// - AsShotNeutral → white xy: start at D50; repeat white = xy(CM(white)⁻¹ · neutral) until the
///   change is below 1e-7 (|Δx| + |Δy|), at most 30 times (averaging the last two estimates if it
///   has not converged, which means a two-value oscillation).
///
/// Choices where the spec is silent (each also recorded in `warnings` when it applies):
/// - Each ColorMatrix is scaled so max(CM · XYZ_D50) = 1 when it is outside 0.99…1.01, as the
///   DNG SDK does, so matrices of different scale interpolate sensibly.
/// - A missing second matrix, an unknown (0) illuminant, or two illuminants of equal CCT give a
///   single-illuminant model. Only `ColorMatrix2` present: it is used alone (`weight1` = 0).
/// - `ColorMatrix3` (DNG 1.6 triple-illuminant profiles) is not used yet: sets 1 and 2 are.
/// - Neither AsShotNeutral nor AsShotWhiteXY: `.asShot` uses D65.
/// - CameraCalibration is applied for the file's own profile; for an external profile only
///   when the file has no `CameraCalibrationSignature` (we cannot compare signatures).
public struct DNGColorModel: Sendable {
    /// One calibration set: illuminant, CCT, and the matrices as used (CM includes AB·CC).
    struct CalibrationSet: Sendable {
        var index: Int
        var white: Chromaticity?
        var kelvin: Double?
        var xyzToCamera: Matrix3
        var forwardMatrix: Matrix3?
        var cameraCalibration: Matrix3
    }

    let set1: CalibrationSet
    let set2: CalibrationSet?
    let analogBalance: Matrix3
    let asShotNeutral: SIMD3<Double>?
    let asShotWhiteXY: Chromaticity?
    /// Observations made while building the model (e.g. "single-illuminant profile").
    public let warnings: [String]

    /// CCT (kelvin) of the first used calibration illuminant, nil when unknown.
    public var calibrationTemperature1: Double? { set1.kelvin }
    /// CCT of the second calibration illuminant; nil for a single-illuminant model.
    public var calibrationTemperature2: Double? { set2?.kelvin }

    /// The value DNG uses for the D50 PCS white.
    static var xyzD50: SIMD3<Double> { ColorMath.xyToXYZ(ColorMath.d50) }

    /// Builds the model from `profile` (nil: the file's own `metadata.profile`) and the file's
    /// AnalogBalance, CameraCalibration and AsShot tags.
    public init(metadata: RawMetadata, profile: CameraProfile? = nil) throws(ColorModelError) {
        var warnings: [String] = []
        let p = profile ?? metadata.profile ?? CameraProfile()
        if metadata.samplesPerPixel == 1, let cfa = metadata.cfa, Set(cfa.colors).count != 3 {
            throw .unsupportedColorPlanes(Set(cfa.colors).count)
        }

        // AnalogBalance.
        var ab = Matrix3.identity
        if let v = metadata.analogBalance {
            if v.count == 3, v.allSatisfy({ $0 > 0 && $0.isFinite }) {
                ab = Matrix3.diagonal(SIMD3(v[0], v[1], v[2]))
            } else {
                warnings.append("AnalogBalance \(v) ignored (need 3 positive values)")
            }
        }

        let useCalibration = profile == nil || metadata.cameraCalibrationSignature == nil
        func calibration(_ m: Matrix3?, _ name: String) -> Matrix3 {
            guard let m, useCalibration else { return .identity }
            guard m.isFinite, m.inverse != nil else {
                warnings.append("\(name) ignored (singular or non-finite)")
                return .identity
            }
            return m
        }
        let cc1 = calibration(metadata.cameraCalibration1, "CameraCalibration1")
        let cc2 = calibration(metadata.cameraCalibration2, "CameraCalibration2")

        func illuminantWhite(_ code: Int?, _ data: Chromaticity?, _ name: String) -> Chromaticity? {
            guard let code else { return nil }
            if code == 255 {
                if let data, data.x > 0, data.y > 0, data.x + data.y < 1 { return data }
                warnings.append("\(name) is 255 (Other) without usable IlluminantData")
                return nil
            }
            if let w = ColorMath.lightSourceWhite(code) { return w }
            warnings.append("\(name) \(code) is unknown")
            return nil
        }

        func makeSet(_ index: Int, cm: Matrix3, fm: Matrix3?, cc: Matrix3, code: Int?, data: Chromaticity?) throws(ColorModelError) -> CalibrationSet {
            guard cm.isFinite else { throw .nonFinite("ColorMatrix\(index)") }
            guard cm.inverse != nil else { throw .singularMatrix("ColorMatrix\(index)") }
            let white = illuminantWhite(code, data, "CalibrationIlluminant\(index)")
            let kelvin = white.map { ColorMath.xyToTemperatureTint($0).kelvin }
            var forward: Matrix3?
            if let fm {
                if let n = DNGColorModel.normalizedForwardMatrix(fm) { forward = n }
                else { warnings.append("ForwardMatrix\(index) ignored (singular or non-finite)") }
            }
            let xyzToCamera = ab * cc * DNGColorModel.normalizedColorMatrix(cm)
            guard xyzToCamera.inverse != nil else { throw .singularMatrix("AnalogBalance·CameraCalibration\(index)·ColorMatrix\(index)") }
            return CalibrationSet(index: index, white: white, kelvin: kelvin, xyzToCamera: xyzToCamera,
                                  forwardMatrix: forward, cameraCalibration: cc)
        }

        var s1: CalibrationSet
        var s2: CalibrationSet?
        switch (p.colorMatrix1, p.colorMatrix2) {
        case (nil, nil):
            throw .noColorMatrix
        case (nil, let cm2?):
            warnings.append("no ColorMatrix1: using ColorMatrix2 alone")
            s1 = try makeSet(2, cm: cm2, fm: p.forwardMatrix2, cc: cc2, code: p.calibrationIlluminant2, data: p.illuminantData2)
        case (let cm1?, nil):
            s1 = try makeSet(1, cm: cm1, fm: p.forwardMatrix1, cc: cc1, code: p.calibrationIlluminant1, data: p.illuminantData1)
        case (let cm1?, let cm2?):
            s1 = try makeSet(1, cm: cm1, fm: p.forwardMatrix1, cc: cc1, code: p.calibrationIlluminant1, data: p.illuminantData1)
            let second = try makeSet(2, cm: cm2, fm: p.forwardMatrix2, cc: cc2, code: p.calibrationIlluminant2, data: p.illuminantData2)
            if let t1 = s1.kelvin, let t2 = second.kelvin, abs(t1 - t2) > 1e-6 {
                s2 = second
            } else {
                warnings.append("calibration illuminants unknown or equal: using ColorMatrix1 alone")
            }
        }
        if p.colorMatrix3 != nil {
            warnings.append("ColorMatrix3 (triple-illuminant profile) not supported: interpolating sets 1 and 2")
        }

        // AsShot tags.
        var neutral: SIMD3<Double>?
        if let v = metadata.asShotNeutral {
            if v.count == 3, v.allSatisfy({ $0 > 0 && $0.isFinite }) { neutral = SIMD3(v[0], v[1], v[2]) }
            else { warnings.append("AsShotNeutral \(v) ignored (need 3 positive values)") }
        }
        self.set1 = s1
        self.set2 = s2
        self.analogBalance = ab
        self.asShotNeutral = neutral
        self.asShotWhiteXY = metadata.asShotWhiteXY
        self.warnings = warnings
    }

    /// Scales a ColorMatrix so max(CM · XYZ_D50) = 1 when it is outside 0.99…1.01 (DNG SDK).
    static func normalizedColorMatrix(_ m: Matrix3) -> Matrix3 {
        let peak = (m * xyzD50).max()
        guard peak > 0, peak < 0.99 || peak > 1.01 else { return m }
        return (1 / peak) * m
    }

    /// Scales a ForwardMatrix's rows so FM · (1, 1, 1) = XYZ_D50 (DNG spec chapter 6); nil when impossible.
    static func normalizedForwardMatrix(_ m: Matrix3) -> Matrix3? {
        guard m.isFinite else { return nil }
        let sums = m * SIMD3<Double>(1, 1, 1)
        guard sums.x != 0, sums.y != 0, sums.z != 0 else { return nil }
        let n = Matrix3.diagonal(xyzD50 / sums) * m
        return n.inverse == nil ? nil : n
    }

    // MARK: Interpolation

    /// The weight of `ColorMatrix1` for scene white `white` (1 when there is only set 1, 0 when
    /// only ColorMatrix2 exists): linear in 1/CCT between the illuminants' CCTs, clamped.
    public func weight1(white: Chromaticity) -> Double {
        guard let set2, let t1 = set1.kelvin, let t2 = set2.kelvin else { return set1.index == 1 ? 1 : 0 }
        let t = ColorMath.xyToTemperatureTint(white).kelvin
        let (lo, hi) = (min(t1, t2), max(t1, t2))
        let gLow: Double
        if t <= lo { gLow = 1 } else if t >= hi { gLow = 0 } else { gLow = (1 / t - 1 / hi) / (1 / lo - 1 / hi) }
        return t1 <= t2 ? gLow : 1 - gLow
    }

    private static func blend(_ m1: Matrix3, _ m2: Matrix3, _ w1: Double) -> Matrix3 {
        w1 >= 1 ? m1 : w1 <= 0 ? m2 : Matrix3.lerp(m2, m1, w1)
    }

    /// Interpolated XYZ → camera (incl. AB·CC), ForwardMatrix and CameraCalibration at `white`.
    func interpolated(white: Chromaticity) -> (weight1: Double, xyzToCamera: Matrix3, forward: Matrix3?, calibration: Matrix3) {
        let w = weight1(white: white)
        guard let set2 else {
            return (w, set1.xyzToCamera, set1.forwardMatrix, set1.cameraCalibration)
        }
        let cm = Self.blend(set1.xyzToCamera, set2.xyzToCamera, w)
        let cc = Self.blend(set1.cameraCalibration, set2.cameraCalibration, w)
        var fm: Matrix3?
        switch (set1.forwardMatrix, set2.forwardMatrix) {
        case (let a?, let b?): fm = Self.blend(a, b, w)
        case (let a?, nil): fm = a
        case (nil, let b?): fm = b
        case (nil, nil): fm = nil
        }
        return (w, cm, fm, cc)
    }

    /// Interpolated XYZ → camera-native matrix (incl. AnalogBalance · CameraCalibration) at `white`.
    public func xyzToCamera(white: Chromaticity) -> Matrix3 { interpolated(white: white).xyzToCamera }

    /// The camera-native neutral (max 1) of scene white `white`.
    public func neutral(white: Chromaticity) -> SIMD3<Double> {
        let v = xyzToCamera(white: white) * ColorMath.xyToXYZ(white)
        let peak = v.max()
        guard peak > 0, peak.isFinite else { return SIMD3(1, 1, 1) }
        return v / peak
    }

    /// The white chromaticity whose camera response is `neutral` (the iterative search of DNG
    /// chapter 6, starting at D50, ≤ 30 passes). `converged` is false when it oscillated.
    public func neutralToXY(_ neutral: SIMD3<Double>) -> (white: Chromaticity, converged: Bool) {
        var last = ColorMath.d50
        for pass in 0..<30 {
            guard let inv = xyzToCamera(white: last).inverse else { return (last, false) }
            var next = ColorMath.xyzToXY(inv * neutral)
            if abs(next.x - last.x) + abs(next.y - last.y) < 1e-7 { return (next, true) }
            if pass == 29 {
                next = Chromaticity(x: (last.x + next.x) / 2, y: (last.y + next.y) / 2)
                return (next, false)
            }
            last = next
        }
        return (last, false)
    }

    // MARK: Solve

    /// Resolves the model for a white-balance choice.
    public func solve(_ wb: WhiteBalanceSpec) -> ColorSolution {
        var warnings = self.warnings
        var white: Chromaticity
        func fromNeutral(_ n: SIMD3<Double>, _ what: String) -> Chromaticity {
            let r = neutralToXY(n)
            if !r.converged { warnings.append("\(what) → white xy did not converge in 30 passes") }
            return r.white
        }
        switch wb {
        case .asShot:
            if let n = asShotNeutral { white = fromNeutral(n, "AsShotNeutral") }
            else if let xy = asShotWhiteXY, xy.x > 0, xy.y > 0, xy.x + xy.y < 1 { white = xy }
            else {
                warnings.append("no AsShotNeutral or AsShotWhiteXY: assuming D65")
                white = ColorMath.d65
            }
        case .cameraNeutral(let v):
            if v.count == 3, v.allSatisfy({ $0 > 0 && $0.isFinite }) {
                white = fromNeutral(SIMD3(v[0], v[1], v[2]), "camera neutral")
            } else {
                warnings.append("camera neutral \(v) ignored (need 3 positive values): using D65")
                white = ColorMath.d65
            }
        case .whiteXY(let xy):
            if xy.x > 0, xy.y > 0, xy.x + xy.y < 1 { white = xy }
            else {
                warnings.append("white xy \(xy) is not a chromaticity: using D65")
                white = ColorMath.d65
            }
        case .temperature(let kelvin, let tint):
            white = ColorMath.temperatureTintToXY(kelvin: kelvin, tint: tint)
        }
        return solution(white: white, warnings: warnings)
    }

    func solution(white: Chromaticity, warnings: [String]) -> ColorSolution {
        var warnings = warnings
        let interp = interpolated(white: white)
        let cm = interp.xyzToCamera

        // Camera white, max 1, each component pinned to 0.001…1 (DNG SDK).
        var cameraWhite = cm * ColorMath.xyToXYZ(white)
        let peak = cameraWhite.max()
        if peak > 0, peak.isFinite { cameraWhite /= peak } else { cameraWhite = SIMD3(1, 1, 1) }
        let pinned = cameraWhite.clamped(lowerBound: SIMD3(repeating: 0.001), upperBound: SIMD3(repeating: 1))
        if pinned != cameraWhite { warnings.append("camera neutral \(cameraWhite) clamped to 0.001…1") }
        cameraWhite = pinned

        var cameraToXYZ: Matrix3?
        if let fm = interp.forward, let individualToReference = (analogBalance * interp.calibration).inverse {
            let refWhite = individualToReference * cameraWhite
            if refWhite.min() > 0 {
                cameraToXYZ = fm * Matrix3.diagonal(1 / refWhite) * individualToReference
            } else {
                warnings.append("ForwardMatrix skipped: reference camera white \(refWhite) is not positive")
            }
        }
        if cameraToXYZ == nil {
            var pcsToCamera = cm * ColorMath.bradford(from: ColorMath.d50, to: white)
            let scale = (pcsToCamera * Self.xyzD50).max()
            if scale > 0, scale.isFinite { pcsToCamera = (1 / scale) * pcsToCamera }
            cameraToXYZ = pcsToCamera.inverse
        }
        let tt = ColorMath.xyToTemperatureTint(white)
        return ColorSolution(cameraNeutral: cameraWhite, whiteXY: white, temperatureKelvin: tt.kelvin, tint: tt.tint,
                             weight1: interp.weight1, colorMatrix: cm, forwardMatrix: interp.forward,
                             cameraToXYZD50: cameraToXYZ ?? .identity, warnings: warnings)
    }
}
