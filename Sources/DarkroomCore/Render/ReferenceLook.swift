import Foundation

/// The look of the DNG SDK 1.7.1 reference renderer (`dng_render`, what `dng_validate -tif`
/// writes), as Darkroom's `--tone reference` stage: stages 6–8 of `DevelopPlan` replaced by the
/// SDK's sequence, read from its source (dng_render.cpp, dng_reference.cpp, dng_color_space.cpp).
///
/// Per pixel, all in 32-bit float:
/// 1. Balanced camera RGB (white balance already applied and clipped at 1 by the developer,
///    which equals the SDK's clip of camera values at the camera white) → linear ProPhoto (ROMM
///    primaries, D50) with `cameraToProPhoto`, then each channel pinned to 0…1. No exposure here.
/// 2. `ProfileHueSatMapData` (interpolated for the scene white), if the profile has one, in
///    that linear ProPhoto space; the scaled value is pinned to ≤ 1 as the SDK does.
/// 2b. `ProfileGainTableMap`/`ProfileGainTableMap2`, if the file or profile has one (`gainTableMap`):
///    a gain by the pixel's position in the whole stage-3 image (before DefaultCrop) and its
///    weighted brightness, in the same linear ProPhoto space, before the exposure ramp — so, as in
///    the SDK, the table input is scaled by 2^(BaselineExposure + BaselineExposureOffset) (not by
///    the user's exposure); results pinned to 0…1. (dng_render.cpp, RefBaselineProfileGainTableMap.)
/// 3. The exposure ramp on each channel (`ExposureRamp`, the SDK's `dng_function_exposure_ramp`):
///    subtracts the shadow black (0.005 = 5 ‰ of white, none when the profile's
///    `DefaultBlackRender` is 1), scales white 2^−BaselineExposure to 1 (only for positive
///    total exposure), with a quadratic toe around the black point; result pinned to 0…1.
/// 4. `ProfileLookTableData`, if any (same space, after the ramp).
/// 5. The tone curve with the SDK's "RGB tone" construction (`RefBaselineRGBTone`): the curve on
///    the largest and smallest channel, the middle one placed at the same relative position.
///    The curve is the profile's `ProfileToneCurve`, else `ACR3ToneCurve`; a negative total
///    exposure darkens through `dng_function_exposure_tone` ahead of it. It is tabulated at
///    4096 steps and read with linear interpolation, as the SDK's `dng_1d_table`.
/// 6. Linear ProPhoto → output linear RGB (`proPhotoToOutput`), pinned to 0…1. The encoder then
///    applies the space's transfer function and quantises (x · 65535 + 0.5, truncated).
///
/// The ProPhoto, sRGB and Display P3 matrices are the SDK's (its rounded RGB → XYZ D50 values,
/// rows rescaled so RGB (1, 1, 1) maps to its D50 white (0.3457, 0.3585) exactly); other output
/// spaces use Darkroom's own `OutputColorSpace` matrices.
public struct ReferenceLook: Sendable {
    /// `dng_function_exposure_ramp`: the SDK's exposure and black-point function on one channel.
    ///
    /// y = 0 below `black − radius`; y = (x − black) · slope above `black + radius` (pinned to
    /// 1); in between the quadratic toe qScale · (x − (black − radius))², which meets the line
    /// with equal value and slope. slope = 1 / (white − black), radius =
    /// min(0.5 · black, (1/16) / slope), qScale = slope / (4 · radius).
    public struct ExposureRamp: Sendable, Equatable {
        public let white: Double
        public let black: Double
        public let slope: Double
        public let radius: Double
        public let qScale: Double

        /// `white`, `black` in linear 0…1 (input units); `minBlack` sizes the toe.
        public init(white: Double, black: Double, minBlack: Double) {
            self.white = white
            self.black = black
            slope = 1 / (white - black)
            radius = min(0.5 * minBlack, (1.0 / 16.0) / slope)
            qScale = radius > 0 ? slope / (4 * radius) : 0
        }

        /// The ramp at `x` (pinned to 0…1 first, result pinned to ≤ 1).
        @inline(__always)
        public func callAsFunction(_ x: Float) -> Float {
            let v = Double(x >= 0 ? min(x, 1) : 0)   // NaN → 0
            if v <= black - radius { return 0 }
            if v >= black + radius { return Float(min((v - black) * slope, 1)) }
            let y = v - (black - radius)
            return Float(qScale * y * y)
        }
    }

