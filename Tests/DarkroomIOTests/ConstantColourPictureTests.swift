import DarkroomCore
@testable import DarkroomIO
import DarkroomTestSupport
import Foundation
import Testing

/// The README's constant-colour picture, `Samples/constant-colour.png`: the `mixed` pair's
/// ambient frame developed normally (default recipe) | the constant-colour result | its
/// confidence map (grey, white = 255), each 2× nearest-neighbour, 8 px white gaps. Rendered
/// afresh here; the committed PNG must hold exactly these pixels (libpng reads it back).
/// `DARKROOM_WRITE_PICTURES=1` (`make constant-colour-picture`) rewrites it.
@Suite("ConstantColour picture")
struct ConstantColourPictureTests {
    static func scaled(_ w: Int, _ h: Int, _ rgb: [UInt8], by f: Int) -> (Int, Int, [UInt8]) {
        var out = [UInt8](repeating: 0, count: w * f * h * f * 3)
        for y in 0..<(h * f) { for x in 0..<(w * f) { for c in 0..<3 {
            out[(y * w * f + x) * 3 + c] = rgb[((y / f) * w + x / f) * 3 + c]
        } } }
        return (w * f, h * f, out)
    }

    @Test func picture() throws {
        let truth = try ConstantColourTruth("mixed")
        var o = ConstantColourOptions()
        o.threads = 2
        let solved = try ConstantColourDeveloper.solve(ambient: truth.ambientPath, flash: truth.flashPath, options: o)
        let r = solved.result
        let result = ConstantColourDeveloper.rendered(r, baselineExposureStops: 0, bitsPerSample: 8)
        let raw = try RawDecoder.decode(path: truth.ambientPath, options: DecodeOptions())
        let plan = try PlanBuilder.plan(for: raw, recipe: DevelopRecipe(), path: truth.ambientPath)
        let ambient = TileRenderer.render(raw, plan: plan)
        let confidence = r.confidence.flatMap { [$0, $0, $0] }
        let panels = [(ambient.width, ambient.height, ambient.pixels8), (result.width, result.height, result.pixels8),
                      (r.width, r.height, confidence)].map { Self.scaled($0.0, $0.1, $0.2, by: 2) }
        #expect(panels.allSatisfy { $0.0 == panels[0].0 && $0.1 == panels[0].1 })
        let gap = 8, h = panels[0].1
        let w = panels.map(\.0).reduce(0, +) + gap * (panels.count - 1)
        var rgb = [UInt8](repeating: 255, count: w * h * 3)
        var x0 = 0
        for (pw, _, px) in panels {
            for y in 0..<h { for x in 0..<pw { for c in 0..<3 { rgb[(y * w + x0 + x) * 3 + c] = px[(y * pw + x) * 3 + c] } } }
            x0 += pw + gap
        }
        let path = TestSupport.packageRoot.appendingPathComponent("Samples/constant-colour.png").path
        if ProcessInfo.processInfo.environment["DARKROOM_WRITE_PICTURES"] == "1" {
            let bytes = try #require(SwatchPNG.encode(width: w, height: h, rgb: rgb))
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
        let png = try PNGReader.read(contentsOf: path)
        #expect(png.width == w && png.height == h, "regenerate with make constant-colour-picture")
        #expect(png.channels == 3 && png.pixels == rgb, "Samples/constant-colour.png is stale: regenerate with make constant-colour-picture")
    }
}
