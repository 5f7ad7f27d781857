/// A correlation-adaptive blend of two demosaics: MSG (`MSGDemosaic`, colour-difference
/// directional interpolation, best where the three channels share their detail, as in most
/// photographs) and MLRI (`MLRIDemosaic`, residual interpolation with a locally fitted slope, best
/// where they do not: saturated colour, chroma edges, channels that vary independently).
///
/// Input and output as every `DemosaicKernel` (linear sensor values, 1.0 = clip, planar R, G, B).
///
/// Per pixel the output is `mlri + w · (msg − mlri)`, with the MSG share `w` set by how well
/// the colour-difference assumption (the missing colours carry the same detail as the sampled
/// one) holds around the pixel, measured on the mosaic itself:
///
/// 1. At every pixel `hp(v) = v − ¼ (four samples of v at distance 2, N S W E)`, a band-pass of
///    the same-colour lattice. At red/blue sites it is taken of the sample and of the bilinear
///    green (mean of the four greens); at green sites of the sample and of the two bilinear
///    estimates of the other colours (mean of the two horizontal, of the two vertical neighbours).
/// 2. Over a `(2·window+1)²` window the least-squares slope of the sample's band-pass on the
///    estimate's, `s = (Σ hp(sample)·hp(estimate) + ε) / (Σ hp(estimate)² + ε)` (at green sites
///    the mean of the two products and of the two squares). `s ≈ 1` where channels share their
///    detail; near 0 where they are uncorrelated, negative where they are anti-correlated;
///    `ε` makes flat windows count as correlated.
/// 3. `w = directionalShare · clamp((s − lowerSlope) / (upperSlope − lowerSlope), 0, 1)`: a
///    continuous ramp, all MLRI below `lowerSlope`, `directionalShare` of MSG from `upperSlope`
///    up. Even there part of MLRI is kept: the two methods' errors differ, so their mix beats
///    either on low-saturation photographs too.
///
/// Measured (`bench-demosaic`, README "Demosaic"): mean CPSNR 40.85 dB on Kodak 24 (MSG 40.80,
/// MLRI 40.12) and 38.14 dB on the saturated set (MLRI 38.26, MSG 35.14); it runs both
/// demosaics, so it costs their sum. The fixed 70/30 mix alone, without the slope, gives 40.91 dB
/// on Kodak 24 but 36.20 on the saturated set: the slope is what holds saturated colour.
/// (With GBTF as the directional demosaic, as before MSG existed: 40.67 / 38.07 dB.)
///
/// Exactness: both demosaics and the slope are exact at their own insets (their halos; MLRI its
/// halo, the slope `window + 3`); `halo` is the largest of them (and at least `window + 7`, so
/// the slope's eight-lane row loops have room), and the band outside is filled bilinearly.
/// Every lane computes what a scalar loop would, so any tiling gives the same bytes.
public struct HybridDemosaic: DemosaicKernel {
    /// The colour-difference demosaic (default `MSGDemosaic()`).
    public var directional: any DemosaicKernel
    /// The residual-interpolation demosaic (default `MLRIDemosaic()`, 7×7 / 11×11 windows).
    public var residual: MLRIDemosaic
    /// Half-side of the slope window in pixels (default 14: 29×29; 9×9 measured 40.76 / 38.20 dB
    /// with share 0.6, and sent textured low-saturation areas to MLRI more often).
    public var window: Int
    /// ε added to both sums of the slope (squared data units, data scale 1.0 = clip; default
    /// 10⁻⁵): windows whose band-pass energy is far below ε count as correlated.
    public var epsilon: Float
    /// Slope at or below which the output is all MLRI (default 0.5).
    public var lowerSlope: Float
    /// Slope from which the directional share is `directionalShare` (default 1.0, perfect correlation).
    public var upperSlope: Float
    /// The directional demosaic's share where the channels are correlated (default 0.7).
    public var directionalShare: Float

