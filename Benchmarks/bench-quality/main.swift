// bench-quality [--kodak DIR] [--saturated-dir DIR] [--images N] [--noise-reduction SPEC] [--speed] [--no-peers] [--markdown]
//               [--export-mosaics DIR] [--import-denoised DIR]
//
// Noise reduction measured the way issue 14 asks: clean images (Kodak 24, and the photographs of
// the saturated set when `make demosaic-sets` has fetched them) become synthetic raws — the
// 8-bit sRGB values decoded to linear light, taken as white-balanced camera RGB of the
// SyntheticChart camera, divided by its white-balance gains, mosaicked RGGB, 14-bit with black
// 512 — with shot + read noise at three ISO-like levels (variance S·x + O of the range, the
// noise model of the DNG NoiseProfile tag, which the raw carries with the same S and O). Each is
// developed by the normal pipeline (default look, 16-bit sRGB, sharpening off so noise reduction
// is measured alone) with `--noise-reduction off` and `auto` (or the SPEC given), and compared with the render of
// the noise-free raw (noise reduction off): PSNR on the 8-bit scale and SSIM (Wang et al. 2004:
// 8×8 windows every 4 px on luminance Y = 0.299 R + 0.587 G + 0.114 B, C1 = (0.01·255)²,
// C2 = (0.03·255)²), 8 px border excluded. A noise-free raw tagged with a NoiseProfile of
// negligible noise checks that `auto` leaves clean input alone (loss ≤ 0.1 dB); the last column is
// the noise-free raw tagged with each level's profile (the detail that setting costs). A second
// table renders the same noisy raws without the tag (`auto` then estimates the model from the
// image) with the estimated S and O, and the noise-free raw without the tag (which must come out
// identical, or nearly: ≤ 0.1 dB). Deterministic:
// the noise is a hash of the position, so two runs print the same numbers.
//
// Any other denoiser can be scored on the same raws: `--export-mosaics DIR` writes each noisy
// mosaic as `NAME-LK.u16` (width × height little-endian UInt16, RGGB, black 512, white 16383) and
// `DIR/index.tsv` (name, level, width, height, S, O: variance = S·x + O with x the value over
// black in units of the 15871 range); `--import-denoised DIR` reads mosaics of the same names and
// sizes back, develops them with Darkroom's noise reduction off, and adds their row (`external`)
// to the tagged table — the denoiser works on the CFA data, everything after it is ours.
import DarkroomCore
import DarkroomIO
import Foundation

struct Options {
    var kodak = ""
    var saturated = ""
    var images = Int.max
    var markdown = false
    /// The setting measured against `off` (default `auto`).
    var spec = NoiseReductionSpec.auto
    /// `--speed`: time a 6000 × 4000 render (the middle level's noise and profile) with `off` and SPEC instead.
    var speed = false
    /// `--no-peers`: skip darktable-cli's and rawtherapee-cli's rows (Peers.swift) even when installed.
    var peers = true
    /// `--export-mosaics DIR`: each noisy raw's mosaic and `index.tsv`, for an external denoiser.
    var exportMosaics: String?
    /// `--import-denoised DIR`: denoised mosaics (same names) developed with noise reduction off.
    var importDenoised: String?
}

func parse() -> Options? {
    var o = Options()
    let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    o.kodak = package.deletingLastPathComponent().appendingPathComponent("shared/samples/kodak24").path
    o.saturated = package.appendingPathComponent("out/demosaic-sets/skimage-0.24.0").path
    var args = CommandLine.arguments.dropFirst()
    while let a = args.popFirst() {
        switch a {
        case "--kodak": guard let v = args.popFirst() else { return nil }; o.kodak = v
        case "--saturated-dir": guard let v = args.popFirst() else { return nil }; o.saturated = v
        case "--images": guard let v = args.popFirst(), let n = Int(v), n > 0 else { return nil }; o.images = n
        case "--markdown": o.markdown = true
        case "--speed": o.speed = true
        case "--no-peers": o.peers = false
        case "--export-mosaics": guard let v = args.popFirst() else { return nil }; o.exportMosaics = v
        case "--import-denoised": guard let v = args.popFirst() else { return nil }; o.importDenoised = v
        case "--noise-reduction":
            guard let v = args.popFirst(), let spec = try? NoiseReductionSpec(parsing: v) else { return nil }
            o.spec = spec
        default:
            print("usage: bench-quality [--kodak DIR] [--saturated-dir DIR] [--images N] [--noise-reduction SPEC] [--speed] [--no-peers] [--markdown] [--export-mosaics DIR] [--import-denoised DIR]")
            return nil
        }
    }
    return o
}

