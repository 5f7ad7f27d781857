/// A cheap correlation-adaptive demosaic: MSG (`MSGDemosaic`) wherever the three channels share
/// their detail, blended toward a one-step residual interpolation with locally fitted slopes
/// where they do not. Everything besides MSG is computed on the Bayer quads (one red, two green,
/// one blue sample), a quarter of the pixels, with windows of quads.
///
/// Input and output as every `DemosaicKernel` (linear sensor values, 1.0 = clip, planar R, G, B).
///
/// Per quad (anchored on the red sample, so the grid is the same for every region):
/// 1. `Ĝ` = the mean of the four greens around the red and around the blue sample; band-passes
///    `hp(v) = v − ¼ (the four same-colour values one quad away)` of R, B, Ĝ(R), Ĝ(B).
/// 2. Over `(2·window+1)²` quads the sums of `hp(R)·hp(Ĝ)`, `hp(R)²`, `hp(Ĝ)²` (and for B). The
///    slope of the sample on the estimate, `s = (ΣP_R + ΣP_B + ε) / (ΣT_R + ΣT_B + ε)`, sets the
///    fallback share `t = 1 − clamp((s − lowerSlope) / (upperSlope − lowerSlope), 0, 1)` (as
///    `AdaptiveDemosaic`'s slope, from R/B sites only). The pair slopes `a = (ΣP + ε) / (ΣS + ε)`
///    (green from red / blue) and `(ΣP + ε) / (ΣT + ε)` (red / blue from green), clamped to
///    `[minimumSlope, maximumSlope]`, are the local linear models.
/// 3. Fallback: green at a red site `Ĝ + a_GR · hp(R) / 2` (residual interpolation with a
///    bilinear residual: slope-scaled Malvar), red and blue elsewhere the mean of the nearest
///    samples plus `a_RG ·` (green there − the mean of green at those samples).
/// Output `msg + t · (fallback − msg)`, MSG's bytes where `t` is 0.
///
/// Exactness: every quad value reads fixed offsets of the mosaic and sums in a fixed order, and
/// is used only where all its reads were inside the region, so the output equals the unbounded
/// result at distance ≥ `halo` = max(MSG's halo, 2·window + 8).
public struct AdaptiveRIDemosaic: DemosaicKernel {
    /// The colour-difference demosaic used where the channels correlate.
    public var directional: MSGDemosaic
    /// Half-side of the window in quads (default 7: 15×15 quads, 30×30 pixels).
    public var window: Int
    /// ε added to the window sums (squared data units, data scale 1.0 = clip).
    public var epsilon: Float
    /// Slope at or below which the output is all fallback.
    public var lowerSlope: Float
    /// Slope from which the output is MSG's bytes.
    public var upperSlope: Float
    /// Clamp of the fallback's fitted slopes.
    public var minimumSlope: Float
    public var maximumSlope: Float

    public init(directional: MSGDemosaic = MSGDemosaic(), window: Int = 7, epsilon: Float = 1e-2,
                lowerSlope: Float = 0.3, upperSlope: Float = 0.6, minimumSlope: Float = -1, maximumSlope: Float = 2) {
        self.directional = directional
        self.window = max(1, window); self.epsilon = max(epsilon, 1e-12)
        self.lowerSlope = lowerSlope; self.upperSlope = max(upperSlope, lowerSlope + 1e-3)
        self.minimumSlope = minimumSlope; self.maximumSlope = max(maximumSlope, minimumSlope)
    }

    /// Green fallback from horizontal and vertical estimates weighted by their gradients (else
    /// their mean, slope-scaled Malvar).
    public var directionalGreen: Bool = true
    /// Fitted slopes as correlation × amplitude ratio (else least squares of the estimate on the sample).
    public var amplitudeSlopes: Bool = true
    /// The share from a coarser band-pass (same-colour samples 4 px away): the finest band aliases
    /// in the bilinear estimates on fine texture, which made correlated texture look uncorrelated.
    public var coarseShare: Bool = true
    /// Fine-to-coarse band energy ratio of the samples above which the share fades (to 0 at twice it; 0 = off).
    public var aliasRatio: Float = 1

