import Foundation

/// Colorimetry used by the colour stages: xy ↔ XYZ, Bradford adaptation, CIELAB, CIEDE2000,
/// correlated colour temperature (Robertson) and the EXIF LightSource whites.
///
/// Conventions: XYZ is relative (a white has Y = 1); xy is CIE 1931 2°; Lab uses the CIE 15
/// constants ε = 216/24389, κ = 24389/27.
public enum ColorMath {
    /// CIE D50 (the ICC PCS white and the DNG "PCS" white), CIE 15 2° chromaticity.
    public static let d50 = Chromaticity(x: 0.34567, y: 0.35850)
    /// CIE D65, CIE 15 2° chromaticity.
    public static let d65 = Chromaticity(x: 0.31271, y: 0.32902)
    /// CIE standard illuminant A (2856 K Planckian).
    public static let illuminantA = Chromaticity(x: 0.44757, y: 0.40745)

    // MARK: xy ↔ XYZ

    /// The XYZ of chromaticity `c` at luminance `Y`.
    @inlinable
    public static func xyToXYZ(_ c: Chromaticity, Y: Double = 1) -> SIMD3<Double> {
        guard c.y > 0 else { return SIMD3(0, 0, 0) }
        return SIMD3(c.x * Y / c.y, Y, (1 - c.x - c.y) * Y / c.y)
    }

    /// The chromaticity of `v`; black (or any X + Y + Z ≤ 0) maps to D50, as the DNG SDK does.
    @inlinable
    public static func xyzToXY(_ v: SIMD3<Double>) -> Chromaticity {
        let sum = v.x + v.y + v.z
        guard sum > 0, sum.isFinite else { return d50 }
        return Chromaticity(x: v.x / sum, y: v.y / sum)
    }

    // MARK: Chromatic adaptation

    /// The Bradford cone-response matrix (Lam 1985, linearised as in ICC.1 Annex E and the DNG SDK).
    public static let bradfordCone = Matrix3([
        0.8951, 0.2664, -0.1614,
        -0.7502, 1.7135, 0.0367,
        0.0389, -0.0685, 1.0296,
    ])
    /// Its inverse.
    public static let bradfordConeInverse: Matrix3 = bradfordCone.inverse ?? .identity

    /// The linear Bradford adaptation XYZ(under `from`) → XYZ(under `to`):
    /// `M⁻¹ · diag(M·XYZ(to) / M·XYZ(from)) · M`. Maps `from`'s white (Y = 1) to `to`'s white.
    public static func bradford(from: Chromaticity, to: Chromaticity) -> Matrix3 {
        if from == to { return .identity }
        let src = bradfordCone * xyToXYZ(from)
        let dst = bradfordCone * xyToXYZ(to)
        // Non-positive cone responses are meaningless; keep the gain finite.
        let gain = SIMD3(dst.x / max(src.x, 1e-9), dst.y / max(src.y, 1e-9), dst.z / max(src.z, 1e-9))
        return bradfordConeInverse * Matrix3.diagonal(gain) * bradfordCone
    }

    // MARK: CIELAB

    @usableFromInline static let labEpsilon = 216.0 / 24389.0
    @usableFromInline static let labKappa = 24389.0 / 27.0

