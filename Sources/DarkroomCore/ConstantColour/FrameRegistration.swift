import Foundation

/// Global translation between the ambient and the flash frame (issue 17, step 3).
///
/// The frames differ in lighting, so they are compared through what both share — reflectance
/// edges: each frame's structure image is the gradient magnitude of ln(luminance + ε), which a
/// multiplicative change of light leaves unchanged. The shift (dx, dy) maximising the
/// zero-mean normalised cross-correlation (ZNCC) of the two structure images over their overlap
/// is searched exhaustively over |dx|, |dy| ≤ maxShift on a copy reduced by an integer factor so
/// its long side is ≤ 256 px, then refined ±(factor) px at full resolution on the central
/// ≤ 512×512 px. Integer pixels only (a sub-pixel residual stays, and shows in the registration
/// term of the confidence). The residual is 1 − ZNCC at the chosen shift (0 = the structures agree).
public struct FrameRegistration: Sendable, Equatable, Codable {
    /// Flash-frame pixel (x + dx, y + dy) shows what ambient pixel (x, y) shows.
    public var dx: Int
    public var dy: Int
    /// 1 − ZNCC of the structure images at (dx, dy), full resolution, central region.
    public var residual: Double

    public init(dx: Int, dy: Int, residual: Double) { self.dx = dx; self.dy = dy; self.residual = residual }

    /// Registers `flash` to `ambient` (luminance planes, `width × height`, linear).
    public static func register(ambient: [Float], flash: [Float], width: Int, height: Int, maxShift: Int) -> FrameRegistration {
        let ga = structure(ambient, width, height), gf = structure(flash, width, height)
        guard maxShift > 0 else {
            return FrameRegistration(dx: 0, dy: 0, residual: 1 - zncc(ga, gf, width, height, dx: 0, dy: 0, region: central(width, height)))
        }
        let factor = max(1, (max(width, height) + 255) / 256)
        var best = (dx: 0, dy: 0)
        if factor > 1 {
            let (sa, sw, sh) = reduced(ga, width, height, factor)
            let (sf, _, _) = reduced(gf, width, height, factor)
            let r = max(1, (maxShift + factor - 1) / factor)
            var score = -Double.infinity
            var coarse = (dx: 0, dy: 0)
            for dy in -r...r { for dx in -r...r {
                let s = zncc(sa, sf, sw, sh, dx: dx, dy: dy, region: PixelRect(x: 0, y: 0, width: sw, height: sh))
                if better(s, dx, dy, than: score, coarse) { score = s; coarse = (dx, dy) }
            } }
            best = (coarse.dx * factor, coarse.dy * factor)
        }
        let region = central(width, height)
        let span = factor > 1 ? factor : maxShift
        var score = -Double.infinity
        var chosen = best
        for dy in (best.dy - span)...(best.dy + span) where abs(dy) <= maxShift {
            for dx in (best.dx - span)...(best.dx + span) where abs(dx) <= maxShift {
                let s = zncc(ga, gf, width, height, dx: dx, dy: dy, region: region)
                if better(s, dx, dy, than: score, chosen) { score = s; chosen = (dx, dy) }
            }
        }
        return FrameRegistration(dx: chosen.dx, dy: chosen.dy, residual: 1 - (score.isFinite ? score : 0))
    }

    /// Whether ZNCC `s` at (dx, dy) beats `score` at `best`: higher by more than 1e-9, or as high
    /// and a smaller shift (so a frame without structure, where every shift scores alike, stays at (0, 0)).
    static func better(_ s: Double, _ dx: Int, _ dy: Int, than score: Double, _ best: (dx: Int, dy: Int)) -> Bool {
        if s > score + 1e-9 { return true }
        return s >= score - 1e-9 && abs(dx) + abs(dy) < abs(best.dx) + abs(best.dy)
    }

    /// The central ≤ 512×512 px of a `width × height` frame.
    static func central(_ w: Int, _ h: Int) -> PixelRect {
        let cw = min(w, 512), ch = min(h, 512)
        return PixelRect(x: (w - cw) / 2, y: (h - ch) / 2, width: cw, height: ch)
    }

    /// |∇ ln(L + ε)| by central differences (0 on the border); ε = 1/4096 of the white level.
    static func structure(_ l: [Float], _ w: Int, _ h: Int) -> [Float] {
        var out = [Float](repeating: 0, count: w * h)
        guard w > 2, h > 2 else { return out }
        let eps: Float = 1.0 / 4096
        var lg = [Float](repeating: 0, count: w * h)
        for i in 0..<(w * h) { lg[i] = logf(max(l[i], 0) + eps) }
        for y in 1..<(h - 1) {
            for x in 1..<(w - 1) {
                let i = y * w + x
                let gx = lg[i + 1] - lg[i - 1], gy = lg[i + w] - lg[i - w]
                out[i] = (gx * gx + gy * gy).squareRoot()
            }
        }
        return out
    }

    /// Box-reduced copy (mean of factor × factor blocks, partial blocks dropped).
    static func reduced(_ p: [Float], _ w: Int, _ h: Int, _ f: Int) -> ([Float], Int, Int) {
        let rw = max(1, w / f), rh = max(1, h / f)
        var out = [Float](repeating: 0, count: rw * rh)
        for y in 0..<rh { for x in 0..<rw {
            var s: Float = 0
            for yy in 0..<f { for xx in 0..<f {
                let sy = min(h - 1, y * f + yy), sx = min(w - 1, x * f + xx)
                s += p[sy * w + sx]
            } }
            out[y * rw + x] = s / Float(f * f)
        } }
        return (out, rw, rh)
    }

    /// ZNCC of a(x, y) and b(x + dx, y + dy) over the pixels of `region` where both exist.
    static func zncc(_ a: [Float], _ b: [Float], _ w: Int, _ h: Int, dx: Int, dy: Int, region: PixelRect) -> Double {
        let x0 = max(region.x, -dx, 0), x1 = min(region.maxX, w - dx, w)
        let y0 = max(region.y, -dy, 0), y1 = min(region.maxY, h - dy, h)
        guard x1 - x0 > 4, y1 - y0 > 4 else { return -1 }
        var sa = 0.0, sb = 0.0, saa = 0.0, sbb = 0.0, sab = 0.0
        for y in y0..<y1 {
            for x in x0..<x1 {
                let u = Double(a[y * w + x]), v = Double(b[(y + dy) * w + x + dx])
                sa += u; sb += v; saa += u * u; sbb += v * v; sab += u * v
            }
        }
        let n = Double((x1 - x0) * (y1 - y0))
        let cov = sab - sa * sb / n, va = saa - sa * sa / n, vb = sbb - sb * sb / n
        guard va > 0, vb > 0 else { return 0 }
        return cov / (va * vb).squareRoot()
    }
}
