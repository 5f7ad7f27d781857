import Foundation

/// Colorimetry from spectra (CIE 15:2004 §7): tristimulus values of a reflecting sample under an
/// illuminant for the CIE 1931 2° observer, the spectra of the CIE illuminants (A and any
/// Planckian radiator, the D series at any correlated colour temperature, F2 and F11), and
/// correlated colour temperature ↔ chromaticity.
///
/// Sums run over `SampledSpectrum.grid` (380…780 nm, 5 nm). XYZ is relative: the perfect
/// diffuser (reflectance 1) under the illuminant has Y = 1.
public enum Spectral {
    /// Second radiation constant c2 = hc/k, nm·K (CODATA 2018: 1.438777 × 10⁻² m·K).
    public static let c2 = 1.438777e7

    /// XYZ of a sample of spectral reflectance `reflectance` lit by `illuminant`:
    /// X = Σ R S x̄ / Σ S ȳ (likewise Y, Z), so the perfect diffuser has Y = 1.
    public static func xyz(reflectance: SampledSpectrum, illuminant: SampledSpectrum) -> SIMD3<Double> {
        let rs = reflectance * illuminant
        let k = illuminant.dot(CIE1931Observer.yBar)
        guard k > 0 else { return SIMD3(0, 0, 0) }
        return SIMD3(rs.dot(CIE1931Observer.xBar), rs.dot(CIE1931Observer.yBar), rs.dot(CIE1931Observer.zBar)) / k
    }

    /// XYZ of the illuminant itself (the perfect diffuser under it), Y = 1.
    public static func whiteXYZ(_ illuminant: SampledSpectrum) -> SIMD3<Double> {
        xyz(reflectance: SampledSpectrum(values: [Double](repeating: 1, count: SampledSpectrum.count)), illuminant: illuminant)
    }

    /// The chromaticity of an illuminant's spectrum.
    public static func chromaticity(_ illuminant: SampledSpectrum) -> Chromaticity {
        ColorMath.xyzToXY(whiteXYZ(illuminant))
    }

    // MARK: Illuminants

    /// A Planckian (black-body) radiator at `kelvin`, relative spectral power normalised to 100 at
    /// 560 nm: S(λ) = 100 (560/λ)⁵ (e^(c2/(560 T)) − 1) / (e^(c2/(λ T)) − 1) (CIE 15:2004 eq. 3.1).
    public static func planckian(kelvin: Double, c2: Double = Spectral.c2) -> SampledSpectrum {
        let t = max(kelvin, 1)
        return SampledSpectrum { λ in 100 * pow(560 / λ, 5) * expm1(c2 / (560 * t)) / expm1(c2 / (λ * t)) }
    }

    /// CIE standard illuminant A: the Planckian radiator of 2848 K with c2 = 1.435 × 10⁷ nm·K as
    /// CIE 15:2004 defines it (≈ 2856 K with today's c2).
    public static let illuminantA = planckian(kelvin: 2848, c2: 1.435e7)

    /// CIE D65 (CIE 15:2004: daylight at 6500 K on the c2 = 1.4380 × 10⁷ scale, ≈ 6504 K today).
    public static let d65 = daylight(kelvin: 6500 * 1.4388 / 1.4380)
    /// CIE D50 (5000 K on the old scale, ≈ 5003 K), the ICC and DNG PCS white.
    public static let d50 = daylight(kelvin: 5000 * 1.4388 / 1.4380)

    /// The chromaticity (x_D, y_D) of CIE daylight at correlated colour temperature `kelvin`
    /// (CIE 15:2004 eqs. 3.3–3.4; valid 4000…25000 K, clamped to that range).
    public static func daylightChromaticity(kelvin: Double) -> Chromaticity {
        let t = min(max(kelvin, 4000), 25000)
        let x = t <= 7000
            ? -4.6070e9 / (t * t * t) + 2.9678e6 / (t * t) + 0.09911e3 / t + 0.244063
            : -2.0064e9 / (t * t * t) + 1.9018e6 / (t * t) + 0.24748e3 / t + 0.237040
        return Chromaticity(x: x, y: -3.000 * x * x + 2.870 * x - 0.275)
    }

    /// The relative spectral power of CIE daylight at `kelvin` (4000…25000 K), S0 + M1 S1 + M2 S2
    /// with M1, M2 from `daylightChromaticity` (CIE 15:2004 eq. 3.5), rounded to three decimals
    /// as CIE 15 prescribes so D65 and D50 equal the published tables (`d65`, `d50`).
    public static func daylight(kelvin: Double) -> SampledSpectrum {
        let c = daylightChromaticity(kelvin: kelvin)
        let den = 0.0241 + 0.2562 * c.x - 0.7341 * c.y
        let m1 = ((-1.3515 - 1.7703 * c.x + 5.9114 * c.y) / den * 1000).rounded() / 1000
        let m2 = ((0.0300 - 31.4424 * c.x + 30.0717 * c.y) / den * 1000).rounded() / 1000
        let s0 = CIEIlluminantTables.s0.values, s1 = CIEIlluminantTables.s1.values, s2 = CIEIlluminantTables.s2.values
        return SampledSpectrum(values: (0..<SampledSpectrum.count).map { s0[$0] + m1 * s1[$0] + m2 * s2[$0] })
    }

    /// A spectrum for a scene white given only its chromaticity: CIE daylight at its correlated
    /// colour temperature from 4000 K up, a Planckian radiator below (the convention of DCamProf
    /// and most chart tools). Its own chromaticity (`chromaticity(_:)`) differs from `white` by
    /// the white's distance from the locus; callers adapt from that chromaticity.
    public static func illuminant(forWhite white: Chromaticity) -> SampledSpectrum {
        let kelvin = ColorMath.xyToTemperatureTint(white).kelvin
        return kelvin >= 4000 ? daylight(kelvin: kelvin) : planckian(kelvin: kelvin)
    }

    // MARK: CCT ↔ xy

    /// Correlated colour temperature (kelvin) of a chromaticity, Robertson's method
    /// (`ColorMath.xyToTemperatureTint`).
    public static func correlatedColorTemperature(_ c: Chromaticity) -> Double { ColorMath.xyToTemperatureTint(c).kelvin }

    /// The Planckian locus point at `kelvin` (tint 0), Robertson's table (`ColorMath.temperatureTintToXY`).
    public static func planckianChromaticity(kelvin: Double) -> Chromaticity {
        ColorMath.temperatureTintToXY(kelvin: kelvin, tint: 0)
    }
}