/// The three noise levels (S, O) and their σ at mid-grey.
let levels: [(name: String, S: Double, O: Double)] = [("low", 1e-4, 1e-6), ("middle", 4e-4, 4e-6), ("high", 1.6e-3, 2e-5)]

struct TestImage { let name: String; let width: Int; let height: Int; let linear: [Double] }

func load(_ dir: String, limit: Int) -> [TestImage] {
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasSuffix(".png") }.sorted()
    var out: [TestImage] = []
    for n in names.prefix(limit) {
        guard let png = try? PNGReader.read(contentsOf: dir + "/" + n) else { continue }
        let ch = png.channels
        var linear = [Double](repeating: 0, count: png.width * png.height * 3)
        for i in 0..<(png.width * png.height) {
            for c in 0..<3 {
                var v = Double(png.pixels[i * ch + min(c, ch - 1)]) / 255
                if ch == 4 { let a = Double(png.pixels[i * ch + 3]) / 255; v = v * a + (1 - a) }   // over white
                linear[i * 3 + c] = v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
            }
        }
        out.append(TestImage(name: String(n.dropLast(4)), width: png.width, height: png.height, linear: linear))
    }
    return out
}

func gaussian(_ i: Int, _ seed: UInt64) -> Double { SyntheticNoise.gaussian(i, seed) }

/// The raw of `img`: 14-bit RGGB, scene scaled to 0.9 of the range at white.
func raw(_ img: TestImage, S: Double, O: Double, profile: [Double]?) throws -> RawImage {
    let w = img.width & ~1, h = img.height & ~1
    let chart = SyntheticChart(cfa: .rggb, bitsPerSample: 14, illuminant: ColorMath.d65, width: w, height: h)
    var md = chart.makeRawImage().metadata
    md.blackLevel = [512]; md.blackLevelRepeatRows = 1; md.blackLevelRepeatColumns = 1
    md.whiteLevel = [16383]
    md.defaultCrop = nil
    md.noiseProfile = profile
    let plan = try DevelopPlan(metadata: md, width: w, height: h, samplesPerPixel: 1, recipe: DevelopRecipe(), opcodes: ParsedOpcodeLists(md))
    let gains = plan.whiteBalanceGains
    let range = 16383.0 - 512
    var pixels = [UInt16](repeating: 0, count: w * h)
    for y in 0..<h {
        for x in 0..<w {
            let c = Int(CFAPattern.rggb.color(x: x, y: y).rawValue)
            let signal = 0.9 * img.linear[(y * img.width + x) * 3 + c] / Double(gains[c])
            let sigma = (S * signal + O).squareRoot()
            let v = 512 + (signal + sigma * gaussian(y * w + x, 2026)) * range
            pixels[y * w + x] = UInt16(min(max(v.rounded(), 0), 16383))
        }
    }
    return RawImage(width: w, height: h, samplesPerPixel: 1, pixels: pixels, metadata: md)
}

func render(_ raw: RawImage, _ nr: NoiseReductionSpec) throws -> [UInt16] {
    var recipe = DevelopRecipe()
    recipe.bitsPerSample = 16
    recipe.applyDefaultCrop = false
    recipe.thumbnailSize = 0
    recipe.noiseReduction = nr
    recipe.sharpen = .off
    let plan = try DevelopPlan(metadata: raw.metadata, width: raw.width, height: raw.height, samplesPerPixel: 1,
                               recipe: recipe, opcodes: ParsedOpcodeLists(raw.metadata))
    return TileRenderer.render(raw, plan: plan).pixels16
}

func psnr(_ a: [UInt16], _ b: [UInt16], _ w: Int, _ h: Int) -> Double {
    var se = 0.0, n = 0.0
    for y in 8..<(h - 8) { for x in 8..<(w - 8) { for c in 0..<3 {
        let i = (y * w + x) * 3 + c
        let d = (Double(a[i]) - Double(b[i])) / 257
        se += d * d; n += 1
    } } }
    return se == 0 ? 99 : 10 * log10(255 * 255 / (se / n))
}

