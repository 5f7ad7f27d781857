import Foundation

// Pointwise opcodes (DNG 1.7 §7): GainMap, MapTable, MapPolynomial, Delta/Scale PerRow/Column,
// FixVignetteRadial. Each output sample depends only on its own value and its absolute image
// position, computed directly (never incrementally), so any tiling gives bit-identical results.
//
// Input/output: Float samples, 0 = black, 1 = white (MapTable treats 1 as 16-bit code 65535).
// Positions: integer pixel indices of the image the list applies to; GainMap and
// FixVignetteRadial sample pixel centres, (row + 0.5) / height, as the DNG SDK 1.7.1 does.
//
// Units, as the DNG SDK 1.7.1 (dng_misc_opcodes.cpp) defines them for an integer stage image:
// DeltaPerRow/DeltaPerColumn values are in codes of the stage image's data type, so they are
// multiplied by 1 / `pixelRange` (65535 for every integer DNG, whose stage images are 16-bit;
// 1 for a floating-point stage image); ScalePer*, MapPolynomial (on 0…1) and GainMap are unitless.

extension OpcodeList {
    /// Applies a pointwise list to one region of an image whose samples are Float, normalised so
    /// 0 = black, 1 = white. `region` is where the buffer sits in image coordinates (it must lie
    /// inside the image); `rowStride` is the distance in Floats between buffer rows; `planes` is 1
    /// (CFA mosaic) or 3 (interleaved RGB). Non-pointwise and skipped opcodes are ignored, as are
    /// opcodes that do not fit the image — call `validate(imageWidth:imageHeight:planes:)` first
    /// to turn those into errors. Results are not clamped.
    /// `pixelRange` is the code range of the stage image the values stand for (`OpcodeList.integerPixelRange`
    /// for integer DNGs, 1 for floating-point ones); Delta values are divided by it.
    public func applyPointwise(to buffer: UnsafeMutablePointer<Float>, rowStride: Int, region: PixelRect,
                               planes: Int, imageWidth: Int, imageHeight: Int,
                               pixelRange: Float = OpcodeList.integerPixelRange) {
        guard planes >= 1, imageWidth > 0, imageHeight > 0, !region.isEmpty,
              rowStride >= region.width * planes else { return }
        let image = PixelTile(buffer: buffer, rowStride: rowStride, region: region, planes: planes,
                              imageWidth: imageWidth, imageHeight: imageHeight, pixelRange: pixelRange)
        for op in opcodes { image.apply(op) }
    }
}

/// A region of a Float image as the pointwise kernels see it.
struct PixelTile {
    let buffer: UnsafeMutablePointer<Float>
    let rowStride: Int
    let region: PixelRect
    let planes: Int
    let imageWidth: Int
    let imageHeight: Int
    /// Code range of the stage image (65535 for 16-bit): Delta values are divided by it.
    var pixelRange: Float = OpcodeList.integerPixelRange

    /// Pointer to sample (x, y, plane 0) in image coordinates.
    @inline(__always)
    func row(_ y: Int) -> UnsafeMutablePointer<Float> { buffer + (y - region.y) * rowStride - region.x * planes }

    func apply(_ op: DNGOpcode) {
        switch op {
        case let .mapTable(p): mapTable(p)
        case let .mapPolynomial(p): mapPolynomial(p)
        case let .gainMap(p): gainMap(p)
        case let .deltaPerRow(p): perLine(p, perRow: true, scale: false)
        case let .deltaPerColumn(p): perLine(p, perRow: false, scale: false)
        case let .scalePerRow(p): perLine(p, perRow: true, scale: true)
        case let .scalePerColumn(p): perLine(p, perRow: false, scale: true)
        case let .fixVignetteRadial(p): vignette(p)
        default: break
        }
    }

