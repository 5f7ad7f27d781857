import Foundation

/// `--noise-reduction`: how much noise reduction a render gets.
public enum NoiseReductionSpec: Sendable, Equatable, Codable {
    /// From the file's NoiseProfile (DNG tag 51041) at strengths 1 (luminance) and 1 (chroma);
    /// nothing where the profile's noise is below visibility, and nothing for files without a
    /// NoiseProfile (measuring noise in the image mistakes fine texture for noise too often to
    /// be a default; an explicit strength uses the measurement).
    case auto
    case off
    /// Strengths in units of the noise model's σ: 0 = none, 1 = the model, up to 4.
    case strength(luma: Double, chroma: Double)

    /// `auto`, `off`, `LUMA` or `LUMA,CHROMA` (each 0…4).
    public init(parsing text: String) throws(DevelopError) {
        switch Self.words(text) {
        case .auto: self = .auto
        case .off: self = .off
        case .numbers(let v) where (1...2).contains(v.count) && v.allSatisfy({ (0...4).contains($0) }):
            self = .strength(luma: v[0], chroma: v.count == 2 ? v[1] : v[0])
        default:
            throw .invalidRecipe("noise reduction must be auto, off, LUMA or LUMA,CHROMA with strengths 0…4 (got '\(text)')")
        }
    }

    /// The shape of an `auto | off | N[,N…]` control value (`--noise-reduction`, `--sharpen`):
    /// `auto`; `off` (also `none`, `0`); finite comma-separated numbers; else invalid.
    enum Words { case auto, off, numbers([Double]), invalid }

    static func words(_ text: String) -> Words {
        let t = text.lowercased().trimmingCharacters(in: .whitespaces)
        switch t {
        case "auto": return .auto
        case "off", "none", "0": return .off
        default:
            let parts = t.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard !parts.isEmpty, parts.allSatisfy({ $0?.isFinite ?? false }) else { return .invalid }
            return .numbers(parts.compactMap { $0 })
        }
    }

    /// The spelling `init(parsing:)` reads back.
    public var text: String {
        switch self {
        case .auto: return "auto"
        case .off: return "off"
        case .strength(let l, let c): return l == c ? Self.format(l) : "\(Self.format(l)),\(Self.format(c))"
        }
    }

    static func format(_ v: Double) -> String {
        v == v.rounded() ? String(Int(v)) : String(format: "%g", v)
    }
}

/// Signal-dependent noise of the linear raw data, per CFA colour (R, G, B): variance
/// σ² = S·x + O for a signal x in 0…1 of the linear range (the DNG NoiseProfile's model and units,
/// DNG 1.7 §"NoiseProfile").
public struct NoiseModel: Sendable, Equatable {
    public var scale: SIMD3<Double>
    public var offset: SIMD3<Double>
    /// "NoiseProfile" or "measured".
    public var source: String

    public init(scale: SIMD3<Double>, offset: SIMD3<Double>, source: String) {
        self.scale = scale; self.offset = offset; self.source = source
    }

    /// From a NoiseProfile tag: one (S, O) pair for all planes, or one per plane (R, G, B order
    /// of a 3-colour CFA). Nil when malformed (negative, non-finite, other counts).
    public init?(noiseProfile v: [Double]) {
        guard v.allSatisfy({ $0.isFinite && $0 >= 0 }) else { return nil }
        switch v.count {
        case 2: scale = SIMD3(repeating: v[0]); offset = SIMD3(repeating: v[1])
        case 6: scale = SIMD3(v[0], v[2], v[4]); offset = SIMD3(v[1], v[3], v[5])
        default: return nil
        }
        guard scale.max() > 0 || offset.max() > 0 else { return nil }
        source = "NoiseProfile"
    }

    /// σ at mid-grey (x = 0.18) of the noisiest channel, in units of the linear range.
    public var sigmaAtMidGrey: Double {
        let v = scale * 0.18 + offset
        return v.max().squareRoot()
    }

