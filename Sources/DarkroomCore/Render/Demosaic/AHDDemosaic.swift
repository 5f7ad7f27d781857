/// Adaptive homogeneity-directed demosaicing (AHD), after Hirakawa & Parks, "Adaptive
/// homogeneity-directed demosaicing algorithm" (IEEE TIP 14(3), 2005):
///
/// 1. Two full images are built, one interpolating green horizontally and one vertically
///    (Hamilton–Adams: neighbour mean plus half the second difference of the site's own colour,
///    clamped to the two green neighbours); red and blue then follow in each image from
///    bilinearly interpolated colour differences (cardinal at green sites, diagonal at red/blue).
/// 2. Both images go to a working CIELab (below). At each pixel the homogeneity of an image is
///    the number of its 4 neighbours within `ε_L` in lightness and `ε_C` in chroma (squared a*b*
///    distance), where `ε_L`, `ε_C` are the paper's adaptive tolerances: the smaller of the
///    horizontal image's worst horizontal neighbour and the vertical image's worst vertical one.
/// 3. Homogeneity is summed over a 3×3 window; each pixel takes the more homogeneous image,
///    or the mean of both on a tie (the paper's median artefact-reduction pass is not applied).
///
/// Working Lab: the input is treated as linear RGB with sRGB/Rec. 709 primaries and white
/// (1, 1, 1) (white-balanced camera RGB is close enough for a homogeneity metric); it goes to
/// XYZ normalised by that white and through the CIE `f(t)` (cube root above (6/29)³, linear
/// below; the cube root is a bit-trick seed plus two Newton steps, relative error < 10⁻⁶).
/// Only differences of Lab values are used, so the absolute exposure does not matter.
///
/// Every stage runs only where its reads stay in bounds, so the output equals the unbounded
/// result at distance ≥ 5 from the region edge (green 2, colours 3, homogeneity 4, window 5);
/// the band outside is filled bilinearly.
public struct AHDDemosaic: DemosaicKernel {
    public static let exactInset = 5
    public init() {}
    public var halo: Int { Self.exactInset }

    public func demosaic(mosaic m: UnsafePointer<Float>, width: Int, height: Int, cfa: CFAPattern,
                         red: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>,
                         blue: UnsafeMutablePointer<Float>) {
        let n = max(width * height, 1)
        let planeCount = 14
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: n * planeCount)
        scratch.initialize(repeating: 0, count: n * planeCount)
        defer { scratch.deallocate() }
        // Per direction (0 = horizontal, 1 = vertical): R, G, B, L, a, b, homogeneity.
        let rgbH = (scratch, scratch + n, scratch + 2 * n), rgbV = (scratch + 3 * n, scratch + 4 * n, scratch + 5 * n)
        let labH = (scratch + 6 * n, scratch + 7 * n, scratch + 8 * n), labV = (scratch + 9 * n, scratch + 10 * n, scratch + 11 * n)
        let homH = scratch + 12 * n, homV = scratch + 13 * n
        let w = width, w2 = 2 * width

