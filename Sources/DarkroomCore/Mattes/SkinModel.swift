import Foundation

/// A colorimetric skin-likelihood model: a soft box in CIE L*C*h(ab) (D50 white, the ICC
/// connection space every output space is converted through).
///
/// Membership is the product of three one-dimensional memberships, each 1 inside its plateau
/// and falling off as a Gaussian `exp(−½·(d/σ)²)` with the distance `d` outside it:
///
/// | axis | plateau | σ outside |
/// |---|---|---|
/// | hue h(ab) | 25°…65° | 10° |
/// | chroma C*(ab) | 10…40 | 2.5 below (so neutrals, C* < 2, score 0), 5 above |
/// | lightness L* | 25…90 | 8 |
///
/// Source of the ranges: spectrophotometric skin-colour surveys (e.g. Xiao, Yates, Wuerger et
/// al., "Characterising the variations in ethnic skin colours: a new calibrated data base for
/// human skin", Skin Research and Technology 23(1), 2017) place skin of all ethnicities in a
/// narrow hue band of roughly 30°…60° with moderate chroma; the plateau here is that band
/// widened for make-up, tan and mixed lighting. Checked on the ColorChecker (BabelColor averages):
/// "dark skin" (L* 38, C* 19, h 48°) and "light skin" (L* 66, C* 23, h 49°) score 255;
/// "moderate red" (h 20°, C* 46) scores
/// about 120, the blue, green, neutral and sky patches 0.
///
/// Limits: colour only, no spatial context — wood, sand, cardboard, warm-lit walls and
/// orange-tinted objects of skin-like chroma score high, and skin rendered under a wrong white
/// balance, in deep shadow (L* < 20) or blown highlights scores low. It is a likelihood for
/// masking adjustments (e.g. protecting skin from saturation boosts), not a segmentation.
public struct SkinModel: Sendable, Equatable {
    public var hueDegrees: ClosedRange<Float> = 25...65
    public var hueSigmaDegrees: Float = 10
    public var chroma: ClosedRange<Float> = 10...40
    public var chromaSigmaBelow: Float = 2.5
    public var chromaSigma: Float = 5
    public var lightness: ClosedRange<Float> = 25...90
    public var lightnessSigma: Float = 8

    public init() {}

    public static let standard = SkinModel()

    /// Membership 0…1 of a CIE Lab (D50) colour.
    @inlinable
    public func membership(L: Float, a: Float, b: Float) -> Float {
        let mL = Self.softBox(L, lightness, lightnessSigma)
        if mL < 1e-4 { return 0 }
        return mL * chromaHueMembership(a: a, b: b, atan2: { atan2f($0, $1) })
    }

    /// The chroma × hue part of the membership, with the atan2 to use for the hue angle.
    @inlinable
    func chromaHueMembership(a: Float, b: Float, atan2: (Float, Float) -> Float) -> Float {
        let c = (a * a + b * b).squareRoot()
        let mC = Self.softBox(c, chroma, c < chroma.lowerBound ? chromaSigmaBelow : chromaSigma)
        if mC < 1e-4 { return 0 }
        var h = atan2(b, a) * (180 / Float.pi)
        if h < 0 { h += 360 }
        // Hue is circular: measure the distance to the plateau the short way round.
        let centre = (hueDegrees.lowerBound + hueDegrees.upperBound) / 2
        var dh = h - centre
        if dh > 180 { dh -= 360 } else if dh < -180 { dh += 360 }
        let halfWidth = (hueDegrees.upperBound - hueDegrees.lowerBound) / 2
        return mC * Self.softBox(centre + dh, centre - halfWidth...centre + halfWidth, hueSigmaDegrees)
    }

    @inlinable
    static func softBox(_ x: Float, _ plateau: ClosedRange<Float>, _ sigma: Float) -> Float {
        let d: Float = x < plateau.lowerBound ? plateau.lowerBound - x : (x > plateau.upperBound ? x - plateau.upperBound : 0)
        if d == 0 { return 1 }
        let z = d / sigma
        return z >= 4 ? 0 : expf(-0.5 * z * z)
    }
}
