// bench-demosaic [kodakDir] [--set kodak24|saturated|all] [--saturated-dir DIR] [--markdown]
//                [--algorithms a,b] [--no-speed] [--no-quality]
//                [--adaptive LOWER,UPPER[,WINDOW[,EPSILON[,GREEN_RADIUS,COLOUR_RADIUS]]]] [--speed-saturated NAME|none]
//                [--tile N] [--extra DIR]…
//
// Mosaics each image of a test set (8-bit values / 255 as they are, no linearisation, RGGB),
// demosaics it with each algorithm through `DemosaicTiler` (256² tiles + halo, mirrored image
// edges) and reports CPSNR (dB on the 8-bit scale, 10-px border excluded, per image and mean).
// Sets: "kodak24" (the Kodak-24 PNGs in kodakDir; kodim01 is also cropped to GRBG/GBRG/BGGR, which
// must give bit-identical interiors) and "saturated" (the eight colour PNGs scikit-image 0.24.0
// ships, extracted by `make demosaic-sets` into DIR, plus three generated saturated scenes, see
// `SaturatedScenes`); `--extra DIR` (repeatable) adds every PNG in DIR as one more set, named by
// the directory (e.g. McMaster / IMAX converted to PNG: a third benchmark no registry here ships).
// Then speed in MP/s on a deterministic 6000×4000 (24 MP) synthetic mosaic
// with 1 and 2 workers, best of 3, and again on a saturated-set photograph (default coffee) tiled by
// mirroring to the same size. For `adaptive` it also prints the share of blocks that ran MLRI per set
// and speed scene; `--adaptive` sets its slope ramp (and window, ε, MLRI radii) for tuning.
import CShims
import DarkroomCore
import DarkroomIO
import Foundation

// The allocator thresholds `darkroom` sets at start (CShims/malloc_tuning.c), so the kernels are
// timed the way the product runs them (per-tile scratch blocks reused, not mapped and faulted anew).
_ = dr_tune_malloc()

enum BenchSet: String, CaseIterable { case kodak24, saturated, all }

struct Options {
    var kodakDirectory = ""
    var saturatedDirectory = ""
    var set = BenchSet.all
    var markdown = false
    var algorithms = DemosaicAlgorithm.allCases
    var speed = true
    var quality = true
    /// `--adaptive LOWER,UPPER[,WINDOW[,EPSILON[,GREEN_RADIUS,COLOUR_RADIUS]]]`: the adaptive demosaic's slope ramp and window (tuning).
    var adaptive = AdaptiveDemosaic()
    /// `--speed-saturated NAME`: the saturated-set image tiled (mirrored) to 6000×4000 for a
    /// second speed scene (default coffee; "none" skips it).
    var speedSaturated = "coffee"
    /// `--ri LOWER,UPPER[,WINDOW[,EPSILON[,MIN,MAX]]]`: adaptive-ri's ramp, quad window, ε, slope clamp (tuning).
    var ri = AdaptiveRIDemosaic()
    /// `--tile N`: the speed runs' output tile side (default 256, the develop recipe's default).
    var tile = DevelopRecipe().tileSize
    /// `--extra DIR`: more sets, every PNG of each directory (named by the directory).
    var extraDirectories: [String] = []
}

