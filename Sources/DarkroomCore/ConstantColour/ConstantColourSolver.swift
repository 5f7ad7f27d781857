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
/// 6. Confidence = 255 · ratio term · noise term · registration term, 0 on clipped pixels, flash
///    shadows and flash speculars (definitions in `ConstantColourParameters`; Y is the flash
///    profile's luminance row). The centre-weighted mean uses w = exp(−(u² + v²) / (2σ²)),
///    u, v = offset from the centre over the half-width / half-height, σ = `centreSigma`.
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

        // Step 4: flash-only signal, its variance (luminance), validity.
        var dPlanes = [Float](repeating: 0, count: 3 * n)
        var yVar = [Float](repeating: 0, count: n)
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
                var v = 0.0
                for c in 0..<3 {
                    let fa = f.rgb[c * n + j], am = a.rgb[c * n + i]
                    dPlanes[c * n + i] = fa - kf * am
                    let varF = f.noise[c].scale * Double(max(fa, 0)) + f.noise[c].offset
                    let varA = a.noise[c].scale * Double(max(am, 0)) + a.noise[c].offset
                    let m = Double(my[c])
                    v += m * m * (varF + k * k * varA)
                }
                yVar[i] = Float(v)
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
        let varBar = box(yVar[0..<n], r)
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
        let halfRatio = Float(p.halfConfidenceRatio), halfSNR2 = Float(p.halfConfidenceSNR * p.halfConfidenceSNR)
        let regScale = Float(p.registrationScale), shadowF = Float(p.shadowFraction), specF = Float(p.specularFactor)

        let (valid, rho3, rough) = (validWork, rho3Work, roughWork)
        var xyz = [Float](repeating: 0, count: 3 * n)
        var conf = [UInt8](repeating: 0, count: n)
        var flags = [UInt8](repeating: 0, count: n)  // 1 shadow, 2 specular, 4 low ratio
        xyz.withUnsafeMutableBufferPointer { xb in
        conf.withUnsafeMutableBufferPointer { cb in
        flags.withUnsafeMutableBufferPointer { fb in
            let xp = RowBuffer(xb.baseAddress!), cp = RowBuffer(cb.baseAddress!), fp = RowBuffer(fb.baseAddress!)
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
                    if isValid, yDBar > tiny, yABar > tiny {
                        let lum = yDBar / yABar
                        var g = SIMD3<Float>(0, 0, 0)
                        for c in 0..<3 { g[c] = max(dv[c], 0) / max(av[c], tiny) / lum }
                        cam = cam * g
                        m = fm
                    }
                    let r0 = SIMD3<Float>(m[0], m[1], m[2]), r1 = SIMD3<Float>(m[3], m[4], m[5]), r2 = SIMD3<Float>(m[6], m[7], m[8])
                    xp.p[3 * i] = (r0 * cam).sum()
                    xp.p[3 * i + 1] = (r1 * cam).sum()
                    xp.p[3 * i + 2] = (r2 * cam).sum()

                    // Step 6: confidence.
                    guard isValid else { cp.p[i] = 0; continue }
                    let rho = max(yDBar, 0) / max(kf * yABar, tiny)
                    let ratioTerm = rho / (rho + halfRatio)
                    let snr2: Float = yDBar > 0 ? yDBar * yDBar * nEff / max(varBar[i], 1e-20) : 0
                    let noiseTerm = snr2 / (snr2 + halfSNR2)
                    let d = rough[i] / regScale
                    let regTerm = expf(-d * d)
                    var flag: UInt8 = 0
                    if rho3[i] < shadowF * rhoN[i] { flag |= 1 }
                    if rho3[i] > specF * rhoN[i] { flag |= 2 }
                    if rho < halfRatio { flag |= 4 }
                    fp.p[i] = flag
                    let product: Float = ratioTerm * noiseTerm * regTerm
                    // A non-finite term (a hostile profile's huge matrix overflowing Float) counts as no confidence.
                    let value: Float = (flag & 3) != 0 || !product.isFinite ? 0 : 255 * product
                    cp.p[i] = UInt8(max(0, min(255, value.rounded())))
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
        return ConstantColourResult(width: w, height: h, xyzD65: xyz, confidence: conf,
                                    centreWeightedConfidence: sw > 0 ? swc / sw / 255 : 0,
                                    registration: reg, ambientScale: k, medianFlashRatio: median, fractions: fractions)
    }
}
