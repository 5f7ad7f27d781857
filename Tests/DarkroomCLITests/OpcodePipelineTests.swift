import DarkroomCore
import DarkroomIO
import DarkroomTestSupport
import Foundation
import Testing

/// Opcode lists applied by the full pipeline, on DNGs written by our own writer.
@Suite("Opcodes in the pipeline")
struct OpcodePipelineTests {
    /// A neutral flat field (level `level` of clipping) with the chart's camera profile.
    static func flatField(width: Int = 256, height: Int = 192, level: Double = 0.4,
                          shading: (Double, Double) -> Double = { _, _ in 1 }) -> RawImage {
        let base = SyntheticChart(cfa: .rggb, bitsPerSample: 14, illuminant: ColorMath.d65).makeRawImage()
        var md = base.metadata
        md.defaultCrop = nil
        let neutral = md.asShotNeutral ?? [1, 1, 1]
        let white = md.whiteLevel[0]
        // Linearisation divides by white − the largest black (the DNG SDK's MaxBlackLevel).
        let range = white - (md.blackLevel.max() ?? 0)
        var px = [UInt16](repeating: 0, count: width * height)
        for y in 0..<height { for x in 0..<width {
            let c = Int(md.cfa!.color(x: x, y: y).rawValue)
            let b = md.blackLevel[(y % 2) * 2 + x % 2]
            let u = (Double(x) + 0.5) / Double(width), v = (Double(y) + 0.5) / Double(height)
            px[y * width + x] = UInt16((b + neutral[c] * level * shading(u, v) * range).rounded())
        } }
        md.sensorWidth = width; md.sensorHeight = height
        return RawImage(width: width, height: height, samplesPerPixel: 1, pixels: px, metadata: md)
    }

    static func linearRecipe() -> DevelopRecipe {
        var r = DevelopRecipe()
        r.colorSpace = .srgbLinear; r.tone = .linear; r.bitsPerSample = 16
        r.applyDefaultCrop = false; r.thumbnailSize = 0; r.demosaic = .bilinear
        return r
    }

    static func develop(_ raw: RawImage, recipe: DevelopRecipe = linearRecipe(), in dir: String) throws -> (RenderedImage, DevelopPlan) {
        let path = dir + "/t-\(UUID().uuidString).dng"
        try DNGWriter.write(raw, to: path)
        let decoded = try RawDecoder.decode(path: path, options: DecodeOptions(
            applyOpcodeList1: recipe.applyOpcodes && recipe.opcodeLists.contains(1)))
        let plan = try DevelopPlan(metadata: decoded.metadata, width: decoded.width, height: decoded.height,
                                   samplesPerPixel: 1, recipe: recipe, opcodes: ParsedOpcodeLists(decoded.metadata))
        return (TileRenderer.render(decoded, plan: plan), plan)
    }

    /// A flat field shaded by a known lens-shading pattern and carrying the inverse GainMap in
    /// OpcodeList2 develops back to flat within 0.5 %.
    @Test func gainMapFlattensLensShading() throws {
        let dir = TestSupport.tempDirectory(); defer { TestSupport.cleanup(dir) }
        let shading: (Double, Double) -> Double = { u, v in 1 - 0.45 * ((u - 0.5) * (u - 0.5) + (v - 0.5) * (v - 0.5)) * 2 }
        var raw = Self.flatField(shading: shading)
        let n = 17
        var gains: [Float] = []
        for i in 0..<n { for j in 0..<n {
            gains.append(Float(1 / shading(Double(j) / Double(n - 1), Double(i) / Double(n - 1))))
        } }
        let map = DNGOpcode.GainMap(area: OpcodeArea(top: 0, left: 0, bottom: UInt32(raw.height), right: UInt32(raw.width)),
                                    mapPointsV: UInt32(n), mapPointsH: UInt32(n), mapSpacingV: 1 / Double(n - 1),
                                    mapSpacingH: 1 / Double(n - 1), mapOriginV: 0, mapOriginH: 0, mapPlanes: 1, gains: gains)
        raw.metadata.opcodeList2 = OpcodeList(opcodes: [.gainMap(map)]).encode()
        let (img, plan) = try Self.develop(raw, in: dir)
        #expect(plan.opcodeList2 != nil && !plan.opcodeList2NeedsWholeImage)
        let g = stride(from: 1, to: img.pixels16.count, by: 3).map { Double(img.pixels16[$0]) }
        let mean = g.reduce(0, +) / Double(g.count)
        let worst = g.map { abs($0 / mean - 1) }.max() ?? 1
        #expect(worst < 0.005, "residual shading \(worst * 100) %")
        // Without the opcode the shading is there (the test can fail).
        var off = Self.linearRecipe(); off.applyOpcodes = false
        let (plain, _) = try Self.develop(raw, recipe: off, in: dir)
        let g2 = stride(from: 1, to: plain.pixels16.count, by: 3).map { Double(plain.pixels16[$0]) }
        let m2 = g2.reduce(0, +) / Double(g2.count)
        #expect((g2.map { abs($0 / m2 - 1) }.max() ?? 0) > 0.1)
    }