func parseOptions() -> Options? {
    var o = Options()
    let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    o.kodakDirectory = package.deletingLastPathComponent().appendingPathComponent("shared/samples/kodak24").path
    o.saturatedDirectory = package.appendingPathComponent("out/demosaic-sets/skimage-0.24.0").path
    var args = CommandLine.arguments.dropFirst()
    while let a = args.popFirst() {
        switch a {
        case "--markdown": o.markdown = true
        case "--no-speed": o.speed = false
        case "--no-quality": o.quality = false
        case "--set":
            guard let v = args.popFirst(), let set = BenchSet(rawValue: v) else {
                print("--set needs one of \(BenchSet.allCases.map(\.rawValue).joined(separator: "|"))"); return nil
            }
            o.set = set
        case "--adaptive":
            let parts = (args.popFirst() ?? "").split(separator: ",").compactMap { Float(String($0)) }
            guard (2...6).contains(parts.count), parts.count != 5 else {
                print("--adaptive needs LOWER,UPPER[,WINDOW[,EPSILON[,GREEN_RADIUS,COLOUR_RADIUS]]]"); return nil
            }
            let d = AdaptiveDemosaic()
            o.adaptive = AdaptiveDemosaic(
                residual: parts.count == 6 ? MLRIDemosaic(greenRadius: Int(parts[4]), colourRadius: Int(parts[5])) : d.residual,
                window: parts.count >= 3 ? Int(parts[2]) : d.window, epsilon: parts.count >= 4 ? parts[3] : d.epsilon,
                lowerSlope: parts[0], upperSlope: parts[1])
        case "--ri":
            let parts = (args.popFirst() ?? "").split(separator: ",").compactMap { Float(String($0)) }
            guard (2...6).contains(parts.count), parts.count != 5 else {
                print("--ri needs LOWER,UPPER[,WINDOW[,EPSILON[,MIN,MAX]]]"); return nil
            }
            let d = AdaptiveRIDemosaic()
            o.ri = AdaptiveRIDemosaic(window: parts.count >= 3 ? Int(parts[2]) : d.window,
                                      epsilon: parts.count >= 4 ? parts[3] : d.epsilon,
                                      lowerSlope: parts[0], upperSlope: parts[1],
                                      minimumSlope: parts.count == 6 ? parts[4] : d.minimumSlope,
                                      maximumSlope: parts.count == 6 ? parts[5] : d.maximumSlope)
        case "--tile":
            guard let v = args.popFirst().flatMap({ Int($0) }), (16...8192).contains(v) else {
                print("--tile needs a tile side in 16…8192"); return nil
            }
            o.tile = v
        case "--extra":
            guard let v = args.popFirst() else { print("--extra needs a directory of PNG images"); return nil }
            o.extraDirectories.append(v)
        case "--ri-alias": o.ri.aliasRatio = Float(args.popFirst() ?? "") ?? 0
        case "--speed-saturated":
            guard let v = args.popFirst() else { print("--speed-saturated needs an image name or none"); return nil }
            o.speedSaturated = v
        case "--saturated-dir":
            guard let v = args.popFirst() else { print("--saturated-dir needs a directory"); return nil }
            o.saturatedDirectory = v
        case "--algorithms":
            guard let list = args.popFirst() else { print("--algorithms needs a list"); return nil }
            var algs: [DemosaicAlgorithm] = []
            for name in list.split(separator: ",") {
                guard let alg = DemosaicAlgorithm(rawValue: String(name)) else {
                    print("unknown algorithm \(name); known: \(DemosaicAlgorithm.allCases.map(\.rawValue).joined(separator: ","))")
                    return nil
                }
                algs.append(alg)
            }
            o.algorithms = algs
        case "-h", "--help":
            print("usage: bench-demosaic [kodakDir] [--set kodak24|saturated|all] [--saturated-dir DIR] [--markdown] "
                + "[--algorithms a,b] [--no-speed] [--no-quality] [--adaptive LOWER,UPPER[,WINDOW[,EPSILON[,GREEN_RADIUS,COLOUR_RADIUS]]]] [--speed-saturated NAME|none] [--tile N] [--extra DIR]… [--ri LOWER,UPPER[,WINDOW[,EPSILON[,MIN,MAX]]]] [--ri-alias R]")
            return nil
        default:
            if a.hasPrefix("-") { print("unknown option \(a)"); return nil }
            o.kodakDirectory = a
        }
    }
    return o
}

struct KodakImage {
    let name: String
    let image: PNGImage
    let floats: [Float]
}

func loadKodak(_ dir: String) -> [KodakImage] {
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [])
        .filter { $0.hasSuffix(".png") }.sorted()
    var out: [KodakImage] = []
    for n in names {
        do {
            let img = try PNGReader.read(contentsOf: dir + "/" + n)
            out.append(KodakImage(name: String(n.dropLast(4)), image: img, floats: img.pixels.map { Float($0) / 255 }))
        } catch {
            print("skipping: \(error)")
        }
    }
    return out
}

/// The kernel benchmarked for `alg` (the adaptive one as `--adaptive` sets it, counting into
/// `statistics` when given).
func kernel(_ alg: DemosaicAlgorithm, statistics: AdaptiveDemosaicStatistics? = nil) -> any DemosaicKernel {
    if alg == .adaptiveRI { return riKernel }
    guard alg == .adaptive else { return alg.makeKernel() }
    var k = adaptiveKernel
    k.statistics = statistics
    return k
}

