/// The DNG colour model resolved for one scene white: everything the camera → XYZ stage needs.
public struct ColorSolution: Sendable, Equatable {
    /// Camera-native RGB of the scene white, max component 1 (each component ≥ 0.001).
    public var cameraNeutral: SIMD3<Double>
    /// The scene white.
    public var whiteXY: Chromaticity
    public var temperatureKelvin: Double
    public var tint: Double
    /// Interpolation weight of matrix set 1 (1 = all `ColorMatrix1`, 0 = all `ColorMatrix2`).
    public var weight1: Double
    /// Interpolated XYZ → camera-native, including `AnalogBalance · CameraCalibration`.
    public var colorMatrix: Matrix3
    /// Interpolated, normalised `ForwardMatrix` (white-balanced reference camera → XYZ D50), when present.
    public var forwardMatrix: Matrix3?
    /// Camera-native (not white-balanced) RGB → XYZ D50 (DNG spec chapter 6). Maps
    /// `cameraNeutral` to the D50 white with Y = 1.
    public var cameraToXYZD50: Matrix3
    /// Non-fatal observations (missing tags, clamped values, non-convergence).
    public var warnings: [String]
    /// Weights of matrix sets 1, 2, 3 (sum 1) for a triple-illuminant profile (DNG 1.6); nil for
    /// one or two sets. `weight1` is then its first component.
    public var tripleIlluminantWeights: SIMD3<Double>?

    public init(cameraNeutral: SIMD3<Double>, whiteXY: Chromaticity, temperatureKelvin: Double, tint: Double,
                weight1: Double, colorMatrix: Matrix3, forwardMatrix: Matrix3?, cameraToXYZD50: Matrix3,
                warnings: [String], tripleIlluminantWeights: SIMD3<Double>? = nil) {
        self.cameraNeutral = cameraNeutral; self.whiteXY = whiteXY
        self.temperatureKelvin = temperatureKelvin; self.tint = tint; self.weight1 = weight1
        self.colorMatrix = colorMatrix; self.forwardMatrix = forwardMatrix
        self.cameraToXYZD50 = cameraToXYZD50; self.warnings = warnings
        self.tripleIlluminantWeights = tripleIlluminantWeights
    }

    /// White-balance gains for camera-native values: `1 / cameraNeutral` (the neutral becomes 1, 1, 1).
    public var whiteBalanceGains: SIMD3<Double> { 1 / cameraNeutral }

    /// White-balanced camera RGB (after `whiteBalanceGains`) → XYZ D50:
    /// `cameraToXYZD50 · diag(cameraNeutral)`. Maps (1, 1, 1) to the D50 white.
    public var balancedCameraToXYZD50: Matrix3 { cameraToXYZD50 * Matrix3.diagonal(cameraNeutral) }
}
