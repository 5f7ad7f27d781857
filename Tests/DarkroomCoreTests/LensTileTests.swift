@testable import DarkroomCore
import Foundation
import Testing

/// The lens path of `TileRenderer` (each output tile demosaics its own source area): with models
/// whose positions are whole pixels, the bicubic reads a single tap (weights 0, 1, 0, 0), so the
/// corrected render must equal the identity model's render moved by the model, byte for byte.
/// (Not the uncorrected render: the resample keeps its results ≥ 0, so demosaic undershoots
/// differ from the ordinary path's.)
@Suite("Core: lens correction tile by tile")
struct LensTileTests {
    static let width = 192, height = 128

    /// Every channel reads pixel `map(x, y)`.
    struct Remap: LensModifier {
        let map: @Sendable (Int, Int) -> (Int, Int)
        func sourcePositions(x0: Int, y: Int, count: Int, into positions: UnsafeMutablePointer<Float>) {
            for i in 0..<count {
                let (sx, sy) = map(x0 + i, y)
                for c in 0..<3 { positions[i * 6 + 2 * c] = Float(sx); positions[i * 6 + 2 * c + 1] = Float(sy) }
            }
        }
        func correctVignetting(_ rgb: UnsafeMutablePointer<Float>, x0: Int, y: Int, count: Int) {}
    }

    static func raw() -> RawImage {
        let chart = SyntheticChart(cfa: .rggb, bitsPerSample: 14, illuminant: ColorMath.d65, width: width, height: height)
        return chart.makeRawImage()
    }

    static func render(_ raw: RawImage, lens: (any LensModifier)?, tile: Int, threads: Int) throws -> [UInt16] {
        var recipe = DevelopRecipe()
        recipe.bitsPerSample = 16; recipe.applyDefaultCrop = false; recipe.thumbnailSize = 0
        recipe.tileSize = tile; recipe.threads = threads
        // Highlight compression runs again after a resample (overshoot can pass 1), which can move a
        // compressed pixel by an ulp; the comparison here is of the resample alone.
        recipe.highlights = .clip
        var plan = try DevelopPlan(metadata: raw.metadata, width: raw.width, height: raw.height, samplesPerPixel: raw.samplesPerPixel,
                                   recipe: recipe, opcodes: ParsedOpcodeLists(raw.metadata))
        plan.lens = lens.map { LensCorrection(spec: .auto, match: nil, applied: [.distortion], reason: nil, modifier: $0) }
        #expect(plan.outputSize.width == width && plan.outputSize.height == height)
        return TileRenderer.render(raw, plan: plan).pixels16
    }

    /// `out` equals `reference` read at `map` for every pixel (3 samples each).
    static func expectRemapped(_ out: [UInt16], _ reference: [UInt16], map: (Int, Int) -> (Int, Int), _ label: String) {
        var wrong = 0, worst = 0
        for y in 0..<height { for x in 0..<width {
            let (sx, sy) = map(x, y)
            for c in 0..<3 where out[(y * width + x) * 3 + c] != reference[(sy * width + sx) * 3 + c] {
                wrong += 1
                worst = max(worst, abs(Int(out[(y * width + x) * 3 + c]) - Int(reference[(sy * width + sx) * 3 + c])))
            }
        } }
        #expect(wrong == 0, "\(label): \(wrong) samples differ, by up to \(worst)")
    }

    /// A shift, a mirror, and a model that reads every other column and row from the mirrored side
    /// (each tile's source area then spans the image, more than `lensAreaLimit` times the tile, so
    /// tiles are split down to 8–15 px and each half still gathers the whole image): every
    /// tile size and thread count gives the identity model's render moved.
    @Test(arguments: [(16, 1), (37, 2), (64, 2), (256, 1)])
    func wholePixelModelsMoveTheRender(tile: Int, threads: Int) throws {
        let raw = Self.raw()
        let reference = try Self.render(raw, lens: Remap(map: { x, y in (x, y) }), tile: 256, threads: 1)
        let w = Self.width, h = Self.height
        let models: [(String, @Sendable (Int, Int) -> (Int, Int))] = [
            ("identity", { x, y in (x, y) }),
            ("shift", { x, y in (min(x + 5, w - 1), max(y - 3, 0)) }),
            ("mirror", { x, y in (w - 1 - x, y) }),
            ("interleaved mirror", { x, y in (x % 2 == 0 ? x : w - 1 - x, y % 2 == 0 ? y : h - 1 - y) }),
        ]
        for (name, map) in models {
            let out = try Self.render(raw, lens: Remap(map: map), tile: tile, threads: threads)
            Self.expectRemapped(out, reference, map: map, "\(name), tile \(tile), threads \(threads)")
        }
    }
}