/// Per set, the adaptive demosaic's block counters (set by `measure`).
nonisolated(unsafe) var adaptiveStatistics: [String: AdaptiveDemosaicStatistics] = [:]
nonisolated(unsafe) var currentSet = ""

func cpsnr(_ alg: DemosaicAlgorithm, _ k: KodakImage, cfa: CFAPattern) -> Double {
    let w = k.image.width, h = k.image.height
    let mosaic = DemosaicEvaluation.mosaic(interleaved: k.floats, width: w, height: h, channels: k.image.channels, cfa: cfa)
    let out = DemosaicTiler(kernel: kernel(alg, statistics: adaptiveStatistics[currentSet])).run(mosaic: mosaic, width: w, height: h, cfa: cfa)
    if let dir = ProcessInfo.processInfo.environment["DEMOSAIC_DUMP"], cfa == .rggb {
        let data = (out.red + out.green + out.blue).withUnsafeBufferPointer { Data(buffer: $0) }
        try? data.write(to: URL(fileURLWithPath: "\(dir)/\(alg.rawValue)-\(k.name)-\(w)x\(h).f32"))
        let ref = k.floats.withUnsafeBufferPointer { Data(buffer: $0) }
        try? ref.write(to: URL(fileURLWithPath: "\(dir)/ref-\(k.name)-\(w)x\(h)x\(k.image.channels).f32"))
    }
    return DemosaicEvaluation.cpsnr(reference: k.image.pixels, channels: k.image.channels, width: w, height: h,
                                    red: out.red, green: out.green, blue: out.blue)
}

/// Demosaics `k` RGGB and again cropped by (dx, dy) (another CFA order); returns the number of
/// interior pixels that differ and the cropped run's CPSNR.
func orderCheck(_ alg: DemosaicAlgorithm, _ k: KodakImage, dx: Int, dy: Int) -> (Int, Double) {
    let w = k.image.width, h = k.image.height, ch = k.image.channels
    let cw = w - dx, chh = h - dy
    var croppedRGB = [Float](repeating: 0, count: cw * chh * ch)
    var croppedRef = [UInt8](repeating: 0, count: cw * chh * ch)
    for y in 0..<chh { for x in 0..<cw { for c in 0..<ch {
        croppedRGB[(y * cw + x) * ch + c] = k.floats[((y + dy) * w + x + dx) * ch + c]
        croppedRef[(y * cw + x) * ch + c] = k.image.pixels[((y + dy) * w + x + dx) * ch + c]
    } } }
    let cfa = CFAPattern.rggb.shifted(dx: dx, dy: dy)
    let demosaicKernel = kernel(alg)
    let full = DemosaicTiler(kernel: demosaicKernel).run(
        mosaic: DemosaicEvaluation.mosaic(interleaved: k.floats, width: w, height: h, channels: ch, cfa: .rggb),
        width: w, height: h, cfa: .rggb)
    let part = DemosaicTiler(kernel: demosaicKernel).run(
        mosaic: DemosaicEvaluation.mosaic(interleaved: croppedRGB, width: cw, height: chh, channels: ch, cfa: cfa),
        width: cw, height: chh, cfa: cfa)
    var mismatches = 0
    let e = demosaicKernel.halo + 1
    for y in e..<(chh - e) { for x in e..<(cw - e) {
        let i = (y + dy) * w + x + dx, j = y * cw + x
        if full.red[i] != part.red[j] || full.green[i] != part.green[j] || full.blue[i] != part.blue[j] { mismatches += 1 }
    } }
    let db = DemosaicEvaluation.cpsnr(reference: croppedRef, channels: ch, width: cw, height: chh,
                                      red: part.red, green: part.green, blue: part.blue)
    return (mismatches, db)
}

/// Best-of-3 megapixels per second for demosaicing `mosaic` with `workers` threads.
func speed(_ alg: DemosaicAlgorithm, mosaic: [Float], width: Int, height: Int, workers: Int, tile: Int,
           statistics: AdaptiveDemosaicStatistics? = nil) -> Double {
    let tiler = DemosaicTiler(kernel: kernel(alg, statistics: statistics), tileSize: tile, workers: workers)
    var best = Double.infinity
    for _ in 0..<3 {
        let t0 = DispatchTime.now().uptimeNanoseconds
        let out = tiler.run(mosaic: mosaic, width: width, height: height, cfa: .rggb)
        let dt = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
        if out.green.isEmpty { print("empty output") }
        best = min(best, dt)
    }
    return Double(width * height) / 1e6 / best
}

