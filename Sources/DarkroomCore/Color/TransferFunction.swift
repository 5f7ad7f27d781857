import Foundation

/// An encoding curve between linear light (0…1 relative to the space's white) and encoded
/// values (0…1). Negative inputs are mirrored (f(−x) = −f(x)) so out-of-gamut values survive
/// a round trip.
///
/// Every curve is expressed exactly as its ICC.1 `parametricCurveType` (decode direction), and
/// `encode` is that curve's exact inverse, so pixels and embedded profiles agree.
public enum TransferFunction: Sendable, Equatable, Hashable {
    /// Identity.
    case linear
    /// IEC 61966-2-1 sRGB (also Display P3): 12.92·L below 0.0031308, else 1.055·L^(1/2.4) − 0.055.
    case srgb
    /// Pure power law: encoded = L^(1/γ) (Adobe RGB (1998) uses γ = 563/256).
    case gamma(Double)
    /// ITU-R BT.709 / BT.2020 OETF: 4.5·L below β, else α·L^0.45 − (α − 1), with BT.2020's
    /// exact α = 1.09929682680944, β = 0.018053968510807 (the curve is continuous, so encode and
    /// decode are exact inverses; the rounded 1.099 / 0.018 differ by < 1e-4).
    case bt709

    @usableFromInline static let bt709Alpha = 1.09929682680944
    @usableFromInline static let bt709Beta = 0.018053968510807
    /// ROMM RGB (ISO 22028-2, ProPhoto): 16·L below 1/512, else L^(1/1.8).
    case romm

    /// ICC.1 parametric curve parameters (decode direction: encoded X → linear Y).
    /// Type 0: Y = X^g. Type 4: Y = (a·X + b)^g for X ≥ d, else c·X.
    public var iccParametric: (type: Int, parameters: [Double]) {
        switch self {
        case .linear: return (0, [1])
        case .gamma(let g): return (0, [g])
        case .srgb: return (4, [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045])
        case .bt709:
            let a = Self.bt709Alpha
            return (4, [1 / 0.45, 1 / a, (a - 1) / a, 1 / 4.5, 4.5 * Self.bt709Beta])
        case .romm: return (4, [1.8, 1, 0, 1 / 16, 1 / 32])
        }
    }

    /// Linear light → encoded value.
    @inlinable
    public func encode(_ linear: Double) -> Double {
        if linear < 0 { return -encode(-linear) }
        switch self {
        case .linear: return linear
        case .gamma(let g): return pow(linear, 1 / g)
        case .srgb: return linear <= 0.0031308 ? linear * 12.92 : 1.055 * pow(linear, 1 / 2.4) - 0.055
        case .bt709:
            let a = Self.bt709Alpha
            return linear < Self.bt709Beta ? linear * 4.5 : a * pow(linear, 0.45) - (a - 1)
        case .romm: return linear < 1.0 / 512 ? linear * 16 : pow(linear, 1 / 1.8)
        }
    }

    /// Encoded value → linear light.
    @inlinable
    public func decode(_ encoded: Double) -> Double {
        if encoded < 0 { return -decode(-encoded) }
        switch self {
        case .linear: return encoded
        case .gamma(let g): return pow(encoded, g)
        case .srgb: return encoded < 0.04045 ? encoded / 12.92 : pow((encoded + 0.055) / 1.055, 2.4)
        case .bt709:
            let a = Self.bt709Alpha
            return encoded < 4.5 * Self.bt709Beta ? encoded / 4.5 : pow((encoded + (a - 1)) / a, 1 / 0.45)
        case .romm: return encoded < 1.0 / 32 ? encoded / 16 : pow(encoded, 1.8)
        }
    }

    public var isLinear: Bool { self == .linear }
}
