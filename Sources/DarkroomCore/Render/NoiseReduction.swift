import Foundation

/// `--noise-reduction`: how much noise reduction a render gets.
public enum NoiseReductionSpec: Sendable, Equatable, Codable {
    /// From the file's NoiseProfile (DNG tag 51041), else from the noise estimated in the image
    /// (`NoiseModel.measure`), at strengths 1 (luminance) and 1 (chroma); nothing where the
    /// model's noise is below visibility (`NoiseReduction.visibility`).
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
    /// "NoiseProfile" or "estimated from the image".
    public var source: String
    /// For an estimated model: the largest over the smallest of the three colours' σ² at mid-grey
    /// in raw units (photosite noise is the same for every colour there, texture is not); 1 for a
    /// NoiseProfile.
    public var colourSpread: Double = 1

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
}

/// Noise reduction in two places, per tile (`TileRenderer`): the colour on the white-balanced
/// mosaic before the demosaic, then luminance and colour at full resolution after it
/// (`FullResolution`).
///
/// Before the demosaic the noise is what the model says: independent between photosites, with
/// variance σ²_c = g_c·S_c·x + g_c²·O_c in balanced units (g_c the white-balance gain of CFA
/// colour c, x the balanced signal); after it, interpolation has spread it over several pixels
/// and into coarse colour blotches. So each 2 × 2 CFA quad (R, G₁, G₂, B, anchored at even image
/// coordinates) becomes four half-resolution planes, Y = (R + G₁ + G₂ + B)/4, U = R − (G₁ + G₂)/2,
/// V = B − (G₁ + G₂)/2, D = G₁ − G₂ (invertible), whose noise is white with variance
/// (σ²_R + 2σ²_G + σ²_B)/16, σ²_R + σ²_G/2, σ²_B + σ²_G/2 and 2σ²_G. U and V (the colour) go
/// through an undecimated ("à trous") separable wavelet transform (Starck, Murtagh & Bijaoui 1998):
/// c₀ = the plane, c_{j+1} = c_j smoothed by the linear-spline kernel [1, 2, 1]/4 dilated by 2ʲ
/// along x then y; the detail c_j − c_{j+1} is split into three bands (smoothed along x and
/// differenced along y, the transpose, and the diagonal rest), so the plane = c_L + Σ bands
/// exactly. Each band coefficient is shrunk by a locally adaptive Wiener gain (Mihçak, Kozintsev,
/// Ramchandran & Moulin 1999): w′ = w · max(E − k²σ²_j, 0) / E, with E the mean of w² over the
/// 3 × 3 coefficients 2ʲ apart around it and σ²_j = f_j · σ²_plane the noise variance of that band
/// (f_j from the kernels, `levelFactors`); an edge puts its energy into one band and leaves the
/// noise of the other two to be removed. σ²_c is taken at the quad's colour after one smoothing
/// (c₁ of Y, U, V, clamped at 0). k is the colour strength (`NoiseReductionSpec`; 1 = the model)
/// times `quadChromaShare`. Y (only the quad's mean: a quarter of a photosite's noise power) and D
/// (G₁ − G₂: mostly the luminance's finest detail) are left alone here: the luminance is denoised
/// whole after the demosaic. Photosites at the clip (≥ 1) keep their value (highlight
/// reconstruction reads them). Only the changes go back (ΔG = ΔY − (ΔU + ΔV)/4 on both greens,
/// ΔR = ΔG + ΔU, ΔB = ΔG + ΔV), so where the model's noise is 0 every gain is 1 and the mosaic is
/// left exactly as it came. The transform runs in SIMD8 groups (`shrinkInto`).
///
/// Every sum runs in a fixed order on the same samples whatever the tile (quads are anchored to
/// the image, and the region is valid `mosaicReach` photosites around what the demosaic reads),
/// so tile size and thread count never change a byte.
struct NoiseReduction: Sendable {
    /// Wavelet levels on the half-resolution planes (dilations 1, 2 quads: 2, 4 photosites; a third
    /// level gains < 0.1 dB on the bench sets and doubles the reach).
    static let levels = 2
    /// Radius of the energy window, in coefficients 2ʲ apart at level j (1: 3 × 3).
    static let windowRadius = Oriented3.window
    /// Mosaic context a tile needs beyond what the demosaic reads, in photosites (`needs` in quads,
    /// ×2, plus one for the quad anchoring at each end).
    static var mosaicReach: Int { 2 * needs(levels: levels)[0] + 2 }
    /// `auto` leaves images alone whose noisiest channel has σ < this at mid-grey (in units of the
    /// linear range: 1/1000, invisible after any tone curve).
    static let visibility = 0.001
    /// One line for `explain`: the method.
    static var summary: String {
        "colour on the mosaic before the demosaic (à-trous wavelet of U, V per CFA quad, \(levels) levels × 3 orientations, local Wiener shrinkage, 3×3 energy window), then luminance and colour after it (L, Cr, Cb at full resolution, \(FullResolution.levels) levels, L in 3 orientations at the finest, 3×3 energy window, noise calibrated through the demosaic)"
    }
    /// One line for `explain`: the method for LinearRaw.
    static var linearSummary: String {
        "luminance and colour at full resolution (L, Cr, Cb, à-trous wavelet, \(FullResolution.levels) levels, L in 3 orientations at the finest, local Wiener shrinkage, 3×3 energy window; LinearRaw: no demosaic, each channel's noise taken as white)"
    }

