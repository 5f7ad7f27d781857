import Foundation

// The DNG SDK 1.7.1's warp resampling (dng_filter_warp with dng_resample_weights_2d and
// dng_resample_bicubic), re-derived so Darkroom's OpcodeList3 warps equal the SDK's stage 3.

/// Bicubic warp resampling as the DNG SDK does it.
///
/// - Kernel: Keys cubic with A = −0.75 (support ±2 pixels), 4×4 taps.
/// - Weights: tabulated for 32 × 32 sub-pixel fractions (1/32 pixel steps). Each 2-D weight is the
///   product of the two 1-D kernel values in Float; the 16 weights are then scaled in Float by
///   Float(1 / their Double sum).
/// - Source position: clamped to 0…width−1 and 0…height−1; integer part = floor, fraction index =
///   truncate(fraction · 32). The 4×4 window starts one pixel up and left of the integer part.
/// - Window clip: the window's first column is clipped to hMin…hMax (rows likewise), and a clipped
///   axis uses fraction 0 (weights 0, 1, 0, 0: the window's second pixel). hMin is the left edge of
///   the SDK's source area and hMax = its right edge − 5, where the source area is the bounding box
///   of the image boundary's source positions (floor/ceil) padded by 2 (+1 on the right and bottom)
///   and limited to the image. So the last row and column are never read, and a source position
///   in the first or last three pixels of an axis reads pixel 1 or width − 4 there. (The SDK works
///   per tile; this uses the whole image as one tile, which is exactly the SDK for images that fit
///   in one of its tiles and differs elsewhere only for a source position exactly on an integer
///   at a tile's extreme.)
/// - Sum in Float over rows then columns; the result is pinned to 0…1.
enum WarpBicubic {
    /// Taps per axis.
    static let taps = 4
    /// Sub-pixel fractions per axis in the weight table.
    static let subsamples = 32

    /// Keys cubic kernel, A = −0.75, at distance x (pixels).
    static func kernel(_ x: Double) -> Double {
        let a = -0.75
        let x = abs(x)
        if x >= 2 { return 0 }
        if x >= 1 { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a }
        return ((a + 2) * x - (a + 3)) * x * x + 1
    }

    /// 16 weights (row-major, 4 rows of 4) per (fraction y, fraction x), 32 × 32 of them.
    static let weights: [Float] = {
        var table = [Float](repeating: 0, count: subsamples * subsamples * taps * taps)
        for fy in 0..<subsamples {
            let yFract = Double(fy) * (1 / Double(subsamples))
            for fx in 0..<subsamples {
                let xFract = Double(fx) * (1 / Double(subsamples))
                let base = (fy * subsamples + fx) * taps * taps
                var total = 0.0
                for i in 0..<taps {
                    let yPos = Double(i - 1) - yFract
                    for j in 0..<taps {
                        let xPos = Double(j - 1) - xFract
                        let w = Float(kernel(xPos)) * Float(kernel(yPos))
                        table[base + i * taps + j] = w
                        total += Double(w)
                    }
                }
                let scale = Float(1 / total)
                for k in 0..<(taps * taps) { table[base + k] *= scale }
            }
        }
        return table
    }()

    /// Source position of destination pixel (x, y), as the SDK computes it: when every tangential
    /// coefficient is 0 the pixel offset is scaled by the ratio directly, otherwise through the
    /// normalised offsets.
    @inline(__always)
    static func sourcePosition(_ warp: PlaneWarp, _ g: RadialGeometry, x: Int, y: Int) -> (Double, Double) {
        let ox = Double(x) - g.centreX, oy = Double(y) - g.centreY
        if let ratio = warp.radialOnlyRatio(dx: ox * g.inverseRadius, dy: oy * g.inverseRadius) {
            return (g.centreX + ox * ratio, g.centreY + oy * ratio)
        }
        return warpSourcePosition(warp, g, x: x, y: y)
    }

    /// The SDK's clip bounds for the window's first column/row: (hMin, hMax, vMin, vMax).
    static func windowBounds(_ warps: [PlaneWarp], _ g: RadialGeometry, width: Int, height: Int,
                             planes: Int) -> (Int, Int, Int, Int) {
        var xMin = Int.max, xMax = Int.min, yMin = Int.max, yMax = Int.min
        func toInt(_ v: Double) -> Int { v.isFinite ? Int(max(min(v, 1e9), -1e9)) : 0 }
        for p in 0..<planes {
            let warp = warps[warps.count == 1 ? 0 : p]
            for x in 0..<width {
                yMin = min(yMin, toInt(sourcePosition(warp, g, x: x, y: 0).1.rounded(.down)))
                yMax = max(yMax, toInt(sourcePosition(warp, g, x: x, y: height - 1).1.rounded(.up)))
            }
            for y in 0..<height {
                xMin = min(xMin, toInt(sourcePosition(warp, g, x: 0, y: y).0.rounded(.down)))
                xMax = max(xMax, toInt(sourcePosition(warp, g, x: width - 1, y: y).0.rounded(.up)))
            }
        }
        let pad = taps / 2
        let left = max(xMin - pad, 0), right = min(xMax + pad + 1, width)
        let top = max(yMin - pad, 0), bottom = min(yMax + pad + 1, height)
        return (left, right - taps - 1, top, bottom - taps - 1)
    }

