/// The DNG colour model (Adobe DNG Specification 1.6/1.7, chapter 6 "Mapping Camera Color
/// Space to CIE XYZ Space"): from a camera profile and the file's calibration tags to the
/// camera-native → XYZ D50 matrix for any scene white.
///
/// Definitions (3-colour cameras):
/// - AB = diag(`AnalogBalance`), CC = `CameraCalibration1/2` (identity when absent),
///   CM = `ColorMatrix1/2` (XYZ → reference camera), FM = `ForwardMatrix1/2`.
/// - Each set's XYZ → camera matrix is `AB · CC · CM`.
/// - Interpolation between two sets is linear in inverse correlated colour temperature of
///   the scene white, clamped to the calibration illuminants' CCTs (`weight1` = 1 at or below the
///   cooler illuminant's CCT when that is set 1). The calibration illuminants' CCTs are the
///   Robertson CCTs of their chromaticities (`ColorMath.lightSourceWhite`, or `IlluminantData`
///   for code 255), so a white exactly at an illuminant selects that set exactly.
/// - Three sets (DNG 1.6 triple-illuminant profiles: `CalibrationIlluminant3`, `ColorMatrix3`,
///   `CameraCalibration3`, `ForwardMatrix3`): every matrix is the weighted sum
///   w1·set1 + w2·set2 + w3·set3 with `tripleIlluminantWeights` — the DNG specification 1.7.1
///   (chapter 6, "Information for three calibrations") requires interpolation but does not define
///   it; the weights are those of the reference implementation, Adobe DNG SDK 1.7.1: inverse
///   squared distance in a (1500 K / CCT, tint / 200) plane, smoothed and with small weights
///   suppressed. The illuminants' chromaticities are the SDK's (`tripleIlluminantWhite`).
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
/// - `ColorMatrix3` is used only when sets 1 and 2 form a two-illuminant model and
///   `CalibrationIlluminant3` names a known illuminant (255 with an x-y `IlluminantData3`); otherwise
///   it is ignored with a warning. ForwardMatrix1/2/3 must be all present or all absent (DNG spec):
///   otherwise none is used.
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
    /// The third set of a triple-illuminant model (then `set1`/`set2` are ColorMatrix1/2 in file order).
    let set3: CalibrationSet?
    let analogBalance: Matrix3
    let asShotNeutral: SIMD3<Double>?
    let asShotWhiteXY: Chromaticity?
    /// Observations made while building the model (e.g. "single-illuminant profile").
    public let warnings: [String]

    /// CCT (kelvin) of the first used calibration illuminant, nil when unknown.
    public var calibrationTemperature1: Double? { set1.kelvin }
    /// CCT of the second calibration illuminant; nil for a single-illuminant model.
    public var calibrationTemperature2: Double? { set2?.kelvin }
    /// Number of calibration sets interpolated: 1, 2 or 3.
    public var illuminantCount: Int { set3 != nil ? 3 : set2 != nil ? 2 : 1 }

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
        let cc3 = calibration(metadata.cameraCalibration3, "CameraCalibration3")

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
        var s3: CalibrationSet?
        if let cm3 = p.colorMatrix3 {
            if let dual = s2, s1.index == 1 {
                if let white3 = Self.tripleIlluminantWhite(p.calibrationIlluminant3, p.illuminantData3) {
                    var third = try makeSet(3, cm: cm3, fm: p.forwardMatrix3, cc: cc3, code: p.calibrationIlluminant3, data: p.illuminantData3)
                    third.white = white3
                    third.kelvin = ColorMath.xyToTemperatureTint(white3).kelvin
                    // The triple weights use the SDK's illuminant chromaticities for all three sets.
                    if let w1 = Self.tripleIlluminantWhite(p.calibrationIlluminant1, p.illuminantData1),
                       let w2 = Self.tripleIlluminantWhite(p.calibrationIlluminant2, p.illuminantData2) {
                        s1.white = w1
                        var second = dual
                        second.white = w2
                        let forwardCount = [s1.forwardMatrix, second.forwardMatrix, third.forwardMatrix].compactMap { $0 }.count
                        if forwardCount == 1 || forwardCount == 2 {
                            warnings.append("ForwardMatrix1/2/3: \(forwardCount) of 3 present (DNG needs all or none): ignored")
                            s1.forwardMatrix = nil; second.forwardMatrix = nil; third.forwardMatrix = nil
                        }
                        s2 = second
                        s3 = third
                    } else {
                        warnings.append("ColorMatrix3 ignored: CalibrationIlluminant1/2 have no DNG SDK chromaticity")
                    }
                } else {
                    warnings.append("ColorMatrix3 ignored: CalibrationIlluminant3 \(p.calibrationIlluminant3.map(String.init) ?? "absent") is not a known illuminant")
                }
            } else {
                warnings.append("ColorMatrix3 ignored: ColorMatrix1/2 do not form a two-illuminant model")
            }
        }

        // AsShot tags.
        var neutral: SIMD3<Double>?
        if let v = metadata.asShotNeutral {
            if v.count == 3, v.allSatisfy({ $0 > 0 && $0.isFinite }) { neutral = SIMD3(v[0], v[1], v[2]) }
            else { warnings.append("AsShotNeutral \(v) ignored (need 3 positive values)") }
        }
        self.set1 = s1
        self.set2 = s2
        self.set3 = s3
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
    /// only ColorMatrix2 exists): linear in 1/CCT between the illuminants' CCTs, clamped. For a
    /// triple-illuminant model, `weights(white:).x`.
    public func weight1(white: Chromaticity) -> Double {
        if set3 != nil { return weights(white: white).x }
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

    /// w.x · a + w.y · b + w.z · c, element by element (every term, as the DNG SDK sums them).
    private static func blend(_ a: Matrix3, _ b: Matrix3, _ c: Matrix3, _ w: SIMD3<Double>) -> Matrix3 {
        Matrix3((0..<9).map { w.x * a.m[$0] + w.y * b.m[$0] + w.z * c.m[$0] })
    }

    /// The weights of sets 1, 2 and 3 at scene white `white` (they sum to 1): (weight1,
    /// 1 − weight1, 0) for one or two sets, `tripleIlluminantWeights` for three.
    public func weights(white: Chromaticity) -> SIMD3<Double> {
        if let set3, let w1 = set1.white, let w2 = set2?.white, let w3 = set3.white {
            return Self.tripleIlluminantWeights(white: white, w1, w2, w3)
        }
        let w = weight1(white: white)
        return SIMD3(w, 1 - w, 0)
    }

    /// The weights of three calibration sets whose illuminants have chromaticities `light1…3`,
    /// at scene white `white` (DNG SDK 1.7.1, the reference for DNG 1.6 triple-illuminant
    /// profiles; the DNG specification leaves the rule open):
    /// 1. Each chromaticity becomes a point (h, v) = (min(1500 K / CCT, 1), tint / 200), CCT and
    ///    tint by Robertson's method as the SDK evaluates it (`robertsonTemperatureTint`).
    /// 2. wᵢ = 1 / (dᵢ² + 10⁻⁸), dᵢ the distance from the white's point to light i's; normalised
    ///    to sum 1.
    /// 3. Smoothed, wᵢ ← wᵢ²(3 − 2wᵢ), then small weights suppressed: wᵢ ← clamp((wᵢ − 0.02) / 0.98, 0, 1).
    /// 4. Renormalised: w1, w2 divided by the sum, w3 = max(1 − w1 − w2, 0).
    /// A white at one of the illuminants gives that set weight exactly 1.
    public static func tripleIlluminantWeights(white: Chromaticity, _ light1: Chromaticity, _ light2: Chromaticity,
                                               _ light3: Chromaticity) -> SIMD3<Double> {
        func point(_ c: Chromaticity) -> SIMD2<Double> {
            let tt = robertsonTemperatureTint(c)
            return SIMD2(min(1500 / tt.kelvin, 1), tt.tint / 200)
        }
        let p = point(white)
        func inverseDistance(_ c: Chromaticity) -> Double {
            let d = p - point(c)
            return 1 / ((d * d).sum() + 1e-8)
        }
        var w = SIMD3(inverseDistance(light1), inverseDistance(light2), inverseDistance(light3))
        w /= w.sum()
        w = w * w * (3 - 2 * w)
        w = ((w - 0.02) / 0.98).clamped(lowerBound: SIMD3(repeating: 0), upperBound: SIMD3(repeating: 1))
        // The largest normalised weight is ≥ 1/3, smoothed ≥ 0.259, so the sum is positive.
        let sum = w.sum()
        let w1 = w.x / sum, w2 = w.y / sum
        return SIMD3(w1, w2, max(1 - w1 - w2, 0))
    }

    /// CCT and tint of `c` by Robertson's (1968) method proper: the isotherms i − 1 and i of
    /// `ColorMath.robertsonTable` on either side of the point, the fraction f = dᵢ / (dᵢ₋₁ + dᵢ)
    /// of their perpendicular distances, reciprocal temperature, Planckian point and unit
    /// isotherm direction interpolated by f, tint = `ColorMath.tintScale` × the distance along that
    /// direction. This is the DNG SDK's evaluation (`dng_temperature`), which the triple weights
    /// are defined with; `ColorMath.xyToTemperatureTint` instead puts the point exactly on an
    /// interpolated isotherm (differences up to ~0.05 K and ~0.1 tint, enough to move the triple
    /// weights by 3e-4). Beyond the table: 10 mired (100,000 K) on the blue side, 600 on the red.
    static func robertsonTemperatureTint(_ c: Chromaticity) -> (kelvin: Double, tint: Double) {
        let den = 1.5 - c.x + 6 * c.y
        let uv = SIMD2(2 * c.x / den, 3 * c.y / den)
        let table = ColorMath.robertsonTable
        var lastDistance = 0.0
        for i in 1..<table.count {
            let d = ColorMath.isothermDirection(i)
            let w = uv - SIMD2(table[i].u, table[i].v)
            let distance = w.y * d.x - w.x * d.y   // > 0 while the point lies beyond isotherm i
            guard distance <= 0 || i == table.count - 1 else { lastDistance = distance; continue }
            let beyond = max(-distance, 0)
            let f = i == 1 ? 0 : beyond / (lastDistance + beyond)
            let iso = ColorMath.isotherm(i - 1, f)
            let tint = ((uv - iso.point) * iso.direction).sum() * ColorMath.tintScale
            return (iso.mired > 0 ? 1e6 / iso.mired : .infinity, tint)
        }
        return (.infinity, 0)   // unreachable: the loop returns at the last row
    }

    /// The chromaticity the DNG SDK gives calibration illuminant `code` in a triple-illuminant
    /// profile (its `dng_illuminant_data`; 255 takes the x-y `IlluminantData`). nil for unknown
    /// (0) or unlisted codes.
    static func tripleIlluminantWhite(_ code: Int?, _ data: Chromaticity?) -> Chromaticity? {
        switch code {
        case 17, 3: return Chromaticity(x: 0.4476, y: 0.4074)         // standard A, tungsten
        case 24: return ColorMath.temperatureTintToXY(kelvin: 3200, tint: 0) // ISO studio tungsten
        case 18: return Chromaticity(x: 0.348483, y: 0.351747)        // standard B
        case 19: return Chromaticity(x: 0.310061, y: 0.316150)        // standard C
        case 23: return Chromaticity(x: 0.3457, y: 0.3585)            // D50
        case 20, 1, 9, 4: return Chromaticity(x: 0.3324, y: 0.3474)   // D55, daylight, fine weather, flash
        case 21, 10: return Chromaticity(x: 0.3127, y: 0.3290)        // D65, cloudy
        case 22, 11: return Chromaticity(x: 0.2990, y: 0.3149)        // D75, shade
        case 12: return Chromaticity(x: 0.31310, y: 0.33727)          // daylight fluorescent (F1)
        case 13: return Chromaticity(x: 0.34588, y: 0.35875)          // day white fluorescent (F8)
        case 14: return Chromaticity(x: 0.37417, y: 0.37281)          // cool white fluorescent (F9)
        case 2: return Chromaticity(x: 0.37208, y: 0.37529)           // fluorescent (F2)
        case 15: return Chromaticity(x: 0.40910, y: 0.39430)          // white fluorescent (F3)
        case 16: return Chromaticity(x: 0.44018, y: 0.40329)          // warm white fluorescent (F4)
        case 255:
            guard let data, data.x > 0, data.y > 0, data.x + data.y < 1 else { return nil }
            return data
        default: return nil
        }
    }

    /// Interpolated XYZ → camera (incl. AB·CC), ForwardMatrix and CameraCalibration at `white`.
    func interpolated(white: Chromaticity) -> (weights: SIMD3<Double>, xyzToCamera: Matrix3, forward: Matrix3?, calibration: Matrix3) {
        if let set2, let set3 {
            let w = weights(white: white)
            var fm: Matrix3?
            if let a = set1.forwardMatrix, let b = set2.forwardMatrix, let c = set3.forwardMatrix { fm = Self.blend(a, b, c, w) }
            return (w, Self.blend(set1.xyzToCamera, set2.xyzToCamera, set3.xyzToCamera, w), fm,
                    Self.blend(set1.cameraCalibration, set2.cameraCalibration, set3.cameraCalibration, w))
        }
        let w = weight1(white: white)
        guard let set2 else {
            return (SIMD3(w, 1 - w, 0), set1.xyzToCamera, set1.forwardMatrix, set1.cameraCalibration)
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
        return (SIMD3(w, 1 - w, 0), cm, fm, cc)
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
                             weight1: interp.weights.x, colorMatrix: cm, forwardMatrix: interp.forward,
                             cameraToXYZD50: cameraToXYZ ?? .identity, warnings: warnings,
                             tripleIlluminantWeights: set3 != nil ? interp.weights : nil)
    }
}