    /// Balanced camera RGB → linear ProPhoto, no exposure (row-major).
    public let cameraToProPhoto: Matrix3
    /// Linear ProPhoto → output linear RGB (row-major).
    public let proPhotoToOutput: Matrix3
    /// HueSatMap (for the scene white) and LookTable, when the profile has them.
    public let tables: ProfileRenderTables?
    /// The gain table map resolved for the image size and baseline exposure, when there is one.
    public let gainTableMap: ProfileGainTableMap.Sampler?
    public let ramp: ExposureRamp
    /// Total exposure in stops (BaselineExposure + BaselineExposureOffset + user stops).
    public let exposureStops: Double
    /// True when the profile's ProfileToneCurve is used (else `ACR3ToneCurve`).
    public let usesProfileToneCurve: Bool
    /// Tone curve (with the negative-exposure darkening) at x = i / `toneSteps`, i = 0…toneSteps,
    /// plus a copy of the last entry (so x = 1 interpolates inside the table).
    let toneTable: [Float]
    static let toneSteps = 4096
    /// The two matrices as Float, row-major (read per pixel).
    private let a: [Float], q: [Float]

    /// The SDK's `RGB → XYZ D50` matrices (dng_color_space.cpp), rows as published.
    static let sdkProPhotoToPCS = Matrix3(rows: SIMD3(0.7977, 0.1352, 0.0313), SIMD3(0.2880, 0.7119, 0.0001),
                                          SIMD3(0.0000, 0.0000, 0.8249))
    static let sdkSRGBToPCS = Matrix3(rows: SIMD3(0.4361, 0.3851, 0.1431), SIMD3(0.2225, 0.7169, 0.0606),
                                      SIMD3(0.0139, 0.0971, 0.7141))
    static let sdkDisplayP3ToPCS = Matrix3(rows: SIMD3(0.5151, 0.2920, 0.1571), SIMD3(0.2412, 0.6922, 0.0666),
                                           SIMD3(-0.0010, 0.0419, 0.7843))
    /// The SDK's PCS white (D50 as it rounds it).
    static let sdkPCSWhite = ColorMath.xyToXYZ(Chromaticity(x: 0.3457, y: 0.3585))

    /// `dng_color_space::SetMatrixToPCS`: scale each row so RGB (1, 1, 1) maps to the PCS white.
    static func normalizedToPCS(_ m: Matrix3) -> Matrix3 {
        let w = m * SIMD3<Double>(1, 1, 1)
        return Matrix3.diagonal(sdkPCSWhite / w) * m
    }

    /// Linear RGB of `space` → XYZ D50 as the reference renderer uses it.
    static func toPCS(_ space: OutputColorSpace) -> Matrix3 {
        switch space.linearVariant {
        case .srgbLinear: return normalizedToPCS(sdkSRGBToPCS)
        case .p3Linear: return normalizedToPCS(sdkDisplayP3ToPCS)
        case .prophotoLinear: return normalizedToPCS(sdkProPhotoToPCS)
        default: return space.linearRGBToXYZD50
        }
    }

