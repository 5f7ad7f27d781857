import Foundation

/// Minimized-Laplacian residual interpolation (MLRI), after Kiku, Monno, Tanaka & Okutomi,
/// "Minimized-Laplacian residual interpolation for color image demosaicking" (IS&T/SPIE EI 2014),
/// in the residual-interpolation framework of their "Residual interpolation for color image
/// demosaicking" (ICIP 2013):
///
/// 1. Green, per direction (horizontal and vertical). Along each row (column) the two colours of
///    that line are first linearly interpolated (guides). Each colour is then estimated from the
///    other by a guided filter whose slope minimises the squared difference of Laplacians
///    (`[−1 0 2 0 −1]` along the line, on same-colour samples): per window `a = Σ ΔI·Δp / Σ ΔI²`
///    (denominator floored at `threshold` per sample), `b = mean(p) − a·mean(I)` over the
///    window's samples, then `a`, `b` averaged over the window (He et al.'s guided filter).
///    Residuals (sample − tentative estimate) are interpolated linearly along the line and added
///    back; the line's colour difference `G − C` follows at every pixel.
///    Windows are `(2·greenRadius+1)²`; within one, each filter uses only its own Bayer phase.
/// 2. The two colour-difference maps are combined at red/blue sites as in GBTF/MLRI: one-sided
///    5-tap Gaussian (`sigma`) means from N, S, W, E, weighted by `1/(D² + 10⁻³²)`, `D` the 3×3 sum
///    of the colour-difference gradient on that side. Green = sample + difference.
/// 3. Red and blue: the same minimized-Laplacian guided filter in 2-D with the full green as
///    guide (`(2·colourRadius+1)²` window, Laplacian `4c − ` the four same-colour samples at
///    distance 2), residuals interpolated bilinearly and added back; samples are kept as they are.
///
/// The reference code clips intermediate values to [0, 255]; Darkroom keeps highlights above
/// 1.0, so nothing is clipped. Every stage runs only where its reads stay in bounds, so the
/// output equals the unbounded result at distance ≥ `halo` = 2·greenRadius + 2·colourRadius + 11
/// from the region edge; the band outside is filled bilinearly.
public struct MLRIDemosaic: DemosaicKernel {
    /// Half-side of the guided-filter window of the green step (default 3: 7×7, as in the
    /// reference MLRI code; 1-D 11-sample windows measured 1 dB worse on Kodak 24).
    public var greenRadius: Int
    /// Half-side of the 2-D guided-filter window of the red/blue step (default 5: 11×11).
    public var colourRadius: Int
    /// Standard deviation (pixels) of the one-sided Gaussian means combining directions
    /// (default 2: +1.4 dB over 1 on Kodak 24, 40.12 dB mean).
    public var sigma: Float
    /// Floor of the mean squared Laplacian of the guide (data scale 1.0 = clip; default 10⁻⁵,
    /// the reference's 10⁻⁵·255² on 8-bit data): keeps the slope finite on flat areas.
    public var threshold: Float

    public init(greenRadius: Int = 3, colourRadius: Int = 5, sigma: Float = 2, threshold: Float = 1e-5) {
        self.greenRadius = max(1, greenRadius); self.colourRadius = max(1, colourRadius)
        self.sigma = sigma; self.threshold = threshold
    }

    public var halo: Int { 2 * greenRadius + 2 * colourRadius + 11 }

    public func demosaic(mosaic m: UnsafePointer<Float>, width: Int, height: Int, cfa: CFAPattern,
                         red: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>,
                         blue: UnsafeMutablePointer<Float>) {
        // Row loops run eight columns at a time; smaller regions than the contract's are all border.
        if DemosaicBorder.fillIfTooSmall(halo: halo, mosaic: m, width: width, height: height, cfa: cfa,
                                         red: red, green: green, blue: blue) { return }
        let n = max(width * height, 1)
        let planeCount = 21, rowCount = 16
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: n * planeCount + width * rowCount)
        scratch.initialize(repeating: 0, count: n * planeCount + width * rowCount)
        defer { scratch.deallocate() }
        let p = (0..<planeCount).map { scratch + $0 * n }
        let rows = scratch + n * planeCount
        let g = Geometry(width: width, height: height, cfa: cfa)

        green.update(from: m, count: width * height)
        red.update(from: m, count: width * height)
        blue.update(from: m, count: width * height)

