import Testing
@testable import DarkroomCore

/// The DNG SDK's warp resampling (`WarpBicubic`); whole images are checked against the SDK's own
/// stage-3 dumps in SDKStageOpcodeTests.
@Suite struct WarpBicubicTests {
    /// Keys' cubic convolution kernel with A = −0.75 (Keys 1981, with Photoshop's A): published
    /// values 1, 0.59375, 0, −0.09375, 0 at distances 0, 0.5, 1, 1.5, 2.
    @Test func kernelMatchesKeysCubic() {
        for (x, k) in [(0.0, 1.0), (0.5, 0.59375), (-0.5, 0.59375), (1.0, 0.0), (1.5, -0.09375), (2.0, 0.0), (2.5, 0.0)] {
            #expect(abs(WarpBicubic.kernel(x) - k) < 1e-12, "k(\(x))")
        }
    }

    /// Every 4×4 weight set sums to 1 (within Float rounding), fraction 0 picks the centre pixel
    /// alone, and fraction ½ gives the separable product of (−0.09375, 0.59375, 0.59375, −0.09375).
    @Test func weightTable() {
        let n = WarpBicubic.subsamples, t = WarpBicubic.taps
        let table = WarpBicubic.weights
        #expect(table.count == n * n * t * t)
        for set in 0..<(n * n) {
            let sum = table[(set * t * t)..<((set + 1) * t * t)].reduce(0, +)
            #expect(abs(sum - 1) < 1e-6)
        }
        for (i, w) in table[0..<16].enumerated() { #expect(w == (i == 5 ? 1 : 0), "tap \(i)") }
        let half = (n / 2 * n + n / 2) * t * t
        let k: [Float] = [-0.09375, 0.59375, 0.59375, -0.09375]
        for i in 0..<t { for j in 0..<t { #expect(abs(table[half + i * t + j] - k[i] * k[j]) < 1e-6) } }
    }

    /// A warp whose ratio is exactly 1 and has no tangential part is skipped, as the SDK's IsNOP
    /// does (resampling it would move the edge pixels by the SDK's window clip).
    @Test func identityWarpIsSkippedButFisheyeIsNot() {
        let w = 12, h = 9
        let src = (0..<(w * h)).map { Float($0 % 7) / 7 }
        let identity = warpImage(src, width: w, height: h, planes: 1,
                                 warps: [.rectilinear(kr: (1, 0, 0, 0), kt0: 0, kt1: 0)], cx: 0.5, cy: 0.5, mosaic: false)
        #expect(identity == src)
        // Fisheye with k0 = 1 is not the identity (θ = atan r ≠ r).
        let fisheye = warpImage(src, width: w, height: h, planes: 1,
                                warps: [.fisheye(kr: (1, 0, 0, 0))], cx: 0.5, cy: 0.5, mosaic: false)
        #expect(fisheye != src)
    }

    /// The SDK's window clip: a source column in the last three reads column width − 4, the first
    /// column reads column 1 (shown with a warp that maps everything to the right edge / left edge).
    @Test func edgeWindowClip() {
        let w = 16, h = 8
        let src = (0..<(w * h)).map { Float($0 % w) / 64 }   // value = column / 64
        // kr0 = 3: every source position far outside is clamped to the image's last column (right half)
        // or first column (left half).
        let out = warpImage(src, width: w, height: h, planes: 1,
                            warps: [.rectilinear(kr: (3, 0, 0, 0), kt0: 0, kt1: 0)], cx: 0.5, cy: 0.5, mosaic: false)
        #expect(out[3 * w + (w - 1)] == Float(w - 4) / 64)
        #expect(out[3 * w + 0] == Float(1) / 64)
    }
}