    /// Resolves the look for one file.
    /// - Parameters:
    ///   - balancedCameraToXYZD50: white-balanced camera RGB → XYZ D50 (the colour solution).
    ///   - tables: the profile's HueSatMap/LookTable for the scene white (nil: none).
    ///   - profileToneCurve: the profile's `ProfileToneCurve` points (x0, y0, x1, y1, …). Used
    ///     when valid by the SDK's rule (`dng_tone_curve::IsValid`: ≥ 2 points, all in 0…1, x
    ///     strictly increasing) — even when it is the identity; otherwise `ACR3ToneCurve`.
    ///   - exposureStops: BaselineExposure + BaselineExposureOffset + user stops.
    ///   - defaultBlackRender: the profile's `DefaultBlackRender` (1 = no shadow black).
    ///   - space: the output space.
    ///   - gainTableMap: the ProfileGainTableMap to apply after the HueSatMap (nil: none).
    public init(balancedCameraToXYZD50: Matrix3, tables: ProfileRenderTables?, profileToneCurve: [Float]?,
                exposureStops: Double,
                defaultBlackRender: Int?, space: OutputColorSpace,
                gainTableMap: ProfileGainTableMap.Sampler? = nil) {
        self.gainTableMap = gainTableMap
        let proPhotoToPCS = Self.toPCS(.prophotoLinear)
        let pcsToProPhoto = proPhotoToPCS.inverse ?? .identity
        cameraToProPhoto = pcsToProPhoto * balancedCameraToXYZD50
        proPhotoToOutput = (Self.toPCS(space).inverse ?? .identity) * proPhotoToPCS
        a = cameraToProPhoto.m.map { Float($0) }
        q = proPhotoToOutput.m.map { Float($0) }
        self.tables = tables?.hasTables == true ? tables : nil
        self.exposureStops = exposureStops

        // dng_render_task::Start: white = 2^−max(0, exposure); black = shadows (5, or 0 with
        // DefaultBlackRender = None) × ShadowScale (1) × Stage3Gain (1) × 0.001, at most 0.99 white.
        let white = 1 / pow(2, max(0, exposureStops))
        let shadows = defaultBlackRender == 1 ? 0.0 : 5.0
        let black = min(shadows * 0.001, 0.99 * white)
        ramp = ExposureRamp(white: white, black: black, minBlack: black)

        var profileCurve: ToneCurveFunction?
        if let p = profileToneCurve, p.count >= 4, p.count % 2 == 0, p.allSatisfy({ $0 >= 0 && $0 <= 1 }) {
            profileCurve = ToneCurveFunction(points: p)   // nil unless x strictly increases
        }
        usesProfileToneCurve = profileCurve != nil
        // dng_function_exposure_tone: for negative exposure, x · 2^exposure up to 0.25, then a
        // quadratic through (0.25, 0.25 · slope) with that slope, reaching (1, 1).
        let exposure = exposureStops
        let darken: (Double) -> Double
        if exposure < 0 {
            let s = pow(2, exposure)
            let a = 16.0 / 9.0 * (1 - s), b = s - 0.5 * a, c = 1 - a - b
            darken = { x in x <= 0.25 ? x * s : (a * x + b) * x + c }
        } else {
            darken = { $0 }
        }
        let n = Self.toneSteps
        var table = [Float](repeating: 0, count: n + 2)
        for j in 0...n {
            let x = darken(Double(j) * (1.0 / Double(n)))
            table[j] = Float(profileCurve.map { $0.evaluate(x) } ?? ACR3ToneCurve.evaluate(x))
        }
        table[n + 1] = table[n]
        toneTable = table
    }

    /// `dng_1d_table::Interpolate` on the tone table; `x` must be in 0…1.
    @inline(__always)
    static func interpolate(_ table: UnsafeBufferPointer<Float>, _ x: Float) -> Float {
        let y = x * Float(toneSteps)
        let i = Int(y)
        let f = y - Float(i)
        return table[i] * (1 - f) + table[i + 1] * f
    }

    /// The tone curve of the look at one value in 0…1 (tabulated, as applied to pixels).
    public func tone(_ x: Float) -> Float {
        toneTable.withUnsafeBufferPointer { Self.interpolate($0, x >= 0 ? min(x, 1) : 0) }
    }

    /// The look's "RGB tone" step on one pixel (see `rgbTone(_:_:_:_:)`).
    public func rgbTone(_ r: Float, _ g: Float, _ b: Float) -> (Float, Float, Float) {
        toneTable.withUnsafeBufferPointer { Self.rgbTone(r, g, b, $0) }
    }

