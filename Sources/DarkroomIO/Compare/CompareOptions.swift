import DarkroomCore
import Foundation

/// How measured XYZ is scaled before it is compared (`--normalise`), per profile and stage:
/// exposure error is not a colour error.
public enum CompareNormalisation: String, Sendable, Codable, CaseIterable {
    /// As rendered (BaselineExposure applied, as `develop --tone linear`).
    case none
    /// Measured Y of the white patch (patch 19 of a ColorChecker 24) = its reference Y.
    case white
    /// The least-squares scale k minimising Σ |k · XYZ_measured − XYZ_reference|² over the
    /// unclipped patches.
    case scale
}

/// Everything `darkroom compare` is asked to do.
public struct CompareOptions: Sendable {
    public var files: [String]
    /// `.dcp` paths, or "embedded" for the file's own profile; default ["embedded"].
    public var profiles: [String] = ["embedded"]
    public var reference: String = "colorchecker24"
    public var chart: ChartLocation = .auto
    public var illuminants: [CompareIlluminant] = [.asShot]
    public var normalisation: CompareNormalisation = .white
    public var outputDirectory: String
    public var overwrite = false
    /// Render threads (0 = one per core): changes speed, never a byte of the report.
    public var threads = 0
    /// Demosaic of the render.
    public var demosaic: DemosaicAlgorithm = .default
    /// Replaces the illuminant's white balance for the measurement (`profile fit` uses the camera
    /// neutral (1, 1, 1), so no patch clips because of a poor profile's white balance). The colour
    /// stages still use the plan's own balance; only camera RGB is meaningful then.
    public var measurementWhiteBalance: WhiteBalanceSpec?

    public init(files: [String], outputDirectory: String) {
        self.files = files; self.outputDirectory = outputDirectory
    }
}
