// Pointwise opcodes (DNG 1.7 §7): GainMap, MapTable, MapPolynomial, Delta/Scale PerRow/Column,
// FixVignetteRadial. Each output sample depends only on its own value and its absolute image
// position, computed directly (never incrementally), so any tiling gives bit-identical results.
//
// Input/output: Float samples, 0 = black, 1 = white (MapTable treats 1 as 16-bit code 65535).
// Positions: integer pixel indices of the image the list applies to; GainMap samples pixel
// centres, (row + 0.5) / height, as the DNG SDK's gain map interpolator does.

extension OpcodeList {
    /// Applies a pointwise list to one region of an image whose samples are Float, normalised so
    /// 0 = black, 1 = white. `region` is where the buffer sits in image coordinates (it must lie
    /// inside the image); `rowStride` is the distance in Floats between buffer rows; `planes` is 1
    /// (CFA mosaic) or 3 (interleaved RGB). Non-pointwise and skipped opcodes are ignored, as are
    /// opcodes that do not fit the image — call `validate(imageWidth:imageHeight:planes:)` first
    /// to turn those into errors. Results are not clamped.
    public func applyPointwise(to buffer: UnsafeMutablePointer<Float>, rowStride: Int, region: PixelRect,
                               planes: Int, imageWidth: Int, imageHeight: Int) {
        guard planes >= 1, imageWidth > 0, imageHeight > 0, !region.isEmpty,
              rowStride >= region.width * planes else { return }
        let image = PixelTile(buffer: buffer, rowStride: rowStride, region: region, planes: planes,
                              imageWidth: imageWidth, imageHeight: imageHeight)
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
        let values = p.values
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
    /// last → last point.
    @inline(__always)
    static func mapIndex(_ relative: Double, origin: Double, spacing: Double, points: Int) -> (Int, Int, Float) {
        let f = (relative - origin) / spacing
        if !(f > 0) { return (0, 0, 0) }
        if f >= Double(points - 1) { return (points - 1, points - 1, 0) }
        let i = Int(f)
        return (i, i + 1, Float(f - Double(i)))
    }

    private func gainMap(_ p: DNGOpcode.GainMap) {
        let pv = Int(p.mapPointsV), ph = Int(p.mapPointsH), mapPlanes = Int(p.mapPlanes)
        let h = Double(imageHeight), w = Double(imageWidth)
        p.gains.withUnsafeBufferPointer { g in
            forEachRow(p.area) { y, x0, xEnd, step, p0, p1 in
                let r = row(y)
                let (r1, r2, rf) = Self.mapIndex((Double(y) + 0.5) / h, origin: p.mapOriginV, spacing: p.mapSpacingV, points: pv)
                var x = x0
                while x < xEnd {
                    let (c1, c2, cf) = Self.mapIndex((Double(x) + 0.5) / w, origin: p.mapOriginH, spacing: p.mapSpacingH, points: ph)
                    for pl in p0..<p1 {
                        let mp = min(pl, mapPlanes - 1)
                        let g11 = g[(r1 * ph + c1) * mapPlanes + mp], g12 = g[(r1 * ph + c2) * mapPlanes + mp]
                        let g21 = g[(r2 * ph + c1) * mapPlanes + mp], g22 = g[(r2 * ph + c2) * mapPlanes + mp]
                        let upper = g11 + (g12 - g11) * cf
                        let lower = g21 + (g22 - g21) * cf
                        let gain = upper + (lower - upper) * rf
                        let i = x * planes + pl
                        r[i] *= gain
                    }
                    x += step
                }
            }
        }
    }

    /// FixVignetteRadial: gain 1 + k0 r² + k1 r⁴ + k2 r⁶ + k3 r⁸ + k4 r¹⁰ with r the distance from
    /// the optical centre (cx·width, cy·height) over the largest centre-to-corner distance.
    private func vignette(_ p: DNGOpcode.FixVignetteRadial) {
        let g = RadialGeometry(cx: p.cx, cy: p.cy, width: imageWidth, height: imageHeight)
        let k = p.k
        let y0 = max(region.y, 0), yEnd = min(region.maxY, imageHeight)
        let x0 = max(region.x, 0), xEnd = min(region.maxX, imageWidth)
        if y0 >= yEnd || x0 >= xEnd { return }
        for y in y0..<yEnd {
            let r = row(y)
            let dy = (Double(y) - g.centreY) * g.inverseRadius
            for x in x0..<xEnd {
                let dx = (Double(x) - g.centreX) * g.inverseRadius
                let r2 = dx * dx + dy * dy
                let gain = Float(1 + r2 * (k[0] + r2 * (k[1] + r2 * (k[2] + r2 * (k[3] + r2 * k[4])))))
                for pl in 0..<planes { r[x * planes + pl] *= gain }
            }
        }
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
