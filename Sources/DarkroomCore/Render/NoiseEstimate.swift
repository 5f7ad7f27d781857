import Foundation

/// The noise model estimated from the image itself, for files without a NoiseProfile (`auto`
/// then denoises with it; `darkroom explain` prints it).
extension NoiseModel {
    /// Side of an analysis block, in photosites (8 × 8 samples of R and B, 128 of G).
    static let estimateBlock = 16
    /// At most this many bands of `estimateBlock` rows are read (evenly spaced over the image): a
    /// 24 MP image (6000 × 4000) gives 42 bands of 375 blocks, about 15 700 blocks per colour
    /// (the bins need 12 each), for the cost of reading a sixth of it.
    static let estimateBands = 48
    /// Intensity bins, uniform in √x over 0…1 of the raw range (finer in the shadows, where the
    /// read noise O shows).
    static let estimateBins = 24
    /// A bin counts when it holds at least this many blocks of a colour.
    static let estimateMinimumBlocks = 12
    /// The quantile of the block variances taken per bin (texture and edges only ever raise a
    /// block's variance, so the quietest blocks of a bin are the ones that are noise alone).
    static let estimateQuantile = 0.1
    /// `auto` trusts an estimate only when its three colours' σ² at mid-grey (raw units) agree
    /// within this factor (`colourSpread`).
    /// (Measured on the synthetic test scene's noise: ≤ 1.2; on noise-free Kodak images, whose
    /// pixel-scale grain and texture the estimate cannot tell from noise: > 1.5 on 18 of 24.)
    static let estimateAgreement = 1.5

