import DarkroomCore
import Foundation
import Testing

/// `--highlights reconstruct` against the truth of synthetic scenes whose values exceed the
/// sensor's white on one or two channels: an orange lamp (red clips, then green), a blue sky
/// ramp (blue clips, then green) and a green blob, on a dark ground, with mild noise.
///
/// Truth is independent of the reconstruction: the same scene at a quarter of the light (nothing
/// clips) through the same pipeline. CIELAB hue angle does not change with a uniform scale of
/// XYZ (in the cube-root range), so the truth's hue is the scene's hue.
@Suite("Highlight reconstruction")
struct HighlightRecoveryTests {
    static let width = 256, height = 192

    /// Balanced camera RGB of the scene at (x, y) (1 = the white-balanced clipping point).
    static func scene(_ x: Int, _ y: Int) -> SIMD3<Double> {
        var v = SIMD3<Double>(0.08, 0.08, 0.08)
        // Sky: top 56 rows, brightness ramping left → right from 0.5 to 1.9.
        if y < 56 {
            let t = Double(x) / Double(width - 1)
            v = SIMD3(0.42, 0.68, 1.0) * (0.5 + 1.4 * t)
        }
        // Lamp: a disc with a smooth falloff, centre at 2.6 × (1, 0.52, 0.18).
        let dx = Double(x - 80), dy = Double(y - 125), r = (dx * dx + dy * dy).squareRoot()
        let lamp = 2.6 * exp(-(r * r) / (2 * 22 * 22))
        if lamp > 0.02 { v += SIMD3(1.0, 0.52, 0.18) * lamp }
        // A green blob, centre 1.7 × (0.45, 1, 0.35).
        let ex = Double(x - 190), ey = Double(y - 130), q = ex * ex + ey * ey
        let blob = 1.7 * exp(-q / (2 * 18 * 18))
        if blob > 0.02 { v += SIMD3(0.45, 1.0, 0.35) * blob }
        return v
    }

    /// A 14-bit mosaic of `scene` × `light` with the chart camera's metadata; the sensor clips at
    /// its white. Noise: a fixed hash of the position, ±0.3 % of white.
    /// `cfa` nil: a LinearRaw-style RGB image (3 samples per pixel) of the same scene.
    static func raw(cfa: CFAPattern?, light: Double) throws -> (RawImage, SIMD3<Float>) {
        let chart = SyntheticChart(cfa: cfa ?? .rggb, bitsPerSample: 14, illuminant: ColorMath.d65, width: width, height: height)
        var base = chart.makeRawImage()
        var md = base.metadata
        md.blackLevel = [512]; md.blackLevelRepeatRows = 1; md.blackLevelRepeatColumns = 1
        md.whiteLevel = [16383]
        md.defaultCrop = nil
        let spp = cfa == nil ? 3 : 1
        if cfa == nil { md.cfa = nil; md.samplesPerPixel = 3 }
        base = RawImage(width: width, height: height, samplesPerPixel: spp,
                        pixels: [UInt16](repeating: 0, count: width * height * spp), metadata: md)
        let plan = try DevelopPlan(metadata: md, width: width, height: height, samplesPerPixel: spp,
                                   recipe: DevelopRecipe(), opcodes: ParsedOpcodeLists(md))
        let gains = plan.whiteBalanceGains
        let range = 16383.0 - 512
        var pixels = [UInt16](repeating: 0, count: width * height * spp)
        for y in 0..<height {
            for x in 0..<width {
                for s in 0..<spp {
                    let c = cfa.map { Int($0.color(x: x, y: y).rawValue) } ?? s
                    let balanced = scene(x, y)[c] * light
                    var h = UInt32(truncatingIfNeeded: (x * 3 + s) &* 73_856_093 ^ y &* 19_349_663)
                    h = (h ^ (h >> 13)) &* 1_274_126_177
                    let noise = (Double(h & 0xFFFF) / 65535 - 0.5) * 0.006
                    let v = 512 + (balanced / Double(gains[c]) + noise) * range
                    pixels[(y * width + x) * spp + s] = UInt16(min(max(v.rounded(), 0), 16383))
                }
            }
        }
        return (RawImage(width: width, height: height, samplesPerPixel: spp, pixels: pixels, metadata: md), gains)
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