    /// CIE 1976 L*a*b* of `xyz` relative to `white` (whose Y is taken as 1).
    public static func xyzToLab(_ xyz: SIMD3<Double>, white: Chromaticity = d50) -> SIMD3<Double> {
        let w = xyToXYZ(white)
        func f(_ t: Double) -> Double { t > labEpsilon ? cbrt(t) : (labKappa * t + 16) / 116 }
        let fx = f(xyz.x / w.x), fy = f(xyz.y / w.y), fz = f(xyz.z / w.z)
        return SIMD3(116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
    }

    /// The inverse of `xyzToLab`.
    public static func labToXYZ(_ lab: SIMD3<Double>, white: Chromaticity = d50) -> SIMD3<Double> {
        let w = xyToXYZ(white)
        let fy = (lab.x + 16) / 116
        let fx = fy + lab.y / 500
        let fz = fy - lab.z / 200
        func finv(_ f: Double) -> Double {
            let f3 = f * f * f
            return f3 > labEpsilon ? f3 : (116 * f - 16) / labKappa
        }
        let yr = lab.x > labKappa * labEpsilon ? fy * fy * fy : lab.x / labKappa
        return SIMD3(finv(fx) * w.x, yr * w.y, finv(fz) * w.z)
    }

    // MARK: CIEDE2000

    /// The CIEDE2000 colour difference (kL = kC = kH = 1), implemented as in Sharma, Wu & Dalal,
    /// "The CIEDE2000 Color-Difference Formula", Color Res. Appl. 30 (2005), eqs. 1–22, including
    /// their conventions for achromatic pairs (hue 0, mean hue = sum) and hue wrap-around.
    public static func ciede2000(_ lab1: SIMD3<Double>, _ lab2: SIMD3<Double>) -> Double {
        let t = ciede2000Terms(lab1, lab2)
        return (t.l * t.l + t.c * t.c + t.h * t.h + t.rt * t.c * t.h).squareRoot()
    }

    /// CIEDE2000's weighted terms ΔL′/S_L, ΔC′/S_C, ΔH′/S_H (signed, `lab2` − `lab1`) and the
    /// rotation factor R_T: ΔE00² = l² + c² + h² + rt·c·h (`ciede2000`).
    public static func ciede2000Terms(_ lab1: SIMD3<Double>, _ lab2: SIMD3<Double>) -> (l: Double, c: Double, h: Double, rt: Double) {
        let (L1, a1, b1) = (lab1.x, lab1.y, lab1.z)
        let (L2, a2, b2) = (lab2.x, lab2.y, lab2.z)
        let rad = Double.pi / 180
        let C1 = (a1 * a1 + b1 * b1).squareRoot(), C2 = (a2 * a2 + b2 * b2).squareRoot()
        let Cbar = (C1 + C2) / 2
        let Cbar7 = pow(Cbar, 7)
        let G = 0.5 * (1 - (Cbar7 / (Cbar7 + pow(25, 7))).squareRoot())
        let a1p = (1 + G) * a1, a2p = (1 + G) * a2
        let C1p = (a1p * a1p + b1 * b1).squareRoot(), C2p = (a2p * a2p + b2 * b2).squareRoot()
        func hue(_ b: Double, _ ap: Double) -> Double {
            if b == 0 && ap == 0 { return 0 }
            let h = atan2(b, ap) / rad
            return h < 0 ? h + 360 : h
        }
        let h1p = hue(b1, a1p), h2p = hue(b2, a2p)

        let dLp = L2 - L1
        let dCp = C2p - C1p
        var dhp = 0.0
        if C1p * C2p != 0 {
            dhp = h2p - h1p
            if dhp > 180 { dhp -= 360 } else if dhp < -180 { dhp += 360 }
        }
        let dHp = 2 * (C1p * C2p).squareRoot() * sin(dhp / 2 * rad)

        let Lbarp = (L1 + L2) / 2
        let Cbarp = (C1p + C2p) / 2
        var hbarp = h1p + h2p
        if C1p * C2p != 0 {
            if abs(h1p - h2p) <= 180 { hbarp = (h1p + h2p) / 2 }
            else if h1p + h2p < 360 { hbarp = (h1p + h2p + 360) / 2 }
            else { hbarp = (h1p + h2p - 360) / 2 }
        }
        let T = 1 - 0.17 * cos((hbarp - 30) * rad) + 0.24 * cos(2 * hbarp * rad)
            + 0.32 * cos((3 * hbarp + 6) * rad) - 0.20 * cos((4 * hbarp - 63) * rad)
        let dTheta = 30 * exp(-pow((hbarp - 275) / 25, 2))
        let Cbarp7 = pow(Cbarp, 7)
        let RC = 2 * (Cbarp7 / (Cbarp7 + pow(25, 7))).squareRoot()
        let L50 = (Lbarp - 50) * (Lbarp - 50)
        let SL = 1 + 0.015 * L50 / (20 + L50).squareRoot()
        let SC = 1 + 0.045 * Cbarp
        let SH = 1 + 0.015 * Cbarp * T
        let RT = -sin(2 * dTheta * rad) * RC
        return (dLp / SL, dCp / SC, dHp / SH, RT)
    }

    // MARK: Correlated colour temperature (Robertson 1968)

    /// Robertson's isotherm table (Wyszecki & Stiles, Color Science, 2nd ed., table 1(3.11)):
    /// reciprocal megakelvin (mired), CIE 1960 u, v of the Planckian point, isotherm slope dv/du.
    @usableFromInline static let robertsonTable: [(mired: Double, u: Double, v: Double, slope: Double)] = [
        (0, 0.18006, 0.26352, -0.24341), (10, 0.18066, 0.26589, -0.25479),
        (20, 0.18133, 0.26846, -0.26876), (30, 0.18208, 0.27119, -0.28539),
        (40, 0.18293, 0.27407, -0.30470), (50, 0.18388, 0.27709, -0.32675),
        (60, 0.18494, 0.28021, -0.35156), (70, 0.18611, 0.28342, -0.37915),
        (80, 0.18740, 0.28668, -0.40955), (90, 0.18880, 0.28997, -0.44278),
        (100, 0.19032, 0.29326, -0.47888), (125, 0.19462, 0.30141, -0.58204),
        (150, 0.19962, 0.30921, -0.70471), (175, 0.20525, 0.31647, -0.84901),
        (200, 0.21142, 0.32312, -1.0182), (225, 0.21807, 0.32909, -1.2168),
        (250, 0.22511, 0.33439, -1.4512), (275, 0.23247, 0.33904, -1.7298),
        (300, 0.24010, 0.34308, -2.0637), (325, 0.24702, 0.34655, -2.4681),
        (350, 0.25591, 0.34951, -2.9641), (375, 0.26400, 0.35200, -3.5814),
        (400, 0.27218, 0.35407, -4.3633), (425, 0.28039, 0.35577, -5.3762),
        (450, 0.28863, 0.35714, -6.7262), (475, 0.29685, 0.35823, -8.5955),
        (500, 0.30505, 0.35907, -11.324), (525, 0.31320, 0.35968, -15.628),
        (550, 0.32129, 0.36011, -23.325), (575, 0.32931, 0.36038, -40.770),
        (600, 0.33724, 0.36051, -116.45),
    ]

    /// Tint units per unit of uv distance from the Planckian locus. The DNG SDK convention:
    /// tint = −3000 × (signed distance along the isotherm direction, which points towards
    /// magenta), so a positive tint is a white above the locus (a greenish illuminant, which a
    /// render corrects towards magenta, as Camera Raw's Tint slider) and a negative tint is below.
    public static let tintScale = -3000.0

    /// The unit isotherm direction (du, dv) of table row `i`.
    @inline(__always) static func isothermDirection(_ i: Int) -> SIMD2<Double> {
        let s = robertsonTable[i].slope
        return SIMD2(1, s) / (1 + s * s).squareRoot()
    }

    /// Planckian point and unit isotherm direction at fraction `f` between rows i (f = 1) and i+1 (f = 0).
    static func isotherm(_ i: Int, _ f: Double) -> (point: SIMD2<Double>, direction: SIMD2<Double>, mired: Double) {
        let a = robertsonTable[i], b = robertsonTable[i + 1]
        let p = SIMD2(a.u, a.v) * f + SIMD2(b.u, b.v) * (1 - f)
        var d = isothermDirection(i) * f + isothermDirection(i + 1) * (1 - f)
        d /= (d * d).sum().squareRoot()
        return (p, d, a.mired * f + b.mired * (1 - f))
    }

    /// Correlated colour temperature and tint of `c` (Robertson's method on CIE 1960 uv), with the
    /// DNG SDK's tint convention (see `tintScale`). Solved as the exact inverse of
    /// `temperatureTintToXY` (the isotherm through `c` is found to machine precision rather than by
    /// Robertson's linear distance ratio, a difference below 0.05 K). Range 1667 K…∞ (mired 0…600).
    public static func xyToTemperatureTint(_ c: Chromaticity) -> (kelvin: Double, tint: Double) {
        let den = 1.5 - c.x + 6 * c.y
        let uv = SIMD2(2 * c.x / den, 3 * c.y / den)
        let n = robertsonTable.count
        // Signed distance of uv from isotherm i: positive while uv lies beyond it (towards higher mired).
        func side(_ i: Int) -> Double {
            let d = isothermDirection(i)
            let w = uv - SIMD2(robertsonTable[i].u, robertsonTable[i].v)
            return w.y * d.x - w.x * d.y
        }
        var seg = n - 2
        for i in 1..<n where side(i) <= 0 { seg = i - 1; break }
        // Solve cross(uv − P(f), D(f)) = 0 for f in [0, 1] by bisection (monotone within a segment).
        func g(_ f: Double) -> Double {
            let iso = isotherm(seg, f)
            let w = uv - iso.point
            return w.x * iso.direction.y - w.y * iso.direction.x
        }
        var lo = 0.0, hi = 1.0
        let glo = g(lo), ghi = g(hi)
        var f: Double
        if glo.sign == ghi.sign {
            f = abs(glo) < abs(ghi) ? lo : hi   // outside the table: clamp to its end
        } else {
            for _ in 0..<60 {
                let mid = (lo + hi) / 2
                if g(mid).sign == glo.sign { lo = mid } else { hi = mid }
            }
            f = (lo + hi) / 2
        }
        let iso = isotherm(seg, f)
        let offset = ((uv - iso.point) * iso.direction).sum()
        let kelvin = iso.mired > 0 ? 1e6 / iso.mired : Double.infinity
        return (kelvin, offset * tintScale)
    }

    /// The chromaticity of correlated colour temperature `kelvin` displaced by `tint` along the
    /// isotherm (DNG SDK convention, see `tintScale`). Kelvin is clamped to the table (≥ 1667 K).
    public static func temperatureTintToXY(kelvin: Double, tint: Double) -> Chromaticity {
        let mired = kelvin > 0 && kelvin.isFinite ? min(1e6 / kelvin, 600) : 0
        let n = robertsonTable.count
        var seg = n - 2
        for i in 0..<(n - 1) where mired < robertsonTable[i + 1].mired { seg = i; break }
        let a = robertsonTable[seg].mired, b = robertsonTable[seg + 1].mired
        let f = (b - mired) / (b - a)
        let iso = isotherm(seg, f)
        let uv = iso.point + iso.direction * (tint / tintScale)
        let den = uv.x - 4 * uv.y + 2
        return Chromaticity(x: 1.5 * uv.x / den, y: uv.y / den)
    }

    // MARK: EXIF LightSource

    /// The white chromaticity of an EXIF `LightSource` code (also used by DNG
    /// `CalibrationIlluminant1/2/3`). Standard illuminants use their CIE 15 values; fluorescent
    /// classes use the CIE F-series lamp closest to the JIS class (F1 daylight, F8 day white,
    /// F2 cool white, F3 white, F4 warm white); generic daylight/flash/fine weather use D55,
    /// cloudy D65, shade D75, tungsten A, ISO studio tungsten the 3200 K Planckian point.
    /// nil for 0 (unknown), 255 ("other", see `IlluminantData`) and undefined codes.
    public static func lightSourceWhite(_ exifLightSource: Int) -> Chromaticity? {
        switch exifLightSource {
        case 1, 4, 9, 20: return Chromaticity(x: 0.33242, y: 0.34743)   // daylight, flash, fine weather, D55
        case 2, 14: return Chromaticity(x: 0.37208, y: 0.37529)          // fluorescent, cool white (F2)
        case 3, 17: return illuminantA                                   // tungsten, standard A
        case 10, 21: return d65                                          // cloudy, D65
        case 11, 22: return Chromaticity(x: 0.29902, y: 0.31485)         // shade, D75
        case 12: return Chromaticity(x: 0.31310, y: 0.33727)             // daylight fluorescent (F1)
        case 13: return Chromaticity(x: 0.34588, y: 0.35875)             // day white fluorescent (F8)
        case 15: return Chromaticity(x: 0.40910, y: 0.39430)             // white fluorescent (F3)
        case 16: return Chromaticity(x: 0.44018, y: 0.40329)             // warm white fluorescent (F4)
        case 18: return Chromaticity(x: 0.34842, y: 0.35161)             // standard B
        case 19: return Chromaticity(x: 0.31006, y: 0.31616)             // standard C
        case 23: return d50
        case 24: return temperatureTintToXY(kelvin: 3200, tint: 0)       // ISO studio tungsten
        default: return nil
        }
    }
}