    let model: NoiseModel
    /// Variance of Y, Cr and Cb after the demosaic per unit variance of white noise in R, G and B
    /// before it (`propagation`): row Y, Cr, Cb; columns R, G, B. (Used by capture sharpening.)
    let transfer: (y: SIMD3<Float>, cr: SIMD3<Float>, cb: SIMD3<Float>)
    /// `thresholds[p][j]`: k² · f_j · the weights of σ²_R, σ²_G, σ²_B in plane p's (Y, U, V, D) noise.
    let thresholds: [[[SIMD3<Float>]]]
    let lumaStrength: Float
    let chromaStrength: Float
    /// The full-resolution stage after the demosaic (`FullResolution`; nil when both strengths are 0).
    let fullResolution: FullResolution?
    /// Whether the quad path shrinks plane p (Y, U, V, D): U and V only (Y and D are luminance,
    /// left to `fullResolution`), and only with a colour strength.
    let shrinksPlane: [Bool]
    /// Demosaiced context the full-resolution stage reads around what it outputs (0 without it).
    var fullResolutionReach: Int { fullResolution == nil ? 0 : FullResolution.reach }
    /// The quad path's colour strength as a share of the colour strength: the full-resolution
    /// stage denoises Cr and Cb again after the demosaic, and U, V also carry some luminance
    /// detail, so the quad path takes the coarse colour noise at 0.7 of the strength (0.5, 0.7
    /// and 1 measured on bench-quality's two sets: 0.7 best on both; again with the 3 × 3
    /// windows: 0.55 and 0.85 both lower than 0.7 on both sets).
    static let quadChromaShare = 0.7
    /// Per channel: variance = a·x + b in balanced units.
    let a: SIMD3<Float>, b: SIMD3<Float>

