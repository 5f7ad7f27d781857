import Dispatch
import Foundation
import Synchronization

/// Runs a `LensCorrection` on demosaiced camera RGB: per output tile from the planes of just the
/// source area it reads (`TileRenderer.renderLensTile`: `tilePositions`, `sourceArea`,
/// `correctVignetting(planes:)`, `resamplePlanar`), or from a staged whole image when a
/// whole-image OpcodeList3 needs one anyway (`correctVignetting`, `resample`).
///
/// - Vignetting: a gain on linear, white-balanced camera RGB after the demosaic (and noise
///   reduction and sharpening), in the uncorrected geometry, before the resample (the lens
///   darkened the scene where it was projected, so the gain belongs to the source positions).
/// - Distortion and TCA: one resample per output tile. The lens model gives each corrected
///   pixel's source position per channel; each channel is then read there with the DNG warp
///   opcodes' bicubic kernel (`WarpBicubic`: Keys A = −0.75, 4×4 taps, weights tabulated at
///   1/32 pixel), taps outside the image clamped to its edge, results kept ≥ 0.
///
/// Both ask the model for fixed blocks of `block` columns starting at multiples of `block`, so
/// every pixel's numbers are computed the same way whatever the tile size, source area or
/// thread count.
public enum LensResampler {
    /// Columns per call into the lens model (the fixed blocks that keep output tile-independent).
    public static let block = 64

