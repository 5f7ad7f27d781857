/// Where the patches of a chart lie in the chart's own unit square: (0, 0) the outer top-left
/// corner of the first patch (A1, "dark skin" on a ColorChecker 24), (1, 0) the top-right corner
/// of the last patch of the first row, (1, 1) the bottom-right corner of the last patch, (0, 1)
/// the bottom-left corner of the first patch of the last row. Patches are numbered row by row.
public struct ChartLayout: Sendable, Equatable {
    public var columns: Int
    public var rows: Int
    /// The gap between neighbouring patches as a fraction of the patch pitch (0…0.5).
    public var gapFraction: Double
    /// The side of the sampled square as a fraction of the patch side (the erosion: 0.5 keeps
    /// the central half of each side, a quarter of the patch area, away from edges, blur and
    /// corner error).
    public var sampleFraction: Double

    public init(columns: Int, rows: Int, gapFraction: Double, sampleFraction: Double = 0.5) {
        self.columns = columns; self.rows = rows; self.gapFraction = gapFraction; self.sampleFraction = sampleFraction
    }

    /// The ColorChecker Classic 24: 6 × 4 patches, gaps ≈ 10 % of the pitch (as on the chart and
    /// on `SyntheticChart`).
    public static let colorChecker24 = ChartLayout(columns: 6, rows: 4, gapFraction: 0.1)

    public var patchCount: Int { columns * rows }

    /// Patch `index`'s square in unit coordinates (u0, v0, u1, v1).
    public func patchSquare(_ index: Int) -> (u0: Double, v0: Double, u1: Double, v1: Double) {
        let c = Double(index % columns), r = Double(index / columns)
        // The grid spans n·pitch − gap = 1, so pitch = 1 / (n − gap fraction).
        let pu = 1 / (Double(columns) - gapFraction), pv = 1 / (Double(rows) - gapFraction)
        let su = pu * (1 - gapFraction), sv = pv * (1 - gapFraction)
        return (c * pu, r * pv, c * pu + su, r * pv + sv)
    }

    /// Patch `index`'s sampled (eroded) square in unit coordinates: the central `sampleFraction`
    /// of its side.
    public func sampleSquare(_ index: Int) -> (u0: Double, v0: Double, u1: Double, v1: Double) {
        let p = patchSquare(index)
        let mu = (p.u1 - p.u0) * (1 - sampleFraction) / 2, mv = (p.v1 - p.v0) * (1 - sampleFraction) / 2
        return (p.u0 + mu, p.v0 + mv, p.u1 - mu, p.v1 - mv)
    }

    /// Patch `index`'s centre in unit coordinates.
    public func centre(_ index: Int) -> SIMD2<Double> {
        let p = patchSquare(index)
        return SIMD2((p.u0 + p.u1) / 2, (p.v0 + p.v1) / 2)
    }
}
