import Foundation

/// Fits a 2.5D `ProfileHueSatMapData` table (DNG 1.7, "ProfileHueSatMapData1"; applied as
/// `ProfileRenderTables` applies it: linear ProPhoto → HSV with hue in sixths, bilinear lookup in
/// hue × saturation, hue shift, saturation and value scales) that moves measured colours toward
/// their references, after the matrices have done what a 3 × 3 can.
///
/// Method: for each patch, the correction it asks for — hue difference (degrees, wrapped to
/// ±180), saturation ratio and value ratio of the reference over the measured ProPhoto HSV — and
/// the bilinear weights of its measured (hue, saturation) in the table. Each of the three
/// quantities is then a regularised linear least-squares problem over the table's entries:
/// Σ_p (Σ_j w_pj θ_j − t_p)² + `smoothness` Σ_(j,k neighbours) (θ_j − θ_k)² + `prior` Σ_j (θ_j − identity)²,
/// neighbours along hue (wrapping) and saturation; the saturation-0 column (the neutral axis) is
/// held at the identity (0°, 1, 1) by a weight of 1e6, so greys are untouched. Solved by Gaussian
/// elimination with partial pivoting on the normal equations.
public enum HueSatMapFit {
    /// Table size: hue divisions (20° each) × saturation divisions (0, ½, 1) × 1 value division.
    public static let hueDivisions = 18
    public static let saturationDivisions = 3
    /// Regularisation weights (in units of one patch's squared residual).
    public static let smoothness = 0.3
    public static let prior = 0.02
    /// Patches with measured saturation below this are not used (their hue is undefined).
    public static let minimumSaturation = 0.03

    /// The table's data (`hueDivisions × saturationDivisions × 3` floats, hue outer, saturation
    /// fastest; entries hue shift in degrees, saturation scale, value scale) fitted to move each
    /// `measured` linear ProPhoto colour toward `target`.
    public static func fit(measured: [SIMD3<Double>], target: [SIMD3<Double>]) -> [Float] {
        let h = hueDivisions, s = saturationDivisions, n = h * s
        var rows: [(weights: [(Int, Double)], t: SIMD3<Double>)] = []
        for (m, t) in zip(measured, target) {
            let a = hsv(m), b = hsv(t)
            guard a.s >= minimumSaturation, a.v > 0, b.v > 0, b.s > 0 else { continue }
            var dh = b.h - a.h
            if dh > 3 { dh -= 6 } else if dh <= -3 { dh += 6 }
            rows.append((weights(hue: a.h, saturation: a.s), SIMD3(dh * 60, b.s / a.s, b.v / a.v)))
        }
        let identity = SIMD3<Double>(0, 1, 1)
        var out = [Float](repeating: 0, count: n * 3)
        for q in 0..<3 {
            var a = [Double](repeating: 0, count: n * n), rhs = [Double](repeating: 0, count: n)
            for r in rows {
                for (j, wj) in r.weights {
                    rhs[j] += wj * r.t[q]
                    for (k, wk) in r.weights { a[j * n + k] += wj * wk }
                }
            }
            func couple(_ j: Int, _ k: Int, _ weight: Double) {
                a[j * n + j] += weight; a[k * n + k] += weight; a[j * n + k] -= weight; a[k * n + j] -= weight
            }
            for hi in 0..<h {
                for si in 0..<s {
                    let j = hi * s + si
                    couple(j, ((hi + 1) % h) * s + si, smoothness)
                    if si + 1 < s { couple(j, j + 1, smoothness) }
                    let w = si == 0 ? 1e6 : prior
                    a[j * n + j] += w; rhs[j] += w * identity[q]
                }
            }
            let theta = solve(a, rhs, n) ?? [Double](repeating: identity[q], count: n)
            for j in 0..<n { out[3 * j + q] = Float(theta[j]) }
        }
        return out
    }

    /// HSV as the DNG SDK computes it (V = max, S = (max − min)/max, H in sixths 0…6).
    public static func hsv(_ c: SIMD3<Double>) -> (h: Double, s: Double, v: Double) {
        let v = c.max(), gap = v - c.min()
        guard gap > 0, v > 0 else { return (0, 0, v) }
        let h: Double
        if c.x == v { let q = (c.y - c.z) / gap; h = q < 0 ? q + 6 : q } else if c.y == v { h = 2 + (c.z - c.x) / gap } else { h = 4 + (c.x - c.y) / gap }
        return (h, gap / v, v)
    }

    /// The bilinear weights of (hue, saturation) over the table's entries, as the lookup takes them.
    static func weights(hue: Double, saturation: Double) -> [(Int, Double)] {
        let h = hueDivisions, s = saturationDivisions
        // Clamped before any Int conversion: a colour overflowed to inf gives a NaN hue, and a
        // negative minimum a saturation above 1 (Int(NaN) or Int(1e300) would trap).
        let hs = hue.isFinite ? min(max(hue, 0), 6) * Double(h) / 6 : 0
        let ss = saturation.isFinite ? min(max(saturation, 0), 1) * Double(s - 1) : 0
        var h0 = Int(hs), h1 = h0 + 1
        let s0 = min(Int(ss), s - 2)
        if h0 >= h - 1 { h0 = h - 1; h1 = 0 }
        let hf = hs - Double(h0), sf = ss - Double(s0)
        return [(h0 * s + s0, (1 - hf) * (1 - sf)), (h1 * s + s0, hf * (1 - sf)),
                (h0 * s + s0 + 1, (1 - hf) * sf), (h1 * s + s0 + 1, hf * sf)]
    }

    /// Solves the n × n system `a` x = `b` (row-major) by Gaussian elimination with partial
    /// pivoting; nil when singular.
    static func solve(_ a: [Double], _ b: [Double], _ n: Int) -> [Double]? {
        var m = a, x = b
        for c in 0..<n {
            var p = c
            for r in c + 1..<max(c + 1, n) where abs(m[r * n + c]) > abs(m[p * n + c]) { p = r }
            guard abs(m[p * n + c]) > 1e-12 else { return nil }
            if p != c {
                for k in 0..<n { m.swapAt(c * n + k, p * n + k) }
                x.swapAt(c, p)
            }
            for r in c + 1..<max(c + 1, n) {
                let f = m[r * n + c] / m[c * n + c]
                guard f != 0 else { continue }
                for k in c..<n { m[r * n + k] -= f * m[c * n + k] }
                x[r] -= f * x[c]
            }
        }
        for c in stride(from: n - 1, through: 0, by: -1) {
            var v = x[c]
            for k in c + 1..<max(c + 1, n) { v -= m[c * n + k] * x[k] }
            x[c] = v / m[c * n + c]
        }
        return x.allSatisfy(\.isFinite) ? x : nil
    }
}
