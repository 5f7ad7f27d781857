import Testing
@testable import DarkroomCore

/// The eight-lane paths: last chunks that overlap, lane parity at every offset, the border fill's
/// direct path against its definition, and the product-form GBTF weights at extreme scales.
@Suite struct DemosaicVectorTests {
    private struct XorShift {
        var state: UInt64
        mutating func unit() -> Float {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Float(state >> 40) / Float(1 << 24)
        }
    }

    private func run(_ kernel: any DemosaicKernel, _ m: [Float], _ w: Int, _ h: Int, _ cfa: CFAPattern)
        -> (r: [Float], g: [Float], b: [Float]) {
        var r = [Float](repeating: .nan, count: w * h), g = r, b = r
        m.withUnsafeBufferPointer { mp in r.withUnsafeMutableBufferPointer { rp in
            g.withUnsafeMutableBufferPointer { gp in b.withUnsafeMutableBufferPointer { bp in
                guard let mb = mp.baseAddress, let rb = rp.baseAddress, let gb = gp.baseAddress, let bb = bp.baseAddress else { return }
                kernel.demosaic(mosaic: mb, width: w, height: h, cfa: cfa, red: rb, green: gb, blue: bb)
            } }
        } }
        return (r, g, b)
    }

    /// Regions of every width from the minimum up to three chunks more, at both column phases,
    /// give the whole image's bits at distance ≥ halo (every vectorised kernel).
    @Test(arguments: [DemosaicAlgorithm.gbtf, .mlri, .rcd, .ahd, .hybrid, .msg, .adaptive, .msgd])
    func everyRegionWidthMatchesWholeImage(algorithm: DemosaicAlgorithm) {
        let kernel = algorithm.makeKernel(), halo = kernel.halo
        let w = 2 * halo + 40, h = 2 * halo + 6
        var rng = XorShift(state: 0xD1CE)
        let m = (0..<(w * h)).map { _ in rng.unit() }
        let whole = run(kernel, m, w, h, .gbrg)
        var mismatches = 0
        for x0 in 0..<2 {
            for rw in stride(from: 2 * halo + 2, through: w - x0, by: algorithm == .mlri || algorithm == .hybrid || algorithm == .adaptive ? 7 : 1) {
                var region = [Float](repeating: 0, count: rw * h)
                for y in 0..<h { for x in 0..<rw { region[y * rw + x] = m[y * w + x + x0] } }
                let part = run(kernel, region, rw, h, CFAPattern.gbrg.shifted(dx: x0, dy: 0))
                for y in halo..<(h - halo) { for x in halo..<(rw - halo) {
                    let i = y * w + x + x0, j = y * rw + x
                    if whole.r[i].bitPattern != part.r[j].bitPattern || whole.g[i].bitPattern != part.g[j].bitPattern
                        || whole.b[i].bitPattern != part.b[j].bitPattern { mismatches += 1 }
                } }
            }
        }
        #expect(mismatches == 0)
    }

    /// The border fill equals its definition (own sample; other colours the mean of their samples
    /// in the clipped 3×3 window) at every pixel, for all four CFA orders.
    @Test func borderFillMatchesDefinition() {
        let w = 29, h = 13
        var rng = XorShift(state: 99)
        let m = (0..<(w * h)).map { _ in rng.unit() }
        for cfa in CFAPattern.all {
            var r = [Float](repeating: .nan, count: w * h), g = r, b = r
            m.withUnsafeBufferPointer { mp in r.withUnsafeMutableBufferPointer { rp in
                g.withUnsafeMutableBufferPointer { gp in b.withUnsafeMutableBufferPointer { bp in
                    guard let mb = mp.baseAddress, let rb = rp.baseAddress, let gb = gp.baseAddress, let bb = bp.baseAddress else { return }
                    DemosaicBorder.fill(mosaic: mb, width: w, height: h, cfa: cfa, inset: 100, red: rb, green: gb, blue: bb)
                } }
            } }
            var worst: Float = 0
            for y in 0..<h { for x in 0..<w {
                var sum: [Float] = [0, 0, 0], count: [Float] = [0, 0, 0]
                for yy in max(0, y - 1)...min(h - 1, y + 1) { for xx in max(0, x - 1)...min(w - 1, x + 1) {
                    let c = Int(cfa.color(x: xx, y: yy).rawValue)
                    sum[c] += m[yy * w + xx]; count[c] += 1
                } }
                var expected = (0..<3).map { sum[$0] / count[$0] }
                expected[Int(cfa.color(x: x, y: y).rawValue)] = m[y * w + x]
                let i = y * w + x
                worst = max(worst, abs(r[i] - expected[0]), abs(g[i] - expected[1]), abs(b[i] - expected[2]))
            } }
            #expect(worst <= 2e-7, "\(cfa)")
        }
    }

    /// GBTF's product-form weights stay finite for the smallest ε and for values far above clip.
    @Test(arguments: [Float(1e-12), 1e-5, 1])
    func gbtfWeightsStayFinite(epsilon: Float) {
        let kernel = GBTFDemosaic(epsilon: epsilon)
        let w = 40, h = 36
        var rng = XorShift(state: 4242)
        for scale: Float in [1e-6, 1, 1000] {
            let m = (0..<(w * h)).map { i in i % 11 == 0 ? 0 : rng.unit() * scale }
            let out = run(kernel, m, w, h, .rggb)
            #expect(out.r.allSatisfy(\.isFinite) && out.g.allSatisfy(\.isFinite) && out.b.allSatisfy(\.isFinite),
                    "ε \(epsilon), scale \(scale)")
        }
    }
}
