import Foundation

/// Stages 6–9 of the plan, fused: balanced camera RGB → output linear RGB (one 3×3 matrix with
/// exposure), gamut mapping, tone curve, transfer function and quantisation, and placement of
/// each pixel at its cropped, oriented position.
struct OutputEncoder: Sendable {
    let m: (Float, Float, Float, Float, Float, Float, Float, Float, Float)
    let luminance: SIMD3<Float>
    /// Profile tables (HueSatMap/LookTable) and the two matrices around them, when present.
    let tables: ProfileRenderTables?
    let toProPhoto: (Float, Float, Float, Float, Float, Float, Float, Float, Float)
    let fromProPhoto: (Float, Float, Float, Float, Float, Float, Float, Float, Float)
    let tone: ToneCurve
    let preserveHue: Bool
    let bits: Int
    let transfer: TransferFunction
    let isLinear: Bool
    /// 8-bit output: encoded value × 255 at 4096 steps of display-linear 0…1 (plus the end
    /// point), linearly interpolated: 16 KB stays in L1 (a 64 K-entry table missed the cache).
    let lut8: [Float]
    static let lut8Steps = 4096
    /// For transfer curves with bounded slope (sRGB/Display P3, BT.709, ROMM, linear): a finer
    /// table read without interpolation (worst error 0.1 of an 8-bit code, below the dither).
    let lut8Fine: [Float]
    let useFine: Bool
    static let lut8FineSteps = 16384
    /// The tone curve (headroom compression, then the standard or profile curve) tabulated at
    /// `toneSteps` steps over 0…headroom and linearly interpolated: two lookups per pixel
    /// instead of two curve evaluations with divisions (measured: the tone was ~60 % of this stage).
    let toneLUT: [Float]
    let toneScale: Float
    static let toneSteps = 4096
    /// Dither 8-bit output (`DevelopRecipe.dither`).
    let dither: Bool
    /// 16-bit output of a non-linear space: encoded value for every 1/262143 step (linear interpolation between).
    let lut16: [Float]

    static let lut16Size = 1 << 18

