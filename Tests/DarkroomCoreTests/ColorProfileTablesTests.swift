import DarkroomCore
import Testing

/// `ProfileRenderTables` and `ToneCurveFunction` against hand-computed values.
@Suite("Colour: profile render tables")
struct ColorProfileTablesTests {
    /// A profile with one HueSatMap whose every entry is `entry` (hue°, sat, val).
    static func uniform(dims: [Int], _ entry: (Float, Float, Float), encoding: Int = 0) -> CameraProfile {
        var p = CameraProfile()
        p.hueSatMapDims = dims
        p.hueSatMapData1 = Array(repeating: [entry.0, entry.1, entry.2], count: dims[0] * dims[1] * dims[2]).flatMap { $0 }
        p.hueSatMapEncoding = encoding
        return p
    }

    static func close(_ a: SIMD3<Float>, _ b: SIMD3<Float>, _ tol: Float = 2e-6) -> Bool {
        (a - b).max() <= tol && (b - a).max() <= tol
    }

    static let pixels: [SIMD3<Float>] = [
        SIMD3(0.8, 0.4, 0.2), SIMD3(0.2, 0.5, 0.3), SIMD3(0.1, 0.2, 0.9), SIMD3(0.5, 0.5, 0.5),
        SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(0.3, 0.05, 0.6), SIMD3(0.9, 0.9, 0.1), SIMD3(0.02, 0.6, 0.61),
    ]

