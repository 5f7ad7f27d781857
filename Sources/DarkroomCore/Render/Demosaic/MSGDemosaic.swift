import Foundation

/// Multiscale-gradient colour-difference demosaicing, after Pekkucuksen & Altunbasak,
/// "Multiscale gradients-based color filter array interpolation" (IEEE TIP 22(1), 2013), in the
/// structure of their GBTF (`GBTFDemosaic`), followed by a colour-difference refinement:
///
/// 1. Hamilton–Adams horizontal and vertical estimates of the missing colour at every pixel give
///    two colour-difference maps `ΔH`, `ΔV` (green minus red/blue).
/// 2. Multiscale colour-difference gradients: `|Δ(−1) − Δ(+1)| + scale2 · |Δ(−2) − Δ(+2)|` along
///    each axis (the second term compares same-type sites, so it sees structure the one-pixel
///    term aliases), summed over 5×5 windows.
/// 3. At red/blue sites the colour difference is a weighted mean of four one-sided 5-tap
///    estimates (north, south, west, east; tap weights `exp(−k²/2σ²)`, k = 0…4 pixels out), each
///    weighted by `1/(ε + Σ D)²` with `Σ D` the window of step 2 centred two pixels out on that
///    side. Green = raw + Δ.
/// 4. Red at blue and blue at red: green minus GBTF's 7×7 `prb` filter of the diagonal colour
///    differences; red and blue at green sites: green minus the four cardinal colour differences
///    weighted as in step 3.
/// 5. Refinement (`refine` share, 0 = off): with all three planes known, the colour difference at
///    each red/blue site is moved toward the weighted mean of the full colour differences at its
///    four green neighbours, and at green sites the red/blue differences are re-estimated from
///    their refined neighbours (the colour-difference smoothing of Menon et al. 2007 / Lu & Tan,
///    with the step-3 weights instead of a hard direction).
///
/// Exactness: each stage runs wherever its reads stay in bounds; the output equals the unbounded
/// result at distance ≥ `exactInset` (14), `halo` adds 3 so every stage's eight-lane row loops
/// have room in the smallest region the contract allows. The band outside is filled bilinearly.
public struct MSGDemosaic: DemosaicKernel {
    /// Distance (pixels) from the region edge from which the output is exact.
    public static let exactInset = 14
    /// ε in the directional weights `1/(ε + Σ D)²` (data scale 1.0 = clip; raised to ≥ 10⁻¹²).
    public var epsilon: Float
    /// Weight of the two-pixel colour-difference gradient (0 = GBTF's single scale).
    public var scale2: Float
    /// σ in pixels of the one-sided directional estimates' taps (0 = flat 5-tap mean, as GBTF).
    public var sigma: Float
    /// Share of the neighbours' colour differences in the refinement (0 = no refinement).
    public var refine: Float

    public init(epsilon: Float = 1e-5, scale2: Float = 0.5, sigma: Float = 2, refine: Float = 0.75) {
        self.epsilon = max(epsilon, 1e-12); self.scale2 = max(scale2, 0); self.sigma = max(sigma, 0)
        self.refine = min(max(refine, 0), 1)
    }

    public var halo: Int { Self.exactInset + 3 }

    private enum Plane: Int, CaseIterable {
        case dH, dV, rowH, rowV, qH, qV, fS, fW, fE, dR, dB
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
        let dH = plane(.dH), dV = plane(.dV)
        let rowH = plane(.rowH), rowV = plane(.rowV), qH = plane(.qH), qV = plane(.qV)
        let fSp = plane(.fS), fWp = plane(.fW), fEp = plane(.fE)
        let dR = plane(.dR), dB = plane(.dB)

        let stages = MSGRowStages(m: m, w: w, h: h, cfa: cfa, dH: dH, dV: dV, fS: fSp, fW: fWp, fE: fEp,
                                  dR: dR, dB: dB, red: red, green: green, blue: blue)
        let greenParity = stages.greenParity, rowIsRed = stages.rowIsRed
        let eps = epsilon, s2 = scale2
        let (t1, t2, t3, t4) = MSGRowStages.taps(sigma: sigma)
        let largest = V(repeating: 1e6)
        @inline(__always) func chunks(_ k: Int, _ body: (Int) -> Void) { stages.chunks(k, body) }

