import Foundation

/// Fits one calibration set of a DNG camera profile — `ColorMatrix` and `ForwardMatrix` for one
/// illuminant (DNG 1.7 chapter 6) — from a chart measured under that illuminant.
///
/// Inputs per patch: camera-native RGB `c` (0…1 of the white level, not white-balanced) and the
/// reference XYZ adapted to D50 `r` (perfect diffuser Y = 1); the illuminant's white chromaticity
/// `w`, from which XYZ under the illuminant is `X = Bradford(D50 → w) · r` (the linear Bradford
/// transform the DNG model uses) and the white `W = xyY(w, Y = 1)`.
///
/// Method:
/// 1. Neutral patches: reference CIELAB D50 chroma C*ab < `neutralChroma`, unclipped. The camera
///    neutral is their summed camera RGB, scaled to max 1 (n̂); the exposure `e` is the least-squares
///    ratio Σ (c · n̂) / Σ Y |n̂|² over them; the white patch is the brightest of them.
/// 2. `ColorMatrix` (XYZ → camera), each row the least-squares fit of c/e from X over the unclipped
///    patches, subject to CM · W = n̂ exactly (white-point preservation: a neutral under the
///    illuminant white-balances to neutral; solved with a Lagrange multiplier). max(CM · W) = 1,
///    the DNG SDK's normalisation.
/// 3. `ForwardMatrix` (white-balanced camera b = c / (e n̂) → XYZ D50), least squares from b to r
///    subject to FM · (1, 1, 1) = XYZ(D50) (the DNG specification's requirement).
/// 4. Refinement by Nelder–Mead (`NelderMead`) on the mean CIEDE2000 over the unclipped patches, the
///    measured XYZ scaled so the white patch's Y equals its reference Y (compare's default
///    normalisation). Eight parameters: FM's first two columns (the third is XYZ(D50) minus them, so
///    the constraint holds exactly) and the camera neutral's two log ratios — the neutral is all
///    ColorMatrix decides at its own illuminant when a ForwardMatrix is present, so step 2 is
///    re-solved with CM · W = the refined neutral. (The grey patches are not spectrally flat, so
///    their mean is not quite the perfect diffuser's camera response: fixing the neutral there costs
///    ≈ 0.15 ΔE2000 on the D5100.)
/// 5. Both matrices are rounded to 1e-4 (what a DCP's SRATIONALs with denominator 10000 store) and
///    the statistics are those of the rounded matrices, balanced by the rounded ColorMatrix's own
///    neutral, as the DNG model balances them.
public enum ProfileMatrixFit {
    /// One measured patch.
    public struct Observation: Sendable, Equatable {
        public var cameraRGB: SIMD3<Double>
        public var referenceXYZD50: SIMD3<Double>
        /// False for clipped patches: they are left out of every fit.
        public var usable: Bool
        public init(cameraRGB: SIMD3<Double>, referenceXYZD50: SIMD3<Double>, usable: Bool = true) {
            self.cameraRGB = cameraRGB; self.referenceXYZD50 = referenceXYZD50; self.usable = usable
        }
    }

    /// One fitted calibration set and how well it fits its own patches.
    public struct Result: Sendable, Equatable {
        public var colorMatrix: Matrix3
        /// nil for a ColorMatrix-only fit (`forwardMatrix: false`).
        public var forwardMatrix: Matrix3?
        /// Step 3's least-squares ForwardMatrix before the ΔE2000 refinement (rounded like the others).
        public var leastSquaresForwardMatrix: Matrix3?
        /// Camera neutral n̂ (max 1) and exposure e of step 1.
        public var neutral: SIMD3<Double>
        public var exposure: Double
        public var neutralPatches: [Int]
        public var whitePatch: Int
        /// Per patch ΔE2000 (0 for unusable patches, which are excluded from the statistics) of the
        /// least-squares start and of the refined matrices.
        public var leastSquaresDeltaE: [Double]
        public var fittedDeltaE: [Double]
        public var iterations: Int
        /// Every patch's measured XYZ D50 through the final matrices, scaled like `fittedDeltaE`
        /// (white patch Y = its reference Y): what a HueSatMap fit starts from.
        public var fittedXYZD50: [SIMD3<Double>] = []
    }

    /// Why a set could not be fitted.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case tooFewPatches(usable: Int)
        case noNeutralPatch
        case singular(what: String)

