@testable import DarkroomCore
import Foundation
import Testing

/// `--sharpen`: a soft edge gets steeper; flat noise (with its NoiseProfile) is not amplified.
@Suite("Capture sharpening")
struct CaptureSharpeningTests {
    static let width = 192, height = 128

    /// Grey scene: a vertical edge 0.15 → 0.55 at x = 96 blurred by a Gaussian of σ = 1.5 px
    /// (rows < 64); below, a flat 0.3 field.
    static func scene(_ x: Int, _ y: Int) -> Double {
        if y >= 64 { return 0.3 }
        let t = (Double(x) - 95.5) / (1.5 * 2.0.squareRoot())
        return 0.15 + 0.4 * 0.5 * (1 + erf(t))
    }

    static func raw(noise S: Double, tag: Bool) throws -> RawImage {
        let chart = SyntheticChart(cfa: .grbg, bitsPerSample: 14, illuminant: ColorMath.d65, width: width, height: height)
        var md = chart.makeRawImage().metadata
        md.blackLevel = [512]; md.blackLevelRepeatRows = 1; md.blackLevelRepeatColumns = 1
        md.whiteLevel = [16383]
        md.defaultCrop = nil
        md.noiseProfile = tag ? [S, S / 100] : nil
        let plan = try DevelopPlan(metadata: md, width: width, height: height, samplesPerPixel: 1,
                                   recipe: DevelopRecipe(), opcodes: ParsedOpcodeLists(md))
        let gains = plan.whiteBalanceGains
        var pixels = [UInt16](repeating: 0, count: width * height)
        for y in 0..<height { for x in 0..<width {
            let c = Int(CFAPattern.grbg.color(x: x, y: y).rawValue)
            let signal = scene(x, y) / Double(gains[c])
            let z = NoiseReductionTests.gaussian(y * width + x, 777)
            let v = 512 + (signal + (S * signal + S / 100).squareRoot() * z) * (16383 - 512)
            pixels[y * width + x] = UInt16(min(max(v.rounded(), 0), 16383))
        } }
        return RawImage(width: width, height: height, samplesPerPixel: 1, pixels: pixels, metadata: md)
    }

    static func render(_ raw: RawImage, _ sharpen: SharpenSpec, nr: NoiseReductionSpec = .off, tile: Int = 256, threads: Int = 0) throws -> [UInt16] {
        var recipe = DevelopRecipe()
        recipe.bitsPerSample = 16; recipe.applyDefaultCrop = false; recipe.thumbnailSize = 0
        recipe.colorSpace = .srgbLinear; recipe.tone = .linear
        recipe.sharpen = sharpen; recipe.noiseReduction = nr
        recipe.tileSize = tile; recipe.threads = threads
        let plan = try DevelopPlan(metadata: raw.metadata, width: raw.width, height: raw.height, samplesPerPixel: 1,
                                   recipe: recipe, opcodes: ParsedOpcodeLists(raw.metadata))
        return TileRenderer.render(raw, plan: plan).pixels16
    }

    /// Mean of the green channel along the edge rows, per column.
    static func profile(_ img: [UInt16]) -> [Double] {
        (0..<width).map { x in
            var s = 0.0
            for y in 16..<48 { s += Double(img[(y * width + x) * 3 + 1]) }
            return s / 32 / 65535
        }
    }

    /// Standard deviation of the green channel over the flat field.
    static func flatSigma(_ img: [UInt16]) -> Double {
        var s = 0.0, s2 = 0.0, n = 0.0
        for y in 76..<120 { for x in 16..<176 {
            let v = Double(img[(y * width + x) * 3 + 1]) / 65535
            s += v; s2 += v * v; n += 1
        } }
        return (s2 / n - (s / n) * (s / n)).squareRoot()
    }

    /// 10–90 % rise distance of the edge profile in pixels (linear interpolation between columns).
    static func riseDistance(_ p: [Double]) -> Double {
        let lo = p[40], hi = p[150]
        func crossing(_ f: Double) -> Double {
            let level = lo + f * (hi - lo)
            for x in 80..<112 where (p[x] - level) * (p[x + 1] - level) <= 0 && p[x + 1] != p[x] {
                return Double(x) + (level - p[x]) / (p[x + 1] - p[x])
            }
            return .nan
        }
        return crossing(0.9) - crossing(0.1)
    }

    /// The soft edge's 10–90 % rise distance shrinks by ≥ 5 % with auto (amount 0.4, radius 1)
    /// and by more with amount 1; the plateaus stay within 1 % of their level away from the edge.
    @Test func softEdgeGetsSteeper() throws {
        let raw = try Self.raw(noise: 0, tag: false)
        let off = Self.profile(try Self.render(raw, .off)), on = Self.profile(try Self.render(raw, .auto))
        let strong = Self.profile(try Self.render(raw, .amount(1, radius: 1)))
        let (d0, d1, d2) = (Self.riseDistance(off), Self.riseDistance(on), Self.riseDistance(strong))
        print(String(format: "edge 10-90 %% rise: off %.3f px, auto %.3f px, amount 1 %.3f px", d0, d1, d2))
        #expect(d1 <= 0.95 * d0)
        #expect(d2 < d1)
        for x in [40, 150] { #expect(abs(on[x] - off[x]) < 0.01 * off[x]) }
    }

    /// Flat-field noise is not amplified (σ within 5 % of the unsharpened render), with the
    /// NoiseProfile and without one (the gate then uses the noise measured in the image).
    @Test func noiseIsNotAmplified() throws {
        let tagged = try Self.raw(noise: 4e-4, tag: true)
        let off = Self.flatSigma(try Self.render(tagged, .off)), on = Self.flatSigma(try Self.render(tagged, .auto))
        let untagged = try Self.raw(noise: 4e-4, tag: false)
        let plain = Self.flatSigma(try Self.render(untagged, .auto))
        let plainOff = Self.flatSigma(try Self.render(untagged, .off))
        print(String(format: "flat σ: off %.5f, auto with NoiseProfile %.5f; without: off %.5f, auto %.5f", off, on, plainOff, plain))
        #expect(on <= 1.05 * off)
        #expect(plain <= 1.05 * plainOff)
    }

    @Test func tileExact() throws {
        let raw = try Self.raw(noise: 4e-4, tag: true)
        let reference = try Self.render(raw, .auto, nr: .auto, tile: 256, threads: 1)
        for (tile, threads) in [(16, 2), (40, 2), (64, 1)] {
            #expect(try Self.render(raw, .auto, nr: .auto, tile: tile, threads: threads) == reference, "tile \(tile)")
        }
    }

    @Test func parsing() throws {
        #expect(try SharpenSpec(parsing: "auto") == .auto)
        #expect(try SharpenSpec(parsing: "off") == .off)
        #expect(try SharpenSpec(parsing: "0.8") == .amount(0.8, radius: 1))
        #expect(try SharpenSpec(parsing: "1,2") == .amount(1, radius: 2))
        #expect(SharpenSpec.amount(1, radius: 2).text == "1,2")
        for bad in ["", "4", "-1", "1,0.5", "1,4", "1,2,3", "x"] { #expect(throws: DevelopError.self) { try SharpenSpec(parsing: bad) } }
    }
}
