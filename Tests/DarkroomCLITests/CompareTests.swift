import DarkroomCore
@testable import DarkroomIO
import DarkroomTestSupport
import Foundation
import Testing

/// `darkroom compare` on synthetic chart DNGs whose truth is known: the Luther camera
/// (`SyntheticChart.Camera(linear: true)`) is exactly what its DNG colour model says.
@Suite("Compare")
struct CompareTests {
    static let babelColorD50xyY = PublishedData.babelColorD50xyY
    static var babelColorXYZ: [SIMD3<Double>] {
        babelColorD50xyY.map { SIMD3($0.x * $0.z / $0.y, $0.z, (1 - $0.x - $0.y) * $0.z / $0.y) }
    }

    /// A CGATS `.cie` with the BabelColor XYZ (0…100), ids A1…F4 listed in reverse to check matching by id.
    static func writeReference(in dir: String) throws -> String {
        var s = "CTI3\nDESCRIPTOR \"BabelColor average, D50\"\nNUMBER_OF_FIELDS 4\nBEGIN_DATA_FORMAT\nSAMPLE_ID XYZ_X XYZ_Y XYZ_Z\nEND_DATA_FORMAT\n"
        s += "NUMBER_OF_SETS 24\nBEGIN_DATA\n"
        let xyz = babelColorXYZ
        for i in (0..<24).reversed() {
            let id = ["A", "B", "C", "D", "E", "F"][i % 6] + String(i / 6 + 1)
            s += "\(id) \(xyz[i].x * 100) \(xyz[i].y * 100) \(xyz[i].z * 100)\n"
        }
        s += "END_DATA\n"
        let path = dir + "/babel.cie"
        try s.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func lutherChart(bits: Int = 16, cfa: CFAPattern = .rggb) -> SyntheticChart {
        SyntheticChart(cfa: cfa, bitsPerSample: bits, illuminant: ColorMath.d65, camera: SyntheticChart.Camera(linear: true))
    }

    /// The patch grid's corners in the developed image (DefaultCrop inset 8 px, orientation 1).
    static func corners(_ chart: SyntheticChart) -> [SIMD2<Double>] {
        let r = chart.patchRects
        let x0 = Double(r[0].x - 8), y0 = Double(r[0].y - 8), x1 = Double(r[23].maxX - 8), y1 = Double(r[23].maxY - 8)
        return [SIMD2(x0, y0), SIMD2(x1, y0), SIMD2(x1, y1), SIMD2(x0, y1)]
    }

    // MARK: The independent computation (no Darkroom colour code below this line)

    /// CIELAB of XYZ relative to the D50 white (CIE 15:2004 eqs. 8.1–8.3).
    static func lab(_ v: SIMD3<Double>) -> SIMD3<Double> {
        let white = SIMD3(0.34567 / 0.35850, 1, (1 - 0.34567 - 0.35850) / 0.35850)
        let t = v / white
        func f(_ x: Double) -> Double { x > pow(6.0 / 29, 3) ? pow(x, 1.0 / 3) : x / (3 * pow(6.0 / 29, 2)) + 4.0 / 29 }
        return SIMD3(116 * f(t.y) - 16, 500 * (f(t.x) - f(t.y)), 200 * (f(t.y) - f(t.z)))
    }

    /// CIEDE2000 written from Sharma, Wu & Dalal (2005), eqs. 1–22, in radians throughout.
    static func de2000(_ p: SIMD3<Double>, _ q: SIMD3<Double>) -> Double {
        let cAvg = (hypot(p.y, p.z) + hypot(q.y, q.z)) / 2
        let g = 0.5 * (1 - sqrt(pow(cAvg, 7) / (pow(cAvg, 7) + 6103515625)))
        let ap = SIMD2(p.y * (1 + g), q.y * (1 + g))
        let c1 = hypot(ap.x, p.z), c2 = hypot(ap.y, q.z)
        func h(_ b: Double, _ a: Double) -> Double { (a == 0 && b == 0) ? 0 : { let x = atan2(b, a); return x < 0 ? x + 2 * .pi : x }() }
        let h1 = h(p.z, ap.x), h2 = h(q.z, ap.y)
        var dh = h2 - h1
        if c1 * c2 == 0 { dh = 0 } else if dh > .pi { dh -= 2 * .pi } else if dh < -.pi { dh += 2 * .pi }
        let dL = q.x - p.x, dC = c2 - c1, dH = 2 * sqrt(c1 * c2) * sin(dh / 2)
        let lAvg = (p.x + q.x) / 2, cpAvg = (c1 + c2) / 2
        var hAvg = h1 + h2
        if c1 * c2 != 0 {
            hAvg = abs(h1 - h2) <= .pi ? (h1 + h2) / 2 : (h1 + h2 < 2 * .pi ? (h1 + h2 + 2 * .pi) / 2 : (h1 + h2 - 2 * .pi) / 2)
        }
        let deg = Double.pi / 180
        let t = 1 - 0.17 * cos(hAvg - 30 * deg) + 0.24 * cos(2 * hAvg) + 0.32 * cos(3 * hAvg + 6 * deg) - 0.2 * cos(4 * hAvg - 63 * deg)
        let dTheta = 30 * deg * exp(-pow((hAvg / deg - 275) / 25, 2))
        let rc = 2 * sqrt(pow(cpAvg, 7) / (pow(cpAvg, 7) + 6103515625))
        let sl = 1 + 0.015 * pow(lAvg - 50, 2) / sqrt(20 + pow(lAvg - 50, 2))
        let sc = 1 + 0.045 * cpAvg, sh = 1 + 0.015 * cpAvg * t
        let rt = -sin(2 * dTheta) * rc
        return sqrt(pow(dL / sl, 2) + pow(dC / sc, 2) + pow(dH / sh, 2) + rt * (dC / sc) * (dH / sh))
    }

    /// The independent CIEDE2000 reproduces Sharma et al.'s published pairs (so it is a reference).
    @Test func independentCIEDE2000MatchesSharma() {
        let pairs: [(SIMD3<Double>, SIMD3<Double>, Double)] = [
            (SIMD3(50, 2.6772, -79.7751), SIMD3(50, 0, -82.7485), 2.0425),
            (SIMD3(50, 2.49, -0.001), SIMD3(50, -2.49, 0.0011), 7.2195),
            (SIMD3(50, 2.5, 0), SIMD3(73, 25, -18), 27.1492),
            (SIMD3(60.2574, -34.0099, 36.2677), SIMD3(60.4626, -34.1751, 39.4387), 1.2644),
            (SIMD3(22.7233, 20.0904, -46.694), SIMD3(23.0331, 14.973, -42.5619), 2.0373),
            (SIMD3(6.7747, -0.2908, -2.4247), SIMD3(5.8714, -0.0985, -2.2286), 0.6377),
            (SIMD3(2.0776, 0.0795, -1.135), SIMD3(0.9033, -0.0636, -0.5514), 0.9082),
        ]
        for (a, b, e) in pairs { #expect(abs(Self.de2000(a, b) - e) < 5e-5) }
    }

    /// What the synthetic camera recorded for a patch, decoded as the DNG specification says
    /// (chapter 5: (code − BlackLevel of the site) / (WhiteLevel − the largest BlackLevel)), the
    /// two green sites averaged — read from the mosaic itself.
    static func decodedCamera(_ chart: SyntheticChart, raw: RawImage, patch: Int) -> SIMD3<Double> {
        let r = chart.patchRects[patch]
        let x = (r.x + r.width / 2) & ~1, y = (r.y + r.height / 2) & ~1   // an even position: site = (y & 1) << 1 | (x & 1)
        let range = Double(chart.whiteLevel - (chart.blackLevels.max() ?? 0))
        var sum = SIMD3<Double>(0, 0, 0), n = SIMD3<Double>(0, 0, 0)
        for dy in 0..<2 { for dx in 0..<2 {
            let site = dy << 1 | dx
            let ch = Int(chart.cfa.color(x: x + dx, y: y + dy).rawValue)
            let v = (Double(raw.pixels[(y + dy) * chart.width + x + dx]) - Double(chart.blackLevels[site])) / range
            sum[ch] += v; n[ch] += 1
        } }
        return sum / n
    }

    /// compare's ΔE2000 per patch = the independent computation within 1e-3: camera values from the
    /// mosaic, XYZ through the inverse of the chart's scene → camera matrix (what the Luther camera
    /// is), white-patch normalisation, Lab and CIEDE2000 as written above, against BabelColor's
    /// published D50 values from a CGATS file. The scene white is given as the chart's exact
    /// illuminant (`--illuminant x,y`): as shot, the render's white comes from AsShotNeutral, which
    /// the DNG stores rounded to 1e-4, and that moves XYZ by up to 4e-5 (ΔE2000 up to 0.01; checked
    /// with that tolerance).
    @Test(arguments: [(16, CFAPattern.rggb), (14, .gbrg), (12, .bggr)])
    func patchDeltaEMatchesIndependentComputation(bits: Int, cfa: CFAPattern) throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let chart = Self.lutherChart(bits: bits, cfa: cfa)
        let raw = chart.makeRawImage()
        let dng = dir + "/chart.dng"
        try DNGWriter.write(raw, to: dng)
        var o = CompareOptions(files: [dng], outputDirectory: dir + "/out")
        o.chart = .corners(Self.corners(chart))
        o.illuminants = [.chromaticity(chart.illuminant), .asShot]
        let report = try CompareRunner.run(o, reference: try ChartReference.load(try Self.writeReference(in: dir)))
        #expect(report.runs.count == 2)
        let stage = try #require(report.runs.first?.stages.last)
        let asShot = try #require(report.runs.last?.stages.last)
        #expect(report.runs.first?.stages.count == 1)   // no tables: matrix only

        let toXYZ = try #require(chart.xyzD50ToCamera.inverse)
        let measured = (0..<24).map { toXYZ * Self.decodedCamera(chart, raw: raw, patch: $0) }
        let reference = Self.babelColorXYZ
        let k = reference[18].y / measured[18].y
        var worst = 0.0
        for i in 0..<24 {
            let expected = Self.de2000(Self.lab(reference[i]), Self.lab(k * measured[i]))
            let p = stage.patches[i]
            worst = max(worst, abs(p.deltaE2000 - expected))
            #expect(abs(p.deltaE2000 - expected) < 1e-3, "\(p.id) \(p.name): compare \(p.deltaE2000), independent \(expected)")
            #expect(abs(asShot.patches[i].deltaE2000 - expected) < 0.01)
            #expect(p.id == ColorCheckerClassic.ids[i])
            for c in 0..<3 { #expect(abs(p.referenceXYZ[c] - reference[i][c]) < 1e-6) }
        }
        #expect(worst < 1e-3)
        // The summary is the statistics of those values.
        let values = stage.patches.map(\.deltaE2000)
        #expect(abs(stage.summary.mean - values.reduce(0, +) / 24) < 1e-6)
        #expect(abs(stage.summary.max - (values.max() ?? 0)) < 1e-9)
        #expect(stage.summary.worst.count == 5)
    }

    /// Against the chart's own truth (a CGATS file holding `SyntheticChart.colorimetricXYZD50`) the
    /// Luther camera measures ΔE2000 ≈ 0, and the least-squares scale undoes the chart's exposure
    /// (`sceneScale`). What is left (< 0.03): the chart encodes each CFA site against its own black
    /// level while DNG linearisation divides by white − the largest black (a per-site gain error
    /// up to 0.1 %), and 16-bit quantisation.
    @Test func lutherCameraRecoversTheTruth() throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let chart = Self.lutherChart()
        let dng = dir + "/chart.dng"
        try DNGWriter.write(chart.makeRawImage(), to: dng)
        var text = "CTI3\nBEGIN_DATA_FORMAT\nSAMPLE_ID LAB_L LAB_A LAB_B\nEND_DATA_FORMAT\nBEGIN_DATA\n"
        for i in 0..<24 {
            let l = Self.lab(SyntheticChart.colorimetricXYZD50(patch: i))
            text += "\(ColorCheckerClassic.ids[i]) \(l.x) \(l.y) \(l.z)\n"
        }
        text += "END_DATA\n"
        try text.write(toFile: dir + "/truth.txt", atomically: true, encoding: .utf8)
        var o = CompareOptions(files: [dng], outputDirectory: dir + "/out")
        o.chart = .corners(Self.corners(chart))
        o.normalisation = .scale
        o.illuminants = [.chromaticity(chart.illuminant)]
        let report = try CompareRunner.run(o, reference: try ChartReference.load(dir + "/truth.txt"))
        let stage = try #require(report.runs.first?.stages.last)
        #expect(stage.summary.max < 0.03, "max ΔE2000 \(stage.summary.max)")
        #expect(abs(stage.scale - 1 / SyntheticChart.sceneScale) < 1e-3)
    }

    /// The render threads never change a byte of the report; a perspective-warped corner set
    /// (still inside the patches) measures the same means.
    @Test func reportIsIdenticalForAnyThreadCount() throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let chart = Self.lutherChart(bits: 14)
        let dng = dir + "/chart.dng"
        try DNGWriter.write(chart.makeRawImage(), to: dng)
        var bytes: [[UInt8]] = []
        for threads in [1, 3] {
            var o = CompareOptions(files: [dng], outputDirectory: dir)
            o.chart = .corners(Self.corners(chart))
            o.threads = threads
            o.illuminants = [.asShot, .standard("D65")]
            let report = try CompareRunner.run(o, reference: .colorChecker24)
            bytes.append(try report.jsonBytes() + report.csvBytes())
        }
        #expect(bytes[0] == bytes[1])
    }

