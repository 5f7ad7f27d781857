import Foundation

extension NoiseReduction {
    /// Noise reduction at full resolution after the demosaic, per tile (`TileRenderer`): the
    /// luminance, and the colour once more.
    ///
    /// The quad planes before the demosaic see only the quad's mean (¼ of a photosite's noise
    /// power) as luminance; the rest of the luminance noise sits in U, V and D mixed with the
    /// luminance's own finest detail, where no shrinkage can tell them apart. After the demosaic
    /// the luminance is whole. The white-balanced, demosaiced camera RGB (before the colour matrix
    /// and the tone curve) becomes L = (R + 2G + B)/4, Cr = R − G and Cb = B − G; each goes through
    /// the undecimated à-trous wavelet of `NoiseReduction` (linear-spline kernel dilated by 2ʲ,
    /// `levels` levels) with the local Wiener gain g = max(E − k²σ²_j, 0)/E, E the mean of w² over
    /// the 5 × 5 coefficients 2ʲ apart. L's detail is split into three orientations per level (an
    /// edge keeps its band, the other two lose their noise); Cr's and Cb's is one isotropic band
    /// per level (colour has few edges of its own, and one band costs a third). Only the changes go
    /// back: ΔX = Σ (g − 1)·w per component, ΔG = ΔL − (ΔCr + ΔCb)/4, ΔR = ΔG + ΔCr,
    /// ΔB = ΔG + ΔCb (the inverse of the three components), so where every gain is 1 (a zero
    /// noise model) the pixels are left exactly as they were. k is the luminance strength for L and
    /// the colour strength for Cr, Cb.
    ///
    /// σ²_j is band j's noise at the pixel: σ²_c = a_c·x̄_c + b_c per channel (the model in
    /// balanced units at x̄_c, the channel after a 3 × 3 binomial smoothing) weighted by the
    /// band's factors, its variance per unit white noise of CFA colour c in the mosaic. The
    /// demosaic interpolates, so its output noise is correlated and the white-noise factors of
    /// `levelFactors` do not hold: `calibrate` measures them once per plan by running the plan's
    /// demosaic on a flat mosaic carrying a fixed pseudo-random noise sequence (deterministic).
    ///
    /// A tile needs `reach` pixels of valid demosaiced context around what it outputs; every sum
    /// runs in a fixed order on the same samples whatever the tile, so tile size and thread count
    /// never change a byte.
    struct FullResolution: Sendable {
        /// Wavelet levels (dilations 1, 2, 4 pixels).
        static let levels = 3
        /// Radius of the energy window, in coefficients 2ʲ apart (2: 5 × 5).
        static let windowRadius = 2
        /// Demosaiced context a tile needs around its output, in pixels.
        static var reach: Int { NoiseReduction.needs(levels: levels, window: windowRadius)[0] }

        /// One denoised combination of R, G, B.
        struct Component: Sendable {
            /// Its weights on R, G, B.
            let weights: SIMD3<Float>
            /// One isotropic band per level (else horizontal, vertical, diagonal).
            let isotropic: Bool
            /// `thresholds[j][band]`: k² × the band's noise variance per unit variance of R, G, B
            /// in the mosaic (`calibrate`).
            let thresholds: [[SIMD3<Float>]]
        }

        /// L, Cr, Cb (a component with strength 0 is left out).
        let components: [(index: Int, component: Component)]
        /// Per channel: variance = a·x + b in balanced units.
        let a: SIMD3<Float>, b: SIMD3<Float>

        /// The stage for `kernel` on `cfa`, with strengths `luma` (L) and `chroma` (Cr, Cb); nil
        /// when both are 0.
        init?(kernel: any DemosaicKernel, cfa: CFAPattern, luma: Double, chroma: Double, a: SIMD3<Float>, b: SIMD3<Float>) {
            let specs: [(SIMD3<Float>, Bool, Double)] = [(SIMD3(0.25, 0.5, 0.25), false, luma), (SIMD3(1, -1, 0), true, chroma),
                                                         (SIMD3(0, -1, 1), true, chroma)]
            let active = specs.enumerated().filter { $0.element.2 > 0 }
            let factors = Self.calibrate(kernel: kernel, cfa: cfa, components: active.map { ($0.element.0, $0.element.1) }, levels: Self.levels)
            let list: [(index: Int, component: Component)] = zip(active, factors).map { item, f in
                let (i, (weights, isotropic, k)) = item
                let k2 = k * k
                return (i, Component(weights: weights, isotropic: isotropic,
                                     thresholds: f.map { $0.map { SIMD3<Float>(Float($0.x * k2), Float($0.y * k2), Float($0.z * k2)) } }))
            }
            guard !list.isEmpty else { return nil }
            components = list
            self.a = a; self.b = b
        }

