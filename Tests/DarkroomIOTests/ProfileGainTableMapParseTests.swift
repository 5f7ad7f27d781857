import DarkroomCore
import DarkroomFormats
import DarkroomIO
import DarkroomTestSupport
import Foundation
import Testing

/// Parsing ProfileGainTableMap (52525) / ProfileGainTableMap2 (52544) tag values built by hand
/// after the DNG 1.7.1 layout, in both byte orders; hostile headers; the shared SDK samples; and
/// the map in the develop pipeline (tile-exact, absolute positions, not in `--tone linear`).
@Suite("ProfileGainTableMap parsing")
struct ProfileGainTableMapParseTests {
    /// A tag value: header (version 2 adds DataType, Gamma, GainMin, GainMax) then `payload`.
    static func value(bigEndian: Bool, v: UInt32 = 1, h: UInt32 = 1, n: UInt32, spacing: (Double, Double) = (1, 1),
                      origin: (Double, Double) = (0, 0), weights: [Float] = [0.25, 0.5, 0.25, 0, 0],
                      version2: (dataType: UInt32, gamma: Float, gainMin: Float, gainMax: Float)?, payload: [UInt8]) -> [UInt8] {
        func u32(_ x: UInt32) -> [UInt8] { let le = withUnsafeBytes(of: x.littleEndian, Array.init); return bigEndian ? le.reversed() : le }
        func u64(_ x: UInt64) -> [UInt8] { let le = withUnsafeBytes(of: x.littleEndian, Array.init); return bigEndian ? le.reversed() : le }
        var b = u32(v) + u32(h) + u64(spacing.0.bitPattern) + u64(spacing.1.bitPattern)
        b += u64(origin.0.bitPattern) + u64(origin.1.bitPattern) + u32(n)
        for w in weights { b += u32(w.bitPattern) }
        if let v2 = version2 { b += u32(v2.dataType) + u32(v2.gamma.bitPattern) + u32(v2.gainMin.bitPattern) + u32(v2.gainMax.bitPattern) }
        return b + payload
    }

