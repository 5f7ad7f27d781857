import DarkroomCore
@testable import DarkroomIO
import DarkroomTestSupport
import Foundation
import Testing

/// compare's `index.html` opened in a real browser: Debian's Chromium (`make test` installs it)
/// takes a headless screenshot, and the picture must show the ranking table's header band and
/// the a*b* plot (its background square with the measured points) where the page puts them.
/// Skipped only when Chromium is absent and the run is not in CI (`CI` unset).
@Suite("Compare HTML in a browser")
struct CompareHTMLBrowserTests {
    static var chromium: String? {
        ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func rgb(_ hex: String) -> SIMD3<Int> {
        let v = Int(hex, radix: 16) ?? 0
        return SIMD3(v >> 16 & 0xFF, v >> 8 & 0xFF, v & 0xFF)
    }

    /// Bounding box (x0, y0, x1, y1, count) of the pixels within `tolerance` of `colour`, optionally inside `box`.
    static func find(_ png: PNGImage, _ colour: SIMD3<Int>, tolerance: Int, in box: (Int, Int, Int, Int)? = nil)
        -> (x0: Int, y0: Int, x1: Int, y1: Int, count: Int) {
        var x0 = Int.max, y0 = Int.max, x1 = -1, y1 = -1, n = 0
        let (bx0, by0, bx1, by1) = box ?? (0, 0, png.width - 1, png.height - 1)
        for y in by0...by1 {
            for x in bx0...bx1 {
                let o = (y * png.width + x) * png.channels
                let p = SIMD3(Int(png.pixels[o]), Int(png.pixels[o + 1]), Int(png.pixels[o + 2]))
                let d = p &- colour
                guard abs(d.x) <= tolerance, abs(d.y) <= tolerance, abs(d.z) <= tolerance else { continue }
                x0 = min(x0, x); y0 = min(y0, y); x1 = max(x1, x); y1 = max(y1, y); n += 1
            }
        }
        return (x0, y0, x1, y1, n)
    }

    @Test func screenshotShowsTheRankingTableAndThePlot() throws {
        guard let chromium = Self.chromium else {
            if ProcessInfo.processInfo.environment["CI"] != nil {
                Issue.record("chromium is not installed in CI: `make test` installs it (TEST_PACKAGES)")
            } else {
                print("chromium not installed: skipping the browser screenshot test (make test-deps installs it)")
            }
            return
        }
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let chart = CompareTests.lutherChart(bits: 14)
        let dng = dir + "/chart.dng"
        try DNGWriter.write(chart.makeRawImage(), to: dng)
        var o = CompareOptions(files: [dng], outputDirectory: dir + "/report")
        o.chart = .corners(CompareTests.corners(chart))
        o.illuminants = [.standard("D65"), .standard("A")]
        let report = try CompareRunner.run(o, reference: .colorChecker24)
        try CompareOutput.write(try CompareOutput.files(report), directory: o.outputDirectory, overwrite: false)

        let shot = dir + "/shot.png"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: chromium)
        p.arguments = ["--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--force-device-scale-factor=1",
                       "--user-data-dir=\(dir)/chromium-profile", "--screenshot=\(shot)", "--window-size=1200,1600",
                       "file://\(dir)/report/index.html"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = dir
        p.environment = environment
        try p.run()
        let deadline = Date().addingTimeInterval(120)
        while p.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        if p.isRunning { p.terminate(); Issue.record("chromium did not finish within 120 s"); return }
        let png = try PNGReader.read(contentsOf: shot)
        #expect(png.width == 1200 && png.height == 1600)
        try #require(png.channels >= 3)

        // The ranking tables' header bands: two (D65, A), near the top, as wide as the table.
        let header = Self.find(png, Self.rgb(CompareHTML.rankingHeader), tolerance: 2)
        #expect(header.count > 2 * 300 * 15, "header band pixels: \(header.count)")
        #expect(header.y0 > 40 && header.y0 < 300, "first header band at y \(header.y0)")
        #expect(header.x1 - header.x0 >= 300 && header.x0 < 60, "header band x \(header.x0)…\(header.x1)")
        // The first run's a*b* plot: a 360 px square of its background colour below the tables,
        // holding the measured points' markers.
        let first = Self.find(png, Self.rgb(CompareHTML.plotBackground), tolerance: 1)
        try #require(first.count > 0, "no plot background in the screenshot")
        let plot = Self.find(png, Self.rgb(CompareHTML.plotBackground), tolerance: 1,
                             in: (0, first.y0, png.width - 1, min(first.y0 + 370, png.height - 1)))
        #expect((355...361).contains(plot.x1 - plot.x0 + 1) && (355...361).contains(plot.y1 - plot.y0 + 1),
                "plot square \(plot.x0),\(plot.y0)…\(plot.x1),\(plot.y1)")
        #expect(plot.y0 > header.y1 && plot.y1 < 1600)
        #expect(plot.count > 360 * 360 / 2)
        let markers = Self.find(png, Self.rgb(CompareHTML.measuredMarker), tolerance: 8, in: (plot.x0, plot.y0, plot.x1, plot.y1))
        #expect(markers.count >= 24 * 5, "measured markers: \(markers.count) pixels")
        print("screenshot: header band \(header.x0),\(header.y0)…\(header.x1),\(header.y1); plot \(plot.x0),\(plot.y0)…\(plot.x1),\(plot.y1); marker pixels \(markers.count)")
    }
}
