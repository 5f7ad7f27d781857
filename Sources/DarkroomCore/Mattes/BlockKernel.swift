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

/// `SkinModel` membership of the block's colour in CIE Lab (D50). Lab's cube root comes from a
/// 4097-entry table with linear interpolation (error < 0.01 in L*, a*, b*) and the hue angle from
/// a polynomial atan2 (max error ≈ 1e-5 rad), so the plane of a 24 MP image is cheap.
struct SkinKernel: BlockKernel {
    let m: (Float, Float, Float, Float, Float, Float, Float, Float, Float)
    let model: SkinModel
    let cubeRoot: [Float]
    static let tableSize = 4096
    static let tableMax: Float = 1.25

    init(outputToXYZD50 a: Matrix3, model: SkinModel) {
        // Rows scaled by 1 / white so X/Xn, Y/Yn, Z/Zn come out directly.
        let white = ColorMath.xyToXYZ(ColorMath.d50)
        let s = [1 / white.x, 1 / white.y, 1 / white.z]
        m = (Float(a[0, 0] * s[0]), Float(a[0, 1] * s[0]), Float(a[0, 2] * s[0]),
             Float(a[1, 0] * s[1]), Float(a[1, 1] * s[1]), Float(a[1, 2] * s[1]),
             Float(a[2, 0] * s[2]), Float(a[2, 1] * s[2]), Float(a[2, 2] * s[2]))
        self.model = model
        cubeRoot = (0...Self.tableSize).map { Float(cbrt(Double($0) * Double(Self.tableMax) / Double(Self.tableSize))) }
    }

    /// CIE Lab's f(t): cube root above (6/29)³, linear below (CIE 15:2004 §8.2.1).
    @inline(__always)
    func labF(_ t: Float) -> Float {
        if t <= 216 / 24389 { return (24389 / 27 * t + 16) / 116 }
        if t >= Self.tableMax { return cbrtf(t) }
        let x = t * (Float(Self.tableSize) / Self.tableMax)
        let i = Int(x), f = x - Float(i)
        return cubeRoot.withUnsafeBufferPointer { c in c[i] + f * (c[i + 1] - c[i]) }
    }

    @inline(__always)
    func value(_ r: Float, _ g: Float, _ b: Float) -> UInt8 {
        let y = m.3 * r + m.4 * g + m.5 * b
        let fy = labF(y)
        let L = 116 * fy - 16
        let mL = SkinModel.softBox(L, model.lightness, model.lightnessSigma)
        if mL < 1e-4 { return 0 }
        let fx = labF(m.0 * r + m.1 * g + m.2 * b), fz = labF(m.6 * r + m.7 * g + m.8 * b)
        let a = 500 * (fx - fy), bb = 200 * (fy - fz)
        let v = mL * model.chromaHueMembership(a: a, b: bb, atan2: Self.fastAtan2)
        return UInt8((v * 255).rounded())
    }

    /// atan2 with a minimax polynomial for atan on [0, 1] (max error ≈ 1e-5 rad).
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