    /// `RefBaselineRGBTone`: the curve on the largest and smallest channel (pinned to 0…1), the
    /// middle one at the same relative position between them. Cases and ties as the SDK's.
    @inline(__always)
    static func rgbTone(_ r0: Float, _ g0: Float, _ b0: Float, _ t: UnsafeBufferPointer<Float>) -> (Float, Float, Float) {
        let r = r0 >= 0 ? min(r0, 1) : 0, g = g0 >= 0 ? min(g0, 1) : 0, b = b0 >= 0 ? min(b0, 1) : 0
        // (hi, mid, lo) → (f(hi), interpolated mid, f(lo)).
        @inline(__always) func tone3(_ hi: Float, _ mid: Float, _ lo: Float) -> (Float, Float, Float) {
            let fh = interpolate(t, hi), fl = interpolate(t, lo)
            return (fh, fl + (fh - fl) * (mid - lo) / (hi - lo), fl)
        }
        if r >= g {
            if g > b {                       // r ≥ g > b
                let (rr, gg, bb) = tone3(r, g, b); return (rr, gg, bb)
            } else if b > r {                // b > r ≥ g
                let (bb, rr, gg) = tone3(b, r, g); return (rr, gg, bb)
            } else if b > g {                // r ≥ b > g
                let (rr, bb, gg) = tone3(r, b, g); return (rr, gg, bb)
            } else {                         // r ≥ g == b
                let rr = interpolate(t, r), gg = interpolate(t, g)
                return (rr, gg, gg)
            }
        } else if r >= b {                   // g > r ≥ b
            let (gg, rr, bb) = tone3(g, r, b); return (rr, gg, bb)
        } else if b > g {                    // b > g > r
            let (bb, gg, rr) = tone3(b, g, r); return (rr, gg, bb)
        } else {                             // g ≥ b > r
            let (gg, bb, rr) = tone3(g, b, r); return (rr, gg, bb)
        }
    }

    /// Applies stages 1–6 to `count` pixels held as planes, in place: balanced camera RGB in,
    /// output linear RGB in 0…1 out. The first pixel is (`x`, `y`) of the stage-3 image (only the
    /// gain table map depends on it). Without profile tables the pixels run eight at a time
    /// (`runLanes`); with tables, one at a time (`run`: the tables' lookups are per pixel).
    public func applyRow(_ pr: UnsafeMutablePointer<Float>, _ pg: UnsafeMutablePointer<Float>, _ pb: UnsafeMutablePointer<Float>,
                  count: Int, x: Int = 0, y: Int = 0) {
        let emptyGains: [Float] = []
        (gainTableMap?.map.gains ?? emptyGains).withUnsafeBufferPointer { gains in
            let position = gainTableMap.map { (sampler: $0, row: $0.row(y), x: x, gains: gains) }
            if let tables {
                tables.withViews { hsm, look in run(pr, pg, pb, count, hsm, look, position) }
            } else {
                runLanes(pr, pg, pb, count, position)
            }
        }
    }

    /// Where a row sits for the gain table map: its sampler, vertical interpolation, first column, gains.
    typealias MapPosition = (sampler: ProfileGainTableMap.Sampler, row: ProfileGainTableMap.Sampler.Row, x: Int,
                             gains: UnsafeBufferPointer<Float>)

