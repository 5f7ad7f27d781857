import Foundation

/// `MSGDemosaic` with sharper directional weights, diagonal weights for red at blue / blue at red
/// and a green-guided refinement (diagonal weights after Fan, Feng, Ren & Wang, "Color
/// demosaicking via fully directional estimation", SpringerPlus 5:1736, 2016, who take them from
/// the green plane; ours come from the mosaic, which measured better; our own code):
///
/// 1. Hamilton–Adams colour differences `ΔH`, `ΔV` and their multiscale gradients
///    `|Δ(−1) − Δ(+1)| + scale2 · |Δ(−2) − Δ(+2)|`, as msg, but summed over 3×3 windows:
///    `qH = 1/(ε + Σ₃ₓ₃ DH)²`, `qV` likewise.
/// 2. Green: the four one-sided Gaussian estimates (σ px, k = 0…4) weighted by the windows one
///    and two pixels out on that side (`w_N = qV(y−1) + qV(y−2)`, …). Red/blue at green sites
///    and the refinement use the one-pixel windows alone (`f_N ∝ qV(y−1)`, …).
/// 3. Red at blue / blue at red: `diagonalShare` of the diagonal neighbours' colour differences
///    weighted by `1/(ε + Σ₃ₓ₃ D)²` of the mosaic's gradient along each diagonal
///    (`|m(−1) − m(+1)|` along it, same-colour samples; window centred on that neighbour), the
///    rest GBTF's 7×7 `prb` filter.
/// 4. Red and blue at green sites as msg (four cardinal differences weighted by `f`).
/// 5. Refinement as msg (the colour difference at each red/blue site moves `refine` of the way
///    to the weighted mean of its green neighbours' differences, then red/blue at green sites
///    again), the mean's weights being `greenShare` of the green plane's own H/V gradient
///    weights (`1/(ε + Σ D)²` over the three pixels ending at that neighbour, along the
///    direction) and the rest `f`.
///
/// Exactness: each stage runs wherever its reads stay in bounds; the output equals the unbounded
/// result at distance ≥ `exactInset` (13); `halo` adds 3 so every stage's eight-lane row loops
/// have room in the smallest region the contract allows. The band outside is filled bilinearly.
public struct MSGDiagonalDemosaic: DemosaicKernel {
    /// Distance (pixels) from the region edge from which the output is exact.
    public static let exactInset = 13
    /// ε in every weight `1/(ε + Σ D)²` (data scale 1.0 = clip; raised to ≥ 10⁻¹²).
    public var epsilon: Float
    /// Weight of the two-pixel term in every multiscale gradient.
    public var scale2: Float
    /// σ in pixels of the one-sided directional estimates' taps (0 = flat 5-tap mean).
    public var sigma: Float
    /// Share of the neighbours' colour differences in the refinement (0 = no refinement).
    public var refine: Float
    /// Share of the diagonal-weighted mean in red at blue / blue at red (the rest `prb`).
    public var diagonalShare: Float
    /// Share of the green plane's gradient weights in the refinement's mean (the rest `f`).
    public var greenShare: Float

    public init(epsilon: Float = 1e-5, scale2: Float = 0.5, sigma: Float = 1.75, refine: Float = 0.75,
                diagonalShare: Float = 0.5, greenShare: Float = 0.75) {
        self.epsilon = max(epsilon, 1e-12); self.scale2 = max(scale2, 0); self.sigma = max(sigma, 0)
        self.refine = min(max(refine, 0), 1)
        self.diagonalShare = min(max(diagonalShare, 0), 1); self.greenShare = min(max(greenShare, 0), 1)
    }

    public var halo: Int { Self.exactInset + 3 }

    private enum Plane: Int, CaseIterable {
        case dH, dV, gGH, gGV, qH, qV, qA, qD, fS, fW, fE, dR, dB
    }

