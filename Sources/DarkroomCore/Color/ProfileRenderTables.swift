import Foundation

/// A camera profile's render tables, resolved for one scene white: `ProfileHueSatMapData1/2`
/// interpolated by the ColorMatrix weight, `ProfileLookTableData`, and `ProfileToneCurve`.
///
/// Colour space: input and output of `apply` are linear ProPhoto (ROMM RGB primaries, D50 white),
/// the space the DNG SDK's reference renderer (`dng_render`) applies these tables in, between
/// camera → XYZ D50 and XYZ D50 → output.
///
/// Per pixel (DNG spec 1.7, "ProfileHueSatMapData1", "ProfileLookTableData"; the SDK's
/// `RefBaselineHueSatMap`), for each table (HueSatMap first, then LookTable):
/// 1. RGB → HSV: V = max, S = (max − min) / max, H in sixths 0…6 (red 0, green 2, blue 4).
/// 2. When the table's encoding is sRGB (`ProfileHueSatMapEncoding`/`ProfileLookTableEncoding` = 1),
///    V is sRGB-encoded (clamped to 0…1) before the lookup and the value scale is applied to that
///    encoded V, which is decoded afterwards (both through 4097-sample tables with linear
///    interpolation, like the SDK's 4096-entry tables; max error vs. the exact curve < 2e-5).
/// 3. Lookup: hue index H × hueDivisions / 6 wraps around (the last division interpolates
///    towards division 0), saturation index S × (satDivisions − 1), value index
///    V × (valDivisions − 1), each clamped to the last cell; bilinear in (hue, sat) for
///    "2.5D" tables (valDivisions = 1), trilinear otherwise. Each entry is
///    (hueShift degrees, saturationScale, valueScale).
/// 4. H += hueShift × 6 / 360; S = min(S × satScale, 1); V = V × valScale; HSV → RGB.
///
/// One deliberate difference from the SDK: the SDK clamps the scaled V to 1 (its pipeline has
/// no headroom above white at this point); here V is only clamped below at 0, so highlight
/// headroom the pipeline keeps survives the tables. For V ≤ 1 and scaled V ≤ 1 the result is
/// identical.
///
/// `apply` allocates nothing: the tables are flat arrays resolved in `init`.
public struct ProfileRenderTables: Sendable {
    /// One 2.5D or 3D table as the DNG stores it: value slices outermost, then hue, then
    /// saturation changing fastest; entries (hueShift°, satScale, valScale).
    public struct Table: Sendable, Equatable {
        public let hueDivisions: Int
        public let saturationDivisions: Int
        public let valueDivisions: Int
        /// True when the value axis (and value scale) is sRGB-encoded.
        public let srgbEncoded: Bool
        /// (hueShift in sixths — already converted from degrees — , satScale, valScale) per entry.
        @usableFromInline let entries: [SIMD3<Float>]
        /// sRGB encode / decode on 0…1 as `codingLUTSize` samples with linear interpolation (as the
        /// SDK's 4096-entry `dng_1d_table`s); empty for linear tables.
        @usableFromInline let encodeLUT: [Float]
        @usableFromInline let decodeLUT: [Float]
        @usableFromInline static let codingLUTSize = 4097

        /// nil unless dims are ≥ (1, 2, 1) and `data` holds hue × sat × val × 3 finite values.
        public init?(dims: [Int], data: [Float], encoding: Int) {
            guard dims.count == 3, dims[0] >= 1, dims[1] >= 2, dims[2] >= 1 else { return nil }
            let n = dims[0] * dims[1] * dims[2]
            guard data.count == n * 3, data.allSatisfy(\.isFinite) else { return nil }
            hueDivisions = dims[0]; saturationDivisions = dims[1]; valueDivisions = dims[2]
            srgbEncoded = encoding == 1
            var e: [SIMD3<Float>] = []
            e.reserveCapacity(n)
            for i in 0..<n {
                e.append(SIMD3(data[3 * i] * (6 / 360), data[3 * i + 1], data[3 * i + 2]))
            }
            entries = e
            let m = Self.codingLUTSize - 1
            encodeLUT = srgbEncoded ? (0...m).map { ProfileRenderTables.srgbEncode(Float($0) / Float(m)) } : []
            decodeLUT = srgbEncoded ? (0...m).map { ProfileRenderTables.srgbDecode(Float($0) / Float(m)) } : []
        }

