@testable import DarkroomCore
import Foundation
import Testing

/// `LensResampler`'s bicubic reads, against the Keys kernel computed here in Double.
@Suite("Core: lens resampler")
struct LensResamplerTests {
    /// A fixed pseudo-random interleaved RGB image (xorshift), values 0…1.
    static func image(width: Int, height: Int) -> [Float] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<(width * height * 3)).map { _ in
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Float(state % 10_000) / 10_000
        }
    }

    /// Keys (A = −0.75) at the 1/32-quantised fraction, taps clamped to the image, in Double.
    static func keys(_ img: [Float], width: Int, height: Int, x: Double, y: Double, channel: Int) -> Double {
        let x0 = x.rounded(.down), y0 = y.rounded(.down)
        let fx = (Double(Int((x - x0) * 32)) / 32), fy = (Double(Int((y - y0) * 32)) / 32)
        var total = 0.0, weights = 0.0
        for i in -1...2 {
            for j in -1...2 {
                let w = WarpBicubic.kernel(Double(j) - fx) * WarpBicubic.kernel(Double(i) - fy)
                let sx = min(max(Int(x0) + j, 0), width - 1), sy = min(max(Int(y0) + i, 0), height - 1)
                total += w * Double(img[(sy * width + sx) * 3 + channel]); weights += w
            }
        }
        return max(total / weights, 0)
    }

    @Test func readsMatchTheKeysKernel() {
        let w = 40, h = 30
        let img = Self.image(width: w, height: h)
        img.withUnsafeBufferPointer { s in
            WarpBicubic.weights.withUnsafeBufferPointer { wt in
                var worstScalar = 0.0, worstRGB = 0.0, rgbTaken = 0
                // Positions across the image, edges included, channels a fraction of a pixel apart (TCA).
                for k in 0..<2000 {
                    let gx = Double(k % 53) * 0.77 - 1, gy = Double(k / 53) * 0.81 - 1
                    let p: [Float] = [Float(gx + 0.31), Float(gy - 0.12), Float(gx), Float(gy), Float(gx - 0.27), Float(gy + 0.09)]
                    var out: [Float] = [0, 0, 0]
                    let fast = p.withUnsafeBufferPointer { pp in
                        out.withUnsafeMutableBufferPointer { o in
                            LensResampler.sampleRGB(s.baseAddress!, width: w, height: h, positions: pp.baseAddress!,
                                                    weights: wt.baseAddress!, into: o.baseAddress!)
                        }
                    }
                    for c in 0..<3 {
                        let x = Double(min(max(p[2 * c], 0), Float(w - 1))), y = Double(min(max(p[2 * c + 1], 0), Float(h - 1)))
                        let expected = Self.keys(img, width: w, height: h, x: x, y: y, channel: c)
                        let scalar = LensResampler.sample(s.baseAddress!, width: w, height: h, x: p[2 * c], y: p[2 * c + 1],
                                                          channel: c, weights: wt.baseAddress!)
                        worstScalar = max(worstScalar, abs(Double(scalar) - expected))
                        if fast { worstRGB = max(worstRGB, abs(Double(out[c]) - expected)) }
                    }
                    if fast { rgbTaken += 1 }
                }
                #expect(worstScalar < 1e-5, "scalar path: \(worstScalar)")
                #expect(worstRGB < 1e-5, "three-channel path: \(worstRGB)")
                #expect(rgbTaken > 200, "three-channel path taken \(rgbTaken) times")
            }
        }
    }

    /// The planar resample (separable weights) at positions across the image, edges included,
    /// channels a fraction of a pixel apart, against the Keys kernel in Double.
    @Test func planarResampleMatchesTheKeysKernel() {
        struct Shift: LensModifier {
            func sourcePositions(x0: Int, y: Int, count: Int, into positions: UnsafeMutablePointer<Float>) {
                for i in 0..<count {
                    let gx = Double(x0 + i) * 1.07 - 1.3, gy = Double(y) * 0.93 + sin(Double(x0 + i) * 0.3) - 0.6
                    let p = [gx + 0.31, gy - 0.12, gx, gy, gx - 0.27, gy + 0.09]
                    for k in 0..<6 { positions[i * 6 + k] = Float(p[k]) }
                }
            }
            func correctVignetting(_ rgb: UnsafeMutablePointer<Float>, x0: Int, y: Int, count: Int) {}
        }
        let w = 40, h = 30
        let img = Self.image(width: w, height: h)
        // Planes: red, green, blue.
        let out = Self.resampleWhole(img, width: w, height: h, modifier: Shift())
        var positions = [Float](repeating: 0, count: w * 6)
        var worst = 0.0, inside = 0
        for y in 0..<h {
            positions.withUnsafeMutableBufferPointer { Shift().sourcePositions(x0: 0, y: y, count: w, into: $0.baseAddress!) }
            for x in 0..<w {
                for c in 0..<3 {
                    let px = Double(min(max(positions[x * 6 + 2 * c], 0), Float(w - 1)))
                    let py = Double(min(max(positions[x * 6 + 2 * c + 1], 0), Float(h - 1)))
                    if px >= 1, py >= 1, px < Double(w - 3), py < Double(h - 3) { inside += 1 }
                    let expected = Self.keys(img, width: w, height: h, x: px, y: py, channel: c)
                    worst = max(worst, abs(Double(out[(y * w + x) * 3 + c]) - expected))
                }
            }
        }
        #expect(worst < 1e-5, "planar resample: \(worst)")
        #expect(inside > 1000, "inside the image \(inside) times")
    }

    /// A model that moves nothing gives back the image exactly (weights 0, 1, 0, 0 at fraction 0).
    @Test func identityIsExact() {
        struct Identity: LensModifier {
            func sourcePositions(x0: Int, y: Int, count: Int, into positions: UnsafeMutablePointer<Float>) {
                for i in 0..<count { for c in 0..<3 { positions[i * 6 + 2 * c] = Float(x0 + i); positions[i * 6 + 2 * c + 1] = Float(y) } }
            }
            func correctVignetting(_ rgb: UnsafeMutablePointer<Float>, x0: Int, y: Int, count: Int) {}
        }
        let w = 150, h = 70
        let img = Self.image(width: w, height: h)
        var out = [Float](repeating: -1, count: w * h * 3)
        img.withUnsafeBufferPointer { s in
            for ty in stride(from: 0, to: h, by: 32) {
                for tx in stride(from: 0, to: w, by: 48) {
                    let tile = PixelRect(x: tx, y: ty, width: min(48, w - tx), height: min(32, h - ty))
                    var t = [Float](repeating: 0, count: tile.width * tile.height * 3)
                    t.withUnsafeMutableBufferPointer { tb in
                        LensResampler.resample(s.baseAddress!, width: w, height: h, modifier: Identity(), tile: tile, into: tb.baseAddress!)
                    }
                    for y in 0..<tile.height {
                        for i in 0..<(tile.width * 3) { out[((ty + y) * w + tx) * 3 + i] = t[y * tile.width * 3 + i] }
                    }
                }
            }
        }
        #expect(out == img)
        // The planar path too, in one tile.
        #expect(Self.resampleWhole(img, width: w, height: h, modifier: Identity()) == img)
    }

    /// `sourceArea` is exactly the taps `sample` reads (position clamped, NaN → 0, taps clamped),
    /// for blocks of every width 1…11 with positions inside, outside, infinite and NaN.
    @Test(arguments: 1...11)
    func sourceAreaHoldsEveryTap(tileWidth: Int) {
        let w = 57, h = 43, th = 3, rowStride = 6 * 16
        var state: UInt64 = 0x2545_F491_4F6C_DD1D &+ UInt64(tileWidth)
        func next() -> Float {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Float(state % 100_000) / 100_000
        }
        for trial in 0..<200 {
            // A centre and spread per trial; some trials put one NaN or infinite coordinate in.
            let cx = next() * 70 - 6, cy = next() * 56 - 6, spread = next() * 9
            var positions = [Float](repeating: 0, count: rowStride * th)
            for ty in 0..<th { for k in 0..<(tileWidth * 6) {
                positions[ty * rowStride + k] = (k % 2 == 0 ? cx : cy) + (next() - 0.5) * spread
            } }
            if trial % 7 == 3 { positions[(trial % th) * rowStride + trial % (tileWidth * 6)] = .nan }
            if trial % 11 == 5 { positions[(trial % th) * rowStride + trial % (tileWidth * 6)] = trial % 2 == 0 ? .infinity : -.infinity }
            let area = positions.withUnsafeBufferPointer {
                LensResampler.sourceArea(positions: $0.baseAddress!, rowStride: rowStride, tileWidth: tileWidth, tileHeight: th,
                                         width: w, height: h)
            }
            // The taps by `sample`'s own clamping.
            var x0 = Int.max, y0 = Int.max, x1 = Int.min, y1 = Int.min
            for ty in 0..<th { for i in 0..<(tileWidth * 3) {
                let x = positions[ty * rowStride + 2 * i], y = positions[ty * rowStride + 2 * i + 1]
                let px = x > 0 ? min(x, Float(w - 1)) : 0, py = y > 0 ? min(y, Float(h - 1)) : 0
                let ix = Int(px.rounded(.down)), iy = Int(py.rounded(.down))
                x0 = min(x0, max(ix - 1, 0)); x1 = max(x1, min(ix + 2, w - 1))
                y0 = min(y0, max(iy - 1, 0)); y1 = max(y1, min(iy + 2, h - 1))
            } }
            let exact = PixelRect(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1)
            let hasNaN = positions.contains { $0.isNaN || $0.isInfinite }
            #expect(area.contains(exact), "trial \(trial): \(area) misses taps of \(exact)")
            // Tight unless a NaN or an infinity widened it (to start at 0).
            if !hasNaN { #expect(area == exact, "trial \(trial)") }
        }
    }

    /// `img` (interleaved RGB) made planar and resampled through `modifier` in one whole-image tile,
    /// reading only the planes' `sourceArea` (copied out of the whole image, so a read outside it
    /// would return garbage and fail the comparisons).
    static func resampleWhole(_ img: [Float], width w: Int, height h: Int, modifier: some LensModifier) -> [Float] {
        let tile = PixelRect(x: 0, y: 0, width: w, height: h)
        let (_, rowStride) = LensResampler.positionLayout(of: tile, width: w)
        var positions = [Float](repeating: 0, count: rowStride * h)
        positions.withUnsafeMutableBufferPointer { LensResampler.tilePositions(modifier, tile: tile, width: w, into: $0.baseAddress!) }
        let area = positions.withUnsafeBufferPointer {
            LensResampler.sourceArea(positions: $0.baseAddress!, rowStride: rowStride, tileWidth: w, tileHeight: h, width: w, height: h)
        }
        let planar = (0..<3).flatMap { c in
            (area.y..<area.maxY).flatMap { y in (area.x..<area.maxX).map { x in img[(y * w + x) * 3 + c] } }
        }
        var out = [Float](repeating: -1, count: w * h * 3)
        var planes = [Float](repeating: -1, count: w * h * 3)
        planar.withUnsafeBufferPointer { s in
            positions.withUnsafeBufferPointer { p in
                planes.withUnsafeMutableBufferPointer { o in
                    let r = o.baseAddress!
                    LensResampler.resamplePlanar(s.baseAddress!, area: area, width: w, height: h, positions: p.baseAddress!,
                                                 rowStride: rowStride, tileWidth: w, tileHeight: h,
                                                 red: r, green: r + w * h, blue: r + 2 * w * h, outStride: w)
                }
            }
        }
        for i in 0..<(w * h) { for c in 0..<3 { out[i * 3 + c] = planes[c * w * h + i] } }
        return out
    }
}
