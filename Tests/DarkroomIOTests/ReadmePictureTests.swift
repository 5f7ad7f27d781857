import DarkroomCore
import DarkroomIO
import DarkroomTestSupport
import Foundation
import Testing

/// The README's pictures are renders of our own synthetic scenes; each test renders its picture
/// afresh and requires the committed PNG in `Samples/` to hold exactly those pixels (libpng reads
/// it back), so the README never shows a picture the code no longer makes.
/// `DARKROOM_WRITE_PICTURES=1` (`make pictures`) rewrites them.
@Suite("README pictures")
struct ReadmePictureTests {
    /// Side by side with an 8 px white gap.
    static func sideBySide(_ images: [RenderedImage]) -> (width: Int, height: Int, rgb: [UInt8]) {
        let gap = 8, h = images[0].height
        let w = images.map(\.width).reduce(0, +) + gap * (images.count - 1)
        var rgb = [UInt8](repeating: 255, count: w * h * 3)
        var x0 = 0
        for img in images {
            for y in 0..<h { for x in 0..<img.width { for c in 0..<3 {
                rgb[(y * w + x0 + x) * 3 + c] = img.pixels8[(y * img.width + x) * 3 + c]
            } } }
            x0 += img.width + gap
        }
        return (w, h, rgb)
    }

    static func check(_ name: String, _ picture: (width: Int, height: Int, rgb: [UInt8])) throws {
        let path = TestSupport.packageRoot.appendingPathComponent("Samples/\(name)").path
        if ProcessInfo.processInfo.environment["DARKROOM_WRITE_PICTURES"] == "1" {
            let bytes = try #require(SwatchPNG.encode(width: picture.width, height: picture.height, rgb: picture.rgb))
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
        let png = try PNGReader.read(contentsOf: path)
        #expect(png.width == picture.width && png.height == picture.height, "\(name): regenerate with make pictures")
        #expect(png.channels == 3 && png.pixels == picture.rgb, "\(name) is stale: regenerate with make pictures")
    }

    /// `Samples/highlights-clip-vs-reconstruct.png`: the highlight scene in the default look,
    /// `--highlights clip` (left) and `reconstruct` (right).
    @Test func highlightPicture() throws {
        let (raw, _) = try SyntheticHighlightScene.raw(cfa: .rggb, light: 1)
        let renders = try [HighlightMode.clip, .reconstruct].map { mode in
            var recipe = DevelopRecipe()
            recipe.highlights = mode
            recipe.thumbnailSize = 0
            let plan = try DevelopPlan(metadata: raw.metadata, width: raw.width, height: raw.height, samplesPerPixel: 1,
                                       recipe: recipe, opcodes: ParsedOpcodeLists(raw.metadata))
            return TileRenderer.render(raw, plan: plan)
        }
        try Self.check("highlights-clip-vs-reconstruct.png", Self.sideBySide(renders))
    }
}

/// The README's crops of a photograph developed from a synthetic raw (`SyntheticPhotoRaw`, from
/// Kodak's kodim12 in ../shared; skipped without it): noise reduction and highlight reconstruction
/// as a user sees them in the default look.
@Suite("README pictures from a photograph")
struct ReadmePhotoPictureTests {
    static func kodim12() throws -> PNGImage? {
        guard let url = TestSupport.sharedSamples("kodak24/kodim12.png") else { return nil }
        return try PNGReader.read(contentsOf: url.path)
    }

    static func render(_ raw: RawImage, _ edit: (inout DevelopRecipe) -> Void) throws -> RenderedImage {
        var recipe = DevelopRecipe()
        recipe.thumbnailSize = 0
        recipe.applyDefaultCrop = false
        edit(&recipe)
        let plan = try DevelopPlan(metadata: raw.metadata, width: raw.width, height: raw.height, samplesPerPixel: 1,
                                   recipe: recipe, opcodes: ParsedOpcodeLists(raw.metadata))
        return TileRenderer.render(raw, plan: plan)
    }

    /// `rect` of an 8-bit render, as a `RenderedImage` holding only `pixels8`.
    static func crop(_ image: RenderedImage, _ rect: PixelRect) -> RenderedImage {
        var out = image
        out.width = rect.width; out.height = rect.height
        var pixels: [UInt8] = []
        pixels.reserveCapacity(rect.width * rect.height * 3)
        for y in rect.y..<rect.maxY {
            let start: Int = (y * image.width + rect.x) * 3
            pixels.append(contentsOf: image.pixels8[start..<(start + rect.width * 3)])
        }
        out.pixels8 = pixels
        return out
    }

    /// `Samples/noise-reduction-off-vs-auto.png`: a 256² crop of kodim12 as a phone-like raw at
    /// ISO-like high noise (bench-quality's highest level, S = 1.6e-3, O = 2e-5, with a matching
    /// NoiseProfile), `--noise-reduction off` (left) and `auto` (right), sharpening on as by default.
    @Test func noiseReductionPicture() throws {
        guard let png = try Self.kodim12() else { return }
        let raw = try SyntheticPhotoRaw.make(rgb: png.pixels, width: png.width, height: png.height, channels: png.channels,
                                             S: 1.6e-3, O: 2e-5, noiseProfile: [1.6e-3, 2e-5])
        let rect = PixelRect(x: 200, y: 60, width: 256, height: 256)
        let renders = try [NoiseReductionSpec.off, .auto].map { nr in
            Self.crop(try Self.render(raw) { $0.noiseReduction = nr }, rect)
        }
        try ReadmePictureTests.check("noise-reduction-off-vs-auto.png", ReadmePictureTests.sideBySide(renders))
    }

    /// `Samples/highlights-sky-clip-vs-reconstruct.png`: kodim12's sky over-exposed (× 1.6 of the
    /// usual 0.9 white: the blue sky clips in green, the clouds in green and blue),
    /// `--highlights clip` (left) and `reconstruct` (right).
    @Test func clippedSkyPicture() throws {
        guard let png = try Self.kodim12() else { return }
        let raw = try SyntheticPhotoRaw.make(rgb: png.pixels, width: png.width, height: png.height, channels: png.channels,
                                             exposure: 1.6, S: 1e-4, O: 1e-6, noiseProfile: [1e-4, 1e-6])
        let rect = PixelRect(x: 0, y: 0, width: 384, height: 160)
        let renders = try [HighlightMode.clip, .reconstruct].map { mode in
            Self.crop(try Self.render(raw) { $0.highlights = mode }, rect)
        }
        try ReadmePictureTests.check("highlights-sky-clip-vs-reconstruct.png", ReadmePictureTests.sideBySide(renders))
    }
}
