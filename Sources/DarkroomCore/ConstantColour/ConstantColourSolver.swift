import Foundation

/// What the constant-colour method produced for a pair (`ConstantColourSolver.solve`).
public struct ConstantColourResult: Sendable {
    public var width: Int
    public var height: Int
    /// The materials' colour under D65 with the ambient frame's shading: CIE XYZ (D65 white),
    /// interleaved, scaled like the ambient frame (Y = 1 for a perfect white lit to the white level).
    public var xyzD65: [Float]
    /// Confidence per pixel, 0…255 (255 = full confidence), in the ambient frame's geometry.
    public var confidence: [UInt8]
    /// The colour error (≈ ΔE2000, luminance matched) the pair's noise and the ambient
    /// uncertainty predict per pixel (step 6); +∞ where the flash-only signal is ≤ 0 and 0 on
    /// invalid pixels (outside the overlap, clipped: their confidence is 0 anyway).
    public var predictedDeltaE: [Float]
    /// The centre-weighted mean of `confidence` / 255 (0…1), kernel in `ConstantColourParameters.centreSigma`.
    public var centreWeightedConfidence: Double
    public var registration: FrameRegistration
    /// Ambient frame value × this = its contribution to the flash frame.
    public var ambientScale: Double
    /// Median flash-only / ambient luminance ratio over the valid pixels.
    public var medianFlashRatio: Double
    /// Fractions of the frame's pixels: flash shadow, flash specular, clipped (either frame),
    /// flash / ambient below `halfConfidenceRatio`, outside the registered overlap.
    public var fractions: [String: Double]
}

/// The constant-colour method (issue 17), steps 2 and 4–6, after both frames are linearised
/// (step 1, `ConstantColourFrame`) — after Petschnigg et al., "Digital photography with flash
/// and no-flash image pairs" (SIGGRAPH 2004), and Hui, Sankaranarayanan, Sunkavalli & Hadap,
/// "White balance under mixed illumination using flash photography" (ICCP 2016):
///
/// 2. Exposure: `ambientScale` k = (t_f·S_f / N_f²) / (t_a·S_a / N_a²) · 2^(BE_a − BE_f) (exposure
///    time, ISO, f-number, BaselineExposure); the ambient light's share of the flash frame is k·A.
/// 3. Registration: `FrameRegistration` (global integer translation; flash pixels outside the
///    overlap are invalid).
/// 4. Flash-only signal D = F − k·A per camera channel, variance var(F) + k²·var(A) from each
///    frame's NoiseProfile.
/// 5. Colour: as Hui et al. observe, D_c / A_c is the flash-to-ambient ratio of the light alone
///    (the reflectance cancels, under the von Kries model), so it is averaged over a
///    (2·ratioRadius + 1)² box (D̄, Ā; clipped and invalid pixels excluded) and corrects the
///    full-resolution ambient frame: C_c = A_c · (D̄_c / Ā_c) / (Y(D̄) / Y(Ā)) — the ambient frame
///    as if lit by the flash, at the ambient frame's luminance (shading from the ambient frame: it
///    has no flash shadows or flash highlights and the flash's 1/r² fall-off; the departure from
///    Petschnigg's detail transfer). C is rendered with the flash profile's camera → XYZ D50 matrix
///    for the flash's white (`flashCameraToXYZD50`, DNG colour model) and adapted D50 → D65 with
///    Bradford. Invalid pixels (outside the overlap, clipped) get the ambient frame's as-shot
///    colour (`ambientCameraToXYZD50`) and confidence 0.
/// 6. Confidence = 255 · error term · ratio term · registration term (each 0…1, multiplied), set
///    to 0 on clipped pixels, flash shadows and flash speculars. The error term is
///    1 / (1 + (ΔE_pred / ΔE½)²), ΔE_pred the colour error this pixel's estimate is expected to
///    have, propagated through the colour computation: each channel's gain D̄_c / Ā_c has a
///    relative noise σ_c² = var(D̄_c)/D̄_c² + var(Ā_c)/Ā_c² (NoiseProfile variances box-averaged over
///    n_eff = (2r + 1)²/2 independent samples, the demosaic's correlation halving the count) and a
///    relative bias β_c = u·k·Ā_c / D̄_c (u = `ambientScaleUncertainty`, the same sign in every
///    channel); a relative change e_c of channel c moves the output XYZ by e_c · C_c · M_c (M_c the
///    flash matrix's column); with the luminance held (the XYZ change minus its Y share), CIELAB's
///    Jacobian at the pixel (D65 white) gives Δa, Δb, and ΔE2000 ≈ √(Δa² + Δb²) / (1 + 0.045 C*ab)
///    (CIEDE2000's chroma weighting S_C). ΔE_pred² = Σ_c (ΔE(e_c = 1) · σ_c)² + ΔE(e = β)². So the
///    confidence falls with the expected error by construction. The ratio term ρ / (ρ + ρ½) (ρ =
///    flash-only / ambient luminance in the flash frame) encodes the method's premise that the
///    flash dominates, which the error model cannot see fail (ambient light that changes between
///    the frames in ways larger than u); the registration term and masks are defined in
///    `ConstantColourParameters`; Y is the flash profile's luminance row. The centre-weighted
///    mean uses w = exp(−(u² + v²) / (2σ²)), u, v = offset from the centre over the half-width /
///    half-height, σ = `centreSigma`.
///
/// Pure and deterministic: per-pixel work is split into row bands, every sum has a fixed order,
/// so the output does not depend on `threads`.
public enum ConstantColourSolver {
    public struct Input: Sendable {
        public var ambient: ConstantColourFrame
        public var flash: ConstantColourFrame
        public var ambientScale: Double
        public var flashCameraToXYZD50: Matrix3
        public var ambientCameraToXYZD50: Matrix3
        public init(ambient: ConstantColourFrame, flash: ConstantColourFrame, ambientScale: Double,
                    flashCameraToXYZD50: Matrix3, ambientCameraToXYZD50: Matrix3) {
            self.ambient = ambient; self.flash = flash; self.ambientScale = ambientScale
            self.flashCameraToXYZD50 = flashCameraToXYZD50; self.ambientCameraToXYZD50 = ambientCameraToXYZD50
        }
    }

