/// A plane projective transform (homography) H: (x, y) ↦ ((h0 x + h1 y + h2) / w, (h3 x + h4 y + h5) / w),
/// w = h6 x + h7 y + 1 — how a flat chart photographed at an angle maps onto the image.
///
/// Built from four point correspondences (the direct linear transform with h8 = 1: an 8 × 8
/// linear system solved by Gaussian elimination with partial pivoting; Hartley & Zisserman,
/// "Multiple View Geometry", 2nd ed., §4.1). Coordinates are continuous pixels (pixel (i, j)
/// covers [i, i + 1) × [j, j + 1)).
public struct Homography: Sendable, Equatable {
    /// h0…h7 (h8 = 1), row-major.
    public let h: [Double]

    /// The homography taking `from[k]` to `to[k]` for k = 0…3; nil when the points are degenerate
    /// (three collinear, or non-finite).
    public init?(from: [SIMD2<Double>], to: [SIMD2<Double>]) {
        guard from.count == 4, to.count == 4,
              (from + to).allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else { return nil }
        var a = [[Double]](repeating: [Double](repeating: 0, count: 9), count: 8)
        for k in 0..<4 {
            let (x, y, u, v) = (from[k].x, from[k].y, to[k].x, to[k].y)
            a[2 * k] = [x, y, 1, 0, 0, 0, -u * x, -u * y, u]
            a[2 * k + 1] = [0, 0, 0, x, y, 1, -v * x, -v * y, v]
        }
        guard let s = Self.solve(&a) else { return nil }
        h = s
    }

    /// The unit square's corners (0,0), (1,0), (1,1), (0,1) → `corners` (in that order).
    public init?(unitSquareTo corners: [SIMD2<Double>]) {
        self.init(from: [SIMD2(0, 0), SIMD2(1, 0), SIMD2(1, 1), SIMD2(0, 1)], to: corners)
    }

    init(h: [Double]) { self.h = h }

    /// The image of `p`; nil on the line at infinity.
    public func apply(_ p: SIMD2<Double>) -> SIMD2<Double>? {
        let w = h[6] * p.x + h[7] * p.y + 1
        guard abs(w) > 1e-12 else { return nil }
        return SIMD2((h[0] * p.x + h[1] * p.y + h[2]) / w, (h[3] * p.x + h[4] * p.y + h[5]) / w)
    }

    /// The inverse transform (the adjugate of H, rescaled so its h8 = 1); nil when H is singular.
    public var inverse: Homography? {
        let m = h + [1]
        let adj = [
            m[4] * m[8] - m[5] * m[7], m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
            m[5] * m[6] - m[3] * m[8], m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
            m[3] * m[7] - m[4] * m[6], m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3],
        ]
        guard abs(adj[8]) > 1e-15, adj.allSatisfy(\.isFinite) else { return nil }
        return Homography(h: adj.prefix(8).map { $0 / adj[8] })
    }

    /// Solves the 8 × 9 augmented system in place; nil when singular.
    static func solve(_ a: inout [[Double]]) -> [Double]? {
        let n = 8
        let scale = a.flatMap { $0 }.map { abs($0) }.max() ?? 0
        guard scale > 0 else { return nil }
        for col in 0..<n {
            var pivot = col
            for r in col..<n where abs(a[r][col]) > abs(a[pivot][col]) { pivot = r }
            guard abs(a[pivot][col]) > 1e-12 * scale else { return nil }
            a.swapAt(col, pivot)
            for r in 0..<n where r != col {
                let f = a[r][col] / a[col][col]
                if f != 0 { for c in col...n { a[r][c] -= f * a[col][c] } }
            }
        }
        let x = (0..<n).map { a[$0][n] / a[$0][$0] }
        return x.allSatisfy(\.isFinite) ? x : nil
    }
}

extension Homography {
    /// The least-squares homography through n ≥ 4 correspondences (DLT with h8 = 1, normal
    /// equations of the 2n × 8 system); nil when degenerate.
    public static func fit(from: [SIMD2<Double>], to: [SIMD2<Double>]) -> Homography? {
        guard from.count == to.count, from.count >= 4 else { return nil }
        if from.count == 4 { return Homography(from: from, to: to) }
        var ata = [[Double]](repeating: [Double](repeating: 0, count: 9), count: 8)
        for (p, q) in zip(from, to) {
            let rows: [[Double]] = [[p.x, p.y, 1, 0, 0, 0, -q.x * p.x, -q.x * p.y, q.x],
                                    [0, 0, 0, p.x, p.y, 1, -q.y * p.x, -q.y * p.y, q.y]]
            for r in rows { for i in 0..<8 { for j in 0..<9 { ata[i][j] += r[i] * r[j] } } }
        }
        guard let h = solve(&ata) else { return nil }
        return Homography(h: h)
    }
}
