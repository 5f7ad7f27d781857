extension NoiseReduction {
    /// Planes of one shrinkage (`shrinkInto`): every plane is `stride` floats per row (a multiple
    /// of 8 with room for a last group of 8 and its taps to run over) and as tall as the input
    /// region; all of them, plus one row `w2`, belong to the caller's buffer.
    struct ShrinkPlanes {
        /// Scratch planes: the next approximation, a spare, c_j smoothed along x.
        let next: UnsafeMutablePointer<Float>, spare: UnsafeMutablePointer<Float>, hx: UnsafeMutablePointer<Float>
        /// Rings of `ringRows` rows each: the bands, their window sums along x.
        let w: UnsafeMutablePointer<Float>, box: UnsafeMutablePointer<Float>
        /// Three rows: the bands' squares.
        let w2: UnsafeMutablePointer<Float>
        /// Per-channel noise variance (R, G, B) at each output sample.
        let vr: UnsafeMutablePointer<Float>, vg: UnsafeMutablePointer<Float>, vb: UnsafeMutablePointer<Float>
        let stride: Int
    }

    /// The shape of a shrinkage as types, so that each gets its own specialised code (the band
    /// count and the window's taps are then constants).
    protocol ShrinkShape {
        /// Radius of the energy window, in coefficients 2ʲ apart (1: 3 × 3, 2: 5 × 5).
        static var window: Int { get }
        /// One band per level (c_j − c_{j+1}), else three orientations.
        static var isotropic: Bool { get }
    }
    /// Three orientations, 3 × 3 window.
    enum Oriented3: ShrinkShape { static var window: Int { 1 }; static var isotropic: Bool { false } }
    /// One band, 3 × 3 window.
    enum Isotropic3: ShrinkShape { static var window: Int { 1 }; static var isotropic: Bool { true } }

    /// Rows of each of `ShrinkPlanes.w` and `.box` for `levels` levels and energy window radius
    /// `window` (three bands, a ring of 2·window·2ʲ + 1 rows each at the coarsest level).
    static func ringRows(levels: Int, window: Int) -> Int { 3 * (2 * (window << (levels - 1)) + 1) }

    /// The à-trous transform of `c` (its input region `ow + 2R` × `oh + 2R`, the output at
    /// (`R`, `R`), `R` = `needs(levels, window)[0]`; `c` is overwritten) with local Wiener
    /// shrinkage: adds Σ (g − 1)·w over the bands to `delta` over the output, g = max(E − T·σ², 0)/E
    /// with E the mean of w² over the (2·`Shape.window` + 1)² coefficients 2ʲ apart and T·σ² =
    /// `thresholds[j][band]` · (σ²_R, σ²_G, σ²_B) at the sample. `Shape.isotropic`: one band per level
    /// (c_j − c_{j+1}), else three (smoothed along x and differenced along y, the transpose, the
    /// diagonal rest). A level whose thresholds are all 0 adds nothing (its bands are skipped).
    ///
    /// Every pass computes whole groups of 8 lanes from its first column; a lane past the columns
    /// a pass must produce is never read for a column a later pass must produce, so what it holds
    /// does not matter (each lane runs the same operations in the same order): the result is the
    /// same for any region width.
    static func shrinkInto(_ delta: UnsafeMutablePointer<Float>, c start: UnsafeMutablePointer<Float>, planes: ShrinkPlanes,
                           origin R: Int, width ow: Int, height oh: Int, thresholds: [[SIMD3<Float>]]) {
        typealias V = SIMD8<Float>
        typealias D = DemosaicVector
        let S = planes.stride, hx = planes.hx
        let quarter = V(repeating: 0.25), half = V(repeating: 0.5)
        var c = start, next = planes.next, spare = planes.spare
        let levels = thresholds.count
        let need = needs(levels: levels, window: Oriented3.window)
        for j in 0..<levels {
            let d = 1 << j, nj = need[j], e = need[j + 1]
            let shrinks = thresholds[j].contains { $0 != .zero }
            if !shrinks && j == levels - 1 { break }
            // hx = c_j smoothed along x (rows ± nj, columns ± e); c_{j+1} = hx smoothed along y (± e).
            for y in (R - nj)..<(R + oh + nj) {
                let row = c + y * S, t = hx + y * S
                D.groups(R - e, R + ow + e) { x in D.store(half * D.load(row + x) + quarter * (D.load(row + x - d) + D.load(row + x + d)), t + x) }
            }
            for y in (R - e)..<(R + oh + e) {
                let t0 = hx + (y - d) * S, t1 = hx + y * S, t2 = hx + (y + d) * S, dst = next + y * S
                D.groups(R - e, R + ow + e) { x in D.store(half * D.load(t1 + x) + quarter * (D.load(t0 + x) + D.load(t2 + x)), dst + x) }
            }
            if shrinks {
                if thresholds[j].count == 1 {
                    sweep(Isotropic3.self, delta, c: c, next: next, planes: planes, origin: R, width: ow, height: oh, d: d, thresholds: thresholds[j])
                } else {
                    sweep(Oriented3.self, delta, c: c, next: next, planes: planes, origin: R, width: ow, height: oh, d: d, thresholds: thresholds[j])
                }
            }
            c = next; next = spare; spare = c
        }
    }

    /// One level's bands of `shrinkInto`: c = c_j, next = c_{j+1} (valid over the output ±
    /// `needs`), d = 2ʲ, `thresholds` its bands' (three, or one for `Shape.isotropic`).
    static func sweep<Shape: ShrinkShape>(_ shape: Shape.Type, _ delta: UnsafeMutablePointer<Float>, c: UnsafeMutablePointer<Float>,
                                          next: UnsafeMutablePointer<Float>, planes: ShrinkPlanes, origin R: Int, width ow: Int, height oh: Int,
                                          d: Int, thresholds: [SIMD3<Float>]) {
        typealias V = SIMD8<Float>
        typealias D = DemosaicVector
        let window = Shape.window, isotropic = Shape.isotropic
        let S = planes.stride, hx = planes.hx, w = planes.w, box = planes.box, w2 = planes.w2
        let vr = planes.vr, vg = planes.vg, vb = planes.vb
        let quarter = V(repeating: 0.25), half = V(repeating: 0.5), zero = V(), one = V(repeating: 1)
        let inverse = V(repeating: 1 / Float((2 * window + 1) * (2 * window + 1)))
        let dw = window * d
            // One sweep down the rows for all bands of the level: row yi's bands (± dw columns) go
        // into the rings (`ring` rows each: w and its window sums along x), and row yi − dw,
        // whose window rows are then all there, gets its gains.
        let ring = 2 * dw + 1
        let t = thresholds.map { (V(repeating: $0.x), V(repeating: $0.y), V(repeating: $0.z)) }
        let t0 = t[0], t1 = isotropic ? t[0] : t[1], t2 = isotropic ? t[0] : t[2]
        let first = R - dw
        let wh = w, wv = w + ring * S, wg = w + 2 * ring * S
        let bh = box, bv = box + ring * S, bg = box + 2 * ring * S
        @inline(__always) func boxX(_ q: UnsafeMutablePointer<Float>, _ t: UnsafeMutablePointer<Float>) {
            D.groups(R, R + ow) { x in
                var s = D.load(q + x) + (D.load(q + x - d) + D.load(q + x + d))
                if window > 1 { s += D.load(q + x - 2 * d) + D.load(q + x + 2 * d) }
                D.store(s, t + x)
            }
        }
        for yi in first..<(R + oh + dw) {
            let slot = (yi - first) % ring, row = slot * S
            let cr = c + yi * S, c0 = c + (yi - d) * S, c2 = c + (yi + d) * S, nr = next + yi * S, xr = hx + yi * S
            D.groups(R - dw, R + ow + dw) { x in
                let cv = D.load(cr + x), nv = D.load(nr + x)
                if isotropic {
                    let v = cv - nv
                    D.store(v, wh + row + x); D.store(v * v, w2 + x)
                } else {
                    let xv = D.load(xr + x), yv = half * cv + quarter * (D.load(c0 + x) + D.load(c2 + x))
                    let h = xv - nv, vv = yv - nv, g = (cv - xv) - vv
                    D.store(h, wh + row + x); D.store(h * h, w2 + x)
                    D.store(vv, wv + row + x); D.store(vv * vv, w2 + S + x)
                    D.store(g, wg + row + x); D.store(g * g, w2 + 2 * S + x)
                }
            }
            boxX(w2, bh + row)
            if !isotropic { boxX(w2 + S, bv + row); boxX(w2 + 2 * S, bg + row) }
            let y = yi - dw
            guard y >= R else { continue }
            let dr = delta + y * S, sr = vr + y * S, sg = vg + y * S, sb = vb + y * S
            let centre = ((y - first) % ring) * S
            let u1 = ((y - first + ring - d) % ring) * S, d1 = ((y - first + d) % ring) * S
            let u2 = window > 1 ? ((y - first + ring - 2 * d) % ring) * S : 0, d2 = window > 1 ? ((y - first + 2 * d) % ring) * S : 0
            @inline(__always) func change(_ b: UnsafeMutablePointer<Float>, _ w: UnsafeMutablePointer<Float>, _ T: (V, V, V),
                                          _ pr: V, _ pg: V, _ pb: V) -> V {
                var s = D.load(b + centre) + (D.load(b + u1) + D.load(b + d1))
                if window > 1 { s += D.load(b + u2) + D.load(b + d2) }
                let energy = s * inverse
                let noise = T.0 * pr + T.1 * pg + T.2 * pb
                let gain = ((energy - noise) / energy).replacing(with: zero, where: .!(energy .> noise))
                return (gain - one) * D.load(w + centre)
            }
            D.groups(R, R + ow) { x in
                let pr = D.load(sr + x), pg = D.load(sg + x), pb = D.load(sb + x)
                var sum = D.load(dr + x) + change(bh + x, wh + x, t0, pr, pg, pb)
                if !isotropic {
                    sum += change(bv + x, wv + x, t1, pr, pg, pb)
                    sum += change(bg + x, wg + x, t2, pr, pg, pb)
                }
                D.store(sum, dr + x)
            }
        }
    }
}
