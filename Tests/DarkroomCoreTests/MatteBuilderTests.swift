import Testing
@testable import DarkroomCore
import DarkroomFormats

/// 8-bit encoding of a linear colour in `space` (clamped, rounded).
private func encode8(_ linear: SIMD3<Double>, _ space: OutputColorSpace) -> [UInt8] {
    (0..<3).map { UInt8(max(0, min(255, (space.transfer.encode(linear[$0]) * 255).rounded()))) }
}

/// An sRGB 8-bit colour re-encoded in `space` (colour-managed through XYZ D50).
private func convert8(_ srgb: SIMD3<Int>, to space: OutputColorSpace) -> [UInt8] {
    func dec(_ v: Int) -> Double { TransferFunction.srgb.decode(Double(v) / 255) }
    let lin = SIMD3(dec(srgb.x), dec(srgb.y), dec(srgb.z))
    return encode8(space.xyzD50ToLinearRGB * (OutputColorSpace.srgb.linearRGBToXYZD50 * lin), space)
}

private func image(width: Int, height: Int, space: OutputColorSpace, fill: (Int, Int) -> [UInt8]) -> RenderedImage {
    var px = [UInt8](repeating: 0, count: width * height * 3)
    for y in 0..<height { for x in 0..<width {
        let c = fill(x, y)
        for k in 0..<3 { px[(y * width + x) * 3 + k] = c[k] }
    } }
    return RenderedImage(width: width, height: height, bitsPerSample: 8, pixels8: px,
                         colorSpaceName: space.rawValue, iccProfile: [])
}

@Suite struct MatteBuilderTests {
    @Test(arguments: [(40, 30, 20, 15), (41, 31, 21, 16), (1, 1, 1, 1)])
    func planeIsHalfSizeRoundedUp(w: Int, h: Int, pw: Int, ph: Int) {
        let img = image(width: w, height: h, space: .p3) { _, _ in [128, 128, 128] }
        let g = MatteBuilder.gamut(image: img, space: .p3)
        #expect(g.width == pw && g.height == ph && g.pixels.count == pw * ph)
        #expect(g.pixels.allSatisfy { $0 == 0 })
    }

    /// P3 image: saturated P3 green in x 10..<20, y 6..<16 (far outside sRGB: linear sRGB red ≈ −0.22),
    /// everywhere else sRGB colours re-encoded in P3. The matte is 255 on exactly that block.
    @Test func gamutMatteMarksExactlyTheOutOfSRGBRegion() {
        let inside: [SIMD3<Int>] = [SIMD3(180, 120, 90), SIMD3(20, 200, 40), SIMD3(250, 250, 250), SIMD3(0, 0, 255), SIMD3(255, 0, 0)]
        let img = image(width: 40, height: 30, space: .p3) { x, y in
            (10..<20).contains(x) && (6..<16).contains(y) ? [0, 255, 0] : convert8(inside[(x / 3 + y) % inside.count], to: .p3)
        }
        let g = MatteBuilder.gamut(image: img, space: .p3)
        for py in 0..<15 { for px in 0..<20 {
            let expected: UInt8 = (5..<10).contains(px) && (3..<8).contains(py) ? 255 : 0
            #expect(g.pixels[py * 20 + px] == expected, "(\(px), \(py))")
        } }
        // The same pixels labelled sRGB are by definition inside sRGB.
        #expect(MatteBuilder.gamut(image: img, space: .srgb).pixels.allSatisfy { $0 == 0 })
    }

