/// Why a camera profile cannot be turned into a colour model. One-line messages.
public enum ColorModelError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Neither ColorMatrix1 nor ColorMatrix2 is present (three-colour cameras need one).
    case noColorMatrix
    /// A matrix (named, e.g. "ColorMatrix1", "AnalogBalance·CameraCalibration1") cannot be inverted.
    case singularMatrix(String)
    /// A matrix or vector has non-finite entries.
    case nonFinite(String)
    /// Only three-colour (RGB) cameras are supported.
    case unsupportedColorPlanes(Int)

    public var description: String {
        switch self {
        case .noColorMatrix: return "camera profile has no ColorMatrix1 or ColorMatrix2"
        case .singularMatrix(let name): return "camera profile matrix \(name) is singular"
        case .nonFinite(let name): return "camera profile tag \(name) has non-finite values"
        case .unsupportedColorPlanes(let n): return "camera has \(n) colour planes; only 3 are supported"
        }
    }
}
