import DarkroomCore
import DarkroomFormats
import DarkroomIO
import DarkroomTestSupport
import Foundation
import Testing

/// Gain table maps richer than the SDK samples' (which use one gain level and gamma 1), against the
/// Adobe DNG SDK 1.7.1's renders. `SDKReference/pgtm_VARIANT.tagvalue` is a ProfileGainTableMap2
/// value written by hand (4 × 5 tables of 16 entries; spacing 0.3 / 0.25, origin −0.1 / 0.05, so
/// the grid starts above the image; weights 0.2 0.3 0.1 0.15 0.25 on R G B min max; gains
/// 1 + 0.8 sin(0.9 row + 0.7 column + 0.35 entry) + 0.3 entry / 15, at least 0.3; `u8`: uint8,
/// GainMin 0.25, GainMax 2, gamma 2.2; `u16`: uint16, GainMin 0.5, GainMax 3, gamma 0.5). The test
/// puts it in place of the ProfileGainTableMap2 of `../shared/samples/dng/adobesdk_05_PGTM2_unsigned8.dng`
/// (appended to the file, IFD 0's entry pointed at it) and renders `--tone reference` 16-bit sRGB.
/// `SDKReference/pgtm_VARIANT.srgb.box4` is derived from the SDK's render of that same patched file
/// (see `SDKReference/README.md`): `dng_validate -16 -cs1 -tif OUT FILE`, decoded to linear light with
/// the sRGB curve, averaged over 4 × 4 blocks, encoded back with the sRGB curve, 50 × 50 × 3
/// UInt16 little-endian. Skips without the shared samples.
@Suite("ProfileGainTableMap vs DNG SDK")
struct ProfileGainTableMapSDKTests {
    static let referenceDir = TestSupport.packageRoot.appendingPathComponent("Tests/DarkroomIOTests/SDKReference")

    /// `base` (a little-endian DNG whose IFD 0 has a ProfileGainTableMap2) with `value` appended
    /// and IFD 0's entry for tag 52544 pointing at it.
    static func replacingGainTableMap(in base: [UInt8], with value: [UInt8]) throws -> [UInt8] {
        var b = base
        func u16(_ o: Int) -> Int { Int(b[o]) | Int(b[o + 1]) << 8 }
        func u32(_ o: Int) -> Int { u16(o) | u16(o + 2) << 16 }
        func put32(_ o: Int, _ v: Int) { for i in 0..<4 { b[o + i] = UInt8(truncatingIfNeeded: v >> (8 * i)) } }
        try #require(b.count > 8 && b[0] == 0x49 && b[1] == 0x49)
        let ifd0 = u32(4)
        var entry: Int?
        for i in 0..<u16(ifd0) where u16(ifd0 + 2 + 12 * i) == Int(TIFFTag.profileGainTableMap2) { entry = ifd0 + 2 + 12 * i }
        let e = try #require(entry)
        if b.count % 2 == 1 { b.append(0) }
        let offset = b.count
        b += value
        put32(e + 4, value.count)
        put32(e + 8, offset)
        return b
    }

    /// 4 × 4 block means in linear light, as Lab D50 (sRGB primaries).
    static func blockLab(linear: [SIMD3<Double>]) -> [SIMD3<Double>] {
        let toXYZ = OutputColorSpace.srgbLinear.linearRGBToXYZD50
        return linear.map { ColorMath.xyzToLab(toXYZ * $0) }
    }

    static func boxLinear(_ pixels: [UInt16], width: Int, height: Int) -> [SIMD3<Double>] {
        let t = OutputColorSpace.srgb.transfer
        var out: [SIMD3<Double>] = []
        for by in 0..<(height / 4) { for bx in 0..<(width / 4) {
            var s = SIMD3<Double>(0, 0, 0)
            for y in (by * 4)..<(by * 4 + 4) { for x in (bx * 4)..<(bx * 4 + 4) {
                let i = (y * width + x) * 3
                s += SIMD3(t.decode(Double(pixels[i]) / 65535), t.decode(Double(pixels[i + 1]) / 65535), t.decode(Double(pixels[i + 2]) / 65535))
            } }
            out.append(s / 16)
        } }
        return out
    }

    static func render(_ raw: RawImage) throws -> RenderedImage {
        var recipe = DevelopRecipe()
        recipe.tone = .reference; recipe.colorSpace = .srgb; recipe.bitsPerSample = 16; recipe.thumbnailSize = 0
        recipe.highlights = .clip; recipe.noiseReduction = .off; recipe.sharpen = .off   // the SDK has none of them
        return TileRenderer.render(raw, plan: try PlanBuilder.plan(for: raw, recipe: recipe, path: "pgtm", profileSearchDirectories: []))
    }

    @Test(arguments: ["u8", "u16"])
    func handWrittenMapsRenderAsTheSDKRendersThem(variant: String) throws {
        guard let base = TestSupport.sharedSamples?.appendingPathComponent("dng/adobesdk_05_PGTM2_unsigned8.dng"),
              FileManager.default.fileExists(atPath: base.path) else { return }
        let value = [UInt8](try Data(contentsOf: Self.referenceDir.appendingPathComponent("pgtm_\(variant).tagvalue")))
        let box = [UInt8](try Data(contentsOf: Self.referenceDir.appendingPathComponent("pgtm_\(variant).srgb.box4")))
        try #require(box.count == 50 * 50 * 3 * 2)
        let t = OutputColorSpace.srgb.transfer
        let sdkLinear = (0..<(50 * 50)).map { i in
            SIMD3<Double>((0..<3).map { c in t.decode(Double(UInt16(box[(i * 3 + c) * 2]) | UInt16(box[(i * 3 + c) * 2 + 1]) << 8) / 65535) })
        }
        let sdkLab = Self.blockLab(linear: sdkLinear)

        let dir = TestSupport.tempDirectory(); defer { TestSupport.cleanup(dir) }
        let path = dir + "/pgtm_\(variant).dng"
        try Data(Self.replacingGainTableMap(in: [UInt8](try Data(contentsOf: base)), with: value)).write(to: URL(fileURLWithPath: path))
        var raw = try RawDecoder.decode(path: path)
        let map = try #require(raw.metadata.profileGainTableMap)
        #expect(map.pointsV == 4 && map.pointsH == 5 && map.pointsN == 16 && map.dataType == (variant == "u8" ? .unsigned8 : .unsigned16))
        #expect(map.gamma == (variant == "u8" ? 2.2 : 0.5) && map.originV == -0.1)

        func deltaE(_ img: RenderedImage) -> (mean: Double, max: Double) {
            let ours = Self.blockLab(linear: Self.boxLinear(img.pixels16, width: img.width, height: img.height))
            let d = zip(ours, sdkLab).map { ColorMath.ciede2000($0, $1) }
            return (d.reduce(0, +) / Double(max(d.count, 1)), d.max() ?? .infinity)
        }
        let img = try Self.render(raw)
        #expect(img.width == 200 && img.height == 200)
        let e = deltaE(img)
        // Measured 0.011 mean; the last few hundredths are the SDK's 4096-step transfer table.
        #expect(e.mean < 0.05 && e.max < 0.2, "ΔE2000 mean \(e.mean), max \(e.max)")
        // Without the map the same render is far off (the map really is what is checked).
        raw.metadata.profileGainTableMap = nil
        raw.metadata.profile?.profileGainTableMap = nil
        #expect(deltaE(try Self.render(raw)).mean > 3)
    }
}