    public var halo: Int { max(directional.halo, 2 * window + 10) }

    /// Green at the red/blue sample `p` (quad `q` of its colour's quad plane `c`) with slope `a`:
    /// the horizontal and vertical one-step residual interpolations, each weighted by
    /// `1 / (gradient² + δ)`.
    @inline(__always)
    func directionalGreenEstimate(_ m: UnsafePointer<Float>, _ p: Int, _ w: Int,
                                  _ c: UnsafeMutablePointer<Float>, _ q: Int, _ qw: Int, _ a: Float) -> Float {
        let lh = (c[q] - (c[q - 1] + c[q + 1]) * 0.5) * a, lv = (c[q] - (c[q - qw] + c[q + qw]) * 0.5) * a
        let gw = m[p - 1], ge = m[p + 1], gn = m[p - w], gs = m[p + w]
        let gh = (gw + ge) * 0.5 + lh * 0.5, gv = (gn + gs) * 0.5 + lv * 0.5
        let dh = abs(gw - ge) + abs(lh), dv = abs(gn - gs) + abs(lv)
        let wh = 1 / (dh * dh + 1e-6), wv = 1 / (dv * dv + 1e-6)
        return gv + wh * (gh - gv) / (wh + wv)
    }

    public func demosaic(mosaic m: UnsafePointer<Float>, width: Int, height: Int, cfa: CFAPattern,
                         red: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>,
                         blue: UnsafeMutablePointer<Float>) {
        let halo = self.halo
        if DemosaicBorder.fillIfTooSmall(halo: halo, mosaic: m, width: width, height: height, cfa: cfa,
                                         red: red, green: green, blue: blue) { return }
        directional.demosaic(mosaic: m, width: width, height: height, cfa: cfa, red: red, green: green, blue: blue)
        let w = width, k = window
        var ox = 0, oy = 0
        for y in 0..<2 { for x in 0..<2 where cfa.color(x: x, y: y) == .red { ox = x; oy = y } }
        let qw = (w - ox) / 2, qh = (height - oy) / 2, qn = qw * qh
        let planeCount = 33
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: planeCount * qn)
        defer { scratch.deallocate() }
        func plane(_ i: Int) -> UnsafeMutablePointer<Float> { scratch + i * qn }
        let rq = plane(0), bq = plane(1), gr = plane(2), gb = plane(3)
        let hpR = plane(4), hpB = plane(5)
        // P_R, S_R, T_R, P_B, S_B, T_B, U_G, and the coarse band's P, T (R and B together)
        let sums = (0..<6).map { plane(6 + $0) } + [plane(23), plane(27), plane(28), plane(31)]
        let rowSums = (0..<6).map { plane(12 + $0) } + [plane(24), plane(29), plane(30), plane(32)]
        let planesSummed = coarseShare ? 10 : 7
        let g1q = plane(25), g2q = plane(26)
        let aRG = plane(18), aBG = plane(19), share = plane(20)
        let gfr = plane(21), gfB = plane(22)              // green fallback at R / B sites
        // 1. Samples and bilinear green at R and B sites (quads 1 ..< q − 1).
        for j in 1..<(qh - 1) {
            for i in 1..<(qw - 1) {
                let r = (oy + 2 * j) * w + ox + 2 * i, b = r + w + 1, q = j * qw + i
                rq[q] = m[r]; bq[q] = m[b]; g1q[q] = m[r + 1]; g2q[q] = m[r + w]
                gr[q] = ((m[r - 1] + m[r + 1]) + (m[r - w] + m[r + w])) * 0.25
                gb[q] = ((m[b - 1] + m[b + 1]) + (m[b - w] + m[b + w])) * 0.25
            }
        }
        // Band-passes and products (quads 3 ..< q − 3).
        let pR = sums[0], sR = sums[1], tR = sums[2], pB = sums[3], sB = sums[4], tB = sums[5]
        for j in 3..<(qh - 3) {
            for i in 3..<(qw - 3) {
                let q = j * qw + i
                @inline(__always) func hp2(_ p: UnsafeMutablePointer<Float>) -> Float {
                    p[q] - ((p[q - 2] + p[q + 2]) + (p[q - 2 * qw] + p[q + 2 * qw])) * 0.25
                }
                if coarseShare {
                    let cr = hp2(rq), cb = hp2(bq), cgr = hp2(gr), cgb = hp2(gb)
                    sums[7][q] = cr * cgr + cb * cgb
                    sums[8][q] = cgr * cgr + cgb * cgb
                    sums[9][q] = cr * cr + cb * cb
                }
                @inline(__always) func hp(_ p: UnsafeMutablePointer<Float>) -> Float {
                    p[q] - ((p[q - 1] + p[q + 1]) + (p[q - qw] + p[q + qw])) * 0.25
                }
                let hr = hp(rq), hb = hp(bq), hgr = hp(gr), hgb = hp(gb)
                hpR[q] = hr; hpB[q] = hb
                pR[q] = hr * hgr; sR[q] = hr * hr; tR[q] = hgr * hgr
                pB[q] = hb * hgb; sB[q] = hb * hb; tB[q] = hgb * hgb
                let h1 = hp(g1q), h2 = hp(g2q)
                sums[6][q] = (h1 * h1 + h2 * h2) * 0.5
            }
        }
        // Window sums along quad rows (quads 3 + k ..< q − 3 − k across, 3 ..< q − 3 down).
        for j in 3..<(qh - 3) {
            for p in 0..<planesSummed {
                let src = sums[p] + j * qw, dst = rowSums[p] + j * qw
                for i in (3 + k)..<(qw - 3 - k) {
                    var s: Float = 0
                    for d in -k...k { s += src[i + d] }
                    dst[i] = s
                }
            }
        }
        // Down the columns; slopes, share, green fallback (quads 3 + k ..< q − 3 − k).
        let eps = epsilon, lower = lowerSlope, inverseSpan = 1 / (upperSlope - lowerSlope)
        let lo = minimumSlope, hi = maximumSlope
        @inline(__always) func clampSlope(_ v: Float) -> Float { v >= lo ? min(v, hi) : lo }
        for j in (3 + k)..<(qh - 3 - k) {
            for i in (3 + k)..<(qw - 3 - k) {
                let q = j * qw + i
                var c0: Float = 0, c1: Float = 0, c2: Float = 0
                if coarseShare {
                    for d in -k...k { let o = q + d * qw; c0 += rowSums[7][o]; c1 += rowSums[8][o]; c2 += rowSums[9][o] }
                }
                var s0: Float = 0, s1: Float = 0, s2: Float = 0, s3: Float = 0, s4: Float = 0, s5: Float = 0, s6: Float = 0
                for d in -k...k {
                    let o = q + d * qw
                    s0 += rowSums[0][o]; s1 += rowSums[1][o]; s2 += rowSums[2][o]
                    s3 += rowSums[3][o]; s4 += rowSums[4][o]; s5 += rowSums[5][o]; s6 += rowSums[6][o]
                }
                let aGR: Float, aGB: Float
                if amplitudeSlopes {
                    // Correlation of the sample with the bilinear estimate, times the ratio of the
                    // two colours' band-pass amplitudes on their own lattices (no interpolation
                    // attenuation in either).
                    let rhoR = (s0 + eps) / ((s1 + eps) * (s2 + eps)).squareRoot()
                    let rhoB = (s3 + eps) / ((s4 + eps) * (s5 + eps)).squareRoot()
                    let ratioR = ((s6 + eps) / (s1 + eps)).squareRoot(), ratioB = ((s6 + eps) / (s4 + eps)).squareRoot()
                    aGR = clampSlope(rhoR * ratioR); aGB = clampSlope(rhoB * ratioB)
                    aRG[q] = clampSlope(rhoR / ratioR); aBG[q] = clampSlope(rhoB / ratioB)
                } else {
                    aGR = clampSlope((s0 + eps) / (s1 + eps)); aGB = clampSlope((s3 + eps) / (s4 + eps))
                    aRG[q] = clampSlope((s0 + eps) / (s2 + eps)); aBG[q] = clampSlope((s3 + eps) / (s5 + eps))
                }
                let slope = coarseShare ? (c0 + eps) / (c1 + eps) : ((s0 + s3) + eps) / ((s2 + s5) + eps)
                let u = (slope - lower) * inverseSpan
                var t = 1 - (u >= 0 ? min(u, 1) : 0)        // NaN → all fallback
                if coarseShare && aliasRatio > 0 {
                    // Fine band far above the coarse one: texture near the colour lattices'
                    // Nyquist, where the estimates alias and the slope cannot be trusted.
                    let g = 2 - ((s1 + s4) + eps) / ((c2 + eps) * aliasRatio)
                    t *= g >= 0 ? min(g, 1) : 0
                }
                share[q] = t
                if directionalGreen {
                    let r = (oy + 2 * j) * w + ox + 2 * i
                    gfr[q] = directionalGreenEstimate(m, r, w, rq, q, qw, aGR)
                    gfB[q] = directionalGreenEstimate(m, r + w + 1, w, bq, q, qw, aGB)
                } else {
                    gfr[q] = gr[q] + aGR * hpR[q] * 0.5
                    gfB[q] = gb[q] + aGB * hpB[q] * 0.5
                }
            }
        }
        // 3. Fallback and blend, per quad (quads 4 + k ..< q − 4 − k).
        for j in (4 + k)..<(qh - 4 - k) {
            for i in (4 + k)..<(qw - 4 - k) {
                let q = j * qw + i
                let t = share[q]
                guard t > 0 else { continue }
                let r = (oy + 2 * j) * w + ox + 2 * i, g1 = r + 1, g2 = r + w, b = r + w + 1
                let qE = q + 1, qS = q + qw, qW = q - 1, qN = q - qw
                let ar = aRG[q], ab = aBG[q]
                // Green.
                let gR = gfr[q], gB = gfB[q], gG1 = m[g1], gG2 = m[g2]
                // Red.
                let rR = m[r]
                let rG1 = (rq[q] + rq[qE]) * 0.5 + ar * (gG1 - (gfr[q] + gfr[qE]) * 0.5)
                let rG2 = (rq[q] + rq[qS]) * 0.5 + ar * (gG2 - (gfr[q] + gfr[qS]) * 0.5)
                let rB = ((rq[q] + rq[qE]) + (rq[qS] + rq[qS + 1])) * 0.25
                    + ar * (gB - ((gfr[q] + gfr[qE]) + (gfr[qS] + gfr[qS + 1])) * 0.25)
                // Blue.
                let bB = m[b]
                let bG1 = (bq[qN] + bq[q]) * 0.5 + ab * (gG1 - (gfB[qN] + gfB[q]) * 0.5)
                let bG2 = (bq[qW] + bq[q]) * 0.5 + ab * (gG2 - (gfB[qW] + gfB[q]) * 0.5)
                let bR = ((bq[q] + bq[qW]) + (bq[qN] + bq[qN - 1])) * 0.25
                    + ab * (gR - ((gfB[q] + gfB[qW]) + (gfB[qN] + gfB[qN - 1])) * 0.25)
                @inline(__always) func mix(_ p: UnsafeMutablePointer<Float>, _ i: Int, _ v: Float) {
                    p[i] += t * (v - p[i])
                }
                mix(red, r, rR); mix(green, r, gR); mix(blue, r, bR)
                mix(red, g1, rG1); mix(green, g1, gG1); mix(blue, g1, bG1)
                mix(red, g2, rG2); mix(green, g2, gG2); mix(blue, g2, bG2)
                mix(red, b, rB); mix(green, b, gB); mix(blue, b, bB)
            }
        }
    }
}