    /// Warps a whole image; width and height must be at least `taps + 1`.
    static func warp(_ src: [Float], width: Int, height: Int, planes: Int, warps: [PlaneWarp],
                     cx: Double, cy: Double) -> [Float] {
        let g = RadialGeometry(cx: cx, cy: cy, width: width, height: height)
        var (hMin, hMax, vMin, vMax) = windowBounds(warps, g, width: width, height: height, planes: planes)
        // An empty source area (the SDK refuses the image): fall back to the whole image.
        if hMax < hMin { (hMin, hMax) = (0, width - taps - 1) }
        if vMax < vMin { (vMin, vMax) = (0, height - taps - 1) }
        var dst = [Float](repeating: 0, count: src.count)
        let table = weights
        let n = Double(subsamples)
        let maxX = Double(width - 1), maxY = Double(height - 1)
        let rowStride = width * planes
        src.withUnsafeBufferPointer { s in
            dst.withUnsafeMutableBufferPointer { d in
                table.withUnsafeBufferPointer { wt in
                    // One source position per pixel when every plane shares the warp.
                    let shared = warps.count == 1
                    for y in 0..<height {
                        for x in 0..<width {
                            var ix = 0, iy = 0, fx = 0, fy = 0
                            for p in 0..<planes {
                                if p == 0 || !shared {
                                    var (sx, sy) = sourcePosition(warps[shared ? 0 : p], g, x: x, y: y)
                                    // Clamp to the image (NaN → 0).
                                    sx = sx > 0 ? min(sx, maxX) : 0
                                    sy = sy > 0 ? min(sy, maxY) : 0
                                    let fx0 = sx.rounded(.down), fy0 = sy.rounded(.down)
                                    ix = Int(fx0) - 1; iy = Int(fy0) - 1
                                    fx = Int((sx - fx0) * n); fy = Int((sy - fy0) * n)
                                    if ix < hMin { ix = hMin; fx = 0 } else if ix > hMax { ix = hMax; fx = 0 }
                                    if iy < vMin { iy = vMin; fy = 0 } else if iy > vMax { iy = vMax; fy = 0 }
                                }
                                var wi = (fy * subsamples + fx) * taps * taps
                                var si = iy * rowStride + ix * planes + p
                                var total: Float = 0
                                for _ in 0..<taps {
                                    for j in 0..<taps {
                                        total += wt[wi + j] * s[si + j * planes]
                                    }
                                    wi += taps
                                    si += rowStride
                                }
                                d[(y * width + x) * planes + p] = total > 0 ? min(total, 1) : 0
                            }
                        }
                    }
                }
            }
        }
        return dst
    }
}

extension PlaneWarp {
    /// True when this plane's warp maps every pixel to itself (radial ratio exactly 1, no
    /// tangential part), as the SDK's IsNOP decides it. A fisheye never is.
    var isIdentity: Bool {
        switch self {
        case let .rectilinear(kr, kt0, kt1):
            return kr.0 == 1 && kr.1 == 0 && kr.2 == 0 && kr.3 == 0 && kt0 == 0 && kt1 == 0
        case let .rectilinear2(kr, kt0, kt1, _, _, _):
            return kr.first == 1 && kr.dropFirst().allSatisfy { $0 == 0 } && kt0 == 0 && kt1 == 0
        case .fisheye:
            return false
        }
    }

    /// The radial ratio for a normalised offset when this plane's warp has no tangential part
    /// (fisheye, or both tangential coefficients 0); nil otherwise.
    @inline(__always)
    func radialOnlyRatio(dx: Double, dy: Double) -> Double? {
        switch self {
        case let .rectilinear(kr, kt0, kt1):
            if kt0 != 0 || kt1 != 0 { return nil }
            let r2 = min(dx * dx + dy * dy, 1)
            return kr.0 + r2 * (kr.1 + r2 * (kr.2 + r2 * kr.3))
        case let .rectilinear2(kr, kt0, kt1, minR2, maxR2, reciprocal):
            if kt0 != 0 || kt1 != 0 { return nil }
            let r2 = min(dx * dx + dy * dy, 1)
            let r = min(max(r2, minR2), maxR2).squareRoot()
            var poly = kr[kr.count - 1]
            var i = kr.count - 2
            while i >= 0 { poly = poly * r + kr[i]; i -= 1 }
            return reciprocal ? 1 / poly : poly
        case let .fisheye(kr):
            let r2 = min(dx * dx + dy * dy, 1)
            if r2 < 1e-12 { return 1 }
            let r = r2.squareRoot()
            let t = atan(r), t2 = t * t
            return t * (kr.0 + t2 * (kr.1 + t2 * (kr.2 + t2 * kr.3))) / r
        }
    }
}