    /// The reduction for this render, or nil when off (or `auto` and the noise is invisible, or
    /// cannot be estimated). `estimate` gives the noise measured in the image (`NoiseModel.measure`),
    /// used without a NoiseProfile.
    ///
    /// LinearRaw (three samples per pixel, no demosaic) gets the full-resolution stage only, from
    /// its NoiseProfile (nothing is estimated for it: `NoiseModel.measure` reads mosaics), with
    /// the noise of each channel taken as white (`FullResolution.calibrate` without a kernel).
    static func resolve(plan: DevelopPlan, estimate: () -> NoiseModel?) -> NoiseReduction? {
        let spec = plan.recipe.noiseReduction
        let linear = plan.samplesPerPixel == 3
        if spec == .off || !(plan.samplesPerPixel == 1 || linear) { return nil }
        let model = linear ? plan.noiseModel : plan.noiseModel ?? estimate()
        guard let model else { return nil }
        var luma = 1.0, chroma = 1.0
        if case .strength(let l, let c) = spec { luma = l; chroma = c }
        if spec == .auto && model.sigmaAtMidGrey < visibility { return nil }
        if spec == .auto && model.colourSpread > NoiseModel.estimateAgreement { return nil }
        guard luma > 0 || chroma > 0 else { return nil }
        let g = SIMD3<Double>(Double(plan.whiteBalanceGains.x), Double(plan.whiteBalanceGains.y), Double(plan.whiteBalanceGains.z))
        let av = g * model.scale, bv = g * g * model.offset
        let a = SIMD3<Float>(Float(av.x), Float(av.y), Float(av.z)), b = SIMD3<Float>(Float(bv.x), Float(bv.y), Float(bv.z))
        if linear {
            guard let full = FullResolution(kernel: nil, cfa: nil, luma: luma, chroma: chroma, a: a, b: b) else { return nil }
            return NoiseReduction(model: model, transfer: whiteTransfer, thresholds: [],
                                  lumaStrength: Float(luma), chromaStrength: Float(chroma), fullResolution: full,
                                  shrinksPlane: [false, false, false, false], a: a, b: b)
        }
        guard let cfa = plan.cfa else { return nil }
        let weights: [SIMD3<Float>] = [SIMD3(1, 2, 1) / 16, SIMD3(1, 0.5, 0), SIMD3(0, 0.5, 1), SIMD3(0, 2, 0)]
        let ck = chroma * quadChromaShare
        let k2 = [Float(0), Float(ck * ck), Float(ck * ck), Float(0)]
        let factors = levelFactors(levels: levels)
        let kernel = plan.recipe.demosaic.makeKernel()
        return NoiseReduction(model: model, transfer: propagation(kernel: kernel, cfa: cfa),
                              thresholds: (0..<4).map { p in factors.map { $0.map { weights[p] * Float($0) * k2[p] } } },
                              lumaStrength: Float(luma), chromaStrength: Float(chroma),
                              fullResolution: FullResolution(kernel: kernel, cfa: cfa, luma: luma, chroma: chroma, a: a, b: b),
                              shrinksPlane: k2.map { $0 > 0 }, a: a, b: b)
    }

    /// Per level j, the variance of each detail band of unit white noise (horizontal, vertical,
    /// diagonal). With k_j the 1-D equivalent kernel of j smoothings (k₀ = δ, k_{j+1} = k_j ∗ h_j),
    /// q = Σk_{j+1}² and s = Σ(k_j − k_{j+1})² (centres aligned): a band smoothed along one axis and
    /// differenced along the other has q·s, the diagonal band s².
    static func levelFactors(levels: Int) -> [[Double]] {
        var k: [Double] = [1], result: [[Double]] = []
        for j in 0..<levels {
            let d = 1 << j
            var next = [Double](repeating: 0, count: k.count + 2 * d)
            for (i, v) in k.enumerated() {
                next[i] += 0.25 * v; next[i + d] += 0.5 * v; next[i + 2 * d] += 0.25 * v
            }
            var difference = next.map { -$0 }
            for (i, v) in k.enumerated() { difference[i + d] += v }   // k_j centred on next's centre
            let q = next.reduce(0) { $0 + $1 * $1 }, s = difference.reduce(0) { $0 + $1 * $1 }
            result.append([q * s, q * s, s * s])
            k = next
        }
        return result
    }

    /// What `propagation` is for white noise in R, G, B (no demosaic: LinearRaw): Y = (R + 2G + B)/4,
    /// Cr = R − G, Cb = B − G.
    static let whiteTransfer = (y: SIMD3<Float>(1, 4, 1) / 16, cr: SIMD3<Float>(1, 1, 0), cb: SIMD3<Float>(0, 1, 1))

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
            demosaicNoise(kernel: kernel, cfa: cfa, side: side, colour: colour, seed: 0x2545_F491_4F6C_DD1D, sigma: sigma,
                          mosaic: &mosaic, red: &red, green: &green, blue: &blue)
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