    /// FixBadPixelsConstant in OpcodeList1 replaces pixels stuck at the constant with neighbours.
    @Test func badPixelsAreRepaired() throws {
        let dir = TestSupport.tempDirectory(); defer { TestSupport.cleanup(dir) }
        var raw = Self.flatField()
        let bad = [(40, 30), (41, 77), (128, 100), (200, 150)]
        for (x, y) in bad { raw.pixels[y * raw.width + x] = 0 }
        raw.metadata.opcodeList1 = OpcodeList(opcodes: [.fixBadPixelsConstant(.init(constant: 0, bayerPhase: 0))]).encode()
        let (img, _) = try Self.develop(raw, in: dir)
        let mean = Double(img.pixels16[(10 * img.width + 10) * 3 + 1])
        for (x, y) in bad {
            for c in 0..<3 {
                let v = Double(img.pixels16[(y * img.width + x) * 3 + c])
                #expect(abs(v / mean - 1) < 0.01, "pixel (\(x), \(y)) channel \(c): \(v) vs \(mean)")
            }
        }
        var off = Self.linearRecipe(); off.applyOpcodes = false
        let (plain, _) = try Self.develop(raw, recipe: off, in: dir)
        #expect(Double(plain.pixels16[(30 * plain.width + 40) * 3]) < mean * 0.9)
    }

    /// A whole-image OpcodeList3 (WarpRectilinear) runs staged and equals warping the unwarped
    /// render (the colour matrix is linear, so the two orders agree up to 16-bit rounding).
    @Test func warpRectilinearRunsStaged() throws {
        let dir = TestSupport.tempDirectory(); defer { TestSupport.cleanup(dir) }
        // Smooth texture, mid-range values so nothing clips.
        var raw = Self.flatField(shading: { u, v in 0.7 + 0.25 * sin(u * 9) * cos(v * 7) })
        let warp = DNGOpcode.WarpRectilinear(planes: [.init(kr: [1, 0.06, 0, 0], kt: [0, 0])], cx: 0.5, cy: 0.5)
        let list = OpcodeList(opcodes: [.warpRectilinear(warp)])
        raw.metadata.opcodeList3 = list.encode()
        let (warped, plan) = try Self.develop(raw, in: dir)
        #expect(plan.opcodeList3NeedsWholeImage)
        var off = Self.linearRecipe(); off.applyOpcodes = false
        let (plain, _) = try Self.develop(raw, recipe: off, in: dir)
        var f = plain.pixels16.map { Float($0) / 65535 }
        var w = plain.width, h = plain.height
        try list.applyWhole(to: &f, width: &w, height: &h, planes: 3, cfa: nil)
        var worst = 0.0
        for i in 0..<f.count { worst = max(worst, abs(Double(f[i]) * 65535 - Double(warped.pixels16[i]))) }
        #expect(worst <= 4, "staged warp differs by \(worst) codes")
        // And it really moved pixels.
        let moved = zip(plain.pixels16, warped.pixels16).filter { abs(Int($0) - Int($1)) > 100 }.count
        #expect(moved > 1000)
        // Deterministic across tiles and threads in staged mode too.
        var r2 = Self.linearRecipe(); r2.tileSize = 37; r2.threads = 2
        let (again, _) = try Self.develop(raw, recipe: r2, in: dir)
        #expect(again.pixels16 == warped.pixels16)
    }

    /// A non-optional opcode whose area lies outside the image fails at plan time with a clear error.
    @Test func hostileListFailsClearly() throws {
        var raw = Self.flatField()
        let table = DNGOpcode.MapTable(area: OpcodeArea(top: 5000, left: 5000, bottom: 6000, right: 6000), table: [0, 65535])
        raw.metadata.opcodeList2 = OpcodeList(opcodes: [.mapTable(table)]).encode()
        #expect(throws: DevelopError.self) {
            _ = try DevelopPlan(metadata: raw.metadata, width: raw.width, height: raw.height, samplesPerPixel: 1, recipe: Self.linearRecipe(), opcodes: ParsedOpcodeLists(raw.metadata))
        }
        raw.metadata.opcodeList2 = [0, 0, 0, 9, 1, 2]   // truncated list
        #expect(throws: DevelopError.self) {
            _ = try DevelopPlan(metadata: raw.metadata, width: raw.width, height: raw.height, samplesPerPixel: 1, recipe: Self.linearRecipe(), opcodes: ParsedOpcodeLists(raw.metadata))
        }
        var none = Self.linearRecipe(); none.opcodeLists = [1, 3]
        let plan = try DevelopPlan(metadata: raw.metadata, width: raw.width, height: raw.height, samplesPerPixel: 1, recipe: none, opcodes: ParsedOpcodeLists(raw.metadata))
        #expect(plan.opcodeList2 == nil)
        #expect(plan.warnings.contains { $0.contains("OpcodeList2 present but not applied") })
    }
}