    /// Estimates σ² = S·x + O per CFA colour (raw units, x in 0…1 of the range, like the NoiseProfile)
    /// from a balanced mosaic source (linearised, white-balanced, clipped at 1).
    ///
    /// The high-pass residual of each photosite is d = Σ aᵢ aⱼ x(2i, 2j) over its 3 × 3 same-colour
    /// neighbours, a = (1, −2, 1) (the second difference along x of the second differences along
    /// y): it is 0 for any signal that is linear along x or along y — flat areas, gradients, and
    /// straight horizontal or vertical edges — and for independent noise of variance σ² it has
    /// variance 36σ². On `estimateBands` evenly spaced bands of the image, each 16 × 16 block gives
    /// per colour its mean level and v = mean(d²)/36 (blocks with a photosite ≥ 0.98, near the
    /// clip, are skipped); per √-level bin the `estimateQuantile` quantile of the blocks' v is
    /// divided by the quantile of a χ²_ν/ν at that rank (Wilson–Hilferty, ν = samples / 3.78: the
    /// residuals of neighbouring photosites share taps, Σρ² = (1 + 2·(2/3)² + 2·(1/6)²)² = 3.78),
    /// which is σ² at the bin's mean level when the quietest blocks are pure noise (texture only
    /// biases it up). σ² never falls as the level rises, so each bin is then lowered to the lowest
    /// value of the bins above it (a bin with only textured blocks inherits a brighter, quieter
    /// bin's value; on a noise-free image with any flat bright area everything drops to ≈ 0). S and O come from a least-squares fit over the bins weighted by
    /// blocks / σ⁴ (the spread of a variance estimate grows with it; the fit is redone once with
    /// the first fit's σ²), clamped ≥ 0 (with one bin: all shot noise). A noise-free image has
    /// flat or linear blocks in most bins, so its estimate is ≈ 0 and `auto` leaves it alone.
    ///
    /// Photosite noise in raw units does not depend on the colour filter, texture does (the white
    /// balance and the scene's colours scale it per colour): the returned model is the quietest
    /// colour's (S, O) at mid-grey for all three, and `colourSpread` the ratio of the noisiest to
    /// the quietest colour's σ² there. `auto` uses an estimate only when that spread is ≤
    /// `estimateAgreement` (otherwise what the blocks found is mostly texture, and denoising it
    /// would cost detail); an explicit strength uses it anyway.
    ///
    /// Deterministic: the bands depend only on the image size, and every sum runs in a fixed order
    /// over the whole mosaic, whatever the tiles or threads. Nil when a colour has no bin with
    /// enough blocks (image too small or almost all clipped).
    static func measure(plan: DevelopPlan, source: TileRenderer.TileSource) -> NoiseModel? {
        guard plan.samplesPerPixel == 1, let cfa = plan.cfa else { return nil }
        if case .demosaiced = source { return nil }
        let W = plan.width, H = plan.height, B = estimateBlock
        let margin = 2
        let blocksX = (W - 2 * margin) / B, bandCount = (H - 2 * margin) / B
        guard blocksX >= 1, bandCount >= 1 else { return nil }
        let step = max(1, (bandCount + estimateBands - 1) / estimateBands)
        let gains = SIMD3<Double>(Double(plan.whiteBalanceGains.x), Double(plan.whiteBalanceGains.y), Double(plan.whiteBalanceGains.z))
        let bins = estimateBins
        // Per colour and bin: the blocks' variances and levels (raw units).
        var variances = [[Double]](repeating: [], count: 3 * bins)
        var levels = [Double](repeating: 0, count: 3 * bins)
        let rows = B + 2 * margin
        var colourOf = [Int](repeating: 0, count: 4)
        for i in 0..<4 { colourOf[i] = Int(cfa.color(x: i & 1, y: i >> 1).rawValue) }
        // The bands are read and measured in parallel; each band's blocks (colour, bin, variance,
        // level) are then gathered in band order, so every sum runs in the same order as one thread's.
        let bandStarts = Array(stride(from: 0, to: bandCount, by: step))
        var perBand = [[(c: Int, bin: Int, v: Double, level: Double)]](repeating: [], count: bandStarts.count)
        let colours = colourOf, shared = TileRenderer.SourceBox(source: source)
        perBand.withUnsafeMutableBufferPointer { results in
            let out = RowBuffer(results.baseAddress!)
            DispatchQueue.concurrentPerform(iterations: bandStarts.count) { i in
                var band = [Float](repeating: 0, count: rows * W)
                var found: [(c: Int, bin: Int, v: Double, level: Double)] = []
                let y0 = margin + bandStarts[i] * B      // first centre row; rows y0 − margin … y0 + B + margin − 1 are read
                band.withUnsafeMutableBufferPointer { buf in
                    TileRenderer.balancedRegion(plan: plan, source: shared.source, into: buf.baseAddress!, rx: 0, ry: y0 - margin, rw: W,
                                                ix0: 0, ix1: W, iy0: y0 - margin, iy1: y0 + B + margin)
                }
                band.withUnsafeBufferPointer { m in
                    for bx in 0..<blocksX {
                        let x0 = margin + bx * B
                        var d2 = SIMD3<Double>(0, 0, 0), sum = SIMD3<Double>(0, 0, 0), count = SIMD3<Double>(0, 0, 0)
                        var clipped = SIMD3<Double>(0, 0, 0)
                        for y in y0..<(y0 + B) {
                            let r0 = m.baseAddress! + (y - y0 + margin - 2) * W, r1 = r0 + 2 * W, r2 = r0 + 4 * W
                            for x in x0..<(x0 + B) {
                                let c = colours[(y & 1) * 2 + (x & 1)]
                                let t0 = r0[x - 2], t1 = r0[x], t2 = r0[x + 2]
                                let m0 = r1[x - 2], m1 = r1[x], m2 = r1[x + 2]
                                let u0 = r2[x - 2], u1 = r2[x], u2 = r2[x + 2]
                                if max(max(max(t0, t1), max(t2, m0)), max(max(m1, m2), max(max(u0, u1), u2))) >= 0.98 { clipped[c] = 1 }
                                let top = t0 - 2 * t1 + t2, mid = m0 - 2 * m1 + m2, bottom = u0 - 2 * u1 + u2
                                let d = Double(top - 2 * mid + bottom)
                                d2[c] += d * d; sum[c] += Double(m1); count[c] += 1
                            }
                        }
                        for c in 0..<3 where count[c] > 0 && clipped[c] == 0 {
                            let g = gains[c]
                            let level = sum[c] / count[c] / g
                            let v = d2[c] / (36 * count[c]) / (g * g)
                            let bin = min(Int((max(level, 0)).squareRoot() * Double(bins)), bins - 1)
                            found.append((c, bin, v, level))
                        }
                    }
                }
                out.p[i] = found
            }
        }
        for found in perBand {
            for e in found {
                variances[e.c * bins + e.bin].append(e.v)
                levels[e.c * bins + e.bin] += e.level
            }
        }
        var scale = SIMD3<Double>(0, 0, 0), offset = SIMD3<Double>(0, 0, 0)
        for c in 0..<3 {
            // Samples per block of this colour: the CFA's count of c in a 2 × 2 quad × B²/4.
            let perQuad = colourOf.filter { $0 == c }.count
            guard perQuad > 0 else { return nil }
            let nu = Double(perQuad * B * B / 4) / 3.78
            var xs: [Double] = [], vs: [Double] = [], ns: [Double] = []
            for bin in 0..<bins {
                let list = variances[c * bins + bin]
                guard list.count >= estimateMinimumBlocks else { continue }
                let sorted = list.sorted()
                let k = Int(estimateQuantile * Double(sorted.count))
                let rank = (Double(k) + 0.5) / Double(sorted.count)
                let z = normalQuantile(rank)
                let h = 2 / (9 * nu)
                let chi = pow(max(1 - h + z * h.squareRoot(), 0.05), 3)   // χ²_ν/ν at that rank (Wilson–Hilferty)
                xs.append(levels[c * bins + bin] / Double(list.count))
                vs.append(sorted[k] / chi)
                ns.append(Double(list.count))
            }
            guard !xs.isEmpty else { return nil }
            // The true σ² never falls as the level rises (S, O ≥ 0) and every bin's estimate can only
            // be biased up (by texture), so each bin is bounded by the bins above it: a bin whose
            // quietest blocks are still textured takes the lower value of a brighter bin.
            for i in stride(from: vs.count - 2, through: 0, by: -1) { vs[i] = min(vs[i], vs[i + 1]) }
            if xs.count == 1 {
                let s1 = xs[0] > 0 ? vs[0] / xs[0] : 0, o1 = xs[0] > 0 ? 0 : vs[0]
                scale[c] = s1; offset[c] = o1
                continue
            }
            var (s, o) = fit(xs, vs, weights: zip(ns, vs).map { $0 / max($1 * $1, 1e-20) })
            (s, o) = fit(xs, vs, weights: xs.indices.map { ns[$0] / max(pow(s * xs[$0] + o, 2), 1e-20) })
            scale[c] = s; offset[c] = o
        }
        // Photosite noise in raw units is the same whatever the filter over the photosite; texture
        // (scaled by the white balance and by the scene's colour) is not: the quietest colour's model
        // is the one texture has biased least, and it stands for all three.
        let atMidGrey = scale * 0.18 + offset
        let k = atMidGrey.x <= atMidGrey.y && atMidGrey.x <= atMidGrey.z ? 0 : atMidGrey.y <= atMidGrey.z ? 1 : 2
        var model = NoiseModel(scale: SIMD3(repeating: scale[k]), offset: SIMD3(repeating: offset[k]), source: "estimated from the image")
        model.colourSpread = atMidGrey.min() > 0 ? atMidGrey.max() / atMidGrey.min() : (atMidGrey.max() > 0 ? .infinity : 1)
        return model
    }

