import DarkroomCore
import DarkroomIO
import DarkroomTestSupport
import Foundation
import Testing

/// Decode → develop → encode → read back with an independent decoder, on synthetic chart DNGs
/// whose colours are known exactly.
@Suite("End to end")
struct EndToEndTests {
    /// Developed with `--tone linear`, every chart patch decodes within ΔE2000 ≤ 1.0 of its known
    /// value, in sRGB and Display P3, for all four CFA orders (12/14-bit, D65 and A).
    @Test(arguments: SyntheticSamples.all, [OutputColorSpace.srgb, .p3])
    func chartColorimetry(spec: SyntheticSamples.Spec, space: OutputColorSpace) throws {
        for format in [OutputFormat.jpeg, .tiff] { try chartColorimetry(spec: spec, space: space, format: format) }
    }

    func chartColorimetry(spec: SyntheticSamples.Spec, space: OutputColorSpace, format: OutputFormat) throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let input = try TestSupport.writeChart(spec, in: dir)
        var recipe = DevelopRecipe()
        recipe.colorSpace = space
        recipe.tone = .linear
        var export = ExportOptions()
        export.quality = 100
        export.format = format
        let output = dir + "/out." + format.fileExtension
        let result = try FileDeveloper.develop(input: input, output: output, recipe: recipe, export: export)

        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
        let decoded = try OutputInspector.decodeRGB8(bytes)
        let chart = spec.chart()
        let raw = chart.makeRawImage()
        let crop = raw.metadata.defaultCrop ?? PixelRect(x: 0, y: 0, width: raw.width, height: raw.height)
        #expect(decoded.width == crop.width && decoded.height == crop.height)
        #expect(result.width == crop.width && result.height == crop.height)

