import DarkroomCore
import Foundation

/// The scene illuminant a chart is compared under (`--illuminant`): it sets both the render's
/// white balance and the spectrum the built-in chart's reference XYZ is computed under.
public enum CompareIlluminant: Sendable, Equatable, CustomStringConvertible {
    /// The file's own white balance (AsShotNeutral through the file's profile); the spectrum is
    /// CIE daylight (≥ 4000 K) or a Planckian radiator at its correlated colour temperature.
    case asShot
    /// A tabulated CIE illuminant: A, D50, D55, D65, D75, F2, F11.
    case standard(String)
    /// CIE daylight (≥ 4000 K) or a Planckian radiator (below) at this correlated colour temperature.
    case kelvin(Double)
    /// A white chromaticity (the spectrum as for `kelvin` at its CCT; the render uses this xy).
    case chromaticity(Chromaticity)

    /// The names `standard` accepts.
    public static let standardNames = ["A", "D50", "D55", "D65", "D75", "F2", "F11"]

    /// Parses `as-shot`, a standard name (case-insensitive), `5500`/`5500K`, or `x,y`.
    public init?(parsing text: String) {
        let t = text.trimmingCharacters(in: .whitespaces)
        if t.lowercased() == "as-shot" { self = .asShot; return }
        if let name = Self.standardNames.first(where: { $0.caseInsensitiveCompare(t) == .orderedSame }) { self = .standard(name); return }
        let k = t.lowercased().hasSuffix("k") ? String(t.dropLast()) : t
        if let v = Double(k), v.isFinite, (1000...25000).contains(v) { self = .kelvin(v); return }
        let parts = t.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        if parts.count == 2, let x = parts[0], let y = parts[1], x > 0, y > 0, x + y < 1 {
            self = .chromaticity(Chromaticity(x: x, y: y)); return
        }
        return nil
    }

    public var description: String {
        switch self {
        case .asShot: return "as-shot"
        case .standard(let n): return n
        case .kelvin(let k): return String(format: "%.0fK", k)
        case .chromaticity(let c): return String(format: "%.5f,%.5f", c.x, c.y)
        }
    }

    /// The spectrum of the illuminant; `asShotWhite` is the file's as-shot white (for `.asShot`).
    public func spectrum(asShotWhite: Chromaticity) -> SampledSpectrum {
        switch self {
        case .asShot: return Spectral.illuminant(forWhite: asShotWhite)
        case .kelvin(let k): return k >= 4000 ? Spectral.daylight(kelvin: k) : Spectral.planckian(kelvin: k)
        case .chromaticity(let c): return Spectral.illuminant(forWhite: c)
        case .standard(let n):
            switch n {
            case "A": return Spectral.illuminantA
            case "D50": return Spectral.d50
            case "D55": return Spectral.daylight(kelvin: 5500 * 1.4388 / 1.4380)
            case "D75": return Spectral.daylight(kelvin: 7500 * 1.4388 / 1.4380)
            case "F2": return CIEIlluminantTables.f2
            case "F11": return CIEIlluminantTables.f11
            default: return Spectral.d65
            }
        }
    }

    /// The render's white balance: as shot, or the illuminant's chromaticity.
    public func whiteBalance(spectrum: SampledSpectrum) -> WhiteBalanceSpec {
        switch self {
        case .asShot: return .asShot
        case .chromaticity(let c): return .whiteXY(c)
        default: return .whiteXY(Spectral.chromaticity(spectrum))
        }
    }
}
