/// How the scene white is chosen (`--white-balance`).
public enum WhiteBalanceSpec: Sendable, Equatable, Codable {
    /// The file's `AsShotNeutral`, else `AsShotWhiteXY`, else D65 (see `DNGColorModel.solve`).
    case asShot
    /// A camera-native neutral (one value per colour plane, any positive scale), like `AsShotNeutral`.
    case cameraNeutral([Double])
    /// A white chromaticity.
    case whiteXY(Chromaticity)
    /// A correlated colour temperature and tint (DNG SDK convention, `ColorMath.tintScale`).
    case temperature(kelvin: Double, tint: Double)
}
