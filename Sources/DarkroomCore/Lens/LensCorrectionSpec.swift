/// One kind of lens correction lensfun can describe.
public enum LensCorrectionKind: String, Sendable, Codable, CaseIterable, Comparable {
    /// Geometric distortion (barrel, pincushion): lensfun's poly3, poly5 or ptlens model.
    case distortion
    /// Transverse (lateral) chromatic aberration: red and blue scaled radially against green.
    case tca
    /// Vignetting: a radial gain (lensfun's pa model, 1 + k1 r² + k2 r⁴ + k3 r⁶).
    case vignetting

    public static func < (a: Self, b: Self) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// Which lens corrections a develop applies (`--lens auto|off|LIST`).
///
/// - `auto` (the default): every correction the lensfun database has for the file's camera and
///   lens, when it has the pair; nothing otherwise, and nothing for a DNG whose writer already
///   corrected it (WarpRectilinear/WarpRectilinear2/FixVignetteRadial in its opcode lists).
/// - `off`: none.
/// - a LIST of `distortion`, `tca`, `vignetting`: those of them the database has, even for a DNG
///   with its own correction opcodes.
public enum LensCorrectionSpec: Sendable, Equatable, Codable {
    case auto
    case off
    case only(Set<LensCorrectionKind>)

    public struct ParseError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Reads `auto`, `off` or a comma-separated list of `distortion`, `tca`, `vignetting`.
    public init(parsing text: String) throws(ParseError) {
        let t = text.lowercased().replacingOccurrences(of: " ", with: "")
        switch t {
        case "auto": self = .auto
        case "off", "none": self = .off
        default:
            var kinds = Set<LensCorrectionKind>()
            for part in t.split(separator: ",", omittingEmptySubsequences: false) {
                guard let k = LensCorrectionKind(rawValue: String(part)) else {
                    throw ParseError(description: "must be auto, off, or a list of distortion, tca, vignetting (got '\(text)')")
                }
                kinds.insert(k)
            }
            guard !kinds.isEmpty else { throw ParseError(description: "empty list") }
            self = .only(kinds)
        }
    }

    /// `auto`, `off` or the list in the order distortion, tca, vignetting.
    public var text: String {
        switch self {
        case .auto: return "auto"
        case .off: return "off"
        case .only(let kinds): return kinds.sorted().map(\.rawValue).joined(separator: ",")
        }
    }

    /// The kinds asked for (all of them for `auto`).
    public var requested: Set<LensCorrectionKind> {
        switch self {
        case .auto: return Set(LensCorrectionKind.allCases)
        case .off: return []
        case .only(let kinds): return kinds
        }
    }
}
