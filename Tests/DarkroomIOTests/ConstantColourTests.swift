import DarkroomCore
@testable import DarkroomIO
import DarkroomTestSupport
import Foundation
import Testing

/// The truth the generator (Tests/Generators/constant_colour_pairs.py) wrote beside a pair in
/// Tests/ConstantColourPairs: patch XYZ under D65 (colour-science's spectral integration), the
/// per-pixel patch labels, flash/ambient ratio and masks.
struct ConstantColourTruth {
    static let folder = TestSupport.packageRoot.appendingPathComponent("Tests/ConstantColourPairs")
    let name: String
    let width: Int, height: Int
    let patchXYZ: [SIMD3<Double>]
    let gapXYZ: SIMD3<Double>
    let flashXY: Chromaticity
    let labels: [UInt8]
    let ratio: [Float]
    let mask: [UInt8]

    var ambientPath: String { Self.folder.appendingPathComponent("\(name)-ambient.dng").path }
    var flashPath: String { Self.folder.appendingPathComponent("\(name)-flash.dng").path }

    init(_ name: String) throws {
        self.name = name
        func data(_ suffix: String) throws -> Data { try Data(contentsOf: Self.folder.appendingPathComponent(name + suffix)) }
        let json = try JSONSerialization.jsonObject(with: try data(".json")) as? [String: Any] ?? [:]
        width = json["width"] as? Int ?? 0
        height = json["height"] as? Int ?? 0
        patchXYZ = (json["patch_xyz_d65"] as? [[Double]] ?? []).map { SIMD3($0[0], $0[1], $0[2]) }
        let g = json["gap_xyz_d65"] as? [Double] ?? [0, 0, 0]
        gapXYZ = SIMD3(g[0], g[1], g[2])
        let xy = json["flash_xy"] as? [Double] ?? [0, 0]
        flashXY = Chromaticity(x: xy[0], y: xy[1])
        labels = [UInt8](try data(".labels.u8"))
        mask = [UInt8](try data(".mask.u8"))
        let r = try data(".ratio.f32")
        ratio = r.withUnsafeBytes { b in (0..<(r.count / 4)).map { Float(bitPattern: UInt32(littleEndian: b.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) } }
    }

    /// The 8×8 blocks (aligned at 0) lying inside one patch.
    struct Block { var x: Int, y: Int, label: Int, minRatio: Float, maxRatio: Float, masked: Bool }
    var blocks: [Block] {
        var out: [Block] = []
        for by in stride(from: 0, to: height - 7, by: 8) {
            for bx in stride(from: 0, to: width - 7, by: 8) {
                let l = labels[by * width + bx]
                guard l != 255 else { continue }
                var same = true, lo = Float.infinity, hi = -Float.infinity, masked = false
                for y in by..<(by + 8) { for x in bx..<(bx + 8) {
                    let i = y * width + x
                    if labels[i] != l { same = false }
                    lo = min(lo, ratio[i]); hi = max(hi, ratio[i])
                    if mask[i] != 0 { masked = true }
                } }
                if same { out.append(Block(x: bx, y: by, label: Int(l), minRatio: lo, maxRatio: hi, masked: masked)) }
            }
        }
        return out
    }

    /// ΔE2000 of an estimate against the truth for one block: the block's mean estimated XYZ (D65)
    /// keeps its chromaticity and takes the truth's luminance (luminance matched, chroma averaged
    /// over the 8×8 px); Lab relative to the D65 white.
    func deltaE(meanXYZ est: SIMD3<Double>, label: Int) -> Double { deltaE(meanXYZ: est, truthXYZ: patchXYZ[label]) }

    func deltaE(meanXYZ est: SIMD3<Double>, truthXYZ truth: SIMD3<Double>) -> Double {
        let s = est.x + est.y + est.z
        guard s > 0, est.y > 0 else { return 100 }
        let xy = Chromaticity(x: est.x / s, y: est.y / s)
        let matched = ColorMath.xyToXYZ(xy, Y: truth.y)
        return ColorMath.ciede2000(ColorMath.xyzToLab(matched, white: ColorMath.d65), ColorMath.xyzToLab(truth, white: ColorMath.d65))
    }

    static func median(_ v: [Double]) -> Double {
        let s = v.sorted()
        guard !s.isEmpty else { return .nan }
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
}

/// Spearman rank correlation (average ranks for ties).
func spearman(_ a: [Double], _ b: [Double]) -> Double {
    func ranks(_ v: [Double]) -> [Double] {
        let order = v.indices.sorted { v[$0] < v[$1] }
        var r = [Double](repeating: 0, count: v.count)
        var i = 0
        while i < order.count {
            var j = i
            while j + 1 < order.count, v[order[j + 1]] == v[order[i]] { j += 1 }
            for k in i...j { r[order[k]] = Double(i + j) / 2 }
            i = j + 1
        }
        return r
    }
    let ra = ranks(a), rb = ranks(b)
    let n = Double(a.count)
    let ma = ra.reduce(0, +) / n, mb = rb.reduce(0, +) / n
    var sab = 0.0, saa = 0.0, sbb = 0.0
    for i in ra.indices { sab += (ra[i] - ma) * (rb[i] - mb); saa += (ra[i] - ma) * (ra[i] - ma); sbb += (rb[i] - mb) * (rb[i] - mb) }
    return sab / (saa * sbb).squareRoot()
}

@Suite("ConstantColour")
struct ConstantColourTests {
    static func solved(_ name: String, maxShift: Int = 16, parameters: ConstantColourParameters = .init()) throws -> (ConstantColourTruth, ConstantColourDeveloper.Solved) {
        let truth = try ConstantColourTruth(name)
        var o = ConstantColourOptions()
        o.parameters = parameters
        o.parameters.maxShift = maxShift
        o.threads = 2
        return (truth, try ConstantColourDeveloper.solve(ambient: truth.ambientPath, flash: truth.flashPath, options: o))
    }

    static func blockMeanXYZ(_ r: ConstantColourResult, _ b: ConstantColourTruth.Block) -> SIMD3<Double> {
        var s = SIMD3<Double>(0, 0, 0)
        for y in b.y..<(b.y + 8) { for x in b.x..<(b.x + 8) {
            let i = 3 * (y * r.width + x)
            s += SIMD3(Double(r.xyzD65[i]), Double(r.xyzD65[i + 1]), Double(r.xyzD65[i + 2]))
        } }
        return s / 64
    }

    static func blockMeanConfidence(_ r: ConstantColourResult, _ b: ConstantColourTruth.Block) -> Double {
        var s = 0.0
        for y in b.y..<(b.y + 8) { for x in b.x..<(b.x + 8) { s += Double(r.confidence[y * r.width + x]) } }
        return s / 64
    }

    /// Median ΔE2000 where flash ≥ ambient (every pixel of the block, no masks) ≤ 2.0; the best
    /// single global white balance of the ambient frame (searched over 2000–12000 K × tint ±50,
    /// the oracle that knows the truth) gives ≈ 3.5 on the same blocks.
    @Test func deltaEAgainstTruthBeatsTheBestGlobalWhiteBalance() throws {
        let (truth, s) = try Self.solved("mixed")
        let blocks = truth.blocks.filter { $0.minRatio >= 1 && !$0.masked }
        #expect(blocks.count >= 40)
        let ours = ConstantColourTruth.median(blocks.map { truth.deltaE(meanXYZ: Self.blockMeanXYZ(s.result, $0), label: $0.label) })

        // Best global WB: ambient camera RGB → XYZ D50 (the ambient file's own DNG colour model at
        // white xy) → Bradford → D65.
        let a = s.ambient.frame
        let n = a.width * a.height
        let cam = blocks.map { b -> SIMD3<Double> in
            var m = SIMD3<Double>(0, 0, 0)
            for y in b.y..<(b.y + 8) { for x in b.x..<(b.x + 8) {
                let i = y * a.width + x
                m += SIMD3(Double(a.rgb[i]), Double(a.rgb[n + i]), Double(a.rgb[2 * n + i]))
            } }
            return m / 64
        }
        let model = try DNGColorModel(metadata: s.ambient.metadata)
        let toD65 = ColorMath.bradford(from: ColorMath.d50, to: ColorMath.d65)
        var best = Double.infinity, bestKelvin = 0.0, bestTint = 0.0
        for kelvin in stride(from: 2000.0, through: 12000, by: 50) {
            for tint in stride(from: -50.0, through: 50, by: 2.5) {
                let m = toD65 * model.solve(.temperature(kelvin: kelvin, tint: tint)).cameraToXYZD50
                let e = ConstantColourTruth.median(zip(blocks, cam).map { truth.deltaE(meanXYZ: m * $1, label: $0.label) })
                if e < best { best = e; bestKelvin = kelvin; bestTint = tint }
            }
        }
        // The table by flash/ambient ratio (README "Constant colour"): unmasked blocks by their lowest ratio.
        let all = truth.blocks.filter { !$0.masked }
        let bestM = toD65 * model.solve(.temperature(kelvin: bestKelvin, tint: bestTint)).cameraToXYZD50
        for (lo, hi) in [(0.0, 0.5), (0.5, 1.0), (1.0, 2.0), (2.0, 4.0), (4.0, 100.0)] {
            let sel = all.filter { Double($0.minRatio) >= lo && Double($0.minRatio) < hi }
            let cc = ConstantColourTruth.median(sel.map { truth.deltaE(meanXYZ: Self.blockMeanXYZ(s.result, $0), label: $0.label) })
            let wb = ConstantColourTruth.median(sel.map { b -> Double in
                var m = SIMD3<Double>(0, 0, 0)
                for y in b.y..<(b.y + 8) { for x in b.x..<(b.x + 8) {
                    let i = y * a.width + x
                    m += SIMD3(Double(a.rgb[i]), Double(a.rgb[n + i]), Double(a.rgb[2 * n + i]))
                } }
                return truth.deltaE(meanXYZ: bestM * (m / 64), label: b.label)
            })
            let conf = sel.map { Self.blockMeanConfidence(s.result, $0) }.reduce(0, +) / Double(max(sel.count, 1))
            print("constant-colour: table ratio \(lo)–\(hi): \(sel.count) blocks, ΔE2000 constant colour \(cc), best global WB \(wb), mean confidence \(conf)")
        }
        print("constant-colour: median ΔE2000 \(ours) on \(blocks.count) blocks (flash ≥ ambient); best global WB \(best) at \(bestKelvin) K, tint \(bestTint)")
        #expect(ours <= 2.0)
        #expect(best >= 3.0 && best <= 4.5)
        #expect(ours < best - 1)
    }

    /// Spearman(mean confidence, ΔE2000 of the block's mean chroma at matched luminance) over
    /// every 8×8 block inside a patch, whatever its ratio or masks, over the pairs `names`.
    static func rankCorrelation(_ names: [String]) throws -> Double {
        var conf: [Double] = [], de: [Double] = []
        for name in names {
            let (truth, s) = try Self.solved(name)
            let blocks = truth.blocks
            let c = blocks.map { Self.blockMeanConfidence(s.result, $0) }
            let e = blocks.map { truth.deltaE(meanXYZ: Self.blockMeanXYZ(s.result, $0), label: $0.label) }
            print("constant-colour: \(name): Spearman(confidence, ΔE2000) \(spearman(c, e)) over \(blocks.count) blocks")
            conf += c; de += e
        }
        #expect(conf.count >= 96 * names.count - 10)
        return spearman(conf, de)
    }

    /// Confidence is monotone with error on the synthetic set (the pairs `mixed`, `shifted` and
    /// `weak`, each registered): Spearman ≤ −0.8 (issue 17). Measured −0.806: the confidence
    /// follows the predicted error (noise, ambient uncertainty), the ratio, registration and the
    /// masks; what it cannot see is the flash profile's own error per material (0.04–4.7 ΔE2000
    /// over the ColorChecker for a 3×3 profile calibrated elsewhere), which dominates well-lit
    /// blocks — within `mixed` alone the correlation is −0.50.
    /// The validation pairs (PMC chart, other lights, seeds), on which nothing was chosen, are
    /// reported and guarded against regressions at their measured values: `other` + `other-dim`
    /// (the first validation set) and `other` + `other-shifted` + `other-weak` (the main set's
    /// make-up).
    @Test func confidenceRanksTheError() throws {
        let main = try Self.rankCorrelation(["mixed", "shifted", "weak"])
        print("constant-colour: synthetic set: Spearman(confidence, ΔE2000) \(main)")
        #expect(main <= -0.8)
        let first = try Self.rankCorrelation(["other", "other-dim"])
        let mirrored = try Self.rankCorrelation(["other", "other-shifted", "other-weak"])
        print("constant-colour: validation other + other-dim: Spearman \(first); other + other-shifted + other-weak: \(mirrored)")
        #expect(first <= -0.5)
        #expect(mirrored <= -0.7)
    }

    /// The validation pair `other` (PMC chart, LED-B1 → FL11 ambient, LED-B5 flash; nothing was
    /// chosen on it): the median ΔE2000 where flash ≥ ambient, the same criterion as `mixed`'s,
    /// and the weak validation pair's centre-weighted confidence.
    @Test func validationPairs() throws {
        let (truth, s) = try Self.solved("other")
        let blocks = truth.blocks.filter { $0.minRatio >= 1 && !$0.masked }
        let median = ConstantColourTruth.median(blocks.map { truth.deltaE(meanXYZ: Self.blockMeanXYZ(s.result, $0), label: $0.label) })
        for (lo, hi) in [(0.0, 0.5), (0.5, 1.0), (1.0, 2.0), (2.0, 4.0), (4.0, 100.0)] {
            let sel = truth.blocks.filter { !$0.masked && Double($0.minRatio) >= lo && Double($0.minRatio) < hi }
            let cc = ConstantColourTruth.median(sel.map { truth.deltaE(meanXYZ: Self.blockMeanXYZ(s.result, $0), label: $0.label) })
            let conf = sel.map { Self.blockMeanConfidence(s.result, $0) }.reduce(0, +) / Double(max(sel.count, 1))
            print("constant-colour: validation table ratio \(lo)–\(hi): \(sel.count) blocks, ΔE2000 constant colour \(cc), mean confidence \(conf)")
        }
        let (_, weak) = try Self.solved("other-weak")
        print("constant-colour: validation other: median ΔE2000 \(median) on \(blocks.count) blocks (flash ≥ ambient), centre-weighted confidence \(s.result.centreWeightedConfidence); other-weak: \(weak.result.centreWeightedConfidence)")
        #expect(blocks.count >= 30)
        #expect(median <= 2.0)
        #expect(weak.result.centreWeightedConfidence < 0.2)
    }

    /// Below 128 where flash/ambient < 0.5, in flash shadows and on clipped pixels.
    @Test func confidenceFallsWhereTheFlashCannotBeTrusted() throws {
        let (truth, s) = try Self.solved("mixed")
        let c = s.result.confidence
        var low = [0, 0], shadow = [0, 0], clipped = [0, 0], specular = [0, 0]
        var worstLow = 0
        for i in c.indices {
            if truth.ratio[i] < 0.5 { low[0] += 1; if c[i] < 128 { low[1] += 1 } else { worstLow = max(worstLow, Int(c[i])) } }
            if truth.mask[i] & 1 != 0 { shadow[0] += 1; if c[i] < 128 { shadow[1] += 1 } }
            if truth.mask[i] & 2 != 0 { specular[0] += 1; if c[i] < 128 { specular[1] += 1 } }
            if truth.mask[i] & 4 != 0 { clipped[0] += 1; if c[i] < 128 { clipped[1] += 1 } }
        }
        print("constant-colour: below 128 — ratio < 0.5 \(low[1])/\(low[0]) (worst \(worstLow)), shadow \(shadow[1])/\(shadow[0]), clipped \(clipped[1])/\(clipped[0]), specular \(specular[1])/\(specular[0])")
        #expect(low[0] > 500 && shadow[0] > 1000 && clipped[0] > 50)
        #expect(shadow[1] == shadow[0])
        #expect(clipped[1] == clipped[0])
        #expect(Double(low[1]) >= 0.99 * Double(low[0]))
        #expect(Double(specular[1]) >= 0.9 * Double(specular[0]))
    }

    /// A 3-px camera shake between the frames: registration finds it (and the colour is as good
    /// as without it); with registration off, confidence falls below 128 along the patch edges
    /// the shift smears.
    @Test func misregistration() throws {
        let (truth, s) = try Self.solved("shifted")
        #expect(s.result.registration.dx == 3 && s.result.registration.dy == 0)
        let blocks = truth.blocks.filter { $0.minRatio >= 1 && !$0.masked }
        let registered = ConstantColourTruth.median(blocks.map { truth.deltaE(meanXYZ: Self.blockMeanXYZ(s.result, $0), label: $0.label) })
        let (_, off) = try Self.solved("shifted", maxShift: 0)
        // Edge pixels: where the unregistered flash frame shows another material (the flash frame
        // moved 3 px right, so flash pixel x shows ambient pixel x − 3), in the well-lit centre.
        var edges = 0, lowConf = 0
        let w = truth.width
        for y in 0..<truth.height { for x in 3..<(w - 3) {
            let i = y * w + x
            guard truth.ratio[i] >= 1, truth.mask[i] == 0, truth.labels[i - 3] != truth.labels[i] else { continue }
            edges += 1
            if off.result.confidence[i] < 128 { lowConf += 1 }
        } }
        print("constant-colour: shifted pair registered (\(s.result.registration.dx), \(s.result.registration.dy)) residual \(s.result.registration.residual), median ΔE2000 \(registered); unregistered: \(lowConf)/\(edges) edge pixels below 128, residual \(off.result.registration.residual)")
        #expect(registered <= 2.0)
        #expect(edges > 300)
        #expect(Double(lowConf) >= 0.9 * Double(edges))
        #expect(off.result.registration.residual > s.result.registration.residual)
    }

    /// A flash barely visible: centre-weighted confidence < 0.2; the `mixed` pair far above it.
    @Test func weakFlash() throws {
        let (_, s) = try Self.solved("weak")
        print("constant-colour: weak flash centre-weighted confidence \(s.result.centreWeightedConfidence), median ratio \(s.result.medianFlashRatio)")
        #expect(s.result.centreWeightedConfidence < 0.2)
        let (_, m) = try Self.solved("mixed")
        print("constant-colour: mixed pair centre-weighted confidence \(m.result.centreWeightedConfidence)")
        // The good pair: its corners have flash/ambient ≈ 0.4 and the three terms multiply (0.48 measured).
        #expect(m.result.centreWeightedConfidence > 0.4)
    }

    /// The exposure ratio comes from the files' ExposureTime, ISO and FNumber: (1/60 · 200) / (1/30 · 400).
    @Test func exposureRatioFromMetadata() throws {
        let (_, s) = try Self.solved("mixed")
        #expect(abs(s.result.ambientScale - 0.25) < 1e-9)
        #expect(abs(s.flashWhite.x - 0.342185) < 1e-5 && abs(s.flashWhite.y - 0.350156) < 1e-5)
    }

    /// Same result for 1 and 3 threads.
    @Test func threadCountDoesNotChangeTheResult() throws {
        let truth = try ConstantColourTruth("mixed")
        var o = ConstantColourOptions()
        o.threads = 1
        let one = try ConstantColourDeveloper.solve(ambient: truth.ambientPath, flash: truth.flashPath, options: o).result
        o.threads = 3
        let three = try ConstantColourDeveloper.solve(ambient: truth.ambientPath, flash: truth.flashPath, options: o).result
        #expect(one.xyzD65 == three.xyzD65)
        #expect(one.confidence == three.confidence)
        #expect(one.centreWeightedConfidence == three.centreWeightedConfidence)
    }

    /// The flash's spectrum (the generator's CSV of CIE LED-B4) integrated against our CIE 1931
    /// table gives colour-science's chromaticity of it (to 2·10⁻⁵);
    /// bad CSVs name the file and line.
    @Test func flashSpectrumWhite() throws {
        let truth = try ConstantColourTruth("mixed")
        let xy = try FlashSpectrum.white(path: ConstantColourTruth.folder.appendingPathComponent("led-b4.csv").path)
        print("constant-colour: LED-B4 white from the CSV \(xy), colour-science \(truth.flashXY)")
        #expect(abs(xy.x - truth.flashXY.x) < 2e-5 && abs(xy.y - truth.flashXY.y) < 2e-5)
        // Equal-energy spectrum: x = y = 1/3 within the table's rounding.
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        func write(_ text: String) throws -> String {
            let p = "\(dir)/s\(text.hashValue).csv"
            try text.write(toFile: p, atomically: true, encoding: .utf8)
            return p
        }
        let e = try FlashSpectrum.white(path: try write("nm,power\n380,1\n780,1\n"))
        #expect(abs(e.x - 1.0 / 3) < 2e-3 && abs(e.y - 1.0 / 3) < 2e-3)
        let decreasing = try write("400,1\n500,1\n450,1\n")
        #expect(throws: FlashSpectrum.Failure.bad(path: decreasing, line: 3, reason: "wavelength 450.0 does not increase")) {
            try FlashSpectrum.white(path: decreasing)
        }
        let negative = try write("400,1\n500,-1\n")
        #expect(throws: FlashSpectrum.Failure.bad(path: negative, line: 2, reason: "power -1.0 is not a finite value ≥ 0")) {
            try FlashSpectrum.white(path: negative)
        }
        let dark = try write("400,0\n700,0\n")
        #expect(throws: FlashSpectrum.Failure.noWhite(path: dark, reason: "the spectrum has no power between 380 and 780 nm")) {
            try FlashSpectrum.white(path: dark)
        }
        #expect(throws: FlashSpectrum.Failure.self) { try FlashSpectrum.white(path: "\(dir)/missing.csv") }
    }
}
