import Dispatch
import Foundation
import Synchronization

/// Runs a `LensCorrection` on the staged, demosaiced image (`TileRenderer`'s whole-image path).
///
/// - Vignetting: a gain on linear, white-balanced camera RGB after the demosaic (and noise
///   reduction and sharpening), in the uncorrected geometry, for the whole image before any
///   resample (the lens darkened the scene where it was projected, so the gain belongs to the
///   source positions).
/// - Distortion and TCA: one resample per output tile. The lens model gives each corrected
///   pixel's source position per channel; each channel is then read there with the DNG warp
///   opcodes' bicubic kernel (`WarpBicubic`: Keys A = −0.75, 4×4 taps, weights tabulated at
///   1/32 pixel), taps outside the image clamped to its edge, results kept ≥ 0.
///
/// Both ask the model for fixed blocks of `block` columns starting at multiples of `block`, so
/// every pixel's numbers are computed the same way whatever the tile size or thread count.
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

    /// Applies the vignetting gain to a whole planar image (`planeStride` floats from the red
    /// plane to the green, and from the green to the blue), rows spread over `threads` workers:
    /// the gain of each fixed column block is asked of the model once (`vignettingGains`), then
    /// multiplies the three planes.
    public static func correctVignettingPlanar(_ image: UnsafeMutablePointer<Float>, planeStride: Int, width: Int, height: Int,
                                               modifier: any LensModifier, threads: Int) {
        let workers = max(1, min(threads > 0 ? threads : ProcessInfo.processInfo.activeProcessorCount, height))
        let next = Atomic<Int>(0)
        let shared = SharedImage(base: image)
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            withUnsafeTemporaryAllocation(of: Float.self, capacity: block) { buffer in
                let gains = buffer.baseAddress!
                while true {
                    let y = next.wrappingAdd(1, ordering: .relaxed).oldValue
                    if y >= height { break }
                    let row = shared.base + y * width
                    var x0 = 0
                    while x0 < width {
                        let n = min(block, width - x0)
                        modifier.vignettingGains(x0: x0, y: y, count: n, into: gains)
                        for c in 0..<3 {
                            let plane = row + c * planeStride + x0
                            for i in 0..<n { plane[i] *= gains[i] }
                        }
                        x0 += n
                    }
                }
            }
        }
    }

    /// `resample` for a planar source (`planeStride` floats from one channel's plane to the next):
    /// each channel's 4×4 window is four contiguous SIMD4 rows of its own plane, so TCA's per-channel
    /// windows cost no more than coinciding ones.
    public static func resamplePlanar(_ source: UnsafePointer<Float>, planeStride: Int, width: Int, height: Int,
                                      modifier: any LensModifier, tile: PixelRect, into rgb: UnsafeMutablePointer<Float>) {
        let bx0 = (tile.x / block) * block
        let bx1 = min(((tile.maxX + block - 1) / block) * block, width)
        let span = bx1 - bx0
        let n = Float(WarpBicubic.subsamples)
        let last = WarpBicubic.subsamples - 1
        let maxX = Float(width - 3), maxY = Float(height - 3)
        withUnsafeTemporaryAllocation(of: Float.self, capacity: span * 6) { buffer in
            let positions = buffer.baseAddress!
            WarpBicubic.weights.withUnsafeBufferPointer { table in
                let wt = UnsafeRawPointer(table.baseAddress!)
                for ty in 0..<tile.height {
                    sourcePositions(modifier, columns: bx0..<bx1, y: tile.y + ty, into: positions)
                    let out = rgb + ty * tile.width * 3
                    for tx in 0..<tile.width {
                        let p = positions + (tile.x + tx - bx0) * 6
                        for c in 0..<3 {
                            let x = p[2 * c], y = p[2 * c + 1]
                            let plane = source + c * planeStride
                            if x >= 1, y >= 1, x < maxX, y < maxY {
                                let fx0 = x.rounded(.down), fy0 = y.rounded(.down)
                                let fx = min(Int((x - fx0) * n), last), fy = min(Int((y - fy0) * n), last)
                                let w = wt + (fy * WarpBicubic.subsamples + fx) * 64
                                var row = UnsafeRawPointer(plane + (Int(fy0) - 1) * width + Int(fx0) - 1)
                                let rowBytes = width * MemoryLayout<Float>.size
                                var acc = row.loadUnaligned(as: SIMD4<Float>.self) * w.loadUnaligned(as: SIMD4<Float>.self)
                                for i in 1..<4 {
                                    row += rowBytes
                                    acc += row.loadUnaligned(as: SIMD4<Float>.self) * (w + i * 16).loadUnaligned(as: SIMD4<Float>.self)
                                }
                                let v = (acc[0] + acc[1]) + (acc[2] + acc[3])
                                out[tx * 3 + c] = v > 0 ? v : 0
                            } else {
                                out[tx * 3 + c] = sample(plane, width: width, height: height, x: x, y: y, channel: 0,
                                                         pixelStride: 1, weights: table.baseAddress!)
                            }
                        }
                    }
                }
            }
        }
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

    /// One channel of interleaved RGB at (x, y) by `WarpBicubic`'s tabulated kernel: position
    /// clamped to the image (NaN → 0), taps beyond the edge clamped to it, result ≥ 0.
    @inline(__always)
    static func sample(_ s: UnsafePointer<Float>, width: Int, height: Int, x: Float, y: Float, channel: Int,
                       pixelStride: Int = 3, weights: UnsafePointer<Float>) -> Float {
        let n = Float(WarpBicubic.subsamples)
        let cx = x > 0 ? min(x, Float(width - 1)) : 0
        let cy = y > 0 ? min(y, Float(height - 1)) : 0
        let fx0 = cx.rounded(.down), fy0 = cy.rounded(.down)
        let ix = Int(fx0) - 1, iy = Int(fy0) - 1
        let fx = min(Int((cx - fx0) * n), WarpBicubic.subsamples - 1)
        let fy = min(Int((cy - fy0) * n), WarpBicubic.subsamples - 1)
        let w = weights + (fy * WarpBicubic.subsamples + fx) * 16
        var total: Float = 0
        let ps = pixelStride
        if ix >= 0, iy >= 0, ix + 3 < width, iy + 3 < height {
            var row = s + (iy * width + ix) * ps + channel
            for i in 0..<4 {
                total += w[i * 4] * row[0] + w[i * 4 + 1] * row[ps] + w[i * 4 + 2] * row[2 * ps] + w[i * 4 + 3] * row[3 * ps]
                row += width * ps
            }
        } else {
            for i in 0..<4 {
                let sy = min(max(iy + i, 0), height - 1)
                let row = s + sy * width * ps + channel
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
