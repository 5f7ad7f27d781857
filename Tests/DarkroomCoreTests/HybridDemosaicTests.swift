import Foundation
import Testing
@testable import DarkroomCore

/// The hybrid demosaic against the true images of two generated scenes (8-bit, mosaicked RGGB,
/// CPSNR with a 10-px border excluded, as `bench-demosaic` measures), and the two ends of its
/// blend weight.
@Suite struct HybridDemosaicTests {
    static let size = 128

    /// An 8-bit RGB scene of `size`², each channel `f(x, y, channel)` in [0, 1], quantised.
    static func scene(_ f: (Double, Double, Int) -> Double) -> [UInt8] {
        var px = [UInt8](repeating: 0, count: size * size * 3)
        for y in 0..<size { for x in 0..<size { for c in 0..<3 {
            px[(y * size + x) * 3 + c] = UInt8((min(max(f(Double(x), Double(y), c), 0), 1) * 255).rounded())
        } } }
        return px
    }

    /// R, G and B centred chirps `0.5 + 0.45 sin(k r²)` of different k (≤ 0.15 cycles/px in the
    /// corners): channels that vary independently, where colour-difference methods fail.
    static let chirps = scene { x, y, c in
        let d = Double(size) / 2, r2 = (x - d) * (x - d) + (y - d) * (y - d)
        return 0.5 + 0.45 * sin([4.0e-3, 5.2e-3, 2.8e-3][c] * r2 + Double(c))
    }

    /// One luminance texture (two gratings and a chirp) scaled and offset per channel: channels
    /// that share their detail, as in most photographs.
    static let shared = scene { x, y, c in
        let t = 0.5 + 0.2 * sin(0.31 * x + 0.17 * y) + 0.15 * sin(0.9 * y - 0.05 * x) + 0.1 * sin(1e-3 * x * y)
        return [0.9 * t + 0.05, t, 0.75 * t + 0.12][c]
    }

    static func cpsnr(_ algorithm: DemosaicAlgorithm, _ reference: [UInt8]) -> Double {
        let floats = reference.map { Float($0) / 255 }
        let m = DemosaicEvaluation.mosaic(interleaved: floats, width: size, height: size, cfa: .rggb)
        let out = DemosaicTiler(kernel: algorithm.makeKernel(), tileSize: 64, workers: 2)
            .run(mosaic: m, width: size, height: size, cfa: .rggb)
        return DemosaicEvaluation.cpsnr(reference: reference, width: size, height: size,
                                        red: out.red, green: out.green, blue: out.blue)
    }

    /// Independent channels: far above GBTF, at MLRI (measured: hybrid 34.84 dB, MLRI 34.85,
    /// GBTF 23.28).
    @Test func independentChannels() {
        let hybrid = Self.cpsnr(.hybrid, Self.chirps), gbtf = Self.cpsnr(.gbtf, Self.chirps), mlri = Self.cpsnr(.mlri, Self.chirps)
        #expect(hybrid >= 34.7, "hybrid \(hybrid) dB")
        #expect(hybrid >= gbtf + 10, "hybrid \(hybrid) dB, gbtf \(gbtf) dB")
        #expect(hybrid >= mlri - 0.3, "hybrid \(hybrid) dB, mlri \(mlri) dB")
    }

    /// Shared detail: the slope is ≈ 1, so the output is the fixed mix (70 % MSG), between the
    /// two (measured: hybrid 47.59 dB, MSG 45.16, MLRI 53.65 on these smooth gratings; on
    /// Kodak 24 MSG is the better one, see README "Demosaic").
    @Test func sharedDetail() {
        let hybrid = Self.cpsnr(.hybrid, Self.shared), msg = Self.cpsnr(.msg, Self.shared), mlri = Self.cpsnr(.mlri, Self.shared)
        #expect(hybrid >= 47.4, "hybrid \(hybrid) dB")
        #expect(hybrid > min(msg, mlri) && hybrid < max(msg, mlri), "hybrid \(hybrid) dB, msg \(msg) dB, mlri \(mlri) dB")
    }

    /// Textured green with flat red and blue: the slope is ≈ 0, so the output is MLRI's, bit for
    /// bit; a pure ramp has no band-pass at all (slope ε/ε = 1), so it gets `directionalShare` of
    /// MSG: `mlri + 0.7 · (msg − mlri)`.
    @Test(arguments: CFAPattern.all)
    func weightEnds(cfa: CFAPattern) {
        let hybrid = HybridDemosaic(), e = hybrid.halo
        let harness = BlendEndsHarness(width: 2 * e + 20, height: 2 * e + 12, cfa: cfa)
        for (m, share) in [(harness.texture, Float(0)), (harness.ramp, 0.7)] {
            let mismatches = harness.mismatches(hybrid, m, inset: e) { msg, mlri in mlri + share * (msg - mlri) }
            #expect(mismatches == 0, "share \(share), \(cfa)")
        }
    }
}

/// The two blend tests' harness (`HybridDemosaicTests.weightEnds`, `AdaptiveDemosaicTests.shareEnds`):
/// a `width` × `height` mosaic of `cfa` with textured green over flat red and blue (inter-channel
/// slope ≈ 0), a pure ramp (no band-pass at all: slope ε/ε = 1), and a kernel's three planes of a mosaic.
struct BlendEndsHarness {
    let width: Int, height: Int, cfa: CFAPattern

    func mosaic(_ f: (Int, Int, CFAColor) -> Float) -> [Float] {
        (0..<(width * height)).map { f($0 % width, $0 / width, cfa.color(x: $0 % width, y: $0 / width)) }
    }

    var texture: [Float] {
        mosaic { x, y, c in c == .green ? 0.5 + 0.3 * Float(sin(Double(x) * 0.9 + Double(y * y) * 0.07)) : (c == .red ? 0.3 : 0.6) }
    }

    var ramp: [Float] { mosaic { x, _, c in Float(x) / 256 + (c == .red ? 0.125 : c == .green ? 0.25 : 0.375) } }

    /// How many of `kernel`'s values on `m`, `inset` or more pixels from every edge, differ in their
    /// bits from `expected(msg, mlri)` of MSG's and MLRI's values at the same place.
    func mismatches(_ kernel: any DemosaicKernel, _ m: [Float], inset e: Int, expected: (Float, Float) -> Float) -> Int {
        let out = run(kernel, m), a = run(MSGDemosaic(), m), b = run(MLRIDemosaic(), m)
        var count = 0
        for p in 0..<3 { for y in e..<(height - e) { for x in e..<(width - e) {
            let i = y * width + x
            if out[p][i].bitPattern != expected(a[p][i], b[p][i]).bitPattern { count += 1 }
        } } }
        return count
    }

    func run(_ kernel: any DemosaicKernel, _ m: [Float]) -> [[Float]] {
        let w = width, h = height, cfa = cfa
        var r = [Float](repeating: 0, count: w * h), g = r, b = r
        m.withUnsafeBufferPointer { mp in r.withUnsafeMutableBufferPointer { rp in
            g.withUnsafeMutableBufferPointer { gp in b.withUnsafeMutableBufferPointer { bp in
                guard let mb = mp.baseAddress, let rb = rp.baseAddress, let gb = gp.baseAddress, let bb = bp.baseAddress else { return }
                kernel.demosaic(mosaic: mb, width: w, height: h, cfa: cfa, red: rb, green: gb, blue: bb)
            } }
        } }
        return [r, g, b]
    }
}
