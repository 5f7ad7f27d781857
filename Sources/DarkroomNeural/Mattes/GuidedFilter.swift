import Dispatch

/// The guided filter of He, Sun and Tang ("Guided Image Filtering", ECCV 2010 / TPAMI 2013, grey
/// guide, Algorithm 1): `q = mean(a)·I + mean(b)` with, over each (2r+1)² window,
/// `a = cov(I, p) / (var(I) + ε)` and `b = mean(p) − a·mean(I)`. Edges of the guide `I` (here the
/// image's luminance, 0…1) carry into the filtered `p` (the upsampled person probability, 0…1), so
/// a coarse 256 × 256 mask follows hair and shoulders at full matte size.
///
/// Box means are window sums accumulated in Double (windows clipped at the borders, divided by their
/// own pixel count), computed row by row with running sums; the fast filter's full-size passes run
/// in parallel row bands with the same per-pixel arithmetic: the result does not depend on the
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

    /// He and Sun's fast guided filter (arXiv:1505.00996): the coefficients a, b computed on `guide`
    /// and `p` averaged over `subsample × subsample` blocks with radius `radius / subsample` (at
    /// least 1), their window means upsampled bilinearly (centre-aligned, edges clamped) and applied
    /// to the full-resolution guide: `q = A·I + B`. `subsample` 1 is `filter`.
    public static func fastFilter(guide: [Float], p: [Float], width: Int, height: Int, radius: Int, epsilon: Float,
                                  subsample s: Int) -> [Float] {
        let n = width * height
        guard s > 1, n > 0, guide.count == n, p.count == n else {
            return filter(guide: guide, p: p, width: width, height: height, radius: radius, epsilon: epsilon)
        }
        let sw = (width + s - 1) / s, sh = (height + s - 1) / s
        func down(_ x: [Float]) -> [Float] {
            RowBands.fill(rows: sh, width: sw, repeating: 0) { rows, o in
                for y in rows {
                    let y1 = min(height, (y + 1) * s)
                    for xb in 0..<sw {
                        let x1 = min(width, (xb + 1) * s)
                        var t: Float = 0
                        for yy in (y * s)..<y1 { for xx in (xb * s)..<x1 { t += x[yy * width + xx] } }
                        o[y * sw + xb] = t / Float((y1 - y * s) * (x1 - xb * s))
                    }
                }
            }
        }
        let iS = down(guide), pS = down(p), rS = max(1, radius / s)
        var ip = [Float](repeating: 0, count: sw * sh), ii = ip
        for k in ip.indices { ip[k] = iS[k] * pS[k]; ii[k] = iS[k] * iS[k] }
        let mI = boxMean(iS, width: sw, height: sh, radius: rS), mP = boxMean(pS, width: sw, height: sh, radius: rS)
        let mIP = boxMean(ip, width: sw, height: sh, radius: rS), mII = boxMean(ii, width: sw, height: sh, radius: rS)
        var a = [Float](repeating: 0, count: sw * sh), b = a
        for k in a.indices {
            a[k] = (mIP[k] - mI[k] * mP[k]) / (mII[k] - mI[k] * mI[k] + epsilon)
            b[k] = mP[k] - a[k] * mI[k]
        }
        let mA = boxMean(a, width: sw, height: sh, radius: rS), mB = boxMean(b, width: sw, height: sh, radius: rS)
        let inv = 1 / Float(s)
        // Column taps are the same for every row.
        var x0s = [Int](repeating: 0, count: width), x1s = x0s, wxs = [Float](repeating: 0, count: width)
        for x in 0..<width {
            let fx = max(0, (Float(x) + 0.5) * inv - 0.5)
            let x0 = min(Int(fx), sw - 1)
            x0s[x] = x0; x1s[x] = min(x0 + 1, sw - 1); wxs[x] = fx - Float(x0)
        }
        return RowBands.fill(rows: height, width: width, repeating: 0) { rows, q in
            for y in rows {
                let fy = max(0, (Float(y) + 0.5) * inv - 0.5)
                let y0 = min(Int(fy), sh - 1), y1 = min(y0 + 1, sh - 1), wy = fy - Float(y0)
                for x in 0..<width {
                    let x0 = x0s[x], x1 = x1s[x], wx = wxs[x]
                    @inline(__always) func lerp(_ m: [Float]) -> Float {
                        let t = m[y0 * sw + x0] * (1 - wx) + m[y0 * sw + x1] * wx
                        let u = m[y1 * sw + x0] * (1 - wx) + m[y1 * sw + x1] * wx
                        return t * (1 - wy) + u * wy
                    }
                    let k = y * width + x
                    q[k] = lerp(mA) * guide[k] + lerp(mB)
                }
            }
        }
    }
}