    /// Measures the model from a balanced mosaic source (linearised, white-balanced, clipped at
    /// 1; `gains` the white-balance gains, so raw = balanced / gain): on every 8th row pair, the
    /// second difference of same-colour neighbours, d = x(i) − 2·x(i+2) + x(i+4), whose variance
    /// is 6σ² where the signal is locally linear; per colour and per 1/16 of the range of
    /// x(i+2), σ² = (q₂₀ / 0.2533)² / 6 with q₂₀ the 20th percentile of |d| (from a histogram;
    /// texture and edges only raise |d|, so a low quantile is robust); then S, O by least squares over the bins with ≥ 64 samples (S, O ≥ 0). Nil when
    /// fewer than two bins of a colour qualify.
    static func measure(plan: DevelopPlan, source: TileRenderer.TileSource) -> NoiseModel? {
        guard plan.samplesPerPixel == 1, let cfa = plan.cfa else { return nil }
        let W = plan.width, H = plan.height
        guard W >= 16, H >= 16 else { return nil }
        let levels = 16, histBins = 2048, histMax: Float = 0.08
        var hist = [Int32](repeating: 0, count: 3 * levels * histBins)
        var counts = [Int](repeating: 0, count: 3 * levels)
        var row = [Float](repeating: 0, count: W)
        let gains = plan.whiteBalanceGains
        var y = 0
        while y < H {
            row.withUnsafeMutableBufferPointer { buf in
                TileRenderer.balancedRegion(plan: plan, source: source, into: buf.baseAddress!, rx: 0, ry: y, rw: W,
                                            ix0: 0, ix1: W, iy0: y, iy1: y + 1)
            }
            for x in 0..<(W - 4) {
                let a = row[x], b = row[x + 2], c = row[x + 4]
                // Clipped or black samples carry no noise information.
                guard a < 0.98, b < 0.98, c < 0.98, a > 0, b > 0, c > 0 else { continue }
                let col = Int(cfa.color(x: x, y: y).rawValue)
                let g = gains[col]
                let level = min(Int(b / g * Float(levels)), levels - 1)
                let d = abs(a - 2 * b + c) / g
                let k = min(Int(d / histMax * Float(histBins)), histBins - 1)
                hist[(col * levels + level) * histBins + k] += 1
                counts[col * levels + level] += 1
            }
            y += (y % 2 == 0) ? 1 : 15
        }
        var scale = SIMD3<Double>(0, 0, 0), offset = SIMD3<Double>(0, 0, 0)
        for col in 0..<3 {
            var xs: [Double] = [], vs: [Double] = [], ws: [Double] = []
            for level in 0..<levels {
                let n = counts[col * levels + level]
                guard n >= 64 else { continue }
                var cumulative = 0, k = 0
                let base = (col * levels + level) * histBins
                // The 20th percentile of |d| (texture and edges only ever raise |d|, so a low quantile
                // is the most robust): for Gaussian d it is 0.2533 σ_d.
                while k < histBins { cumulative += Int(hist[base + k]); if cumulative * 5 >= n { break }; k += 1 }
                let quantile = (Double(k) + 0.5) / Double(histBins) * Double(histMax)
                let sigma = quantile / 0.2533
                xs.append((Double(level) + 0.5) / Double(levels))
                vs.append(sigma * sigma / 6)
                ws.append(Double(n))
            }
            guard xs.count >= 2 else { return nil }
            // Weighted least squares v = S·x + O.
            let sw = ws.reduce(0, +)
            let mx = zip(xs, ws).map { $0 * $1 }.reduce(0, +) / sw
            let mv = zip(vs, ws).map { $0 * $1 }.reduce(0, +) / sw
            var sxx = 0.0, sxv = 0.0
            for i in xs.indices { sxx += ws[i] * (xs[i] - mx) * (xs[i] - mx); sxv += ws[i] * (xs[i] - mx) * (vs[i] - mv) }
            var s = sxx > 0 ? sxv / sxx : 0
            var o = mv - s * mx
            if s < 0 { s = 0; o = mv }
            if o < 0 { o = 0; s = mx > 0 ? mv / mx : 0 }
            scale[col] = s; offset[col] = o
        }
        return NoiseModel(scale: scale, offset: offset, source: "measured")
    }
}