        let difH = p[19], difV = p[20]
        directionalDifference(m, g, step: 1, temps: p, rows: rows, dif: difH)
        directionalDifference(m, g, step: width, temps: p, rows: rows, dif: difV)
        let greenInset = 2 * greenRadius + 8
        combine(m, g, difH: difH, difV: difV, gradH: p[0], gradV: p[1], boxH: p[2], boxV: p[3],
                inset: greenInset, green: green)
        colour(.red, m, g, green: green, temps: p, rows: rows, inset: greenInset, out: red)
        colour(.blue, m, g, green: green, temps: p, rows: rows, inset: greenInset, out: blue)
        DemosaicBorder.fill(mosaic: m, width: width, height: height, cfa: cfa, inset: halo,
                            red: red, green: green, blue: blue)
    }
}

extension MLRIDemosaic {
    /// Region size and pattern, and the index ranges at a given inset.
    struct Geometry {
        let width: Int, height: Int, cfa: CFAPattern
        /// Rows at distance ≥ `inset` from the top and bottom edges (empty if none).
        func rows(_ inset: Int) -> Range<Int> { inset < height - inset ? inset..<(height - inset) : 0..<0 }
        /// Columns at distance ≥ `inset` from the left and right edges (empty if none).
        func columns(_ inset: Int) -> Range<Int> { inset < width - inset ? inset..<(width - inset) : 0..<0 }
        func isGreen(_ x: Int, _ y: Int) -> Bool { cfa.color(x: x, y: y) == .green }
    }