    /// Demosaics by `kernel` a flat `side`² mosaic at 0.5 whose `colour` photosites carry Gaussian
    /// noise of σ `sigma` (a 64-bit LCG from `seed` + `colour`, Box–Muller), into `red`, `green`,
    /// `blue` (`side`² samples each; `mosaic` is scratch of that size). Deterministic: how the
    /// demosaic spreads white photosite noise, for the noise calibrations (through the kernel's
    /// `noiseCalibration`: an adaptive kernel's correlated member).
    static func demosaicNoise(kernel: any DemosaicKernel, cfa: CFAPattern, side: Int, colour: Int, seed: UInt64, sigma: Float,
                              mosaic: inout [Float], red: inout [Float], green: inout [Float], blue: inout [Float]) {
        var state = seed &+ UInt64(colour)
        for i in 0..<(side * side) {
            let c = Int(cfa.color(x: i % side, y: i / side).rawValue)
            let z = gaussian(&state)
            mosaic[i] = 0.5 + (c == colour ? sigma * z : 0)
        }
        mosaic.withUnsafeBufferPointer { m in red.withUnsafeMutableBufferPointer { r in
            green.withUnsafeMutableBufferPointer { g in blue.withUnsafeMutableBufferPointer { b in
                kernel.noiseCalibration.demosaic(mosaic: m.baseAddress!, width: side, height: side, cfa: cfa,
                                                 red: r.baseAddress!, green: g.baseAddress!, blue: b.baseAddress!)
            } } } }
    }

    /// The calibrations' standard normal deviate: two uniforms from a 64-bit LCG (`state`), Box–Muller.
    @inline(__always)
    static func gaussian(_ state: inout UInt64) -> Float {
        func uniform() -> Float {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (Float(state >> 40) + 0.5) / 16_777_216
        }
        let u1 = uniform(), u2 = uniform()
        return (-2 * logf(u1)).squareRoot() * cosf(2 * .pi * u2)
    }

    /// How far around the output level j's approximation c_j must be valid, for j = 0…levels: the
    /// detail w_j is needed 2ʲ around the output (its energy window), c_{j+1} there and where the
    /// next level needs it, and c_j a further 2ʲ out (the kernel's radius).
    static func needs(levels: Int, window: Int = windowRadius) -> [Int] {
        var need = [Int](repeating: 0, count: levels + 1)
        for j in stride(from: levels - 1, through: 0, by: -1) {
            need[j + 1] = max(need[j + 1], window << j)
            need[j] = need[j + 1] + (1 << j)
        }
        return need
    }

    /// The full-resolution stage on the demosaiced planes of a tile (`FullResolution.apply`): the
    /// tile ± (`reach` − `fullResolutionReach`) is denoised, reading the tile ± `reach`. Nothing
    /// without it.
    func applyFullResolution(_ p: OutputTransform.Planes, width tw: Int, height th: Int, reach: Int) {
        guard let fullResolution else { return }
        fullResolution.apply(r: p.r, g: p.g, b: p.b, stride: p.stride, width: tw, height: th, margin: reach - FullResolution.reach)
    }

