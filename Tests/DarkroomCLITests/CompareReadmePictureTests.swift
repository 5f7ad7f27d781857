import DarkroomCore
@testable import DarkroomIO
import DarkroomTestSupport
import Foundation
import Testing

/// The README's compare example is the report's own output for `Samples/chart-rggb-12bit-D65.dng`
/// through its embedded profile (as shot, chart found automatically): the a*b* plot exactly as
/// `index.html` draws it (`Samples/compare-ab.svg`) and the split swatches (`Samples/compare-swatches.png`).
/// Both must equal a fresh run; `DARKROOM_WRITE_PICTURES=1` (`make pictures`) rewrites them.
@Suite("Compare README pictures")
struct CompareReadmePictureTests {
    @Test func compareExample() throws {
        let sample = TestSupport.packageRoot.appendingPathComponent("Samples/chart-rggb-12bit-D65.dng").path
        guard FileManager.default.fileExists(atPath: sample) else { return }
        let o = CompareOptions(files: [sample], outputDirectory: "")
        let report = try CompareRunner.run(o, reference: .colorChecker24)
        let stage = try #require(report.runs.first?.stages.last)
        let svg = Array(("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + CompareHTML.plot(stage.patches) + "\n").utf8)
        let img = SwatchPNG.image(stage.patches)
        let svgPath = TestSupport.packageRoot.appendingPathComponent("Samples/compare-ab.svg").path
        let pngPath = TestSupport.packageRoot.appendingPathComponent("Samples/compare-swatches.png").path
        if ProcessInfo.processInfo.environment["DARKROOM_WRITE_PICTURES"] == "1" {
            try Data(svg).write(to: URL(fileURLWithPath: svgPath))
            let png = try #require(SwatchPNG.encode(width: img.width, height: img.height, rgb: img.rgb))
            try Data(png).write(to: URL(fileURLWithPath: pngPath))
        }
        let committed = try [UInt8](Data(contentsOf: URL(fileURLWithPath: svgPath)))
        #expect(committed == svg, "Samples/compare-ab.svg is stale: regenerate with make pictures")
        let png = try PNGReader.read(contentsOf: pngPath)
        #expect(png.width == img.width && png.height == img.height && png.channels == 3 && png.pixels == img.rgb,
                "Samples/compare-swatches.png is stale: regenerate with make pictures")
    }
}