        // The stages run as one sweep down the region, as in `MSGDiagonalDemosaic`: at step Y each
        // stage does one row, lagging Y by the rows its reads need from the stages before it (and
        // the refinement's commit by the rows earlier stages still read from what it overwrites),
        // so the rows, columns and arithmetic — and the output bits — are those of one pass per
        // stage over whole planes, with only a band of rows live. Lags: Hamilton–Adams 0,
        // gradients and their row sums 2 (ΔV two rows down), windows 4 (row sums two rows down),
        // green 6 (windows two rows down), red at blue 9 (differences three rows down), red and
        // blue 10, refinement 13 (its commit rewrites differences that red at blue and the first
        // red-and-blue stage read up to three and one rows from theirs).
        let lagGradient = 2, lagWindow = 4, lagGreen = 6, lagCross = 9, lagCardinal = 10, lagRefine = 13
        // 2. Multiscale gradients (inset 4) and their 5-pixel row sums (inset 6).
        //    The gradients of a row live in two row buffers.
        let gradients = UnsafeMutablePointer<Float>.allocate(capacity: 2 * w)
        defer { gradients.deallocate() }
        let gH = gradients, gV = gradients + w
        @inline(__always) func gradientRow(_ y: Int) {
            let o = y * w
            chunks(4) { x in
                let ph = dH + o + x, pv = dV + o + x
                let a = D.abs(D.load(ph - 1) - D.load(ph + 1)) + D.abs(D.load(ph - 2) - D.load(ph + 2)) * s2
                let b = D.abs(D.load(pv - w) - D.load(pv + w)) + D.abs(D.load(pv - 2 * w) - D.load(pv + 2 * w)) * s2
                D.store(a, gH + x); D.store(b, gV + x)
            }
            chunks(6) { x in
                let ph = gH + x, pv = gV + x
                D.store(((D.load(ph - 2) + D.load(ph - 1)) + (D.load(ph + 1) + D.load(ph + 2))) + D.load(ph), rowH + o + x)
                D.store(((D.load(pv - 2) + D.load(pv - 1)) + (D.load(pv + 1) + D.load(pv + 2))) + D.load(pv), rowV + o + x)
            }
        }
        // 5×5 sums → squared inverse weights (inset 6).
        @inline(__always) func windowRow(_ y: Int) {
            let o = y * w
            chunks(6) { x in
                let ph = rowH + o + x, pv = rowV + o + x
                var a = ((D.load(ph - 2 * w) + D.load(ph - w)) + (D.load(ph + w) + D.load(ph + 2 * w))) + D.load(ph) + eps
                var b = ((D.load(pv - 2 * w) + D.load(pv - w)) + (D.load(pv + w) + D.load(pv + 2 * w))) + D.load(pv) + eps
                a = a.replacing(with: largest, where: a .> largest)
                b = b.replacing(with: largest, where: b .> largest)
                D.store(1 / (a * a), qH + o + x); D.store(1 / (b * b), qV + o + x)
            }
        }
        // 3. Directional weights and colour differences at red/blue sites; green (inset 8).
        @inline(__always) func greenRow(_ y: Int) {
            let o = y * w, gp = greenParity[y & 1]
            let d = rowIsRed[y & 1] ? dR : dB
            chunks(8) { x in
                let i = o + x
                let wN = D.load(qV + i - 2 * w), wS = D.load(qV + i + 2 * w)
                let wW = D.load(qH + i - 2), wE = D.load(qH + i + 2)
                let inv = 1 / ((wN + wS) + (wW + wE))
                let fS = wS * inv, fW = wW * inv, fE = wE * inv
                D.store(fS, fSp + i); D.store(fW, fWp + i); D.store(fE, fEp + i)
                // Every mean is written as base + Σ share · (value − base), so a flat field stays exact.
                let (eW, eE, eN, eS) = stages.oneSided(i, t1, t2, t3, t4)
                let delta = eN + ((fS * (eS - eN) + fW * (eW - eN)) + fE * (eE - eN))
                D.store(delta, d + i)
                D.store(D.load(m + i) + delta * (1 - D.parityLanes(x, gp)), green + i)
            }
        }
        // 4a. Red at blue / blue at red: prb ⊛ diagonal colour differences (inset 11). In place: a
        //     row writes only its own plane's non-green sites and reads the other rows'.
        @inline(__always) func crossRow(_ y: Int) {
            let p = rowIsRed[y & 1] ? dB : dR
            chunks(11) { x in
                let c = p + y * w + x
                let inner = (D.load(c - w - 1) + D.load(c - w + 1)) + (D.load(c + w - 1) + D.load(c + w + 1))
                let outer = ((D.load(c - 3 * w - 1) + D.load(c - 3 * w + 1)) + (D.load(c + 3 * w - 1) + D.load(c + 3 * w + 1)))
                    + ((D.load(c - w - 3) + D.load(c + w - 3)) + (D.load(c - w + 3) + D.load(c + w + 3)))
                D.store((inner * 10 - outer) * 0.03125, c)
            }
        }
        // 5a. Colour difference at red/blue sites toward its green neighbours' (inset 13), into a
        //     row buffer; the commit then rewrites the row's differences and green.
        let k = 12, r = refine
        let refined = UnsafeMutablePointer<Float>.allocate(capacity: w)
        defer { refined.deallocate() }
        @inline(__always) func refineRow(_ y: Int) {
            stages.refineRow(y, inset: k + 1, share: r, buffer: refined) { i, nN, nS, nW, nE in
                nN + ((D.load(fSp + i) * (nS - nN) + D.load(fWp + i) * (nW - nN)) + D.load(fEp + i) * (nE - nN))
            }
        }
        let refining = refine > 0
        for step in 2..<(h + lagRefine) {
            // 1. Hamilton–Adams colour differences, Δ = green − other (inset 2).
            if step < h - 2 { stages.hamiltonAdams(step) }
            if case let y = step - lagGradient, y >= 4 && y < h - 4 { gradientRow(y) }
            if case let y = step - lagWindow, y >= 6 && y < h - 6 { windowRow(y) }
            if case let y = step - lagGreen, y >= 8 && y < h - 8 { greenRow(y) }
            if case let y = step - lagCross, y >= 11 && y < h - 11 { crossRow(y) }
            // 4b. Red and blue at every site (inset 12).
            if case let y = step - lagCardinal, y >= 12 && y < h - 12 { stages.cardinal(y, inset: 12) }
            if case let y = step - lagRefine, refining && y >= k + 1 && y < h - k - 1 {
                refineRow(y)
                // 5b. Red and blue again from the refined differences (inset 14), one row behind.
                if y - 1 >= k + 2 { stages.cardinal(y - 1, inset: k + 2) }
            }
        }
        DemosaicBorder.fill(mosaic: m, width: w, height: h, cfa: cfa, inset: Self.exactInset,
                            red: red, green: green, blue: blue)
    }
}

