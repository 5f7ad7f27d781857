/// A tone curve on 0…1 through control points, as `ProfileToneCurve` defines it: the DNG SDK's
/// `dng_spline_solver` (a C1 cubic Hermite spline whose interior slopes are the
/// distance-weighted average of the neighbouring chord slopes, refined by the SDK's tridiagonal
/// solve for C2 continuity with natural ends), evaluated exactly by `evaluate` and through a
/// 4096-entry LUT with linear interpolation by `callAsFunction` (the fast path for pixels).
///
/// Inputs below the first point give its output, above the last point the last output
/// (the SDK's behaviour); so x outside 0…1 is clamped.
public struct ToneCurveFunction: Sendable, Equatable {
    /// Control points (x increasing).
    public let xs: [Double]
    public let ys: [Double]
    /// Slopes at the control points.
    let slopes: [Double]
    /// `lut[i]` = curve(i / (lutSize − 1)).
    @usableFromInline let lut: [Float]
    public static let lutSize = 4096

    /// `points` as ProfileToneCurve stores them: x0, y0, x1, y1, …; nil unless ≥ 2 points, all
    /// finite, x strictly increasing.
    public init?(points: [Float]) {
        guard points.count >= 4, points.count % 2 == 0, points.allSatisfy(\.isFinite) else { return nil }
        let xs = stride(from: 0, to: points.count, by: 2).map { Double(points[$0]) }
        let ys = stride(from: 1, to: points.count, by: 2).map { Double(points[$0]) }
        self.init(xs: xs, ys: ys)
    }

    /// Control points as separate lists; nil unless ≥ 2, equal counts, finite, x strictly increasing.
    public init?(xs: [Double], ys: [Double]) {
        guard xs.count >= 2, xs.count == ys.count, (xs + ys).allSatisfy(\.isFinite) else { return nil }
        for i in 1..<xs.count where !(xs[i] > xs[i - 1]) { return nil }
        self.xs = xs
        self.ys = ys
        self.slopes = Self.solveSlopes(xs, ys)
        var lut = [Float](repeating: 0, count: Self.lutSize)
        let n = xs.count
        let slopes = self.slopes
        for i in 0..<Self.lutSize {
            let x = Double(i) / Double(Self.lutSize - 1)
            lut[i] = Float(Self.evaluate(x, xs, ys, slopes, n))
        }
        self.lut = lut
    }

    /// True when the curve is the identity (points on y = x), so it can be skipped.
    public var isIdentity: Bool { zip(xs, ys).allSatisfy { abs($0 - $1) < 1e-9 } && xs.first == 0 && xs.last == 1 }

    /// The exact spline value at `x`.
    public func evaluate(_ x: Double) -> Double { Self.evaluate(x, xs, ys, slopes, xs.count) }

    /// The curve through the LUT (linear interpolation between 4096 samples on 0…1).
    @inlinable
    public func callAsFunction(_ x: Float) -> Float {
        let last = Self.lutSize - 1
        guard x > 0 else { return lut[0] }
        let t = x * Float(last)
        guard t < Float(last) else { return lut[last] }
        let i = Int(t)
        let f = t - Float(i)
        return lut[i] + f * (lut[i + 1] - lut[i])
    }

    /// `dng_spline_solver::Solve`: initial slopes from neighbouring chords, then the tridiagonal
    /// system for a C2 spline with zero second derivative at the ends.
    static func solveSlopes(_ x: [Double], _ y: [Double]) -> [Double] {
        let count = x.count
        var s = [Double](repeating: 0, count: count)
        var a = x[1] - x[0]
        var b = (y[1] - y[0]) / a
        s[0] = b
        if count > 2 {
            for j in 2..<count {
                let c = x[j] - x[j - 1]
                let d = (y[j] - y[j - 1]) / c
                s[j - 1] = (b * c + d * a) / (a + c)
                a = c; b = d
            }
        }
        s[count - 1] = 2 * b - s[count - 2]
        s[0] = 2 * s[0] - s[1]
        guard count > 2 else { return s }
        var e = [Double](repeating: 0, count: count)
        var f = [Double](repeating: 0, count: count)
        var g = [Double](repeating: 0, count: count)
        f[0] = 0.5
        e[count - 1] = 0.5
        g[0] = 0.75 * (s[0] + s[1])
        g[count - 1] = 0.75 * (s[count - 2] + s[count - 1])
        for j in 1..<(count - 1) {
            let span = (x[j + 1] - x[j - 1]) * 2
            e[j] = (x[j + 1] - x[j]) / span
            f[j] = (x[j] - x[j - 1]) / span
            g[j] = 1.5 * s[j]
        }
        for j in 1..<count {
            let pivot = 1 - f[j - 1] * e[j]
            if j != count - 1 { f[j] /= pivot }
            g[j] = (g[j] - g[j - 1] * e[j]) / pivot
        }
        for j in stride(from: count - 2, through: 0, by: -1) { g[j] -= f[j] * g[j + 1] }
        return g
    }

    /// `dng_spline_solver::Evaluate`: clamp outside the points, else the cubic Hermite segment.
    static func evaluate(_ x: Double, _ xs: [Double], _ ys: [Double], _ s: [Double], _ count: Int) -> Double {
        if x <= xs[0] { return ys[0] }
        if x >= xs[count - 1] { return ys[count - 1] }
        var lower = 1, upper = count - 1
        while upper > lower {
            let mid = (lower + upper) >> 1
            if x == xs[mid] { return ys[mid] }
            if x > xs[mid] { lower = mid + 1 } else { upper = mid }
        }
        let j = lower
        let x0 = xs[j - 1], x1 = xs[j], y0 = ys[j - 1], y1 = ys[j], s0 = s[j - 1], s1 = s[j]
        let a = x1 - x0
        let b = (x - x0) / a
        let c = (x1 - x) / a
        return ((y0 * (2 - c + b) + s0 * a * b) * (c * c)) + ((y1 * (2 - b + c) - s1 * a * c) * (b * b))
    }
}
