import DarkroomCore

/// The JSON report `darkroom constant-colour` writes beside its outputs (OUTDIR/STEM-constant-colour.json, STEM = the ambient file's name without extension).
public struct ConstantColourReport: Sendable, Codable, Equatable {
    public struct Registration: Sendable, Codable, Equatable {
        /// Flash-frame pixel (x + dx, y + dy) matches ambient pixel (x, y).
        public var dx: Int, dy: Int
        /// 1 − normalised cross-correlation of the frames' edge images at the shift (0 = perfect).
        public var residual: Double
    }
    public var ambient: String
    public var flash: String
    /// The constant-colour image(s) written.
    public var outputs: [String]
    /// The ordinary render(s) of the ambient frame written as the fallback (empty: none).
    public var fallbackOutputs: [String]
    /// Centre-weighted mean confidence, 0…1.
    public var centreWeightedConfidence: Double
    public var minConfidence: Double
    /// The fallback mode (auto, always, never).
    public var fallback: String
    /// Ambient frame value × this = the ambient light's share of the flash frame.
    public var exposureRatio: Double
    public var registration: Registration
    /// Where the flash profile came from ("flash file", a .dcp path, "--flash-xy") and its white.
    public var flashProfile: String
    public var flashWhiteXY: [Double]
    /// Median flash-only / ambient luminance ratio.
    public var medianFlashRatio: Double
    /// Fractions of the frame: flashShadow, specular, clipped, lowFlashRatio, outsideOverlap.
    public var maskFractions: [String: Double]
    public var parameters: ConstantColourParameters
    public var warnings: [String]
}
