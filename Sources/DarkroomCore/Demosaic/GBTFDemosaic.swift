/// Gradient-based threshold-free demosaicing (GBTF), after Pekkucuksen & Altunbasak, "Gradient
/// based threshold free color filter array interpolation" (ICIP 2010):
///
/// 1. Hamilton–Adams horizontal and vertical estimates of the missing colour at every pixel give
///    two colour-difference maps `ΔH`, `ΔV` (green minus red/blue).
/// 2. At red/blue sites the colour difference is a weighted mean of four one-sided 5-tap means
///    (north, south, west, east) of `ΔV`/`ΔH`, each weighted by `1/(ε + Σ D)²` where `Σ D` sums the
///    colour-difference gradients `|Δ(−1) − Δ(+1)|` over the 5×5 window on that side. Green = raw + Δ.
/// 3. Red at blue (and blue at red): green minus the paper's 7×7 `prb` filter of the diagonal
///    colour differences ((10·inner four − outer eight)/32).
/// 4. Red and blue at green sites: green minus the four cardinal colour differences, weighted by
///    the same one-sided gradient windows as step 2 (the paper uses their plain mean; the
///    weights gain 0.07 dB on Kodak 24 at no measurable cost).
///
/// Each stage runs wherever its own reads stay in bounds, so the output equals the unbounded
/// result at distance ≥ 11 (the summed read radii); the band outside is filled bilinearly.
/// `epsilon` keeps the weights finite on flat areas (data normalised to 1.0 = clip).
public struct GBTFDemosaic: DemosaicKernel {
    public static let exactInset = 11
    /// ε in the directional weights `1/(ε + Σ D)²`.
    public var epsilon: Float
    public init(epsilon: Float = 1e-5) { self.epsilon = epsilon }
    public var halo: Int { Self.exactInset }

    public func demosaic(mosaic m: UnsafePointer<Float>, width: Int, height: Int, cfa: CFAPattern,
                         red: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>,
                         blue: UnsafeMutablePointer<Float>) {
        let n = width * height
        let planeCount = 8
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: max(n, 1) * planeCount)
        scratch.initialize(repeating: 0, count: max(n, 1) * planeCount)
        defer { scratch.deallocate() }
        let dH = scratch, dV = scratch + n           // ΔH, ΔV (green − other colour)
        let gH = scratch + 2 * n, gV = scratch + 3 * n // gradients, then their 5×5 window sums
        let bH = scratch + 4 * n, bV = scratch + 5 * n // 5-tap sums of ΔH (horizontal), ΔV (vertical)
        let dR = scratch + 6 * n, dB = scratch + 7 * n // final G−R, G−B at red/blue sites
        let tmp = red                                  // output planes double as temporaries
        let w = width, w2 = 2 * width, w3 = 3 * width
        let eps = epsilon

        // 1. Hamilton–Adams colour differences; sign flips so Δ is always green minus the other colour.
        for y in 0..<height {
            let greenParity = cfa.color(x: 0, y: y) == .green ? 0 : 1
            for x in 2..<(w - 2) {
                let i = y * w + x
                let est = (m[i - 1] + m[i + 1]) * 0.5 + (m[i] * 2 - (m[i - 2] + m[i + 2])) * 0.25
                dH[i] = (x & 1) == greenParity ? m[i] - est : est - m[i]
            }
        }
        for y in 2..<(height - 2) {
            let greenParity = cfa.color(x: 0, y: y) == .green ? 0 : 1
            for x in 0..<w {
                let i = y * w + x
                let est = (m[i - w] + m[i + w]) * 0.5 + (m[i] * 2 - (m[i - w2] + m[i + w2])) * 0.25
                dV[i] = (x & 1) == greenParity ? m[i] - est : est - m[i]
            }
        }
        // 2a. Gradients of the colour differences, summed over 5×5 windows (separable boxes),
        //     and 5-tap sums of the colour differences along their direction.
        for y in 0..<height {
            for x in 1..<(w - 1) { let i = y * w + x; gH[i] = abs(dH[i - 1] - dH[i + 1]) }
        }
        for y in 1..<(height - 1) {
            for x in 0..<w { let i = y * w + x; gV[i] = abs(dV[i - w] - dV[i + w]) }
        }
        Self.boxVertical(gH, into: tmp, width: w, height: height)
        Self.boxHorizontal(tmp, into: gH, width: w, height: height)
        Self.boxHorizontal(gV, into: tmp, width: w, height: height)
        Self.boxVertical(tmp, into: gV, width: w, height: height)
        Self.boxHorizontal(dH, into: bH, width: w, height: height)
        Self.boxVertical(dV, into: bV, width: w, height: height)

        green.update(from: m, count: n)
        red.update(from: m, count: n)
        blue.update(from: m, count: n)