    /// Step 1 for one direction (`step` 1: horizontal, `width`: vertical): `dif = G − C` at every
    /// pixel, exact at inset 2·greenRadius + 4. Uses `temps[0...18]` and 16 row buffers.
    ///
    /// The window is (2r+1)² around each pixel. Seen from a window centre, the samples of one
    /// Bayer phase sit at offsets (k along the line, l across) of fixed parities; the filter of the
    /// centre's own phase uses (even, even), that of the line's other colour (odd, even). Sums are
    /// separable: along the line split by the parity of k, then across split by the parity of l.
    func directionalDifference(_ m: UnsafePointer<Float>, _ g: Geometry, step s: Int,
                               temps: [UnsafeMutablePointer<Float>], rows: UnsafeMutablePointer<Float>,
                               dif: UnsafeMutablePointer<Float>) {
        typealias V = DemosaicVector.V
        let w = g.width, r = greenRadius
        let t = s == 1 ? w : 1                     // the across-the-line step
        let horizontal = s == 1
        /// Rows and columns at `along` from the edges the line runs to and `across` from the others.
        func region(along: Int, across: Int) -> (Range<Int>, Range<Int>) {
            horizontal ? (g.rows(across), g.columns(along)) : (g.rows(along), g.columns(across))
        }
        let guide = temps[0], lapIP = temps[1], lapII = temps[2]
        let along = Array(temps[3..<11])           // even-k / odd-k sums of I, P, IP, II
        let coef = Array(temps[11..<19])           // a, b for phases (k, l) = 00, 10, 01, 11
        // Guides: the other colour of the line, linearly interpolated (inset 1).
        for y in g.rows(1) {
            for i in (y * w + g.columns(1).lowerBound)..<(y * w + g.columns(1).upperBound) {
                guide[i] = (m[i - s] + m[i + s]) * 0.5
            }
        }
        // Laplacian products at every site, each site being a sample of its own phase's filter (inset 3).
        for y in g.rows(3) {
            for i in (y * w + g.columns(3).lowerBound)..<(y * w + g.columns(3).upperBound) {
                let lapI = guide[i] * 2 - (guide[i - 2 * s] + guide[i + 2 * s])
                let lapP = m[i] * 2 - (m[i - 2 * s] + m[i + 2 * s])
                lapIP[i] = lapI * lapP
                lapII[i] = lapI * lapI
            }
        }
        // Sums along the line (inset 3 + r along, 3 across).
        let (eI, eP, eIP, eII, oI, oP, oIP, oII) = (along[0], along[1], along[2], along[3], along[4], along[5], along[6], along[7])
        do {
            let (ys, xs) = region(along: 3 + r, across: 3)
            // Eight columns at a time, sums kept in registers (added in k order, as a scalar loop would).
            for y in ys {
                let row = y * w
                for x0 in stride(from: xs.lowerBound, to: xs.upperBound, by: 8) {
                    let i = row + min(x0, xs.upperBound - 8)
                    var sI = (V(), V()), sP = (V(), V()), sIP = (V(), V()), sII = (V(), V())
                    for k in -r...r {
                        let o = i + k * s
                        let vI = DemosaicVector.load(guide + o), vP = DemosaicVector.load(m + o)
                        let vIP = DemosaicVector.load(lapIP + o), vII = DemosaicVector.load(lapII + o)
                        if k & 1 == 0 { sI.0 += vI; sP.0 += vP; sIP.0 += vIP; sII.0 += vII } else { sI.1 += vI; sP.1 += vP; sIP.1 += vIP; sII.1 += vII }
                    }
                    DemosaicVector.store(sI.0, eI + i); DemosaicVector.store(sP.0, eP + i)
                    DemosaicVector.store(sIP.0, eIP + i); DemosaicVector.store(sII.0, eII + i)
                    DemosaicVector.store(sI.1, oI + i); DemosaicVector.store(sP.1, oP + i)
                    DemosaicVector.store(sIP.1, oIP + i); DemosaicVector.store(sII.1, oII + i)
                }
            }
        }
        // Sums across, split by the parity of l; slopes and offsets of the four phases (inset 3 + r).
        let even = 2 * (r / 2) + 1, odd = 2 * ((r + 1) / 2)
        let counts: [Float] = [Float(even * even), Float(odd * even), Float(even * odd), Float(odd * odd)]
        let th = threshold
        let cols1 = g.columns(3 + r)
        for y in g.rows(3 + r) {
            let row = y * w
            // acc[q][phase]: q = I, P, IP, II; phase = 00, 10, 01, 11.
            for q in 0..<4 {
                let e = along[q], od = along[q + 4]
                for x0 in stride(from: cols1.lowerBound, to: cols1.upperBound, by: 8) {
                    let x = min(x0, cols1.upperBound - 8)
                    var even = (V(), V()), odd = (V(), V())    // (l even, l odd): phases 00/10, 01/11
                    for l in -r...r {
                        let o = row + l * t + x
                        let ve = DemosaicVector.load(e + o), vo = DemosaicVector.load(od + o)
                        if l & 1 == 0 { even.0 += ve; odd.0 += vo } else { even.1 += ve; odd.1 += vo }
                    }
                    DemosaicVector.store(even.0, rows + (q * 4) * w + x); DemosaicVector.store(odd.0, rows + (q * 4 + 1) * w + x)
                    DemosaicVector.store(even.1, rows + (q * 4 + 2) * w + x); DemosaicVector.store(odd.1, rows + (q * 4 + 3) * w + x)
                }
            }
            for phase in 0..<4 {
                let sI = rows + phase * w, sP = rows + (4 + phase) * w, sIP = rows + (8 + phase) * w, sII = rows + (12 + phase) * w
                let n = counts[phase], inverseN = 1 / n
                let aOut = coef[2 * phase], bOut = coef[2 * phase + 1]
                for x in cols1 {
                    let a = sIP[x] / max(sII[x], n * th)
                    aOut[row + x] = a
                    bOut[row + x] = sP[x] / n - a * (sI[x] * inverseN)   // a = 0 on flat fields: b = mean(p) exactly
                }
            }
        }
        // Window means of a, b for the centre's own filter and the line's other filter: along
        // the line first (inset 3 + 2r along, 3 + r across) into the `along` planes, then across.
        // For a window pixel at offset (k, l) the own filter is its phase (k, l) mod 2, the
        // other filter (k + 1, l) mod 2.
        do {
            let (ys, xs) = region(along: 3 + 2 * r, across: 3 + r)
            for y in ys {
                let row = y * w
                for lp in 0..<2 {
                    // phases with this l parity: own = (k mod 2, lp), other = (k+1 mod 2, lp)
                    let aEven = coef[4 * lp], bEven = coef[4 * lp + 1], aOdd = coef[4 * lp + 2], bOdd = coef[4 * lp + 3]
                    for x0 in stride(from: xs.lowerBound, to: xs.upperBound, by: 8) {
                        let i = row + min(x0, xs.upperBound - 8)
                        var sa = V(), sb = V(), ca = V(), cb = V()
                        for k in -r...r {
                            let o = i + k * s
                            if k & 1 == 0 {
                                sa += DemosaicVector.load(aEven + o); sb += DemosaicVector.load(bEven + o)
                                ca += DemosaicVector.load(aOdd + o); cb += DemosaicVector.load(bOdd + o)
                            } else {
                                sa += DemosaicVector.load(aOdd + o); sb += DemosaicVector.load(bOdd + o)
                                ca += DemosaicVector.load(aEven + o); cb += DemosaicVector.load(bEven + o)
                            }
                        }
                        DemosaicVector.store(sa, along[4 * lp] + i); DemosaicVector.store(sb, along[4 * lp + 1] + i)
                        DemosaicVector.store(ca, along[4 * lp + 2] + i); DemosaicVector.store(cb, along[4 * lp + 3] + i)
                    }
                }
            }
        }
        let residual = lapIP, crossEstimate = lapII
        // Offsets are divided (not × 1/n) so flat fields stay exact; slopes are 0 there, so they may use 1/n.
        let windowCount = Float((2 * r + 1) * (2 * r + 1)), inverseWindow = 1 / windowCount
        let cols2 = g.columns(3 + 2 * r)
        for y in g.rows(3 + 2 * r) {
            let row = y * w
            for x0 in stride(from: cols2.lowerBound, to: cols2.upperBound, by: 8) {
                let i = row + min(x0, cols2.upperBound - 8)
                var aSelf = V(), bSelf = V(), aCross = V(), bCross = V()
                for l in -r...r {
                    let o = i + l * t, lp = l & 1
                    aSelf += DemosaicVector.load(along[4 * lp] + o); bSelf += DemosaicVector.load(along[4 * lp + 1] + o)
                    aCross += DemosaicVector.load(along[4 * lp + 2] + o); bCross += DemosaicVector.load(along[4 * lp + 3] + o)
                }
                let mi = DemosaicVector.load(m + i)
                // Own colour at its own site (guide = interpolated other colour) → residual.
                DemosaicVector.store(mi - ((aSelf * inverseWindow) * DemosaicVector.load(guide + i) + bSelf / windowCount), residual + i)
                // The line's other colour here, guided by this site's sample.
                DemosaicVector.store((aCross * inverseWindow) * mi + bCross / windowCount, crossEstimate + i)
            }
        }
        // Add the linearly interpolated residual of the other colour; G − C (inset 4 + 2r).
        let cols3 = g.columns(4 + 2 * r)
        for y in g.rows(4 + 2 * r) {
            let greenParity = g.isGreen(0, y) ? 0 : 1
            for x in cols3 {
                let i = y * w + x
                let estimate = crossEstimate[i] + (residual[i - s] + residual[i + s]) * 0.5
                dif[i] = (x & 1) == greenParity ? m[i] - estimate : estimate - m[i]
            }
        }
    }