    /// A colour a known distance outside sRGB lands on the documented ramp.
    @Test func gamutRampValue() {
        // Linear sRGB (−0.052, 0.5, 0.5): d = 0.052 → (0.052 − 0.002) / 0.1 · 255 = 127.5.
        let srgbLinear = SIMD3<Double>(-0.052, 0.5, 0.5)
        let rec2020 = OutputColorSpace.rec2020Linear
        let lin = rec2020.xyzD50ToLinearRGB * (OutputColorSpace.srgb.linearRGBToXYZD50 * srgbLinear)
        let px16 = (0..<3).map { UInt16((lin[$0] * 65535).rounded()) }
        let img = RenderedImage(width: 2, height: 2, bitsPerSample: 16, pixels16: Array([[UInt16]](repeating: px16, count: 4).joined()),
                                colorSpaceName: "rec2020-linear", iccProfile: [])
        let v = Int(MatteBuilder.gamut(image: img, space: rec2020).pixels[0])
        #expect(abs(v - 128) <= 1, "\(v)")
    }

    /// ColorChecker patches (BabelColor sRGB), each a 2×2 block, rendered in sRGB and in Display P3.
    @Test(arguments: [OutputColorSpace.srgb, .p3, .adobeRGB])
    func skinMatteHighOnSkinPatchesLowOnBlueGreen(space: OutputColorSpace) {
        let patches = SyntheticChart.referenceSRGB8
        let img = image(width: 2 * patches.count, height: 2, space: space) { x, _ in convert8(patches[x / 2], to: space) }
        let s = MatteBuilder.skin(image: img, space: space)
        #expect(s.width == patches.count && s.height == 1)
        let names = SyntheticChart.patchNames
        for (i, name) in names.enumerated() {
            switch name {
            case "dark skin", "light skin": #expect(s.pixels[i] >= 250, "\(name): \(s.pixels[i])")
            case "blue sky", "foliage", "blue", "green", "blue flower", "bluish green", "cyan", "purplish blue":
                #expect(s.pixels[i] == 0, "\(name): \(s.pixels[i])")
            case _ where name.hasPrefix("neutral") || name.hasPrefix("white") || name.hasPrefix("black"):
                #expect(s.pixels[i] == 0, "\(name): \(s.pixels[i])")
            default: break
            }
        }
    }

    @Test(arguments: 1...8)
    func storedPositionInvertsOrientationMap(o: Int) {
        let orientation = Orientation(o)
        for y in 0..<3 { for x in 0..<5 {
            let d = orientation.map(x: x, y: y, width: 5, height: 3)
            let s = MatteBuilder.storedPosition(of: d, orientation: orientation, width: 5, height: 3)
            #expect(s.x == x && s.y == y)
        } }
    }

    /// A saturated 2×2 raw block at active-area (10…11, 6…7) with DefaultCrop origin (2, 2): the
    /// clipping matte is 255 at exactly the half-res pixel the block lands on after crop and orientation.
    @Test(arguments: [1, 6, 3, 8])
    func clippingFollowsCropAndOrientation(o: Int) throws {
        var raw = SyntheticChart(cfa: .rggb, bitsPerSample: 14, illuminant: ColorMath.d65, width: 60, height: 40).makeRawImage()
        raw.metadata.orientation = o
        raw.metadata.defaultCrop = PixelRect(x: 2, y: 2, width: 56, height: 36)
        let white = UInt16(raw.metadata.whiteLevel[0])
        for (x, y) in [(10, 6), (11, 6), (10, 7), (11, 7)] { raw.pixels[y * raw.width + x] = white }
        // One site just under the threshold elsewhere: not clipped.
        let black = raw.metadata.blackLevel[0]
        raw.pixels[20 * raw.width + 30] = UInt16(black + 0.97 * (Double(white) - black))
        let plan = try DevelopPlan(metadata: raw.metadata, width: raw.width, height: raw.height, samplesPerPixel: 1,
                                   recipe: DevelopRecipe(), opcodes: ParsedOpcodeLists(raw.metadata))
        let (ow, oh) = plan.outputSize
        let img = image(width: ow, height: oh, space: .srgb) { _, _ in [100, 120, 140] }
        let c = MatteBuilder.clipping(image: img, raw: raw, plan: plan)
        #expect(c.width == (ow + 1) / 2 && c.height == (oh + 1) / 2)
        let d = plan.orientation.map(x: 8, y: 4, width: 56, height: 36)
        let d2 = plan.orientation.map(x: 9, y: 5, width: 56, height: 36)
        let expected = (min(d.x, d2.x) / 2, min(d.y, d2.y) / 2)
        for py in 0..<c.height { for px in 0..<c.width {
            #expect(c.pixels[py * c.width + px] == ((px, py) == expected ? 255 : 0), "o\(o) (\(px), \(py))")
        } }
    }