/// A deterministic textured RGGB mosaic: smooth colour gradients, a zone plate (all frequencies
/// and orientations), diagonal stripes and hashed noise, values in [0, 1].
func syntheticMosaic(width: Int, height: Int) -> [Float] {
    var out = [Float](repeating: 0, count: width * height)
    for y in 0..<height {
        for x in 0..<width {
            let c = Float(CFAPattern.rggb.color(x: x, y: y).rawValue)
            let fx = Float(x), fy = Float(y)
            let gradient = 0.3 + 0.2 * Float(x) / Float(width) + 0.1 * c * Float(y) / Float(height)
            let dx = fx - Float(width) / 2, dy = fy - Float(height) / 2
            let zone = 0.15 * sin((dx * dx + dy * dy) * 2e-4)
            let stripes = 0.1 * sin((fx + fy) * 0.7 + c)
            var h = UInt32(truncatingIfNeeded: x &* 73_856_093 ^ y &* 19_349_663)
            h ^= h >> 13; h = h &* 0x5bd1_e995; h ^= h >> 15
            let noise = 0.05 * Float(h & 0xFFFF) / 65535
            out[y * width + x] = min(max(gradient + zone + stripes + noise, 0), 1)
        }
    }
    return out
}

/// `image` (interleaved, `channels` per pixel) repeated to `width × height` by mirroring about its
/// edges (no seams), then mosaicked RGGB.
func tiledMosaic(_ k: KodakImage, width: Int, height: Int) -> [Float] {
    let iw = k.image.width, ih = k.image.height, ch = k.image.channels
    func mirror(_ i: Int, _ n: Int) -> Int { let p = i % (2 * n); return p < n ? p : 2 * n - 1 - p }
    var rgb = [Float](repeating: 0, count: width * height * 3)
    for y in 0..<height {
        let sy = mirror(y, ih)
        for x in 0..<width {
            let s = (sy * iw + mirror(x, iw)) * ch
            for c in 0..<3 { rgb[(y * width + x) * 3 + c] = k.floats[s + c] }
        }
    }
    return DemosaicEvaluation.mosaic(interleaved: rgb, width: width, height: height, cfa: .rggb)
}

guard let options = parseOptions() else { exit(2) }
let adaptiveKernel = options.adaptive
let riKernel = options.ri
let wantKodak = options.set != .saturated, wantSaturated = options.set != .kodak24
var kodak: [KodakImage] = []
var saturated: [KodakImage] = []
if options.quality && wantKodak {
    kodak = loadKodak(options.kodakDirectory)
    if kodak.isEmpty { print("bench-demosaic: \(options.kodakDirectory): no PNG images"); exit(1) }
}
if options.quality && wantSaturated {
    guard let photos = loadSkimage(options.saturatedDirectory) else { exit(1) }
    saturated = photos + SaturatedScenes.all()
}
var extras: [(name: String, images: [KodakImage])] = []
if options.quality {
    for dir in options.extraDirectories {
        let images = loadKodak(dir)
        if images.isEmpty { print("bench-demosaic: \(dir): no PNG images"); exit(1) }
        extras.append((URL(fileURLWithPath: dir).standardizedFileURL.lastPathComponent, images))
    }
}
let algs = options.algorithms

func statisticsLine(_ st: AdaptiveDemosaicStatistics) -> String {
    let b = st.blocks
    let a = adaptiveKernel
    return "adaptive (slope \(a.lowerSlope) → \(a.upperSlope), \(2 * a.window + 1)² window, ε \(a.epsilon), MLRI \(2 * a.residual.greenRadius + 1)²/\(2 * a.residual.colourRadius + 1)², \(a.blockSize)² blocks): "
        + "\(b.residual) of \(b.total) blocks ran MLRI (\(fmt(100 * Double(b.residual) / Double(max(b.total, 1)), 1)) %); "
        + "MLRI computed \(fmt(100 * st.residualWork, 1)) % of a dense MLRI's pixels"
}