/// Noise reduction after the demosaic, in white-balanced camera RGB, per tile (`TileRenderer`).
///
/// The tile's RGB goes to luminance and two colour differences, Y = (R + 2G + B) / 4,
/// Cr = R − G, Cb = B − G (invertible), and each is filtered by a local Wiener (Lee) filter:
/// out = μ + max(σ²_local − k²·σ²_noise, 0) / σ²_local · (x − μ), with μ and σ²_local the mean and
/// variance of the (2r + 1)² window (luminance r = 2, colour r = 3, colour noise being coarser
/// and less visible when smoothed). σ²_noise comes from the noise model at the window's mean:
/// per channel σ²_c = g_c·S_c·μ_c + g_c²·O_c in balanced units (g_c the white-balance gain), then
/// σ²_Y = (σ²_R + 4σ²_G + σ²_B) / 16, σ²_Cr = σ²_R + σ²_G, σ²_Cb = σ²_B + σ²_G (independent
/// channels). k is the strength (`NoiseReductionSpec`; 1 = the model). Flat areas are smoothed by
/// up to the window's size, edges and texture (local variance well above the noise) are kept.
///
/// Every window is summed in the same fixed order whatever the tile, so tile size and thread
/// count never change a byte.
struct NoiseReduction: Sendable {
    static let lumaRadius = 2
    static let chromaRadius = 3
    /// Extra context a tile needs beyond the demosaic's halo.
    static var reach: Int { max(lumaRadius, chromaRadius) }
    /// `auto` leaves images alone whose noisiest channel has σ < this at mid-grey (in units of the
    /// linear range: 1/1000, invisible after any tone curve).
    static let visibility = 0.001

    let model: NoiseModel
    /// Variance of Y, Cr and Cb after the demosaic per unit variance of white noise in R, G and B
    /// before it (`propagation`): row Y, Cr, Cb; columns R, G, B.
    let transfer: (y: SIMD3<Float>, cr: SIMD3<Float>, cb: SIMD3<Float>)
    let lumaStrength: Float
    let chromaStrength: Float
    /// Per channel: variance = a·x + b in balanced units.
    let a: SIMD3<Float>, b: SIMD3<Float>

    /// The reduction for this render, or nil when off (or `auto` and the noise is invisible or
    /// unknown).
    static func resolve(plan: DevelopPlan, source: TileRenderer.TileSource) -> NoiseReduction? {
        let spec = plan.recipe.noiseReduction
        if spec == .off || plan.samplesPerPixel != 1 { return nil }
        if spec == .auto && plan.noiseModel == nil { return nil }
        let model = plan.noiseModel ?? NoiseModel.measure(plan: plan, source: source)
        guard let model else { return nil }
        var luma = 1.0, chroma = 1.0
        if case .strength(let l, let c) = spec { luma = l; chroma = c }
        if spec == .auto && model.sigmaAtMidGrey < visibility { return nil }
        guard luma > 0 || chroma > 0 else { return nil }
        let g = SIMD3<Double>(Double(plan.whiteBalanceGains.x), Double(plan.whiteBalanceGains.y), Double(plan.whiteBalanceGains.z))
        let av = g * model.scale, bv = g * g * model.offset
        guard let cfa = plan.cfa else { return nil }
        return NoiseReduction(model: model, transfer: propagation(kernel: plan.recipe.demosaic.makeKernel(), cfa: cfa),
                              lumaStrength: Float(luma), chromaStrength: Float(chroma),
                              a: SIMD3<Float>(Float(av.x), Float(av.y), Float(av.z)),
                              b: SIMD3<Float>(Float(bv.x), Float(bv.y), Float(bv.z)))
    }

