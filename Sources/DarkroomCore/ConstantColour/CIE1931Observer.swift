/// The CIE 1931 2° standard observer's colour-matching functions x̄, ȳ, z̄ (CIE 015:2018, table
/// values as colour-science 0.4.6 ships them), 380–780 nm in 5 nm steps.
public enum CIE1931Observer {
    public static let firstWavelength = 380.0
    public static let step = 5.0
    public static let table: [SIMD3<Double>] = [
        SIMD3(0.001368, 3.9e-05, 0.006450001),
        SIMD3(0.002236, 6.4e-05, 0.01054999),
        SIMD3(0.004243, 0.00012, 0.02005001),
        SIMD3(0.00765, 0.000217, 0.03621),
        SIMD3(0.01431, 0.000396, 0.06785001),
        SIMD3(0.02319, 0.00064, 0.1102),
        SIMD3(0.04351, 0.00121, 0.2074),
        SIMD3(0.07763, 0.00218, 0.3713),
        SIMD3(0.13438, 0.004, 0.6456),
        SIMD3(0.21477, 0.0073, 1.0390501),
        SIMD3(0.2839, 0.0116, 1.3856),
        SIMD3(0.3285, 0.01684, 1.62296),
        SIMD3(0.34828, 0.023, 1.74706),
        SIMD3(0.34806, 0.0298, 1.7826),
        SIMD3(0.3362, 0.038, 1.77211),
        SIMD3(0.3187, 0.048, 1.7441),
        SIMD3(0.2908, 0.06, 1.6692),
        SIMD3(0.2511, 0.0739, 1.5281),
        SIMD3(0.19536, 0.09098, 1.28764),
        SIMD3(0.1421, 0.1126, 1.0419),
        SIMD3(0.09564, 0.13902, 0.8129501),
        SIMD3(0.05795001, 0.1693, 0.6162),
        SIMD3(0.03201, 0.20802, 0.46518),
        SIMD3(0.0147, 0.2586, 0.3533),
        SIMD3(0.0049, 0.323, 0.272),
        SIMD3(0.0024, 0.4073, 0.2123),
        SIMD3(0.0093, 0.503, 0.1582),
        SIMD3(0.0291, 0.6082, 0.1117),
        SIMD3(0.06327, 0.71, 0.07824999),
        SIMD3(0.1096, 0.7932, 0.05725001),
        SIMD3(0.1655, 0.862, 0.04216),
        SIMD3(0.2257499, 0.9148501, 0.02984),
        SIMD3(0.2904, 0.954, 0.0203),
        SIMD3(0.3597, 0.9803, 0.0134),
        SIMD3(0.4334499, 0.9949501, 0.008749999),
        SIMD3(0.5120501, 1, 0.005749999),
        SIMD3(0.5945, 0.995, 0.0039),
        SIMD3(0.6784, 0.9786, 0.002749999),
        SIMD3(0.7621, 0.952, 0.0021),
        SIMD3(0.8425, 0.9154, 0.0018),
        SIMD3(0.9163, 0.87, 0.001650001),
        SIMD3(0.9786, 0.8163, 0.0014),
        SIMD3(1.0263, 0.757, 0.0011),
        SIMD3(1.0567, 0.6949, 0.001),
        SIMD3(1.0622, 0.631, 0.0008),
        SIMD3(1.0456, 0.5668, 0.0006),
        SIMD3(1.0026, 0.503, 0.00034),
        SIMD3(0.9384, 0.4412, 0.00024),
        SIMD3(0.8544499, 0.381, 0.00019),
        SIMD3(0.7514, 0.321, 0.0001),
        SIMD3(0.6424, 0.265, 4.999999e-05),
        SIMD3(0.5419, 0.217, 3e-05),
        SIMD3(0.4479, 0.175, 2e-05),
        SIMD3(0.3608, 0.1382, 1e-05),
        SIMD3(0.2835, 0.107, 2.117582368e-22),
        SIMD3(0.2187, 0.0816, 0),
        SIMD3(0.1649, 0.061, 0),
        SIMD3(0.1212, 0.04458, 0),
        SIMD3(0.0874, 0.032, 0),
        SIMD3(0.0636, 0.0232, 0),
        SIMD3(0.04677, 0.017, 0),
        SIMD3(0.0329, 0.01192, 0),
        SIMD3(0.0227, 0.00821, 0),
        SIMD3(0.01584, 0.005723, 0),
        SIMD3(0.01135916, 0.004102, 0),
        SIMD3(0.008110916, 0.002929, 0),
        SIMD3(0.005790346, 0.002091, 0),
        SIMD3(0.004109457, 0.001484, 0),
        SIMD3(0.002899327, 0.001047, 0),
        SIMD3(0.00204919, 0.00074, 0),
        SIMD3(0.001439971, 0.00052, 0),
        SIMD3(0.0009999493, 0.0003611, 0),
        SIMD3(0.0006900786, 0.0002492, 0),
        SIMD3(0.0004760213, 0.0001719, 0),
        SIMD3(0.0003323011, 0.00012, 0),
        SIMD3(0.0002348261, 8.48e-05, 0),
        SIMD3(0.0001661505, 6e-05, 0),
        SIMD3(0.000117413, 4.24e-05, 0),
        SIMD3(8.307527e-05, 3e-05, 0),
        SIMD3(5.870652e-05, 2.12e-05, 0),
        SIMD3(4.150994e-05, 1.499e-05, 0),
    ]

    /// The chromaticity of a spectral power distribution given as (wavelength nm, power) samples in
    /// increasing wavelength: the spectrum is interpolated linearly onto the table's wavelengths
    /// (0 outside its range) and integrated against x̄, ȳ, z̄. Nil when the integral is not positive.
    public static func chromaticity(of samples: [(nm: Double, power: Double)]) -> Chromaticity? {
        guard let first = samples.first, let last = samples.last, samples.count >= 2 else { return nil }
        var xyz = SIMD3<Double>(0, 0, 0)
        var j = 0
        for (i, cmf) in table.enumerated() {
            let nm = firstWavelength + Double(i) * step
            guard nm >= first.nm, nm <= last.nm else { continue }
            while j + 1 < samples.count, samples[j + 1].nm < nm { j += 1 }
            let a = samples[j], b = samples[min(j + 1, samples.count - 1)]
            let t = b.nm > a.nm ? (nm - a.nm) / (b.nm - a.nm) : 0
            let power = a.power + (b.power - a.power) * min(max(t, 0), 1)
            xyz += power * cmf
        }
        let sum = xyz.x + xyz.y + xyz.z
        guard sum > 0, sum.isFinite, xyz.y > 0 else { return nil }
        return Chromaticity(x: xyz.x / sum, y: xyz.y / sum)
    }
}
