/// The RGB spaces Darkroom renders into (`--color-space`), each with its primaries, white,
/// transfer function and the matrices to and from the D50 connection space.
///
/// Matrices follow ICC practice: RGB (relative to the space's own white) → XYZ under that
/// white, then Bradford-adapted to `ColorMath.d50`. So D50 white maps to RGB (1, 1, 1) in every
/// space, and the embedded ICC profile's rXYZ/gXYZ/bXYZ tags are these matrix columns.
public enum OutputColorSpace: String, Sendable, Codable, CaseIterable {
    case srgb, srgbLinear = "srgb-linear"
    case p3, p3Linear = "p3-linear"
    case rec2020, rec2020Linear = "rec2020-linear"
    case adobeRGB = "adobergb", adobeRGBLinear = "adobergb-linear"
    case prophoto, prophotoLinear = "prophoto-linear"

    /// The same primaries with a linear transfer function (self when already linear).
    public var linearVariant: OutputColorSpace {
        switch self {
        case .srgb, .srgbLinear: return .srgbLinear
        case .p3, .p3Linear: return .p3Linear
        case .rec2020, .rec2020Linear: return .rec2020Linear
        case .adobeRGB, .adobeRGBLinear: return .adobeRGBLinear
        case .prophoto, .prophotoLinear: return .prophotoLinear
        }
    }

    private var primaries: (r: Chromaticity, g: Chromaticity, b: Chromaticity) {
        switch linearVariant {
        case .srgbLinear:  // IEC 61966-2-1 = ITU-R BT.709
            return (Chromaticity(x: 0.64, y: 0.33), Chromaticity(x: 0.30, y: 0.60), Chromaticity(x: 0.15, y: 0.06))
        case .p3Linear:  // SMPTE EG 432-1 (DCI-P3 primaries)
            return (Chromaticity(x: 0.680, y: 0.320), Chromaticity(x: 0.265, y: 0.690), Chromaticity(x: 0.150, y: 0.060))
        case .rec2020Linear:  // ITU-R BT.2020
            return (Chromaticity(x: 0.708, y: 0.292), Chromaticity(x: 0.170, y: 0.797), Chromaticity(x: 0.131, y: 0.046))
        case .adobeRGBLinear:  // Adobe RGB (1998) 1.2.1
            return (Chromaticity(x: 0.64, y: 0.33), Chromaticity(x: 0.21, y: 0.71), Chromaticity(x: 0.15, y: 0.06))
        default:  // ROMM RGB, ISO 22028-2
            return (Chromaticity(x: 0.7347, y: 0.2653), Chromaticity(x: 0.1596, y: 0.8404), Chromaticity(x: 0.0366, y: 0.0001))
        }
    }

    public var red: Chromaticity { primaries.r }
    public var green: Chromaticity { primaries.g }
    public var blue: Chromaticity { primaries.b }

    /// The space's own white as its standard defines it: D65 (0.3127, 0.3290) for all but
    /// ProPhoto, whose ROMM white is D50 (0.3457, 0.3585).
    public var white: Chromaticity {
        switch linearVariant {
        case .prophotoLinear: return Chromaticity(x: 0.3457, y: 0.3585)
        default: return Chromaticity(x: 0.3127, y: 0.3290)
        }
    }

    /// The encoding curve. Display P3 uses the sRGB curve; Rec.2020 uses the BT.2020 OETF
    /// (= BT.709's, 10-bit constants), as the ITU and most Rec.2020 ICC profiles do, rather than
    /// a BT.1886 2.4 display gamma; Adobe RGB uses γ = 563/256; ProPhoto the ROMM curve with its
    /// linear toe.
    public var transfer: TransferFunction {
        switch self {
        case .srgb, .p3: return .srgb
        case .rec2020: return .bt709
        case .adobeRGB: return .gamma(563.0 / 256.0)
        case .prophoto: return .romm
        default: return .linear
        }
    }

    public var isLinear: Bool { transfer == .linear }

    /// Linear RGB → XYZ relative to D50 (Bradford-adapted from `white`), as ICC colorants.
    public var linearRGBToXYZD50: Matrix3 {
        ColorMath.bradford(from: white, to: ColorMath.d50) * OutputColorSpace.rgbToXYZ(primaries, white: white)
    }

    /// XYZ relative to D50 → linear RGB; the inverse of `linearRGBToXYZD50`.
    public var xyzD50ToLinearRGB: Matrix3 { linearRGBToXYZD50.inverse ?? .identity }

    /// The name shown to users and written as the ICC `desc` tag.
    public var displayName: String {
        switch self {
        case .srgb: return "sRGB IEC61966-2.1"
        case .srgbLinear: return "sRGB linear"
        case .p3: return "Display P3"
        case .p3Linear: return "Display P3 linear"
        case .rec2020: return "ITU-R BT.2020"
        case .rec2020Linear: return "ITU-R BT.2020 linear"
        case .adobeRGB: return "Adobe RGB (1998) compatible"
        case .adobeRGBLinear: return "Adobe RGB (1998) compatible linear"
        case .prophoto: return "ProPhoto RGB (ROMM)"
        case .prophotoLinear: return "ProPhoto RGB (ROMM) linear"
        }
    }

    /// The file name of the space's ICC profile in `Profiles/`.
    public var iccFileName: String {
        switch self {
        case .srgb: return "sRGB.icc"
        case .srgbLinear: return "sRGB-linear.icc"
        case .p3: return "DisplayP3.icc"
        case .p3Linear: return "DisplayP3-linear.icc"
        case .rec2020: return "Rec2020.icc"
        case .rec2020Linear: return "Rec2020-linear.icc"
        case .adobeRGB: return "AdobeRGB.icc"
        case .adobeRGBLinear: return "AdobeRGB-linear.icc"
        case .prophoto: return "ProPhoto.icc"
        case .prophotoLinear: return "ProPhoto-linear.icc"
        }
    }

    /// The classic primaries → XYZ construction (SMPTE RP 177): columns are the primaries' XYZ
    /// scaled so RGB (1, 1, 1) is the white with Y = 1.
    static func rgbToXYZ(_ p: (r: Chromaticity, g: Chromaticity, b: Chromaticity), white: Chromaticity) -> Matrix3 {
        let r = ColorMath.xyToXYZ(p.r), g = ColorMath.xyToXYZ(p.g), b = ColorMath.xyToXYZ(p.b)
        let m = Matrix3(rows: SIMD3(r.x, g.x, b.x), SIMD3(r.y, g.y, b.y), SIMD3(r.z, g.z, b.z))
        let s = (m.inverse ?? .identity) * ColorMath.xyToXYZ(white)
        return m * Matrix3.diagonal(s)
    }
}
