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
        let t = Self.ciede2000Terms(reference, sample)
        deltaL = t.l; deltaC = t.c; deltaH = t.h
        deltaE2000 = (t.l * t.l + t.c * t.c + t.h * t.h + t.rt * t.c * t.h).squareRoot()
    }

    /// CIEDE2000's weighted terms (Sharma et al. 2005, eqs. 1–22, with their conventions for
    /// achromatic pairs and hue wrap-around) and the rotation factor R_T.
    public static func ciede2000Terms(_ lab1: SIMD3<Double>, _ lab2: SIMD3<Double>) -> (l: Double, c: Double, h: Double, rt: Double) {
        let rad = Double.pi / 180
        let c1 = (lab1.y * lab1.y + lab1.z * lab1.z).squareRoot(), c2 = (lab2.y * lab2.y + lab2.z * lab2.z).squareRoot()
        let cBar7 = pow((c1 + c2) / 2, 7)
        let g = 0.5 * (1 - (cBar7 / (cBar7 + pow(25, 7))).squareRoot())
        let a1 = (1 + g) * lab1.y, a2 = (1 + g) * lab2.y
        let c1p = (a1 * a1 + lab1.z * lab1.z).squareRoot(), c2p = (a2 * a2 + lab2.z * lab2.z).squareRoot()
        func hue(_ b: Double, _ a: Double) -> Double {
            if a == 0 && b == 0 { return 0 }
            let h = atan2(b, a) / rad
            return h < 0 ? h + 360 : h
        }
        let h1 = hue(lab1.z, a1), h2 = hue(lab2.z, a2)
        let dL = lab2.x - lab1.x, dC = c2p - c1p
        var dh = 0.0
        if c1p * c2p != 0 {
            dh = h2 - h1
            if dh > 180 { dh -= 360 } else if dh < -180 { dh += 360 }
        }
        let dH = 2 * (c1p * c2p).squareRoot() * sin(dh / 2 * rad)
        let lBar = (lab1.x + lab2.x) / 2, cBarP = (c1p + c2p) / 2
        var hBar = h1 + h2
        if c1p * c2p != 0 {
            if abs(h1 - h2) <= 180 { hBar = (h1 + h2) / 2 } else if h1 + h2 < 360 { hBar = (h1 + h2 + 360) / 2 } else { hBar = (h1 + h2 - 360) / 2 }
        }
        let t = 1 - 0.17 * cos((hBar - 30) * rad) + 0.24 * cos(2 * hBar * rad) + 0.32 * cos((3 * hBar + 6) * rad)
            - 0.20 * cos((4 * hBar - 63) * rad)
        let dTheta = 30 * exp(-pow((hBar - 275) / 25, 2))
        let cBarP7 = pow(cBarP, 7)
        let rc = 2 * (cBarP7 / (cBarP7 + pow(25, 7))).squareRoot()
        let l50 = (lBar - 50) * (lBar - 50)
        let sL = 1 + 0.015 * l50 / (20 + l50).squareRoot(), sC = 1 + 0.045 * cBarP, sH = 1 + 0.015 * cBarP * t
        return (dL / sL, dC / sC, dH / sH, -sin(2 * dTheta * rad) * rc)
    }
}
