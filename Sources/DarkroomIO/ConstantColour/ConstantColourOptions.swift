import DarkroomCore

/// How `darkroom constant-colour` runs (everything but the two input paths and the output folder).
public struct ConstantColourOptions: Sendable {
    /// Where the flash camera profile comes from.
    public enum FlashProfile: Sendable, Equatable {
        /// The flash frame's own profile, whose CalibrationIlluminant1/2/3 names Flash (4) or Other
        /// (255) with IlluminantData; its white is that illuminant's.
        case fromFlashFile
        /// A `.dcp` file, its white from its Flash (4) or Other (255) calibration illuminant.
        case dcp(path: String)
        /// The flash frame's own colour model evaluated at this white.
        case whiteXY(Chromaticity)
        /// The flash frame's own colour model at the white of this spectrum (CSV: wavelength nm,
        /// relative power per line; `FlashSpectrum`).
        case spectrum(path: String)
    }
    /// When the ordinary render of the ambient frame is also written.
    public enum Fallback: String, Sendable, CaseIterable, Codable {
        /// When the centre-weighted confidence is below `minConfidence`.
        case auto
        case always, never
    }

    public var flashProfile: FlashProfile = .fromFlashFile
    public var formats: [OutputFormat] = [.jpeg]
    public var fallback: Fallback = .auto
    /// Centre-weighted confidence (0…1) below which `.auto` writes the fallback.
    public var minConfidence: Double = 0.5
    public var parameters = ConstantColourParameters()
    /// Worker threads (0 = one per active core); changes speed, never bytes.
    public var threads: Int = 0
    public var overwrite: Bool = false
    /// 8 or 16 (HEIF/TIFF only; JPEG is always 8).
    public var bitsPerSample: Int = 8
    public init() {}
}