    static func u16s(_ v: [UInt16], bigEndian: Bool) -> [UInt8] {
        v.flatMap { bigEndian ? [UInt8($0 >> 8), UInt8($0 & 0xFF)] : [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    }

    static func parse(_ bytes: [UInt8], bigEndian: Bool, version2: Bool = true) throws(TIFFError) -> ProfileGainTableMap {
        // Put the value at an odd offset inside a larger buffer, as in a file.
        let file = [UInt8](repeating: 0xEE, count: 7) + bytes + [0xEE, 0xEE]
        return try DNGMetadataReader.parseGainTableMap(ByteReader(bytes: file, bigEndian: bigEndian), offset: 7,
                                                       count: bytes.count, version2: version2)
    }

    @Test(arguments: [false, true])
    func unsigned8And16UseGainMinMax(_ be: Bool) throws {
        // 8-bit, GainMin 0.5, GainMax 2.5: 0 → 0.5, 255 → 2.5, 51 → 0.5 + 0.2 · 2 = 0.9.
        let m8 = try Self.parse(Self.value(bigEndian: be, n: 3, version2: (0, 1, 0.5, 2.5), payload: [0, 255, 51]), bigEndian: be)
        #expect(m8.dataType == .unsigned8 && m8.version == 2)
        for (g, e) in zip(m8.gains, [0.5, 2.5, 0.9] as [Float]) { #expect(abs(g - e) < 1e-6) }
        // 16-bit, GainMin 1, GainMax 4: 13107 = 0.2 · 65535 → 1.6.
        let m16 = try Self.parse(Self.value(bigEndian: be, n: 3, version2: (1, 2.2, 1, 4),
                                            payload: Self.u16s([0, 65535, 13107], bigEndian: be)), bigEndian: be)
        #expect(m16.dataType == .unsigned16 && m16.gamma == 2.2)
        for (g, e) in zip(m16.gains, [1, 4, 1.6] as [Float]) { #expect(abs(g - e) < 1e-6) }
    }

    @Test(arguments: [false, true])
    func floatEncodings(_ be: Bool) throws {
        // IEEE half: 0x3C00 = 1, 0x4000 = 2, 0x3E00 = 1.5, 0x3400 = 0.25 (GainMin/Max ignored).
        let h = try Self.parse(Self.value(bigEndian: be, n: 4, version2: (2, 1, 9, 9),
                                          payload: Self.u16s([0x3C00, 0x4000, 0x3E00, 0x3400], bigEndian: be)), bigEndian: be)
        #expect(h.dataType == .float16 && h.gains == [1, 2, 1.5, 0.25])
        // Version 1: 64-byte header, float32 gains, 2 × 2 grid with its spacing and origin kept.
        let floats: [Float] = [1, 2, 3, 4]
        let payload = floats.flatMap { f -> [UInt8] in let le = withUnsafeBytes(of: f.bitPattern.littleEndian, Array.init); return be ? le.reversed() : le }
        let v1 = try Self.parse(Self.value(bigEndian: be, v: 2, h: 2, n: 1, spacing: (0.5, 0.25), origin: (-0.1, 0.2),
                                           version2: nil, payload: payload + [0, 0, 0]), bigEndian: be, version2: false)
        #expect(v1.version == 1 && v1.dataType == .float32 && v1.gamma == 1 && v1.gains == floats)
        #expect(v1.pointsV == 2 && v1.pointsH == 2 && v1.spacingV == 0.5 && v1.spacingH == 0.25 && v1.originV == -0.1 && v1.originH == 0.2)
        #expect(v1.inputWeights == [0.25, 0.5, 0.25, 0, 0])
    }

    @Test func hostileValuesAreRefusedBeforeAllocating() {
        let le = false
        func refused(_ bytes: [UInt8], version2: Bool = true, _ reason: String) {
            do {
                _ = try Self.parse(bytes, bigEndian: le, version2: version2)
                Issue.record("accepted: \(reason)")
            } catch {
                #expect(error.description.contains("ProfileGainTableMap"), "\(error)")
                #expect(error.description.contains(reason), "\(error) should mention \(reason)")
            }
        }
        // Header cut short.
        refused(Array(Self.value(bigEndian: le, n: 1, version2: (0, 1, 1, 2), payload: [0]).prefix(70)), "header alone needs 80")
        // Gains missing: 3 declared, 2 stored.
        refused(Self.value(bigEndian: le, n: 3, version2: (0, 1, 1, 2), payload: [0, 1]), "needs 83")
        // A huge grid in a tiny tag: refused on the count, nothing allocated.
        refused(Self.value(bigEndian: le, v: 4095, h: 4095, n: 1, version2: (0, 1, 1, 2), payload: [0]), "needs")
        refused(Self.value(bigEndian: le, v: .max, h: .max, n: .max, version2: (3, 1, 1, 1), payload: []), "gains (at most")
        refused(Self.value(bigEndian: le, v: 0, n: 1, version2: (0, 1, 1, 2), payload: [0]), "each must be ≥ 1")
        refused(Self.value(bigEndian: le, n: 1, version2: (4, 1, 1, 2), payload: [0, 0, 0, 0]), "DataType 4")
        refused(Self.value(bigEndian: le, n: 1, version2: (0, 0, 1, 2), payload: [0]), "gamma")
        refused(Self.value(bigEndian: le, n: 1, version2: (0, .nan, 1, 2), payload: [0]), "gamma")
        refused(Self.value(bigEndian: le, n: 1, version2: (0, 1, 0, 2), payload: [0]), "GainMin")
        refused(Self.value(bigEndian: le, n: 1, version2: (0, 1, 1, .infinity), payload: [0]), "GainMin")
        refused(Self.value(bigEndian: le, v: 2, h: 2, n: 1, spacing: (.nan, 1), version2: (0, 1, 1, 2), payload: [0, 0, 0, 0]), "spacing")
        refused(Self.value(bigEndian: le, v: 2, h: 2, n: 1, spacing: (0, 1), version2: (0, 1, 1, 2), payload: [0, 0, 0, 0]), "spacing")
        refused(Self.value(bigEndian: le, v: 2, h: 2, n: 1, origin: (1, -.infinity), version2: (0, 1, 1, 2), payload: [0, 0, 0, 0]), "origin")
        refused(Self.value(bigEndian: le, n: 1, weights: [1, .nan, 0, 0, 0], version2: (0, 1, 1, 2), payload: [0]), "MapInputWeights")
        // Half-float NaN, infinity and 0 (below the 1/4096 minimum gain); 32-bit gain −1.
        for bad: UInt16 in [0x7E00, 0x7C00, 0x0000] {
            refused(Self.value(bigEndian: le, n: 1, version2: (2, 1, 1, 1), payload: Self.u16s([bad], bigEndian: le)), "gain")
        }
        refused(Self.value(bigEndian: le, n: 1, version2: nil, payload: withUnsafeBytes(of: Float(-1).bitPattern.littleEndian, Array.init)),
                version2: false, "gain -1.0 at [0][0][0]")
    }

    // MARK: - Files

    static func sample(_ name: String) -> String? {
        guard let u = TestSupport.sharedSamples?.appendingPathComponent("dng/\(name).dng"),
              FileManager.default.fileExists(atPath: u.path) else { return nil }
        return u.path
    }

    /// The SDK's samples (its `dng_validate -v` dumps them: 3 × 3 tables of 2 entries, weights
    /// 0.25 0.5 0.25 0 0, gain 4 in the middle table and 1 elsewhere; 05–07 as ProfileGainTableMap2
    /// in IFD 0, 08 as ProfileGainTableMap).
    @Test(arguments: [("adobesdk_05_PGTM2_unsigned8", 2, ProfileGainTableMap.DataType.unsigned8),
                      ("adobesdk_06_PGTM2_unsigned16", 2, .unsigned16), ("adobesdk_07_PGTM2_float16", 2, .float16),
                      ("adobesdk_08_PGTM2_float32", 1, .float32)])
    func sdkSamplesReadAsTheSDKDumpsThem(name: String, version: Int, type: ProfileGainTableMap.DataType) throws {
        guard let path = Self.sample(name) else { return }
        let md = try DNGMetadataReader.read(contentsOf: path)
        let m = try #require(md.profileGainTableMap)
        #expect(m.version == version && m.dataType == type)
        #expect(m.pointsV == 3 && m.pointsH == 3 && m.pointsN == 2 && m.spacingV == 0.5 && m.spacingH == 0.5)
        #expect(m.originV == 0 && m.originH == 0 && m.inputWeights == [0.25, 0.5, 0.25, 0, 0] && m.gamma == 1)
        var expected = [Float](repeating: 1, count: 18)
        expected[8] = 4; expected[9] = 4
        #expect(m.gains == expected)
        // IFD 0's version 2 is also its main profile's own map; version 1 is not a profile's.
        #expect((md.profile?.profileGainTableMap != nil) == (version == 2))
        #expect(!md.warnings.contains { $0.contains("GainTableMap") })
    }

    /// A file whose map is malformed still reads (and renders), with one warning naming the tag.
    @Test func malformedMapInAFileIsAWarning() throws {
        guard let path = Self.sample("adobesdk_05_PGTM2_unsigned8") else { return }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        // Find tag 52544 in IFD 0 (little-endian file) and make its DataType 9.
        let ifd0 = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
        let n = Int(bytes[ifd0]) | Int(bytes[ifd0 + 1]) << 8
        var valueOffset: Int?
        for i in 0..<n {
            let e = ifd0 + 2 + 12 * i
            if Int(bytes[e]) | Int(bytes[e + 1]) << 8 == 52544 {
                valueOffset = Int(bytes[e + 8]) | Int(bytes[e + 9]) << 8 | Int(bytes[e + 10]) << 16 | Int(bytes[e + 11]) << 24
            }
        }
        let o = try #require(valueOffset)
        bytes[o + 64] = 9
        let md = try DNGMetadataReader.read(bytes, path: "bad.dng")
        #expect(md.profileGainTableMap == nil && md.profile?.profileGainTableMap == nil)
        let w = md.warnings.filter { $0.contains("ProfileGainTableMap2") }
        #expect(w.count == 1 && w[0].contains("DataType 9") && w[0].contains("not applied"), "\(md.warnings)")
    }

    // MARK: - Pipeline

    /// A 4 × 5 map of 8-entry tables with gains by position and level (0.5…2.5), origin outside
    /// the image, gamma 1.5, weights on every term.
    static func testMap() throws -> ProfileGainTableMap {
        var gains: [Float] = []
        for r in 0..<4 { for c in 0..<5 { for k in 0..<8 {
            gains.append(1.5 + sin(Float(r) * 0.9 + Float(c) * 0.7 + Float(k) * 0.4))
        } } }
        return try ProfileGainTableMap(pointsV: 4, pointsH: 5, spacingV: 0.3, spacingH: 0.25, originV: -0.05, originH: 0.05,
                                       pointsN: 8, inputWeights: [0.2, 0.3, 0.1, 0.15, 0.25], gamma: 1.5, gains: gains)
    }

    static func render(_ raw: RawImage, tone: ToneCurve.Mode, tile: Int = 256, threads: Int = 0, crop: Bool = true) throws -> RenderedImage {
        var recipe = DevelopRecipe()
        recipe.tone = tone; recipe.bitsPerSample = 16; recipe.thumbnailSize = 0
        recipe.tileSize = tile; recipe.threads = threads; recipe.applyDefaultCrop = crop
        let plan = try PlanBuilder.plan(for: raw, recipe: recipe, path: "t", profileSearchDirectories: [])
        return TileRenderer.render(raw, plan: plan)
    }

    @Test(arguments: [ToneCurve.Mode.reference, .standard])
    func mapIsTileExactAndUsesImagePositions(tone: ToneCurve.Mode) throws {
        let path = TestSupport.packageRoot.appendingPathComponent("Samples/chart-grbg-14bit-A.dng").path
        let plain = try RawDecoder.decode(path: path)
        var raw = plain
        raw.metadata.profileGainTableMap = try Self.testMap()
        // Tile size and thread count never change a byte.
        let a = try Self.render(raw, tone: tone, tile: 256, threads: 2), b = try Self.render(raw, tone: tone, tile: 37, threads: 1)
        #expect(a.pixels16 == b.pixels16)
        // The map changes the picture.
        #expect(a.pixels16 != (try Self.render(plain, tone: tone)).pixels16)
        // Positions are in the whole image, not the crop: a DefaultCrop only cuts the full render.
        var cropped = raw
        let full = try Self.render(raw, tone: tone, crop: false)
        cropped.metadata.defaultCrop = PixelRect(x: 13, y: 7, width: raw.width - 40, height: raw.height - 20)
        let c = try Self.render(cropped, tone: tone)
        var same = c.width == raw.width - 40 && c.height == raw.height - 20
        for y in 0..<c.height where same {
            for x in 0..<(c.width * 3) where c.pixels16[y * c.width * 3 + x] != full.pixels16[(y + 7) * full.width * 3 + 13 * 3 + x] {
                same = false; break
            }
        }
        #expect(same)
    }

    @Test func linearToneAndProfileLookOffIgnoreTheMap() throws {
        let path = TestSupport.packageRoot.appendingPathComponent("Samples/chart-grbg-14bit-A.dng").path
        let plain = try RawDecoder.decode(path: path)
        var raw = plain
        raw.metadata.profileGainTableMap = try Self.testMap()
        #expect(try Self.render(raw, tone: .linear).pixels16 == Self.render(plain, tone: .linear).pixels16)
        // A profile's own map (ProfileGainTableMap2 of the rendering profile) wins over the file's:
        // an identity map there leaves the reference render as without any map.
        raw.metadata.profile?.profileGainTableMap = try ProfileGainTableMap(
            pointsV: 1, pointsH: 1, spacingV: 1, spacingH: 1, originV: 0, originH: 0, pointsN: 1,
            inputWeights: [1, 0, 0, 0, 0], gains: [1])
        if raw.metadata.profile != nil {
            #expect(try Self.render(raw, tone: .reference).pixels16 == Self.render(plain, tone: .reference).pixels16)
        }
    }
}
