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
/// `apply` allocates nothing: the tables are flat arrays resolved in `init`, read per pixel through
/// `withViews` (pointers, no reference counting).
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

        /// Applies the table to one linear RGB pixel (see the type's documentation).
        public func apply(_ rgb: SIMD3<Float>) -> SIMD3<Float> { withView { $0.apply(rgb) } }

        /// Calls `body` with a view of the table that reads it through pointers: no reference
        /// counting per pixel (copying a `Table` retains its three arrays; per pixel, from two
        /// threads, that was most of a LookTable's cost).
        @inlinable
        public func withView<R>(_ body: (View) -> R) -> R {
            entries.withUnsafeBufferPointer { e in
                encodeLUT.withUnsafeBufferPointer { enc in
                    decodeLUT.withUnsafeBufferPointer { dec in
                        body(View(hueDivisions: hueDivisions, saturationDivisions: saturationDivisions,
                                  valueDivisions: valueDivisions, srgbEncoded: srgbEncoded, entries: e, encodeLUT: enc, decodeLUT: dec))
                    }
                }
            }
        }

        /// The table's sizes and pointers to its data, valid inside `withView`.
        public struct View {
            @usableFromInline let hueDivisions: Int, saturationDivisions: Int, valueDivisions: Int
            @usableFromInline let srgbEncoded: Bool
            @usableFromInline let entries: UnsafeBufferPointer<SIMD3<Float>>
            @usableFromInline let encodeLUT: UnsafeBufferPointer<Float>, decodeLUT: UnsafeBufferPointer<Float>

            /// Index scales: hue sixths → hue divisions, saturation and value → their divisions.
            @usableFromInline let hScale: Float, sScale: Float, vScale: Float

            @usableFromInline
            init(hueDivisions: Int, saturationDivisions: Int, valueDivisions: Int, srgbEncoded: Bool,
                 entries: UnsafeBufferPointer<SIMD3<Float>>, encodeLUT: UnsafeBufferPointer<Float>, decodeLUT: UnsafeBufferPointer<Float>) {
                self.hueDivisions = hueDivisions; self.saturationDivisions = saturationDivisions
                self.valueDivisions = valueDivisions; self.srgbEncoded = srgbEncoded
                self.entries = entries; self.encodeLUT = encodeLUT; self.decodeLUT = decodeLUT
                hScale = hueDivisions < 2 ? 0 : Float(hueDivisions) / 6
                sScale = Float(saturationDivisions - 1)
                vScale = Float(valueDivisions - 1)
            }

            /// `lut` at `x` in 0…1 (linear interpolation); `exact` beyond 1.
            @inlinable @inline(__always)
            static func lookup(_ lut: UnsafeBufferPointer<Float>, _ x: Float, exact: (Float) -> Float) -> Float {
                guard x > 0 else { return x < 0 ? exact(x) : lut[0] }
                let t = x * Float(codingLUTSize - 1)
                guard t < Float(codingLUTSize - 1) else { return exact(x) }
                let i = Int(t)
                let f = t - Float(i)
                return lut[i] + f * (lut[i + 1] - lut[i])
            }

            /// The table on one linear RGB pixel (see the type's documentation).
            @inlinable
            public func apply(_ rgb: SIMD3<Float>) -> SIMD3<Float> {
                let (h, s, v) = ProfileRenderTables.rgbToHSV(rgb)
                let m = modify(h, s, v)
                return ProfileRenderTables.hsvToRGB(m.h, m.s, m.v)
            }

            /// `apply` on `count` pixels held as planes, in place, in three passes over the row
            /// (RGB → HSV, the table, HSV → RGB): each pass's iterations are independent, so the
            /// processor overlaps pixels instead of waiting out one pixel's chain of divisions,
            /// conversions and table reads. Same expressions as `apply`, so the same values.
            @inlinable
            public func applyRow(_ r: UnsafeMutablePointer<Float>, _ g: UnsafeMutablePointer<Float>,
                                 _ b: UnsafeMutablePointer<Float>, count: Int) {
                for i in 0..<count {
                    let (h, s, v) = ProfileRenderTables.rgbToHSV(SIMD3(r[i], g[i], b[i]))
                    r[i] = h; g[i] = s; b[i] = v
                }
                for i in 0..<count {
                    let m = modify(r[i], g[i], b[i])
                    r[i] = m.h; g[i] = m.s; b[i] = m.v
                }
                for i in 0..<count {
                    let c = ProfileRenderTables.hsvToRGB(r[i], g[i], b[i])
                    r[i] = c.x; g[i] = c.y; b[i] = c.z
                }
            }

            /// The table's step on one HSV triple: look up (hue shift, saturation scale, value
            /// scale) at (H, S, V — sRGB-encoded V when the table says so) and apply it.
            @inlinable @inline(__always)
            public func modify(_ hue: Float, _ saturation: Float, _ value: Float) -> (h: Float, s: Float, v: Float) {
                var h = hue, s = saturation, v = value
                var vEncoded = v
                if srgbEncoded { vEncoded = Self.lookup(encodeLUT, min(max(v, 0), 1), exact: ProfileRenderTables.srgbEncode) }

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

                let e = entries
                let i00 = hIndex0 * hueStep + sIndex0, i01 = hIndex1 * hueStep + sIndex0
                @inline(__always) func slice(_ base: Int) -> SIMD3<Float> {
                    let a = hFract0 * e[base + i00] + hFract1 * e[base + i01]
                    let b = hFract0 * e[base + i00 + 1] + hFract1 * e[base + i01 + 1]
                    return sFract0 * a + sFract1 * b
                }
                let modify: SIMD3<Float>
                if valueDivisions < 2 {
                    modify = slice(0)
                } else {
                    let vScaled = max(vEncoded, 0) * vScale
                    let vIndex0 = min(Int(vScaled), valueDivisions - 2)
                    let vFract1 = vScaled - Float(vIndex0)
                    modify = (1 - vFract1) * slice(vIndex0 * valStep) + vFract1 * slice((vIndex0 + 1) * valStep)
                }
                h += modify.x
                s = min(s * modify.y, 1)
                vEncoded = max(vEncoded * modify.z, 0)
                v = srgbEncoded ? Self.lookup(decodeLUT, vEncoded, exact: ProfileRenderTables.srgbDecode) : vEncoded
                return (h, s, v)
            }
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
    /// interpolated exactly as the colour matrices), or whichever one exists. With
    /// `tripleIlluminantWeights` (w1, w2, w3) of a triple-illuminant model and all three tables,
    /// HueSatMap = w1 · Data1 + w2 · Data2 + w3 · Data3, with w3 = 1 − (w1 + w2) in 32-bit float
    /// and a weight ≥ 1 taking its table as is (as the DNG SDK 1.7.1 blends); a missing Data3 then
    /// drops the HueSatMap (the DNG spec requires all three or none). nil when the
    /// profile has no HueSatMap, LookTable or (non-identity) ProfileToneCurve; a profile with
    /// only a tone curve gives tables whose `apply` is the identity (`hasTables` false).
    public init?(profile: CameraProfile, weight1: Double, tripleIlluminantWeights: SIMD3<Double>? = nil) {
        var warnings: [String] = []
        var hsm: Table?
        if let dims = profile.hueSatMapDims {
            let w = Float(min(max(weight1, 0), 1))
            var data: [Float]?
            switch (profile.hueSatMapData1, profile.hueSatMapData2) {
            case (let a?, let b?) where tripleIlluminantWeights != nil && a.count == b.count:
                if let t = tripleIlluminantWeights, let c = profile.hueSatMapData3, c.count == a.count {
                    data = Self.blend(a, b, c, t)
                } else {
                    warnings.append("ProfileHueSatMapData3 missing or of another size in a triple-illuminant profile; HueSatMap ignored")
                }
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

    /// w.x · a + w.y · b + (1 − (w.x + w.y)) · c in Float, entry by entry; a weight ≥ 1 returns its table.
    static func blend(_ a: [Float], _ b: [Float], _ c: [Float], _ w: SIMD3<Double>) -> [Float] {
        if w.x >= 1 { return a }
        if w.y >= 1 { return b }
        if 1 - (w.x + w.y) >= 1 { return c }
        let w1 = Float(w.x), w2 = Float(w.y)
        let w3 = 1 - (w1 + w2)
        return (0..<a.count).map { w1 * a[$0] + w2 * b[$0] + w3 * c[$0] }
    }

    /// True when there is a HueSatMap or LookTable for `apply` to run.
    public var hasTables: Bool { hueSatMap != nil || lookTable != nil }

    /// HueSatMap then LookTable on a linear ProPhoto (ROMM, D50) pixel.
    public func apply(_ rgb: SIMD3<Float>) -> SIMD3<Float> {
        withViews { h, l in Self.apply(rgb, h, l) }
    }

    /// HueSatMap then LookTable through views (`withViews`): the per-pixel form.
    @inlinable @inline(__always)
    public static func apply(_ rgb: SIMD3<Float>, _ hueSatMap: Table.View?, _ lookTable: Table.View?) -> SIMD3<Float> {
        var p = rgb
        if let hueSatMap { p = hueSatMap.apply(p) }
        if let lookTable { p = lookTable.apply(p) }
        return p
    }

    /// Calls `body` with views of the HueSatMap and LookTable (nil when absent).
    @inlinable
    public func withViews<R>(_ body: (Table.View?, Table.View?) -> R) -> R {
        func withLook(_ h: Table.View?) -> R {
            if let lookTable { return lookTable.withView { body(h, $0) } }
            return body(h, nil)
        }
        if let hueSatMap { return hueSatMap.withView { withLook($0) } }
        return withLook(nil)
    }

    // MARK: HSV (DNG SDK `DNG_RGBtoHSV` / `DNG_HSVtoRGB`: hue in sixths)

    // Both are written with selects instead of branches on which channel is largest or which
    // sixth the hue is in (data-dependent, so mispredicted about half the time); every case still
    // computes exactly the SDK's expression.

    @inlinable @inline(__always)
    static func rgbToHSV(_ c: SIMD3<Float>) -> (h: Float, s: Float, v: Float) {
        // (Explicit max/min: `SIMD3.max()` compiled to a call per pixel.)
        let v = max(max(c.x, c.y), c.z)
        let gap = v - min(min(c.x, c.y), c.z)
        guard gap > 0, v > 0 else { return (0, 0, v) }
        let redMax = c.x == v, greenMax = !redMax && c.y == v
        let numerator = redMax ? c.y - c.z : greenMax ? c.z - c.x : c.x - c.y
        let q = numerator / gap
        let h = redMax ? (q < 0 ? q + 6 : q) : greenMax ? 2 + q : 4 + q
        return (h, gap / v, v)
    }

    @inlinable @inline(__always)
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
        // Sixth i: 0 (v, t, p), 1 (q, v, p), 2 (p, v, t), 3 (p, q, v), 4 (t, p, v), 5 (v, p, q).
        let r = i == 0 || i == 5 ? v : i == 1 ? q : i == 4 ? t : p
        let g = i == 1 || i == 2 ? v : i == 0 ? t : i == 3 ? q : p
        let b = i == 3 || i == 4 ? v : i == 2 ? t : i == 5 ? q : p
        return SIMD3(r, g, b)
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