    /// How the demosaic carries noise into Y, Cr and Cb: the kernel demosaics a flat 64 × 64
    /// mosaic (0.5 of the range) carrying white Gaussian noise (σ = 0.02, a fixed sequence) in one
    /// CFA colour at a time; the variance of Y, Cr, Cb over the interior per unit input variance.
    /// (Interpolation averages noise and spreads it between channels, so the per-pixel noise of
    /// the demosaiced image is not the raw model's.) Deterministic: a function of the kernel and
    /// the CFA pattern only.
    static func propagation(kernel: any DemosaicKernel, cfa: CFAPattern) -> (y: SIMD3<Float>, cr: SIMD3<Float>, cb: SIMD3<Float>) {
        let side = 64 + 2 * kernel.halo, n = side * side
        let sigma: Float = 0.02
        var result = (y: SIMD3<Float>(0, 0, 0), cr: SIMD3<Float>(0, 0, 0), cb: SIMD3<Float>(0, 0, 0))
        var mosaic = [Float](repeating: 0, count: n), red = mosaic, green = mosaic, blue = mosaic
        for colour in 0..<3 {
            var state: UInt64 = 0x2545_F491_4F6C_DD1D &+ UInt64(colour)
            func uniform() -> Float {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return (Float(state >> 40) + 0.5) / 16_777_216
            }
            for i in 0..<n {
                let c = Int(cfa.color(x: i % side, y: i / side).rawValue)
                let u1 = uniform(), u2 = uniform()
                let z = (-2 * logf(u1)).squareRoot() * cosf(2 * .pi * u2)
                mosaic[i] = 0.5 + (c == colour ? sigma * z : 0)
            }
            mosaic.withUnsafeBufferPointer { m in red.withUnsafeMutableBufferPointer { r in
                green.withUnsafeMutableBufferPointer { g in blue.withUnsafeMutableBufferPointer { b in
                    kernel.demosaic(mosaic: m.baseAddress!, width: side, height: side, cfa: cfa,
                                    red: r.baseAddress!, green: g.baseAddress!, blue: b.baseAddress!)
                } } } }
            var sum = SIMD3<Double>(0, 0, 0), sq = SIMD3<Double>(0, 0, 0), count = 0.0
            let h = kernel.halo + 4
            for y in h..<(side - h) { for x in h..<(side - h) {
                let i = y * side + x
                let v = SIMD3<Double>(Double(red[i] + 2 * green[i] + blue[i]) * 0.25, Double(red[i] - green[i]), Double(blue[i] - green[i]))
                sum += v; sq += v * v; count += 1
            } }
            let mean = sum / count
            let variance = (sq / count - mean * mean) / Double(sigma * sigma)
            result.y[colour] = Float(max(variance.x, 0)); result.cr[colour] = Float(max(variance.y, 0)); result.cb[colour] = Float(max(variance.z, 0))
        }
        return result
    }

