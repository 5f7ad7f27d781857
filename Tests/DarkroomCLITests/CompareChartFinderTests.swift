import DarkroomCore
@testable import DarkroomIO
import DarkroomTestSupport
import Foundation
import Testing

/// `--chart auto` on synthetic chart photographs: a Luther-camera ColorChecker rotated, seen in
/// perspective and exposed wrongly, on a flat background. The chart must be found and all 24
/// patches must measure their own colour.
@Suite("Compare chart finder")
struct CompareChartFinderTests {
    /// One photograph: the chart's outer corners land on the canvas corners `quad` (top-left,
    /// top-right, bottom-right, bottom-left of the 600 × 400 chart), exposure changed by `stops`.
    struct Shot: Sendable, CustomStringConvertible {
        var name: String
        var width: Int
        var height: Int
        var degrees: Double
        /// Keystone: the chart's top edge shortened by this fraction (perspective), and its
        /// scale on the canvas.
        var keystone: Double
        var scale: Double
        var stops: Double
        var description: String { name }

        /// The chart's canvas corners: rotate about the canvas centre, keystone, scale.
        var quad: [SIMD2<Double>] {
            let cw = 600.0 * scale, ch = 400.0 * scale
            let k = keystone * cw / 2
            let local = [SIMD2(-cw / 2 + k, -ch / 2), SIMD2(cw / 2 - k, -ch / 2), SIMD2(cw / 2, ch / 2), SIMD2(-cw / 2, ch / 2)]
            let a = degrees * .pi / 180
            return local.map { p in
                SIMD2(Double(width) / 2 + cos(a) * p.x - sin(a) * p.y, Double(height) / 2 + sin(a) * p.x + cos(a) * p.y)
            }
        }
    }

    static let shots: [Shot] = [
        Shot(name: "straight", width: 800, height: 600, degrees: 0, keystone: 0, scale: 1.1, stops: 0),
        Shot(name: "rot+10 −2 EV", width: 900, height: 700, degrees: 10, keystone: 0, scale: 1.1, stops: -2),
        Shot(name: "rot−10 +1 EV", width: 900, height: 700, degrees: -10, keystone: 0, scale: 1.1, stops: 1),
        Shot(name: "rot+6 keystone −0.5 EV", width: 900, height: 700, degrees: 6, keystone: 0.12, scale: 1.15, stops: -0.5),
        Shot(name: "rot−4 keystone +2 EV", width: 900, height: 700, degrees: -4, keystone: 0.1, scale: 1.1, stops: 2),
        Shot(name: "upside down +0.5 EV", width: 900, height: 700, degrees: 183, keystone: 0.05, scale: 1.1, stops: 0.5),
        Shot(name: "portrait −1 EV", width: 640, height: 900, degrees: 92, keystone: 0, scale: 1.2, stops: -1),
    ]

    /// The chart drawn through the homography of `shot` (pixel centres classified: patch, the
    /// chart's dark surround, or a flat 35 % grey background), exposure scaled and clipped, encoded
    /// with the synthetic camera's per-site black levels.
    static func photograph(_ shot: Shot) -> (raw: RawImage, chart: SyntheticChart, toCanvas: Homography)? {
        let layoutChart = SyntheticChart(cfa: .rggb, bitsPerSample: 14, illuminant: ColorMath.d65, camera: .init(linear: true))
        let canvas = SyntheticChart(cfa: .rggb, bitsPerSample: 14, illuminant: ColorMath.d65, width: shot.width, height: shot.height,
                                    camera: .init(linear: true))
        guard let toCanvas = Homography(from: [SIMD2(0, 0), SIMD2(600, 0), SIMD2(600, 400), SIMD2(0, 400)], to: shot.quad),
              let toChart = toCanvas.inverse else { return nil }
        let gain = pow(2, shot.stops)
        let d50 = ColorMath.xyToXYZ(ColorMath.d50)
        let surround = canvas.xyzD50ToCamera * (SyntheticChart.sceneScale * SyntheticChart.surroundReflectance * d50)
        let background = canvas.xyzD50ToCamera * (SyntheticChart.sceneScale * 0.35 * d50)
        let patches = (0..<24).map { canvas.cameraValues(patch: $0) }
        let blacks = canvas.blackLevels.map(Double.init), white = Double(canvas.whiteLevel)
        let rects = layoutChart.patchRects
        var pixels = [UInt16](repeating: 0, count: shot.width * shot.height)
        for y in 0..<shot.height {
            for x in 0..<shot.width {
                guard let c = toChart.apply(SIMD2(Double(x) + 0.5, Double(y) + 0.5)) else { continue }
                var v = background
                if c.x >= 0, c.y >= 0, c.x < 600, c.y < 400 {
                    v = surround
                    if let i = rects.firstIndex(where: { Double($0.x) <= c.x && c.x < Double($0.maxX) && Double($0.y) <= c.y && c.y < Double($0.maxY) }) {
                        v = patches[i]
                    }
                }
                let site = (y & 1) << 1 | (x & 1)
                let value = min(v[Int(canvas.cfa.color(x: x, y: y).rawValue)] * gain, 1)
                pixels[y * shot.width + x] = UInt16(min(max((blacks[site] + value * (white - blacks[site])).rounded(), 0), white))
            }
        }
        return (RawImage(width: shot.width, height: shot.height, samplesPerPixel: 1, pixels: pixels, metadata: canvas.metadata), canvas, toCanvas)
    }