func fmt(_ v: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", v) }
func row(_ cells: [String]) -> String { options.markdown ? "| " + cells.joined(separator: " | ") + " |" : cells.joined(separator: "\t") }
func header(_ cells: [String]) {
    print(row(cells))
    if options.markdown { print("|" + cells.map { _ in "---" }.joined(separator: "|") + "|") }
}

/// Prints the per-image CPSNR table of `set` (with each image's mean chroma) and returns the
/// mean CPSNR per algorithm over the whole set and over its photographs (names not "synth-…").
func measure(_ title: String, _ set: [KodakImage]) -> (all: [DemosaicAlgorithm: Double], photos: [DemosaicAlgorithm: Double]) {
    currentSet = title
    adaptiveStatistics[title] = AdaptiveDemosaicStatistics()
    defer { currentSet = "" }
    let chroma = set.map(meanChroma)
    let setChroma = chroma.reduce(0, +) / Double(set.count)
    print(options.markdown ? "\n### CPSNR (dB), \(title) (\(set.count) images, mean chroma \(fmt(setChroma, 1)) %)\n"
        : "\nCPSNR (dB), \(title) (\(set.count) images, mean chroma \(fmt(setChroma, 1)) %)")
    header(["image", "size", "chroma %"] + algs.map(\.rawValue))
    var sums = [Double](repeating: 0, count: algs.count)
    var perImage: [[Double]] = []
    for (k, c) in zip(set, chroma) {
        let values = algs.map { cpsnr($0, k, cfa: .rggb) }
        perImage.append(values)
        for (i, v) in values.enumerated() { sums[i] += v }
        let best = values.max() ?? 0
        print(row([k.name, "\(k.image.width)×\(k.image.height)", fmt(c, 1)]
            + values.map { options.markdown && $0 == best ? "**\(fmt($0))**" : fmt($0) }))
    }
    // When the set mixes photographs and generated scenes, also the mean of each kind.
    let generated = set.indices.filter { set[$0].name.hasPrefix("synth-") }
    let photos = set.indices.filter { !set[$0].name.hasPrefix("synth-") }
    var photoMeans: [DemosaicAlgorithm: Double] = [:]
    for (i, a) in algs.enumerated() where !photos.isEmpty {
        photoMeans[a] = photos.map { perImage[$0][i] }.reduce(0, +) / Double(photos.count)
    }
    if !generated.isEmpty && !photos.isEmpty {
        for (label, idx) in [("mean, \(photos.count) photographs", photos), ("mean, \(generated.count) generated", generated)] {
            let c = idx.map { chroma[$0] }.reduce(0, +) / Double(idx.count)
            print(row([label, "", fmt(c, 1)] + algs.indices.map { i in
                fmt(idx.map { perImage[$0][i] }.reduce(0, +) / Double(idx.count)) }))
        }
    }
    var means: [DemosaicAlgorithm: Double] = [:]
    for (i, a) in algs.enumerated() { means[a] = sums[i] / Double(set.count) }
    let bold = { (t: String) in options.markdown ? "**" + t + "**" : t }
    print(row([bold("mean"), "", fmt(setChroma, 1)] + algs.map { bold(fmt(means[$0] ?? 0)) }))
    if algs.contains(.adaptive), let st = adaptiveStatistics[title] {
        print(statisticsLine(st))
    }
    return (means, photoMeans)
}

var kodakMeans: [DemosaicAlgorithm: Double] = [:]
var saturatedMeans: [DemosaicAlgorithm: Double] = [:]
var saturatedPhotoMeans: [DemosaicAlgorithm: Double] = [:]
if options.quality {
    let method = "8-bit PNG values / 255, mosaicked as they are (no linearisation), RGGB; "
        + "CPSNR on the 8-bit scale (output clamped to [0, 1], × 255, rounded), 10-px border excluded; "
        + "chroma = mean of (max − min of R, G, B) / 255"
    print(options.markdown ? "Method: \(method)." : "Method: \(method)")
    if !kodak.isEmpty { kodakMeans = measure("Kodak 24", kodak).all }
    if !saturated.isEmpty {
        (saturatedMeans, saturatedPhotoMeans) = measure("saturated set (scikit-image 0.24.0 colour PNGs + generated scenes)", saturated)
    }
    let extraMeans = extras.map { (name: $0.name, means: measure($0.name, $0.images).all) }
    // Another CFA order must measure the same: crop the first row (and/or column) so the same
    // physical samples are seen as GBRG / GRBG / BGGR; interior pixels must be bit-identical.
    if let first = kodak.first {
        print(options.markdown ? "\nCFA order check on \(first.name) (cropped by dx, dy):\n" : "CFA order check on \(first.name):")
        for a in algs {
            var cells: [String] = []
            for (dx, dy) in [(1, 0), (0, 1), (1, 1)] {
                let (mismatches, db) = orderCheck(a, first, dx: dx, dy: dy)
                cells.append("\(CFAPattern.rggb.shifted(dx: dx, dy: dy)): \(mismatches) differing px, \(fmt(db, 3)) dB")
            }
            print((options.markdown ? "- " : "  ") + "\(a.rawValue) (RGGB \(fmt(cpsnr(a, first, cfa: .rggb), 3)) dB): " + cells.joined(separator: "; "))
        }
    }
    // Summary: each set's mean, and the distance to that set's best algorithm.
    print(options.markdown ? "\n### Mean CPSNR (dB) per set; Δ = distance to the set's best\n" : "\nMean CPSNR (dB) per set")
    var cols = ["algorithm"]
    if !kodakMeans.isEmpty { cols += ["Kodak 24", "Δ Kodak"] }
    if !saturatedMeans.isEmpty { cols += ["saturated (all)", "Δ", "saturated (photographs)", "Δ"] }
    for e in extraMeans { cols += [e.name, "Δ"] }
    header(cols)
    let bestKodak = kodakMeans.values.max() ?? 0, bestSaturated = saturatedMeans.values.max() ?? 0
    let bestPhotos = saturatedPhotoMeans.values.max() ?? 0
    for a in algs {
        var cells = [a.rawValue]
        if let m = kodakMeans[a] { cells += [fmt(m), fmt(m - bestKodak)] }
        if let m = saturatedMeans[a] { cells += [fmt(m), fmt(m - bestSaturated)] }
        if let m = saturatedPhotoMeans[a] { cells += [fmt(m), fmt(m - bestPhotos)] }
        for e in extraMeans {
            let m = e.means[a] ?? 0, best = e.means.values.max() ?? 0
            cells += [fmt(m), fmt(m - best)]
        }
        print(row(cells))
    }
}

if options.speed {
    let w = 6000, h = 4000
    let big = syntheticMosaic(width: w, height: h)
    print(options.markdown ? "\n### Speed (MP/s, \(w)×\(h) synthetic RGGB mosaic, \(options.tile)² tiles + halo, best of 3)\n" : "\nSpeed (MP/s, \(w)x\(h), \(options.tile)² tiles, best of 3)")
    header(["algorithm", "halo", "CPSNR Kodak", "CPSNR saturated", "1 worker", "2 workers"])
    for a in algs {
        let st = AdaptiveDemosaicStatistics()
        let s1 = speed(a, mosaic: big, width: w, height: h, workers: 1, tile: options.tile)
        let s2 = speed(a, mosaic: big, width: w, height: h, workers: 2, tile: options.tile, statistics: a == .adaptive ? st : nil)
        print(row([a.rawValue, "\(a.halo)", kodakMeans[a].map { fmt($0) } ?? "–", saturatedMeans[a].map { fmt($0) } ?? "–",
                  fmt(s1, 1), fmt(s2, 1)]))
        if a == .adaptive { print(statisticsLine(st)) }
    }
    // The same on a saturated photograph tiled (mirrored) to the same size.
    if options.speedSaturated != "none" {
        let photos = loadSkimage(options.saturatedDirectory) ?? []
        if let photo = photos.first(where: { $0.name == options.speedSaturated }) {
            let sat = tiledMosaic(photo, width: w, height: h)
            print(options.markdown ? "\n### Speed on \(photo.name) tiled (mirrored) to \(w)×\(h) (MP/s, best of 3)\n"
                : "\nSpeed on \(photo.name) tiled to \(w)x\(h) (MP/s, best of 3)")
            header(["algorithm", "1 worker", "2 workers"])
            for a in algs {
                let st = AdaptiveDemosaicStatistics()
                let s1 = speed(a, mosaic: sat, width: w, height: h, workers: 1, tile: options.tile)
                let s2 = speed(a, mosaic: sat, width: w, height: h, workers: 2, tile: options.tile, statistics: a == .adaptive ? st : nil)
                print(row([a.rawValue, fmt(s1, 1), fmt(s2, 1)]))
                if a == .adaptive { print(statisticsLine(st)) }
            }
        } else {
            print("bench-demosaic: no saturated-set image \(options.speedSaturated) in \(options.saturatedDirectory)")
        }
    }
}
