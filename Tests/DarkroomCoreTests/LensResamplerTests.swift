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

    /// `img` (interleaved RGB) made planar and resampled through `modifier` in one whole-image tile.
    static func resampleWhole(_ img: [Float], width w: Int, height h: Int, modifier: some LensModifier) -> [Float] {
        let planar = (0..<3).flatMap { c in (0..<(w * h)).map { img[$0 * 3 + c] } }
        var out = [Float](repeating: -1, count: w * h * 3)
        planar.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { o in
                LensResampler.resamplePlanar(s.baseAddress!, planeStride: w * h, width: w, height: h, modifier: modifier,
                                             tile: PixelRect(x: 0, y: 0, width: w, height: h), into: o.baseAddress!)
            }
        }
        return out
    }
}