    /// Filters the tile `tw × th` of three planes (`stride` apart, tile pixel (0, 0) at offset 0;
    /// valid data from −`reach` to tw/th + `reach`), writing the result back into the tile.
    func apply(r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>,
               stride: Int, width tw: Int, height th: Int) {
        let R = Self.reach
        let ew = tw + 2 * R, eh = th + 2 * R
        let n = ew * eh
        withUnsafeTemporaryAllocation(of: Float.self, capacity: n * 9 + tw * th * 3) { buffer in
            let base = buffer.baseAddress!
            let Y = base, Cr = base + n, Cb = base + 2 * n
            let Y2 = base + 3 * n, Cr2 = base + 4 * n, Cb2 = base + 5 * n
            let col = base + 6 * n           // column sums (3 planes reuse it in turn: n floats each)
            let out = base + 9 * n
            // Extended-area planes, relative to (−R, −R).
            for y in 0..<eh {
                let o = (y - R) * stride - R
                for x in 0..<ew {
                    let rr = r[o + x], gg = g[o + x], bb = b[o + x]
                    let yv = (rr + 2 * gg + bb) * 0.25, cr = rr - gg, cb = bb - gg
                    let i = y * ew + x
                    Y[i] = yv; Cr[i] = cr; Cb[i] = cb
                    Y2[i] = yv * yv; Cr2[i] = cr * cr; Cb2[i] = cb * cb
                }
            }
            // Box means of `src` over (2rad + 1)² for the tile, into `dst` (tile-sized).
            func boxMean(_ src: UnsafePointer<Float>, radius rad: Int, into dst: UnsafeMutablePointer<Float>) {
                let side = Float(2 * rad + 1), inv = 1 / (side * side)
                // Vertical sums for rows R..<R+th, columns (R − rad)..<(R + tw + rad), in row order.
                for y in 0..<th {
                    let cy = y + R
                    let c = col + y * ew
                    for x in (R - rad)..<(R + tw + rad) {
                        var s: Float = 0
                        for k in (cy - rad)...(cy + rad) { s += src[k * ew + x] }
                        c[x] = s
                    }
                    for x in 0..<tw {
                        var s: Float = 0
                        for k in (x + R - rad)...(x + R + rad) { s += c[k] }
                        dst[y * tw + x] = s * inv
                    }
                }
            }
            let t = tw * th
            // out[0..t) μY, [t..2t) E[Y²]; reuse for chroma after.
            let mean = out, meanSq = out + t
            let lumaNoise = lumaStrength * lumaStrength, chromaNoise = chromaStrength * chromaStrength
            let a = self.a, bb = self.b, transfer = self.transfer
            // Luminance.
            boxMean(Y, radius: Self.lumaRadius, into: mean)
            boxMean(Y2, radius: Self.lumaRadius, into: meanSq)
            var yOut = [Float](repeating: 0, count: t)
            for y in 0..<th {
                for x in 0..<tw {
                    let i = y * tw + x, e = (y + R) * ew + x + R
                    let mu = mean[i], v = max(meanSq[i] - mu * mu, 0)
                    // Channel levels from the window's luminance (grey assumption for the noise level).
                    let level = max(mu, 0)
                    let channel = a * level + bb
                    let noise = (transfer.y * channel).sum() * lumaNoise
                    let gain = v > noise ? (v - noise) / v : 0
                    yOut[i] = mu + gain * (Y[e] - mu)
                }
            }
            var crOut = [Float](repeating: 0, count: t), cbOut = crOut
            for (plane, square, isRed) in [(Cr, Cr2, true), (Cb, Cb2, false)] {
                boxMean(plane, radius: Self.chromaRadius, into: mean)
                boxMean(square, radius: Self.chromaRadius, into: meanSq)
                for y in 0..<th {
                    for x in 0..<tw {
                        let i = y * tw + x, e = (y + R) * ew + x + R
                        let mu = mean[i], v = max(meanSq[i] - mu * mu, 0)
                        let level = max(yOut[i], 0)
                        let channel = a * level + bb
                        let noise = ((isRed ? transfer.cr : transfer.cb) * channel).sum() * chromaNoise
                        let gain = v > noise ? (v - noise) / v : 0
                        let value = mu + gain * (plane[e] - mu)
                        if isRed { crOut[i] = value } else { cbOut[i] = value }
                    }
                }
            }
            for y in 0..<th {
                for x in 0..<tw {
                    let i = y * tw + x, o = y * stride + x
                    let gm = yOut[i] - (crOut[i] + cbOut[i]) * 0.25
                    r[o] = gm + crOut[i]; g[o] = gm; b[o] = gm + cbOut[i]
                }
            }
        }
    }
}
