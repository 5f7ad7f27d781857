/// Robust per-patch statistics of a chart in a `CameraRGBImage`.
///
/// For each patch, the pixels whose centres (x + ½, y + ½), mapped back through the chart's
/// homography into its unit square, fall inside the patch's eroded square
/// (`ChartLayout.sampleSquare`) are collected. The robust mean rejects outliers (dust, specular
/// spots, hot pixels): per channel the median m and the median absolute deviation MAD; a pixel is
/// kept when every channel lies within `rejectionSigmas` × 1.4826 × MAD (MAD's consistency factor
/// for a normal distribution; at least 1e-6) of m. Mean and standard deviation σ are those of the
/// kept pixels. Pixels are visited in a fixed order, so the result does not depend on threads.
public enum PatchSampler {
    /// One patch's statistics, balanced camera RGB (0…1, 1 = clipping after white balance).
    public struct Sample: Sendable, Equatable {
        public var mean: SIMD3<Double>
        /// Standard deviation of the kept pixels, per channel (the patch's noise).
        public var sigma: SIMD3<Double>
        /// Pixels inside the eroded square, and those kept by the rejection.
        public var pixelCount: Int
        public var keptCount: Int
        /// Fraction of the sampled pixels with a channel at the clipping value (≥ 0.9999).
        public var clippedFraction: Double
    }

    /// Why a chart could not be sampled.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case degenerateCorners
        case patchOutside(index: Int)
        case tooFewPixels(index: Int, count: Int)

        public var description: String {
            switch self {
            case .degenerateCorners: return "the four chart corners do not form a quadrilateral"
            case .patchOutside(let i): return "patch \(i + 1) lies outside the image"
            case .tooFewPixels(let i, let n): return "patch \(i + 1) covers only \(n) pixels (need 4): the chart is too small"
            }
        }
    }

    /// Default outlier threshold, in robust standard deviations.
    public static let rejectionSigmas = 3.0

    /// Samples every patch of `layout` whose unit square maps onto display-space `corners`
    /// (top-left, top-right, bottom-right, bottom-left of the patch grid, continuous pixels).
    public static func sample(_ image: CameraRGBImage, corners: [SIMD2<Double>], layout: ChartLayout,
                              rejectionSigmas: Double = rejectionSigmas) throws(Failure) -> [Sample] {
        guard let forward = Homography(unitSquareTo: corners), let inverse = forward.inverse else {
            throw .degenerateCorners
        }
        let (dw, dh) = image.displaySize
        var out: [Sample] = []
        for index in 0..<layout.patchCount {
            let s = layout.sampleSquare(index)
            let quad = [SIMD2(s.u0, s.v0), SIMD2(s.u1, s.v0), SIMD2(s.u1, s.v1), SIMD2(s.u0, s.v1)].compactMap(forward.apply)
            guard quad.count == 4 else { throw .degenerateCorners }
            // Corners come from an argument: keep the bounding box far from Int's range before converting.
            guard quad.allSatisfy({ $0.x.isFinite && $0.y.isFinite && abs($0.x) < 1e7 && abs($0.y) < 1e7 }) else {
                throw .patchOutside(index: index)
            }
            let minX = Int((quad.map(\.x).min() ?? 0).rounded(.down)), maxX = Int((quad.map(\.x).max() ?? 0).rounded(.up))
            let minY = Int((quad.map(\.y).min() ?? 0).rounded(.down)), maxY = Int((quad.map(\.y).max() ?? 0).rounded(.up))
            guard minX >= 0, minY >= 0, maxX <= dw, maxY <= dh else { throw .patchOutside(index: index) }
            var r: [Double] = [], g: [Double] = [], b: [Double] = []
            for y in minY..<max(minY, maxY) {
                for x in minX..<max(minX, maxX) {
                    guard let uv = inverse.apply(SIMD2(Double(x) + 0.5, Double(y) + 0.5)),
                          uv.x >= s.u0, uv.x < s.u1, uv.y >= s.v0, uv.y < s.v1 else { continue }
                    let p = image.pixel(displayX: x, displayY: y)
                    r.append(Double(p.x)); g.append(Double(p.y)); b.append(Double(p.z))
                }
            }
            guard r.count >= 4 else { throw .tooFewPixels(index: index, count: r.count) }
            out.append(robust(r, g, b, rejectionSigmas: rejectionSigmas))
        }
        return out
    }

    /// The robust statistics of one patch's pixels (three equally long channels).
    public static func robust(_ r: [Double], _ g: [Double], _ b: [Double], rejectionSigmas: Double = rejectionSigmas) -> Sample {
        let channels = [r, g, b]
        let medians = channels.map(median)
        let limits = zip(channels, medians).map { c, m in max(rejectionSigmas * 1.4826 * median(c.map { abs($0 - m) }), 1e-6) }
        var sum = SIMD3<Double>(0, 0, 0), sumSq = SIMD3<Double>(0, 0, 0)
        var kept = 0, clipped = 0
        for i in 0..<r.count {
            let p = SIMD3(r[i], g[i], b[i])
            if p.max() >= 0.9999 { clipped += 1 }
            guard abs(p.x - medians[0]) <= limits[0], abs(p.y - medians[1]) <= limits[1], abs(p.z - medians[2]) <= limits[2] else { continue }
            sum += p; sumSq += p * p; kept += 1
        }
        if kept == 0 {   // cannot happen (the median pixel of each channel is kept) but stay total
            return Sample(mean: SIMD3(medians[0], medians[1], medians[2]), sigma: .zero, pixelCount: r.count, keptCount: 0,
                          clippedFraction: Double(clipped) / Double(r.count))
        }
        let n = Double(kept)
        let mean = sum / n
        var variance = sumSq / n - mean * mean
        variance = variance.replacing(with: 0, where: variance .< 0)
        if kept > 1 { variance *= n / (n - 1) }
        return Sample(mean: mean, sigma: SIMD3(variance.x.squareRoot(), variance.y.squareRoot(), variance.z.squareRoot()),
                      pixelCount: r.count, keptCount: kept, clippedFraction: Double(clipped) / Double(r.count))
    }

    /// The median (mean of the two middle values for an even count); 0 for no values.
    public static func median(_ v: [Double]) -> Double {
        guard !v.isEmpty else { return 0 }
        let s = v.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
}