        /// `lut` at `x` in 0…1 (linear interpolation); `exact` beyond 1.
        @inlinable @inline(__always)
        static func lookup(_ lut: [Float], _ x: Float, exact: (Float) -> Float) -> Float {
            guard x > 0 else { return x < 0 ? exact(x) : lut[0] }
            let t = x * Float(codingLUTSize - 1)
            guard t < Float(codingLUTSize - 1) else { return exact(x) }
            let i = Int(t)
            let f = t - Float(i)
            return lut[i] + f * (lut[i + 1] - lut[i])
        }

        /// Applies the table to one linear RGB pixel (see the type's documentation).
        @inlinable
        public func apply(_ rgb: SIMD3<Float>) -> SIMD3<Float> {
            var (h, s, v) = ProfileRenderTables.rgbToHSV(rgb)
            var vEncoded = v
            if srgbEncoded { vEncoded = Self.lookup(encodeLUT, min(max(v, 0), 1), exact: ProfileRenderTables.srgbEncode) }

            let hScale: Float = hueDivisions < 2 ? 0 : Float(hueDivisions) / 6
            let sScale = Float(saturationDivisions - 1)
            let vScale = Float(valueDivisions - 1)
            let hScaled = h * hScale
            let sScaled = max(s, 0) * sScale
            var hIndex0 = Int(hScaled)
            var sIndex0 = Int(sScaled)
            sIndex0 = min(sIndex0, saturationDivisions - 2)
            var hIndex1 = hIndex0 + 1
            if hIndex0 >= hueDivisions - 1 { hIndex0 = hueDivisions - 1; hIndex1 = 0 }
            let hFract1 = hScaled - Float(hIndex0), sFract1 = sScaled - Float(sIndex0)
            let hFract0 = 1 - hFract1, sFract0 = 1 - sFract1
            let hueStep = saturationDivisions
            let valStep = hueDivisions * hueStep

            let modify: SIMD3<Float> = entries.withUnsafeBufferPointer { e in
                let i00 = hIndex0 * hueStep + sIndex0, i01 = hIndex1 * hueStep + sIndex0
                @inline(__always) func slice(_ base: Int) -> SIMD3<Float> {
                    let a = hFract0 * e[base + i00] + hFract1 * e[base + i01]
                    let b = hFract0 * e[base + i00 + 1] + hFract1 * e[base + i01 + 1]
                    return sFract0 * a + sFract1 * b
                }
                if valueDivisions < 2 { return slice(0) }
                let vScaled = max(vEncoded, 0) * vScale
                let vIndex0 = min(Int(vScaled), valueDivisions - 2)
                let vFract1 = vScaled - Float(vIndex0)
                return (1 - vFract1) * slice(vIndex0 * valStep) + vFract1 * slice((vIndex0 + 1) * valStep)
            }
            h += modify.x
            s = min(s * modify.y, 1)
            vEncoded = max(vEncoded * modify.z, 0)
            v = srgbEncoded ? Self.lookup(decodeLUT, vEncoded, exact: ProfileRenderTables.srgbDecode) : vEncoded
            return ProfileRenderTables.hsvToRGB(h, s, v)
        }
    }

    /// HueSatMap interpolated for the scene white; nil when the profile has none.
    public let hueSatMap: Table?
    /// LookTable; nil when the profile has none.
    public let lookTable: Table?
    /// `ProfileToneCurve` as a function on 0…1; nil when the profile has none (or it is the identity).
    public var toneCurve: ToneCurveFunction?
    /// Why a present table was not used (wrong sizes, non-finite values).
    public let warnings: [String]