    @Test(arguments: shots)
    func findsTheChart(shot: Shot) throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let made = try #require(Self.photograph(shot))
        let dng = dir + "/shot.dng"
        try DNGWriter.write(made.raw, to: dng)
        var o = CompareOptions(files: [dng], outputDirectory: dir)
        o.illuminants = [.chromaticity(made.chart.illuminant)]
        o.normalisation = .none
        let report = try CompareRunner.run(o, reference: .colorChecker24)
        let run = try #require(report.runs.first)
        #expect(run.chartFound)
        // The true grid corners (patch A1's outer corner … ), in the developed image (crop inset 8).
        let grid = [SIMD2(10.0, 10.0), SIMD2(588.0, 10.0), SIMD2(588.0, 388.0), SIMD2(10.0, 388.0)]
        for (k, g) in grid.enumerated() {
            let truth = try #require(made.toCanvas.apply(g)) - SIMD2(8, 8)
            let found = SIMD2(run.chartCorners[k][0], run.chartCorners[k][1])
            let d = found - truth
            #expect((d * d).sum().squareRoot() < 4, "\(shot) corner \(k): found \(found), true \(truth)")
        }
        // Every patch measures its own colour: camera-native, exposure applied, clipped at 1 by the
        // sensor and at the camera neutral by the white balance (which clips balanced values at 1).
        let stage = try #require(run.stages.first)
        let neutral = SIMD3(run.cameraNeutral[0], run.cameraNeutral[1], run.cameraNeutral[2])
        for i in 0..<24 {
            let exposed = made.chart.cameraValues(patch: i) * pow(2, shot.stops)
            let expected = exposed.clamped(lowerBound: .zero, upperBound: SIMD3(repeating: 1)).clamped(lowerBound: .zero, upperBound: neutral)
            let p = stage.patches[i]
            #expect(p.clipped == ((exposed / neutral).max() >= 0.9999), "\(shot) patch \(p.id) clipped flag")
            for c in 0..<3 {
                #expect(abs(p.cameraRGB[c] - expected[c]) < 2e-3 * max(expected[c], 0.05) + 2e-4,
                        "\(shot) patch \(p.id) channel \(c): \(p.cameraRGB[c]) vs \(expected[c])")
            }
            #expect(p.keptPixels * 2 >= p.pixels)
        }
    }

    /// Orientation is applied before the chart is looked for: a file with Orientation 6 (rotate 90°
    /// clockwise for display) is found, and explicit corners given in the developed (portrait)
    /// image measure the same patches.
    @Test(arguments: [3, 6, 8])
    func orientedFile(orientation: Int) throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let chart = SyntheticChart(cfa: .grbg, bitsPerSample: 14, illuminant: ColorMath.d65, camera: .init(linear: true))
        var raw = chart.makeRawImage()
        raw.metadata.orientation = orientation
        let dng = dir + "/turned.dng"
        try DNGWriter.write(raw, to: dng)
        var o = CompareOptions(files: [dng], outputDirectory: dir)
        o.illuminants = [.chromaticity(chart.illuminant)]
        o.normalisation = .none
        let found = try CompareRunner.run(o, reference: .colorChecker24)
        // The grid corners in the stored crop (584 × 384), turned like the display.
        let o6 = Orientation(orientation)
        let crop = (w: 584, h: 384)
        func display(_ x: Double, _ y: Double) -> SIMD2<Double> {
            // Continuous point: map the pixel whose corner it is, then pick the matching corner.
            let p = o6.map(x: Int(x), y: Int(y), width: crop.w, height: crop.h)
            let q = o6.map(x: Int(x) - 1, y: Int(y) - 1, width: crop.w, height: crop.h)
            return SIMD2(Double(max(p.x, q.x)), Double(max(p.y, q.y)))
        }
        let storedGrid = [(2.0, 2.0), (580.0, 2.0), (580.0, 380.0), (2.0, 380.0)]
        let truth = storedGrid.map { display($0.0, $0.1) }
        let run = try #require(found.runs.first)
        #expect(run.chartFound)
        for k in 0..<4 {
            let d = SIMD2(run.chartCorners[k][0], run.chartCorners[k][1]) - truth[k]
            #expect((d * d).sum().squareRoot() < 4, "orientation \(orientation) corner \(k): \(run.chartCorners[k]) vs \(truth[k])")
        }
        o.chart = .corners(truth)
        let given = try CompareRunner.run(o, reference: .colorChecker24)
        for (a, b) in zip(try #require(found.runs.first?.stages.first?.patches), try #require(given.runs.first?.stages.first?.patches)) {
            let expected = chart.cameraValues(patch: ColorCheckerClassic.ids.firstIndex(of: a.id) ?? 0)
            for c in 0..<3 {
                #expect(abs(a.cameraRGB[c] - b.cameraRGB[c]) < 1e-4)
                #expect(abs(b.cameraRGB[c] - expected[c]) < 2e-3 * max(expected[c], 0.05) + 2e-4, "\(a.id)")
            }
        }
    }

    /// A frame with no chart in it: a clear error, not a guess.
    @Test func noChartIsAnError() throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let chart = SyntheticChart(cfa: .rggb, bitsPerSample: 12, illuminant: ColorMath.d65, width: 300, height: 200)
        var raw = chart.makeRawImage()
        // Every pixel takes the surround's code of its CFA site (pixels 0…1 × 0…1 are surround).
        let codes = raw.pixels
        raw.pixels = raw.pixels.indices.map { i in codes[(i / 300 & 1) * 300 + (i % 300 & 1)] }
        let dng = dir + "/flat.dng"
        try DNGWriter.write(raw, to: dng)
        let o = CompareOptions(files: [dng], outputDirectory: dir)
        #expect { _ = try CompareRunner.run(o, reference: .colorChecker24) } throws: { e in
            "\(e)".contains("flat.dng") && "\(e)".contains("no ColorChecker 24 found")
        }
    }
}
