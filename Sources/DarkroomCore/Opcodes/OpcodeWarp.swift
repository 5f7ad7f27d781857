import Foundation

// WarpRectilinear (id 1), WarpFisheye (id 2) and WarpRectilinear2 (id 14), DNG 1.7 §7.
//
// Each opcode maps a destination (corrected) pixel to the source (uncorrected) position it
// samples. With the optical centre c = (cx·width, cy·height) and R the largest distance from c
// to an image corner, a destination pixel at integer index (x, y) has normalised offsets
// dx = (x − cx)/R, dy = (y − cy)/R and r² = min(dx² + dy², 1). Then
//   WarpRectilinear:  ratio = kr0 + kr1 r² + kr2 r⁴ + kr3 r⁶
//   WarpRectilinear2: r² clamped to the valid radius range, ratio = Σ kri rⁱ (i = 0…14), or its
//                     reciprocal when ReciprocalRadial ≠ 0
//   WarpFisheye:      θ = atan r, ratio = (kr0 θ + kr1 θ³ + kr2 θ⁵ + kr3 θ⁷) / r (1 at r = 0)
// and, for the rectilinear models, the tangential terms
//   tx = kt1 (r² + 2dx²) + 2 kt0 dx dy,   ty = kt0 (r² + 2dy²) + 2 kt1 dx dy,
// so the source is (cx + R (dx·ratio + tx), cy + R (dy·ratio + ty)).
//
// Resampling follows the DNG SDK 1.7.1's dng_filter_warp (see `WarpBicubic`): a 4×4 separable
// bicubic (A = −0.75) whose weights are tabulated at 1/32-pixel steps, source positions clamped to
// the image, the tap window clipped to the SDK's source area (which never reads the last row and
// column), results pinned to 0…1. A CFA mosaic (a warp before demosaicing, which the SDK does not
// do) and images under 5 pixels on a side (which the SDK refuses) are resampled bilinearly instead,
// a mosaic on the lattice of the destination pixel's own Bayer phase so colours never mix.

/// One plane's warp function, resolved from an opcode.
enum PlaneWarp {
    case rectilinear(kr: (Double, Double, Double, Double), kt0: Double, kt1: Double)
    case rectilinear2(kr: [Double], kt0: Double, kt1: Double, minR2: Double, maxR2: Double, reciprocal: Bool)
    case fisheye(kr: (Double, Double, Double, Double))

    /// Source offset (normalised) for a destination offset (dx, dy).
    @inline(__always)
    func source(dx: Double, dy: Double) -> (Double, Double) {
        let r2 = min(dx * dx + dy * dy, 1)
        switch self {
        case let .rectilinear(kr, kt0, kt1):
            let ratio = kr.0 + r2 * (kr.1 + r2 * (kr.2 + r2 * kr.3))
            return Self.tangential(dx, dy, r2, ratio, kt0, kt1)
        case let .rectilinear2(kr, kt0, kt1, minR2, maxR2, reciprocal):
            let rc2 = min(max(r2, minR2), maxR2)
            let r = rc2.squareRoot()
            var poly = kr[kr.count - 1]
            var i = kr.count - 2
            while i >= 0 { poly = poly * r + kr[i]; i -= 1 }
            let ratio = reciprocal ? 1 / poly : poly
            return Self.tangential(dx, dy, r2, ratio, kt0, kt1)
        case let .fisheye(kr):
            if r2 < 1e-12 { return (dx, dy) }
            let r = r2.squareRoot()
            let t = atan(r), t2 = t * t
            let ratio = t * (kr.0 + t2 * (kr.1 + t2 * (kr.2 + t2 * kr.3))) / r
            return (dx * ratio, dy * ratio)
        }
    }

    @inline(__always)
    private static func tangential(_ dx: Double, _ dy: Double, _ r2: Double, _ ratio: Double,
                                   _ kt0: Double, _ kt1: Double) -> (Double, Double) {
        let tx = kt1 * (r2 + 2 * dx * dx) + 2 * kt0 * dx * dy
        let ty = kt0 * (r2 + 2 * dy * dy) + 2 * kt1 * dx * dy
        return (dx * ratio + tx, dy * ratio + ty)
    }