/// The planes msg and msgd share and the row stages they run the same way (`MSGDemosaic`,
/// `MSGDiagonalDemosaic`): region `w × h`, mosaic `m`, CFA phase per row parity.
struct MSGRowStages {
    let m: UnsafePointer<Float>
    let w: Int, h: Int
    /// Per row parity: the column parity of green sites, and whether the row's other colour is red.
    let greenParity: [Int], rowIsRed: [Bool]
    let dH: UnsafeMutablePointer<Float>, dV: UnsafeMutablePointer<Float>
    /// Shares of the south, west and east neighbours (north's is the remainder).
    let fS: UnsafeMutablePointer<Float>, fW: UnsafeMutablePointer<Float>, fE: UnsafeMutablePointer<Float>
    /// Colour differences green − red and green − blue.
    let dR: UnsafeMutablePointer<Float>, dB: UnsafeMutablePointer<Float>
    let red: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>, blue: UnsafeMutablePointer<Float>

    init(m: UnsafePointer<Float>, w: Int, h: Int, cfa: CFAPattern,
         dH: UnsafeMutablePointer<Float>, dV: UnsafeMutablePointer<Float>, fS: UnsafeMutablePointer<Float>,
         fW: UnsafeMutablePointer<Float>, fE: UnsafeMutablePointer<Float>, dR: UnsafeMutablePointer<Float>,
         dB: UnsafeMutablePointer<Float>, red: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>,
         blue: UnsafeMutablePointer<Float>) {
        self.m = m; self.w = w; self.h = h
        let greenParity = [cfa.color(x: 0, y: 0) == .green ? 0 : 1, cfa.color(x: 0, y: 1) == .green ? 0 : 1]
        self.greenParity = greenParity
        self.rowIsRed = [cfa.color(x: 1 - greenParity[0], y: 0) == .red, cfa.color(x: 1 - greenParity[1], y: 1) == .red]
        self.dH = dH; self.dV = dV; self.fS = fS; self.fW = fW; self.fE = fE; self.dR = dR; self.dB = dB
        self.red = red; self.green = green; self.blue = blue
    }