    /// Calls `body(y, x0, xEnd, xStep, firstPlane, endPlane)` for each selected row of `area`
    /// inside this tile; columns x0, x0+xStep, … < xEnd are the selected ones.
    @inline(__always)
    private func forEachRow(_ area: OpcodeArea, _ body: (Int, Int, Int, Int, Int, Int) -> Void) {
        let a = ResolvedArea(area, width: imageWidth, height: imageHeight, imagePlanes: planes)
        if a.isEmpty { return }
        let y0 = ResolvedArea.aligned(max(a.top, region.y), origin: a.originY, pitch: a.rowPitch)
        let yEnd = min(a.bottom, region.maxY)
        let x0 = ResolvedArea.aligned(max(a.left, region.x), origin: a.originX, pitch: a.colPitch)
        let xEnd = min(a.right, region.maxX)
        if x0 >= xEnd { return }
        var y = y0
        while y < yEnd {
            body(y, x0, xEnd, a.colPitch, a.firstPlane, a.endPlane)
            y += a.rowPitch
        }
    }

    private func mapTable(_ p: DNGOpcode.MapTable) {
        let last = p.table.count - 1
        p.table.withUnsafeBufferPointer { t in
            forEachRow(p.area) { y, x0, xEnd, step, p0, p1 in
                let r = row(y)
                var x = x0
                while x < xEnd {
                    for c in p0..<p1 {
                        let i = x * planes + c
                        r[i] = Float(t[min(Int(quantized16(r[i])), last)]) / 65535
                    }
                    x += step
                }
            }
        }
    }

    private func mapPolynomial(_ p: DNGOpcode.MapPolynomial) {
        let c = p.coefficients.map { Float($0) }
        let degree = c.count - 1
        forEachRow(p.area) { y, x0, xEnd, step, p0, p1 in
            let r = row(y)
            var x = x0
            while x < xEnd {
                for pl in p0..<p1 {
                    let i = x * planes + pl
                    let v = r[i]
                    var s = c[degree]
                    var k = degree - 1
                    while k >= 0 { s = s * v + c[k]; k -= 1 }
                    r[i] = s
                }
                x += step
            }
        }
    }

    private func perLine(_ p: DNGOpcode.PerLineTable, perRow: Bool, scale: Bool) {
        let originY = p.area.isWholeImage ? 0 : Int(p.area.top)
        let originX = p.area.isWholeImage ? 0 : Int(p.area.left)
        let rowPitch = Int(p.area.rowPitch), colPitch = Int(p.area.colPitch)
        // Deltas are stage-image codes (SDK: `fScale = 1 / pixelRange`); scales are factors.
        let values = scale ? p.values : p.values.map { $0 / pixelRange }
        forEachRow(p.area) { y, x0, xEnd, step, p0, p1 in
            let r = row(y)
            let rowIndex = (y - originY) / rowPitch
            if perRow && rowIndex >= values.count { return }
            var x = x0
            while x < xEnd {
                let k = perRow ? rowIndex : (x - originX) / colPitch
                if k >= values.count { break }
                let v = values[k]
                for pl in p0..<p1 {
                    let i = x * planes + pl
                    r[i] = scale ? r[i] * v : r[i] + v
                }
                x += step
            }
        }
    }

    /// Map index and fraction for a relative coordinate, clamped at the map edges exactly as the
    /// DNG SDK's dng_gain_map_interpolator: before the first point → first point, at or past the
    /// last → last point. The fraction is kept in Double (the SDK's colIndexF − colIndex).
    @inline(__always)
    static func mapIndex(_ relative: Double, origin: Double, spacing: Double, points: Int) -> (Int, Int, Double) {
        let f = (relative - origin) / spacing
        if !(f > 0) { return (0, 0, 0) }
        if f >= Double(points - 1) { return (points - 1, points - 1, 0) }
        let i = Int(f)
        return (i, i + 1, f - Double(i))
    }

