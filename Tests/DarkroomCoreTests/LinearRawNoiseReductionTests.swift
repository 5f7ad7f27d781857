@testable import DarkroomCore
import Foundation
import Testing

/// `--noise-reduction` and `--sharpen` on LinearRaw (three samples per pixel, no demosaic):
/// `NoiseReductionTests`' scene as linear RGB with known shot + read noise per channel and a
/// matching NoiseProfile; PSNR of the developed 16-bit sRGB output against the render of the
/// noise-free image with the controls off.
@Suite("Noise reduction on LinearRaw")
struct LinearRawNoiseReductionTests {
    static let width = NoiseReductionTests.width, height = NoiseReductionTests.height

    /// The scene as 14-bit linear RGB, noise variance S·x + O per channel (x in 0…1 of the range,
    /// before white balance), with the matching NoiseProfile when `tag` (or `profile` when given).
    static func raw(S: Double, O: Double, tag: Bool, profile: [Double]? = nil) throws -> RawImage {
        let chart = SyntheticChart(cfa: .rggb, bitsPerSample: 14, illuminant: ColorMath.d65, width: width, height: height)
        var md = chart.makeRawImage().metadata
        md.blackLevel = [512]; md.blackLevelRepeatRows = 1; md.blackLevelRepeatColumns = 1
        md.whiteLevel = [16383]
        md.defaultCrop = nil
        md.noiseProfile = profile ?? (tag ? [S, O] : nil)
        let plan = try DevelopPlan(metadata: md, width: width, height: height, samplesPerPixel: 3,
                                   recipe: DevelopRecipe(), opcodes: ParsedOpcodeLists(md))
        let gains = plan.whiteBalanceGains
        let range = 16383.0 - 512
        var pixels = [UInt16](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let v = NoiseReductionTests.scene(x, y)
                for c in 0..<3 {
                    let signal = v[c] / Double(gains[c])
                    let sigma = (S * signal + O).squareRoot()
                    let i = (y * width + x) * 3 + c
                    let value = 512 + (signal + sigma * SyntheticNoise.gaussian(i, 777)) * range
                    pixels[i] = UInt16(min(max(value.rounded(), 0), 16383))
                }
            }
        }
        return RawImage(width: width, height: height, samplesPerPixel: 3, pixels: pixels, metadata: md)
    }

    static func render(_ raw: RawImage, _ nr: NoiseReductionSpec, sharpen: SharpenSpec = .off,
                       tileSize: Int = 256, threads: Int = 0) throws -> [UInt16] {
        var recipe = DevelopRecipe()
        recipe.bitsPerSample = 16
        recipe.applyDefaultCrop = false
        recipe.thumbnailSize = 0
        recipe.noiseReduction = nr
        recipe.sharpen = sharpen
        recipe.tileSize = tileSize
        recipe.threads = threads
        let plan = try DevelopPlan(metadata: raw.metadata, width: raw.width, height: raw.height, samplesPerPixel: 3,
                                   recipe: recipe, opcodes: ParsedOpcodeLists(raw.metadata))
        return TileRenderer.render(raw, plan: plan).pixels16
    }

    /// σ at mid-grey 0.009 and 0.018 of the range (the mosaic tests' middle and high levels): the
    /// noisy render is far from the clean one, and `auto` brings it closer by several dB
    /// (measured 2026-11-27: off 30.42 / 24.77 dB, auto 36.79 / 31.70, +6.37 / +6.94 — more
    /// than on a mosaic, whose demosaic correlates the noise: white noise is what the wavelet
    /// shrinkage separates best).
    @Test(arguments: [(4e-4, 4e-6, 36.5, 6.0), (1.6e-3, 2e-5, 31.4, 6.5)])
    func autoGainsAgainstOff(level: (S: Double, O: Double, minimum: Double, minimumGain: Double)) throws {
        let clean = try Self.render(Self.raw(S: 0, O: 0, tag: false), .off)
        let noisy = try Self.raw(S: level.S, O: level.O, tag: true)
        let off = NoiseReductionTests.psnr(try Self.render(noisy, .off), clean)
        let auto = NoiseReductionTests.psnr(try Self.render(noisy, .auto), clean)
        print(String(format: "LinearRaw S %.1e: off %.2f dB, auto %.2f dB (%+.2f)", level.S, off, auto, auto - off))
        #expect(off < 40, "the noise must be visible, else the test proves nothing")
        #expect(auto >= level.minimum)
        #expect(auto - off >= level.minimumGain)
    }

    /// Noise-free LinearRaw tagged with the middle level's profile loses little (the detail the
    /// model's noise would hide), and one without a NoiseProfile is left alone: its noise is
    /// not estimated.
    @Test func cleanInputAndNoTag() throws {
        let clean = try Self.render(Self.raw(S: 0, O: 0, tag: false), .off)
        let tagged = try Self.raw(S: 0, O: 0, tag: false, profile: [4e-4, 4e-6])
        let cleanAuto = try Self.render(tagged, .auto)
        #expect(cleanAuto != clean, "the profile must switch noise reduction on, else the test proves nothing")
        let loss = NoiseReductionTests.psnr(cleanAuto, clean)
        print(String(format: "LinearRaw noise-free with the middle profile: auto %.2f dB against off", loss))
        #expect(loss > 45)
        let untagged = try Self.raw(S: 4e-4, O: 4e-6, tag: false)
        #expect(try Self.render(untagged, .auto) == Self.render(untagged, .off))
    }

    /// Tile size and thread count never change a byte, with noise reduction and sharpening on.
    @Test func tileExact() throws {
        let noisy = try Self.raw(S: 4e-4, O: 4e-6, tag: true)
        let reference = try Self.render(noisy, .auto, sharpen: .amount(0.6, radius: 1), tileSize: 256, threads: 1)
        for (tile, threads) in [(64, 2), (100, 3)] {
            #expect(try Self.render(noisy, .auto, sharpen: .amount(0.6, radius: 1), tileSize: tile, threads: threads) == reference,
                    "tile \(tile), threads \(threads)")
        }
    }

    /// `--sharpen auto` leaves LinearRaw alone (whoever demosaiced it shaped its detail); an
    /// explicit amount sharpens it: an edge gets steeper.
    @Test func sharpenOnlyOnRequest() throws {
        let clean = try Self.raw(S: 0, O: 0, tag: true)
        let off = try Self.render(clean, .off)
        #expect(try Self.render(clean, .off, sharpen: .auto) == off)
        let sharpened = try Self.render(clean, .off, sharpen: .amount(1, radius: 1))
        // The white bar's left edge (x 150) on a row above the texture: the step across it grows.
        let y = 130, g = { (p: [UInt16], x: Int) in Int(p[(y * Self.width + x) * 3 + 1]) }
        let before = g(off, 151) - g(off, 149), after = g(sharpened, 151) - g(sharpened, 149)
        #expect(after > before, "edge step \(before) → \(after)")
    }
}