    /// The one-sided estimates' taps 1…4 pixels out, `exp(−k²/2σ²)` normalised over k = 0…4
    /// (σ = 0: a flat 5-tap mean).
    static func taps(sigma: Float) -> (Float, Float, Float, Float) {
        var taps: [Float] = (0..<5).map { k in sigma > 0 ? Float(exp(-Double(k * k) / (2 * Double(sigma * sigma)))) : 1 }
        let tapSum = taps.reduce(0, +)
        taps = taps.map { $0 / tapSum }
        return (taps[1], taps[2], taps[3], taps[4])
    }

    /// `body(x)` for the eight-lane groups of columns `k ..< w − k`, the last moved back to end there.
    @inline(__always)
    func chunks(_ k: Int, _ body: (Int) -> Void) {
        for x0 in stride(from: k, to: w - k, by: 8) { body(min(x0, w - k - 8)) }
    }

    /// Row `y` (2 ..< h − 2) of step 1, the Hamilton–Adams horizontal and vertical colour
    /// differences (green − other) into `dH`, `dV`.
    @inline(__always)
    func hamiltonAdams(_ y: Int) {
        typealias D = DemosaicVector
        let mr = m + y * w, gp = greenParity[y & 1]
        for x0 in stride(from: 2, to: w - 2, by: 8) {
            let x = min(x0, w - 2 - 8)
            let p = mr + x
            let c = D.load(p), sign = D.parityLanes(x, gp) * 2 - 1
            let eh = (D.load(p - 1) + D.load(p + 1)) * 0.5 + (c * 2 - (D.load(p - 2) + D.load(p + 2))) * 0.25
            let ev = (D.load(p - w) + D.load(p + w)) * 0.5 + (c * 2 - (D.load(p - 2 * w) + D.load(p + 2 * w))) * 0.25
            D.store((c - eh) * sign, dH + y * w + x)
            D.store((c - ev) * sign, dV + y * w + x)
        }
    }

    /// The four one-sided estimates of the colour difference at pixels `i ..< i + 8` (west, east
    /// from ΔH; north, south from ΔV), taps `t1…t4` at 1…4 pixels out and the centre's share the
    /// rest, each written as base + Σ share · (value − base) so a flat field stays exact.
    @inline(__always)
    func oneSided(_ i: Int, _ t1: Float, _ t2: Float, _ t3: Float, _ t4: Float)
        -> (west: DemosaicVector.V, east: DemosaicVector.V, north: DemosaicVector.V, south: DemosaicVector.V) {
        typealias D = DemosaicVector
        let ph = dH + i, pv = dV + i
        let c = D.load(ph), cv = D.load(pv)
        let eW = c + ((t1 * (D.load(ph - 1) - c) + t2 * (D.load(ph - 2) - c)) + (t3 * (D.load(ph - 3) - c) + t4 * (D.load(ph - 4) - c)))
        let eE = c + ((t1 * (D.load(ph + 1) - c) + t2 * (D.load(ph + 2) - c)) + (t3 * (D.load(ph + 3) - c) + t4 * (D.load(ph + 4) - c)))
        let eN = cv + ((t1 * (D.load(pv - w) - cv) + t2 * (D.load(pv - 2 * w) - cv)) + (t3 * (D.load(pv - 3 * w) - cv) + t4 * (D.load(pv - 4 * w) - cv)))
        let eS = cv + ((t1 * (D.load(pv + w) - cv) + t2 * (D.load(pv + 2 * w) - cv)) + (t3 * (D.load(pv + 3 * w) - cv) + t4 * (D.load(pv + 4 * w) - cv)))
        return (eW, eE, eN, eS)
    }

