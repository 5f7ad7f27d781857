/// Published spectral sensitivities of real cameras, for synthetic non-Luther cameras (a camera
/// whose channels are not a linear transform of the CIE observer, so no 3 × 3 matrix is exact).
///
/// Provenance: the Nikon D5100 measured by the UK National Physical Laboratory (Darrodi, Finlayson,
/// Goodman & Mackiewicz, "Reference data set for camera spectral sensitivity estimation", JOSA A
/// 32(3), 2015), as tabulated in the colour-science project
/// (`colour/characterisation/datasets/cameras/dslr/sensitivities.py`, "Nikon 5100 (NPL)"),
/// 380…780 nm every 5 nm, relative (green peak ≈ 1). Facts, not code.
public enum CameraSensitivities {
    /// Nikon D5100 red, green and blue channel sensitivities on `SampledSpectrum.grid`.
    public static let nikonD5100: (red: SampledSpectrum, green: SampledSpectrum, blue: SampledSpectrum) = (
        SampledSpectrum(values: [
        0.00156384, 0.00189692, 0, 0, 0, 0.000717767,
        0.00292397, 0.0129363, 0.0495979, 0.0760725, 0.0765889, 0.0683338,
        0.0613182, 0.0547331, 0.048862, 0.0428459, 0.0402285, 0.043408,
        0.0476202, 0.0507719, 0.0528033, 0.0525712, 0.0478946, 0.0482399,
        0.0502292, 0.0550765, 0.0637021, 0.0803895, 0.100388, 0.118613,
        0.123609, 0.103062, 0.0763411, 0.0527809, 0.0411887, 0.0390439,
        0.0425443, 0.0602131, 0.111796, 0.269671, 0.564503, 0.853601,
        0.981032, 1, 0.963071, 0.905521, 0.834278, 0.767987,
        0.703668, 0.639165, 0.570813, 0.495818, 0.438339, 0.38897,
        0.342956, 0.292785, 0.237707, 0.164914, 0.0912877, 0.0420562,
        0.0205827, 0.0102868, 0.0054076, 0.00272409, 0.00127835, 0.000781231,
        0.000479814, 0.000491334, 0.000174149, 0.000120175, 0, 6.12e-05,
        0, 0, 0.000310998, 0, 0, 0,
        8.56e-05, 0.000138314, 3.62e-05,
        ]),
        SampledSpectrum(values: [
        0.000115, 0.00152114, 0.000574305, 0, 0, 0.00119722,
        0.00133571, 0.0131943, 0.064971, 0.115103, 0.137066, 0.152429,
        0.16864, 0.183299, 0.196033, 0.217337, 0.254244, 0.308648,
        0.373469, 0.429158, 0.459654, 0.471064, 0.488856, 0.537152,
        0.616491, 0.707006, 0.800964, 0.881373, 0.938878, 0.984466,
        1, 0.99084, 0.961546, 0.928144, 0.889102, 0.834942,
        0.776318, 0.707314, 0.635796, 0.565515, 0.492755, 0.424757,
        0.351789, 0.278178, 0.211674, 0.156716, 0.11804, 0.0888525,
        0.0701018, 0.056909, 0.0472988, 0.0411959, 0.0352521, 0.0306931,
        0.026804, 0.0235243, 0.0203463, 0.0154585, 0.00944075, 0.00508102,
        0.00291019, 0.00162658, 0.000922516, 0.000497433, 0.000412159, 0.000316926,
        0.000256215, 0, 0.000243535, 6.02e-05, 0, 0,
        0, 1.71e-05, 5.21e-05, 8.85e-05, 0, 0,
        0.000138, 0.00017865, 4.25e-05,
        ]),
        SampledSpectrum(values: [
        0.00180956, 0.000489828, 0.000879431, 0, 0.00153246, 0.00569806,
        0.0166083, 0.0787912, 0.361714, 0.659705, 0.755344, 0.810453,
        0.874945, 0.926713, 0.963141, 0.98065, 1, 0.996405,
        0.98897, 0.956601, 0.904959, 0.839409, 0.751463, 0.660102,
        0.567069, 0.479351, 0.394063, 0.314271, 0.249817, 0.201824,
        0.161634, 0.135161, 0.109989, 0.0863944, 0.0652531, 0.047856,
        0.0341393, 0.0240199, 0.0197679, 0.0163484, 0.0138173, 0.0119529,
        0.0100091, 0.00758776, 0.00645584, 0.00522978, 0.00365998, 0.00395539,
        0.00396835, 0.00349138, 0.00404302, 0.0041893, 0.00554677, 0.00546423,
        0.00597383, 0.00630907, 0.00610413, 0.00483656, 0.00302665, 0.0017217,
        0.000780651, 0.000569631, 0.000275233, 0.000296721, 0.000249512, 8.5e-05,
        0.000419169, 0.000153317, 1.83e-05, 0, 0.000338694, 0,
        0, 0.000165278, 0.000177553, 0, 2.43e-05, 6.18e-05,
        0.000262607, 0.000280505, 0,
        ]))

    /// The raw response (R, G, B) of a camera with sensitivities `s` to a sample of reflectance
    /// `reflectance` under `illuminant`: Σ R(λ) S(λ) s_c(λ) / Σ S(λ) ȳ(λ) (on the scale of
    /// `Spectral.xyz`, so a perfect diffuser's response is of order 1).
    public static func response(_ s: (red: SampledSpectrum, green: SampledSpectrum, blue: SampledSpectrum),
                                reflectance: SampledSpectrum, illuminant: SampledSpectrum) -> SIMD3<Double> {
        let rs = reflectance * illuminant
        let k = illuminant.dot(CIE1931Observer.yBar)
        guard k > 0 else { return SIMD3(0, 0, 0) }
        return SIMD3(rs.dot(s.red), rs.dot(s.green), rs.dot(s.blue)) / k
    }
}
