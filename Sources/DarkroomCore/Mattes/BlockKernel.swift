import Foundation

/// A per-block matte function: mean linear RGB of a 2×2 output block (output space) → 0…255.
protocol BlockKernel: Sendable {
    func value(_ r: Float, _ g: Float, _ b: Float) -> UInt8
}

/// Distance outside the sRGB cube, ramped (see `MatteBuilder`).
struct GamutKernel: BlockKernel {
    let m: (Float, Float, Float, Float, Float, Float, Float, Float, Float)
    let tolerance = MatteBuilder.gamutTolerance
    let scale = 255 / MatteBuilder.gamutRamp

    init(outputToSRGB a: Matrix3) {
        m = (Float(a[0, 0]), Float(a[0, 1]), Float(a[0, 2]), Float(a[1, 0]), Float(a[1, 1]), Float(a[1, 2]),
             Float(a[2, 0]), Float(a[2, 1]), Float(a[2, 2]))
    }

    @inline(__always)
    func value(_ r: Float, _ g: Float, _ b: Float) -> UInt8 {
        let sr = m.0 * r + m.1 * g + m.2 * b
        let sg = m.3 * r + m.4 * g + m.5 * b
        let sb = m.6 * r + m.7 * g + m.8 * b
        let d = max(-min(sr, min(sg, sb)), max(sr, max(sg, sb)) - 1)
        let v = (d - tolerance) * scale
        return v <= 0 ? 0 : (v >= 255 ? 255 : UInt8(v.rounded()))
    }
}

/// Lookup tables shared by every `SkinKernel`: built once, never freed, read-only.
enum MatteTables {
    /// ∛t for t = i · cubeRootMax / cubeRootSize, i = 0…cubeRootSize (+1 guard entry).
    static let cubeRootSize = 4096
    static let cubeRootMax: Float = 1.25
    nonisolated(unsafe) static let cubeRoot: UnsafePointer<Float> = table(count: cubeRootSize + 2) {
        cbrt(Double($0) * Double(cubeRootMax) / Double(cubeRootSize))
    }
    /// exp(−z²/2) for z = i / 512, i = 0…2048 (+1 guard entry); z ≥ 4 counts as 0.
    nonisolated(unsafe) static let gaussian: UnsafePointer<Float> = table(count: 2050) { exp(-0.5 * pow(Double($0) / 512, 2)) }

    private static func table(count: Int, _ f: (Int) -> Double) -> UnsafePointer<Float> {
        let p = UnsafeMutablePointer<Float>.allocate(capacity: count)
        for i in 0..<count { p[i] = Float(f(i)) }
        return UnsafePointer(p)
    }
}

/// `SkinModel` membership of the block's colour in CIE Lab (D50). Lab's cube root comes from a
/// 4097-entry table with linear interpolation (error < 0.01 in L*, a*, b*), the Gaussian
/// fall-offs from a 2049-entry table (error < 2e-6) and the hue angle from a polynomial atan2
/// (error < 2e-6 rad), so the plane of a 24 MP image is cheap. Pointers are to `MatteTables`.
struct SkinKernel: BlockKernel, @unchecked Sendable {
    let m: (Float, Float, Float, Float, Float, Float, Float, Float, Float)
    let lLow: Float, lHigh: Float, lSigma: Float
    let cLow: Float, cHigh: Float, cSigmaBelow: Float, cSigmaAbove: Float
    let hCentre: Float, hHalf: Float, hSigma: Float
    let cube = MatteTables.cubeRoot, gauss = MatteTables.gaussian
    let cubeScale = Float(MatteTables.cubeRootSize) / MatteTables.cubeRootMax