func ssim(_ a: [UInt16], _ b: [UInt16], _ w: Int, _ h: Int) -> Double {
    func luma(_ p: [UInt16]) -> [Double] {
        var out = [Double](repeating: 0, count: w * h)
        for i in 0..<(w * h) {
            let r: Double = Double(p[i * 3]), g: Double = Double(p[i * 3 + 1]), b: Double = Double(p[i * 3 + 2])
            out[i] = (0.299 * r + 0.587 * g + 0.114 * b) / 257
        }
        return out
    }
    let ya = luma(a), yb = luma(b)
    let c1: Double = 6.5025, c2: Double = 58.5225   // (0.01·255)², (0.03·255)²
    var sum = 0.0, count = 0.0
    var y = 8
    while y + 8 <= h - 8 {
        var x = 8
        while x + 8 <= w - 8 {
            var ma = 0.0, mb = 0.0
            for j in 0..<8 { for i in 0..<8 { ma += ya[(y + j) * w + x + i]; mb += yb[(y + j) * w + x + i] } }
            ma /= 64; mb /= 64
            var va = 0.0, vb = 0.0, cov = 0.0
            for j in 0..<8 { for i in 0..<8 {
                let da = ya[(y + j) * w + x + i] - ma, db = yb[(y + j) * w + x + i] - mb
                va += da * da; vb += db * db; cov += da * db
            } }
            va /= 63; vb /= 63; cov /= 63
            let numerator: Double = (2 * ma * mb + c1) * (2 * cov + c2)
            let denominator: Double = (ma * ma + mb * mb + c1) * (va + vb + c2)
            sum += numerator / denominator
            count += 1
            x += 4
        }
        y += 4
    }
    return count > 0 ? sum / count : 1
}

/// The noise model `auto` estimates from `raw` (no NoiseProfile), as DarkroomCore does when rendering.
func estimated(_ raw: RawImage) throws -> NoiseModel? {
    var recipe = DevelopRecipe()
    recipe.applyDefaultCrop = false
    let plan = try DevelopPlan(metadata: raw.metadata, width: raw.width, height: raw.height, samplesPerPixel: 1,
                               recipe: recipe, opcodes: ParsedOpcodeLists(raw.metadata))
    return NoiseModel.estimate(raw: raw, plan: plan)
}

