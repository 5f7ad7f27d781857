/// Published spectral sensitivities of real cameras, for synthetic non-Luther cameras (a camera
/// whose channels are not a linear transform of the CIE observer, so no 3 × 3 matrix is exact).
///
/// Provenance: the Nikon D5100 measured by the UK National Physical Laboratory (Darrodi, Finlayson,
/// Goodman & Mackiewicz, "Reference data set for camera spectral sensitivity estimation", JOSA A
/// 32(3), 2015), as tabulated in the colour-science project
/// (`colour/characterisation/datasets/cameras/dslr/sensitivities.py`, "Nikon 5100 (NPL)"),
/// 380…780 nm every 5 nm, relative (green peak ≈ 1); and the Sigma SD Merrill from the same
/// study and file (below). Facts, not code.
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

    /// The Sigma SD Merrill (a Foveon X3 sensor: three stacked photodiodes with broad, heavily
    /// overlapping sensitivities — far from Luther) measured by the NPL in the same study, as
    /// tabulated in the same colour-science file ("Sigma SDMerill (NPL)"): 400…680 nm every 10 nm,
    /// relative. `sigmaSDMerrill` moves them onto `SampledSpectrum.grid` by linear interpolation,
    /// zero outside the measured range.
    public static let sigmaSDMerrillTable: (red: [Double], green: [Double], blue: [Double]) = (
        [
            0.005621074406087, 0.00650335624511722, 0.0740791128914004, 0.0430229594629288, 0.0345095256224701,
            0.0188915672343435, 0.007311076996802, 0.0454991512309602, 0.0567675292111168, 0.134195920659178,
            0.164752689978376, 0.217126419786392, 0.306483438358244, 0.349845796148885, 0.443742581332593,
            0.444888605281263, 0.478975756747026, 0.509502914810739, 0.592629093785305, 0.673833275606976,
            0.714037714881065, 0.860007613114951, 0.898103028495652, 1.0, 0.994942133112452,
            0.92085127736138, 0.181433116314253, 0.0063097879537275, 0.00528874383171553,
        ],
        [
            0.00632809751263117, 0.00976180459591275, 0.0252717700826105, 0.0837511858531122, 0.14370381974361,
            0.183611689308822, 0.40909478009953, 0.515955640861764, 0.601206646627055, 0.670316799801363,
            0.752587471534758, 0.843813843689442, 0.901517245588127, 0.919750306687677, 0.967994290521578,
            0.957252310640411, 0.952047918600474, 0.976280144583998, 0.972586243889558, 1.0,
            0.969484527577774, 0.954413191248507, 0.933354358909213, 0.925714068336362, 0.884864395415034,
            0.761651847416157, 0.140524370571505, 0.00414367215817646, 0.00183198958165669,
        ],
        [
            0.162159424133079, 0.285498378046286, 0.396904310609021, 0.508310243171756, 0.622118472469488,
            0.737421362457695, 0.94538036670138, 0.964414947702804, 1.0, 0.985980211884525,
            0.98340266357529, 0.969692195670726, 0.942808174020798, 0.896642799180709, 0.884445902200419,
            0.867918990715971, 0.833756795849084, 0.83204140240573, 0.800549563847782, 0.782895124746465,
            0.739469530071918, 0.667186401749857, 0.620436278068167, 0.611160878769567, 0.551735561957106,
            0.465388317445164, 0.0796190783672069, 0.000592444461072368, 0.00468563680483141,
        ])
    /// The Sigma SD Merrill's red, green and blue sensitivities on `SampledSpectrum.grid`.
    public static let sigmaSDMerrill: (red: SampledSpectrum, green: SampledSpectrum, blue: SampledSpectrum) = {
        func grid(_ v: [Double]) -> SampledSpectrum {
            SampledSpectrum { λ in
                let t = (λ - 400) / 10
                guard t >= 0, t <= Double(v.count - 1) else { return 0 }
                let i = min(Int(t), v.count - 2), f = t - Double(i)
                return v[i] * (1 - f) + v[i + 1] * f
            }
        }
        return (grid(sigmaSDMerrillTable.red), grid(sigmaSDMerrillTable.green), grid(sigmaSDMerrillTable.blue))
    }()

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