        var worst = 0.0
        for (i, rect) in chart.patchRects.enumerated() {
            let r = TestSupport.inner(PixelRect(x: rect.x - crop.x, y: rect.y - crop.y, width: rect.width, height: rect.height))
            let m = TestSupport.mean(decoded.pixels, width: decoded.width, rect: r) / 255
            let linear = SIMD3(space.transfer.decode(m.x), space.transfer.decode(m.y), space.transfer.decode(m.z))
            let lab = ColorMath.xyzToLab(space.linearRGBToXYZD50 * linear)
            let expected = ColorMath.xyzToLab(chart.expectedXYZD50(patch: i))
            let dE = ColorMath.ciede2000(lab, expected)
            worst = max(worst, dE)
            #expect(dE <= 1.0, "\(format) patch \(i) \(SyntheticChart.patchNames[i]): ΔE2000 \(dE) (got Lab \(lab), want \(expected))")
        }
        #expect(worst > 0, "ΔE must be measured")
        print("chart \(spec.name) \(space.rawValue) \(format.rawValue): worst ΔE2000 \(worst)")
    }

    /// The JPEG carries the ICC profile of Profiles/, byte for byte.
    @Test(arguments: [OutputColorSpace.srgb, .p3])
    func iccMatchesProfilesDirectory(space: OutputColorSpace) throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let input = try TestSupport.writeChart(SyntheticSamples.all[0], in: dir)
        var recipe = DevelopRecipe()
        recipe.colorSpace = space
        let output = dir + "/out.jpg"
        _ = try FileDeveloper.develop(input: input, output: output, recipe: recipe, export: ExportOptions())
        let summary = try OutputInspector.inspect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: output))))
        let stored = try [UInt8](Data(contentsOf: TestSupport.packageRoot.appendingPathComponent("Profiles/\(space.iccFileName)")))
        #expect(summary.iccProfile == stored)
        let raw = SyntheticSamples.all[0].chart().makeRawImage()
        let crop = try #require(raw.metadata.defaultCrop)
        #expect(summary.width == crop.width && summary.height == crop.height)
        #expect(summary.orientation == 1)
    }

    /// Tile size and thread count never change a byte of the output.
    @Test func deterministicAcrossTilesAndThreads() throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let input = try TestSupport.writeChart(SyntheticSamples.all[1], in: dir)
        var outputs: [[UInt8]] = []
        for (i, (tile, threads)) in [(256, 1), (16, 2), (77, 3), (1024, 2)].enumerated() {
            var recipe = DevelopRecipe()
            recipe.tileSize = tile
            recipe.threads = threads
            recipe.colorSpace = .p3
            let output = dir + "/out\(i).jpg"
            _ = try FileDeveloper.develop(input: input, output: output, recipe: recipe, export: ExportOptions())
            outputs.append(try [UInt8](Data(contentsOf: URL(fileURLWithPath: output))))
        }
        for o in outputs.dropFirst() { #expect(o == outputs[0]) }
        // Also the raw render, for every demosaic algorithm and 16-bit output.
        let raw = try RawDecoder.decode(path: input)
        for algorithm in DemosaicAlgorithm.allCases {
            var a = DevelopRecipe(); a.demosaic = algorithm; a.bitsPerSample = 16; a.tileSize = 256; a.threads = 1
            var b = a; b.tileSize = 40; b.threads = 2
            let pa = try DevelopPlan(metadata: raw.metadata, width: raw.width, height: raw.height, samplesPerPixel: 1, recipe: a, opcodes: ParsedOpcodeLists(raw.metadata))
            let pb = try DevelopPlan(metadata: raw.metadata, width: raw.width, height: raw.height, samplesPerPixel: 1, recipe: b, opcodes: ParsedOpcodeLists(raw.metadata))
            #expect(TileRenderer.render(raw, plan: pa).pixels16 == TileRenderer.render(raw, plan: pb).pixels16, "\(algorithm)")
        }
    }

    /// Orientation 6 (rotate 90° CW): output dimensions swap and the top-left patch lands top-right.
    @Test func orientationIsApplied() throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let spec = SyntheticSamples.all[0]
        let upright = try TestSupport.writeChart(spec, in: dir)
        let rotated = try TestSupport.writeChart(spec, in: dir, orientation: 6)
        var recipe = DevelopRecipe(); recipe.bitsPerSample = 16; recipe.thumbnailSize = 0
        let a = try RawDecoder.decode(path: upright), b = try RawDecoder.decode(path: rotated)
        #expect(b.metadata.orientation == 6)
        let ia = TileRenderer.render(a, plan: try DevelopPlan(metadata: a.metadata, width: a.width, height: a.height, samplesPerPixel: 1, recipe: recipe, opcodes: ParsedOpcodeLists(a.metadata)))
        let ib = TileRenderer.render(b, plan: try DevelopPlan(metadata: b.metadata, width: b.width, height: b.height, samplesPerPixel: 1, recipe: recipe, opcodes: ParsedOpcodeLists(b.metadata)))
        #expect(ib.width == ia.height && ib.height == ia.width)
        // Stored (x, y) → displayed (H-1-y, x).
        for (x, y) in [(0, 0), (17, 3), (ia.width - 1, ia.height - 1), (100, 200)] {
            let s = (y * ia.width + x) * 3
            let d = (x * ib.width + (ia.height - 1 - y)) * 3
            #expect(Array(ia.pixels16[s..<s + 3]) == Array(ib.pixels16[d..<d + 3]))
        }
    }

    /// A headerless 14-bit little-endian Bayer dump develops; a wrong size fails clearly.
    @Test func bayerDump() throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let chart = SyntheticChart(cfa: .grbg, bitsPerSample: 14, illuminant: ColorMath.d65)
        let raw = chart.makeRawImage()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(raw.pixels.count * 2)
        for v in raw.pixels { bytes.append(UInt8(v & 0xFF)); bytes.append(UInt8(v >> 8)) }
        let path = dir + "/dump.raw"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let params = BayerDumpParameters(cfa: .grbg, bitsPerSample: 14, width: raw.width, height: raw.height,
                                         blackLevel: raw.metadata.blackLevel.min() ?? 0)
        let decoded = try RawDecoder.decode(path: path, options: DecodeOptions(bayerDump: params))
        #expect(decoded.pixels == raw.pixels)
        #expect(decoded.metadata.cfa == .grbg)
        let out = dir + "/dump.jpg"
        let r = try FileDeveloper.develop(input: path, output: out, recipe: DevelopRecipe(), export: ExportOptions(),
                                          decode: DecodeOptions(bayerDump: params))
        #expect(r.width == raw.width && r.height == raw.height)
        // Metadata alone (as `info` and the batch planner use it) does not read the pixels but
        // still checks the file is large enough.
        let md = try RawDecoder.metadata(path: path, options: DecodeOptions(bayerDump: params))
        #expect(md.sensorWidth == raw.width && md.cfa == .grbg && md.whiteLevel == [16383])
        var tall = params; tall.height += 10
        #expect(throws: DecodeError.self) { _ = try RawDecoder.metadata(path: path, options: DecodeOptions(bayerDump: tall)) }
        var wrong = params; wrong.width += 2
        #expect(throws: DecodeError.self) { _ = try RawDecoder.decode(path: path, options: DecodeOptions(bayerDump: wrong)) }
    }
}

extension SyntheticSamples.Spec: CustomTestStringConvertible {
    public var testDescription: String { name }
}