    /// Step 2: green at red/blue sites (exact at `inset` = `dif` inset + 4).
    func combine(_ m: UnsafePointer<Float>, _ g: Geometry, difH: UnsafeMutablePointer<Float>, difV: UnsafeMutablePointer<Float>,
                 gradH: UnsafeMutablePointer<Float>, gradV: UnsafeMutablePointer<Float>,
                 boxH: UnsafeMutablePointer<Float>, boxV: UnsafeMutablePointer<Float>,
                 inset: Int, green: UnsafeMutablePointer<Float>) {
        let w = g.width, e = inset - 4
        for y in g.rows(e + 1) {
            for i in (y * w + g.columns(e + 1).lowerBound)..<(y * w + g.columns(e + 1).upperBound) {
                gradH[i] = abs(difH[i + 1] - difH[i - 1])
                gradV[i] = abs(difV[i + w] - difV[i - w])
            }
        }
        for y in g.rows(e + 2) {
            for i in (y * w + g.columns(e + 2).lowerBound)..<(y * w + g.columns(e + 2).upperBound) {
                boxH[i] = ((gradH[i - w - 1] + gradH[i - w] + gradH[i - w + 1]) + (gradH[i - 1] + gradH[i] + gradH[i + 1]))
                    + (gradH[i + w - 1] + gradH[i + w] + gradH[i + w + 1])
                boxV[i] = ((gradV[i - w - 1] + gradV[i - w] + gradV[i - w + 1]) + (gradV[i - 1] + gradV[i] + gradV[i + 1]))
                    + (gradV[i + w - 1] + gradV[i + w] + gradV[i + w + 1])
            }
        }
        // One-sided Gaussian taps k = 1…4 (tap 0 is the centre), normalised over the five taps.
        var taps = (0...4).map { exp(-Float($0 * $0) / (2 * sigma * sigma)) }
        let total = taps.reduce(0, +)
        taps = taps.map { $0 / total }
        let (k1, k2, k3, k4) = (taps[1], taps[2], taps[3], taps[4])
        let cols = g.columns(inset)
        for y in g.rows(inset) {
            let nonGreen = g.isGreen(0, y) ? 1 : 0
            var i = y * w + DemosaicBorder.firstColumn(cols.lowerBound, parity: nonGreen)
            let end = y * w + cols.upperBound
            while i < end {
                let sW = boxH[i - 1], sE = boxH[i + 1], sN = boxV[i - w], sS = boxV[i + w]
                let wW = 1 / (sW * sW + 1e-32), wE = 1 / (sE * sE + 1e-32)
                let wN = 1 / (sN * sN + 1e-32), wS = 1 / (sS * sS + 1e-32)
                // c + Σ kⱼ (dⱼ − c): the normalised one-sided mean, exact on constant differences.
                let h0 = difH[i], v0 = difV[i]
                let dWest = h0 + ((k1 * (difH[i - 1] - h0) + k2 * (difH[i - 2] - h0)) + (k3 * (difH[i - 3] - h0) + k4 * (difH[i - 4] - h0)))
                let dEast = h0 + ((k1 * (difH[i + 1] - h0) + k2 * (difH[i + 2] - h0)) + (k3 * (difH[i + 3] - h0) + k4 * (difH[i + 4] - h0)))
                let dNorth = v0 + ((k1 * (difV[i - w] - v0) + k2 * (difV[i - 2 * w] - v0)) + (k3 * (difV[i - 3 * w] - v0) + k4 * (difV[i - 4 * w] - v0)))
                let dSouth = v0 + ((k1 * (difV[i + w] - v0) + k2 * (difV[i + 2 * w] - v0)) + (k3 * (difV[i + 3 * w] - v0) + k4 * (difV[i + 4 * w] - v0)))
                let d = dNorth + (wS * (dSouth - dNorth) + wW * (dWest - dNorth) + wE * (dEast - dNorth)) / (wN + wS + wW + wE)
                green[i] = m[i] + d
                i += 2
            }
        }
    }

