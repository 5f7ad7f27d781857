/// A cheap correlation-adaptive demosaic: a colour-difference member (`directional`, msgd:
/// `MSGDiagonalDemosaic`; called MSG below) wherever the three channels share
/// their detail, blended toward a one-step residual interpolation with locally fitted slopes
/// where they do not. Everything besides MSG is computed on the Bayer quads (one red, two green,
/// one blue sample: a quarter of the pixels), eight quads at a time, with windows of quads.
///
/// Input and output as every `DemosaicKernel` (linear sensor values, 1.0 = clip, planar R, G, B).
///
/// Per quad (anchored on the red sample, so the grid is the same for every region):
/// 1. `Ĝ` = the mean of the four greens around the red and around the blue sample. Band-passes
///    on each colour's own lattice: fine `hp(v) = v − ¼ (the four values one quad away)` and
///    coarse `hp₂` (two quads away), of R, B, Ĝ(R), Ĝ(B) and of both greens.
/// 2. Over `(2·window+1)²` quads, sums of the products (quantised to 2⁻²⁰ and summed as exact
///    integers: running sums down the columns):
///    - the share: per colour, the coarse band's slope of the samples on the estimates,
///      `s_R = (Σ hp₂(R)·hp₂(Ĝ(R)) + ε) / (Σ hp₂(Ĝ(R))² + ε)` and `s_B` likewise,
///      `t_c = 1 − clamp((s_c − lowerSlope) / (upperSlope − lowerSlope), 0, 1)`, `t = max(t_R, t_B)`
///      (one colour whose detail does not follow green is enough), times
///      `clamp(2 − E_fine / (aliasRatio · E_coarse), 0, 1)` with `E` the samples' band energy: on
///      texture near the lattices' Nyquist the bilinear estimates alias and the slope says
///      "uncorrelated" where MSG is right, so the share fades there;
///    - the pair slopes: correlation of each sample with the bilinear green there (fine band)
///      times the ratio of the two colours' band-pass amplitudes on their own lattices (neither
///      attenuated by interpolation), clamped to `[minimumSlope, maximumSlope]`: `a_GR`, `a_RG`,
///      `a_GB`, `a_BG`.
/// 3. Fallback: green at a red (blue) site from the horizontal and vertical one-step residual
///    interpolations `mean of the two greens + a_GR · (R − mean of the two reds two pixels away) / 2`,
///    weighted by `1 / (gradient² + 10⁻⁶)`; red and blue elsewhere the mean of the nearest
///    samples plus `a_RG ·` (green there − the mean of the fallback green at those samples).
/// Output `msg + t · (fallback − msg)` where `t > 0`, MSG's bytes elsewhere.
///
/// Measured (`bench-demosaic`, README "Demosaic"): with msgd as member (the default: per-colour
/// slopes, ramp 0.5 → 1.0, alias fade 0.4, chosen on three sets) Kodak 24 41.03 dB (msgd 41.03),
/// saturated set 38.18 dB (MLRI 38.26, msgd 36.08), McMaster 36.46 dB (MLRI 36.20, msgd 35.18).
///
/// Exactness: every quad value reads fixed offsets of the mosaic, sums in a fixed order (or in
/// exact integers), and is used only where all its reads were inside the region, so the output
/// equals the unbounded result at distance ≥ `halo` = max(MSG's halo, 2·window + 10).
public struct AdaptiveRIDemosaic: DemosaicKernel {
    /// The colour-difference demosaic used where the channels correlate.
    public var directional: any DemosaicKernel
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

    public init(directional: any DemosaicKernel = MSGDiagonalDemosaic(), window: Int = 7, epsilon: Float = 1e-2,
                lowerSlope: Float = 0.5, upperSlope: Float = 1.0, minimumSlope: Float = -1, maximumSlope: Float = 2) {
        self.directional = directional
        self.window = max(1, window); self.epsilon = max(epsilon, 1e-12)
        self.lowerSlope = lowerSlope; self.upperSlope = max(upperSlope, lowerSlope + 1e-3)
        self.minimumSlope = minimumSlope; self.maximumSlope = max(maximumSlope, minimumSlope)
    }

    /// Fine-to-coarse band energy ratio of the samples above which the share fades (to 0 at twice it; 0 = off).
    public var aliasRatio: Float = 0.4