    public enum Failure: Error, Sendable, CustomStringConvertible, Equatable {
        case sizeMismatch(ambient: String, flash: String)
        case badExposureScale(Double)
        public var description: String {
            switch self {
            case .sizeMismatch(let a, let f): return "the frames differ in size (ambient \(a), flash \(f))"
            case .badExposureScale(let k): return "exposure ratio \(k) is not a positive finite number"
            }
        }
    }

    public static func solve(_ input: Input, parameters p: ConstantColourParameters = .init(),
                             threads: Int = 1) throws(Failure) -> ConstantColourResult {
        let a = input.ambient, f = input.flash
        guard a.width == f.width, a.height == f.height else {
            throw .sizeMismatch(ambient: "\(a.width)x\(a.height)", flash: "\(f.width)x\(f.height)")
        }
        let k = input.ambientScale
        guard k.isFinite, k > 0 else { throw .badExposureScale(k) }
        let w = a.width, h = a.height, n = w * h
        let yRow = input.flashCameraToXYZD50.row(1)
        let my = SIMD3<Float>(Float(yRow.x), Float(yRow.y), Float(yRow.z))
        func luminance(_ rgb: [Float]) -> [Float] {
            var out = [Float](repeating: 0, count: n)
            for i in 0..<n { out[i] = my.x * rgb[i] + my.y * rgb[n + i] + my.z * rgb[2 * n + i] }
            return out
        }

        // Step 3: registration.
        let reg = FrameRegistration.register(ambient: luminance(a.rgb), flash: luminance(f.rgb), width: w, height: h,
                                             maxShift: max(0, p.maxShift))

        // Step 4: flash-only signal, the per-channel variances of it and of the ambient frame, validity.
        var dPlanes = [Float](repeating: 0, count: 3 * n)
        var dVar = [Float](repeating: 0, count: 3 * n)
        var aVar = [Float](repeating: 0, count: 3 * n)
        var validWork = [Float](repeating: 0, count: n)
        var clippedAny = [UInt8](repeating: 0, count: n)
        var outside = 0
        let kf = Float(k)
        for y in 0..<h {
            let sy = y + reg.dy
            for x in 0..<w {
                let i = y * w + x, sx = x + reg.dx
                guard sy >= 0, sy < h, sx >= 0, sx < w else { outside += 1; continue }
                let j = sy * w + sx
                let clip = a.clipped[i] != 0 || f.clipped[j] != 0
                clippedAny[i] = clip ? 1 : 0
                for c in 0..<3 {
                    let fa = f.rgb[c * n + j], am = a.rgb[c * n + i]
                    dPlanes[c * n + i] = fa - kf * am
                    let varF = f.noise[c].scale * Double(max(fa, 0)) + f.noise[c].offset
                    let varA = a.noise[c].scale * Double(max(am, 0)) + a.noise[c].offset
                    dVar[c * n + i] = Float(varF + k * k * varA)
                    aVar[c * n + i] = Float(varA)
                }
                validWork[i] = clip ? 0 : 1
            }
        }

        // Step 5: box-averaged flash-only and ambient signals.
        let r = max(0, p.ratioRadius)
        func box(_ plane: ArraySlice<Float>, _ radius: Int) -> [Float] {
            BoxFilter.weightedMean(Array(plane), weight: validWork, width: w, height: h, radius: radius, threads: threads)
        }
        let dBar = (0..<3).map { box(dPlanes[($0 * n)..<(($0 + 1) * n)], r) }
        let aBar = (0..<3).map { box(a.rgb[($0 * n)..<(($0 + 1) * n)], r) }
        let dVarBar = (0..<3).map { box(dVar[($0 * n)..<(($0 + 1) * n)], r) }
        let aVarBar = (0..<3).map { box(aVar[($0 * n)..<(($0 + 1) * n)], r) }
        // Per-pixel (3×3) ratio for the masks (luminance) and the registration term (per channel).
        let yD = luminance(dPlanes), yA = luminance(a.rgb)
        let yD3 = box(yD[0..<n], 1), yA3 = box(yA[0..<n], 1)
        var rho3Work = [Float](repeating: 0, count: n)
        let tiny: Float = 1e-7
        for i in 0..<n { rho3Work[i] = max(yD3[i], 0) / max(kf * yA3[i], tiny) }
        let rhoN = box(rho3Work[0..<n], max(0, p.maskRadius))
        // d = max over channels of |ln ρ3_c − box mean of ln ρ3_c|.
        var roughWork = [Float](repeating: 0, count: n)
        for c in 0..<3 {
            let d3 = box(dPlanes[(c * n)..<((c + 1) * n)], 1), a3 = box(a.rgb[(c * n)..<((c + 1) * n)], 1)
            var logRho = [Float](repeating: 0, count: n)
            for i in 0..<n { logRho[i] = logf(max(max(d3[i], 0) / max(kf * a3[i], tiny), 1e-4)) }
            let mean = box(logRho[0..<n], r)
            for i in 0..<n { roughWork[i] = max(roughWork[i], abs(logRho[i] - mean[i])) }
        }

        let toD65 = ColorMath.bradford(from: ColorMath.d50, to: ColorMath.d65)
        let flashM = toD65 * input.flashCameraToXYZD50
        let ambientM = toD65 * input.ambientCameraToXYZD50
        let fm = (0..<9).map { Float(flashM.m[$0]) }, am = (0..<9).map { Float(ambientM.m[$0]) }
        let nEff = Float((2 * r + 1) * (2 * r + 1)) / 2
        let halfRatio = Float(p.halfConfidenceRatio)
        let uAmbient = Float(max(0, p.ambientScaleUncertainty)), halfDE = Float(max(p.halfConfidenceDeltaE, 1e-6))
        let regScale = Float(p.registrationScale), shadowF = Float(p.shadowFraction), specF = Float(p.specularFactor)

        let (valid, rho3, rough) = (validWork, rho3Work, roughWork)
        var xyz = [Float](repeating: 0, count: 3 * n)
        var conf = [UInt8](repeating: 0, count: n)
        var predicted = [Float](repeating: 0, count: n)
        var flags = [UInt8](repeating: 0, count: n)  // 1 shadow, 2 specular, 4 low ratio
        xyz.withUnsafeMutableBufferPointer { xb in
        conf.withUnsafeMutableBufferPointer { cb in
        flags.withUnsafeMutableBufferPointer { fb in
        predicted.withUnsafeMutableBufferPointer { pb in
            let xp = RowBuffer(xb.baseAddress!), cp = RowBuffer(cb.baseAddress!), fp = RowBuffer(fb.baseAddress!)
            let pp = RowBuffer(pb.baseAddress!)
            BoxFilter.parallelRows(h, threads) { y in
                for x in 0..<w {
                    let i = y * w + x
                    let ar = a.rgb[i], ag = a.rgb[n + i], ab = a.rgb[2 * n + i]
                    let isValid = valid[i] > 0
                    let dv = SIMD3<Float>(dBar[0][i], dBar[1][i], dBar[2][i])
                    let av = SIMD3<Float>(aBar[0][i], aBar[1][i], aBar[2][i])
                    let yDBar: Float = (my * dv).sum()
                    let yABar: Float = (my * av).sum()
                    var cam = SIMD3<Float>(ar, ag, ab)
                    var m: [Float] = am
                    let lit = isValid && yDBar > tiny && yABar > tiny
                    if lit {
                        let lum = yDBar / yABar
                        var g = SIMD3<Float>(0, 0, 0)
                        for c in 0..<3 { g[c] = max(dv[c], 0) / max(av[c], tiny) / lum }
                        cam = cam * g
                        m = fm
                    }
                    let r0 = SIMD3<Float>(m[0], m[1], m[2]), r1 = SIMD3<Float>(m[3], m[4], m[5]), r2 = SIMD3<Float>(m[6], m[7], m[8])
                    let out = SIMD3<Float>((r0 * cam).sum(), (r1 * cam).sum(), (r2 * cam).sum())
                    xp.p[3 * i] = out.x
                    xp.p[3 * i + 1] = out.y
                    xp.p[3 * i + 2] = out.z

                    // Step 6: confidence.
                    guard isValid else { cp.p[i] = 0; pp.p[i] = 0; continue }
                    let rho = max(yDBar, 0) / max(kf * yABar, tiny)
                    let ratioTerm = rho / (rho + halfRatio)
                    var deltaE = Float.infinity
                    if lit, dv.min() > tiny {
                        var sigma = SIMD3<Float>(0, 0, 0), beta = SIMD3<Float>(0, 0, 0)
                        for c in 0..<3 {
                            sigma[c] = ((dVarBar[c][i] / nEff) / (dv[c] * dv[c]) + (aVarBar[c][i] / nEff) / max(av[c] * av[c], tiny * tiny)).squareRoot()
                            beta[c] = uAmbient * kf * av[c] / dv[c]
                        }
                        deltaE = ConstantColourSolver.predictedDeltaE(xyz: out, columns: (
                            SIMD3(fm[0], fm[3], fm[6]) * cam.x, SIMD3(fm[1], fm[4], fm[7]) * cam.y, SIMD3(fm[2], fm[5], fm[8]) * cam.z),
                            sigma: sigma, beta: beta)
                    }
                    pp.p[i] = deltaE
                    let e = deltaE / halfDE
                    let errorTerm: Float = deltaE.isFinite ? 1 / (1 + e * e) : 0
                    let d = rough[i] / regScale
                    let regTerm = expf(-d * d)
                    var flag: UInt8 = 0
                    if rho3[i] < shadowF * rhoN[i] { flag |= 1 }
                    if rho3[i] > specF * rhoN[i] { flag |= 2 }
                    if rho < halfRatio { flag |= 4 }
                    fp.p[i] = flag
                    let product: Float = errorTerm * ratioTerm * regTerm
                    // A non-finite term (a hostile profile's huge matrix overflowing Float) counts as no confidence.
                    let value: Float = (flag & 3) != 0 || !product.isFinite ? 0 : 255 * product
                    cp.p[i] = UInt8(max(0, min(255, value.rounded())))
                }
            }
        }
        }
        }
        }
        // Clipped pixels' neighbourhoods (the frames' masks are already dilated to 3×3).
        var counts = [0, 0, 0, 0]
        var ratios: [Float] = []
        ratios.reserveCapacity(n)
        var sw = 0.0, swc = 0.0
        let sigma = max(p.centreSigma, 1e-6)
        for y in 0..<h {
            let v = (Double(y) + 0.5 - Double(h) / 2) / (Double(h) / 2)
            for x in 0..<w {
                let i = y * w + x
                if clippedAny[i] != 0 { counts[2] += 1; conf[i] = 0 }
                if flags[i] & 1 != 0 { counts[0] += 1 }
                if flags[i] & 2 != 0 { counts[1] += 1 }
                if flags[i] & 4 != 0 { counts[3] += 1 }
                if valid[i] > 0 { ratios.append(rho3[i]) }
                let u = (Double(x) + 0.5 - Double(w) / 2) / (Double(w) / 2)
                let wt = exp(-(u * u + v * v) / (2 * sigma * sigma))
                sw += wt; swc += wt * Double(conf[i])
            }
        }
        ratios.sort()
        let median = ratios.isEmpty ? 0 : Double(ratios[ratios.count / 2])
        let total = Double(max(n, 1))
        let fractions: [String: Double] = [
            "flashShadow": Double(counts[0]) / total, "specular": Double(counts[1]) / total,
            "clipped": Double(counts[2]) / total, "lowFlashRatio": Double(counts[3]) / total,
            "outsideOverlap": Double(outside) / total,
        ]
        return ConstantColourResult(width: w, height: h, xyzD65: xyz, confidence: conf, predictedDeltaE: predicted,
                                    centreWeightedConfidence: sw > 0 ? swc / sw / 255 : 0,
                                    registration: reg, ambientScale: k, medianFlashRatio: median, fractions: fractions)
    }
}