    /// Step 3 for colour `c`: guided filter on the full green, residuals interpolated bilinearly
    /// (exact at `inset` + 2·colourRadius + 3). Uses `temps[0...9]` and 1 row buffer.
    func colour(_ c: CFAColor, _ m: UnsafePointer<Float>, _ g: Geometry, green: UnsafeMutablePointer<Float>,
                temps: [UnsafeMutablePointer<Float>], rows: UnsafeMutablePointer<Float>, inset: Int,
                out: UnsafeMutablePointer<Float>) {
        typealias V = DemosaicVector.V
        let w = g.width, r = colourRadius
        var px = 0, py = 0
        for y in 0..<2 { for x in 0..<2 where g.cfa.color(x: x, y: y) == c { px = x; py = y } }
        let lapIP = temps[0], lapII = temps[1]
        let hI = temps[2], hP = temps[3], hIP = temps[4], hII = temps[5]
        let a = temps[6], b = temps[7], hA = temps[8], hB = temps[9]
        let q = temps[2], residual = temps[3]      // reuse hI, hP once a, b exist
        let w2 = 2 * w
        // Laplacian products at the colour's sites (inset + 2).
        let e0 = inset + 2
        for y in g.rows(e0) where y & 1 == py {
            var i = y * w + DemosaicBorder.firstColumn(g.columns(e0).lowerBound, parity: px)
            let end = y * w + g.columns(e0).upperBound
            while i < end {
                let lapI = green[i] * 4 - ((green[i - 2] + green[i + 2]) + (green[i - w2] + green[i + w2]))
                let lapP = m[i] * 4 - ((m[i - 2] + m[i + 2]) + (m[i - w2] + m[i + w2]))
                lapIP[i] = lapI * lapP
                lapII[i] = lapI * lapI
                i += 2
            }
        }
        // Sums over the window's samples: along the sample rows, then down the columns (inset e0 + r).
        let e1 = e0 + r
        let cols1 = g.columns(e1)
        // Eight columns at a time: sample columns sum the even offsets, the others the odd ones
        // (each in ascending order, as a scalar loop would); lanes pick theirs by an exact blend.
        for y in g.rows(e0) where y & 1 == py {
            let row = y * w
            for x0 in stride(from: cols1.lowerBound, to: cols1.upperBound, by: 8) {
                let x = min(x0, cols1.upperBound - 8), i = row + x
                var sI = (V(), V()), sP = (V(), V()), sIP = (V(), V()), sII = (V(), V())
                for dx in -r...r {
                    let o = i + dx
                    let vI = DemosaicVector.load(green + o), vP = DemosaicVector.load(m + o)
                    let vIP = DemosaicVector.load(lapIP + o), vII = DemosaicVector.load(lapII + o)
                    if dx & 1 == 0 { sI.0 += vI; sP.0 += vP; sIP.0 += vIP; sII.0 += vII } else { sI.1 += vI; sP.1 += vP; sIP.1 += vIP; sII.1 += vII }
                }
                let k = DemosaicVector.parityLanes(x, px)
                DemosaicVector.store(DemosaicVector.blend(k, sI.0, sI.1), hI + i)
                DemosaicVector.store(DemosaicVector.blend(k, sP.0, sP.1), hP + i)
                DemosaicVector.store(DemosaicVector.blend(k, sIP.0, sIP.1), hIP + i)
                DemosaicVector.store(DemosaicVector.blend(k, sII.0, sII.1), hII + i)
            }
        }
        let evenCount = 2 * (r / 2) + 1, oddCount = 2 * ((r + 1) / 2)
        let th = threshold
        for y in g.rows(e1) {
            let row = y * w
            let ny = (y & 1) == py ? evenCount : oddCount
            let countEven = Float(ny * evenCount), countOdd = Float(ny * oddCount)
            for x0 in stride(from: cols1.lowerBound, to: cols1.upperBound, by: 8) {
                let x = min(x0, cols1.upperBound - 8), i = row + x
                var acc = V(), accP = V(), accIP = V(), accII = V()
                for dy in -r...r where (y + dy) & 1 == py {
                    let o = i + dy * w
                    acc += DemosaicVector.load(hI + o); accP += DemosaicVector.load(hP + o)
                    accIP += DemosaicVector.load(hIP + o); accII += DemosaicVector.load(hII + o)
                }
                let sampleColumns = DemosaicVector.parityLanes(x, px)
                let count = DemosaicVector.blend(sampleColumns, V(repeating: countEven), V(repeating: countOdd))
                let inverseCount = DemosaicVector.blend(sampleColumns, V(repeating: 1 / countEven), V(repeating: 1 / countOdd))
                let floor = count * th
                let slope = accIP / accII.replacing(with: floor, where: accII .< floor)
                DemosaicVector.store(slope, a + i)
                DemosaicVector.store(accP / count - slope * (acc * inverseCount), b + i)   // slope = 0 on flat fields
            }
        }
        // Window means of a and b over every pixel; tentative colour; residuals at samples (inset e1 + r).
        let e2 = e1 + r
        let cols2 = g.columns(e2)
        for y in g.rows(e1) {
            let row = y * w
            for x0 in stride(from: cols2.lowerBound, to: cols2.upperBound, by: 8) {
                let i = row + min(x0, cols2.upperBound - 8)
                var sA = V(), sB = V()
                for dx in -r...r { sA += DemosaicVector.load(a + i + dx); sB += DemosaicVector.load(b + i + dx) }
                DemosaicVector.store(sA, hA + i); DemosaicVector.store(sB, hB + i)
            }
        }
        let windowCount = Float((2 * r + 1) * (2 * r + 1)), inverseWindow = 1 / windowCount
        for y in g.rows(e2) {
            let row = y * w
            for x0 in stride(from: cols2.lowerBound, to: cols2.upperBound, by: 8) {
                let i = row + min(x0, cols2.upperBound - 8)
                var meanA = V(), meanB = V()
                for dy in -r...r { meanA += DemosaicVector.load(hA + i + dy * w); meanB += DemosaicVector.load(hB + i + dy * w) }
                let tentative = (meanA * inverseWindow) * DemosaicVector.load(green + i) + meanB / windowCount
                DemosaicVector.store(tentative, q + i)
                DemosaicVector.store(DemosaicVector.load(m + i) - tentative, residual + i)   // meaningful at the colour's sites only
            }
        }
        // Tentative + bilinearly interpolated residual; samples kept (inset e2 + 1).
        let e3 = e2 + 1
        for y in g.rows(e3) {
            let sampleRow = (y & 1) == py
            for x in g.columns(e3) {
                let i = y * w + x
                let sampleColumn = (x & 1) == px
                if sampleRow && sampleColumn {
                    out[i] = m[i]
                } else if sampleRow {
                    out[i] = q[i] + (residual[i - 1] + residual[i + 1]) * 0.5
                } else if sampleColumn {
                    out[i] = q[i] + (residual[i - w] + residual[i + w]) * 0.5
                } else {
                    out[i] = q[i] + ((residual[i - w - 1] + residual[i - w + 1]) + (residual[i + w - 1] + residual[i + w + 1])) * 0.25
                }
            }
        }
    }
}