        /// Per component (`weights` on R, G, B; `isotropic`: one band per level, else horizontal,
        /// vertical, diagonal), the variance of each band of `levels` levels after `kernel` per unit
        /// variance of white noise in the mosaic's R, G, B photosites: `[component][level][band]` as
        /// SIMD3 (R, G, B). Each colour in turn carries Gaussian noise (σ = 0.02, a fixed sequence)
        /// on a flat 0.5 mosaic of `side` × `side` (plus the kernel's halo), demosaiced once for all
        /// components; the variances are taken `needs(levels)[0]` + 2 away from the edges (where the
        /// transform reads no border). Deterministic.
        static func calibrate(kernel: any DemosaicKernel, cfa: CFAPattern, components: [(weights: SIMD3<Float>, isotropic: Bool)],
                              levels: Int, side: Int = 256) -> [[[SIMD3<Double>]]] {
            let full = side + 2 * kernel.halo, n = full * full
            let sigma: Float = 0.02
            var result = components.map { [[SIMD3<Double>]](repeating: [SIMD3<Double>](repeating: .zero, count: $0.isotropic ? 1 : 3), count: levels) }
            var mosaic = [Float](repeating: 0, count: n), red = mosaic, green = mosaic, blue = mosaic
            let need = NoiseReduction.needs(levels: levels, window: windowRadius)
            for colour in 0..<3 {
                var state: UInt64 = 0x9E37_79B9_7F4A_7C15 &+ UInt64(colour)
                func uniform() -> Float {
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    return (Float(state >> 40) + 0.5) / 16_777_216
                }
                for i in 0..<n {
                    let c = Int(cfa.color(x: i % full, y: i / full).rawValue)
                    let u1 = uniform(), u2 = uniform()
                    let z = (-2 * logf(u1)).squareRoot() * cosf(2 * .pi * u2)
                    mosaic[i] = 0.5 + (c == colour ? sigma * z : 0)
                }
                mosaic.withUnsafeBufferPointer { m in red.withUnsafeMutableBufferPointer { r in
                    green.withUnsafeMutableBufferPointer { g in blue.withUnsafeMutableBufferPointer { b in
                        kernel.demosaic(mosaic: m.baseAddress!, width: full, height: full, cfa: cfa,
                                        red: r.baseAddress!, green: g.baseAddress!, blue: b.baseAddress!)
                    } } } }
                for (k, component) in components.enumerated() {
                    let weights = component.weights
                    var c = [Double](repeating: 0, count: side * side)
                    for y in 0..<side { for x in 0..<side {
                        let i = (y + kernel.halo) * full + x + kernel.halo
                        c[y * side + x] = Double(weights.x * red[i] + weights.y * green[i] + weights.z * blue[i])
                    } }
                    var hx = c, hy = c, next = c
                    var valid = 0                                // c_j is valid `valid` samples in from the edges
                    for j in 0..<levels {
                        // Each pass only where its taps are valid: c_{j+1} is then valid d further in.
                        let d = 1 << j, lo = valid, hi = side - valid
                        for y in lo..<hi { for x in (lo + d)..<(hi - d) {
                            let i = y * side + x
                            hx[i] = 0.5 * c[i] + 0.25 * (c[i - d] + c[i + d])
                        } }
                        for y in (lo + d)..<(hi - d) { for x in lo..<hi {
                            let i = y * side + x
                            hy[i] = 0.5 * c[i] + 0.25 * (c[i - d * side] + c[i + d * side])
                        } }
                        for y in (lo + d)..<(hi - d) { for x in (lo + d)..<(hi - d) {
                            let i = y * side + x
                            next[i] = 0.5 * hx[i] + 0.25 * (hx[i - d * side] + hx[i + d * side])
                        } }
                        valid += d
                        var sums = SIMD3<Double>.zero, count = 0.0
                        let margin = need[0] + 2
                        for y in margin..<(side - margin) { for x in margin..<(side - margin) {
                            let i = y * side + x
                            if component.isotropic {
                                let all = c[i] - next[i]
                                sums.x += all * all
                            } else {
                                let h = hx[i] - next[i], v = hy[i] - next[i], g = c[i] - hx[i] - hy[i] + next[i]
                                sums += SIMD3(h * h, v * v, g * g)
                            }
                            count += 1
                        } }
                        let variance = sums / count / Double(sigma * sigma)
                        for band in 0..<result[k][j].count { result[k][j][band][colour] = variance[band] }
                        swap(&c, &next)
                    }
                }
            }
            return result
        }

