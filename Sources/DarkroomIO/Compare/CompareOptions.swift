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

/// Where the chart is (`--chart`).
public enum ChartLocation: Sendable, Equatable {
    /// Found in the image (`ChartFinder`).
    case auto
    /// Display-space corners of the patch grid: top-left (outer corner of patch A1), top-right,
    /// bottom-right, bottom-left, continuous pixel coordinates of the developed image.
    case corners([SIMD2<Double>])

    /// Parses `auto` or `x1,y1,x2,y2,x3,y3,x4,y4`; nil otherwise.
    public init?(parsing text: String) {
        if text.lowercased() == "auto" { self = .auto; return }
        let v = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard v.count == 8, v.allSatisfy({ $0?.isFinite == true && $0! >= 0 && $0! < 1e6 }) else { return nil }
        let n = v.compactMap { $0 }
        self = .corners((0..<4).map { SIMD2(n[2 * $0], n[2 * $0 + 1]) })
    }
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

    public init(files: [String], outputDirectory: String) {
        self.files = files; self.outputDirectory = outputDirectory
    }
}