    /// Applies the vignetting gain to a whole `width × height` interleaved RGB image, rows spread
    /// over `threads` workers (0: one per core).
    public static func correctVignetting(_ image: UnsafeMutablePointer<Float>, width: Int, height: Int,
                                         modifier: any LensModifier, threads: Int) {
        let workers = max(1, min(threads > 0 ? threads : ProcessInfo.processInfo.activeProcessorCount, height))
        let next = Atomic<Int>(0)
        let shared = SharedImage(base: image)
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while true {
                let y = next.wrappingAdd(1, ordering: .relaxed).oldValue
                if y >= height { break }
                let row = shared.base + y * width * 3
                var x0 = 0
                while x0 < width {
                    let n = min(block, width - x0)
                    modifier.correctVignetting(row + x0 * 3, x0: x0, y: y, count: n)
                    x0 += n
                }
            }
        }
    }

    /// Writes the corrected RGB of `tile` (interleaved, `tile.width * 3` floats per row) into
    /// `rgb`, reading `source` (the whole uncorrected `width × height` interleaved RGB image).
    public static func resample(_ source: UnsafePointer<Float>, width: Int, height: Int, modifier: any LensModifier,
                                tile: PixelRect, into rgb: UnsafeMutablePointer<Float>) {
        let bx0 = (tile.x / block) * block
        let bx1 = min(((tile.maxX + block - 1) / block) * block, width)
        let span = bx1 - bx0
        withUnsafeTemporaryAllocation(of: Float.self, capacity: span * 6) { buffer in
            let positions = buffer.baseAddress!
            WarpBicubic.weights.withUnsafeBufferPointer { table in
                let wt = table.baseAddress!
                for ty in 0..<tile.height {
                    sourcePositions(modifier, columns: bx0..<bx1, y: tile.y + ty, into: positions)
                    let out = rgb + ty * tile.width * 3
                    for tx in 0..<tile.width {
                        let p = positions + (tile.x + tx - bx0) * 6
                        if !sampleRGB(source, width: width, height: height, positions: p, weights: wt, into: out + tx * 3) {
                            for c in 0..<3 {
                                out[tx * 3 + c] = sample(source, width: width, height: height, x: p[2 * c], y: p[2 * c + 1],
                                                         channel: c, weights: wt)
                            }
                        }
                    }
                }
            }
        }
    }

    /// The first column of the fixed blocks that cover `tile` and the number of floats a row of
    /// its positions takes (6 per pixel, from that column to the end of the last block).
    public static func positionLayout(of tile: PixelRect, width: Int) -> (firstColumn: Int, rowStride: Int) {
        let bx0 = (tile.x / block) * block
        let bx1 = min(((tile.maxX + block - 1) / block) * block, width)
        return (bx0, (bx1 - bx0) * 6)
    }

    /// Source positions of every pixel of `tile`, row by row (`positionLayout`: row `ty` starts at
    /// `positions + ty * rowStride` with the pixel at `firstColumn`), asked block by block as the
    /// resample of a whole image asks them.
    public static func tilePositions(_ modifier: any LensModifier, tile: PixelRect, width: Int,
                                     into positions: UnsafeMutablePointer<Float>) {
        let (bx0, rowStride) = positionLayout(of: tile, width: width)
        for ty in 0..<tile.height {
            sourcePositions(modifier, columns: bx0..<(bx0 + rowStride / 6), y: tile.y + ty, into: positions + ty * rowStride)
        }
    }

    /// The part of the `width × height` image that the bicubic reads at `positions` touch (a
    /// `tileWidth × tileHeight` block of pixels, `rowStride` floats from one row's first pixel to
    /// the next): each position clamped to the image as `sample` clamps it (NaN → 0), then its
    /// 4×4 taps, clamped too. `resamplePlanar` reads nothing outside it.
    public static func sourceArea(positions: UnsafePointer<Float>, rowStride: Int, tileWidth: Int, tileHeight: Int,
                                  width: Int, height: Int) -> PixelRect {
        // The clamp is monotone, so the clamped bounds are the clamped raw bounds: min and max
        // eight floats (four x, y pairs) at a time, NaN skipped by the comparisons and caught by the
        // sum (then the area starts at 0, where `sample` reads a NaN position).
        typealias V = SIMD8<Float>
        var lo = V(repeating: .infinity), hi = V(repeating: -.infinity), sum = V()
        let count = tileWidth * 6
        for ty in 0..<tileHeight {
            let row = UnsafeRawPointer(positions + ty * rowStride)
            var k = 0
            while k + 8 <= count {
                let v = (row + k * 4).loadUnaligned(as: V.self)
                lo = lo.replacing(with: v, where: v .< lo)
                hi = hi.replacing(with: v, where: v .> hi)
                sum += v
                k += 8
            }
            // The rest (fewer than four pairs) a pair at a time, into lanes 0 and 1.
            while k < count {
                let pair = positions + ty * rowStride + k
                let v = V(pair[0], pair[1], .nan, .nan, .nan, .nan, .nan, .nan)
                lo = lo.replacing(with: v, where: v .< lo)
                hi = hi.replacing(with: v, where: v .> hi)
                sum += V(v[0], v[1], 0, 0, 0, 0, 0, 0)
                k += 2
            }
        }
        let finite = (sum.sum()).isFinite
        return tapArea(loX: finite ? min(min(lo[0], lo[2]), min(lo[4], lo[6])) : 0,
                       loY: finite ? min(min(lo[1], lo[3]), min(lo[5], lo[7])) : 0,
                       hiX: max(max(hi[0], hi[2]), max(hi[4], hi[6])), hiY: max(max(hi[1], hi[3]), max(hi[5], hi[7])),
                       width: width, height: height)
    }

    /// The part of the `width × height` image that bicubic reads at positions within `bounds`
    /// touch (as `sourceArea(positions:…)` finds it for the positions themselves; a superset of
    /// that when the bounds are wider than the positions).
    public static func sourceArea(bounds: SourceBounds, width: Int, height: Int) -> PixelRect {
        tapArea(loX: bounds.minX, loY: bounds.minY, hiX: bounds.maxX, hiY: bounds.maxY, width: width, height: height)
    }

    /// The taps' rectangle for positions from (loX, loY) to (hiX, hiY): each clamped to the image
    /// as `sample` clamps it, then one pixel up and left, two down and right, within the image.
    static func tapArea(loX: Float, loY: Float, hiX: Float, hiY: Float, width: Int, height: Int) -> PixelRect {
        func clamp(_ v: Float, _ last: Int) -> Float { v > 0 ? min(v, Float(last)) : 0 }
        let loX = clamp(loX, width - 1), loY = clamp(loY, height - 1)
        let hiX = clamp(hiX, width - 1), hiY = clamp(hiY, height - 1)
        let x0 = max(Int(loX.rounded(.down)) - 1, 0), y0 = max(Int(loY.rounded(.down)) - 1, 0)
        let x1 = min(Int(hiX.rounded(.down)) + 2, width - 1), y1 = min(Int(hiY.rounded(.down)) + 2, height - 1)
        return PixelRect(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1)
    }

    /// Applies the vignetting gain to three planes holding `area` of the uncorrected image (red,
    /// then green, then blue, `area.width` floats a row, `area.width × area.height` a plane; the
    /// image is `width` pixels wide). The gains are asked of the model in the fixed column blocks
    /// a whole image's rows are asked in, so every pixel gets the same gain whatever the area; or,
    /// when the modifier has a `radialVignetting` model, from that, eight pixels at a time.
    public static func correctVignetting(planes base: UnsafeMutablePointer<Float>, area: PixelRect, width: Int,
                                         modifier: any LensModifier) {
        let plane = area.width * area.height
        if let radial = modifier.radialVignetting {
            for y in area.y..<area.maxY {
                let row = base + (y - area.y) * area.width
                radial.apply(red: row, green: row + plane, blue: row + 2 * plane, x0: area.x, y: y, count: area.width)
            }
            return
        }
        withUnsafeTemporaryAllocation(of: Float.self, capacity: block) { buffer in
            let gains = buffer.baseAddress!
            for y in area.y..<area.maxY {
                let row = base + (y - area.y) * area.width - area.x
                var x0 = (area.x / block) * block
                while x0 < area.maxX {
                    let n = min(block, width - x0)
                    modifier.vignettingGains(x0: x0, y: y, count: n, into: gains)
                    let g = gains - x0
                    for c in 0..<3 {
                        let p = row + c * plane
                        for x in max(x0, area.x)..<min(x0 + n, area.maxX) { p[x] *= g[x] }
                    }
                    x0 += n
                }
            }
        }
    }

    /// The resample of one output tile from three planes holding `area` of the uncorrected
    /// `width × height` image (laid out as `correctVignetting(planes:)` takes them; `sourceArea`
    /// of the positions must lie inside it), at `positions` (`tileWidth × tileHeight` pixels,
    /// `rowStride` floats a row, 6 per pixel). Writes the three corrected planes `red`, `green`,
    /// `blue` (`outStride` floats a row). Each channel's 4×4 window is four contiguous SIMD4 rows
    /// of its own plane, so TCA's per-channel windows cost no more than coinciding ones; the
    /// window's taps and weights are those `sample` uses, so the values equal a whole image's.
    public static func resamplePlanar(_ source: UnsafePointer<Float>, area: PixelRect, width: Int, height: Int,
                                      positions: UnsafePointer<Float>, rowStride: Int, tileWidth: Int, tileHeight: Int,
                                      red: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>,
                                      blue: UnsafeMutablePointer<Float>, outStride: Int) {
        let plane = area.width * area.height
        WarpBicubic.weights.withUnsafeBufferPointer { table in
        separableWeights.withUnsafeBufferPointer { separableTable in
            let k = separableTable.baseAddress!
            for ty in 0..<tileHeight {
                let rowPositions = positions + ty * rowStride
                // One channel at a time along the row (few live values: no spills in the loop).
                resampleRow(source, area: area, width: width, height: height, positions: rowPositions, count: tileWidth,
                            into: red + ty * outStride, weights: table.baseAddress!, separable: k)
                resampleRow(source + plane, area: area, width: width, height: height, positions: rowPositions + 2, count: tileWidth,
                            into: green + ty * outStride, weights: table.baseAddress!, separable: k)
                resampleRow(source + 2 * plane, area: area, width: width, height: height, positions: rowPositions + 4,
                            count: tileWidth, into: blue + ty * outStride, weights: table.baseAddress!, separable: k)
            }
        }
        }
    }

    /// The Keys kernel (A = −0.75) at the four taps of each of `WarpBicubic.subsamples` fractions,
    /// the 1-D factors `WarpBicubic.weights` multiplies (they sum to 1 within a Float rounding, as
    /// its normalised products do). Entry f: 4 floats Float(kernel(j − 1 − f / 32)), j = 0…3 (the
    /// horizontal factors), then the same four each repeated 4 times (the vertical factors, one
    /// SIMD4 per window row); 20 floats.
    static let separableWeights: [Float] = {
        var table = [Float](repeating: 0, count: WarpBicubic.subsamples * 20)
        for f in 0..<WarpBicubic.subsamples {
            let fract = Double(f) * (1 / Double(WarpBicubic.subsamples))
            for j in 0..<4 {
                let k = Float(WarpBicubic.kernel(Double(j - 1) - fract))
                table[f * 20 + j] = k
                for l in 0..<4 { table[f * 20 + 4 + j * 4 + l] = k }
            }
        }
        return table
    }()

    /// `resamplePlanar` with the source positions asked of `modifier` one row at a time (block by
    /// block, as `tilePositions` asks them, so the same numbers) into a row-sized buffer instead of
    /// read from a stored tile's worth: for a `tile` whose `sourceArea(bounds:)` of the modifier's
    /// `sourceBounds` lies inside `area`.
    public static func resamplePlanar(_ source: UnsafePointer<Float>, area: PixelRect, width: Int, height: Int,
                                      modifier: any LensModifier, tile: PixelRect,
                                      red: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>,
                                      blue: UnsafeMutablePointer<Float>, outStride: Int) {
        let (bx0, rowStride) = positionLayout(of: tile, width: width)
        let plane = area.width * area.height
        withUnsafeTemporaryAllocation(of: Float.self, capacity: rowStride) { buffer in
            let row = buffer.baseAddress!
            let rowPositions = UnsafePointer(row + (tile.x - bx0) * 6)
            WarpBicubic.weights.withUnsafeBufferPointer { table in
            separableWeights.withUnsafeBufferPointer { separableTable in
                let k = separableTable.baseAddress!
                for ty in 0..<tile.height {
                    sourcePositions(modifier, columns: bx0..<(bx0 + rowStride / 6), y: tile.y + ty, into: row)
                    resampleRow(source, area: area, width: width, height: height, positions: rowPositions, count: tile.width,
                                into: red + ty * outStride, weights: table.baseAddress!, separable: k)
                    resampleRow(source + plane, area: area, width: width, height: height, positions: rowPositions + 2,
                                count: tile.width, into: green + ty * outStride, weights: table.baseAddress!, separable: k)
                    resampleRow(source + 2 * plane, area: area, width: width, height: height, positions: rowPositions + 4,
                                count: tile.width, into: blue + ty * outStride, weights: table.baseAddress!, separable: k)
                }
            }
            }
        }
    }

    /// One channel of `resamplePlanar` for `count` pixels: the channel's plane holding `area`, its
    /// (x, y) for pixel i at `positions + 6 i`. Inside the image the 4×4 window is weighted
    /// separably (each of its four rows by the vertical factor, then the sum by the horizontal
    /// ones, from `separableWeights`: 2.5 KiB instead of `WarpBicubic.weights`' 64 KiB, so the
    /// weights stay in L1); near the edges through `sample` (clamped taps, the 2-D table). Either
    /// way a pixel's value depends only on its position.
    @inline(never)
    static func resampleRow(_ channel: UnsafePointer<Float>, area: PixelRect, width: Int, height: Int,
                            positions: UnsafePointer<Float>, count: Int, into out: UnsafeMutablePointer<Float>,
                            weights: UnsafePointer<Float>, separable: UnsafePointer<Float>) {
        typealias V = SIMD4<Float>
        let n = Float(WarpBicubic.subsamples)
        let last = WarpBicubic.subsamples - 1
        let maxX = Float(width - 3), maxY = Float(height - 3)
        let shift = WarpBicubic.subsamples.trailingZeroBitCount
        let rowBytes = area.width * MemoryLayout<Float>.size
        let kt = UnsafeRawPointer(separable)
        // The window's top-left tap for the area's (0, 0) is at image (area.x + 1, area.y + 1) - 1.
        let origin = UnsafeRawPointer(channel - (area.y + 1) * area.width - (area.x + 1))
        /// Pixel i alone.
        @inline(__always)
        func single(_ i: Int) {
            let x = positions[6 * i], y = positions[6 * i + 1]
            if x >= 1, y >= 1, x < maxX, y < maxY {
                // x · 32 is exact and x ≥ 1, so its integer part is floor(x) · 32 plus the table's
                // fraction index: `sample`'s floor and index without rounding.
                let sx = Int(x * n), sy = Int(y * n)
                let kx = (kt + (sx & last) * 80).loadUnaligned(as: V.self)
                let ky = kt + (sy & last) * 80 + 16
                var row = origin + ((sy >> shift) * area.width + (sx >> shift)) * MemoryLayout<Float>.size
                var column = row.loadUnaligned(as: V.self) * ky.loadUnaligned(as: V.self)
                row += rowBytes
                column += row.loadUnaligned(as: V.self) * (ky + 16).loadUnaligned(as: V.self)
                row += rowBytes
                column += row.loadUnaligned(as: V.self) * (ky + 32).loadUnaligned(as: V.self)
                row += rowBytes
                column += row.loadUnaligned(as: V.self) * (ky + 48).loadUnaligned(as: V.self)
                let t = column * kx
                let s = (t[0] + t[1]) + (t[2] + t[3])
                out[i] = s > 0 ? s : 0
            } else {
                out[i] = sample(channel, width: width, height: height, x: x, y: y, channel: 0, pixelStride: 1,
                                origin: (area.x, area.y), rowPixels: area.width, weights: weights)
            }
        }
        // Two pixels at a time in the halves of SIMD8 registers when both are inside (each half the
        // arithmetic of `single`, so the same bits whichever pixels pair up).
        typealias W = SIMD8<Float>
        var i = 0
        while i + 1 < count {
            let xa = positions[6 * i], ya = positions[6 * i + 1], xb = positions[6 * i + 6], yb = positions[6 * i + 7]
            guard xa >= 1, ya >= 1, xa < maxX, ya < maxY, xb >= 1, yb >= 1, xb < maxX, yb < maxY else {
                single(i)
                i += 1
                continue
            }
            let sxa = Int(xa * n), sya = Int(ya * n), sxb = Int(xb * n), syb = Int(yb * n)
            let kx = W(lowHalf: (kt + (sxa & last) * 80).loadUnaligned(as: V.self),
                       highHalf: (kt + (sxb & last) * 80).loadUnaligned(as: V.self))
            let kya = kt + (sya & last) * 80 + 16, kyb = kt + (syb & last) * 80 + 16
            var a = origin + ((sya >> shift) * area.width + (sxa >> shift)) * MemoryLayout<Float>.size
            var b = origin + ((syb >> shift) * area.width + (sxb >> shift)) * MemoryLayout<Float>.size
            var column = W(lowHalf: a.loadUnaligned(as: V.self), highHalf: b.loadUnaligned(as: V.self))
                * W(lowHalf: kya.loadUnaligned(as: V.self), highHalf: kyb.loadUnaligned(as: V.self))
            a += rowBytes; b += rowBytes
            column += W(lowHalf: a.loadUnaligned(as: V.self), highHalf: b.loadUnaligned(as: V.self))
                * W(lowHalf: (kya + 16).loadUnaligned(as: V.self), highHalf: (kyb + 16).loadUnaligned(as: V.self))
            a += rowBytes; b += rowBytes
            column += W(lowHalf: a.loadUnaligned(as: V.self), highHalf: b.loadUnaligned(as: V.self))
                * W(lowHalf: (kya + 32).loadUnaligned(as: V.self), highHalf: (kyb + 32).loadUnaligned(as: V.self))
            a += rowBytes; b += rowBytes
            column += W(lowHalf: a.loadUnaligned(as: V.self), highHalf: b.loadUnaligned(as: V.self))
                * W(lowHalf: (kya + 48).loadUnaligned(as: V.self), highHalf: (kyb + 48).loadUnaligned(as: V.self))
            let t = column * kx
            let sa = (t[0] + t[1]) + (t[2] + t[3]), sb = (t[4] + t[5]) + (t[6] + t[7])
            out[i] = sa > 0 ? sa : 0
            out[i + 1] = sb > 0 ? sb : 0
            i += 2
        }
        if i < count { single(i) }
    }

    /// The model's source positions for `columns` of row `y` (starting at a block boundary), asked
    /// block by block so every pixel's numbers come from the same call whatever the tile.
    @inline(__always)
    static func sourcePositions(_ modifier: any LensModifier, columns: Range<Int>, y: Int, into positions: UnsafeMutablePointer<Float>) {
        var x0 = columns.lowerBound
        while x0 < columns.upperBound {
            let n = min(block, columns.upperBound - x0)
            modifier.sourcePositions(x0: x0, y: y, count: n, into: positions + (x0 - columns.lowerBound) * 6)
            x0 += n
        }
    }

    /// All three channels at once when their 4×4 windows coincide and lie inside the image (the
    /// common case: TCA moves red and blue by a fraction of a pixel): each window row is three
    /// SIMD4 loads of interleaved RGB, weighted per channel. Returns false (nothing written)
    /// otherwise. The same sums as `sample` in another order; which path a pixel takes depends
    /// only on its source positions.
    @inline(__always)
    static func sampleRGB(_ s: UnsafePointer<Float>, width: Int, height: Int, positions p: UnsafePointer<Float>,
                          weights: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>) -> Bool {
        let n = Float(WarpBicubic.subsamples)
        // Window origin and weight table entry per channel (positions inside the image only).
        var ix = 0, iy = 0
        var table: (Int, Int, Int) = (0, 0, 0)
        for c in 0..<3 {
            let x = p[2 * c], y = p[2 * c + 1]
            guard x >= 1, y >= 1, x < Float(width - 3), y < Float(height - 3) else { return false }
            let fx0 = x.rounded(.down), fy0 = y.rounded(.down)
            let cx = Int(fx0) - 1, cy = Int(fy0) - 1
            if c == 0 { ix = cx; iy = cy } else if cx != ix || cy != iy { return false }
            let fx = min(Int((x - fx0) * n), WarpBicubic.subsamples - 1)
            let fy = min(Int((y - fy0) * n), WarpBicubic.subsamples - 1)
            let t = (fy * WarpBicubic.subsamples + fx) * 16
            if c == 0 { table.0 = t } else if c == 1 { table.1 = t } else { table.2 = t }
        }
        let wr = UnsafeRawPointer(weights + table.0), wg = UnsafeRawPointer(weights + table.1), wb = UnsafeRawPointer(weights + table.2)
        var a0 = SIMD4<Float>(), a1 = SIMD4<Float>(), a2 = SIMD4<Float>()
        var row = UnsafeRawPointer(s + (iy * width + ix) * 3)
        let rowBytes = width * 3 * MemoryLayout<Float>.size
        for i in 0..<4 {
            let o = i * 16
            let r = (wr + o).loadUnaligned(as: SIMD4<Float>.self)
            let g = (wg + o).loadUnaligned(as: SIMD4<Float>.self)
            let b = (wb + o).loadUnaligned(as: SIMD4<Float>.self)
            // Pixels j = 0…3 of the row as R0 G0 B0 R1 | G1 B1 R2 G2 | B2 R3 G3 B3.
            let v0 = row.loadUnaligned(as: SIMD4<Float>.self)
            let v1 = (row + 16).loadUnaligned(as: SIMD4<Float>.self)
            let v2 = (row + 32).loadUnaligned(as: SIMD4<Float>.self)
            a0 += v0 * SIMD4(r[0], g[0], b[0], r[1])
            a1 += v1 * SIMD4(g[1], b[1], r[2], g[2])
            a2 += v2 * SIMD4(b[2], r[3], g[3], b[3])
            row += rowBytes
        }
        let red = (a0[0] + a0[3]) + (a1[2] + a2[1])
        let green = (a0[1] + a1[0]) + (a1[3] + a2[2])
        let blue = (a0[2] + a1[1]) + (a2[0] + a2[3])
        out[0] = red > 0 ? red : 0
        out[1] = green > 0 ? green : 0
        out[2] = blue > 0 ? blue : 0
        return true
    }

    /// One channel at (x, y) of a `width × height` image by `WarpBicubic`'s tabulated kernel:
    /// position clamped to the image (NaN → 0), taps beyond the edge clamped to it, result ≥ 0.
    /// `s` holds the image from pixel `origin` on, `rowPixels` pixels a row (default: the whole
    /// image), `pixelStride` floats a pixel (3: interleaved RGB, read at `channel`).
    @inline(__always)
    static func sample(_ s: UnsafePointer<Float>, width: Int, height: Int, x: Float, y: Float, channel: Int,
                       pixelStride: Int = 3, origin: (x: Int, y: Int) = (0, 0), rowPixels: Int? = nil,
                       weights: UnsafePointer<Float>) -> Float {
        let n = Float(WarpBicubic.subsamples)
        let cx = x > 0 ? min(x, Float(width - 1)) : 0
        let cy = y > 0 ? min(y, Float(height - 1)) : 0
        let fx0 = cx.rounded(.down), fy0 = cy.rounded(.down)
        let ix = Int(fx0) - 1, iy = Int(fy0) - 1
        let fx = min(Int((cx - fx0) * n), WarpBicubic.subsamples - 1)
        let fy = min(Int((cy - fy0) * n), WarpBicubic.subsamples - 1)
        let w = weights + (fy * WarpBicubic.subsamples + fx) * 16
        var total: Float = 0
        let ps = pixelStride, rw = rowPixels ?? width
        let base = s - (origin.y * rw + origin.x) * ps + channel
        if ix >= 0, iy >= 0, ix + 3 < width, iy + 3 < height {
            var row = base + (iy * rw + ix) * ps
            for i in 0..<4 {
                total += w[i * 4] * row[0] + w[i * 4 + 1] * row[ps] + w[i * 4 + 2] * row[2 * ps] + w[i * 4 + 3] * row[3 * ps]
                row += rw * ps
            }
        } else {
            for i in 0..<4 {
                let sy = min(max(iy + i, 0), height - 1)
                let row = base + sy * rw * ps
                for j in 0..<4 {
                    let sx = min(max(ix + j, 0), width - 1)
                    total += w[i * 4 + j] * row[sx * ps]
                }
            }
        }
        return total > 0 ? total : 0
    }

    /// A whole image's base pointer shared by workers that write disjoint rows.
    private struct SharedImage: @unchecked Sendable {
        let base: UnsafeMutablePointer<Float>
    }
}
