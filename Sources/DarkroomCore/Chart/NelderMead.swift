/// The Nelder–Mead downhill simplex minimiser (Nelder & Mead, "A simplex method for function
/// minimization", Computer Journal 7, 1965), with the standard coefficients (reflection 1,
/// expansion 2, contraction ½, shrink ½) as Lagarias et al. (SIAM J. Optim. 9, 1998) state them.
///
/// Derivative-free, so it suits objectives such as the mean CIEDE2000, which has kinks (hue
/// wrap-around, the R_T term). Deterministic: the same start and step give the same result.
public enum NelderMead {
    /// The minimum found and the objective's value there.
    public struct Result: Sendable, Equatable {
        public var point: [Double]
        public var value: Double
        /// Iterations run (each one reflection, possibly with expansion, contraction or shrink).
        public var iterations: Int
    }

    /// Minimises `f` from `start`. The initial simplex is `start` and `start` moved by `step` along
    /// each axis; it stops after `maximumIterations` or when the values at the simplex vertices
    /// differ by less than `tolerance` (absolute). A non-finite objective value counts as +∞.
    public static func minimise(_ f: ([Double]) -> Double, start: [Double], step: Double,
                                maximumIterations: Int = 4000, tolerance: Double = 1e-10) -> Result {
        let n = start.count
        func value(_ p: [Double]) -> Double { let v = f(p); return v.isFinite ? v : .infinity }
        var simplex: [[Double]] = [start]
        for i in 0..<n { var p = start; p[i] += step; simplex.append(p) }
        var values = simplex.map(value)
        guard n > 0 else { return Result(point: start, value: values[0], iterations: 0) }
        var iteration = 0
        while iteration < maximumIterations {
            // Order best → worst (stable: ties keep vertex order).
            let order = values.indices.sorted { values[$0] != values[$1] ? values[$0] < values[$1] : $0 < $1 }
            simplex = order.map { simplex[$0] }; values = order.map { values[$0] }
            if values[n] - values[0] < tolerance { break }
            iteration += 1
            var centroid = [Double](repeating: 0, count: n)
            for v in simplex.prefix(n) { for j in 0..<n { centroid[j] += v[j] / Double(n) } }
            func along(_ t: Double) -> [Double] { (0..<n).map { centroid[$0] + t * (simplex[n][$0] - centroid[$0]) } }
            let reflected = along(-1), fr = value(reflected)
            if fr < values[0] {
                let expanded = along(-2), fe = value(expanded)
                if fe < fr { simplex[n] = expanded; values[n] = fe } else { simplex[n] = reflected; values[n] = fr }
            } else if fr < values[n - 1] {
                simplex[n] = reflected; values[n] = fr
            } else {
                let outside = fr < values[n]
                let contracted = along(outside ? -0.5 : 0.5), fc = value(contracted)
                if fc < (outside ? fr : values[n]) {
                    simplex[n] = contracted; values[n] = fc
                } else {
                    for i in 1...n {
                        simplex[i] = (0..<n).map { simplex[0][$0] + 0.5 * (simplex[i][$0] - simplex[0][$0]) }
                        values[i] = value(simplex[i])
                    }
                }
            }
        }
        let best = values.indices.min { values[$0] != values[$1] ? values[$0] < values[$1] : $0 < $1 } ?? 0
        return Result(point: simplex[best], value: values[best], iterations: iteration)
    }
}
