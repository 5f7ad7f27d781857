import DarkroomCore
import DarkroomFormats
import Testing

@Suite("Develop pipeline")
struct DevelopPipelineTests {
    /// The standard curve maps 0 → 0 and 1 → 1, has slope 1.5 at black and 2/3 at white,
    /// lifts mid-grey 0.18 to 0.248, and is strictly increasing on 0…1.
    @Test func toneCurveShape() {
        let t = ToneCurve(mode: .standard)
        #expect(t.apply(0) == 0)
        #expect(t.apply(1) == 1)
        #expect(abs(t.apply(0.18) - 0.2477) < 1e-3)
        #expect(abs((t.apply(1e-4) - t.apply(0)) / 1e-4 - 1.5) < 1e-3)
        #expect(abs((t.apply(1) - t.apply(1 - 1e-3)) / 1e-3 - 2.0 / 3.0) < 1e-3)
        #expect(t.apply(1.7) == 1 && t.apply(-0.2) == 0)
        var prev: Float = -1
        for i in 0...1000 {
            let v = t.apply(Float(i) / 1000)
            #expect(v > prev)
            prev = v
        }
        #expect(ToneCurve(mode: .linear).apply(0.37) == 0.37)
    }

    /// Hue-preserving RGB tone keeps the (mid − min) / (max − min) ratio and the channel order.
    @Test(arguments: [(0.9, 0.5, 0.2), (0.2, 1.4, 0.6), (0.3, 0.3, 1.8), (0.7, 0.1, 0.7), (0.4, 0.4, 0.4)] as [(Float, Float, Float)])
    func rgbToneKeepsHue(r: Float, g: Float, b: Float) {
        let t = ToneCurve(mode: .standard)
        let (r2, g2, b2) = t.applyRGB(r, g, b)
        let a = [r, g, b], o = [r2, g2, b2]
        let lo = a.min()!, hi = a.max()!
        if hi > lo {
            for i in 0..<3 {
                let ratio = (a[i] - lo) / (hi - lo)
                let ratio2 = (o[i] - o.min()!) / (o.max()! - o.min()!)
                #expect(abs(ratio - ratio2) < 1e-5)
            }
        } else {
            #expect(r2 == g2 && g2 == b2)
        }
    }

    @Test func orientationMapsCorners() {
        let w = 4, h = 3
        for v in 1...8 {
            let o = Orientation(v)
            let (dw, dh) = o.displaySize(width: w, height: h)
            var seen = Set<Int>()
            for y in 0..<h { for x in 0..<w {
                let (dx, dy) = o.map(x: x, y: y, width: w, height: h)
                #expect(dx >= 0 && dx < dw && dy >= 0 && dy < dh)
                seen.insert(dy * dw + dx)
            } }
            #expect(seen.count == w * h, "orientation \(v) must be a bijection")
        }
        #expect(Orientation(6).map(x: 0, y: 0, width: w, height: h) == (2, 0))
        #expect(Orientation(8).map(x: 0, y: 0, width: w, height: h) == (0, 3))
        #expect(Orientation(3).map(x: 0, y: 0, width: w, height: h) == (3, 2))
    }

    /// The synthetic chart rendered to 16-bit linear sRGB without any file I/O: every patch within
    /// ΔE2000 0.5 of its known colour, for every CFA order (exercises black per site, WB, demosaic,
    /// the DNG colour model and the output matrix).
    @Test(arguments: CFAPattern.all)
    func chartRendersColorimetrically(cfa: CFAPattern) throws {
        for illuminant in [ColorMath.d65, ColorMath.illuminantA] {
            let chart = SyntheticChart(cfa: cfa, bitsPerSample: 14, illuminant: illuminant)
            let raw = chart.makeRawImage()
            var recipe = DevelopRecipe()
            recipe.colorSpace = .srgbLinear
            recipe.tone = .linear
            recipe.bitsPerSample = 16
            recipe.applyDefaultCrop = false
            let plan = try DevelopPlan(metadata: raw.metadata, width: raw.width, height: raw.height, samplesPerPixel: 1, recipe: recipe, opcodes: ParsedOpcodeLists(raw.metadata))
            let img = TileRenderer.render(raw, plan: plan)
            let space = OutputColorSpace.srgbLinear
            for (i, rect) in chart.patchRects.enumerated() {
                let r = PixelRect(x: rect.x + rect.width / 4, y: rect.y + rect.height / 4, width: rect.width / 2, height: rect.height / 2)
                var s = SIMD3<Double>(0, 0, 0)
                for y in r.y..<r.maxY { for x in r.x..<r.maxX {
                    let o = (y * img.width + x) * 3
                    s += SIMD3(Double(img.pixels16[o]), Double(img.pixels16[o + 1]), Double(img.pixels16[o + 2]))
                } }
                let rgb = s / Double(r.width * r.height) / 65535
                let dE = ColorMath.ciede2000(ColorMath.xyzToLab(space.linearRGBToXYZD50 * rgb),
                                             ColorMath.xyzToLab(chart.expectedXYZD50(patch: i)))
                #expect(dE < 0.5, "\(cfa) patch \(i): ΔE \(dE)")
            }
        }
    }
}