    public var halo: Int { max(directional.halo, 2 * window + 10) }
    /// The noise calibrations measure the member: their one-colour noise mosaic would send every
    /// pixel to the fallback, which correlated content (where noise reduction works) never takes.
    public var noiseCalibration: any DemosaicKernel { directional }

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
        // Quad planes (row stride qw), 16 floats of slack: eight-lane groups run up to 7 quads past a
        // range's end (those lanes are never used) and read a little past the last plane.
        typealias V = DemosaicVector.V
        let planeCount = 11
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: planeCount * qn + 16)
        defer { scratch.deallocate() }
        scratch.advanced(by: planeCount * qn).initialize(repeating: 0, count: 16)
        func plane(_ i: Int) -> UnsafeMutablePointer<Float> { scratch + i * qn }
        let rq = plane(0), bq = plane(1), g1q = plane(2), g2q = plane(3), gr = plane(4), gb = plane(5)
        let aRG = plane(6), aBG = plane(7), share = plane(8), gfr = plane(9), gfB = plane(10)
        // Window sums in integers (products in units of 2⁻²⁰, clamped so a window's sum fits in
        // Int32): exact, so running sums give the same bits whatever row a region starts at.
        // P_R, S_R, T_R, P_B, S_B, T_B, U_G (fine band), P_R, T_R, S (R and B together), P_B, T_B (coarse band).
        typealias I = SIMD8<Int32>
        // Products one quad row at a time, their sums along the rows as planes, running column sums.
        // Row sums live in a ring of 2·window + 2 rows (row j in slot j mod ring).
        let rs = qw + 16, ring = 2 * k + 2, sumCount = 12
        let integerScratch = UnsafeMutablePointer<Int32>.allocate(capacity: sumCount * (ring + 2) * rs + 16)
        defer { integerScratch.deallocate() }
        integerScratch.advanced(by: sumCount * (ring + 2) * rs).initialize(repeating: 0, count: 16)
        let rowSums = (0..<sumCount).map { integerScratch + $0 * ring * rs }
        let columnSums = (0..<sumCount).map { integerScratch + sumCount * ring * rs + $0 * rs }
        let sums = (0..<sumCount).map { integerScratch + sumCount * (ring + 1) * rs + $0 * rs }
        @inline(__always) func rowSum(_ p: Int, _ j: Int) -> UnsafeMutablePointer<Int32> { rowSums[p] + (j % ring) * rs }
        let unit: Float = 1_048_576, inverseUnit: Float = 1 / 1_048_576
        // |product| ≤ 4 (2²² units, so the rounding below is exact) and a window's sum < 2³¹.
        let bound = V(repeating: min(4 - inverseUnit, Float(2_000_000_000) / Float((2 * k + 1) * (2 * k + 1)) * inverseUnit))
        let magic = V(repeating: 12_582_912), magicBits = I(repeating: 0x4B40_0000)   // 1.5 · 2²³
        @inline(__always) func quantised(_ v: V) -> I {
            let c = v.replacing(with: 0, where: v .!= v).replacing(with: bound, where: v .> bound).replacing(with: -bound, where: v .< -bound)
            // Round to the nearest integer (ties to even) by adding 1.5 · 2²³: exact for |x| < 2²².
            return unsafeBitCast(c * unit + magic, to: I.self) &- magicBits
        }
        /// `Float(n)` lane by lane, correctly rounded: the high and low 16 bits converted exactly
        /// (through 2²³-offset bit patterns) and added once.
        @inline(__always) func float(_ n: I) -> V {
            let low = unsafeBitCast((n & 0xFFFF) | 0x4B00_0000, to: V.self) - 8_388_608
            let high = unsafeBitCast((n &>> 16) &+ magicBits, to: V.self) - magic
            return high * 65_536 + low
        }
        @inline(__always) func ldi(_ p: UnsafeMutablePointer<Int32>, _ i: Int) -> I { UnsafeRawPointer(p + i).loadUnaligned(as: I.self) }
        @inline(__always) func sti(_ v: I, _ p: UnsafeMutablePointer<Int32>, _ i: Int) { UnsafeMutableRawPointer(p + i).storeBytes(of: v, as: I.self) }
        @inline(__always) func ld(_ p: UnsafeMutablePointer<Float>, _ i: Int) -> V { DemosaicVector.load(p + i) }
        @inline(__always) func st(_ v: V, _ p: UnsafeMutablePointer<Float>, _ i: Int) { DemosaicVector.store(v, p + i) }
        // 1. The four samples of every quad inside the region (eight quads at a time, the last
        // group moved back to end at the row's last quad).
        for j in 0..<qh {
            let row0 = (oy + 2 * j) * w + ox, row1 = row0 + w, qrow = j * qw
            for i0 in stride(from: 0, to: qw, by: 8) {
                let i = min(i0, qw - 8)
                let a = UnsafeRawPointer(m + row0 + 2 * i).loadUnaligned(as: SIMD16<Float>.self)
                let b = UnsafeRawPointer(m + row1 + 2 * i).loadUnaligned(as: SIMD16<Float>.self)
                st(a.evenHalf, rq, qrow + i); st(a.oddHalf, g1q, qrow + i)
                st(b.evenHalf, g2q, qrow + i); st(b.oddHalf, bq, qrow + i)
            }
        }
        // Bilinear green at R and B sites (quads 1 ..< q − 1).
        for j in 1..<(qh - 1) {
            DemosaicVector.groups(1, qw - 1) { i in
                let q = j * qw + i
                st(((ld(g1q, q - 1) + ld(g1q, q)) + (ld(g2q, q - qw) + ld(g2q, q))) * 0.25, gr, q)
                st(((ld(g2q, q) + ld(g2q, q + 1)) + (ld(g1q, q) + ld(g1q, q + qw))) * 0.25, gb, q)
            }
        }
        // 2. Down the columns: slopes, share, green fallback (quads 3 + k ..< q − 3 − k).
        let eps = V(repeating: epsilon), lower = lowerSlope, inverseSpan = 1 / (upperSlope - lowerSlope)
        let lo = V(repeating: minimumSlope), hi = V(repeating: maximumSlope), alias = aliasRatio
        let zero = V(), one = V(repeating: 1)
        @inline(__always) func clampSlope(_ v: V) -> V {
            v.replacing(with: lo, where: .!(v .>= lo)).replacing(with: hi, where: v .> hi)   // NaN → minimum
        }
        /// 1 / √x for x > 0 in plain lane arithmetic (SIMD `squareRoot()` runs lane by lane
        /// through libm here): a bit-pattern estimate and three Newton steps, relative error
        /// ≈ 10⁻⁷; the same bits on every lane and run.
        @inline(__always) func inverseSquareRoot(_ x: V) -> V {
            var y = unsafeBitCast(I(repeating: 0x5F37_59DF) &- (unsafeBitCast(x, to: I.self) &>> 1), to: V.self)
            let half = x * 0.5
            y = y * (1.5 - half * (y * y)); y = y * (1.5 - half * (y * y)); y = y * (1.5 - half * (y * y))
            return y
        }
        @inline(__always) func unitClamp(_ v: V) -> V {
            v.replacing(with: zero, where: .!(v .>= zero)).replacing(with: one, where: v .> one)   // NaN → 0
        }
        /// Green at the quads' R (or B) sites: horizontal and vertical one-step residual
        /// interpolations with slope `a`, weighted by 1 / (gradient² + 10⁻⁶).
        @inline(__always) func directionalGreen(_ c: UnsafeMutablePointer<Float>, _ q: Int, _ a: V,
                                                _ gw: V, _ ge: V, _ gn: V, _ gs: V) -> V {
            let lh = (ld(c, q) - (ld(c, q - 1) + ld(c, q + 1)) * 0.5) * a
            let lv = (ld(c, q) - (ld(c, q - qw) + ld(c, q + qw)) * 0.5) * a
            let gh = (gw + ge) * 0.5 + lh * 0.5, gv = (gn + gs) * 0.5 + lv * 0.5
            let dh = DemosaicVector.abs(gw - ge) + DemosaicVector.abs(lh), dv = DemosaicVector.abs(gn - gs) + DemosaicVector.abs(lv)
            let wh = 1 / (dh * dh + 1e-6), wv = 1 / (dv * dv + 1e-6)
            return gv + wh * (gh - gv) / (wh + wv)
        }
        let (c0, c1, c2, c3, c4) = (columnSums[0], columnSums[1], columnSums[2], columnSums[3], columnSums[4])
        let (c5, c6, c7, c8, c9) = (columnSums[5], columnSums[6], columnSums[7], columnSums[8], columnSums[9])
        let (c10, c11) = (columnSums[10], columnSums[11])
        /// Quad row `j` of step 2 (its window's last row summed along already).
        func columnRow(_ j: Int) {
            // Running sums down the columns (exact integers): the first row sums its window,
            // each next one adds the row entering and subtracts the row leaving.
            for p in 0..<sumCount {
                let acc = columnSums[p]
                if j == 3 + k {
                    DemosaicVector.groups(3 + k, qw - 3 - k) { i in
                        var s = I()
                        for d in -k...k { s &+= ldi(rowSum(p, j + d), i) }
                        sti(s, acc, i)
                    }
                } else {
                    let enter = rowSum(p, j + k), leave = rowSum(p, j - k - 1)
                    DemosaicVector.groups(3 + k, qw - 3 - k) { i in
                        sti(ldi(acc, i) &+ ldi(enter, i) &- ldi(leave, i), acc, i)
                    }
                }
            }
            DemosaicVector.groups(3 + k, qw - 3 - k) { i in
                let q = j * qw + i
                @inline(__always) func f(_ p: UnsafeMutablePointer<Int32>) -> V { float(ldi(p, i)) * inverseUnit }
                let sv = (f(c0), f(c1), f(c2), f(c3), f(c4), f(c5), f(c6), f(c7), f(c8), f(c9), f(c10), f(c11))
                // Correlation of each sample with the bilinear green there, times the ratio of the
                // two colours' band-pass amplitudes on their own lattices (neither attenuated by
                // interpolation): the slopes of green on red / blue and back.
                // ρ · ratio = P / S · √(U / T) and ρ / ratio = P / √(T · U) (all sums + ε).
                let pR = sv.0 + eps, sR = sv.1 + eps, tR = sv.2 + eps, pB = sv.3 + eps, sB = sv.4 + eps, tB = sv.5 + eps
                let u = sv.6 + eps
                let ut = u / tR, ub = u / tB
                let aGR = clampSlope(pR / sR * (ut * inverseSquareRoot(ut))), aGB = clampSlope(pB / sB * (ub * inverseSquareRoot(ub)))
                st(clampSlope(pR * inverseSquareRoot(tR * u)), aRG, q); st(clampSlope(pB * inverseSquareRoot(tB * u)), aBG, q)
                // The share from the coarse band's slope, faded where the fine band's energy
                // exceeds the coarse one's (texture near the lattices' Nyquist: estimates alias).
                // Per colour (red on its green, blue on its green); the larger share wins, so one
                // colour whose detail does not follow green is enough.
                @inline(__always) func ramp(_ slope: V) -> V { one - unitClamp((slope - lower) * inverseSpan) }
                let tRed = ramp((sv.7 + eps) / (sv.8 + eps)), tBlue = ramp((sv.10 + eps) / (sv.11 + eps))
                var t = tRed.replacing(with: tBlue, where: tBlue .> tRed)
                if alias > 0 {
                    t = t * unitClamp(2 - ((sv.1 + sv.4) + eps) / ((sv.9 + eps) * alias))
                }
                st(t, share, q)
                st(directionalGreen(rq, q, aGR, ld(g1q, q - 1), ld(g1q, q), ld(g2q, q - qw), ld(g2q, q)), gfr, q)
                st(directionalGreen(bq, q, aGB, ld(g2q, q), ld(g2q, q + 1), ld(g1q, q), ld(g1q, q + qw)), gfB, q)
            }
        }
        // Band-passes and products (quads 3 ..< q − 3).
        for j in 3..<(qh - 3) {
            DemosaicVector.groups(3, qw - 3) { i in
                let q = j * qw + i
                @inline(__always) func hp(_ p: UnsafeMutablePointer<Float>) -> V {
                    ld(p, q) - ((ld(p, q - 1) + ld(p, q + 1)) + (ld(p, q - qw) + ld(p, q + qw))) * 0.25
                }
                @inline(__always) func hp2(_ p: UnsafeMutablePointer<Float>) -> V {
                    ld(p, q) - ((ld(p, q - 2) + ld(p, q + 2)) + (ld(p, q - 2 * qw) + ld(p, q + 2 * qw))) * 0.25
                }
                let hr = hp(rq), hb = hp(bq), hgr = hp(gr), hgb = hp(gb), h1 = hp(g1q), h2 = hp(g2q)
                sti(quantised(hr * hgr), sums[0], i); sti(quantised(hr * hr), sums[1], i); sti(quantised(hgr * hgr), sums[2], i)
                sti(quantised(hb * hgb), sums[3], i); sti(quantised(hb * hb), sums[4], i); sti(quantised(hgb * hgb), sums[5], i)
                sti(quantised((h1 * h1 + h2 * h2) * 0.5), sums[6], i)
                let cr = hp2(rq), cb = hp2(bq), cgr = hp2(gr), cgb = hp2(gb)
                sti(quantised(cr * cgr), sums[7], i); sti(quantised(cgr * cgr), sums[8], i)
                sti(quantised(cb * cgb), sums[10], i); sti(quantised(cgb * cgb), sums[11], i)
                sti(quantised(cr * cr + cb * cb), sums[9], i)
            }
            // Window sums along the quad row (quads 3 + k ..< q − 3 − k).
            for p in 0..<sumCount {
                let src = sums[p], dst = rowSum(p, j)
                DemosaicVector.groups(3 + k, qw - 3 - k) { i in
                    var s = I()
                    for d in -k...k { s &+= ldi(src, i + d) }
                    sti(s, dst, i)
                }
            }
            if j - k >= 3 + k { columnRow(j - k) }
        }
        // 3. Fallback and blend, eight quads (sixteen pixels of two rows) at a time (quads
        // 4 + k ..< q − 4 − k; lanes outside that range or with share 0 keep MSG's value).
        /// `plane[at ..< at + 16]` moved toward `even` / `odd` (alternate pixels) by `t` where `t > 0`.
        @inline(__always) func mix(_ plane: UnsafeMutablePointer<Float>, _ at: Int, _ t: V, _ live: SIMDMask<SIMD8<Int32>>,
                                   _ even: V, _ odd: V) {
            let p = UnsafeMutableRawPointer(plane + at)
            let v = p.loadUnaligned(as: SIMD16<Float>.self)
            let e = v.evenHalf, o = v.oddHalf
            let ne = (e + t * (even - e)).replacing(with: e, where: .!live)
            let no = (o + t * (odd - o)).replacing(with: o, where: .!live)
            var out = SIMD16<Float>()
            for l in 0..<8 { out[2 * l] = ne[l]; out[2 * l + 1] = no[l] }
            p.storeBytes(of: out, as: SIMD16<Float>.self)
        }
        let lanes = SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7)
        let first = 4 + k, end = qw - 4 - k
        if first < end {
            for j in (4 + k)..<(qh - 4 - k) {
                let row0 = (oy + 2 * j) * w + ox, row1 = row0 + w
                for i0 in stride(from: first, to: end, by: 8) {
                    let i = end - first >= 8 ? min(i0, end - 8) : first
                    let index = lanes &+ Int32(i)
                    let inRange = (index .>= SIMD8<Int32>(repeating: Int32(i0))) .& (index .< SIMD8<Int32>(repeating: Int32(end)))
                    let q = j * qw + i
                    var t = ld(share, q)
                    t = t.replacing(with: 0, where: .!inRange)
                    let live = t .> zero
                    guard any(live) else { continue }
                    let ar = ld(aRG, q), ab = ld(aBG, q)
                    let gR = ld(gfr, q), gB = ld(gfB, q), gG1 = ld(g1q, q), gG2 = ld(g2q, q)
                    let r0 = ld(rq, q), rE = ld(rq, q + 1), rS = ld(rq, q + qw), rSE = ld(rq, q + qw + 1)
                    let fE = ld(gfr, q + 1), fS = ld(gfr, q + qw), fSE = ld(gfr, q + qw + 1)
                    let rG1 = (r0 + rE) * 0.5 + ar * (gG1 - (gR + fE) * 0.5)
                    let rG2 = (r0 + rS) * 0.5 + ar * (gG2 - (gR + fS) * 0.5)
                    let rB = ((r0 + rE) + (rS + rSE)) * 0.25 + ar * (gB - ((gR + fE) + (fS + fSE)) * 0.25)
                    let b0 = ld(bq, q), bN = ld(bq, q - qw), bW = ld(bq, q - 1), bNW = ld(bq, q - qw - 1)
                    let hN = ld(gfB, q - qw), hW = ld(gfB, q - 1), hNW = ld(gfB, q - qw - 1)
                    let bG1 = (bN + b0) * 0.5 + ab * (gG1 - (hN + gB) * 0.5)
                    let bG2 = (bW + b0) * 0.5 + ab * (gG2 - (hW + gB) * 0.5)
                    let bR = ((b0 + bW) + (bN + bNW)) * 0.25 + ab * (gR - ((gB + hW) + (hN + hNW)) * 0.25)
                    let x = 2 * i
                    mix(red, row0 + x, t, live, r0, rG1); mix(green, row0 + x, t, live, gR, gG1); mix(blue, row0 + x, t, live, bR, bG1)
                    mix(red, row1 + x, t, live, rG2, rB); mix(green, row1 + x, t, live, gG2, gB); mix(blue, row1 + x, t, live, bG2, b0)
                }
            }
        }
    }
}
