import Foundation

/// `--sharpen`: capture sharpening.
public enum SharpenSpec: Sendable, Equatable, Codable {
    /// Amount 0.4 at radius 1: a modest, noise-aware unsharp mask.
    case auto
    case off
    /// Amount 0…3 (0.4 = auto's), radius 1…3 px.
    case amount(Double, radius: Double)

    public static let autoAmount = 0.4
    public static let autoRadius = 1.0

    /// `auto`, `off`, `AMOUNT` or `AMOUNT,RADIUS`.
    public init(parsing text: String) throws(DevelopError) {
        switch NoiseReductionSpec.words(text) {
        case .auto: self = .auto
        case .off: self = .off
        case .numbers(let v) where (1...2).contains(v.count) && (0...3).contains(v[0]) && (v.count == 1 || (1...3).contains(v[1])):
            self = .amount(v[0], radius: v.count == 2 ? v[1] : Self.autoRadius)
        default:
            throw .invalidRecipe("sharpening must be auto, off, AMOUNT (0…3) or AMOUNT,RADIUS (radius 1…3 px) (got '\(text)')")
        }
    }

    /// (amount, radius in px) of a sharpening render; nil for `off`.
    public var amountAndRadius: (amount: Double, radius: Double)? {
        switch self {
        case .off: return nil
        case .auto: return (Self.autoAmount, Self.autoRadius)
        case .amount(let a, let r): return (a, r)
        }
    }

    /// The spelling `init(parsing:)` reads back.
    public var text: String {
        switch self {
        case .auto: return "auto"
        case .off: return "off"
        case .amount(let a, let r): return r == Self.autoRadius ? NoiseReductionSpec.format(a) : "\(NoiseReductionSpec.format(a)),\(NoiseReductionSpec.format(r))"
        }
    }
}

/// Capture sharpening after the demosaic (and with noise reduction), per tile, on luminance only:
/// Y' = Y + amount · gate · (Y − box_r(Y)), applied by scaling R, G and B by Y'/Y (chromaticity
/// kept, no channel pushed negative at a saturated edge), where
/// box_r is the (2r + 1)² mean (r = the radius, rounded) and the gate
/// gate = max(σ²_local − σ²_noise, 0) / σ²_local over the 5×5 window is ≈ 1 at edges and texture
/// and ≈ 0 where the local variation is only noise — so noise is not amplified. σ²_noise is the
/// luminance noise of the noise model — noise reduction's, else the NoiseProfile, else the noise
/// estimated from the image (`NoiseModel.measure`) — through the demosaic (`NoiseReduction.propagation`),
/// with a floor of (1/4096)² (quantisation); this is the noise before noise reduction (which runs
/// before the sharpening), so it keeps the gate on the careful side. Pure function of the
/// neighbourhood: tile-exact.
struct CaptureSharpening: Sendable {
    static let gateRadius = 2
    let amount: Float
    let radius: Int
    /// Luminance noise variance = noise.a·level + noise.b (balanced units), or the floor.
    let noiseSlope: Float, noiseOffset: Float

    var reach: Int { max(radius, Self.gateRadius) }

    /// The sharpening for this render, or nil when off. `estimate` gives the noise measured in the
    /// image (`NoiseModel.measure`; the renderer measures it at most once for both controls).
    /// LinearRaw is sharpened only on request (`AMOUNT`: whoever demosaiced it already shaped its
    /// detail, often with sharpening of their own, and its hard edges would take unsharp-mask
    /// halos), gated by its NoiseProfile taken as white noise per channel (nothing is estimated for
    /// it; without a NoiseProfile only the quantisation floor).
    static func resolve(plan: DevelopPlan, denoise: NoiseReduction?, estimate: () -> NoiseModel?) -> CaptureSharpening? {
        let linear = plan.samplesPerPixel == 3
        let cfa = plan.cfa
        guard linear || (plan.samplesPerPixel == 1 && cfa != nil) else { return nil }
        guard let (amount, radius) = plan.recipe.sharpen.amountAndRadius, amount > 0,
              !(linear && plan.recipe.sharpen == .auto) else { return nil }
        var slope: Float = 0, offset: Float = 1 / (4096 * 4096)
        // The luminance noise: noise reduction's model, else the NoiseProfile, else the noise
        // estimated from the image (texture biases that up, which only makes the gate more careful).
        let model = denoise?.model ?? plan.noiseModel ?? (linear ? nil : estimate())
        if let model {
            let transfer = denoise?.transfer.y
                ?? (cfa.map { NoiseReduction.propagation(kernel: plan.recipe.demosaic.makeKernel(), cfa: $0).y } ?? NoiseReduction.whiteTransfer.y)
            let g = SIMD3<Double>(Double(plan.whiteBalanceGains.x), Double(plan.whiteBalanceGains.y), Double(plan.whiteBalanceGains.z))
            let a = g * model.scale, b = g * g * model.offset
            // σ²_Y(level) = Σ_c transfer_Y[c] · (a_c · level + b_c).
            slope = Float((SIMD3<Double>(Double(transfer.x), Double(transfer.y), Double(transfer.z)) * a).sum())
            offset = max(Float((SIMD3<Double>(Double(transfer.x), Double(transfer.y), Double(transfer.z)) * b).sum()), offset)
        }
        return CaptureSharpening(amount: Float(amount), radius: Int(radius.rounded()), noiseSlope: slope, noiseOffset: offset)
    }