    /// Weighted least squares v = S·x + O, S and O clamped ≥ 0 (refitting the other alone).
    static func fit(_ xs: [Double], _ vs: [Double], weights ws: [Double]) -> (Double, Double) {
        let sw = ws.reduce(0, +)
        guard sw > 0 else { return (0, 0) }
        var mx = 0.0, mv = 0.0
        for i in xs.indices { mx += ws[i] * xs[i]; mv += ws[i] * vs[i] }
        mx /= sw; mv /= sw
        var sxx = 0.0, sxv = 0.0
        for i in xs.indices { sxx += ws[i] * (xs[i] - mx) * (xs[i] - mx); sxv += ws[i] * (xs[i] - mx) * (vs[i] - mv) }
        var s = sxx > 0 ? sxv / sxx : 0
        var o = mv - s * mx
        if s < 0 { s = 0; o = max(mv, 0) }
        if o < 0 {
            o = 0
            var num = 0.0, den = 0.0
            for i in xs.indices { num += ws[i] * xs[i] * vs[i]; den += ws[i] * xs[i] * xs[i] }
            s = den > 0 ? max(num / den, 0) : 0
        }
        return (s, o)
    }

    /// The standard normal quantile Φ⁻¹(p), 0 < p < 1 (Shore 1982: error < 0.01 for
    /// 0.001 ≤ p ≤ 0.999, enough for a bias correction).
    static func normalQuantile(_ p: Double) -> Double {
        let q = min(max(p, 1e-9), 1 - 1e-9)
        if q >= 0.5 { return 5.5556 * (1 - pow((1 - q) / q, 0.1186)) }
        return -5.5556 * (1 - pow(q / (1 - q), 0.1186))
    }
}