    /// Denoises the balanced mosaic region `m` (`rw × rh` photosites, its (0, 0) at image
    /// (`rx`, `ry`); `cfa` the image's pattern at image (0, 0)) in place, everywhere at least
    /// `mosaicReach` photosites from the region's edge (the rest is left as it was).
    func apply(mosaic m: UnsafeMutablePointer<Float>, width rw: Int, height rh: Int, rx: Int, ry: Int, cfa: CFAPattern) {
        let bx0 = rx & 1, by0 = ry & 1                   // first photosite at even image coordinates
        let qw = (rw - bx0) / 2, qh = (rh - by0) / 2
        let R = Self.needs(levels: Self.levels)[0]
        let tw = qw - 2 * R, th = qh - 2 * R
        guard tw > 0, th > 0, shrinksPlane.contains(true) else { return }
        // Offsets of R, G₁, G₂, B within a quad (anchored at even image coordinates).
        var red = 0, blue = 0, greens: [Int] = []
        for i in 0..<4 {
            switch cfa.color(x: i & 1, y: i >> 1) {
            case .red: red = (i >> 1) * rw + (i & 1)
            case .blue: blue = (i >> 1) * rw + (i & 1)
            case .green: greens.append((i >> 1) * rw + (i & 1))
            }
        }
        guard greens.count == 2 else { return }
        let g1 = greens[0], g2 = greens[1]
        // Rows `S` floats apart, with room for a last group of 8 and its taps (`shrinkInto`).
        let S = (qw + 7) / 8 * 8 + 16, n = S * qh
        // Planes: Y, U, V; next, spare, hx; σ²_R, σ²_G, σ²_B; ΔY, ΔU, ΔV; the rings of the bands
        // and their window sums; three rows of w².
        let ring = Self.ringRows(levels: Self.levels, window: Self.windowRadius) * S
        withUnsafeTemporaryAllocation(of: Float.self, capacity: n * 12 + 2 * ring + 3 * S + 32) { buffer in
            let base = buffer.baseAddress!
            let Y = base, U = base + n, V = base + 2 * n
            let w = base + 12 * n
            let planes = ShrinkPlanes(next: base + 3 * n, spare: base + 4 * n, hx: base + 5 * n, w: w, box: w + ring, w2: w + 2 * ring,
                                      vr: base + 6 * n, vg: base + 7 * n, vb: base + 8 * n, stride: S)
            let deltas = [base + 9 * n, base + 10 * n, base + 11 * n]
            for qy in 0..<qh {
                let row = m + (by0 + 2 * qy) * rw + bx0
                for qx in 0..<qw {
                    let q = row + 2 * qx
                    let r = q[red], ga = q[g1], gb = q[g2], b = q[blue]
                    let gm = (ga + gb) * 0.5, i = qy * S + qx
                    Y[i] = (r + ga + gb + b) * 0.25; U[i] = r - gm; V[i] = b - gm
                }
            }
            // Per-channel noise variance at each output quad from its colour after one smoothing
            // (3 × 3 binomial, along x into the scratch planes, then along y; SIMD8 groups as in
            // `shrinkInto`, whose scratch is free until it runs).
            typealias Vec = SIMD8<Float>
            typealias D = DemosaicVector
            let quarter = Vec(repeating: 0.25), half = Vec(repeating: 0.5), zero = Vec()
            let sY = planes.next, sU = planes.spare, sV = planes.hx
            for (src, t) in [(Y, sY), (U, sU), (V, sV)] {
                for y in (R - 1)..<(R + th + 1) {
                    let row = src + y * S, out = t + y * S
                    var x = R
                    while x < R + tw { D.store(half * D.load(row + x) + quarter * (D.load(row + x - 1) + D.load(row + x + 1)), out + x); x += 8 }
                }
            }
            let ar = Vec(repeating: a.x), ag = Vec(repeating: a.y), ab = Vec(repeating: a.z)
            let br = Vec(repeating: b.x), bg = Vec(repeating: b.y), bb = Vec(repeating: b.z)
            for y in R..<(R + th) {
                var x = R
                @inline(__always) func smooth(_ t: UnsafeMutablePointer<Float>) -> Vec {
                    half * D.load(t + y * S + x) + quarter * (D.load(t + (y - 1) * S + x) + D.load(t + (y + 1) * S + x))
                }
                while x < R + tw {
                    let ly = smooth(sY), lu = smooth(sU), lv = smooth(sV)
                    let lg = ly - quarter * (lu + lv), lr = lg + lu, lb = lg + lv
                    let i = y * S + x
                    D.store(ar * lr.replacing(with: zero, where: lr .< zero) + br, planes.vr + i)
                    D.store(ag * lg.replacing(with: zero, where: lg .< zero) + bg, planes.vg + i)
                    D.store(ab * lb.replacing(with: zero, where: lb .< zero) + bb, planes.vb + i)
                    x += 8
                }
            }
            for (p, plane) in [Y, U, V].enumerated() {
                for y in R..<(R + th) { (deltas[p] + y * S + R).initialize(repeating: 0, count: tw + 8) }
                guard shrinksPlane[p] else { continue }
                Self.shrinkInto(deltas[p], c: plane, planes: planes, origin: R, width: tw, height: th, thresholds: thresholds[p])
            }
            // Only the changes go back (the inverse of Y, U, V with D unchanged), where not clipped.
            let dY = deltas[0], dU = deltas[1], dV = deltas[2]
            for y in R..<(R + th) {
                let row = m + (by0 + 2 * y) * rw + bx0
                for x in R..<(R + tw) {
                    let i = y * S + x, q = row + 2 * x
                    let dg = dY[i] - (dU[i] + dV[i]) * 0.25
                    if q[red] < 1 { q[red] += dg + dU[i] }
                    if q[g1] < 1 { q[g1] += dg }
                    if q[g2] < 1 { q[g2] += dg }
                    if q[blue] < 1 { q[blue] += dg + dV[i] }
                }
            }
        }
    }
}