    init(outputToXYZD50 a: Matrix3, model: SkinModel) {
        // Rows scaled by 1 / white so X/Xn, Y/Yn, Z/Zn come out directly.
        let white = ColorMath.xyToXYZ(ColorMath.d50)
        let s = [1 / white.x, 1 / white.y, 1 / white.z]
        m = (Float(a[0, 0] * s[0]), Float(a[0, 1] * s[0]), Float(a[0, 2] * s[0]),
             Float(a[1, 0] * s[1]), Float(a[1, 1] * s[1]), Float(a[1, 2] * s[1]),
             Float(a[2, 0] * s[2]), Float(a[2, 1] * s[2]), Float(a[2, 2] * s[2]))
        lLow = model.lightness.lowerBound; lHigh = model.lightness.upperBound; lSigma = model.lightnessSigma
        cLow = model.chroma.lowerBound; cHigh = model.chroma.upperBound
        cSigmaBelow = model.chromaSigmaBelow; cSigmaAbove = model.chromaSigma
        hCentre = (model.hueDegrees.lowerBound + model.hueDegrees.upperBound) / 2
        hHalf = (model.hueDegrees.upperBound - model.hueDegrees.lowerBound) / 2
        hSigma = model.hueSigmaDegrees
    }

    /// CIE Lab's f(t): cube root above (6/29)³, linear below (CIE 15:2004 §8.2.1).
    @inline(__always)
    func labF(_ t: Float) -> Float {
        if t <= 216 / 24389 { return (24389 / 27 * t + 16) / 116 }
        if t >= MatteTables.cubeRootMax { return cbrtf(t) }
        let x = t * cubeScale
        let i = Int(x), f = x - Float(i)
        return cube[i] + f * (cube[i + 1] - cube[i])
    }

    /// exp(−½ (d/σ)²) for a distance d ≥ 0 outside a plateau.
    @inline(__always)
    func fall(_ d: Float, _ sigma: Float) -> Float {
        let x = d / sigma * 512
        if x >= 2048 { return 0 }
        let i = Int(x), f = x - Float(i)
        return gauss[i] + f * (gauss[i + 1] - gauss[i])
    }

    @inline(__always)
    func value(_ r: Float, _ g: Float, _ b: Float) -> UInt8 {
        let fy = labF(m.3 * r + m.4 * g + m.5 * b)
        let L = 116 * fy - 16
        var v: Float = L < lLow ? fall(lLow - L, lSigma) : (L > lHigh ? fall(L - lHigh, lSigma) : 1)
        if v < 1e-4 { return 0 }
        let fx = labF(m.0 * r + m.1 * g + m.2 * b), fz = labF(m.6 * r + m.7 * g + m.8 * b)
        let a = 500 * (fx - fy), bb = 200 * (fy - fz)
        let c = (a * a + bb * bb).squareRoot()
        v *= c < cLow ? fall(cLow - c, cSigmaBelow) : (c > cHigh ? fall(c - cHigh, cSigmaAbove) : 1)
        if v < 1e-4 { return 0 }
        var dh = Self.fastAtan2(bb, a) * (180 / Float.pi) - hCentre   // −180 − centre … 180 − centre
        if dh < -180 { dh += 360 } else if dh > 180 { dh -= 360 }
        let out = abs(dh) - hHalf
        if out > 0 { v *= fall(out, hSigma) }
        return UInt8((v * 255).rounded())
    }

    /// atan2 with a minimax polynomial for atan on [0, 1] (max error ≈ 2e-6 rad).
    @inline(__always)
    static func fastAtan2(_ y: Float, _ x: Float) -> Float {
        let ax = abs(x), ay = abs(y)
        let mx = max(ax, ay)
        if mx == 0 { return 0 }
        let t = min(ax, ay) / mx
        let s = t * t
        var r = ((((-0.0117212 * s + 0.05265332) * s - 0.11643287) * s + 0.19354346) * s - 0.33262347) * s + 0.99997726
        r *= t
        if ay > ax { r = Float.pi / 2 - r }
        if x < 0 { r = Float.pi - r }
        return y < 0 ? -r : r
    }
}
