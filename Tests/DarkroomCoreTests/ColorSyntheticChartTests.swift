import Testing
@testable import DarkroomCore

@Suite("SyntheticChart")
struct ColorSyntheticChartTests {
    static let illuminants: [(String, Chromaticity)] = [
        ("D65", ColorMath.d65), ("A", ColorMath.illuminantA),
        ("4500K", ColorMath.temperatureTintToXY(kelvin: 4500, tint: 0)),
        ("3800K+10", ColorMath.temperatureTintToXY(kelvin: 3800, tint: 10)),
    ]

    @Test("Colour model applied to the patch camera values reproduces expectedXYZD50 (ΔE2000 < 0.01)",
          arguments: illuminants.map(\.0))
    func roundTrip(name: String) throws {
        let illuminant = try #require(Self.illuminants.first { $0.0 == name }).1
        let chart = SyntheticChart(cfa: .rggb, bitsPerSample: 14, illuminant: illuminant)
        let s = try DNGColorModel(metadata: chart.metadata).solve(.asShot)
        #expect(abs(s.whiteXY.x - illuminant.x) < 1e-6 && abs(s.whiteXY.y - illuminant.y) < 1e-6)
        var worst = 0.0
        for p in 0..<24 {
            let cam = chart.cameraValues(patch: p)
            #expect(cam.min() > 0 && cam.max() < 0.95, "patch \(p) camera \(cam)")
            let xyz = s.cameraToXYZD50 * cam
            let de = ColorMath.ciede2000(ColorMath.xyzToLab(xyz), ColorMath.xyzToLab(chart.expectedXYZD50(patch: p)))
            worst = max(worst, de)
        }
        #expect(worst < 0.01, "\(name): worst ΔE2000 \(worst)")
    }

    @Test("Mosaic: per-site blacks, white level, patch values decode back", arguments: CFAPattern.all)
    func mosaic(cfa: CFAPattern) throws {
        for bits in [12, 14] {
            let chart = SyntheticChart(cfa: cfa, bitsPerSample: bits, illuminant: ColorMath.illuminantA)
            let raw = chart.makeRawImage()
            let m = raw.metadata
            #expect(raw.width == 600 && raw.height == 400 && raw.pixels.count == 240_000)
            #expect(m.blackLevel == (bits == 12 ? [256, 258, 254, 257] : [1024, 1032, 1016, 1028]))
            #expect(m.whiteLevel == [bits == 12 ? 4095 : 16383])
            #expect(m.defaultCrop == PixelRect(x: 8, y: 8, width: 584, height: 384))
            #expect(m.exif.make == "Darkroom" && m.exif.model == "Synthetic Chart" && m.baselineExposure == 0)
            #expect(m.asShotNeutral?.max() == 1)
            let solution = try DNGColorModel(metadata: m).solve(.asShot)
            var worst = 0.0
            for (p, r) in chart.patchRects.enumerated() {
                // Average each channel over the patch (flat, so one 2×2 cell would do).
                var sum = SIMD3<Double>(0, 0, 0), count = SIMD3<Double>(0, 0, 0)
                for y in r.y..<r.maxY { for x in r.x..<r.maxX {
                    let site = (y & 1) * 2 + (x & 1)
                    let ch = Int(cfa.color(x: x, y: y).rawValue)
                    let black = m.blackLevel[site]
                    sum[ch] += (Double(raw.pixels[y * raw.width + x]) - black) / (m.whiteLevel[0] - black)
                    count[ch] += 1
                } }
                let cam = sum / count
                #expect(abs(cam - chart.cameraValues(patch: p)).max() < 0.6 / (m.whiteLevel[0] - 1100))
                let de = ColorMath.ciede2000(ColorMath.xyzToLab(solution.cameraToXYZD50 * cam),
                                             ColorMath.xyzToLab(chart.expectedXYZD50(patch: p)))
                worst = max(worst, de)
            }
            #expect(worst < (bits == 12 ? 0.3 : 0.08), "\(cfa) \(bits)-bit worst ΔE2000 \(worst)")
            // Patches avoid the crop margin, do not overlap, and sit inside the image.
            for r in chart.patchRects { #expect(PixelRect(x: 8, y: 8, width: 584, height: 384).contains(r)) }
        }
    }

    @Test("White patch sits near 0.8 of clipping; patch data tables are complete")
    func exposure() {
        let chart = SyntheticChart(cfa: .grbg, bitsPerSample: 12, illuminant: ColorMath.d65)
        #expect(SyntheticChart.patchNames.count == 24 && SyntheticChart.referenceSRGB8.count == 24)
        let white = chart.cameraValues(patch: 18).max()
        #expect(white > 0.78 && white < 0.84, "\(white)")
        // The expected XYZ is inside sRGB (all patches come from 8-bit sRGB).
        for p in 0..<24 {
            let rgb = OutputColorSpace.srgb.xyzD50ToLinearRGB * chart.expectedXYZD50(patch: p)
            #expect(rgb.min() >= -1e-9 && rgb.max() <= 0.9 + 1e-9)
            let back = SyntheticChart.referenceSRGB8[p]
            let enc = rgb / SyntheticChart.sceneScale
            #expect(abs(TransferFunction.srgb.encode(enc.x) * 255 - Double(back.x)) < 1e-6)
        }
    }
}