        // 2b. Green at red/blue sites (read radius 2 in both axes).
        for y in 2..<(height - 2) {
            let nonGreen = cfa.color(x: 0, y: y) == .green ? 1 : 0
            let d = cfa.color(x: nonGreen, y: y) == .red ? dR : dB
            var i = y * w + DemosaicBorder.firstColumn(2, parity: nonGreen)
            let end = y * w + w - 2
            while i < end {
                let sN = eps + gV[i - w2], sS = eps + gV[i + w2], sW = eps + gH[i - 2], sE = eps + gH[i + 2]
                let wN = 1 / (sN * sN), wS = 1 / (sS * sS), wW = 1 / (sW * sW), wE = 1 / (sE * sE)
                let mN = bV[i - w2], mS = bV[i + w2], mW = bH[i - 2], mE = bH[i + 2]
                // Σ wₖ mₖ / Σ wₖ written relative to mN so equal means give mN exactly.
                let sum5 = mN + (wS * (mS - mN) + wW * (mW - mN) + wE * (mE - mN)) / (wN + wS + wW + wE)
                let delta = sum5 / 5
                d[i] = delta
                green[i] = m[i] + delta
                i += 2
            }
        }
        // 3. Red at blue / blue at red: G − prb ⊛ (diagonal colour differences) (read radius 3).
        for y in 3..<(height - 3) {
            let nonGreen = cfa.color(x: 0, y: y) == .green ? 1 : 0
            let site = cfa.color(x: nonGreen, y: y)
            let d = site == .red ? dB : dR          // differences of the colour being filled
            let o = site == .red ? blue : red
            var i = y * w + DemosaicBorder.firstColumn(3, parity: nonGreen)
            let end = y * w + w - 3
            while i < end {
                let inner = (d[i - w - 1] + d[i - w + 1]) + (d[i + w - 1] + d[i + w + 1])
                let outer = ((d[i - w3 - 1] + d[i - w3 + 1]) + (d[i + w3 - 1] + d[i + w3 + 1]))
                    + ((d[i - w - 3] + d[i + w - 3]) + (d[i - w + 3] + d[i + w + 3]))
                let delta = (inner * 10 - outer) / 32
                d[i] = delta
                o[i] = green[i] - delta
                i += 2
            }
        }
        // 4. Red and blue at green sites: G − the four cardinal differences, weighted like step 2b (read radius 2).
        for y in 2..<(height - 2) {
            let greenParity = cfa.color(x: 0, y: y) == .green ? 0 : 1
            var i = y * w + DemosaicBorder.firstColumn(2, parity: greenParity)
            let end = y * w + w - 2
            while i < end {
                let sN = eps + gV[i - w2], sS = eps + gV[i + w2], sW = eps + gH[i - 2], sE = eps + gH[i + 2]
                let wN = 1 / (sN * sN), wS = 1 / (sS * sS), wW = 1 / (sW * sW), wE = 1 / (sE * sE)
                let wT = wN + wS + wW + wE
                let g = m[i]
                let rN = dR[i - w]
                red[i] = g - (rN + (wS * (dR[i + w] - rN) + wW * (dR[i - 1] - rN) + wE * (dR[i + 1] - rN)) / wT)
                let bN = dB[i - w]
                blue[i] = g - (bN + (wS * (dB[i + w] - bN) + wW * (dB[i - 1] - bN) + wE * (dB[i + 1] - bN)) / wT)
                i += 2
            }
        }
        DemosaicBorder.fill(mosaic: m, width: width, height: height, cfa: cfa, inset: Self.exactInset,
                            red: red, green: green, blue: blue)
    }

    /// out(x) = Σ in(x−2…x+2) where in bounds; 0 within 2 of the left/right edge.
    static func boxHorizontal(_ p: UnsafeMutablePointer<Float>, into out: UnsafeMutablePointer<Float>, width w: Int, height: Int) {
        for y in 0..<height {
            let r = y * w
            for i in r..<(r + 2) { out[i] = 0; out[i + w - 2] = 0 }
            for i in (r + 2)..<(r + w - 2) { out[i] = ((p[i - 2] + p[i - 1]) + (p[i + 1] + p[i + 2])) + p[i] }
        }
    }

    /// out(y) = Σ in(y−2…y+2) where in bounds; 0 within 2 of the top/bottom edge.
    static func boxVertical(_ p: UnsafeMutablePointer<Float>, into out: UnsafeMutablePointer<Float>, width w: Int, height: Int) {
        let w2 = 2 * w
        out.update(repeating: 0, count: w2)
        (out + (height - 2) * w).update(repeating: 0, count: w2)
        for i in w2..<((height - 2) * w) { out[i] = ((p[i - w2] + p[i - w]) + (p[i + w] + p[i + w2])) + p[i] }
    }
}