    /// Identity tables (hue 0°, sat ×1, val ×1) leave every pixel unchanged, 2.5D and 3D, linear and sRGB value axis.
    @Test(arguments: [[6, 2, 1], [90, 30, 1], [36, 8, 16], [1, 2, 1], [6, 3, 4]], [0, 1])
    func identity(dims: [Int], encoding: Int) throws {
        let t = try #require(ProfileRenderTables(profile: Self.uniform(dims: dims, (0, 1, 1), encoding: encoding), weight1: 1))
        for p in Self.pixels { #expect(Self.close(t.apply(p), p), "\(p) → \(t.apply(p))") }
    }

    /// `applyRow` (the renderer's three passes per row) gives exactly `apply`'s values, pixel for
    /// pixel, for varying 2.5D and 3D tables, linear and sRGB value axes, through greys, hue wrap,
    /// negatives and values above white.
    @Test(arguments: [([90, 30, 1], 0), ([36, 8, 16], 1), ([6, 3, 4], 0), ([1, 2, 1], 1)])
    func rowPassesEqualPerPixel(dims: [Int], encoding: Int) throws {
        var profile = CameraProfile()
        profile.hueSatMapDims = dims
        let n = dims[0] * dims[1] * dims[2]
        profile.hueSatMapData1 = (0..<n).flatMap { i -> [Float] in
            let f = Float(i) / Float(max(n - 1, 1))
            return [40 * (f - 0.5), 0.7 + 0.6 * f, 1.2 - 0.5 * f]
        }
        profile.hueSatMapEncoding = encoding
        let t = try #require(ProfileRenderTables(profile: profile, weight1: 1))
        var pixels = Self.pixels + [SIMD3(1.4, 0.2, 0.1), SIMD3(-0.05, 0.3, 0.2), SIMD3(0.7, 0.7, 0.7), SIMD3(0.9, 0.05, 0.899)]
        var state: UInt32 = 12345
        for _ in 0..<300 {
            var c = SIMD3<Float>()
            for k in 0..<3 { state = state &* 1_664_525 &+ 1_013_904_223; c[k] = Float(state >> 8) / Float(1 << 24) * 1.2 - 0.05 }
            pixels.append(c)
        }
        var r = pixels.map(\.x), g = pixels.map(\.y), b = pixels.map(\.z)
        t.withViews { hsm, _ in
            guard let hsm else { Issue.record("no HueSatMap view"); return }
            r.withUnsafeMutableBufferPointer { rp in g.withUnsafeMutableBufferPointer { gp in b.withUnsafeMutableBufferPointer { bp in
                hsm.applyRow(rp.baseAddress!, gp.baseAddress!, bp.baseAddress!, count: pixels.count)
            } } }
        }
        for (i, p) in pixels.enumerated() {
            let want = t.apply(p)
            #expect(SIMD3(r[i], g[i], b[i]) == want, "\(p): row \(SIMD3(r[i], g[i], b[i])) vs pixel \(want)")
        }
    }

    /// +60° moves each colour one sixth round the hue circle; +120° permutes (r, g, b) → (b, r, g).
    @Test func pureHueShift() throws {
        let sixty = try #require(ProfileRenderTables(profile: Self.uniform(dims: [6, 2, 1], (60, 1, 1)), weight1: 1))
        // (0.8, 0.4, 0.2): v 0.8, s 0.75, h 1/3 → h 4/3: (q, v, p) = (0.6, 0.8, 0.2).
        #expect(Self.close(sixty.apply(SIMD3(0.8, 0.4, 0.2)), SIMD3(0.6, 0.8, 0.2)))
        #expect(Self.close(sixty.apply(SIMD3(1, 0, 0)), SIMD3(1, 1, 0)))
        let oneTwenty = try #require(ProfileRenderTables(profile: Self.uniform(dims: [6, 2, 1], (120, 1, 1)), weight1: 1))
        for p in Self.pixels { #expect(Self.close(oneTwenty.apply(p), SIMD3(p.z, p.x, p.y), 3e-6), "\(p)") }
        let minus = try #require(ProfileRenderTables(profile: Self.uniform(dims: [6, 2, 1], (-120, 1, 1)), weight1: 1))
        for p in Self.pixels { #expect(Self.close(minus.apply(p), SIMD3(p.y, p.z, p.x), 3e-6), "\(p)") }
    }

    /// Saturation ×0.5, ×0 and ×2 (clamped at 1), hue and value kept.
    @Test func pureSaturationScale() throws {
        func table(_ s: Float) throws -> ProfileRenderTables {
            try #require(ProfileRenderTables(profile: Self.uniform(dims: [6, 2, 1], (0, s, 1)), weight1: 1))
        }
        #expect(Self.close(try table(0.5).apply(SIMD3(0.8, 0.4, 0.2)), SIMD3(0.8, 0.6, 0.5)))
        #expect(Self.close(try table(0).apply(SIMD3(0.8, 0.4, 0.2)), SIMD3(0.8, 0.8, 0.8)))
        #expect(Self.close(try table(2).apply(SIMD3(0.8, 0.4, 0.2)), SIMD3(0.8, 0.8 / 3, 0)))
        // Greys have no hue or saturation to scale.
        #expect(try table(2).apply(SIMD3(0.5, 0.5, 0.5)) == SIMD3(0.5, 0.5, 0.5))
    }

    /// Value ×0.5 halves linear RGB; with sRGB encoding the scale applies to the encoded value.
    @Test func valueScale() throws {
        let lin = try #require(ProfileRenderTables(profile: Self.uniform(dims: [6, 2, 1], (0, 1, 0.5)), weight1: 1))
        #expect(Self.close(lin.apply(SIMD3(0.8, 0.4, 0.2)), SIMD3(0.4, 0.2, 0.1)))
        let srgb = try #require(ProfileRenderTables(profile: Self.uniform(dims: [6, 2, 1], (0, 1, 0.5), encoding: 1), weight1: 1))
        let v = Float(TransferFunction.srgb.decode(0.5 * TransferFunction.srgb.encode(0.8)))
        #expect(Self.close(srgb.apply(SIMD3(0.8, 0.4, 0.2)), SIMD3(0.8, 0.4, 0.2) * (v / 0.8), 3e-6))
    }

    /// Bilinear in saturation and hue, with the hue axis wrapping from the last division to the first.
    @Test func interpolation() throws {
        // Hue shift 0° at s = 0, 60° at s = 1: a pixel of saturation 0.75 is shifted 45°.
        var p = CameraProfile()
        p.hueSatMapDims = [1, 2, 1]
        p.hueSatMapData1 = [0, 1, 1, 60, 1, 1]
        let t = try #require(ProfileRenderTables(profile: p, weight1: 1))
        // (0.8, 0.4, 0.2): h 1/3 + 0.75 = 13/12 → i 1, f 1/12: (q, v, p) = (0.8·(1 − 0.75/12), 0.8, 0.2).
        let want: SIMD3<Float> = SIMD3(0.8 * (1 - 0.75 / 12), 0.8, 0.2)
        #expect(Self.close(t.apply(SIMD3(0.8, 0.4, 0.2)), want))

        // Saturation scale 1 + 0.1·hueIndex over 6 hue divisions, both saturation rows equal.
        var q = CameraProfile()
        q.hueSatMapDims = [6, 2, 1]
        var data: [Float] = []
        for h in 0..<6 {
            let scale: Float = 1 + 0.1 * Float(h)
            data += [0, scale, 1, 0, scale, 1]
        }
        q.hueSatMapData1 = data
        let u = try #require(ProfileRenderTables(profile: q, weight1: 1))
        // h = 0.5 (between divisions 0 and 1): scale 1.05; s 0.5 → 0.525.
        let a = SIMD3<Float>(1, 0.75, 0.5)   // v 1, s 0.5, h 0.5
        let wantA: SIMD3<Float> = SIMD3(1, 1 - 0.525 * 0.5, 1 - 0.525)
        #expect(Self.close(u.apply(a), wantA))
        // h = 5.5 (between division 5 and, wrapping, 0): scale (1.5 + 1.0) / 2 = 1.25; s 0.5 → 0.625.
        let b = SIMD3<Float>(1, 0.5, 0.75)   // v 1, s 0.5, h 6 − 0.5
        let wantB: SIMD3<Float> = SIMD3(1, 1 - 0.625, 1 - 0.625 * 0.5)
        #expect(Self.close(u.apply(b), wantB))
    }

    /// 3D tables interpolate along value (linear, or sRGB-encoded with encoding 1).
    @Test func valueAxis() throws {
        var p = CameraProfile()
        p.hueSatMapDims = [1, 2, 2]
        // Value slice 0: val ×1; slice 1: val ×0.5.
        p.hueSatMapData1 = [0, 1, 1, 0, 1, 1, 0, 1, 0.5, 0, 1, 0.5]
        let lin = try #require(ProfileRenderTables(profile: p, weight1: 1))
        #expect(Self.close(lin.apply(SIMD3(0.5, 0.25, 0.25)), SIMD3(0.375, 0.1875, 0.1875)))
        p.hueSatMapEncoding = 1
        let srgb = try #require(ProfileRenderTables(profile: p, weight1: 1))
        let e = TransferFunction.srgb.encode(0.5)
        let v = Float(TransferFunction.srgb.decode(e * (1 - 0.5 * e)))
        #expect(Self.close(srgb.apply(SIMD3(0.5, 0.25, 0.25)), SIMD3(v, v / 2, v / 2), 3e-6))
    }

    /// HueSatMap1/2 blend by the ColorMatrix weight; LookTable runs after HueSatMap.
    @Test func weightAndLookTable() throws {
        var p = Self.uniform(dims: [6, 2, 1], (60, 1, 1))
        p.hueSatMapData2 = [Float](repeating: 0, count: 36).enumerated().map { $0.offset % 3 == 0 ? 0 : 1 }
        let half = try #require(ProfileRenderTables(profile: p, weight1: 0.5))
        let sixty = try #require(ProfileRenderTables(profile: p, weight1: 1))
        let zero = try #require(ProfileRenderTables(profile: p, weight1: 0))
        let px = SIMD3<Float>(0.8, 0.4, 0.2)   // h 1/3 + 0.5 → i 0, f 5/6: (v, t, p)
        let wantHalf: SIMD3<Float> = SIMD3(0.8, 0.8 * (1 - 0.75 / 6), 0.2)
        #expect(Self.close(half.apply(px), wantHalf))
        #expect(Self.close(sixty.apply(px), SIMD3(0.6, 0.8, 0.2)))
        #expect(Self.close(zero.apply(px), px))
        p.lookTableDims = [6, 2, 1]
        p.lookTableData = Array(repeating: [Float(60), 1, 1], count: 12).flatMap { $0 }
        let both = try #require(ProfileRenderTables(profile: p, weight1: 1))
        #expect(Self.close(both.apply(px), SIMD3(0.2, 0.8, 0.4)))   // +120° in total: (b, r, g)
    }

    @Test func noTablesIsNil() {
        #expect(ProfileRenderTables(profile: CameraProfile(), weight1: 1) == nil)
        var bad = CameraProfile()
        bad.hueSatMapDims = [6, 2, 1]
        bad.hueSatMapData1 = [0, 1, 1]
        let t = ProfileRenderTables(profile: bad, weight1: 1)
        #expect(t == nil)
    }

    /// The DNG SDK spline: identity for two points; through (0,0), (0.5,0.75), (1,1) its slopes
    /// are 1.75, 1.0, 0.25 (natural ends), so f(0.25) = 0.421875 and f(0.75) = 0.921875.
    @Test func toneCurve() throws {
        let id = try #require(ToneCurveFunction(points: [0, 0, 1, 1]))
        for x: Float in [0, 0.1, 0.5, 0.999, 1] { #expect(abs(id(x) - x) < 1e-6) }
        #expect(id.isIdentity)
        var p = CameraProfile()
        p.toneCurve = [0, 0, 0.5, 0.75, 1, 1]
        let c = try #require(ProfileRenderTables(profile: p, weight1: 1)?.toneCurve)
        #expect(abs(c.evaluate(0.25) - 0.421875) < 1e-12)
        #expect(abs(c.evaluate(0.75) - 0.921875) < 1e-12)
        #expect(c.evaluate(0.5) == 0.75 && c.evaluate(1) == 1 && c.evaluate(0) == 0)
        #expect(c(-1) == 0 && c(2) == 1)
        var last: Float = -1
        for i in 0...1000 {
            let x = Float(i) / 1000
            let y = c(x)
            #expect(abs(Double(y) - c.evaluate(Double(x))) < 2e-6)
            #expect(y >= last)
            last = y
        }
        #expect(ToneCurveFunction(points: [0, 0, 0, 1]) == nil)
        #expect(ToneCurveFunction(points: [0, 0]) == nil)
    }
}