    init(plan: DevelopPlan) {
        let c = plan.cameraToOutput.m.map { Float($0) }
        m = (c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8])
        tables = plan.profileTables
        let a = plan.cameraToProPhoto.m.map { Float($0) }, b = plan.proPhotoToOutput.m.map { Float($0) }
        toProPhoto = (a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8])
        fromProPhoto = (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8])
        luminance = plan.luminance
        tone = plan.tone
        preserveHue = plan.recipe.gamut == .preserveHue
        bits = plan.recipe.bitsPerSample
        transfer = plan.recipe.colorSpace.transfer
        isLinear = plan.recipe.colorSpace.isLinear
        dither = plan.recipe.dither
        let tc = plan.tone
        let steps = OutputEncoder.toneSteps
        toneScale = Float(steps) / tc.headroom
        toneLUT = (0...steps + 1).map { i in tc.apply(tc.headroom * Float(min(i, steps)) / Float(steps)) }
        if bits == 8 {
            let t = transfer
            let n = OutputEncoder.lut8Steps
            lut8 = (0...n + 1).map { i in Float(max(0, min(255, t.encode(Double(min(i, n)) / Double(n)) * 255))) }
            switch t {
            case .gamma: useFine = false
            default: useFine = true
            }
            let fn = OutputEncoder.lut8FineSteps
            lut8Fine = useFine ? (0...fn).map { i in Float(max(0, min(255, t.encode(Double(i) / Double(fn)) * 255))) } : []
            lut16 = []
        } else {
            lut8 = []
            lut8Fine = []
            useFine = false
            let t = transfer
            let n = OutputEncoder.lut16Size
            lut16 = isLinear ? [] : (0...n).map { i in Float(t.encode(Double(i) / Double(n)) * 65535) }
        }
    }

    func encode(rgb: UnsafeMutablePointer<Float>, tile: PixelRect, crop: PixelRect, orientation: Orientation,
                sink: Developer.OutputSink) {
        // Profile tables: one pass over the tile (camera → linear ProPhoto → HueSatMap/LookTable →
        // output linear), bound once per tile, so the main loop below has no per-pixel optional
        // (binding it per pixel copied the tables' arrays: ~12 % of the render).
        var mm = m
        if let t = tables {
            let a = toProPhoto, q = fromProPhoto
            for i in 0..<(tile.width * tile.height) {
                let p = rgb + i * 3
                let cr = p[0], cg = p[1], cb = p[2]
                let lin = SIMD3(a.0 * cr + a.1 * cg + a.2 * cb, a.3 * cr + a.4 * cg + a.5 * cb,
                                a.6 * cr + a.7 * cg + a.8 * cb)
                // The tables index by hue/saturation: a non-finite pixel, or one whose brightest
                // channel is below 1e-7 of white (saturation = spread / max could overflow), is black.
                guard lin.max() > 1e-7, lin.max() < 1e6, lin.min() > -1e6 else { p[0] = 0; p[1] = 0; p[2] = 0; continue }
                let pp = t.apply(lin)
                p[0] = q.0 * pp.x + q.1 * pp.y + q.2 * pp.z
                p[1] = q.3 * pp.x + q.4 * pp.y + q.5 * pp.z
                p[2] = q.6 * pp.x + q.7 * pp.y + q.8 * pp.z
            }
            mm = (1, 0, 0, 0, 1, 0, 0, 0, 1)
        }
        let cw = crop.width, ch = crop.height
        let outW = sink.width
        let standardTone = tone.mode == .standard
        lut8.withUnsafeBufferPointer { l8 in
        lut16.withUnsafeBufferPointer { l16 in
        toneLUT.withUnsafeBufferPointer { tl in
        lut8Fine.withUnsafeBufferPointer { lf in
            let fineScale = Float(OutputEncoder.lut8FineSteps)
            for y in 0..<tile.height {
                // Orientation is affine: find where this row starts and how one stored step moves.
                let sy = tile.y - crop.y + y, sx0 = tile.x - crop.x
                let (ox0, oy0) = orientation.map(x: sx0, y: sy, width: cw, height: ch)
                let (ox1, oy1) = orientation.map(x: sx0 + 1, y: sy, width: cw, height: ch)
                let stepX = ox1 - ox0, stepY = oy1 - oy0
                let row = rgb + y * tile.width * 3
                for x in 0..<tile.width {
                    let p = row + x * 3
                    let cr = p[0], cg = p[1], cb = p[2]
                    var r = mm.0 * cr + mm.1 * cg + mm.2 * cb
                    var g = mm.3 * cr + mm.4 * cg + mm.5 * cb
                    var b = mm.6 * cr + mm.7 * cg + mm.8 * cb
                    // Gamut: pull negative components up by desaturating toward luminance.
                    let lo = min(r, min(g, b))
                    if lo < 0 && preserveHue {
                        let Y = luminance.x * r + luminance.y * g + luminance.z * b
                        if Y > 0 {
                            let t = Y / (Y - lo)
                            r = Y + t * (r - Y); g = Y + t * (g - Y); b = Y + t * (b - Y)
                        } else { r = 0; g = 0; b = 0 }
                    }
                    if standardTone {
                        (r, g, b) = ToneCurve.huePreserving(r, g, b) { curve($0, tl) }
                    }
                    let ox = ox0 + x * stepX, oy = oy0 + x * stepY
                    let o = (oy * outW + ox) * 3
                    if let d = sink.p8 {
                        let er: Float, eg: Float, eb: Float
                        if useFine {
                            er = lf[Int(clamp01(r) * fineScale + 0.5)]; eg = lf[Int(clamp01(g) * fineScale + 0.5)]
                            eb = lf[Int(clamp01(b) * fineScale + 0.5)]
                        } else {
                            er = encode8(r, l8); eg = encode8(g, l8); eb = encode8(b, l8)
                        }
                        if dither {
                            // Unbiased random rounding: floor(v + u), u uniform in [0, 1) from a hash of
                            // the output position, so a flat area's mean is exact and gradients do not band.
                            var h = UInt32(truncatingIfNeeded: ox) &* 0x9E37_79B1 ^ UInt32(truncatingIfNeeded: oy) &* 0x85EB_CA77
                            h = (h ^ (h >> 15)) &* 0x2C1B_3C6D
                            h = (h ^ (h >> 12)) &* 0x297A_2D39
                            h ^= h >> 15
                            let ur = Float(h & 0x3FF) * (1 / 1024), ug = Float((h >> 10) & 0x3FF) * (1 / 1024), ub = Float((h >> 20) & 0x3FF) * (1 / 1024)
                            d[o] = UInt8(min(er + ur, 255))
                            d[o + 1] = UInt8(min(eg + ug, 255))
                            d[o + 2] = UInt8(min(eb + ub, 255))
                        } else {
                            d[o] = UInt8(er + 0.5); d[o + 1] = UInt8(eg + 0.5); d[o + 2] = UInt8(eb + 0.5)
                        }
                    } else if let d = sink.p16 {
                        d[o] = quantise16(r, l16)
                        d[o + 1] = quantise16(g, l16)
                        d[o + 2] = quantise16(b, l16)
                    }
                }
            }
        }
        }
        }
        }
    }

    /// The tabulated tone curve at scene value `v` (clipped to 0…headroom).
    @inline(__always) func curve(_ v: Float, _ lut: UnsafeBufferPointer<Float>) -> Float {
        // `v >= 0` is false for NaN, so a NaN (from hostile opcode data) reads entry 0, never traps.
        let f = v >= 0 ? min(v * toneScale, Float(OutputEncoder.toneSteps)) : 0
        let i = Int(f)
        let t = f - Float(i)
        return lut[i] + (lut[i + 1] - lut[i]) * t
    }

    /// Encoded value × 255 of a display-linear value, by interpolation in `lut8`.
    @inline(__always) func encode8(_ v: Float, _ lut: UnsafeBufferPointer<Float>) -> Float {
        let f = clamp01(v) * Float(OutputEncoder.lut8Steps)
        let i = Int(f)
        let t = f - Float(i)
        return lut[i] + (lut[i + 1] - lut[i]) * t
    }

    @inline(__always) func clamp01(_ v: Float) -> Float { v >= 0 ? min(v, 1) : 0 }  // NaN → 0

    @inline(__always) func quantise16(_ v: Float, _ lut: UnsafeBufferPointer<Float>) -> UInt16 {
        let x = clamp01(v)
        if isLinear { return UInt16(x * 65535 + 0.5) }
        let f = x * Float(OutputEncoder.lut16Size)
        let i = min(Int(f), OutputEncoder.lut16Size - 1)
        let t = f - Float(i)
        let e = lut[i] + (lut[i + 1] - lut[i]) * t
        return UInt16(min(max(e + 0.5, 0), 65535))
    }
}