@Suite("Profile tables in the pipeline")
struct ProfileTablesPipelineTests {
    /// Renders the chart (linear tone, 16-bit linear sRGB) with `profile` tables and returns the
    /// mean linear RGB of every patch.
    static func patches(hueSatDims: [Int]?, hueSatData: [Float]?, toneCurve: [Float]? = nil,
                        tone: ToneCurve.Mode = .linear) throws -> [SIMD3<Double>] {
        let chart = SyntheticChart(cfa: .rggb, bitsPerSample: 14, illuminant: ColorMath.d65)
        var raw = chart.makeRawImage()
        raw.metadata.profile?.hueSatMapDims = hueSatDims
        raw.metadata.profile?.hueSatMapData1 = hueSatData
        raw.metadata.profile?.hueSatMapData2 = hueSatData
        raw.metadata.profile?.toneCurve = toneCurve
        var recipe = DevelopRecipe()
        recipe.colorSpace = .srgbLinear; recipe.tone = tone; recipe.bitsPerSample = 16; recipe.applyDefaultCrop = false
        let plan = try DevelopPlan(metadata: raw.metadata, width: raw.width, height: raw.height, samplesPerPixel: 1, recipe: recipe, opcodes: ParsedOpcodeLists(raw.metadata))
        let img = TileRenderer.render(raw, plan: plan)
        return chart.patchRects.map { rect in
            let r = PixelRect(x: rect.x + rect.width / 4, y: rect.y + rect.height / 4, width: rect.width / 2, height: rect.height / 2)
            var s = SIMD3<Double>(0, 0, 0)
            for y in r.y..<r.maxY { for x in r.x..<r.maxX {
                let o = (y * img.width + x) * 3
                s += SIMD3(Double(img.pixels16[o]), Double(img.pixels16[o + 1]), Double(img.pixels16[o + 2]))
            } }
            return s / Double(r.width * r.height) / 65535
        }
    }

    /// Identity HueSatMap: the render is unchanged; saturation scale 0: every patch turns neutral
    /// (R = G = B) — the tables really run, in the right place.
    @Test func hueSatMapIdentityAndDesaturate() throws {
        let dims = [6, 2, 1]
        let identity = [Float]((0..<12).flatMap { _ in [0, 1, 1] as [Float] })
        let grey = [Float]((0..<12).flatMap { _ in [0, 0, 1] as [Float] })
        let plain = try Self.patches(hueSatDims: nil, hueSatData: nil)
        let same = try Self.patches(hueSatDims: dims, hueSatData: identity)
        for (a, b) in zip(plain, same) { #expect(abs(a - b).max() < 2e-4) }
        let desaturated = try Self.patches(hueSatDims: dims, hueSatData: grey)
        for (i, p) in desaturated.enumerated() where i < 18 {
            #expect(p.max() - p.min() < 0.003, "patch \(i) not neutral: \(p)")
            #expect(abs(p - plain[i]).max() > 0.003 || plain[i].max() - plain[i].min() < 0.01)
        }
    }

    /// A ProfileToneCurve replaces the standard curve: a curve through (0,0), (1,1) that squares
    /// (approximated by its points) darkens mid-grey, and the linear mode ignores it.
    @Test func profileToneCurveReplacesStandard() throws {
        let pts: [Float] = stride(from: 0, through: 16, by: 1).flatMap { i -> [Float] in let x = Float(i) / 16; return [x, x * x] }
        let curved = try Self.patches(hueSatDims: nil, hueSatData: nil, toneCurve: pts, tone: .standard)
        let standard = try Self.patches(hueSatDims: nil, hueSatData: nil, toneCurve: nil, tone: .standard)
        let linear = try Self.patches(hueSatDims: nil, hueSatData: nil, toneCurve: pts, tone: .linear)
        let linearPlain = try Self.patches(hueSatDims: nil, hueSatData: nil)
        // Patch 21 (neutral 5): linear ≈ 0.19; squared ≈ 0.036; standard curve brightens it.
        #expect(abs(curved[21].y - linear[21].y * linear[21].y) < 0.003)
        #expect(standard[21].y > linear[21].y)
        for (a, b) in zip(linear, linearPlain) { #expect(abs(a - b).max() < 1e-6) }
    }
}
