import DarkroomCore
import DarkroomIO
import DarkroomTestSupport
import Foundation
import Testing

/// Lens corrections through lensfun, checked against lensfun's own database read independently:
/// the test reads the Canon EF 24-105mm f/4L IS USM's calibration from the XML in
/// /usr/share/lensfun, applies the model the lensfun documentation gives (ptlens distortion
/// r_d = r_u (a r_u³ + b r_u² + c r_u + 1 − a − b − c) with r in units of half the shorter image
/// side; pa vignetting 1 + k1 r² + k2 r⁴ + k3 r⁶ with r in units of half the diagonal) to a
/// synthetic scene, writes a DNG with our DNGWriter, and develops it.
@Suite("IO: lens corrections (lensfun)", .serialized)
struct LensCorrectionTests {
    static let databaseFile = "/usr/share/lensfun/version_1/slr-canon.xml"
    static let cameraModel = "Canon EOS 5D Mark II"
    static let lensModel = "Canon EF 24-105mm f/4L IS USM"
    static let focal = 24.0, aperture = 4.0
    static let width = 900, height = 600

    /// The lens's calibration at 24 mm, f/4, 1000 m, from the database XML (full-frame entry).
    struct Calibration { var a, b, c: Double; var k1, k2, k3: Double }

    static func calibration() throws -> Calibration? {
        guard let xml = try? String(contentsOfFile: databaseFile, encoding: .utf8) else { return nil }
        // The full-frame entry: the lens block whose crop factor is 1.
        var block: Substring?
        for part in xml.components(separatedBy: "<lens>").dropFirst() {
            let body = part.components(separatedBy: "</lens>")[0]
            if body.contains("<model>\(lensModel)</model>"), body.contains("<cropfactor>1</cropfactor>") { block = Substring(body); break }
        }
        guard let block else { return nil }
        func attributes(_ tag: String, where required: [String: String]) -> [String: Double]? {
            for line in block.split(separator: "\n") where line.contains("<\(tag) ") {
                var attrs: [String: String] = [:]
                let scanner = line.split(separator: " ").dropFirst()
                for token in scanner {
                    let kv = token.split(separator: "=", maxSplits: 1)
                    guard kv.count == 2 else { continue }
                    attrs[String(kv[0])] = kv[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"/>"))
                }
                if required.allSatisfy({ attrs[$0.key] == $0.value }) {
                    return attrs.compactMapValues(Double.init)
                }
            }
            return nil
        }
        guard let d = attributes("distortion", where: ["model": "ptlens", "focal": "24"]),
              let v = attributes("vignetting", where: ["model": "pa", "focal": "24", "aperture": "4", "distance": "1000"]) else { return nil }
        return Calibration(a: d["a"] ?? 0, b: d["b"] ?? 0, c: d["c"] ?? 0, k1: v["k1"] ?? 0, k2: v["k2"] ?? 0, k3: v["k3"] ?? 0)
    }

    /// A Bayer DNG of a neutral scene `linear(ux, uy)` (0…1, ux/uy in undistorted pixel
    /// coordinates) as the lens records it: distorted by ptlens and darkened by pa.
    static func writeLensDNG(_ path: String, cal: Calibration, width W: Int = width, height H: Int = height,
                             scene: (Double, Double) -> Double) throws {
        var md = SyntheticChart(cfa: .rggb, bitsPerSample: 14, illuminant: ColorMath.d65, width: W, height: H).metadata
        md.defaultCrop = nil
        md.exif.make = "Canon"
        md.exif.model = cameraModel
        md.exif.lensModel = lensModel
        md.exif.focalLength = focal
        md.exif.fNumber = aperture
        md.uniqueCameraModel = "Canon EOS 5D Mark II"
        let neutral = md.asShotNeutral ?? [1, 1, 1]
        let white = md.whiteLevel[0]
        // lensfun's geometry: centre at the middle of the pixel grid, distortion radius 1 = half
        // the shorter side, vignetting radius 1 = half the diagonal (both between pixel centres).
        let cx = Double(W - 1) / 2, cy = Double(H - 1) / 2
        let unit = Double(min(W, H) - 1) / 2
        let halfDiagonal = (cx * cx + cy * cy).squareRoot()
        let d = 1 - cal.a - cal.b - cal.c
        var pixels = [UInt16](repeating: 0, count: W * H)
        for y in 0..<H {
            for x in 0..<W {
                let dx = Double(x) - cx, dy = Double(y) - cy
                let rd = (dx * dx + dy * dy).squareRoot() / unit
                // Undistorted radius: solve r (a r³ + b r² + c r + d) = rd by Newton.
                var ru = rd
                for _ in 0..<20 {
                    let f = ru * (((cal.a * ru + cal.b) * ru + cal.c) * ru + d) - rd
                    let df = ((4 * cal.a * ru + 3 * cal.b) * ru + 2 * cal.c) * ru + d
                    ru -= f / df
                }
                let s = rd > 1e-12 ? ru / rd : 1
                let r2 = (dx * dx + dy * dy) / (halfDiagonal * halfDiagonal)
                let vignette = 1 + cal.k1 * r2 + cal.k2 * r2 * r2 + cal.k3 * r2 * r2 * r2
                let value = scene(cx + dx * s, cy + dy * s) * vignette
                let site = (y & 1) * 2 + (x & 1)
                let ch = Int(md.cfa!.color(x: x, y: y).rawValue)
                let black = md.blackLevel[site]
                pixels[y * W + x] = UInt16(min(max((black + value * neutral[ch] * (white - black)).rounded(), 0), white))
            }
        }
        let raw = RawImage(width: W, height: H, samplesPerPixel: 1, pixels: pixels, metadata: md)
        var options = DNGWriteOptions()
        options.captureTags = true
        try DNGWriter.write(raw, to: path, options: options)
    }

    /// Renders `path` in linear sRGB, 16-bit, no tone curve, noise reduction or sharpening.
    static func render(_ path: String, lens: LensCorrectionSpec, threads: Int = 0, tileSize: Int = 256) throws -> (RenderedImage, DevelopPlan) {
        let raw = try RawDecoder.decode(path: path, options: DecodeOptions())
        var recipe = DevelopRecipe()
        recipe.tone = .linear
        recipe.colorSpace = .srgbLinear
        recipe.bitsPerSample = 16
        recipe.noiseReduction = .off
        recipe.sharpen = .off
        recipe.thumbnailSize = 0
        recipe.lensCorrection = lens
        recipe.threads = threads
        recipe.tileSize = tileSize
        let plan = try PlanBuilder.plan(for: raw, recipe: recipe, path: path)
        return (TileRenderer.render(raw, plan: plan), plan)
    }

    /// Largest distance (px) of a dark line's centre from the straight line fitted to it, over
    /// every line crossing the centre row (vertical lines; `transpose` for horizontal ones), in
    /// the green channel. Centres: darkness-weighted centroid in ±5 px around the previous row's.
    static func maxLineDeviation(_ image: RenderedImage, transpose: Bool) -> (deviation: Double, lines: Int) {
        let W = transpose ? image.height : image.width, H = transpose ? image.width : image.height
        func v(_ x: Int, _ y: Int) -> Double {
            let (px, py) = transpose ? (y, x) : (x, y)
            return Double(image.pixels16[(py * image.width + px) * 3 + 1])
        }
        let margin = 16
        let yc = H / 2
        // Line positions along the centre row: local minima well below their surroundings.
        var starts: [Int] = []
        for x in margin..<(W - margin) {
            let bg = max(v(x - 6, yc), v(x + 6, yc))
            if v(x, yc) < 0.6 * bg, v(x, yc) <= v(x - 1, yc), v(x, yc) < v(x + 1, yc) { starts.append(x) }
        }
        var worst = 0.0
        for x0 in starts {
            var points: [(Double, Double)] = []
            for direction in [-1, 1] {
                var xc = Double(x0)
                var y = direction < 0 ? yc : yc + 1
                while y >= margin && y < H - margin {
                    let xi = Int(xc.rounded())
                    guard xi - 6 >= 0, xi + 6 < W else { break }
                    let bg = (v(xi - 6, y) + v(xi + 6, y)) / 2
                    var sw = 0.0, sx = 0.0
                    for x in (xi - 5)...(xi + 5) {
                        let dark = max(bg - v(x, y), 0)
                        sw += dark; sx += dark * Double(x)
                    }
                    if sw > 0 { xc = sx / sw; points.append((Double(y), xc)) }
                    y += direction
                }
            }
            guard points.count > 100 else { continue }
            // Least-squares x = p + q·y.
            let n = Double(points.count)
            let my = points.map(\.0).reduce(0, +) / n, mx = points.map(\.1).reduce(0, +) / n
            var sxy = 0.0, syy = 0.0
            for (py, px) in points { sxy += (py - my) * (px - mx); syy += (py - my) * (py - my) }
            let q = sxy / syy
            for (py, px) in points { worst = max(worst, abs(px - (mx + q * (py - my)))) }
        }
        return (worst, starts.count)
    }

    /// Dark lines (Gaussian profile, σ 1 px) every 60 px along x (`vertical`) or y, on 0.6 grey.
    static func lines(vertical: Bool) -> (Double, Double) -> Double {
        { x, y in
            let t = vertical ? x : y
            let k = (t / 60).rounded()
            let d = t - 60 * k
            return 0.6 - 0.45 * exp(-d * d / 2)
        }
    }

    @Test(arguments: [true, false])
    func distortedGridComesOutStraight(vertical: Bool) throws {
        guard let cal = try Self.calibration() else { return }   // lensfun database not installed
        let dir = TestSupport.tempDirectory(); defer { TestSupport.cleanup(dir) }
        let path = dir + "/grid.dng"
        try Self.writeLensDNG(path, cal: cal, scene: Self.lines(vertical: vertical))
        let (corrected, plan) = try Self.render(path, lens: .auto)
        let lens = try #require(plan.lens)
        #expect(lens.applied == [.distortion, .tca, .vignetting], "\(lens.explanation)")
        #expect(lens.match?.lensModel == Self.lensModel && lens.match?.cameraModel == Self.cameraModel)
        #expect(lens.match?.distortionModel == "ptlens")
        let fixed = Self.maxLineDeviation(corrected, transpose: !vertical)
        // Lines every 60 px, 16 px margins: 14 across 900 px, 9 across 600 px.
        #expect(fixed.lines >= (vertical ? 14 : 9), "lines found: \(fixed.lines)")
        #expect(fixed.deviation <= 0.5, "corrected: max deviation \(fixed.deviation) px")
        let (uncorrected, _) = try Self.render(path, lens: .off)
        let bent = Self.maxLineDeviation(uncorrected, transpose: !vertical)
        #expect(bent.deviation > 2, "uncorrected: max deviation \(bent.deviation) px")
        print("lens grid (\(vertical ? "vertical" : "horizontal") lines): max deviation \(fixed.deviation) px corrected, \(bent.deviation) px off")
    }

    @Test func vignettedFlatFieldComesOutFlat() throws {
        guard let cal = try Self.calibration() else { return }
        let dir = TestSupport.tempDirectory(); defer { TestSupport.cleanup(dir) }
        let path = dir + "/flat.dng"
        try Self.writeLensDNG(path, cal: cal, scene: { _, _ in 0.5 })
        func spread(_ image: RenderedImage) -> (Double, Double) {
            // Mean green of 9×9 blocks on a 7×5 lattice (corners included, 8 px in) against the centre.
            let w = image.width, h = image.height
            func block(_ cx: Int, _ cy: Int) -> Double {
                var s = 0.0
                for y in (cy - 4)...(cy + 4) { for x in (cx - 4)...(cx + 4) { s += Double(image.pixels16[(y * w + x) * 3 + 1]) } }
                return s / 81
            }
            let centre = block(w / 2, h / 2)
            var lo = Double.infinity, hi = -Double.infinity
            for i in 0..<7 { for j in 0..<5 {
                let r = block(12 + i * (w - 25) / 6, 12 + j * (h - 25) / 4) / centre
                lo = min(lo, r); hi = max(hi, r)
            } }
            return (lo, hi)
        }
        let (corrected, plan) = try Self.render(path, lens: .auto)
        #expect(plan.lens?.correctsVignetting == true)
        let (lo, hi) = spread(corrected)
        #expect(lo >= 0.99 && hi <= 1.01, "corrected flat field: \(lo)…\(hi) of the centre")
        let (off, _) = try Self.render(path, lens: .off)
        let (offLo, _) = spread(off)
        #expect(offLo < 0.7, "uncorrected corners: \(offLo) of the centre")
        print("lens flat field: \(lo)…\(hi) of the centre corrected, corners \(offLo) off")
    }

    @Test func sameBytesForAnyThreadsAndTiles() throws {
        guard let cal = try Self.calibration() else { return }
        let dir = TestSupport.tempDirectory(); defer { TestSupport.cleanup(dir) }
        let path = dir + "/grid.dng"
        try Self.writeLensDNG(path, cal: cal, scene: { x, y in Self.lines(vertical: true)(x, y) * Self.lines(vertical: false)(x, y) / 0.6 })
        let (reference, plan) = try Self.render(path, lens: .auto, threads: 1, tileSize: 256)
        #expect(plan.lens?.isGeometric == true)
        for (threads, tile) in [(2, 256), (2, 64), (2, 100), (1, 16), (2, 37)] {
            let (image, _) = try Self.render(path, lens: .auto, threads: threads, tileSize: tile)
            #expect(image.pixels16 == reference.pixels16, "threads \(threads), tile \(tile)")
        }
        // And the correction changed them.
        let (off, _) = try Self.render(path, lens: .off, threads: 1)
        #expect(off.pixels16 != reference.pixels16)
    }

    @Test func listSelectsCorrections() throws {
        guard let cal = try Self.calibration() else { return }
        let dir = TestSupport.tempDirectory(); defer { TestSupport.cleanup(dir) }
        let path = dir + "/flat.dng"
        try Self.writeLensDNG(path, cal: cal, scene: { _, _ in 0.5 })
        let raw = try RawDecoder.decode(path: path, options: DecodeOptions())
        for (spec, applied) in [(LensCorrectionSpec.only([.vignetting]), Set([LensCorrectionKind.vignetting])),
                                (.only([.distortion, .tca]), [.distortion, .tca]), (.off, [])] {
            var recipe = DevelopRecipe()
            recipe.lensCorrection = spec
            let plan = try PlanBuilder.plan(for: raw, recipe: recipe, path: path)
            #expect(plan.lens?.applied == applied, "\(spec.text)")
            #expect(plan.explanation.contains { $0.hasPrefix("lens correction: \(spec.text)") })
        }
    }

    /// The focus distance comes from XMP aux:ApproximateFocusDistance (attribute or element,
    /// rational or decimal; 4294967295/1 is infinity), else 1000 m is assumed.
    @Test(arguments: [
        ("<rdf:Description aux:ApproximateFocusDistance=\"148/100\"/>", 1.48, false),
        ("<aux:ApproximateFocusDistance>2.7</aux:ApproximateFocusDistance>", 2.7, false),
        ("<rdf:Description aux:ApproximateFocusDistance=\"4294967295/1\"/>", 1000, false),
        ("<rdf:Description aux:ApproximateFocusDistance=\"0/0\"/>", 1000, true),
        ("<rdf:Description aux:Lens=\"x\"/>", 1000, true),
    ])
    func focusDistanceFromXMP(xmp: String, metres: Double, assumed: Bool) throws {
        guard FileManager.default.fileExists(atPath: Self.databaseFile) else { return }
        var raw = SyntheticChart(cfa: .rggb, bitsPerSample: 12, illuminant: ColorMath.d65, width: 60, height: 40).makeRawImage()
        raw.metadata.exif.make = "Canon"
        raw.metadata.exif.model = Self.cameraModel
        raw.metadata.exif.lensModel = Self.lensModel
        raw.metadata.exif.focalLength = Self.focal
        raw.metadata.exif.fNumber = Self.aperture
        raw.metadata.exif.xmp = xmp
        let match = try #require(try PlanBuilder.plan(for: raw, recipe: DevelopRecipe(), path: "x.dng").lens?.match)
        #expect(abs(match.distanceMetres - metres) < 1e-9 && match.distanceAssumed == assumed, "\(match)")
    }

    /// Writes the 24 MP lens benchmark file (6000×4000, the grid scene, distorted and vignetted
    /// by the EF 24-105mm at 24 mm on a Canon EOS 5D Mark II) to `DARKROOM_LENS_BENCH=PATH`;
    /// disabled otherwise. README "Lens corrections" times `darkroom develop` on it.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["DARKROOM_LENS_BENCH"] != nil))
    func writeBenchmarkFile() throws {
        guard let path = ProcessInfo.processInfo.environment["DARKROOM_LENS_BENCH"], let cal = try Self.calibration() else { return }
        try Self.writeLensDNG(path, cal: cal, width: 6000, height: 4000,
                              scene: { x, y in Self.lines(vertical: true)(x, y) * Self.lines(vertical: false)(x, y) / 0.6 })
        #expect(FileManager.default.fileExists(atPath: path))
    }

    /// Files without a matching lens get nothing, and `explain` says why.
    @Test func noMatchMeansNothing() throws {
        let raw = SyntheticChart(cfa: .rggb, bitsPerSample: 12, illuminant: ColorMath.d65, width: 60, height: 40).makeRawImage()
        let plan = try PlanBuilder.plan(for: raw, recipe: DevelopRecipe(), path: "chart.dng")
        #expect(plan.lens?.isActive == false)
        #expect(plan.explanation.contains("lens correction: auto → none (no lens model in the metadata)"))
        var unknown = raw
        unknown.metadata.exif.lensModel = "Nonexistent 17-19mm f/9 Wobble"
        unknown.metadata.exif.make = "Canon"
        unknown.metadata.exif.model = Self.cameraModel
        unknown.metadata.exif.focalLength = 18
        let p2 = try PlanBuilder.plan(for: unknown, recipe: DevelopRecipe(), path: "x.dng")
        #expect(p2.lens?.isActive == false)
        if FileManager.default.fileExists(atPath: Self.databaseFile) {
            #expect(p2.lens?.reason?.contains("not in the lensfun database") == true, "\(p2.lens?.reason ?? "nil")")
        }
    }

    /// A DNG whose writer corrected the lens (a WarpRectilinear in OpcodeList3) is left alone by `auto`.
    @Test func dngWithWarpOpcodeIsNotCorrectedTwice() throws {
        guard FileManager.default.fileExists(atPath: Self.databaseFile) else { return }
        var raw = SyntheticChart(cfa: .rggb, bitsPerSample: 12, illuminant: ColorMath.d65, width: 60, height: 40).makeRawImage()
        raw.metadata.exif.make = "Canon"
        raw.metadata.exif.model = Self.cameraModel
        raw.metadata.exif.lensModel = Self.lensModel
        raw.metadata.exif.focalLength = Self.focal
        raw.metadata.exif.fNumber = Self.aperture
        #expect(try PlanBuilder.plan(for: raw, recipe: DevelopRecipe(), path: "x.dng").lens?.isActive == true)
        // WarpRectilinear (id 1), DNG 1.7 §7: one plane, kr0 = 1, everything else 0, centre ½,½.
        var list: [UInt8] = []
        func u32(_ v: UInt32) { list += [UInt8(v >> 24), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }
        func f64(_ v: Double) { let b = v.bitPattern; for s in stride(from: 56, through: 0, by: -8) { list.append(UInt8(b >> UInt64(s) & 255)) } }
        u32(1)                       // count
        u32(1); u32(0x0103_0000); u32(1); u32(4 + 6 * 8 + 16)   // id, version 1.3.0.0, flags (optional), size
        u32(1)                       // planes
        for v in [1.0, 0, 0, 0, 0, 0] { f64(v) }
        f64(0.5); f64(0.5)
        raw.metadata.opcodeList3 = list
        let plan = try PlanBuilder.plan(for: raw, recipe: DevelopRecipe(), path: "x.dng")
        #expect(plan.lens?.isActive == false)
        #expect(plan.lens?.reason == "the file's OpcodeList3 WarpRectilinear already corrects the lens", "\(plan.lens?.reason ?? "nil")")
        // An explicit list still corrects.
        var recipe = DevelopRecipe()
        recipe.lensCorrection = .only([.distortion])
        #expect(try PlanBuilder.plan(for: raw, recipe: recipe, path: "x.dng").lens?.applied == [.distortion])
    }
}