        /// Denoises the demosaiced planes `r`, `g`, `b` (`stride` apart, pointing at the tile's
        /// first pixel) over the tile `tw × th` ± `margin`, reading them over the tile ±
        /// (`margin` + `reach`) and up to 7 samples further right, in place.
        func apply(r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>,
                   stride: Int, width tw: Int, height th: Int, margin: Int) {
            let R = Self.reach, window = Self.windowRadius
            let ow = tw + 2 * margin, oh = th + 2 * margin          // output region
            let ew = ow + 2 * R, eh = oh + 2 * R                     // input region
            // Rows are `S` floats apart, with room for a last group of 8 (and its taps) to run over.
            let S = (ew + 7) / 8 * 8 + 16
            let plane = S * eh
            typealias V = SIMD8<Float>
            @inline(__always) func load(_ p: UnsafePointer<Float>) -> V { UnsafeRawPointer(p).loadUnaligned(as: V.self) }
            @inline(__always) func store(_ v: V, _ p: UnsafeMutablePointer<Float>) { UnsafeMutableRawPointer(p).storeBytes(of: v, as: V.self) }
            // Every pass computes whole groups of 8 lanes from its first column; a lane past the
            // columns a pass must produce is never read for a column a later pass must produce, so
            // what it holds does not matter (each lane runs the same operations in the same order).
            @inline(__always) func groups(_ lo: Int, _ hi: Int, _ body: (Int) -> Void) {
                var x = lo
                while x < hi { body(x); x += 8 }
            }
            // Planes: c (the component, then each level's approximation), next, spare, hx, hy, w,
            // box (window sums along x), σ²_R, σ²_G, σ²_B, and ΔL, ΔCr, ΔCb; one row of w².
            withUnsafeTemporaryAllocation(of: Float.self, capacity: plane * 13 + S + 32) { buffer in
                let base = buffer.baseAddress!
                let hx = base + 3 * plane, hy = base + 4 * plane, w = base + 5 * plane, box = base + 6 * plane
                let vr = base + 7 * plane, vg = base + 8 * plane, vb = base + 9 * plane
                let deltas = [base + 10 * plane, base + 11 * plane, base + 12 * plane]
                let w2 = base + 13 * plane
                // The deltas start at 0 over the output (and the lanes its groups run over).
                for d in deltas { for y in R..<(R + oh) { (d + y * S + R).initialize(repeating: 0, count: ow + 8) } }
                let o = -(margin + R)                                 // input region's origin in the tile
                let quarter = V(repeating: 0.25), half = V(repeating: 0.5), zero = V(), one = V(repeating: 1)
                // Per output pixel, each channel's noise variance at its 3 × 3 binomial mean.
                for (k, p, out) in [(0, r, vr), (1, g, vg), (2, b, vb)] {
                    for y in (R - 1)..<(R + oh + 1) {
                        let src = p + (y + o) * stride + o, t = hx + y * S
                        groups(R, R + ow) { x in store(half * load(src + x) + quarter * (load(src + x - 1) + load(src + x + 1)), t + x) }
                    }
                    let scale = V(repeating: self.a[k]), offset = V(repeating: self.b[k])
                    for y in R..<(R + oh) {
                        let t0 = hx + (y - 1) * S, t1 = hx + y * S, t2 = hx + (y + 1) * S, dst = out + y * S
                        groups(R, R + ow) { x in
                            let m = half * load(t1 + x) + quarter * (load(t0 + x) + load(t2 + x))
                            store(scale * m.replacing(with: zero, where: m .< zero) + offset, dst + x)
                        }
                    }
                }
                for (index, component) in components {
                    let delta = deltas[index]
                    var c = base, next = base + plane, spare = base + 2 * plane
                    let kr = V(repeating: component.weights.x), kg = V(repeating: component.weights.y), kb = V(repeating: component.weights.z)
                    for y in 0..<eh {
                        let src = (y + o) * stride + o, row = c + y * S
                        groups(0, ew) { x in store(kr * load(r + src + x) + kg * load(g + src + x) + kb * load(b + src + x), row + x) }
                    }
                    let need = NoiseReduction.needs(levels: component.thresholds.count, window: window)
                    for j in 0..<component.thresholds.count {
                        let d = 1 << j, nj = need[j], e = need[j + 1], dw = window << j
                        // hx = c_j smoothed along x (rows ± nj, columns ± e); c_{j+1} = hx smoothed along y (± e).
                        for y in (R - nj)..<(R + oh + nj) {
                            let row = c + y * S, t = hx + y * S
                            groups(R - e, R + ow + e) { x in store(half * load(row + x) + quarter * (load(row + x - d) + load(row + x + d)), t + x) }
                        }
                        for y in (R - e)..<(R + oh + e) {
                            let t0 = hx + (y - d) * S, t1 = hx + y * S, t2 = hx + (y + d) * S, dst = next + y * S
                            groups(R - e, R + ow + e) { x in store(half * load(t1 + x) + quarter * (load(t0 + x) + load(t2 + x)), dst + x) }
                        }
                        if !component.isotropic {
                            // hy = c_j smoothed along y (± dw).
                            for y in (R - dw)..<(R + oh + dw) {
                                let t0 = c + (y - d) * S, t1 = c + y * S, t2 = c + (y + d) * S, dst = hy + y * S
                                groups(R - dw, R + ow + dw) { x in store(half * load(t1 + x) + quarter * (load(t0 + x) + load(t2 + x)), dst + x) }
                            }
                        }
                        for (bandIndex, T) in component.thresholds[j].enumerated() {
                            // The band (± dw): c_j − c_{j+1} (isotropic), or hx − c_{j+1}, hy − c_{j+1},
                            // c_j − hx − hy + c_{j+1}; per row, its square summed over the window along x.
                            for y in (R - dw)..<(R + oh + dw) {
                                let cr = c + y * S, nr = next + y * S, xr = hx + y * S, yr = hy + y * S, wr = w + y * S, t = box + y * S
                                groups(R - dw, R + ow + dw) { x in
                                    let v: V
                                    if component.isotropic { v = load(cr + x) - load(nr + x) }
                                    else if bandIndex == 0 { v = load(xr + x) - load(nr + x) }
                                    else if bandIndex == 1 { v = load(yr + x) - load(nr + x) }
                                    else { v = (load(cr + x) - load(xr + x)) - (load(yr + x) - load(nr + x)) }
                                    store(v, wr + x); store(v * v, w2 + x)
                                }
                                groups(R, R + ow) { x in
                                    var s = load(w2 + x - 2 * d)
                                    s += load(w2 + x - d); s += load(w2 + x); s += load(w2 + x + d); s += load(w2 + x + 2 * d)
                                    store(s, t + x)
                                }
                            }
                            let inverse = V(repeating: 1 / Float((2 * window + 1) * (2 * window + 1)))
                            let tr = V(repeating: T.x), tg = V(repeating: T.y), tb = V(repeating: T.z)
                            for y in R..<(R + oh) {
                                let b0 = box + (y - 2 * d) * S, b1 = box + (y - d) * S, b2 = box + y * S
                                let b3 = box + (y + d) * S, b4 = box + (y + 2 * d) * S
                                let wr = w + y * S, dr = delta + y * S, sr = vr + y * S, sg = vg + y * S, sb = vb + y * S
                                groups(R, R + ow) { x in
                                    var s = load(b0 + x)
                                    s += load(b1 + x); s += load(b2 + x); s += load(b3 + x); s += load(b4 + x)
                                    let energy = s * inverse
                                    let noise = tr * load(sr + x) + tg * load(sg + x) + tb * load(sb + x)
                                    let gain = ((energy - noise) / energy).replacing(with: zero, where: .!(energy .> noise))
                                    store(load(dr + x) + (gain - one) * load(wr + x), dr + x)
                                }
                            }
                        }
                        c = next; next = spare; spare = c
                    }
                }
                // Back to R, G, B (the inverse of L, Cr, Cb), over exactly the output.
                let dl = deltas[0], dcr = deltas[1], dcb = deltas[2]
                for y in 0..<oh {
                    let q = (y + R) * S + R, p = (y - margin) * stride - margin
                    for x in 0..<ow {
                        let gv = dl[q + x] - 0.25 * (dcr[q + x] + dcb[q + x])
                        r[p + x] += gv + dcr[q + x]; g[p + x] += gv; b[p + x] += gv + dcb[q + x]
                    }
                }
            }
        }
    }
}