guard let options = parse() else { exit(2) }
if options.speed {
    // A 6000 × 4000 raw tiled from the first Kodak image (or a ramp), the middle noise level and its
    // NoiseProfile; the whole render (all stages, all cores, defaults but 16-bit and no thumbnail),
    // `off` and SPEC interleaved, median of 5 each.
    let source = load(options.kodak, limit: 1).first
    let W = 6000, H = 4000
    var linear = [Double](repeating: 0, count: W * H * 3)
    for y in 0..<H { for x in 0..<W { for c in 0..<3 {
        if let s = source { linear[(y * W + x) * 3 + c] = s.linear[((y % s.height) * s.width + x % s.width) * 3 + c] }
        else { linear[(y * W + x) * 3 + c] = Double(x + y) / Double(W + H) }
    } } }
    let big = TestImage(name: "24 MP", width: W, height: H, linear: linear)
    let noisy = try raw(big, S: levels[1].S, O: levels[1].O, profile: [levels[1].S, levels[1].O])
    var times: [String: [Double]] = [:]
    for _ in 0..<5 {
        for spec in [NoiseReductionSpec.off, options.spec] {
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try render(noisy, spec)
            times[spec.text, default: []].append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
    }
    let median = times.mapValues { $0.sorted()[2] }
    let off = median["off"] ?? 0, on = median[options.spec.text] ?? 0
    print(String(format: "24 MP render, median of 5: off %.3f s, %@ %.3f s (×%.2f)", off, options.spec.text, on, on / off))
    // The estimate `auto` runs (once, before the tiles) on a raw without the tag.
    var bare = noisy
    bare.metadata.noiseProfile = nil
    var estimateTimes: [Double] = []
    var model: NoiseModel?
    for _ in 0..<5 {
        let start = DispatchTime.now().uptimeNanoseconds
        model = try estimated(bare)
        estimateTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    print(String(format: "noise estimate on the same raw without the tag, median of 5: %.3f s (S %.3g, O %.3g; true %.3g, %.3g)",
                 estimateTimes.sorted()[2], model?.scale.y ?? 0, model?.offset.y ?? 0, levels[1].S, levels[1].O))
    exit(0)
}
var sets: [(String, [TestImage])] = []
let kodak = load(options.kodak, limit: options.images)
if !kodak.isEmpty { sets.append(("Kodak 24", kodak)) } else { print("bench-quality: no PNGs in \(options.kodak); Kodak set skipped") }
let photos = load(options.saturated, limit: options.images)
if !photos.isEmpty { sets.append(("saturated set (photographs)", photos)) } else { print("bench-quality: no PNGs in \(options.saturated) (run make demosaic-sets); saturated set skipped") }
if sets.isEmpty { exit(1) }

func f(_ v: Double, _ d: Int = 2) -> String { String(format: "%.\(d)f", v) }
func signed(_ v: Double) -> String { (v >= 0 ? "+" : "") + f(v) }
if let dir = options.exportMosaics { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
var exportIndex = "name\tlevel\twidth\theight\tS\tO\n"
for (title, images) in sets {
    // psnr off, psnr SPEC (profile), ssim off, ssim SPEC, clean tagged, psnr auto (no tag), ssim auto (no tag),
    // estimated S (mean of R, G, B), estimated O, estimated σ² / true σ² at mid-grey (G)
    var sums = [[Double]](repeating: [Double](repeating: 0, count: 10), count: levels.count)
    // External denoiser (--import-denoised): PSNR, SSIM per level, and how many images had a file.
    var external = [(psnr: Double, ssim: Double, count: Int)](repeating: (0, 0, 0), count: levels.count)
    var externalOff = [(off: Double, on: Double)](repeating: (0, 0), count: levels.count)
    var cleanLoss = 0.0
    var cleanUntagged = (identical: 0, worst: 99.0, sigma: 0.0)
    for img in images {
        let cleanRaw = try raw(img, S: 0, O: 0, profile: nil)
        let clean = try render(cleanRaw, .off)
        let w = img.width & ~1, h = img.height & ~1
        // Noise-free input carrying a NoiseProfile of negligible noise: auto must leave it alone.
        let tagged = try render(raw(img, S: 0, O: 0, profile: [1e-9, 1e-10]), .auto)
        cleanLoss += 99 - min(psnr(tagged, clean, w, h), 99)
        // Noise-free input without a NoiseProfile: auto estimates the noise (film grain and the 8-bit
        // steps of the source are all it can find) and must leave it alone too.
        let untagged = try render(cleanRaw, .auto)
        if untagged == clean { cleanUntagged.identical += 1 }
        cleanUntagged.worst = min(cleanUntagged.worst, min(psnr(untagged, clean, w, h), 99))
        let cleanModel = try estimated(cleanRaw)
        cleanUntagged.sigma += cleanModel?.sigmaAtMidGrey ?? 0
        FileHandle.standardError.write(Data("\(img.name) noise-free: estimated \(cleanModel.map { String(format: "S %.3g %.3g %.3g O %.3g %.3g %.3g σ(0.18) %.5f", $0.scale.x, $0.scale.y, $0.scale.z, $0.offset.x, $0.offset.y, $0.offset.z, $0.sigmaAtMidGrey) } ?? "none")\n".utf8))
        for (k, level) in levels.enumerated() {
            let noisy = try raw(img, S: level.S, O: level.O, profile: [level.S, level.O])
            let off = try render(noisy, .off), on = try render(noisy, options.spec)
            let file = "\(img.name)-L\(k).u16"
            if let dir = options.exportMosaics {
                try noisy.pixels.withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: dir).appendingPathComponent(file)) }
                exportIndex += "\(img.name)\t\(k)\t\(noisy.width)\t\(noisy.height)\t\(level.S)\t\(level.O)\n"
            }
            if let dir = options.importDenoised,
               let data = FileManager.default.contents(atPath: URL(fileURLWithPath: dir).appendingPathComponent(file).path) {
                guard data.count == noisy.pixels.count * 2 else {
                    FileHandle.standardError.write(Data("bench-quality: \(dir)/\(file): \(data.count) bytes, expected \(noisy.pixels.count * 2) (\(noisy.width) × \(noisy.height) UInt16)\n".utf8))
                    exit(1)
                }
                let px = data.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
                let denoised = try render(RawImage(width: noisy.width, height: noisy.height, samplesPerPixel: 1, pixels: px, metadata: noisy.metadata), .off)
                external[k].psnr += psnr(denoised, clean, w, h); external[k].ssim += ssim(denoised, clean, w, h); external[k].count += 1
                externalOff[k].off += psnr(off, clean, w, h); externalOff[k].on += psnr(on, clean, w, h)
            }
            // What the same setting costs noise-free input tagged with this level's profile (detail lost).
            let cleanTagged = try render(raw(img, S: 0, O: 0, profile: [level.S, level.O]), options.spec)
            // The same noisy raw without the tag: auto on the estimated model.
            let bare = try raw(img, S: level.S, O: level.O, profile: nil)
            let auto = try render(bare, .auto)
            let model = try estimated(bare)
            let midGrey = 0.18
            let ratio = model.map { ($0.scale.y * midGrey + $0.offset.y) / (level.S * midGrey + level.O) } ?? 0
            let values: [Double] = [psnr(off, clean, w, h), psnr(on, clean, w, h), ssim(off, clean, w, h), ssim(on, clean, w, h),
                          min(psnr(cleanTagged, clean, w, h), 99), psnr(auto, clean, w, h), ssim(auto, clean, w, h),
                          model.map { $0.scale.sum() / 3 } ?? 0, model.map { $0.offset.sum() / 3 } ?? 0, ratio]
            for i in 0..<values.count { sums[k][i] += values[i] }
        }
        FileHandle.standardError.write(Data("\(img.name) done\n".utf8))
    }
    let n = Double(images.count)
    let t = options.spec.text
    print(options.markdown ? "\n### \(title), \(images.count) images (mean)\n" : "\n\(title), \(images.count) images (mean)")
    print("With the NoiseProfile tag (`\(t)` uses it):\n")
    print("| noise (σ at mid-grey) | PSNR off | PSNR \(t) | gain | SSIM off | SSIM \(t) | clean input, same profile |")
    print("|---|---|---|---|---|---|---|")
    for (k, level) in levels.enumerated() {
        let s = sums[k].map { $0 / n }
        let sigma = (level.S * 0.18 + level.O).squareRoot()   // mid-grey 0.18 of the range
        print("| \(level.name) (\(f(sigma, 4))) | \(f(s[0])) dB | \(f(s[1])) dB | \(signed(s[1] - s[0])) dB | \(f(s[2], 4)) | \(f(s[3], 4)) | \(f(s[4])) dB |")
    }
    print("| none (NoiseProfile ≈ 0) | — | loss \(f(cleanLoss / n, 3)) dB | | | | |")
    if let dir = options.importDenoised {
        // Only the images with a denoised file count; `off` is averaged over the same images.
        print("\nExternal denoiser on the CFA data (`--import-denoised \(dir)`), then Darkroom with noise reduction off:\n")
        print("| noise | images | PSNR off | PSNR external | gain | PSNR \(t) | gain | SSIM external |")
        print("|---|---|---|---|---|---|---|---|")
        for (k, level) in levels.enumerated() where external[k].count > 0 {
            let m = Double(external[k].count), s = externalOff[k]
            print("| \(level.name) | \(external[k].count) | \(f(s.off / m)) dB | \(f(external[k].psnr / m)) dB | \(signed((external[k].psnr - s.off) / m)) dB | \(f(s.on / m)) dB | \(signed((s.on - s.off) / m)) dB | \(f(external[k].ssim / m, 4)) |")
        }
    }
    print("\nWithout the tag (`auto` estimates the model from the image; S, O: mean of R, G, B; σ² ratio: green at mid-grey):\n")
    print("| noise: true S, O | PSNR off | PSNR auto | gain | SSIM auto | estimated S | estimated O | σ² estimated / true |")
    print("|---|---|---|---|---|---|---|---|")
    for (k, level) in levels.enumerated() {
        let s = sums[k].map { $0 / n }
        print("| \(level.name): \(String(format: "%.2g, %.2g", level.S, level.O)) | \(f(s[0])) dB | \(f(s[5])) dB | \(signed(s[5] - s[0])) dB | \(f(s[6], 4)) | \(String(format: "%.3g", s[7])) | \(String(format: "%.3g", s[8])) | \(f(s[9])) |")
    }
    print("| none (noise-free, no tag) | — | \(cleanUntagged.identical)/\(images.count) identical to off; worst PSNR vs off \(f(cleanUntagged.worst)) dB | | | σ at mid-grey \(String(format: "%.5f", cleanUntagged.sigma / n)) (mean) | | |")
}
if let dir = options.exportMosaics {
    try Data(exportIndex.utf8).write(to: URL(fileURLWithPath: dir).appendingPathComponent("index.tsv"))
    FileHandle.standardError.write(Data("wrote \(exportIndex.split(separator: "\n").count - 1) mosaics and index.tsv to \(dir)\n".utf8))
}
if options.peers {
    peerTables(sets: sets, levels: levels, markdown: options.markdown) { try raw($0, S: $1, O: $2, profile: $3) }
}