    /// The luminance delta for the tile `tw × th` (planes `stride` apart, valid from −`reach`),
    /// into `delta` (tw · th floats).
    func delta(r: UnsafePointer<Float>, g: UnsafePointer<Float>, b: UnsafePointer<Float>, stride: Int,
               width tw: Int, height th: Int, into delta: UnsafeMutablePointer<Float>) {
        let R = reach, ew = tw + 2 * R, eh = th + 2 * R
        withUnsafeTemporaryAllocation(of: Float.self, capacity: ew * eh * 2) { buffer in
            let Y = buffer.baseAddress!, Y2 = Y + ew * eh
            for y in 0..<eh {
                let o = (y - R) * stride - R
                for x in 0..<ew {
                    let v = (r[o + x] + 2 * g[o + x] + b[o + x]) * 0.25
                    Y[y * ew + x] = v; Y2[y * ew + x] = v * v
                }
            }
            // Window sums in a fixed order (column sums top to bottom, then left to right), so a
            // pixel's value does not depend on where its tile starts.
            let gr = Self.gateRadius, br = radius
            let gateInv = 1 / Float((2 * gr + 1) * (2 * gr + 1))
            let blurInv = 1 / Float((2 * br + 1) * (2 * br + 1))
            withUnsafeTemporaryAllocation(of: Float.self, capacity: ew * 3 + 8) { cols in
                let cY = cols.baseAddress!, cY2 = cY + ew, cB = cY2 + ew
                typealias V = SIMD8<Float>
                @inline(__always) func load(_ p: UnsafePointer<Float>) -> V { UnsafeRawPointer(p).loadUnaligned(as: V.self) }
                @inline(__always) func store(_ v: V, _ p: UnsafeMutablePointer<Float>) { UnsafeMutableRawPointer(p).storeBytes(of: v, as: V.self) }
                let vGateInv = V(repeating: gateInv), vBlurInv = V(repeating: blurInv), vAmount = V(repeating: amount)
                let vSlope = V(repeating: noiseSlope), vOffset = V(repeating: noiseOffset), zero = V()
                for y in 0..<th {
                    let cy = y + R
                    // Column sums, eight columns at a time (each lane sums its column top to bottom,
                    // as the scalar tail does); the last group overlaps rather than running past.
                    if ew >= 8 {
                        var x0 = 0
                        while x0 < ew {
                            let x = min(x0, ew - 8)
                            var sy = V(), sy2 = V(), sb = V()
                            for j in (cy - gr)...(cy + gr) { sy += load(Y + j * ew + x); sy2 += load(Y2 + j * ew + x) }
                            for j in (cy - br)...(cy + br) { sb += load(Y + j * ew + x) }
                            store(sy, cY + x); store(sy2, cY2 + x); store(sb, cB + x)
                            x0 += 8
                        }
                    } else {
                        for x in 0..<ew {
                            var sy: Float = 0, sy2: Float = 0, sb: Float = 0
                            for j in (cy - gr)...(cy + gr) { sy += Y[j * ew + x]; sy2 += Y2[j * ew + x] }
                            for j in (cy - br)...(cy + br) { sb += Y[j * ew + x] }
                            cY[x] = sy; cY2[x] = sy2; cB[x] = sb
                        }
                    }
                    // Row sums and the gated delta, eight pixels at a time: the same operations in
                    // the same order per lane as the scalar loop, so the bits do not depend on grouping.
                    var x = 0
                    while x + 8 <= tw {
                        let cx = x + R
                        var sy = V(), sy2 = V(), sb = V()
                        for k in (cx - gr)...(cx + gr) { sy += load(cY + k); sy2 += load(cY2 + k) }
                        for k in (cx - br)...(cx + br) { sb += load(cB + k) }
                        let mu = sy * vGateInv
                        let v = (sy2 * vGateInv - mu * mu).replacing(with: zero, where: sy2 * vGateInv - mu * mu .< zero)
                        let noise = vSlope * mu.replacing(with: zero, where: mu .< zero) + vOffset
                        let gate = ((v - noise) / v).replacing(with: zero, where: .!(v .> noise))
                        store(vAmount * gate * (load(Y + cy * ew + cx) - sb * vBlurInv), delta + y * tw + x)
                        x += 8
                    }
                    while x < tw {
                        let cx = x + R
                        var sy: Float = 0, sy2: Float = 0, sb: Float = 0
                        for k in (cx - gr)...(cx + gr) { sy += cY[k]; sy2 += cY2[k] }
                        for k in (cx - br)...(cx + br) { sb += cB[k] }
                        let mu = sy * gateInv
                        let v = max(sy2 * gateInv - mu * mu, 0)
                        let noise = noiseSlope * max(mu, 0) + noiseOffset
                        let gate = v > noise ? (v - noise) / v : 0
                        delta[y * tw + x] = amount * gate * (Y[cy * ew + cx] - sb * blurInv)
                        x += 1
                    }
                }
            }
        }
    }

    /// Applies a luminance delta by scaling the pixel: RGB × (Y + Δ) / Y (pinned to 0…4), so
    /// chromaticity stays and no channel turns negative at a saturated colour's edge (an added
    /// delta would push a dark channel out of gamut). Pixels with Y ≤ 1e-6 are left alone.
    static func applyDelta(_ d: UnsafePointer<Float>, r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>,
                           b: UnsafeMutablePointer<Float>, stride: Int, width tw: Int, height th: Int) {
        for y in 0..<th {
            let o = y * stride
            for x in 0..<tw {
                let rr = r[o + x], gg = g[o + x], bb = b[o + x]
                let lum = (rr + 2 * gg + bb) * 0.25
                guard lum > 1e-6 else { continue }
                let k = min(max((lum + d[y * tw + x]) / lum, 0), 4)
                r[o + x] = rr * k; g[o + x] = gg * k; b[o + x] = bb * k
            }
        }
    }
}