    /// GainMap in the DNG SDK 1.7.1's arithmetic (dng_gain_map.cpp): pixel centres at
    /// (1/height)·(row + 0.5) and (1/width)·(col + 0.5); the two map rows are blended first, in
    /// Float, then the two columns in Double. (The SDK then steps the column blend incrementally
    /// from each of its tiles' first column, which differs from this direct value by a Float
    /// rounding; `applyStage` follows the SDK with `SDKGainMapStepping`.)
    private func gainMap(_ p: DNGOpcode.GainMap) {
        let pv = Int(p.mapPointsV), ph = Int(p.mapPointsH), mapPlanes = Int(p.mapPlanes)
        let scaleV = 1.0 / Double(imageHeight), scaleH = 1.0 / Double(imageWidth)
        p.gains.withUnsafeBufferPointer { g in
            forEachRow(p.area) { y, x0, xEnd, step, p0, p1 in
                let r = row(y)
                let (r1, r2, rowFraction) = Self.mapIndex(scaleV * (Double(y) + 0.5), origin: p.mapOriginV, spacing: p.mapSpacingV, points: pv)
                let rf = Float(rowFraction)
                var x = x0
                while x < xEnd {
                    let (c1, c2, cf) = Self.mapIndex(scaleH * (Double(x) + 0.5), origin: p.mapOriginH, spacing: p.mapSpacingH, points: ph)
                    for pl in p0..<p1 {
                        let mp = min(pl, mapPlanes - 1)
                        let left = g[(r1 * ph + c1) * mapPlanes + mp] * (1 - rf) + g[(r2 * ph + c1) * mapPlanes + mp] * rf
                        let gain: Float
                        if c1 == c2 {
                            gain = left
                        } else {
                            let right = g[(r1 * ph + c2) * mapPlanes + mp] * (1 - rf) + g[(r2 * ph + c2) * mapPlanes + mp] * rf
                            gain = Float(Double(left) + (Double(right) - Double(left)) * cf)
                        }
                        r[x * planes + pl] *= gain
                    }
                    x += step
                }
            }
        }
    }

    /// FixVignetteRadial: every plane of every pixel is multiplied by the gain `VignetteGain` gives
    /// (the DNG SDK's fixed-point r² and 16-bit gain table, so results match it to the code).
    private func vignette(_ p: DNGOpcode.FixVignetteRadial) {
        let gain = VignetteGain(p, width: imageWidth, height: imageHeight)
        let y0 = max(region.y, 0), yEnd = min(region.maxY, imageHeight)
        let x0 = max(region.x, 0), xEnd = min(region.maxX, imageWidth)
        if y0 >= yEnd || x0 >= xEnd { return }
        gain.table.withUnsafeBufferPointer { table in
            for y in y0..<yEnd {
                let r = row(y)
                let rowTerm = gain.rowTerm(y)
                for x in x0..<xEnd {
                    let g = gain.gain(rowTerm: rowTerm, x: x, table: table)
                    for pl in 0..<planes { r[x * planes + pl] *= g }
                }
            }
        }
    }
}

/// The gain of FixVignetteRadial (DNG 1.7 §7), computed exactly as the DNG SDK 1.7.1 does
/// (dng_lens_correction.cpp, RefVignetteMask16): with the optical centre c = (cx·width, cy·height)
/// and R the largest distance from c to an image corner (corners at 0 and width/height), pixel
/// (x, y) sits at its centre, ((x + 0.5 − cx)/R, (y + 0.5 − cy)/R), in 32.32 fixed point rounded
/// to 16.16; r² (clamped to 1) indexes a 65537-entry table of
/// round(g(r²) · 2^bits) / 2^bits, g(r²) = 1 + k0 r² + k1 r⁴ + k2 r⁶ + k3 r⁸ + k4 r¹⁰ linearly
/// interpolated from 4097 samples, bits = 15 or fewer so that the largest gain fits 16 bits.
/// (Square pixels assumed: the SDK also scales rows by 1 / PixelAspectRatio.)
struct VignetteGain {
    let originH: Int64, originV: Int64, stepH: Int64, stepV: Int64
    let table: [UInt16]
    let norm: Float

