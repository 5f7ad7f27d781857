import Foundation

/// `RenderStage` 6–9 (colour, gamut, tone, encode), fused: balanced camera RGB → output linear RGB (one 3×3 matrix with
/// exposure), gamut mapping, tone curve, transfer function and quantisation, and placement of
/// each pixel at its cropped, oriented position.
struct OutputTransform: Sendable {
    let m: (Float, Float, Float, Float, Float, Float, Float, Float, Float)
    let luminance: SIMD3<Float>
    /// Profile tables (HueSatMap/LookTable) and the two matrices around them, when present.
    let tables: ProfileRenderTables?
    let toProPhoto: (Float, Float, Float, Float, Float, Float, Float, Float, Float)
    let fromProPhoto: (Float, Float, Float, Float, Float, Float, Float, Float, Float)
    /// `--tone standard`: the gain table map, applied between HueSatMap and LookTable (exposed
    /// linear ProPhoto, not clipped). `--tone reference` applies it inside `ReferenceLook`.
    let gainMap: ProfileGainTableMap.Sampler?
    let tone: ToneCurve
    /// `--tone reference`: the DNG SDK renderer's stages (`ReferenceLook`) run as a pre-pass on
    /// the tile's planes; the main loop then only encodes (identity matrix, no gamut, no tone).
    let reference: ReferenceLook?
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
    /// The tone curve (headroom compression, then the profile's ProfileToneCurve) tabulated at
    /// `toneSteps` steps over 0…headroom and linearly interpolated. Used only with a profile
    /// curve: Darkroom's own rational curve is computed per pixel (`rationalV`, one division).
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
        gainMap = plan.reference == nil ? plan.gainTableMap : nil
        let a = plan.cameraToProPhoto.m.map { Float($0) }, b = plan.proPhotoToOutput.m.map { Float($0) }
        toProPhoto = (a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8])
        fromProPhoto = (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8])
        luminance = plan.luminance
        tone = plan.tone
        reference = plan.reference
        preserveHue = plan.recipe.gamut == .preserveHue && plan.reference == nil
        bits = plan.recipe.bitsPerSample
        transfer = plan.recipe.colorSpace.transfer
        isLinear = plan.recipe.colorSpace.isLinear
        dither = plan.recipe.dither
        let tc = plan.tone
        let steps = OutputTransform.toneSteps
        toneScale = Float(steps) / tc.headroom
        toneLUT = (0...steps + 1).map { i in tc.apply(tc.headroom * Float(min(i, steps)) / Float(steps)) }
        if bits == 8 {
            let t = transfer
            let n = OutputTransform.lut8Steps
            lut8 = (0...n + 1).map { i in Float(max(0, min(255, t.encode(Double(min(i, n)) / Double(n)) * 255))) }
            switch t {
            case .gamma: useFine = false
            default: useFine = true
            }
            let fn = OutputTransform.lut8FineSteps
            lut8Fine = useFine ? (0...fn).map { i in Float(max(0, min(255, t.encode(Double(i) / Double(fn)) * 255))) } : []
            lut16 = []
        } else {
            lut8 = []
            lut8Fine = []
            useFine = false
            let t = transfer
            let n = OutputTransform.lut16Size
            lut16 = isLinear || bits == 32 ? [] : (0...n).map { i in Float(t.encode(Double(i) / Double(n)) * 65535) }
        }
    }

    /// A tile's demosaiced, balanced camera RGB as three planes: tile pixel (x, y) is at
    /// `y * stride + x` of each plane. The encoder may overwrite the planes (profile tables).
    struct Planes {
        let r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>
        let stride: Int
    }

    /// Encodes one tile: eight pixels at a time (SIMD8 arithmetic, table reads per lane). Each lane
    /// runs exactly the scalar operations in the same order, so the bytes do not depend on how
    /// a row splits into groups of eight (or on tile size and thread count).
    func encode(planes: Planes, tile: PixelRect, crop: PixelRect, orientation: Orientation, sink: TileRenderer.OutputSink) {
        let tw = tile.width
        var mm = m
        // Profile tables: camera → linear ProPhoto → HueSatMap/gain table map/LookTable → output
        // linear, per pixel (scalar: table reads), then the main loop's matrix is the identity.
        if tables != nil || gainMap != nil {
            let a = toProPhoto, q = fromProPhoto, gainMap = gainMap
            func perPixel(_ hsm: ProfileRenderTables.Table.View?, _ look: ProfileRenderTables.Table.View?) {
                withUnsafeTemporaryAllocation(of: Bool.self, capacity: tw) { blackBuf in
                    let black = blackBuf.baseAddress!
                    for y in 0..<tile.height {
                        let pr = planes.r + y * planes.stride, pg = planes.g + y * planes.stride, pb = planes.b + y * planes.stride
                        for x in 0..<tw {
                            let cr = pr[x], cg = pg[x], cb = pb[x]
                            let lin = SIMD3(a.0 * cr + a.1 * cg + a.2 * cb, a.3 * cr + a.4 * cg + a.5 * cb,
                                            a.6 * cr + a.7 * cg + a.8 * cb)
                            // The tables index by hue/saturation: a non-finite pixel, or one whose brightest
                            // channel is below 1e-7 of white (saturation = spread / max could overflow), is
                            // black; it goes through the tables as grey and is zeroed after.
                            let hi = max(max(lin.x, lin.y), lin.z), lo = min(min(lin.x, lin.y), lin.z)
                            let ok = hi > 1e-7 && hi < 1e6 && lo > -1e6 && lin.x.isFinite && lin.y.isFinite && lin.z.isFinite
                            black[x] = !ok
                            pr[x] = ok ? lin.x : 0.5; pg[x] = ok ? lin.y : 0.5; pb[x] = ok ? lin.z : 0.5
                        }
                        hsm?.applyRow(pr, pg, pb, count: tw)
                        gainMap?.applyRow(pr, pg, pb, count: tw, x: tile.x, y: tile.y + y, clipToUnit: false)
                        look?.applyRow(pr, pg, pb, count: tw)
                        for x in 0..<tw {
                            let px = pr[x], py = pg[x], pz = pb[x], isBlack = black[x]
                            pr[x] = isBlack ? 0 : q.0 * px + q.1 * py + q.2 * pz
                            pg[x] = isBlack ? 0 : q.3 * px + q.4 * py + q.5 * pz
                            pb[x] = isBlack ? 0 : q.6 * px + q.7 * py + q.8 * pz
                        }
                    }
                }
            }
            if let t = tables { t.withViews(perPixel) } else { perPixel(nil, nil) }
            mm = (1, 0, 0, 0, 1, 0, 0, 0, 1)
        }
        if let ref = reference {
            for y in 0..<tile.height {
                ref.applyRow(planes.r + y * planes.stride, planes.g + y * planes.stride, planes.b + y * planes.stride,
                             count: tw, x: tile.x, y: tile.y + y)
            }
            mm = (1, 0, 0, 0, 1, 0, 0, 0, 1)
        }
        let cw = crop.width, ch = crop.height
        let outW = sink.width
        let standardTone = tone.mode == .standard
        // The rational curve (no profile curve) is computed, not tabulated (one division per
        // value); a profile's curve is read from the table.
        let analyticTone = tone.profileCurve == nil
        let headroom = tone.headroom, compress = tone.headroom > 1
        let invH2 = 1 / (tone.headroom * tone.headroom), shoulder = tone.shoulder
        let ts = toneScale, steps = Float(OutputTransform.toneSteps)
        let lum = luminance
        lut8.withUnsafeBufferPointer { l8 in
        lut16.withUnsafeBufferPointer { l16 in
        toneLUT.withUnsafeBufferPointer { tl in
        lut8Fine.withUnsafeBufferPointer { lf in
            let fineScale = Float(OutputTransform.lut8FineSteps)
            for y in 0..<tile.height {
                // Orientation is affine: find where this row starts and how one stored step moves.
                let sy = tile.y - crop.y + y, sx0 = tile.x - crop.x
                let (ox0, oy0) = orientation.map(x: sx0, y: sy, width: cw, height: ch)
                let (ox1, oy1) = orientation.map(x: sx0 + 1, y: sy, width: cw, height: ch)
                let stepX = ox1 - ox0, stepY = oy1 - oy0
                let pr = planes.r + y * planes.stride, pg = planes.g + y * planes.stride, pb = planes.b + y * planes.stride
                var x = 0
                while x < tw {
                    let n = min(Lanes.count, tw - x)
                    var cr = V(repeating: 0), cg = cr, cb = cr
                    if n == Lanes.count {
                        cr = UnsafeRawPointer(pr + x).loadUnaligned(as: V.self)
                        cg = UnsafeRawPointer(pg + x).loadUnaligned(as: V.self)
                        cb = UnsafeRawPointer(pb + x).loadUnaligned(as: V.self)
                    } else {
                        for l in 0..<n { cr[l] = pr[x + l]; cg[l] = pg[x + l]; cb[l] = pb[x + l] }
                    }
                    var r = mm.0 * cr + mm.1 * cg + mm.2 * cb
                    var g = mm.3 * cr + mm.4 * cg + mm.5 * cb
                    var b = mm.6 * cr + mm.7 * cg + mm.8 * cb
                    // Gamut: pull negative components up by desaturating toward luminance.
                    if preserveHue {
                        let lo = vmin(r, vmin(g, b))
                        let neg = lo .< 0
                        if any(neg) {
                            let Y = lum.x * r + lum.y * g + lum.z * b
                            let t = Y / (Y - lo)
                            let pull = neg .& (Y .> 0), zero = neg .& .!(Y .> 0)
                            r.replace(with: Y + t * (r - Y), where: pull); r.replace(with: 0, where: zero)
                            g.replace(with: Y + t * (g - Y), where: pull); g.replace(with: 0, where: zero)
                            b.replace(with: Y + t * (b - Y), where: pull); b.replace(with: 0, where: zero)
                        }
                    }
                    if standardTone {
                        // ToneCurve.huePreserving, lane-wise, with the tabulated curve.
                        let mx = vmax(r, vmax(g, b))
                        let mn = vmax(vmin(r, vmin(g, b)), 0)
                        let fmx: V, fmn: V
                        if analyticTone {
                            fmx = Self.rationalV(mx, headroom, compress, invH2, shoulder)
                            fmn = Self.rationalV(mn, headroom, compress, invH2, shoulder)
                        } else {
                            fmx = Self.curveV(mx, tl, ts, steps); fmn = Self.curveV(mn, tl, ts, steps)
                        }
                        let k = (fmx - fmn) / (mx - mn)
                        let spread = mx .> mn
                        var tr = fmn + (vmax(r, 0) - mn) * k
                        var tg = fmn + (vmax(g, 0) - mn) * k
                        var tb = fmn + (vmax(b, 0) - mn) * k
                        tr.replace(with: fmx, where: .!spread); tg.replace(with: fmx, where: .!spread); tb.replace(with: fmx, where: .!spread)
                        r = tr; g = tg; b = tb
                    }
                    let ox = ox0 + x * stepX, oy = oy0 + x * stepY
                    if let d = sink.p8 {
                        var er: V, eg: V, eb: V
                        if useFine {
                            er = Self.fineV(r, lf, fineScale); eg = Self.fineV(g, lf, fineScale); eb = Self.fineV(b, lf, fineScale)
                        } else {
                            er = Self.encode8V(r, l8); eg = Self.encode8V(g, l8); eb = Self.encode8V(b, l8)
                        }
                        if dither {
                            // Unbiased random rounding: floor(v + u), u uniform in [0, 1) from a hash of
                            // the output position, so a flat area's mean is exact and gradients do not band.
                            let lane = Lanes.index
                            let hx = VU(truncatingIfNeeded: VI(repeating: Int32(truncatingIfNeeded: ox)) &+ lane &* Int32(truncatingIfNeeded: stepX))
                            let hy = VU(truncatingIfNeeded: VI(repeating: Int32(truncatingIfNeeded: oy)) &+ lane &* Int32(truncatingIfNeeded: stepY))
                            var h = (hx &* 0x9E37_79B1) ^ (hy &* 0x85EB_CA77)
                            h = (h ^ (h &>> 15)) &* 0x2C1B_3C6D
                            h = (h ^ (h &>> 12)) &* 0x297A_2D39
                            h ^= h &>> 15
                            // u = (10 hash bits) / 1024, built as the float 1.bits minus 1 (exact).
                            let one = VU(repeating: 0x3F80_0000)
                            let ur = unsafeBitCast(one | (h & 0x3FF) &<< 13, to: V.self) - 1
                            let ug = unsafeBitCast(one | ((h &>> 10) & 0x3FF) &<< 13, to: V.self) - 1
                            let ub = unsafeBitCast(one | ((h &>> 20) & 0x3FF) &<< 13, to: V.self) - 1
                            er = vmin(er + ur, 255); eg = vmin(eg + ug, 255); eb = vmin(eb + ub, 255)
                        } else {
                            er += 0.5; eg += 0.5; eb += 0.5
                        }
                        let qr = Self.truncate(er), qg = Self.truncate(eg), qb = Self.truncate(eb)
                        if stepX == 1 && stepY == 0 {
                            let o = (oy * outW + ox) * 3
                            for l in 0..<n {
                                d[o + 3 * l] = UInt8(truncatingIfNeeded: qr[l]); d[o + 3 * l + 1] = UInt8(truncatingIfNeeded: qg[l])
                                d[o + 3 * l + 2] = UInt8(truncatingIfNeeded: qb[l])
                            }
                        } else {
                            for l in 0..<n {
                                let o = ((oy + l * stepY) * outW + ox + l * stepX) * 3
                                d[o] = UInt8(truncatingIfNeeded: qr[l]); d[o + 1] = UInt8(truncatingIfNeeded: qg[l])
                                d[o + 2] = UInt8(truncatingIfNeeded: qb[l])
                            }
                        }
                    } else if let d = sink.p16 {
                        for l in 0..<n {
                            let o = ((oy + l * stepY) * outW + ox + l * stepX) * 3
                            d[o] = quantise16(r[l], l16)
                            d[o + 1] = quantise16(g[l], l16)
                            d[o + 2] = quantise16(b[l], l16)
                        }
                    } else if let d = sink.p32 {
                        // Float output: the linear values themselves (non-finite → 0).
                        for l in 0..<n {
                            let o = ((oy + l * stepY) * outW + ox + l * stepX) * 3
                            d[o] = r[l].isFinite ? r[l] : 0
                            d[o + 1] = g[l].isFinite ? g[l] : 0
                            d[o + 2] = b[l].isFinite ? b[l] : 0
                        }
                    }
                    x += Lanes.count
                }
            }
        }
        }
        }
        }
    }

    /// `curve` for all lanes: the tabulated tone curve at scene values `v` (clipped to 0…headroom).
    @inline(__always)
    fileprivate static func curveV(_ v: V, _ lut: UnsafeBufferPointer<Float>, _ scale: Float, _ steps: Float) -> V {
        // `v >= 0` is false for NaN, so a NaN (from hostile opcode data) reads entry 0, never traps.
        var f = vmin(v * scale, steps)
        f.replace(with: 0, where: .!(v .>= 0))
        return interpolate(f, lut)
    }

    /// `ToneCurve.apply` (standard mode, no profile curve) per lane: headroom compression, then
    /// (1 + b) · v / (v + b).
    @inline(__always)
    fileprivate static func rationalV(_ x: V, _ headroom: Float, _ compress: Bool, _ invH2: Float, _ shoulder: Float) -> V {
        let v = vmin(vmax(x, 0), headroom)
        guard compress else { return (1 + shoulder) * v / (v + shoulder) }
        // With g = n / d (n = v · (1 + v / headroom²), d = 1 + v): (1 + b) · g / (g + b) =
        // (1 + b) · n / (n + b · d), one division instead of two.
        let n = v * (1 + v * invH2), d = 1 + v
        return (1 + shoulder) * n / (n + shoulder * d)
    }

    /// `lut[i] + (lut[i + 1] - lut[i]) · t` for f = i + t, per lane.
    @inline(__always)
    fileprivate static func interpolate(_ f: V, _ lut: UnsafeBufferPointer<Float>) -> V {
        let i = truncate(f)
        var fi = V(), a = V(), b = V()
        for l in 0..<Lanes.count {
            let k = Int(i[l])
            fi[l] = Float(i[l]); a[l] = lut[k]; b[l] = lut[k + 1]
        }
        return a + (b - a) * (f - fi)
    }

    /// Lane-wise `Int32(v)` (truncation; the stdlib's generic SIMD conversion is not specialised).
    @inline(__always)
    fileprivate static func truncate(_ v: V) -> VI {
        var r = VI()
        for l in 0..<Lanes.count { r[l] = Int32(v[l]) }
        return r
    }

    /// `clamp01` per lane (NaN → 0).
    @inline(__always)
    fileprivate static func clamp01V(_ v: V) -> V {
        var c = vmin(v, 1)
        c.replace(with: 0, where: .!(v .>= 0))
        return c
    }

    /// Encoded value × 255 from the fine table (nearest entry), per lane.
    @inline(__always)
    fileprivate static func fineV(_ v: V, _ lut: UnsafeBufferPointer<Float>, _ scale: Float) -> V {
        let i = truncate(clamp01V(v) * scale + 0.5)
        var e = V()
        for l in 0..<Lanes.count { e[l] = lut[Int(i[l])] }
        return e
    }

    /// `encode8` per lane.
    @inline(__always)
    fileprivate static func encode8V(_ v: V, _ lut: UnsafeBufferPointer<Float>) -> V {
        interpolate(clamp01V(v) * Float(OutputTransform.lut8Steps), lut)
    }

    @inline(__always) func clamp01(_ v: Float) -> Float { v >= 0 ? min(v, 1) : 0 }  // NaN → 0

    @inline(__always) func quantise16(_ v: Float, _ lut: UnsafeBufferPointer<Float>) -> UInt16 {
        let x = clamp01(v)
        if isLinear { return UInt16(x * 65535 + 0.5) }
        let f = x * Float(OutputTransform.lut16Size)
        let i = min(Int(f), OutputTransform.lut16Size - 1)
        let t = f - Float(i)
        let e = lut[i] + (lut[i + 1] - lut[i]) * t
        return UInt16(min(max(e + 0.5, 0), 65535))
    }
}

/// The encoder's vector width: eight lanes (AVX2 registers when DarkroomCore is built for
/// Haswell-class x86-64; two SSE registers otherwise).
private typealias V = SIMD8<Float>
private typealias VI = SIMD8<Int32>
private typealias VU = SIMD8<UInt32>
private enum Lanes {
    static let count = 8
    static let index = VI(0, 1, 2, 3, 4, 5, 6, 7)
}

/// `Swift.min(a, b)` per lane (`b < a ? b : a`), so lanes match the scalar code exactly.
@inline(__always) private func vmin(_ a: V, _ b: V) -> V { a.replacing(with: b, where: b .< a) }
@inline(__always) private func vmin(_ a: V, _ b: Float) -> V { a.replacing(with: b, where: b .< a) }
/// `Swift.max(a, b)` per lane (`b >= a ? b : a`).
@inline(__always) private func vmax(_ a: V, _ b: V) -> V { a.replacing(with: b, where: b .>= a) }
@inline(__always) private func vmax(_ a: V, _ b: Float) -> V { a.replacing(with: b, where: b .>= a) }