    /// Two profiles ranked: the file's own beats a `.dcp` with a deliberately wrong ColorMatrix.
    @Test func rankingPutsTheBetterProfileFirst() throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let chart = Self.lutherChart(bits: 14)
        let dng = dir + "/chart.dng"
        try DNGWriter.write(chart.makeRawImage(), to: dng)
        // A .dcp: a DNGWriter file with the DCP magic, its ColorMatrix2 skewed.
        var bad = chart.makeRawImage()
        var skewed = try #require(bad.metadata.profile)
        skewed.name = "Skewed"
        let cm = try #require(skewed.colorMatrix2)
        skewed.colorMatrix2 = Matrix3([1.08, 0.05, -0.02, -0.03, 0.97, 0.04, 0.02, -0.06, 1.1]) * cm
        skewed.colorMatrix1 = skewed.colorMatrix2
        bad.metadata.profile = skewed
        let dcp = dir + "/skewed.dcp"
        try DNGWriter.write(bad, to: dcp)
        var b = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dcp)))
        b[2] = 0x52; b[3] = 0x43
        try Data(b).write(to: URL(fileURLWithPath: dcp))

        var o = CompareOptions(files: [dng], outputDirectory: dir + "/out")
        o.chart = .corners(Self.corners(chart))
        o.profiles = [dcp, "embedded"]
        o.reference = "colorchecker24"
        let report = try CompareRunner.run(o, reference: .colorChecker24)
        #expect(report.runs.count == 2)
        #expect(report.ranking.map(\.profile) == ["Darkroom Synthetic", "Skewed"])
        #expect(report.ranking[0].mean < report.ranking[1].mean)
        let files = try CompareOutput.files(report)
        #expect(files.map(\.0) == ["report.json", "patches.csv", "chart-as_shot.ti3", "swatches-1.png", "swatches-2.png", "index.html"])
        try CompareOutput.write(files, directory: dir + "/out", overwrite: false)
        // The .ti3 reads back as CGATS with 24 patches; a second write refuses to overwrite.
        let ti3 = try CGATSFile(text: String(contentsOfFile: dir + "/out/chart-as_shot.ti3", encoding: .utf8))
        #expect(ti3.rows.count == 24 && ti3.fields == ["SAMPLE_ID", "RGB_R", "RGB_G", "RGB_B", "XYZ_X", "XYZ_Y", "XYZ_Z"])
        #expect(throws: CompareError.self) { try CompareOutput.write(files, directory: dir + "/out", overwrite: false) }
        let csvLines = try String(contentsOfFile: dir + "/out/patches.csv", encoding: .utf8).split(separator: "\n")
        #expect(csvLines.count == 1 + 2 * 24)

        // The swatch PNG reads back with libpng (PNGReader): each patch's left half is the
        // reference sRGB, its right half the measured sRGB.
        let png = try PNGReader.read(contentsOf: dir + "/out/swatches-1.png")
        #expect(png.width == 6 * 72 + 8 && png.height == 4 * 72 + 8 && png.channels == 3)
        let patches = report.runs[0].stages[0].patches
        for i in [0, 7, 14, 18, 23] {
            let x0 = 8 + (i % 6) * 72, y0 = 8 + (i / 6) * 72
            func hex(_ x: Int, _ y: Int) -> String {
                let o = (y * png.width + x) * 3
                return String(format: "%02x%02x%02x", png.pixels[o], png.pixels[o + 1], png.pixels[o + 2])
            }
            #expect(hex(x0 + 10, y0 + 30) == patches[i].referenceSRGB)
            #expect(hex(x0 + 50, y0 + 30) == patches[i].measuredSRGB)
        }
        // The page: one ranking table with both profiles in rank order, one a*b* plot and one
        // swatch per run.
        let html = try String(contentsOfFile: dir + "/out/index.html", encoding: .utf8)
        let first = try #require(html.range(of: "<td class=\"l\">Darkroom Synthetic</td>"))
        let second = try #require(html.range(of: "<td class=\"l\">Skewed</td>"))
        #expect(first.lowerBound < second.lowerBound)
        #expect(html.components(separatedBy: "<svg class=\"ab\"").count == 3)
        #expect(html.contains("src=\"swatches-2.png\""))
        #expect(html.components(separatedBy: "<circle").count - 1 == 2 * 2 * 24)
    }

    /// A profile with HueSatMaps gets a matrix-only and a +HueSatMap stage, and they differ.
    @Test func tableStagesAreSplit() throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        var camera = SyntheticChart.Camera(linear: true)
        camera.third = .init(illuminant: 23)
        camera.hueSatMaps = true
        let chart = SyntheticChart(cfa: .rggb, bitsPerSample: 14, illuminant: ColorMath.d65, camera: camera)
        let dng = dir + "/chart.dng"
        try DNGWriter.write(chart.makeRawImage(), to: dng)
        var o = CompareOptions(files: [dng], outputDirectory: dir)
        o.chart = .corners(Self.corners(chart))
        let report = try CompareRunner.run(o, reference: .colorChecker24)
        let stages = try #require(report.runs.first?.stages)
        #expect(stages.map(\.stage) == ["matrix", "hue-sat-map"])
        #expect(stages[0].summary.mean != stages[1].summary.mean)
        // Neutral patches are untouched by the table (its grey column is the identity).
        #expect(abs(stages[0].patches[20].deltaE2000 - stages[1].patches[20].deltaE2000) < 0.05)
    }

    /// Bad input: one line naming the flag or file, exit 2 for usage (an unusable option file included) and 1 for files, nothing written.
    @Test func errorsAreOneLineWithTheRightStatus() throws {
        guard CLIProcess.binary != nil else { return }
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let chart = Self.lutherChart(bits: 12)
        let dng = dir + "/chart.dng"
        try DNGWriter.write(chart.makeRawImage(), to: dng)
        let c = Self.corners(chart).flatMap { [$0.x, $0.y] }.map { String(Int($0)) }.joined(separator: ",")
        let cases: [([String], Int32, String)] = [
            ([dng, "--chart", "1,2,3", "-o", dir + "/o"], 2, "--chart"),
            ([dng, "--illuminant", "purple", "-o", dir + "/o"], 2, "--illuminant"),
            ([dng, "--normalise", "max", "-o", dir + "/o"], 2, "--normalise"),
            ([dng, "--chart", c], 2, "-o REPORTDIR"),
            ([dir + "/missing.dng", "--chart", c, "-o", dir + "/o"], 1, dir + "/missing.dng"),
            ([dng, "--chart", "0,0,5000,0,5000,5000,0,5000", "-o", dir + "/o"], 1, "outside the image"),
            ([dng, "--chart", c, "--reference", dir + "/nope.cie", "-o", dir + "/o"], 2, dir + "/nope.cie"),
            ([dng, "--chart", c, "--profile", dng + ".dcp", "-o", dir + "/o"], 2, dng + ".dcp"),
        ]
        for (args, status, mention) in cases {
            let r = try CLIProcess.run(["compare"] + args)
            #expect(r.status == status, "\(args): \(r.stderr)")
            #expect(r.errorLines.count == 1 && r.stderr.contains(mention), "\(args): \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/o/report.json"))
        let ok = try CLIProcess.run(["compare", dng, "--chart", c, "--illuminant", "D65", "--illuminant", "A", "-o", dir + "/o"])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir + "/o/report.json"))
        #expect(FileManager.default.fileExists(atPath: dir + "/o/chart-A.ti3"))
    }

    @Test func cgatsParsing() throws {
        let f = try CGATSFile(text: "CGATS.17\nORIGINATOR \"x y\" z\n# comment\nBEGIN_DATA_FORMAT\nSAMPLE_ID SAMPLE_NAME LAB_L\nEND_DATA_FORMAT\nBEGIN_DATA\n1 \"dark skin\" 37.5\n2 x 65\nEND_DATA\n")
        #expect(f.fields == ["SAMPLE_ID", "SAMPLE_NAME", "LAB_L"])
        #expect(f.rows == [["1", "dark skin", "37.5"], ["2", "x", "65"]])
        #expect(f.header.first(where: { $0.key == "ORIGINATOR" })?.value == "x y z")
        #expect(throws: CGATSFile.ParseError.self) { try CGATSFile(text: "BEGIN_DATA_FORMAT\nA B\nEND_DATA_FORMAT\nBEGIN_DATA\n1\nEND_DATA\n") }
        #expect(throws: CGATSFile.ParseError.self) { try CGATSFile(text: "hello") }
        #expect(throws: CompareError.self) { try ChartReference.fromCGATS(f, path: "x.txt") }
    }

    @Test func optionParsing() {
        #expect(CompareIlluminant(parsing: "as-shot") == .asShot)
        #expect(CompareIlluminant(parsing: "d65") == .standard("D65"))
        #expect(CompareIlluminant(parsing: "3200K") == .kelvin(3200))
        #expect(CompareIlluminant(parsing: "0.3457,0.3585") == .chromaticity(Chromaticity(x: 0.3457, y: 0.3585)))
        #expect(CompareIlluminant(parsing: "0.9,0.3") == nil)
        #expect(CompareIlluminant(parsing: "99999") == nil)
        #expect(ChartLocation(parsing: "auto") == .auto)
        #expect(ChartLocation(parsing: "1,2,3,4,5,6,7,8") == .corners([SIMD2(1, 2), SIMD2(3, 4), SIMD2(5, 6), SIMD2(7, 8)]))
        #expect(ChartLocation(parsing: "1,2,3,4,5,6,7,nan") == nil)
        #expect(ChartLocation(parsing: "1,2,3,4,5,6,7,-8") == nil)
    }
}