    init(_ p: DNGOpcode.FixVignetteRadial, width: Int, height: Int) {
        let w = Double(width), h = Double(height)
        let cH = p.cx * w, cV = p.cy * h
        let radius = max(hypot(max(abs(cV), abs(cV - h)), max(abs(cH), abs(cH - w))), 1e-9)
        func fixed(_ v: Double) -> Int64 {
            let s = v * 4294967296
            guard s.isFinite, abs(s) < 9.0e18 else { return 0 }
            return s >= 0 ? Int64(s + 0.5) : -Int64(-s + 0.5)
        }
        stepH = fixed(1 / radius); stepV = stepH
        originH = fixed(-cH / radius) &+ (stepH >> 1)
        originV = fixed(-cV / radius) &+ (stepV >> 1)
        // dng_1d_table: 4096 intervals of g over r² in 0…1, interpolated in Float.
        let k = p.k
        let count = 4096
        var samples = [Float](repeating: 0, count: count + 2)
        for j in 0...count {
            let x = Double(j) * (1.0 / Double(count))
            var sum = 0.0
            for c in k.reversed() { sum = x * (c + sum) }
            samples[j] = Float(sum + 1)
        }
        samples[count + 1] = samples[count]
        func interpolate(_ x: Float) -> Float {
            let y = x * Float(count)
            let i = min(max(Int(y), 0), count)
            let f = y - Float(i)
            return samples[i] * (1 - f) + samples[i + 1] * f
        }
        let maxScale = Double(max(interpolate(0), interpolate(1)))
        var bits = 15
        while bits > 0 && Double(1 << bits) * maxScale > 65535 { bits -= 1 }
        let scale1 = Float(1 << bits)
        table = (0...65536).map { i in
            let y = interpolate(Float(i) * (1 / 65536)) * scale1
            return y > 0 ? UInt16(clamping: UInt32(min(y + 0.5, 4.0e9))) : 0
        }
        norm = 1 / Float(1 << bits)
    }

    /// The row's share of r² (in 2⁻³² units, rounding term included).
    @inline(__always)
    func rowTerm(_ y: Int) -> Int64 {
        let v = (originV &+ stepV &* Int64(y) &+ 32768) >> 16
        return v &* v &+ (1 << 15)
    }

    @inline(__always)
    func gain(rowTerm: Int64, x: Int, table: UnsafeBufferPointer<UInt16>) -> Float {
        let t = (originH &+ stepH &* Int64(x) &+ 32768) >> 16
        let delta = (rowTerm &+ t &* t) >> 16
        let index = delta < 0 ? 0 : Int(min(delta, 65536))
        return Float(table[index]) * norm
    }
}

/// The optical centre of a radial opcode in pixel coordinates and its normalising radius: the
/// largest distance from the centre to an image corner (DNG 1.7 §7, WarpRectilinear and
/// FixVignetteRadial). Corners are at 0 and width/height, as the DNG SDK measures them.
struct RadialGeometry {
    let centreX: Double, centreY: Double
    let radius: Double, inverseRadius: Double
    init(cx: Double, cy: Double, width: Int, height: Int) {
        centreX = cx * Double(width); centreY = cy * Double(height)
        let dx = max(centreX, Double(width) - centreX), dy = max(centreY, Double(height) - centreY)
        radius = max((dx * dx + dy * dy).squareRoot(), 1e-9)
        inverseRadius = 1 / radius
    }
}

/// A Float sample as a 16-bit code: round(v · 65535) clamped to 0…65535 (NaN → 0).
@inline(__always)
func quantized16(_ v: Float) -> UInt16 {
    let s = (v * 65535).rounded()
    if !(s > 0) { return 0 }
    return s >= 65535 ? 65535 : UInt16(s)
}