    public init(directional: any DemosaicKernel = MSGDemosaic(), residual: MLRIDemosaic = MLRIDemosaic(),
                window: Int = 14, epsilon: Float = 1e-5, lowerSlope: Float = 0.5, upperSlope: Float = 1.0,
                directionalShare: Float = 0.7) {
        self.directional = directional; self.residual = residual
        (self.window, self.epsilon, self.lowerSlope, self.upperSlope) =
            Self.slopeParameters(window: window, epsilon: epsilon, lowerSlope: lowerSlope, upperSlope: upperSlope)
        self.directionalShare = min(max(directionalShare, 0), 1)
    }

    /// The slope's parameters as both slope-driven demosaics (this one and `AdaptiveDemosaic`) keep
    /// them: a window of at least 1, ε of at least 10⁻¹², and an upper slope above the lower one.
    static func slopeParameters(window: Int, epsilon: Float, lowerSlope: Float, upperSlope: Float)
        -> (window: Int, epsilon: Float, lowerSlope: Float, upperSlope: Float) {
        (max(1, window), max(epsilon, 1e-12), lowerSlope, max(upperSlope, lowerSlope + 1e-3))
    }

    public var halo: Int { max(directional.halo, residual.halo, window + 7) }

    public func demosaic(mosaic m: UnsafePointer<Float>, width: Int, height: Int, cfa: CFAPattern,
                         red: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>,
                         blue: UnsafeMutablePointer<Float>) {
        let halo = self.halo
        if DemosaicBorder.fillIfTooSmall(halo: halo, mosaic: m, width: width, height: height, cfa: cfa,
                                         red: red, green: green, blue: blue) { return }
        let n = width * height
        let planeCount = 10
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: n * planeCount)
        scratch.initialize(repeating: 0, count: n * planeCount)
        defer { scratch.deallocate() }
        let directionalRed = scratch, directionalGreen = scratch + n, directionalBlue = scratch + 2 * n
        let greenEstimate = scratch + 3 * n, across = scratch + 4 * n, along = scratch + 5 * n
        let products = scratch + 6 * n, squares = scratch + 7 * n
        let rowProducts = scratch + 8 * n, rowSquares = scratch + 9 * n

        residual.demosaic(mosaic: m, width: width, height: height, cfa: cfa, red: red, green: green, blue: blue)
        directional.demosaic(mosaic: m, width: width, height: height, cfa: cfa,
                             red: directionalRed, green: directionalGreen, blue: directionalBlue)
        bilinearEstimates(m, width, height, cfa, greenEstimate: greenEstimate, across: across, along: along)
        bandPassProducts(m, width, height, cfa, greenEstimate: greenEstimate, across: across, along: along,
                         products: products, squares: squares)
        blend(width, height, products: products, squares: squares, rowProducts: rowProducts, rowSquares: rowSquares,
              directional: (directionalRed, directionalGreen, directionalBlue), red: red, green: green, blue: blue)
        DemosaicBorder.fill(mosaic: m, width: width, height: height, cfa: cfa, inset: halo,
                            red: red, green: green, blue: blue)
    }
}

extension HybridDemosaic {
    typealias V = DemosaicVector.V

    /// Step 1a (inset 1): `greenEstimate` = the sample at green sites, the mean of the four
    /// cardinal greens elsewhere; `across` / `along` = mean of the two horizontal / vertical
    /// neighbours (at green sites: the bilinear estimates of the two other colours).
    func bilinearEstimates(_ m: UnsafePointer<Float>, _ w: Int, _ h: Int, _ cfa: CFAPattern,
                           greenEstimate: UnsafeMutablePointer<Float>, across: UnsafeMutablePointer<Float>,
                           along: UnsafeMutablePointer<Float>) {
        for y in 1..<(h - 1) {
            let greenParity = cfa.color(x: 0, y: y) == .green ? 0 : 1
            let row = y * w
            for x0 in stride(from: 1, to: w - 1, by: 8) {
                let i = row + min(x0, w - 1 - 8)
                let c = DemosaicVector.load(m + i)
                let west = DemosaicVector.load(m + i - 1), east = DemosaicVector.load(m + i + 1)
                let north = DemosaicVector.load(m + i - w), south = DemosaicVector.load(m + i + w)
                let horizontal = (west + east) * 0.5, vertical = (north + south) * 0.5
                let cross = ((north + west) + (east + south)) * 0.25
                let isGreen = DemosaicVector.parityLanes(i - row, greenParity)
                DemosaicVector.store(DemosaicVector.blend(isGreen, c, cross), greenEstimate + i)
                DemosaicVector.store(horizontal, across + i)
                DemosaicVector.store(vertical, along + i)
            }
        }
    }