extension NoiseModel {
    /// The model estimated from `raw`'s mosaic under `plan` (see `measure`); nil for LinearRaw,
    /// a size that does not match the plan, or too little unclipped image.
    public static func estimate(raw: RawImage, plan: DevelopPlan) -> NoiseModel? {
        guard raw.width == plan.width, raw.height == plan.height, raw.samplesPerPixel == 1,
              raw.pixels.count >= raw.width * raw.height else { return nil }
        return raw.pixels.withUnsafeBufferPointer { measure(plan: plan, source: .mosaic($0)) }
    }
}

extension DevelopPlan {
    /// `explanation` with the noise-reduction line completed from the image: for a file without
    /// a NoiseProfile, the model estimated from `raw`'s pixels ("estimated from the image: S=…,
    /// O=…"), and whether `auto` denoises with it. (`explanation` alone cannot read pixels.)
    public func explanation(for raw: RawImage) -> [String] {
        let lines = explanation
        guard noiseModel == nil, samplesPerPixel == 1, recipe.noiseReduction != .off,
              raw.width == width, raw.height == height, raw.samplesPerPixel == 1 else { return lines }
        let model = NoiseModel.estimate(raw: raw, plan: self)
        return lines.map { line in
            guard line.hasPrefix("noise reduction: ") else { return line }
            let strength = recipe.noiseReduction == .auto ? "auto, strength 1,1" : recipe.noiseReduction.text
            guard let m = model else {
                return "noise reduction: \(strength) → none (no NoiseProfile, and too little unclipped image to estimate the noise)"
            }
            let invisible = recipe.noiseReduction == .auto && m.sigmaAtMidGrey < NoiseReduction.visibility
            let texture = recipe.noiseReduction == .auto && m.colourSpread > NoiseModel.estimateAgreement
            return "noise reduction: \(strength); \(NoiseReduction.summary); " + m.describe
                + (invisible ? " (below visibility: none)" : texture ? String(format: " (the colours disagree ×%.2f > ×%.1f: texture rather than noise, none)", m.colourSpread, NoiseModel.estimateAgreement) : "")
        }
    }
}

extension NoiseModel {
    /// "NoiseProfile S … O …" or "estimated from the image: S=…, O=…" (R G B), with σ at mid-grey.
    var describe: String {
        let s = String(format: "%.3g %.3g %.3g", scale.x, scale.y, scale.z), o = String(format: "%.3g %.3g %.3g", offset.x, offset.y, offset.z)
        let head = source == "NoiseProfile" ? "NoiseProfile S \(s), O \(o)" : "estimated from the image: S=\(s), O=\(o)"
        return head + String(format: "; σ at mid-grey %.4f", sigmaAtMidGrey)
    }
}
