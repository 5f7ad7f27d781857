/// How the scene white is chosen (`--wb`, after `WhiteBalanceRequest.resolve`).
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

extension WhiteBalanceSpec {
    /// The recipe spelling `WhiteBalanceRequest.parse` reads back to this white (camera
    /// neutrals have none and print as `as-shot`).
    public var text: String {
        func num(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }
        switch self {
        case .asShot, .cameraNeutral: return "as-shot"
        case .whiteXY(let c): return "xy:\(num(c.x)),\(num(c.y))"
        case .temperature(let k, let t): return t == 0 ? num(k) : "\(num(k)),\(t > 0 ? "+" : "")\(num(t))"
        }
    }
}