    @Test func clippingMarksOutputClippedPixels() throws {
        let raw = SyntheticChart(cfa: .grbg, bitsPerSample: 12, illuminant: ColorMath.d65, width: 60, height: 40).makeRawImage()
        var recipe = DevelopRecipe()
        recipe.applyDefaultCrop = false
        let plan = try DevelopPlan(metadata: raw.metadata, width: raw.width, height: raw.height, samplesPerPixel: 1, recipe: recipe, opcodes: ParsedOpcodeLists(raw.metadata))
        var img = image(width: 60, height: 40, space: .srgb) { _, _ in [10, 20, 30] }
        img.pixels8[(13 * 60 + 25) * 3 + 2] = 255   // blue channel at (25, 13)
        let c = MatteBuilder.clipping(image: img, raw: raw, plan: plan)
        #expect(c.pixels.enumerated().filter { $0.element != 0 }.map(\.offset) == [6 * 30 + 12])
        #expect(c.pixels[6 * 30 + 12] == 255)
    }

    @Test func computedKeepsRequestOrderAndSkipsNonComputable() throws {
        let raw = SyntheticChart(cfa: .rggb, bitsPerSample: 12, illuminant: ColorMath.d65, width: 60, height: 40).makeRawImage()
        var recipe = DevelopRecipe()
        recipe.colorSpace = .p3
        recipe.applyDefaultCrop = false
        let plan = try DevelopPlan(metadata: raw.metadata, width: raw.width, height: raw.height, samplesPerPixel: 1, recipe: recipe, opcodes: ParsedOpcodeLists(raw.metadata))
        let img = TileRenderer.render(raw, plan: plan)
        // .skin (neural, SemanticMatteBuilder) and .hair are not this builder's; .skinColor is.
        let planes = MatteBuilder.computed([.skinColor, .skin, .hair, .gamut, .clipping, .skinColor], image: img, raw: raw, plan: plan)
        #expect(planes.map(\.kind) == [.skinColor, .gamut, .clipping])
        #expect(planes.allSatisfy { $0.width == 30 && $0.height == 20 })
        // Deterministic.
        #expect(MatteBuilder.computed([.skinColor, .gamut, .clipping], image: img, raw: raw, plan: plan) == planes)
    }

    /// The fast skin kernel (tables, polynomial atan2) agrees with the reference model
    /// (Double Lab via ColorMath, atan2f, expf) within one code on a sweep of 20,000 colours.
    @Test(arguments: [OutputColorSpace.p3, .srgb, .prophoto])
    func skinKernelMatchesReferenceModel(space: OutputColorSpace) {
        let kernel = SkinKernel(outputToXYZD50: space.linearRGBToXYZD50, model: .standard)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Float {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Float(state >> 40) / Float(1 << 24)
        }
        var worst = 0, nonzero = 0
        for _ in 0..<20_000 {
            // Bias toward warm colours so many samples land on the ramps.
            let r = next(), g = next() * r, b = next() * g
            let lab = ColorMath.xyzToLab(space.linearRGBToXYZD50 * SIMD3(Double(r), Double(g), Double(b)))
            let reference = Int((SkinModel.standard.membership(L: Float(lab.x), a: Float(lab.y), b: Float(lab.z)) * 255).rounded())
            let fast = Int(kernel.value(r, g, b))
            worst = max(worst, abs(fast - reference))
            if reference > 0 && reference < 255 { nonzero += 1 }
        }
        #expect(worst <= 1, "max |fast − reference| = \(worst)")
        #expect(nonzero > 1000)   // the sweep exercised the soft edges
    }
}