        public var description: String {
            switch self {
            case .tooFewPatches(let n): return "\(n) usable (unclipped, non-black) patches; a 3 × 3 fit needs at least 4"
            case .noNeutralPatch: return "no usable neutral patch (reference chroma below \(neutralChroma)) to find the camera neutral"
            case .singular(let what): return "the patches do not determine the \(what) (singular normal equations)"
            }
        }
    }

    /// Reference CIELAB chroma below which a patch counts as neutral.
    public static let neutralChroma = 5.0
    /// Nelder–Mead's initial step for the ForwardMatrix entries.
    public static let refinementStep = 0.02

    /// Fits one calibration set (see the type's method). `refine: false` stops after step 3's least squares.
    ///
    /// `forwardMatrix: false` fits a ColorMatrix-only set instead: the DNG model then maps camera
    /// → XYZ D50 as Bradford(white → D50) · CM⁻¹ (no ForwardMatrix), so Nelder–Mead refines all
    /// nine CM entries from the white-preserving least squares on the same mean ΔE2000, and CM is
    /// scaled so max(CM · W) = 1. This is the structure compare's spectral reference has (XYZ under
    /// the illuminant, Bradford-adapted), which extrapolates better to illuminants far from the
    /// calibration pair for strongly non-Luther cameras.
    public static func fit(_ patches: [Observation], white: Chromaticity, refine: Bool = true,
                           forwardMatrix withForwardMatrix: Bool = true) throws(Failure) -> Result {
        let d50 = ColorMath.xyToXYZ(ColorMath.d50)
        let use = usableIndices(patches)
        guard use.count >= 4 else { throw .tooFewPatches(usable: use.count) }
        // 1. Neutral, exposure, white patch.
        let (n, e, neutrals, whitePatch) = try neutralAndExposure(patches, white: white)
        let toIlluminant = ColorMath.bradford(from: ColorMath.d50, to: white)
        let xyz = patches.map { toIlluminant * $0.referenceXYZD50 }

        // 2. ColorMatrix with CM · W = the neutral, rounded as a DCP stores it; the neutral the
        //    DNG model then derives from it (max(CM · W) = 1) balances the camera values.
        let w = ColorMath.xyToXYZ(white)
        func colorMatrix(_ neutral: SIMD3<Double>) throws(Failure) -> (cm: Matrix3, neutral: SIMD3<Double>) {
            var rows: [SIMD3<Double>] = []
            for k in 0..<3 {
                guard let r = constrainedLeastSquares(use.map { xyz[$0] }, use.map { patches[$0].cameraRGB[k] / e },
                                                      constraint: w, equals: neutral[k])
                else { throw .singular(what: "ColorMatrix") }
                rows.append(r)
            }
            let cm = quantised(Matrix3(rows: rows[0], rows[1], rows[2]))
            let cmWhite = cm * w
            guard cmWhite.min() > 0 else { throw .singular(what: "ColorMatrix (its white is not positive)") }
            return (cm, cmWhite / cmWhite.max())
        }
        func balanced(_ neutral: SIMD3<Double>) -> [SIMD3<Double>] { patches.map { $0.cameraRGB / neutral / e } }
        let reference = patches.map(\.referenceXYZD50)
        func errors(_ fm: Matrix3, _ b: [SIMD3<Double>]) -> [Double] {
            deltaE(forwardMatrix: fm, balanced: b, reference: reference, usable: use, whitePatch: whitePatch)
        }

        // 3. ForwardMatrix by constrained least squares from the grey patches' neutral.
        var (cm, neutral) = try colorMatrix(n)
        if !withForwardMatrix {
            return try colorMatrixOnly(patches, cm: cm, white: white, exposure: e, use: use, neutrals: neutrals,
                                       whitePatch: whitePatch, refine: refine)
        }
        var fmRows: [SIMD3<Double>] = []
        let b0 = balanced(neutral)
        for k in 0..<3 {
            guard let r = constrainedLeastSquares(use.map { b0[$0] }, use.map { reference[$0][k] },
                                                  constraint: SIMD3(1, 1, 1), equals: d50[k])
            else { throw .singular(what: "ForwardMatrix") }
            fmRows.append(r)
        }
        let lsFM = Matrix3(rows: fmRows[0], fmRows[1], fmRows[2])
        let lsDeltaE = errors(quantised(lsFM), b0)
        var fm = lsFM, iterations = 0
        if refine {
            // Parameters: FM's first two columns (the third keeps FM · 1 = D50) and the neutral's
            // log ratios ln(n_R / n_G), ln(n_B / n_G) — the neutral is the one thing ColorMatrix
            // decides at its own illuminant, so it is fitted too.
            func matrix(_ p: [Double]) -> Matrix3 {
                let c0 = SIMD3(p[0], p[1], p[2]), c1 = SIMD3(p[3], p[4], p[5]), c2 = d50 - c0 - c1
                return Matrix3(rows: SIMD3(c0.x, c1.x, c2.x), SIMD3(c0.y, c1.y, c2.y), SIMD3(c0.z, c1.z, c2.z))
            }
            func neutralOf(_ p: [Double]) -> SIMD3<Double> {
                let v = SIMD3(exp(min(max(p[6], -5), 5)), 1, exp(min(max(p[7], -5), 5)))
                return v / v.max()
            }
            let start = [lsFM[0, 0], lsFM[1, 0], lsFM[2, 0], lsFM[0, 1], lsFM[1, 1], lsFM[2, 1],
                         log(neutral.x / neutral.y), log(neutral.z / neutral.y)]
            let objective: ([Double]) -> Double = { p in
                let v = errors(matrix(p), balanced(neutralOf(p)))
                return use.reduce(0) { $0 + v[$1] } / Double(use.count)
            }
            // Restarts from the previous minimum while they improve: Nelder–Mead can stall on a
            // degenerate simplex.
            var best = NelderMead.minimise(objective, start: start, step: refinementStep)
            iterations = best.iterations
            for _ in 0..<4 {
                let again = NelderMead.minimise(objective, start: best.point, step: refinementStep / 4)
                iterations += again.iterations
                if again.value < best.value - 1e-7 { best = again } else { break }
            }
            if best.value < objective(start) {
                (cm, neutral) = try colorMatrix(neutralOf(best.point))
                fm = matrix(best.point)
            }
        }
        let fmQ = quantised(fm)
        var result = Result(colorMatrix: cm, forwardMatrix: fmQ, leastSquaresForwardMatrix: quantised(lsFM), neutral: neutral, exposure: e,
                            neutralPatches: neutrals, whitePatch: whitePatch,
                            leastSquaresDeltaE: lsDeltaE, fittedDeltaE: errors(fmQ, balanced(neutral)), iterations: iterations)
        result.fittedXYZD50 = normalisedXYZ(fmQ, balanced(neutral), reference: reference, whitePatch: whitePatch)
        return result
    }

    /// The ColorMatrix-only fit (see `fit`'s `forwardMatrix: false`), from the white-preserving
    /// least-squares `cm`.
    static func colorMatrixOnly(_ patches: [Observation], cm start: Matrix3, white: Chromaticity, exposure e: Double, use: [Int],
                                neutrals: [Int], whitePatch: Int, refine: Bool) throws(Failure) -> Result {
        let toD50 = ColorMath.bradford(from: white, to: ColorMath.d50)
        let w = ColorMath.xyToXYZ(white)
        let camera = patches.map { $0.cameraRGB / e }
        let reference = patches.map(\.referenceXYZD50)
        func errors(_ cm: Matrix3) -> [Double]? {
            guard let inverse = cm.inverse else { return nil }
            return deltaE(forwardMatrix: toD50 * inverse, balanced: camera, reference: reference, usable: use, whitePatch: whitePatch)
        }
        func normalised(_ cm: Matrix3) throws(Failure) -> Matrix3 {
            let top = (cm * w).max()
            guard top > 0, top.isFinite else { throw .singular(what: "ColorMatrix (its white is not positive)") }
            return quantised((1 / top) * cm)
        }
        let lsCM = try normalised(start)
        guard let lsDeltaE = errors(lsCM) else { throw .singular(what: "ColorMatrix") }
        var cm = lsCM, iterations = 0
        if refine {
            let objective: ([Double]) -> Double = { p in
                guard let v = errors(Matrix3(p)) else { return .infinity }
                return use.reduce(0) { $0 + v[$1] } / Double(use.count)
            }
            let step = refinementStep * max(1, lsCM.m.map { abs($0) }.max() ?? 1)
            var best = NelderMead.minimise(objective, start: lsCM.m, step: step)
            iterations = best.iterations
            for _ in 0..<4 {
                let again = NelderMead.minimise(objective, start: best.point, step: step / 4)
                iterations += again.iterations
                if again.value < best.value - 1e-7 { best = again } else { break }
            }
            if best.value < objective(lsCM.m) { cm = try normalised(Matrix3(best.point)) }
        }
        guard let fitted = errors(cm) else { throw .singular(what: "ColorMatrix") }
        let cmWhite = cm * w
        var result = Result(colorMatrix: cm, forwardMatrix: nil, leastSquaresForwardMatrix: nil, neutral: cmWhite / cmWhite.max(), exposure: e,
                            neutralPatches: neutrals, whitePatch: whitePatch, leastSquaresDeltaE: lsDeltaE, fittedDeltaE: fitted,
                            iterations: iterations)
        if let inverse = cm.inverse { result.fittedXYZD50 = normalisedXYZ(toD50 * inverse, camera, reference: reference, whitePatch: whitePatch) }
        return result
    }

    /// k · M · v for every patch, k = reference Y / measured Y of `whitePatch`.
    static func normalisedXYZ(_ m: Matrix3, _ values: [SIMD3<Double>], reference: [SIMD3<Double>], whitePatch: Int) -> [SIMD3<Double>] {
        let white = m * values[whitePatch]
        let k = white.y > 0 ? reference[whitePatch].y / white.y : 1
        return values.map { k * (m * $0) }
    }

    /// The patches a fit uses: usable, camera RGB non-negative and not black.
    public static func usableIndices(_ patches: [Observation]) -> [Int] {
        patches.indices.filter { patches[$0].usable && patches[$0].cameraRGB.max() > 0 && patches[$0].cameraRGB.min() >= 0 }
    }

    /// Step 1: the camera neutral n̂ (max 1), the exposure e, the neutral patches and the white
    /// patch (the brightest neutral) of a chart under the illuminant of white `white`.
    public static func neutralAndExposure(_ patches: [Observation], white: Chromaticity) throws(Failure)
        -> (neutral: SIMD3<Double>, exposure: Double, neutralPatches: [Int], whitePatch: Int) {
        let use = usableIndices(patches)
        let neutrals = use.filter {
            let lab = ColorMath.xyzToLab(patches[$0].referenceXYZD50)
            return (lab.y * lab.y + lab.z * lab.z).squareRoot() < neutralChroma && patches[$0].referenceXYZD50.y > 0
        }
        guard !neutrals.isEmpty else { throw .noNeutralPatch }
        let sum = neutrals.reduce(SIMD3<Double>(0, 0, 0)) { $0 + patches[$1].cameraRGB }
        guard sum.min() > 0 else { throw .noNeutralPatch }
        let n = sum / sum.max()
        let toIlluminant = ColorMath.bradford(from: ColorMath.d50, to: white)
        var num = 0.0, den = 0.0
        for i in neutrals { num += (patches[i].cameraRGB * n).sum(); den += (toIlluminant * patches[i].referenceXYZD50).y * (n * n).sum() }
        guard den > 0, num > 0, (num / den).isFinite else { throw .noNeutralPatch }
        let whitePatch = neutrals.max { patches[$0].referenceXYZD50.y < patches[$1].referenceXYZD50.y } ?? neutrals[0]
        return (n, num / den, neutrals, whitePatch)
    }

    /// ΔE2000 of each patch (0 outside `usable`): Lab D50 of k · FM · balanced against the
    /// reference, k = reference Y / measured Y of `whitePatch`.
    public static func deltaE(forwardMatrix fm: Matrix3, balanced: [SIMD3<Double>], reference: [SIMD3<Double>],
                              usable: [Int], whitePatch: Int) -> [Double] {
        let white = fm * balanced[whitePatch]
        let k = white.y > 0 ? reference[whitePatch].y / white.y : 1
        var out = [Double](repeating: 0, count: balanced.count)
        for i in usable {
            out[i] = ColorMath.ciede2000(ColorMath.xyzToLab(reference[i]), ColorMath.xyzToLab(k * (fm * balanced[i])))
        }
        return out
    }

    /// The vector r minimising Σ (r · aᵢ − bᵢ)² subject to r · `constraint` = `equals` (normal
    /// equations with one Lagrange multiplier); nil when the normal matrix is singular.
    public static func constrainedLeastSquares(_ a: [SIMD3<Double>], _ b: [Double], constraint c: SIMD3<Double>,
                                               equals t: Double) -> SIMD3<Double>? {
        var ata = Matrix3([0, 0, 0, 0, 0, 0, 0, 0, 0])
        var atb = SIMD3<Double>(0, 0, 0)
        for (v, y) in zip(a, b) {
            for i in 0..<3 { for j in 0..<3 { ata[i, j] += v[i] * v[j] } }
            atb += v * y
        }
        guard let inv = ata.inverse else { return nil }
        let r0 = inv * atb, g = inv * c
        let gc = (g * c).sum()
        guard abs(gc) > 0, gc.isFinite else { return nil }
        let r = r0 + g * ((t - (c * r0).sum()) / gc)
        return r.x.isFinite && r.y.isFinite && r.z.isFinite ? r : nil
    }

    /// Each element rounded to 1e-4, as stored in a DCP.
    public static func quantised(_ m: Matrix3) -> Matrix3 { Matrix3(m.m.map { ($0 * 10000).rounded() / 10000 }) }
}
