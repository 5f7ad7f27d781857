/// Summary statistics of a set of colour differences (ΔE2000 unless stated).
public struct DifferenceSummary: Sendable, Equatable, Codable {
    public var mean: Double
    public var median: Double
    /// 90th percentile, linear interpolation between order statistics (rank 0.9 · (n − 1)).
    public var p90: Double
    public var max: Double
    /// Indices of the (up to) five largest, largest first (ties: lower index first).
    public var worst: [Int]

    public init(_ values: [Double]) {
        let n = values.count
        guard n > 0 else { mean = 0; median = 0; p90 = 0; max = 0; worst = []; return }
        mean = values.reduce(0, +) / Double(n)
        let s = values.sorted()
        func quantile(_ q: Double) -> Double {
            let r = q * Double(n - 1)
            let i = Int(r.rounded(.down)), f = r - Double(i)
            return i + 1 < n ? s[i] * (1 - f) + s[i + 1] * f : s[i]
        }
        median = quantile(0.5)
        p90 = quantile(0.9)
        max = s[n - 1]
        worst = Array(values.indices.sorted { values[$0] != values[$1] ? values[$0] > values[$1] : $0 < $1 }.prefix(5))
    }
}
