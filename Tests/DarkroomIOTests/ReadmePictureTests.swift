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