    public func demosaic(mosaic m: UnsafePointer<Float>, width: Int, height: Int, cfa: CFAPattern,
                         red: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>,
                         blue: UnsafeMutablePointer<Float>) {
        let w = width, h = height
        if DemosaicBorder.fillIfTooSmall(halo: halo, mosaic: m, width: w, height: h, cfa: cfa,
                                         red: red, green: green, blue: blue) { return }
        typealias V = DemosaicVector.V
        typealias D = DemosaicVector
        let n = w * h
        let storage = UnsafeMutablePointer<Float>.allocate(capacity: Plane.allCases.count * n)
        // No initialisation: every stage reads only pixels an earlier stage wrote (its range is
        // the reads' inset plus its radius), and everything nearer the edge than `exactInset` is
        // overwritten by the border fill.
        defer { storage.deallocate() }
        func plane(_ p: Plane) -> UnsafeMutablePointer<Float> { storage + p.rawValue * n }
        let dH = plane(.dH), dV = plane(.dV), gGH = plane(.gGH), gGV = plane(.gGV)
        let qH = plane(.qH), qV = plane(.qV), qA = plane(.qA), qD = plane(.qD)
        let fSp = plane(.fS), fWp = plane(.fW), fEp = plane(.fE)
        let dR = plane(.dR), dB = plane(.dB)

        let stages = MSGRowStages(m: m, w: w, h: h, cfa: cfa, dH: dH, dV: dV, fS: fSp, fW: fWp, fE: fEp,
                                  dR: dR, dB: dB, red: red, green: green, blue: blue)
        let greenParity = stages.greenParity, rowIsRed = stages.rowIsRed
        let eps = epsilon, s2 = scale2
        let (t1, t2, t3, t4) = MSGRowStages.taps(sigma: sigma)
        let largest = V(repeating: 1e6)
        @inline(__always) func chunks(_ k: Int, _ body: (Int) -> Void) { stages.chunks(k, body) }
        /// `(ε + s)²` scaled by `(10⁻⁵/ε)²` and capped at 10¹², so it is ≥ 10⁻¹⁰ and products of
        /// three stay in Float range (the refinement's one-division shares).
        let scale = 1e-5 / eps
        @inline(__always) func squareScaled(_ s: V) -> V {
            var a = (s + eps) * scale
            a = a.replacing(with: largest, where: a .> largest)
            return a * a
        }
        /// `1/(ε + s)²` with the sum capped so the square stays finite.
        @inline(__always) func inverseSquare(_ s: V) -> V {
            var a = s + eps
            a = a.replacing(with: largest, where: a .> largest)
            return 1 / (a * a)
        }
        /// `|p(−s) − p(+s)| + scale2 · |p(−2s) − p(+2s)|`.
        @inline(__always) func gradient(_ p: UnsafePointer<Float>, _ s: Int) -> V {
            D.abs(D.load(p - s) - D.load(p + s)) + D.abs(D.load(p - 2 * s) - D.load(p + 2 * s)) * s2
        }

        // The stages run as one sweep down the region: at step Y each stage does one row, lagging
        // Y by the rows its reads need from the stages before it (and, for the refinement's
        // commit, by the rows the stages before it still read from what it overwrites). The rows,
        // columns and arithmetic are those of one pass per stage over whole planes, so the
        // output is the same bits; only a band of about twenty rows of every plane is live at once,
        // which stays in cache. Lags: Hamilton–Adams 0, gradients 2 (they read ΔV two rows down),
        // window rows 3, green 5 (windows two rows down), green gradients 7 (green two rows
        // down), red at blue 8 (differences three rows down), red and blue 9 (one row down),
        // refinement 12 (red and blue one row down; its commit rewrites differences and green that
        // the green gradients, red at blue and the first red-and-blue stage read up to two,
        // three and one rows from theirs).
        let lagGradient = 2, lagGreen = 5, lagGreenGradient = 7, lagCross = 8, lagCardinal = 9, lagRefine = 12

        // Multiscale gradients of ΔH / ΔV and one-scale gradients of the mosaic along both
        // diagonals (same-colour samples), summed over three columns as they are formed (rows
        // from 4, columns from 5), then over three rows → inverse squares for ΔH / ΔV, scaled
        // squares for the diagonals (their shares are formed with one division; inset 5). The
        // three-column sums live in a ring of three rows per quantity.
        let ringRows = 3
        let ring = UnsafeMutablePointer<Float>.allocate(capacity: 4 * ringRows * w)
        defer { ring.deallocate() }
        @inline(__always) func slot(_ p: Int, _ y: Int) -> UnsafeMutablePointer<Float> { ring + (p * ringRows + y % ringRows) * w }
        @inline(__always) func gradientRow(_ y: Int) {
            let o = y * w
            let sH = slot(0, y), sV = slot(1, y), sA = slot(2, y), sD = slot(3, y)
            chunks(5) { x in
                let ph = UnsafePointer(dH + o + x), pv = UnsafePointer(dV + o + x), p = m + o + x
                D.store((gradient(ph - 1, 1) + gradient(ph + 1, 1)) + gradient(ph, 1), sH + x)
                D.store((gradient(pv - 1, w) + gradient(pv + 1, w)) + gradient(pv, w), sV + x)
                let a0 = D.abs(D.load(p - w) - D.load(p + w - 2)), a1 = D.abs(D.load(p - w + 1) - D.load(p + w - 1))
                let a2 = D.abs(D.load(p - w + 2) - D.load(p + w))
                let d0 = D.abs(D.load(p - w - 2) - D.load(p + w)), d1 = D.abs(D.load(p - w - 1) - D.load(p + w + 1))
                let d2 = D.abs(D.load(p - w) - D.load(p + w + 2))
                D.store((a0 + a2) + a1, sA + x)
                D.store((d0 + d2) + d1, sD + x)
            }
        }
        /// Window row `y` (rows 5 ..< h − 5), once gradient rows y − 1 … y + 1 are in the ring.
        @inline(__always) func windowRow(_ y: Int) {
            let o = y * w
            chunks(5) { x in
                @inline(__always) func column(_ p: Int) -> V {
                    (D.load(slot(p, y - 1) + x) + D.load(slot(p, y + 1) + x)) + D.load(slot(p, y) + x)
                }
                D.store(inverseSquare(column(0)), qH + o + x); D.store(inverseSquare(column(1)), qV + o + x)
                D.store(squareScaled(column(2)), qA + o + x); D.store(squareScaled(column(3)), qD + o + x)
            }
        }
        // 2. Green at red/blue sites; the one-pixel weights `f` (inset 7).
        @inline(__always) func greenRow(_ y: Int) {
            let o = y * w, gp = greenParity[y & 1]
            let d = rowIsRed[y & 1] ? dR : dB
            chunks(7) { x in
                let i = o + x
                let n1 = D.load(qV + i - w), s1 = D.load(qV + i + w), w1 = D.load(qH + i - 1), e1 = D.load(qH + i + 1)
                let cinv = 1 / ((n1 + s1) + (w1 + e1))
                D.store(s1 * cinv, fSp + i); D.store(w1 * cinv, fWp + i); D.store(e1 * cinv, fEp + i)
                let wN = n1 + D.load(qV + i - 2 * w), wS = s1 + D.load(qV + i + 2 * w)
                let wW = w1 + D.load(qH + i - 2), wE = e1 + D.load(qH + i + 2)
                let inv = 1 / ((wN + wS) + (wW + wE))
                let fS = wS * inv, fW = wW * inv, fE = wE * inv
                // Every mean is written as base + Σ share · (value − base), so a flat field stays exact.
                let (eW, eE, eN, eS) = stages.oneSided(i, t1, t2, t3, t4)
                let delta = eN + ((fS * (eS - eN) + fW * (eW - eN)) + fE * (eE - eN))
                D.store(delta, d + i)
                D.store(D.load(m + i) + delta * (1 - D.parityLanes(x, gp)), green + i)
            }
        }
        // The green plane's multiscale H/V gradients (inset 9), for the refinement.
        @inline(__always) func greenGradientRow(_ y: Int) {
            let o = y * w
            chunks(9) { x in
                let g = UnsafePointer(green + o + x)
                D.store(gradient(g, 1), gGH + o + x); D.store(gradient(g, w), gGV + o + x)
            }
        }
        // 3. Red at blue / blue at red: prb blended with the diagonal-weighted mean (inset 10).
        //    In place: a row writes only its own plane's non-green sites and reads the other rows'.
        let ds = diagonalShare
        @inline(__always) func crossRow(_ y: Int) {
            let p = rowIsRed[y & 1] ? dB : dR
            chunks(10) { x in
                let i = y * w + x, c = p + i
                let nw = D.load(c - w - 1), ne = D.load(c - w + 1), sw = D.load(c + w - 1), se = D.load(c + w + 1)
                let inner = (nw + ne) + (sw + se)
                let outer = ((D.load(c - 3 * w - 1) + D.load(c - 3 * w + 1)) + (D.load(c + 3 * w - 1) + D.load(c + 3 * w + 1)))
                    + ((D.load(c - w - 3) + D.load(c + w - 3)) + (D.load(c - w + 3) + D.load(c + w + 3)))
                let prb = (inner * 10 - outer) * 0.03125
                // Shares ∝ 1/a² as products of the other three squares (one division).
                let pNW = D.load(qD + i - w - 1), pSE = D.load(qD + i + w + 1)
                let pNE = D.load(qA + i - w + 1), pSW = D.load(qA + i + w - 1)
                let a = pNW * pSE, b = pNE * pSW
                let tNW = b * pSE, tSE = b * pNW, tNE = a * pSW, tSW = a * pNE
                let inv = 1 / ((tNW + tSE) + (tNE + tSW))
                let diag = nw + ((tSE * inv * (se - nw) + tNE * inv * (ne - nw)) + tSW * inv * (sw - nw))
                D.store(prb + (diag - prb) * ds, c)
            }
        }
        // 5a. Colour difference at red/blue sites toward its green neighbours' (inset 12), into a
        //     row buffer; the commit then rewrites the row's differences and green.
        let k = 11, r = refine, gs = greenShare
        let refined = UnsafeMutablePointer<Float>.allocate(capacity: w)
        defer { refined.deallocate() }
        @inline(__always) func refineRow(_ y: Int) {
            stages.refineRow(y, inset: k + 1, share: r, buffer: refined) { i, nN, nS, nW, nE in
                // Shares ∝ 1/a² as products of the other three squares (one division).
                let h0 = D.load(gGH + i), v0 = D.load(gGV + i)
                let pW = squareScaled((D.load(gGH + i - 2) + D.load(gGH + i - 1)) + h0)
                let pE = squareScaled((D.load(gGH + i + 2) + D.load(gGH + i + 1)) + h0)
                let pN = squareScaled((D.load(gGV + i - 2 * w) + D.load(gGV + i - w)) + v0)
                let pS = squareScaled((D.load(gGV + i + 2 * w) + D.load(gGV + i + w)) + v0)
                let nw = pN * pW, se = pS * pE
                let tN = se * pW, tS = nw * pE, tW = se * pN, tE = nw * pS
                let ginv = gs / ((tN + tS) + (tW + tE)), fs = 1 - gs
                let rS = tS * ginv + D.load(fSp + i) * fs, rW = tW * ginv + D.load(fWp + i) * fs
                let rE = tE * ginv + D.load(fEp + i) * fs
                return nN + ((rS * (nS - nN) + rW * (nW - nN)) + rE * (nE - nN))
            }
        }
        let refining = refine > 0
        for step in 2..<(h + lagRefine) {
            // 1. Hamilton–Adams colour differences, Δ = green − other (inset 2).
            if step < h - 2 { stages.hamiltonAdams(step) }
            let yg = step - lagGradient
            if yg >= 4 && yg < h - 4 { gradientRow(yg) }
            if yg - 1 >= 5 && yg - 1 < h - 5 { windowRow(yg - 1) }
            if case let y = step - lagGreen, y >= 7 && y < h - 7 { greenRow(y) }
            if case let y = step - lagGreenGradient, refining && y >= 9 && y < h - 9 { greenGradientRow(y) }
            if case let y = step - lagCross, y >= 10 && y < h - 10 { crossRow(y) }
            // 4. Red and blue at every site (inset 11).
            if case let y = step - lagCardinal, y >= k && y < h - k { stages.cardinal(y, inset: k) }
            if case let y = step - lagRefine, refining && y >= k + 1 && y < h - k - 1 {
                refineRow(y)
                // 5b. Red and blue again from the refined differences (inset 13), one row behind.
                if y - 1 >= k + 2 { stages.cardinal(y - 1, inset: k + 2) }
            }
        }
        DemosaicBorder.fill(mosaic: m, width: w, height: h, cfa: cfa, inset: Self.exactInset,
                            red: red, green: green, blue: blue)
    }
}
