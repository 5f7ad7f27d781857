/// Statistics of one colour's stored samples (sensor units, before black subtraction).
public struct SampleStatistics: Sendable, Equatable {
    public var minimum: UInt16
    public var maximum: UInt16
    /// Arithmetic mean of the samples.
    public var mean: Double
    /// Number of samples.
    public var count: Int

    public init(minimum: UInt16, maximum: UInt16, mean: Double, count: Int) {
        self.minimum = minimum; self.maximum = maximum; self.mean = mean; self.count = count
    }
}

extension RawImage {
    /// Minimum, maximum and mean of the stored values per colour, red, green and blue: for a
    /// LinearRaw image (3 samples per pixel) sample s is colour s; otherwise every sample of a
    /// pixel counts for the CFA colour of its site (green when there is no CFA). A colour with
    /// no samples is nil (all are when `pixels` is shorter than the geometry says).
    public func sampleStatistics() -> [SampleStatistics?] {
        let (area, o1) = width.multipliedReportingOverflow(by: height)
        let (count, o2) = area.multipliedReportingOverflow(by: samplesPerPixel)
        guard width >= 0, height >= 0, !o1, !o2, pixels.count >= count else { return [nil, nil, nil] }
        var lo = [UInt16](repeating: .max, count: 3), hi = [UInt16](repeating: 0, count: 3)
        var sum = [Double](repeating: 0, count: 3), n = [Int](repeating: 0, count: 3)
        let spp = samplesPerPixel
        pixels.withUnsafeBufferPointer { p in
            for y in 0..<height {
                for x in 0..<width {
                    let site = spp == 3 ? 0 : Int(metadata.cfa?.color(x: x, y: y).rawValue ?? 1)
                    for s in 0..<spp {
                        let v = p[(y * width + x) * spp + s]
                        let c = spp == 3 ? s : site
                        lo[c] = min(lo[c], v); hi[c] = max(hi[c], v); sum[c] += Double(v); n[c] += 1
                    }
                }
            }
        }
        return (0..<3).map { c in
            n[c] > 0 ? SampleStatistics(minimum: lo[c], maximum: hi[c], mean: sum[c] / Double(n[c]), count: n[c]) : nil
        }
    }
}