    /// Refinement row `y` (columns `inset..<w − inset`) into the row buffer `buffer`, then its
    /// commit: at red/blue sites the row's difference moves `share` of the way toward
    /// `mean(i, north, south, west, east)`, the kernel's weighted mean of green minus the row's own
    /// colour at the four cardinal neighbours of pixels `i ..< i + 8`; green sites keep theirs.
    @inline(__always)
    func refineRow(_ y: Int, inset: Int, share: Float, buffer: UnsafeMutablePointer<Float>,
                   mean: (Int, DemosaicVector.V, DemosaicVector.V, DemosaicVector.V, DemosaicVector.V) -> DemosaicVector.V) {
        typealias D = DemosaicVector
        let own = rowIsRed[y & 1] ? red : blue, d = rowIsRed[y & 1] ? dR : dB, gp = greenParity[y & 1]
        chunks(inset) { x in
            let i = y * w + x
            let g = green + i, c = own + i
            let target = mean(i, D.load(g - w) - D.load(c - w), D.load(g + w) - D.load(c + w),
                              D.load(g - 1) - D.load(c - 1), D.load(g + 1) - D.load(c + 1))
            let isGreen = D.parityLanes(x, gp), current = D.load(d + i)
            D.store(D.blend(isGreen, current, current + (target - current) * share), buffer + x)
        }
        commit(y, refined: buffer, inset: inset)
    }

    /// Row `y` of the refinement's commit (columns `inset..<w − inset`): the refined differences
    /// `refined[x]` (one row buffer) become `dR`/`dB`, and green at red/blue sites the sample
    /// plus its difference.
    @inline(__always)
    func commit(_ y: Int, refined t: UnsafePointer<Float>, inset: Int) {
        typealias D = DemosaicVector
        let o = y * w, gp = greenParity[y & 1]
        let d = rowIsRed[y & 1] ? dR : dB
        for x0 in stride(from: inset, to: w - inset, by: 8) {
            let x = min(x0, w - inset - 8), i = o + x
            let isGreen = D.parityLanes(x, gp)
            let delta = D.load(t + x)
            D.store(delta, d + i)
            D.store(D.blend(isGreen, D.load(m + i), D.load(m + i) + delta), green + i)
        }
    }

    /// Red and blue on row `y` (columns `inset..<w − inset`): at green sites green minus the four
    /// cardinal colour differences weighted by `f*`; at red/blue sites the sample itself and
    /// green minus the other colour's difference.
    @inline(__always)
    func cardinal(_ y: Int, inset: Int) {
        typealias D = DemosaicVector
        let gp = greenParity[y & 1], isRed = rowIsRed[y & 1]
        let same = isRed ? dR : dB, other = isRed ? dB : dR
        let sameOut = isRed ? red : blue, otherOut = isRed ? blue : red
        for x0 in stride(from: inset, to: w - inset, by: 8) {
            let x = min(x0, w - inset - 8), i = y * w + x
            let b = D.load(fS + i), c = D.load(fW + i), e = D.load(fE + i)
            let g = D.load(green + i), isGreen = D.parityLanes(x, gp)
            let sN = D.load(same + i - w), oN = D.load(other + i - w)
            let sMean = sN + ((b * (D.load(same + i + w) - sN) + c * (D.load(same + i - 1) - sN)) + e * (D.load(same + i + 1) - sN))
            let oMean = oN + ((b * (D.load(other + i + w) - oN) + c * (D.load(other + i - 1) - oN)) + e * (D.load(other + i + 1) - oN))
            D.store(D.blend(isGreen, g - sMean, D.load(m + i)), sameOut + i)
            D.store(D.blend(isGreen, g - oMean, g - D.load(other + i)), otherOut + i)
        }
    }
}