    /// The per-plane functions of a warp opcode (nil for other opcodes).
    static func planes(of op: DNGOpcode) -> (warps: [PlaneWarp], cx: Double, cy: Double)? {
        switch op {
        case let .warpRectilinear(p):
            return (p.planes.map { .rectilinear(kr: ($0.kr[0], $0.kr[1], $0.kr[2], $0.kr[3]), kt0: $0.kt[0], kt1: $0.kt[1]) }, p.cx, p.cy)
        case let .warpRectilinear2(p):
            return (p.planes.map {
                .rectilinear2(kr: $0.kr, kt0: $0.kt[0], kt1: $0.kt[1], minR2: $0.minValidRadius * $0.minValidRadius,
                              maxR2: $0.maxValidRadius * $0.maxValidRadius, reciprocal: p.reciprocalRadial != 0)
            }, p.cx, p.cy)
        case let .warpFisheye(p):
            return (p.planes.map { .fisheye(kr: ($0[0], $0[1], $0[2], $0[3])) }, p.cx, p.cy)
        default:
            return nil
        }
    }
}

/// Source position in pixels of destination pixel (x, y) for one plane's warp.
@inline(__always)
func warpSourcePosition(_ warp: PlaneWarp, _ g: RadialGeometry, x: Int, y: Int) -> (Double, Double) {
    let (sx, sy) = warp.source(dx: (Double(x) - g.centreX) * g.inverseRadius, dy: (Double(y) - g.centreY) * g.inverseRadius)
    return (g.centreX + g.radius * sx, g.centreY + g.radius * sy)
}

/// Warps a whole Float image (interleaved planes, 0 = black, 1 = white). `mosaic` resamples each
/// Bayer phase on its own lattice (bilinear); otherwise the DNG SDK's bicubic resampling is used.
func warpImage(_ src: [Float], width: Int, height: Int, planes: Int, warps: [PlaneWarp],
               cx: Double, cy: Double, mosaic: Bool) -> [Float] {
    // The SDK skips a warp that moves nothing (its IsNOP); resampling would shift the edges.
    if warps.allSatisfy(\.isIdentity) { return src }
    if !mosaic && width >= WarpBicubic.taps + 1 && height >= WarpBicubic.taps + 1 {
        return WarpBicubic.warp(src, width: width, height: height, planes: planes, warps: warps, cx: cx, cy: cy)
    }
    return warpBilinear(src, width: width, height: height, planes: planes, warps: warps, cx: cx, cy: cy, mosaic: mosaic)
}

/// Bilinear warp (mosaics and tiny images): source positions clamped to the image (or the phase lattice).
func warpBilinear(_ src: [Float], width: Int, height: Int, planes: Int, warps: [PlaneWarp],
                  cx: Double, cy: Double, mosaic: Bool) -> [Float] {
    let g = RadialGeometry(cx: cx, cy: cy, width: width, height: height)
    var dst = [Float](repeating: 0, count: src.count)
    let step = mosaic ? 2 : 1
    src.withUnsafeBufferPointer { s in
        dst.withUnsafeMutableBufferPointer { d in
            for y in 0..<height {
                for x in 0..<width {
                    // Lattice of this pixel: origin (ox, oy), spacing `step`, last index (maxU, maxV).
                    let ox = mosaic ? x & 1 : 0, oy = mosaic ? y & 1 : 0
                    let maxU = (width - 1 - ox) / step, maxV = (height - 1 - oy) / step
                    for p in 0..<planes {
                        let (sx, sy) = warpSourcePosition(warps[warps.count == 1 ? 0 : p], g, x: x, y: y)
                        let (u0, u1, fu) = latticeIndex((sx - Double(ox)) / Double(step), max: maxU)
                        let (v0, v1, fv) = latticeIndex((sy - Double(oy)) / Double(step), max: maxV)
                        let row0 = (oy + v0 * step) * width, row1 = (oy + v1 * step) * width
                        let col0 = ox + u0 * step, col1 = ox + u1 * step
                        let a = s[(row0 + col0) * planes + p], b = s[(row0 + col1) * planes + p]
                        let c = s[(row1 + col0) * planes + p], e = s[(row1 + col1) * planes + p]
                        let top = a + (b - a) * fu, bottom = c + (e - c) * fu
                        d[(y * width + x) * planes + p] = top + (bottom - top) * fv
                    }
                }
            }
        }
    }
    return dst
}

/// Integer neighbours and fraction of a lattice coordinate clamped to 0…max (NaN → 0).
@inline(__always)
func latticeIndex(_ u: Double, max maxIndex: Int) -> (Int, Int, Float) {
    if !(u > 0) { return (0, min(1, maxIndex), 0) }
    if u >= Double(maxIndex) { return (maxIndex, maxIndex, 0) }
    let i = Int(u)
    return (i, i + 1, Float(u - Double(i)))
}