    /// Resolves `profile`'s tables for a scene white whose ColorMatrix1 weight is `weight1`
    /// (`ColorSolution.weight1`): HueSatMap = weight1 · Data1 + (1 − weight1) · Data2 (DNG spec:
    /// interpolated exactly as the colour matrices), or whichever one exists. nil when the
    /// profile has no HueSatMap, LookTable or (non-identity) ProfileToneCurve; a profile with
    /// only a tone curve gives tables whose `apply` is the identity (`hasTables` false).
    public init?(profile: CameraProfile, weight1: Double) {
        var warnings: [String] = []
        var hsm: Table?
        if let dims = profile.hueSatMapDims {
            let w = Float(min(max(weight1, 0), 1))
            var data: [Float]?
            switch (profile.hueSatMapData1, profile.hueSatMapData2) {
            case (let a?, let b?) where a.count == b.count:
                data = w >= 1 ? a : w <= 0 ? b : zip(a, b).map { w * $0 + (1 - w) * $1 }
            case (let a?, nil): data = a
            case (nil, let b?): data = b
            case (_?, _?): warnings.append("ProfileHueSatMapData1/2 differ in size; HueSatMap ignored")
            case (nil, nil): break
            }
            if let data {
                hsm = Table(dims: dims, data: data, encoding: profile.hueSatMapEncoding)
                if hsm == nil { warnings.append("ProfileHueSatMapDims \(dims) do not fit the data; HueSatMap ignored") }
            }
        }
        var look: Table?
        if let dims = profile.lookTableDims, let data = profile.lookTableData {
            look = Table(dims: dims, data: data, encoding: profile.lookTableEncoding)
            if look == nil { warnings.append("ProfileLookTableDims \(dims) do not fit the data; LookTable ignored") }
        }
        var curve: ToneCurveFunction?
        if let points = profile.toneCurve {
            curve = ToneCurveFunction(points: points)
            if curve == nil { warnings.append("ProfileToneCurve is not an increasing list of points; ignored") }
            if curve?.isIdentity == true { curve = nil }
        }
        guard hsm != nil || look != nil || curve != nil else { return nil }
        self.hueSatMap = hsm
        self.lookTable = look
        self.toneCurve = curve
        self.warnings = warnings
    }

    /// True when there is a HueSatMap or LookTable for `apply` to run.
    public var hasTables: Bool { hueSatMap != nil || lookTable != nil }

    /// HueSatMap then LookTable on a linear ProPhoto (ROMM, D50) pixel.
    @inlinable
    public func apply(_ rgb: SIMD3<Float>) -> SIMD3<Float> {
        var p = rgb
        if let hueSatMap { p = hueSatMap.apply(p) }
        if let lookTable { p = lookTable.apply(p) }
        return p
    }

    // MARK: HSV (DNG SDK `DNG_RGBtoHSV` / `DNG_HSVtoRGB`: hue in sixths)

    @inlinable
    static func rgbToHSV(_ c: SIMD3<Float>) -> (h: Float, s: Float, v: Float) {
        let v = c.max()
        let gap = v - c.min()
        guard gap > 0, v > 0 else { return (0, 0, v) }
        var h: Float
        if c.x == v {
            h = (c.y - c.z) / gap
            if h < 0 { h += 6 }
        } else if c.y == v {
            h = 2 + (c.z - c.x) / gap
        } else {
            h = 4 + (c.x - c.y) / gap
        }
        return (h, gap / v, v)
    }

    @inlinable
    static func hsvToRGB(_ hue: Float, _ s: Float, _ v: Float) -> SIMD3<Float> {
        guard s > 0 else { return SIMD3(repeating: v) }
        var h = hue
        if h < 0 { h += 6 }
        if h >= 6 { h -= 6 }
        let i = min(max(Int(h), 0), 5)
        let f = h - Float(i)
        let p = v * (1 - s)
        let q = v * (1 - s * f)
        let t = v * (1 - s * (1 - f))
        switch i {
        case 0: return SIMD3(v, t, p)
        case 1: return SIMD3(q, v, p)
        case 2: return SIMD3(p, v, t)
        case 3: return SIMD3(p, q, v)
        case 4: return SIMD3(t, p, v)
        default: return SIMD3(v, p, q)
        }
    }

    @inlinable
    static func srgbEncode(_ x: Float) -> Float {
        x <= 0.0031308 ? x * 12.92 : 1.055 * powf(x, 1 / 2.4) - 0.055
    }

    @inlinable
    static func srgbDecode(_ x: Float) -> Float {
        x < 0.04045 ? x / 12.92 : powf((x + 0.055) / 1.055, 2.4)
    }
}
