/// A spectral quantity (power, reflectance, a colour-matching function) sampled on the fixed grid
/// `grid`: 380…780 nm every 5 nm, 81 values — the CIE 15:2004 recommended interval for colorimetric
/// sums. Units are the caller's (relative power, reflectance 0…1, …).
public struct SampledSpectrum: Sendable, Equatable {
    /// First wavelength, step and count of the grid, nanometres.
    public static let startNanometres = 380.0
    public static let stepNanometres = 5.0
    public static let count = 81
    /// The wavelengths of the grid, nanometres.
    public static let grid: [Double] = (0..<count).map { startNanometres + Double($0) * stepNanometres }

    /// One value per grid wavelength.
    public var values: [Double]

    /// `values` must hold `count` (81) samples; shorter arrays are padded with their last value.
    public init(values: [Double]) {
        var v = values
        if v.count < Self.count { v += [Double](repeating: v.last ?? 0, count: Self.count - v.count) }
        self.values = Array(v.prefix(Self.count))
    }

    /// The function `f(λ)` (λ in nanometres) sampled on the grid.
    public init(_ f: (Double) -> Double) { values = Self.grid.map(f) }

    /// `samples` taken every `step` nm from `start` nm, moved onto the grid: linear interpolation
    /// inside, the nearest sample's value outside (CIE 15:2004 §7.2.2 extrapolation).
    public static func resampled(_ samples: [Double], start: Double, step: Double) -> SampledSpectrum {
        guard let first = samples.first, let last = samples.last, step > 0 else { return SampledSpectrum(values: []) }
        return SampledSpectrum { λ in
            let t = (λ - start) / step
            if t <= 0 { return first }
            let i = Int(t)
            if i >= samples.count - 1 { return last }
            let f = t - Double(i)
            return samples[i] * (1 - f) + samples[i + 1] * f
        }
    }

    /// The product, sample by sample.
    public static func * (a: SampledSpectrum, b: SampledSpectrum) -> SampledSpectrum {
        SampledSpectrum(values: zip(a.values, b.values).map { $0 * $1 })
    }

    /// Σ values × `weights` (a Riemann sum on the 5 nm grid, without the Δλ factor).
    public func dot(_ weights: SampledSpectrum) -> Double {
        var s = 0.0
        for i in 0..<Self.count { s += values[i] * weights.values[i] }
        return s
    }
}
