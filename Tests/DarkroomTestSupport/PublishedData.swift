/// Published reference data the test targets share (kept out of the sources they check).
public enum PublishedData {
    /// BabelColor, "ColorChecker RGB and spectra" (2012): the average chart's xyY under D50, 2°
    /// (as tabulated in colour-science `CCS_BABELCOLOR_AVERAGE`), 4 decimals, patches 1–24 in
    /// chart order. Our integration of the same spectra (10 nm data interpolated to 5 nm, CIE D50)
    /// agrees to 0.0012 in x, y and 0.001 in Y (`SpectralTests`); compare's tests use it as the
    /// reference that does not come from our spectral code.
    public static let babelColorD50xyY: [SIMD3<Double>] = [
        SIMD3(0.4325, 0.3788, 0.1034), SIMD3(0.4191, 0.3748, 0.3525), SIMD3(0.2761, 0.3004, 0.1847),
        SIMD3(0.3700, 0.4501, 0.1335), SIMD3(0.3020, 0.2877, 0.2324), SIMD3(0.2856, 0.3910, 0.4174),
        SIMD3(0.5291, 0.4075, 0.3117), SIMD3(0.2339, 0.2155, 0.1140), SIMD3(0.5008, 0.3293, 0.1979),
        SIMD3(0.3326, 0.2556, 0.0644), SIMD3(0.3989, 0.4998, 0.4435), SIMD3(0.4962, 0.4428, 0.4358),
        SIMD3(0.2040, 0.1696, 0.0579), SIMD3(0.3270, 0.5033, 0.2307), SIMD3(0.5709, 0.3298, 0.1268),
        SIMD3(0.4694, 0.4732, 0.6081), SIMD3(0.4177, 0.2704, 0.2007), SIMD3(0.2151, 0.3037, 0.1903),
        SIMD3(0.3488, 0.3628, 0.9129), SIMD3(0.3451, 0.3596, 0.5885), SIMD3(0.3446, 0.3590, 0.3595),
        SIMD3(0.3438, 0.3589, 0.1912), SIMD3(0.3423, 0.3576, 0.0893), SIMD3(0.3439, 0.3565, 0.0320),
    ]
}
