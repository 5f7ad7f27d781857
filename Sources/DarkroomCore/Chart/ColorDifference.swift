import Foundation

/// The difference between a reference colour and a measured one, both CIELAB (D50), with the
/// signed components colour scientists read: everything is measured − reference.
public struct ColorDifference: Sendable, Equatable, Codable {
    /// CIEDE2000 (Sharma, Wu & Dalal 2005; kL = kC = kH = 1).
    public var deltaE2000: Double
    /// The CIEDE2000 terms ΔL′/SL, ΔC′/SC, ΔH′/SH (signed; with the rotation term R_T they make up ΔE2000:
    /// ΔE00² = ΔL² + ΔC² + ΔH² + R_T·ΔC·ΔH). Positive ΔL: lighter; ΔC: more chroma; ΔH: hue turned
    /// counter-clockwise in the a*b* plane.
    public var deltaL: Double
    public var deltaC: Double
    public var deltaH: Double
    /// CIE 1976 ΔE*ab (Euclidean distance in L*a*b*).
    public var deltaE76: Double
    /// CIE 1994 ΔE*94, graphic-arts weights (kL = 1, K1 = 0.045, K2 = 0.015), the reference as
    /// the standard.
    public var deltaE94: Double

    public init(reference: SIMD3<Double>, sample: SIMD3<Double>) {
        let d = sample - reference
        deltaE76 = (d * d).sum().squareRoot()
        let c1 = (reference.y * reference.y + reference.z * reference.z).squareRoot()
        let c2 = (sample.y * sample.y + sample.z * sample.z).squareRoot()
        let dC = c2 - c1
        let dH2 = max(d.y * d.y + d.z * d.z - dC * dC, 0)
        let sC = 1 + 0.045 * c1, sH = 1 + 0.015 * c1
        deltaE94 = (d.x * d.x + (dC / sC) * (dC / sC) + dH2 / (sH * sH)).squareRoot()
        let t = ColorMath.ciede2000Terms(reference, sample)
        deltaL = t.l; deltaC = t.c; deltaH = t.h
        deltaE2000 = (t.l * t.l + t.c * t.c + t.h * t.h + t.rt * t.c * t.h).squareRoot()
    }
}
