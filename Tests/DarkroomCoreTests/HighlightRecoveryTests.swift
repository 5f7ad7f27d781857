import DarkroomCore
import Foundation
import Testing

/// `--highlights reconstruct` against the truth of `SyntheticHighlightScene`, whose values exceed
/// the sensor's white on one or two channels: an orange lamp (red clips, then green), a blue sky
/// ramp (blue clips, then green) and a green blob, on a dark ground, with mild noise.
///
/// Truth is independent of the reconstruction: the same scene at a quarter of the light (nothing
/// clips) through the same pipeline. CIELAB hue angle does not change with a uniform scale of
/// XYZ (in the cube-root range), so the truth's hue is the scene's hue.
@Suite("Highlight reconstruction")
struct HighlightRecoveryTests {
    static let width = SyntheticHighlightScene.width, height = SyntheticHighlightScene.height

    static func scene(_ x: Int, _ y: Int) -> SIMD3<Double> { SyntheticHighlightScene.balanced(x, y) }

    static func raw(cfa: CFAPattern?, light: Double) throws -> (RawImage, SIMD3<Float>) {
        try SyntheticHighlightScene.raw(cfa: cfa, light: light)
    }

    /// 16-bit linear sRGB, no crop; `exposure` in stops (the bright scene is rendered 1.5 stops
    /// down so the output space itself does not clip the rebuilt colours).
    static func render(_ raw: RawImage, highlights: HighlightMode, tileSize: Int = 256, threads: Int = 0,
                       exposure: Double = -1.5) throws -> RenderedImage {
        var recipe = DevelopRecipe()
        recipe.exposureStops = exposure
        recipe.colorSpace = .srgbLinear
        recipe.tone = .linear
        recipe.bitsPerSample = 16
        recipe.applyDefaultCrop = false
        recipe.highlights = highlights
        recipe.tileSize = tileSize
        recipe.threads = threads
        let plan = try DevelopPlan(metadata: raw.metadata, width: raw.width, height: raw.height, samplesPerPixel: raw.samplesPerPixel,
                                   recipe: recipe, opcodes: ParsedOpcodeLists(raw.metadata))
        return TileRenderer.render(raw, plan: plan)
    }

    static func lab(_ img: RenderedImage, _ x: Int, _ y: Int) -> SIMD3<Double> {
        let i = (y * img.width + x) * 3
        let rgb = SIMD3(Double(img.pixels16[i]), Double(img.pixels16[i + 1]), Double(img.pixels16[i + 2])) / 65535
        return ColorMath.xyzToLab(OutputColorSpace.srgbLinear.linearRGBToXYZD50 * rgb)
    }

    /// Hue angle difference in degrees (0…180) and ΔH* between two Lab colours.
    static func hueError(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> (angle: Double, deltaH: Double) {
        let ha = atan2(a.z, a.y), hb = atan2(b.z, b.y)
        var d = abs(ha - hb)
        if d > .pi { d = 2 * .pi - d }
        let ca = (a.y * a.y + a.z * a.z).squareRoot(), cb = (b.y * b.y + b.z * b.z).squareRoot()
        return (d * 180 / .pi, 2 * (ca * cb).squareRoot() * sin(d / 2))
    }

    /// In the clipped areas (one or two channels of the scene over the white, 3 px from the image
    /// edge), mean hue error of `clip` and `reconstruct` against the unclipped truth; reconstruct
    /// must at least halve it (angle and ΔH*), for every CFA order and for an RGB (LinearRaw) image.
    @Test(arguments: CFAPattern.all.map(Optional.some) + [nil])
    func reconstructionHalvesHueErrorInClippedAreas(cfa: CFAPattern?) throws {
        let (bright, _) = try Self.raw(cfa: cfa, light: 1)
        let (dim, _) = try Self.raw(cfa: cfa, light: 0.25)
        let truth = try Self.render(dim, highlights: .clip, exposure: 0)
        let clipped = try Self.render(bright, highlights: .clip)
        let rebuilt = try Self.render(bright, highlights: .reconstruct)
        var sums = (clipAngle: 0.0, clipH: 0.0, recAngle: 0.0, recH: 0.0), n = 0
        for y in 3..<(Self.height - 3) {
            for x in 3..<(Self.width - 3) {
                let s = Self.scene(x, y)
                let over = (0..<3).filter { s[$0] > 1.02 }.count
                guard over == 1 || over == 2 else { continue }
                let t = Self.lab(truth, x, y)
                let c = Self.hueError(Self.lab(clipped, x, y), t), r = Self.hueError(Self.lab(rebuilt, x, y), t)
                sums.clipAngle += c.angle; sums.clipH += c.deltaH; sums.recAngle += r.angle; sums.recH += r.deltaH
                n += 1
            }
        }
        #expect(n > 2000, "the scene has clipped areas")
        let clipAngle = sums.clipAngle / Double(n), recAngle = sums.recAngle / Double(n)
        let clipH = sums.clipH / Double(n), recH = sums.recH / Double(n)
        print("highlights \(cfa.map(\.description) ?? "RGB"): \(n) clipped px, mean hue angle error clip \(String(format: "%.2f", clipAngle))° → reconstruct \(String(format: "%.2f", recAngle))°; ΔH* \(String(format: "%.2f", clipH)) → \(String(format: "%.2f", recH))")
        #expect(recAngle <= 0.5 * clipAngle)
        #expect(recH <= 0.5 * clipH)
        #expect(clipAngle > 5, "clipping must visibly shift the hue in this scene, else the test proves nothing")
    }

    /// Where nothing clips, reconstruct renders exactly as clip (same bytes).
    @Test func noClippingNoChange() throws {
        let (dim, _) = try Self.raw(cfa: .rggb, light: 0.25)
        #expect(try Self.render(dim, highlights: .reconstruct).pixels16 == Self.render(dim, highlights: .clip).pixels16)
    }

    /// Tile size and thread count never change a byte of a reconstructed render.
    @Test(arguments: [CFAPattern.grbg, nil])
    func tileExact(cfa: CFAPattern?) throws {
        let (bright, _) = try Self.raw(cfa: cfa, light: 1)
        let reference = try Self.render(bright, highlights: .reconstruct, tileSize: 256, threads: 1).pixels16
        for (tile, threads) in [(16, 2), (40, 2), (64, 1), (100, 2)] {
            #expect(try Self.render(bright, highlights: .reconstruct, tileSize: tile, threads: threads).pixels16 == reference,
                    "tile \(tile), threads \(threads)")
        }
        #expect(try Self.render(bright, highlights: .clip).pixels16 != reference, "the scene does clip")
    }
}