        // 1a. Directional greens (inset 2): Hamilton–Adams, clamped to the green neighbours.
        rgbH.1.update(from: m, count: width * height)
        rgbV.1.update(from: m, count: width * height)
        if height > 4 && width > 4 {
            for y in 2..<(height - 2) {
                let nonGreen = cfa.color(x: 0, y: y) == .green ? 1 : 0
                var i = y * w + DemosaicBorder.firstColumn(2, parity: nonGreen)
                let end = y * w + w - 2
                while i < end {
                    let c2 = m[i] * 2
                    let l = m[i - 1], r = m[i + 1]
                    let eH = (l + r) * 0.5 + (c2 - (m[i - 2] + m[i + 2])) * 0.25
                    rgbH.1[i] = min(max(eH, min(l, r)), max(l, r))
                    let u = m[i - w], d = m[i + w]
                    let eV = (u + d) * 0.5 + (c2 - (m[i - w2] + m[i + w2])) * 0.25
                    rgbV.1[i] = min(max(eV, min(u, d)), max(u, d))
                    i += 2
                }
            }
        }
        // 1b. Red and blue in each directional image (inset 3), then its Lab (same inset).
        for (rgb, lab) in [(rgbH, labH), (rgbV, labV)] {
            Self.colours(mosaic: m, width: width, height: height, cfa: cfa, red: rgb.0, green: rgb.1, blue: rgb.2)
            Self.lab(red: rgb.0, green: rgb.1, blue: rgb.2, width: width, height: height, inset: 3,
                     l: lab.0, a: lab.1, b: lab.2)
        }
        // 2. Homogeneity maps (inset 4); eight columns at a time when the row allows.
        if height > 8 && width >= 16 {
            for y in 4..<(height - 4) {
                Self.homogeneityRow(labH: labH, labV: labV, row: y * w, width: w, homH: homH, homV: homV)
            }
        } else if height > 8 && width > 8 {
            for y in 4..<(height - 4) {
                for i in (y * w + 4)..<(y * w + w - 4) {
                    let (lH, aH, bH) = (labH.0, labH.1, labH.2), (lV, aV, bV) = (labV.0, labV.1, labV.2)
                    let lh = lH[i], ah = aH[i], bh = bH[i], lv = lV[i], av = aV[i], bv = bV[i]
                    // Lightness and squared chroma differences to the W, E, N, S neighbours.
                    let dLH = (abs(lh - lH[i - 1]), abs(lh - lH[i + 1]), abs(lh - lH[i - w]), abs(lh - lH[i + w]))
                    let dLV = (abs(lv - lV[i - 1]), abs(lv - lV[i + 1]), abs(lv - lV[i - w]), abs(lv - lV[i + w]))
                    let dCH = (Self.sq(ah - aH[i - 1], bh - bH[i - 1]), Self.sq(ah - aH[i + 1], bh - bH[i + 1]),
                               Self.sq(ah - aH[i - w], bh - bH[i - w]), Self.sq(ah - aH[i + w], bh - bH[i + w]))
                    let dCV = (Self.sq(av - aV[i - 1], bv - bV[i - 1]), Self.sq(av - aV[i + 1], bv - bV[i + 1]),
                               Self.sq(av - aV[i - w], bv - bV[i - w]), Self.sq(av - aV[i + w], bv - bV[i + w]))
                    let epsL = min(max(dLH.0, dLH.1), max(dLV.2, dLV.3))
                    let epsC = min(max(dCH.0, dCH.1), max(dCV.2, dCV.3))
                    homH[i] = Self.count(dLH, dCH, epsL, epsC)
                    homV[i] = Self.count(dLV, dCV, epsL, epsC)
                }
            }
        }
        // 3. Pick per pixel by 3×3 homogeneity (inset 5).
        if height > 10 && width >= 18 {
            for y in 5..<(height - 5) {
                Self.pickRow(rgbH: rgbH, rgbV: rgbV, homH: homH, homV: homV, row: y * w, width: w,
                             red: red, green: green, blue: blue)
            }
        } else if height > 10 && width > 10 {
            for y in 5..<(height - 5) {
                for i in (y * w + 5)..<(y * w + w - 5) {
                    let sH = ((homH[i - w - 1] + homH[i - w] + homH[i - w + 1]) + (homH[i - 1] + homH[i] + homH[i + 1]))
                        + (homH[i + w - 1] + homH[i + w] + homH[i + w + 1])
                    let sV = ((homV[i - w - 1] + homV[i - w] + homV[i - w + 1]) + (homV[i - 1] + homV[i] + homV[i + 1]))
                        + (homV[i + w - 1] + homV[i + w] + homV[i + w + 1])
                    if sH > sV {
                        red[i] = rgbH.0[i]; green[i] = rgbH.1[i]; blue[i] = rgbH.2[i]
                    } else if sV > sH {
                        red[i] = rgbV.0[i]; green[i] = rgbV.1[i]; blue[i] = rgbV.2[i]
                    } else {
                        red[i] = (rgbH.0[i] + rgbV.0[i]) * 0.5
                        green[i] = (rgbH.1[i] + rgbV.1[i]) * 0.5
                        blue[i] = (rgbH.2[i] + rgbV.2[i]) * 0.5
                    }
                }
            }
        }
        DemosaicBorder.fill(mosaic: m, width: width, height: height, cfa: cfa, inset: Self.exactInset,
                            red: red, green: green, blue: blue)
    }

    @inline(__always)
    static func sq(_ a: Float, _ b: Float) -> Float { a * a + b * b }

    typealias Planes = (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>)

    /// Step 2 on columns 4..<width−4 of one row, eight at a time (the scalar loop's values:
    /// comparisons, `max`/`min` picks and counts of whole numbers are exact).
    static func homogeneityRow(labH: Planes, labV: Planes, row: Int, width w: Int,
                               homH: UnsafeMutablePointer<Float>, homV: UnsafeMutablePointer<Float>) {
        typealias V = DemosaicVector.V
        @inline(__always) func load(_ p: UnsafeMutablePointer<Float>) -> V { DemosaicVector.load(p) }
        @inline(__always) func vmax(_ x: V, _ y: V) -> V { x.replacing(with: y, where: y .>= x) }
        @inline(__always) func vmin(_ x: V, _ y: V) -> V { x.replacing(with: y, where: y .< x) }
        @inline(__always) func sqv(_ a: V, _ b: V) -> V { a * a + b * b }
        let offsets = (-1, 1, -w, w)   // W, E, N, S
        let one = V(repeating: 1), zero = V()
        for x0 in stride(from: 4, to: w - 4, by: 8) {
            let i = row + min(x0, w - 12)
            let (lH, aH, bH) = labH, (lV, aV, bV) = labV
            let lh = load(lH + i), ah = load(aH + i), bh = load(bH + i)
            let lv = load(lV + i), av = load(aV + i), bv = load(bV + i)
            @inline(__always) func dL(_ l: UnsafeMutablePointer<Float>, _ c: V, _ o: Int) -> V { DemosaicVector.abs(c - load(l + i + o)) }
            @inline(__always) func dC(_ a: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>, _ ca: V, _ cb: V, _ o: Int) -> V {
                sqv(ca - load(a + i + o), cb - load(b + i + o))
            }
            let dLH = (dL(lH, lh, offsets.0), dL(lH, lh, offsets.1), dL(lH, lh, offsets.2), dL(lH, lh, offsets.3))
            let dLV = (dL(lV, lv, offsets.0), dL(lV, lv, offsets.1), dL(lV, lv, offsets.2), dL(lV, lv, offsets.3))
            let dCH = (dC(aH, bH, ah, bh, offsets.0), dC(aH, bH, ah, bh, offsets.1), dC(aH, bH, ah, bh, offsets.2), dC(aH, bH, ah, bh, offsets.3))
            let dCV = (dC(aV, bV, av, bv, offsets.0), dC(aV, bV, av, bv, offsets.1), dC(aV, bV, av, bv, offsets.2), dC(aV, bV, av, bv, offsets.3))
            let epsL = vmin(vmax(dLH.0, dLH.1), vmax(dLV.2, dLV.3))
            let epsC = vmin(vmax(dCH.0, dCH.1), vmax(dCV.2, dCV.3))
            @inline(__always) func hit(_ l: V, _ c: V) -> V { zero.replacing(with: one, where: (l .<= epsL) .& (c .<= epsC)) }
            DemosaicVector.store(((hit(dLH.0, dCH.0) + hit(dLH.1, dCH.1)) + hit(dLH.2, dCH.2)) + hit(dLH.3, dCH.3), homH + i)
            DemosaicVector.store(((hit(dLV.0, dCV.0) + hit(dLV.1, dCV.1)) + hit(dLV.2, dCV.2)) + hit(dLV.3, dCV.3), homV + i)
        }
    }

    /// Step 3 on columns 5..<width−5 of one row, eight at a time (same sums, same picks).
    static func pickRow(rgbH: Planes, rgbV: Planes, homH: UnsafeMutablePointer<Float>, homV: UnsafeMutablePointer<Float>,
                        row: Int, width w: Int, red: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>,
                        blue: UnsafeMutablePointer<Float>) {
        typealias V = DemosaicVector.V
        @inline(__always) func box(_ p: UnsafeMutablePointer<Float>) -> V {
            ((DemosaicVector.load(p - w - 1) + DemosaicVector.load(p - w) + DemosaicVector.load(p - w + 1))
                + (DemosaicVector.load(p - 1) + DemosaicVector.load(p) + DemosaicVector.load(p + 1)))
                + (DemosaicVector.load(p + w - 1) + DemosaicVector.load(p + w) + DemosaicVector.load(p + w + 1))
        }
        for x0 in stride(from: 5, to: w - 5, by: 8) {
            let i = row + min(x0, w - 13)
            let sH = box(homH + i), sV = box(homV + i)
            let useH = sH .> sV, useV = sV .> sH
            @inline(__always) func pick(_ h: UnsafeMutablePointer<Float>, _ v: UnsafeMutablePointer<Float>, _ out: UnsafeMutablePointer<Float>) {
                let a = DemosaicVector.load(h + i), b = DemosaicVector.load(v + i)
                DemosaicVector.store(((a + b) * 0.5).replacing(with: a, where: useH).replacing(with: b, where: useV), out + i)
            }
            pick(rgbH.0, rgbV.0, red); pick(rgbH.1, rgbV.1, green); pick(rgbH.2, rgbV.2, blue)
        }
    }

    /// Neighbours (W, E, N, S) within both tolerances.
    @inline(__always)
    static func count(_ dL: (Float, Float, Float, Float), _ dC: (Float, Float, Float, Float),
                      _ epsL: Float, _ epsC: Float) -> Float {
        var k: Float = 0
        if dL.0 <= epsL && dC.0 <= epsC { k += 1 }
        if dL.1 <= epsL && dC.1 <= epsC { k += 1 }
        if dL.2 <= epsL && dC.2 <= epsC { k += 1 }
        if dL.3 <= epsL && dC.3 <= epsC { k += 1 }
        return k
    }

    /// Red and blue of one directional image from its green (inset 3): colour differences
    /// `C − G` of the nearest samples, cardinal at green sites and diagonal at red/blue sites.
    static func colours(mosaic m: UnsafePointer<Float>, width w: Int, height: Int, cfa: CFAPattern,
                        red: UnsafeMutablePointer<Float>, green g: UnsafeMutablePointer<Float>,
                        blue: UnsafeMutablePointer<Float>) {
        guard height > 6 && w > 6 else { return }
        for y in 3..<(height - 3) {
            let greenParity = cfa.color(x: 0, y: y) == .green ? 0 : 1
            let nonGreen = 1 - greenParity
            let rowColour = cfa.color(x: nonGreen, y: y)
            let own = rowColour == .red ? red : blue          // the colour sampled in this row
            let other = rowColour == .red ? blue : red        // sampled in the rows above and below
            // Green sites: the row's colour from W/E, the other from N/S.
            var i = y * w + DemosaicBorder.firstColumn(3, parity: greenParity)
            let end = y * w + w - 3
            while i < end {
                let g0 = g[i]
                own[i] = g0 + ((m[i - 1] - g[i - 1]) + (m[i + 1] - g[i + 1])) * 0.5
                other[i] = g0 + ((m[i - w] - g[i - w]) + (m[i + w] - g[i + w])) * 0.5
                i += 2
            }
            // Red/blue sites: own sample, the other colour from the four diagonals.
            i = y * w + DemosaicBorder.firstColumn(3, parity: nonGreen)
            while i < end {
                own[i] = m[i]
                other[i] = g[i] + (((m[i - w - 1] - g[i - w - 1]) + (m[i - w + 1] - g[i - w + 1]))
                                   + ((m[i + w - 1] - g[i + w - 1]) + (m[i + w + 1] - g[i + w + 1]))) * 0.25
                i += 2
            }
        }
    }

    /// Linear sRGB (white (1,1,1)) → XYZ / white, as rows (IEC 61966-2-1 matrix, D65).
    static let rgbToXYZOverWhite: [Float] = {
        let m: [[Double]] = [[0.4124564, 0.3575761, 0.1804375],
                             [0.2126729, 0.7151522, 0.0721750],
                             [0.0193339, 0.1191920, 0.9503041]]
        return m.flatMap { row in row.map { Float($0 / (row[0] + row[1] + row[2])) } }
    }()

    /// CIE L*, a*, b* of the working space (see the type's doc) over rows/columns ≥ `inset` from the edge.
    static func lab(red: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>, blue: UnsafeMutablePointer<Float>,
                    width w: Int, height: Int, inset: Int,
                    l: UnsafeMutablePointer<Float>, a: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>) {
        guard height > 2 * inset && w > 2 * inset else { return }
        let k = rgbToXYZOverWhite
        let (x0, x1, x2, y0, y1, y2, z0, z1, z2) = (k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7], k[8])
        for y in inset..<(height - inset) {
            for i in (y * w + inset)..<(y * w + w - inset) {
                let r = red[i], g = green[i], bl = blue[i]
                let fx = f(x0 * r + x1 * g + x2 * bl)
                let fy = f(y0 * r + y1 * g + y2 * bl)
                let fz = f(z0 * r + z1 * g + z2 * bl)
                l[i] = 116 * fy - 16
                a[i] = 500 * (fx - fy)
                b[i] = 200 * (fy - fz)
            }
        }
    }

    /// CIE f(t): ∛t above (6/29)³, t/(3·(6/29)²) + 4/29 below (continuous at the joint).
    @inline(__always)
    static func f(_ t: Float) -> Float {
        let joint: Float = 216.0 / 24389.0
        let linear = t * (24389.0 / 3132.0) + 4.0 / 29.0
        let c = max(t, joint)
        var y = Float(bitPattern: c.bitPattern / 3 &+ 0x2A51_4067)
        y = (y + y + c / (y * y)) * (1.0 / 3.0)
        y = (y + y + c / (y * y)) * (1.0 / 3.0)
        return t > joint ? y : linear
    }
}
