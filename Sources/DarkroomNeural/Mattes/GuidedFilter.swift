import Dispatch

/// The guided filter of He, Sun and Tang ("Guided Image Filtering", ECCV 2010 / TPAMI 2013, grey
/// guide, Algorithm 1): `q = mean(a)·I + mean(b)` with, over each (2r+1)² window,
/// `a = cov(I, p) / (var(I) + ε)` and `b = mean(p) − a·mean(I)`. Edges of the guide `I` (here the
/// image's luminance, 0…1) carry into the filtered `p` (the upsampled person probability, 0…1), so
/// a coarse 256 × 256 mask follows hair and shoulders at full matte size.
///
/// Box means are window sums accumulated in Double (windows clipped at the borders, divided by their
/// own pixel count), computed row by row with running sums: the result does not depend on the
/// thread count.
public enum GuidedFilter {
    /// `p` filtered with guide `guide` (both `width × height`), window radius `radius` px, ε `epsilon`.
    public static func filter(guide: [Float], p: [Float], width: Int, height: Int, radius: Int, epsilon: Float) -> [Float] {
        let n = width * height
        guard n > 0, guide.count == n, p.count == n, radius >= 0 else { return p }
        var ip = [Float](repeating: 0, count: n), ii = [Float](repeating: 0, count: n)
        for k in 0..<n { ip[k] = guide[k] * p[k]; ii[k] = guide[k] * guide[k] }
        let mI = boxMean(guide, width: width, height: height, radius: radius)
        let mP = boxMean(p, width: width, height: height, radius: radius)
        let mIP = boxMean(ip, width: width, height: height, radius: radius)
        let mII = boxMean(ii, width: width, height: height, radius: radius)
        var a = [Float](repeating: 0, count: n), b = [Float](repeating: 0, count: n)
        for k in 0..<n {
            let cov = mIP[k] - mI[k] * mP[k], v = mII[k] - mI[k] * mI[k]
            a[k] = cov / (v + epsilon)
            b[k] = mP[k] - a[k] * mI[k]
        }
        let mA = boxMean(a, width: width, height: height, radius: radius)
        let mB = boxMean(b, width: width, height: height, radius: radius)
        var q = [Float](repeating: 0, count: n)
        for k in 0..<n { q[k] = mA[k] * guide[k] + mB[k] }
        return q
    }

    /// Mean over the (2r+1)² window clipped to the image: vertical running sums per column, then
    /// horizontal running sums per row, accumulated in Double.
    public static func boxMean(_ x: [Float], width: Int, height: Int, radius r: Int) -> [Float] {
        var col = [Double](repeating: 0, count: width * height)
        // Vertical pass: column sums over rows y−r…y+r.
        var acc = [Double](repeating: 0, count: width)
        for y in 0..<min(r, height) { for i in 0..<width { acc[i] += Double(x[y * width + i]) } }
        for y in 0..<height {
            let add = y + r, sub = y - r - 1
            if add < height { for i in 0..<width { acc[i] += Double(x[add * width + i]) } }
            if sub >= 0 { for i in 0..<width { acc[i] -= Double(x[sub * width + i]) } }
            for i in 0..<width { col[y * width + i] = acc[i] }
        }
        var out = [Float](repeating: 0, count: width * height)
        for y in 0..<height {
            let rows = Double(min(height - 1, y + r) - max(0, y - r) + 1)
            let o = y * width
            var s = 0.0
            for i in 0..<min(r, width) { s += col[o + i] }
            for i in 0..<width {
                let add = i + r, sub = i - r - 1
                if add < width { s += col[o + add] }
                if sub >= 0 { s -= col[o + sub] }
                let cols = Double(min(width - 1, i + r) - max(0, i - r) + 1)
                out[o + i] = Float(s / (rows * cols))
            }
        }
        return out
    }
}
