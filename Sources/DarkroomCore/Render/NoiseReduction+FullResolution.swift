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
    /// the 3 × 3 coefficients 2ʲ apart (`shrinkInto`: one sweep per level, the window sums in
    /// rings of rows). L's finest detail is split into three orientations (an edge keeps its band,
    /// the other two lose their noise); its coarser levels and Cr's and Cb's are one isotropic
    /// band per level (`orientedLumaLevels`; one band costs a third). Only the changes go
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
        /// L's levels with three orientations (an edge keeps its band, the other two lose their
        /// noise); its coarser levels and Cr, Cb have one isotropic band (orientation pays only at
        /// the finest level: 1, 2 and 3 such levels measured within 0.03 dB on both bench sets,
        /// none 0.15 dB lower on Kodak; one band costs a third).
        static let orientedLumaLevels = 1
        /// Radius of the energy window, in coefficients 2ʲ apart (1: 3 × 3; the type `Oriented3`'s, as `shrinkInto` runs it).
        static let windowRadius = Oriented3.window
        /// Demosaiced context a tile needs around its output, in pixels.
        static var reach: Int { NoiseReduction.needs(levels: levels, window: windowRadius)[0] }

        /// One denoised combination of R, G, B.
        struct Component: Sendable {
            /// Its weights on R, G, B.
            let weights: SIMD3<Float>
            /// `thresholds[j][band]`: k² × the band's noise variance per unit variance of R, G, B
            /// in the mosaic (`calibrate`); three bands (horizontal, vertical, diagonal) or one
            /// isotropic band per level.
            let thresholds: [[SIMD3<Float>]]
        }

        /// L, Cr, Cb (a component with strength 0 is left out).
        let components: [(index: Int, component: Component)]
        /// Per channel: variance = a·x + b in balanced units.
        let a: SIMD3<Float>, b: SIMD3<Float>

        /// The stage for `kernel` on `cfa` (both nil: LinearRaw, white noise per channel), with
        /// strengths `luma` (L) and `chroma` (Cr, Cb); nil when both are 0.
        init?(kernel: (any DemosaicKernel)?, cfa: CFAPattern?, luma: Double, chroma: Double, a: SIMD3<Float>, b: SIMD3<Float>) {
            // (weights, levels with three orientations, strength)
            let specs: [(SIMD3<Float>, Int, Double)] = [(SIMD3(0.25, 0.5, 0.25), Self.orientedLumaLevels, luma),
                                                        (SIMD3(1, -1, 0), 0, chroma), (SIMD3(0, -1, 1), 0, chroma)]
            let active = specs.enumerated().filter { $0.element.2 > 0 }
            guard !active.isEmpty else { return nil }
            // One calibration for all: each component's isotropic bands, and L's oriented ones.
            var requests: [(weights: SIMD3<Float>, isotropic: Bool)] = active.map { ($0.element.0, true) }
            if let l = active.first(where: { $0.element.1 > 0 }) { requests.append((l.element.0, false)) }
            let factors = Self.calibrate(kernel: kernel, cfa: cfa, components: requests, levels: Self.levels)
            components = active.enumerated().map { n, item in
                let (i, (weights, oriented, k)) = item
                let k2 = k * k
                let thresholds = (0..<Self.levels).map { j in
                    factors[j < oriented ? requests.count - 1 : n][j].map { SIMD3<Float>(Float($0.x * k2), Float($0.y * k2), Float($0.z * k2)) }
                }
                return (i, Component(weights: weights, thresholds: thresholds))
            }
            self.a = a; self.b = b
        }

        /// Per component (`weights` on R, G, B; `isotropic`: one band per level, else horizontal,
        /// vertical, diagonal), the variance of each band of `levels` levels after `kernel` per unit
        /// variance of white noise in the mosaic's R, G, B photosites: `[component][level][band]` as
        /// SIMD3 (R, G, B). Each colour in turn carries Gaussian noise (σ = 0.02, a fixed sequence)
        /// on a flat 0.5 mosaic of `side` × `side` (plus the kernel's halo), demosaiced once for all
        /// components; the variances are taken `needs(levels)[0]` + 2 away from the edges (where the
        /// transform reads no border). Without a kernel (LinearRaw) the noise is put straight into
        /// that colour's plane of a flat 0.5 image: white noise. Deterministic.
        static func calibrate(kernel: (any DemosaicKernel)?, cfa: CFAPattern?, components: [(weights: SIMD3<Float>, isotropic: Bool)],
                              levels: Int, side: Int = 256) -> [[[SIMD3<Double>]]] {
            let halo = kernel?.halo ?? 0
            let full = side + 2 * halo, n = full * full
            let sigma: Float = 0.02
            var result = components.map { [[SIMD3<Double>]](repeating: [SIMD3<Double>](repeating: .zero, count: $0.isotropic ? 1 : 3), count: levels) }
            var mosaic = [Float](repeating: 0, count: n), red = mosaic, green = mosaic, blue = mosaic
            let need = NoiseReduction.needs(levels: levels, window: windowRadius)
            for colour in 0..<3 {
                let seed: UInt64 = 0x9E37_79B9_7F4A_7C15
                if let kernel, let cfa {
                    NoiseReduction.demosaicNoise(kernel: kernel, cfa: cfa, side: full, colour: colour, seed: seed,
                                                 sigma: sigma, mosaic: &mosaic, red: &red, green: &green, blue: &blue)
                } else {
                    var state = seed &+ UInt64(colour)
                    for i in 0..<n {
                        let v = 0.5 + sigma * NoiseReduction.gaussian(&state)
                        red[i] = colour == 0 ? v : 0.5; green[i] = colour == 1 ? v : 0.5; blue[i] = colour == 2 ? v : 0.5
                    }
                }
                for (k, component) in components.enumerated() {
                    let weights = component.weights
                    var c = [Double](repeating: 0, count: side * side)
                    for y in 0..<side { for x in 0..<side {
                        let i = (y + halo) * full + x + halo
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
            // Every pass computes whole groups of 8 lanes from its first column; a lane past the
            // columns a pass must produce is never read for a column a later pass must produce, so
            // what it holds does not matter (each lane runs the same operations in the same order).
            typealias D = DemosaicVector
            // Planes: c (the component), next, spare, hx, σ²_R, σ²_G, σ²_B, and ΔL, ΔCr, ΔCb; the
            // rings of the bands and their window sums; three rows of w².
            let ring = NoiseReduction.ringRows(levels: Self.levels, window: window) * S
            withUnsafeTemporaryAllocation(of: Float.self, capacity: plane * 10 + 2 * ring + 3 * S + 32) { buffer in
                let base = buffer.baseAddress!
                let hx = base + 3 * plane
                let vr = base + 4 * plane, vg = base + 5 * plane, vb = base + 6 * plane
                let deltas = [base + 7 * plane, base + 8 * plane, base + 9 * plane]
                let w = base + 10 * plane, box = w + ring, w2 = box + ring
                // The deltas start at 0 over the output (and the lanes its groups run over).
                for d in deltas { for y in R..<(R + oh) { (d + y * S + R).initialize(repeating: 0, count: ow + 8) } }
                let o = -(margin + R)                                 // input region's origin in the tile
                let quarter = V(repeating: 0.25), half = V(repeating: 0.5), zero = V()
                // Per output pixel, each channel's noise variance at its 3 × 3 binomial mean.
                for (k, p, out) in [(0, r, vr), (1, g, vg), (2, b, vb)] {
                    for y in (R - 1)..<(R + oh + 1) {
                        let src = p + (y + o) * stride + o, t = hx + y * S
                        D.groups(R, R + ow) { x in D.store(half * D.load(src + x) + quarter * (D.load(src + x - 1) + D.load(src + x + 1)), t + x) }
                    }
                    let scale = V(repeating: self.a[k]), offset = V(repeating: self.b[k])
                    for y in R..<(R + oh) {
                        let t0 = hx + (y - 1) * S, t1 = hx + y * S, t2 = hx + (y + 1) * S, dst = out + y * S
                        D.groups(R, R + ow) { x in
                            let m = half * D.load(t1 + x) + quarter * (D.load(t0 + x) + D.load(t2 + x))
                            D.store(scale * m.replacing(with: zero, where: m .< zero) + offset, dst + x)
                        }
                    }
                }
                let planes = ShrinkPlanes(next: base + plane, spare: base + 2 * plane, hx: hx, w: w, box: box, w2: w2,
                                          vr: vr, vg: vg, vb: vb, stride: S)
                for (index, component) in components {
                    let c = base
                    let kr = V(repeating: component.weights.x), kg = V(repeating: component.weights.y), kb = V(repeating: component.weights.z)
                    for y in 0..<eh {
                        let src = (y + o) * stride + o, row = c + y * S
                        D.groups(0, ew) { x in D.store(kr * D.load(r + src + x) + kg * D.load(g + src + x) + kb * D.load(b + src + x), row + x) }
                    }
                    NoiseReduction.shrinkInto(deltas[index], c: c, planes: planes, origin: R, width: ow, height: oh,
                                              thresholds: component.thresholds)
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