    /// Stages 1, 2b, 3, 5, 6 on eight pixels at a time (a short group is padded, so every pixel
    /// takes the same operations wherever a row splits: bytes never depend on tile size; the gain
    /// table map runs per lane, a function of the pixel's own position and value). The
    /// ramp is evaluated in Float and the RGB tone in its branch-free form (curve on max and min,
    /// every channel at its relative position between them), which equals the SDK's case
    /// analysis up to float rounding (≤ 1e-6).
    private func runLanes(_ pr: UnsafeMutablePointer<Float>, _ pg: UnsafeMutablePointer<Float>,
                          _ pb: UnsafeMutablePointer<Float>, _ count: Int, _ position: MapPosition?) {
        let lo = Float(ramp.black - ramp.radius), hi = Float(ramp.black + ramp.radius)
        let black = Float(ramp.black), slope = Float(ramp.slope), qScale = Float(ramp.qScale)
        @inline(__always) func pin(_ v: RV) -> RV {
            var c = v.replacing(with: 1, where: v .> 1)
            c.replace(with: 0, where: .!(v .>= 0))   // NaN → 0
            return c
        }
        @inline(__always) func rampV(_ v: RV) -> RV {
            let line = ((v - black) * slope).replacing(with: 1, where: (v - black) * slope .> 1)
            let y = v - lo
            var out = qScale * y * y
            out.replace(with: line, where: v .>= hi)
            out.replace(with: 0, where: v .<= lo)
            return out
        }
        @inline(__always) func curveV(_ v: RV, _ t: UnsafeBufferPointer<Float>) -> RV {
            let f = v * Float(Self.toneSteps)
            var out = RV()
            for l in 0..<RV.scalarCount {
                let i = Int(f[l])
                let w = f[l] - Float(i)
                out[l] = t[i] * (1 - w) + t[i + 1] * w
            }
            return out
        }
        toneTable.withUnsafeBufferPointer { t in
        a.withUnsafeBufferPointer { a in
        q.withUnsafeBufferPointer { q in
            var x = 0
            while x < count {
                let n = min(RV.scalarCount, count - x)
                var cr = RV(), cg = RV(), cb = RV()
                for l in 0..<n { cr[l] = pr[x + l]; cg[l] = pg[x + l]; cb[l] = pb[x + l] }
                var r = pin(a[0] * cr + a[1] * cg + a[2] * cb)
                var g = pin(a[3] * cr + a[4] * cg + a[5] * cb)
                var b = pin(a[6] * cr + a[7] * cg + a[8] * cb)
                if let p = position {
                    // Eight lanes at once (table reads per lane); padding lanes are discarded.
                    let k = p.sampler.gain8(p.gains, row: p.row, x: p.x + x, r: r, g: g, b: b)
                    r = pin(r * k); g = pin(g * k); b = pin(b * k)
                }
                r = rampV(r); g = rampV(g); b = rampV(b)
                var mx = r.replacing(with: g, where: g .> r), mn = r.replacing(with: g, where: g .< r)
                mx.replace(with: b, where: b .> mx); mn.replace(with: b, where: b .< mn)
                let fmx = curveV(mx, t), fmn = curveV(mn, t)
                let k = (fmx - fmn) / (mx - mn)
                let flat = .!(mx .> mn)
                let tr = (fmn + (r - mn) * k).replacing(with: fmx, where: flat)
                let tg = (fmn + (g - mn) * k).replacing(with: fmx, where: flat)
                let tb = (fmn + (b - mn) * k).replacing(with: fmx, where: flat)
                let or = pin(q[0] * tr + q[1] * tg + q[2] * tb)
                let og = pin(q[3] * tr + q[4] * tg + q[5] * tb)
                let ob = pin(q[6] * tr + q[7] * tg + q[8] * tb)
                for l in 0..<n { pr[x + l] = or[l]; pg[x + l] = og[l]; pb[x + l] = ob[l] }
                x += RV.scalarCount
            }
        }
        }
        }
    }

    @inline(__always)
    private func run(_ pr: UnsafeMutablePointer<Float>, _ pg: UnsafeMutablePointer<Float>, _ pb: UnsafeMutablePointer<Float>,
                     _ count: Int, _ hsm: ProfileRenderTables.Table.View?, _ look: ProfileRenderTables.Table.View?,
                     _ position: MapPosition?) {
        let ramp = self.ramp
        @inline(__always) func pin(_ v: Float) -> Float { v >= 0 ? min(v, 1) : 0 }   // NaN → 0
        @inline(__always) func table(_ view: ProfileRenderTables.Table.View, _ c: SIMD3<Float>) -> SIMD3<Float> {
            let (h, s, v) = ProfileRenderTables.rgbToHSV(c)
            let m = view.modify(h, s, v)
            return ProfileRenderTables.hsvToRGB(m.h, m.s, min(m.v, 1))
        }
        toneTable.withUnsafeBufferPointer { t in
        a.withUnsafeBufferPointer { a in
        q.withUnsafeBufferPointer { q in
            for i in 0..<count {
                let cr = pr[i], cg = pg[i], cb = pb[i]
                var c = SIMD3(pin(a[0] * cr + a[1] * cg + a[2] * cb), pin(a[3] * cr + a[4] * cg + a[5] * cb),
                              pin(a[6] * cr + a[7] * cg + a[8] * cb))
                if let hsm { c = table(hsm, c) }
                if let p = position {
                    let k = p.sampler.gain(p.gains, row: p.row, column: p.sampler.column(p.x + i), r: c.x, g: c.y, b: c.z)
                    c = SIMD3(pin(c.x * k), pin(c.y * k), pin(c.z * k))
                }
                c = SIMD3(ramp(c.x), ramp(c.y), ramp(c.z))
                if let look { c = table(look, c) }
                let (r, g, b) = Self.rgbTone(c.x, c.y, c.z, t)
                pr[i] = pin(q[0] * r + q[1] * g + q[2] * b)
                pg[i] = pin(q[3] * r + q[4] * g + q[5] * b)
                pb[i] = pin(q[6] * r + q[7] * g + q[8] * b)
            }
        }
        }
        }
    }
}

/// Eight lanes, as the output encoder (AVX2 registers on x86-64-v3 builds).
private typealias RV = SIMD8<Float>