extension ConstantColourSolver {
    /// The colour error (ΔE2000 with the luminance held, to first order) of a pixel whose output
    /// XYZ (D65, Y = 1 for the white) is `xyz`, when camera channel c changes by a relative e_c
    /// and so moves XYZ by e_c · `columns`.c: √(Σ_c ΔE(e_c = σ_c)² + ΔE(e = β)²) — independent
    /// relative noise `sigma` per channel and one common-signed relative bias `beta`.
    /// Each XYZ change is taken minus its share along `xyz` that keeps Y (so ΔL = 0), mapped to
    /// Δa*, Δb* by CIELAB's Jacobian (D65 white; f(t) = t^⅓, slope 841/108 below (6/29)³), then
    /// through CIEDE2000's terms at the pixel's colour (Sharma, Wu & Dalal 2005): a' = (1 + G)·a*,
    /// ΔC' and ΔH' the radial and tangential parts of (Δa', Δb*), S_C, S_H (with T) and R_T, so
    /// ΔE² = (ΔC'/S_C)² + (ΔH'/S_H)² + R_T·(ΔC'/S_C)(ΔH'/S_H). G is held at the pixel's chroma.
    public static func predictedDeltaE(xyz: SIMD3<Float>, columns: (SIMD3<Float>, SIMD3<Float>, SIMD3<Float>),
                                       sigma: SIMD3<Float>, beta: SIMD3<Float>) -> Float {
        let white = SIMD3<Float>(0.95047, 1, 1.08883)
        let t = xyz / white
        let edge: Float = 216.0 / 24389
        func f(_ v: Float) -> Float { v > edge ? cbrtf(v) : (841.0 / 108) * v + 4.0 / 29 }
        func df(_ v: Float) -> Float { v > edge ? 1 / (3 * cbrtf(v) * cbrtf(v)) : 841.0 / 108 }
        let fx = f(t.x), fy = f(t.y), fz = f(t.z)
        let a = 500 * (fx - fy), b = 200 * (fy - fz)
        let c = (a * a + b * b).squareRoot()
        let c7 = powf(c, 7), k7: Float = 6103515625  // 25⁷
        let g = 0.5 * (1 - (c7 / (c7 + k7)).squareRoot())
        let a1 = (1 + g) * a
        let c1 = (a1 * a1 + b * b).squareRoot()
        let sC = 1 + 0.045 * c1
        var sH: Float = 1, rT: Float = 0
        var cosH: Float = 1, sinH: Float = 0
        if c1 > 1e-6 {
            cosH = a1 / c1; sinH = b / c1
            var hue = atan2f(b, a1) * 180 / .pi
            if hue < 0 { hue += 360 }
            func cosDeg(_ d: Float) -> Float { cosf(d * .pi / 180) }
            let tt = 1 - 0.17 * cosDeg(hue - 30) + 0.24 * cosDeg(2 * hue) + 0.32 * cosDeg(3 * hue + 6) - 0.20 * cosDeg(4 * hue - 63)
            sH = 1 + 0.015 * c1 * tt
            let c17 = powf(c1, 7)
            let theta = 30 * expf(-powf((hue - 275) / 25, 2))
            rT = -2 * (c17 / (c17 + k7)).squareRoot() * sinf(2 * theta * .pi / 180)
        }
        let d = SIMD3<Float>(df(t.x), df(t.y), df(t.z)) / white
        let y = max(xyz.y, 1e-12)
        func deltaE(_ v: SIMD3<Float>) -> Float {
            let u = v - xyz * (v.y / y)          // the same change at the pixel's luminance
            let da = (1 + g) * 500 * d.x * u.x, db = -200 * d.z * u.z
            let dc = (da * cosH + db * sinH) / sC, dh = (db * cosH - da * sinH) / sH
            return max(0, dc * dc + dh * dh + rT * dc * dh).squareRoot()
        }
        let noise2 = pow2(deltaE(columns.0) * sigma.x) + pow2(deltaE(columns.1) * sigma.y) + pow2(deltaE(columns.2) * sigma.z)
        let bias = deltaE(columns.0 * beta.x + columns.1 * beta.y + columns.2 * beta.z)
        let out = (noise2 + bias * bias).squareRoot()
        return out.isFinite ? out : .infinity
    }

    static func pow2(_ v: Float) -> Float { v * v }
}