    /// Step 1b (inset 3): per pixel the product of the sample's band-pass with the estimate's and
    /// the estimate's square (at green sites the means over the two other-colour estimates).
    func bandPassProducts(_ m: UnsafePointer<Float>, _ w: Int, _ h: Int, _ cfa: CFAPattern,
                          greenEstimate: UnsafeMutablePointer<Float>, across: UnsafeMutablePointer<Float>,
                          along: UnsafeMutablePointer<Float>,
                          products: UnsafeMutablePointer<Float>, squares: UnsafeMutablePointer<Float>) {
        let w2 = 2 * w
        @inline(__always) func bandPass(_ p: UnsafePointer<Float>) -> V {
            DemosaicVector.load(p) - ((DemosaicVector.load(p - w2) + DemosaicVector.load(p + w2))
                                      + (DemosaicVector.load(p - 2) + DemosaicVector.load(p + 2))) * 0.25
        }
        for y in 3..<(h - 3) {
            let greenParity = cfa.color(x: 0, y: y) == .green ? 0 : 1
            let row = y * w
            for x0 in stride(from: 3, to: w - 3, by: 8) {
                let i = row + min(x0, w - 3 - 8)
                let sample = bandPass(m + i)
                let g = bandPass(greenEstimate + i), a = bandPass(across + i), b = bandPass(along + i)
                let isGreen = DemosaicVector.parityLanes(i - row, greenParity)
                let product = DemosaicVector.blend(isGreen, (sample * (a + b)) * 0.5, sample * g)
                let square = DemosaicVector.blend(isGreen, (a * a + b * b) * 0.5, g * g)
                DemosaicVector.store(product, products + i)
                DemosaicVector.store(square, squares + i)
            }
        }
    }

    /// Steps 2–3 (inset `window` + 3): window sums (along rows, then down columns, each in
    /// ascending order), slope, directional share, and `out = mlri + w · (msg − mlri)` in place.
    func blend(_ w: Int, _ h: Int, products: UnsafeMutablePointer<Float>, squares: UnsafeMutablePointer<Float>,
               rowProducts: UnsafeMutablePointer<Float>, rowSquares: UnsafeMutablePointer<Float>,
               directional: (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>),
               red: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>, blue: UnsafeMutablePointer<Float>) {
        let r = window, inner = 3, outer = 3 + r
        for y in inner..<(h - inner) {
            let row = y * w
            for x0 in stride(from: outer, to: w - outer, by: 8) {
                let i = row + min(x0, w - outer - 8)
                var sp = V(), sq = V()
                for dx in -r...r { sp += DemosaicVector.load(products + i + dx); sq += DemosaicVector.load(squares + i + dx) }
                DemosaicVector.store(sp, rowProducts + i); DemosaicVector.store(sq, rowSquares + i)
            }
        }
        let eps = V(repeating: epsilon), lower = lowerSlope, inverseSpan = 1 / (upperSlope - lowerSlope)
        let share = directionalShare
        let zero = V(), one = V(repeating: 1)
        let planes = [(red, directional.0), (green, directional.1), (blue, directional.2)]
        for y in outer..<(h - outer) {
            let row = y * w
            for x0 in stride(from: outer, to: w - outer, by: 8) {
                let i = row + min(x0, w - outer - 8)
                var sp = V(), sq = V()
                for dy in -r...r { sp += DemosaicVector.load(rowProducts + i + dy * w); sq += DemosaicVector.load(rowSquares + i + dy * w) }
                let slope = (sp + eps) / (sq + eps)
                var t = (slope - lower) * inverseSpan
                t = t.replacing(with: zero, where: .!(t .>= zero))   // also NaN (overflowed sums) → all MLRI
                t = t.replacing(with: one, where: t .> one)
                let weight = t * share
                for (out, other) in planes {
                    let base = DemosaicVector.load(out + i)
                    DemosaicVector.store(base + weight * (DemosaicVector.load(other + i) - base), out + i)
                }
            }
        }
    }
}
