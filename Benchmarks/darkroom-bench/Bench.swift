import DarkroomCore
import DarkroomIO
import Foundation

struct Bench {
    let options: Options
    let dir: String
    let darkroom: String
    var report: BenchReport
    let start = Clock.now()

    static let scenes = [
        BenchScene(name: "scene-24mp-rggb-14bit", width: 6000, height: 4000, cfa: .rggb),
        BenchScene(name: "scene-12mp-grbg-14bit", width: 4000, height: 3000, cfa: .grbg),
    ]

    /// The 24 MP scene again as a lossless-JPEG DNG (Compression 7, 256² tiles, 2 components per
    /// stream column, as Adobe DNG Converter writes): decode native vs LibRaw and whole-file rows.
    static let losslessJPEGScene = BenchScene(name: "scene-24mp-rggb-14bit-lj92", width: 6000, height: 4000, cfa: .rggb,
                                              compression: .losslessJPEG(components: 2), tileSize: 256)

    init(options: Options) throws {
        self.options = options
        let d = options.dir ?? (NSTemporaryDirectory() as NSString).appendingPathComponent("darkroom-bench-\(getpid())")
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        dir = d
        let exe = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        darkroom = options.darkroom ?? exe.deletingLastPathComponent().appendingPathComponent("darkroom").path
        let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n").first(where: { $0.hasPrefix("model name") })?
            .split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "unknown CPU"
        report = BenchReport(machine: "\(ProcessInfo.processInfo.activeProcessorCount) cores, \(cpu)", runs: options.runs)
    }

    var runs: Int { options.runs }

    mutating func add(_ section: String, _ file: String, _ name: String, threads: Int? = nil, _ t: Timing,
                      megapixels: Double? = nil, floor: Double? = nil, note: String? = nil) {
        let row = Row(section: section, file: file, name: name, threads: threads, bestSeconds: t.best,
                      medianSeconds: t.median, cpuSeconds: t.cpuMedian, runs: t.wall.count,
                      megapixelsPerSecond: megapixels.map { $0 / t.median },
                      peakMB: t.peakMB > 0 ? t.peakMB : nil, timesFloor: floor.map { t.median / $0 },
                      cpuTimesFloor: floor.flatMap { _ in report.floorsCPU[file] }.flatMap { t.cpuMedian > 0 ? t.cpuMedian / $0 : nil },
                      note: note)
        report.rows.append(row)
        log(String(format: "  %-34@ %@ best %.3f s  median %.3f s  cpu %.2f s%@%@", name as NSString,
                   threads.map { "\($0)T" } ?? "  ", t.best, t.median, t.cpuMedian,
                   t.peakMB > 0 ? String(format: "  peak %.0f MB", t.peakMB) : "",
                   floor.map { String(format: "  ×floor %.2f", t.median / $0) } ?? ""))
    }

    mutating func run() throws {
        if options.neuralOnly {   // Bench+Neural (needs no darkroom binary)
            try neural()
            print(report.markdown)
            return
        }
        guard FileManager.default.isExecutableFile(atPath: darkroom) else {
            throw BenchFailure("\(darkroom): darkroom binary not found (build it with --product darkroom, or pass --darkroom)")
        }
        report.loadStart = Self.loadAverage()
        log("darkroom-bench: files in \(dir), \(runs) runs each; load \(report.loadStart)")
        if options.heifOnly {
            let scene = Self.scenes[1]
            let path = try scene.write(to: dir)
            let raw = try RawDecoder.decode(path: path)
            let plan = try DevelopPlan(metadata: raw.metadata, width: raw.width, height: raw.height,
                                       samplesPerPixel: raw.samplesPerPixel, recipe: DevelopRecipe(), opcodes: ParsedOpcodeLists(raw.metadata))
            var img = TileRenderer.render(raw, plan: plan)
            img.iccProfile = try ICCProfileFactory.profile(for: .srgb)
            try heifStudy(img)
            print(report.markdown)
            return
        }
        if options.jxlOnly {   // Bench+JXL
            try jxlDecode(scene: Self.scenes[0])
            print(report.markdown)
            return
        }
        if options.convertOnly {   // Bench+Convert
            let scene = Self.scenes[0]
            try convert(scene: scene, path: try scene.write(to: dir))
            print(report.markdown)
            return
        }
        var paths: [String: String] = [:]
        for scene in Self.scenes {
            let (t, path) = try measure(runs: 1) { try scene.write(to: dir) }
            log(String(format: "wrote %@ (%.1f MP) in %.2f s", scene.fileName, scene.megapixels, t.best))
            paths[scene.name] = path
        }
        do {
            let scene = Self.losslessJPEGScene
            let (t, path) = try measure(runs: 1) { try scene.write(to: dir) }
            log(String(format: "wrote %@ (%.1f MP, lossless JPEG) in %.2f s", scene.fileName, scene.megapixels, t.best))
            paths[scene.name] = path
        }
        var rendered12: RenderedImage?
        for scene in Self.scenes {
            guard let path = paths[scene.name] else { continue }
            let r = try stages(scene: scene, path: path)
            if scene.width == 4000 { rendered12 = r }
        }
        if let path = paths[Self.losslessJPEGScene.name] { try losslessJPEGDecode(scene: Self.losslessJPEGScene, path: path) }
        try jxlDecode(scene: Self.scenes[0])   // Bench+JXL
        for scene in Self.scenes + [Self.losslessJPEGScene] {
            guard let path = paths[scene.name] else { continue }
            try wholeFile(scene: scene, path: path, heif: scene.width == 4000)
        }
        if let path = paths[Self.scenes[0].name] { try convert(scene: Self.scenes[0], path: path) }   // Bench+Convert
        try neural()   // Bench+Neural
        if options.peers, let path = paths[Self.scenes[0].name] { peers(scene: Self.scenes[0], path: path) }
        if options.heifStudy, let img = rendered12 { try heifStudy(img) }
        checks()
        report.loadEnd = Self.loadAverage()
        report.totalSeconds = Clock.now() - start
        let md = report.markdown
        print(md)
        let enc = JSONEncoder()
        enc.outputFormatting = [.prettyPrinted, .sortedKeys]
        let json = try enc.encode(report)
        print("\n```json\n" + String(decoding: json, as: UTF8.self) + "\n```")
        if let p = options.json { try json.write(to: URL(fileURLWithPath: p)) }
        if let p = options.markdown { try Data(md.utf8).write(to: URL(fileURLWithPath: p)) }
        if options.dir == nil { try? FileManager.default.removeItem(atPath: dir) }
    }

    static func loadAverage() -> String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
    }

    // MARK: - In-process stages

    /// Returns the 8-bit render (2 threads) for later use.
    mutating func stages(scene: BenchScene, path: String) throws -> RenderedImage {
        let file = scene.name, mp = scene.megapixels
        log("\(file): stages")
        // Floor part 1: LibRaw alone.
        let (unpack, _) = try measure(runs: runs) { try Floor.libRawUnpack(path: path) }
        // Whole-file read as RawDecoder.readHeader does it (mapped Data → [UInt8]).
        let (read, _) = try measure(runs: runs) { () throws -> Int in
            let d = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
            return [UInt8](d).count
        }
        // The native uncompressed-DNG decoder with 1 and 2 threads, and the LibRaw path it replaces.
        var viaLibRaw = DecodeOptions(); viaLibRaw.nativeUncompressed = false
        let decodes = try measureDecodes(path: path, file: file, viaLibRaw: viaLibRaw)
        let raw = decodes.raw

        var recipe = DevelopRecipe()
        recipe.threads = 2
        let (planT, plan2) = try measure(runs: runs) {
            try DevelopPlan(metadata: raw.metadata, width: raw.width, height: raw.height, samplesPerPixel: raw.samplesPerPixel, recipe: recipe, opcodes: ParsedOpcodeLists(raw.metadata))
        }
        var plans: [Int: DevelopPlan] = [2: plan2]
        recipe.threads = 1
        plans[1] = try DevelopPlan(metadata: raw.metadata, width: raw.width, height: raw.height, samplesPerPixel: raw.samplesPerPixel, recipe: recipe, opcodes: ParsedOpcodeLists(raw.metadata))

        // Demosaic alone (DemosaicTiler, 256 tiles) on the linearised, balanced mosaic.
        let mosaic = linearised(raw, plan: plan2)
        guard let cfa = raw.metadata.cfa else { throw BenchFailure("\(path): no CFA") }
        var demosaic: [Int: Timing] = [:]
        for w in [1, 2] {
            let tiler = DemosaicTiler(kernel: DemosaicAlgorithm.default.makeKernel(), tileSize: 256, workers: w)
            (demosaic[w], _) = measure(runs: runs) { tiler.run(mosaic: mosaic, width: raw.width, height: raw.height, cfa: cfa).red.count }
        }

        // TileRenderer.render (all fused stages, incl. thumbnail) with 1 and 2 threads.
        var render: [Int: Timing] = [:]
        var image: RenderedImage?
        var images: [Int: [UInt8]] = [:]
        for t in [1, 2] {
            guard let plan = plans[t] else { continue }
            let (tm, img) = measure(runs: runs) { TileRenderer.render(raw, plan: plan) }
            render[t] = tm
            images[t] = img.pixels8
            if t == 2 { image = img }
        }
        report.identical["\(file) TileRenderer.render pixels"] = images[1] == images[2]
        guard var img = image else { throw BenchFailure("no render") }

        // Parts of render, by difference: bilinear instead of the default kernel; no thumbnail; no dither.
        var variants: [(String, DevelopRecipe)] = []
        var r = DevelopRecipe(); r.threads = 2; r.demosaic = .bilinear
        variants.append(("render, bilinear demosaic", r))
        r = DevelopRecipe(); r.threads = 2; r.thumbnailSize = 0
        variants.append(("render, no thumbnail", r))
        r = DevelopRecipe(); r.threads = 2; r.thumbnailSize = 0; r.dither = false
        variants.append(("render, no thumbnail, no dither", r))
        var variantTimes: [(String, Timing)] = []
        for (name, rec) in variants {
            let plan = try DevelopPlan(metadata: raw.metadata, width: raw.width, height: raw.height, samplesPerPixel: raw.samplesPerPixel, recipe: rec, opcodes: ParsedOpcodeLists(raw.metadata))
            let (tm, _) = measure(runs: runs) { TileRenderer.render(raw, plan: plan).width }
            variantTimes.append((name, tm))
        }
        // Camera-profile tables as Adobe Standard profiles embed them (HueSatMap 90×30×1, LookTable
        // 36×8×16 sRGB-encoded; smooth synthetic values): the per-pixel table pass real DNGs pay.
        if let tabled = Self.withProfileTables(raw.metadata) {
            var rec = DevelopRecipe(); rec.threads = 2
            let plan = try DevelopPlan(metadata: tabled, width: raw.width, height: raw.height, samplesPerPixel: raw.samplesPerPixel, recipe: rec, opcodes: ParsedOpcodeLists(tabled))
            if plan.profileTables != nil {
                let (tm, _) = measure(runs: runs) { TileRenderer.render(raw, plan: plan).width }
                variantTimes.append(("render + HueSatMap 90x30x1 + LookTable 36x8x16", tm))
            }
        }
        let (thumb, _) = measure(runs: runs) { Thumbnailer.thumbnail(of: img, longSide: 320)?.width ?? 0 }
        let (icc, profile) = try measure(runs: runs) { try ICCProfileFactory.profile(for: .srgb) }
        img.iccProfile = profile

        // Floor part 2: libjpeg-turbo alone; then our JPEGWriter (EXIF, thumbnail, ICC segments).
        let (tj, jpegBytes) = try measure(runs: runs) { try Floor.jpeg(img.pixels8, width: img.width, height: img.height, quality: 90, s444: true) }
        var jo = JPEGOptions(); jo.dateTime = "2026:01:01 12:00:00"
        let (ours, _) = try measure(runs: runs) { try JPEGWriter.encode(img, options: jo) }

        let floor = unpack.median + tj.median
        report.floors[file] = floor
        report.floorsCPU[file] = unpack.cpuMedian + tj.cpuMedian
        add("stage", file, "floor: LibRaw open+unpack", unpack, megapixels: mp)
        add("stage", file, "floor: libjpeg-turbo q90 4:4:4", tj, megapixels: mp, note: "\(jpegBytes.count) bytes")
        add("stage", file, "read file into [UInt8] (readHeader)", read, megapixels: mp, floor: floor)
        addDecodeRows(decodes, file: file, megapixels: mp, floor: floor)
        add("stage", file, "DevelopPlan.init", planT)
        for t in [1, 2] { if let d = demosaic[t] { add("stage", file, "demosaic \(DemosaicAlgorithm.default.rawValue) (DemosaicTiler)", threads: t, d, megapixels: mp) } }
        for t in [1, 2] { if let d = render[t] { add("stage", file, "TileRenderer.render (all stages)", threads: t, d, megapixels: mp, floor: floor) } }
        for (name, tm) in variantTimes { add("stage", file, name, threads: 2, tm, megapixels: mp) }
        add("stage", file, "Thumbnailer 320 px", thumb)
        add("stage", file, "ICC profile (lcms2)", icc)
        add("stage", file, "JPEGWriter.encode q90", ours, megapixels: mp, floor: floor)
        let sum = decodes.decode.median + (render[2]?.median ?? 0) + ours.median
        let sumCPU = decodes.decode.cpuMedian + (render[2]?.cpuMedian ?? 0) + ours.cpuMedian
        add("stage", file, "sum decode+render(2T)+JPEGWriter", Timing(wall: [sum], cpu: [sumCPU]), floor: floor)
        return img
    }

    /// `RawDecoder.decode` of the lossless-JPEG scene: native (all cores, 1 and 2 threads) and the
    /// LibRaw path it replaces, with the pixels compared.
    mutating func losslessJPEGDecode(scene: BenchScene, path: String) throws {
        let file = scene.name, mp = scene.megapixels
        log("\(file): lossless JPEG decode")
        var viaLibRaw = DecodeOptions(); viaLibRaw.nativeLosslessJPEG = false
        let decodes = try measureDecodes(path: path, file: file, viaLibRaw: viaLibRaw)
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        addDecodeRows(decodes, file: file, megapixels: mp, note: String(format: "%.1f MB file", Double(bytes) / 1e6))
    }

    /// `RawDecoder.decode` timed as it runs by default, with 1 and 2 threads (pixels compared
    /// for identity) and through `viaLibRaw`.
    struct DecodeTimings {
        var decode: Timing, raw: RawImage
        var threads: [Int: Timing]
        var libRaw: Timing, libRawMatches: Bool
    }

    mutating func measureDecodes(path: String, file: String, viaLibRaw: DecodeOptions) throws -> DecodeTimings {
        let (decode, raw) = try measure(runs: runs) { try RawDecoder.decode(path: path) }
        var threads: [Int: Timing] = [:], pixels: [Int: [UInt16]] = [:]
        for t in [1, 2] {
            let (tm, r) = try measure(runs: runs) { try RawDecoder.decode(path: path, options: DecodeOptions(threads: t)) }
            threads[t] = tm; pixels[t] = r.pixels
        }
        report.identical["\(file) RawDecoder.decode pixels"] = pixels[1] == pixels[2]
        let (libRaw, rawLibRaw) = try measure(runs: runs) { try RawDecoder.decode(path: path, options: viaLibRaw) }
        return DecodeTimings(decode: decode, raw: raw, threads: threads, libRaw: libRaw,
                             libRawMatches: rawLibRaw.pixels == raw.pixels && rawLibRaw.metadata == raw.metadata)
    }

    /// The stage rows for `measureDecodes`: default, 1 and 2 threads, LibRaw path.
    mutating func addDecodeRows(_ d: DecodeTimings, file: String, megapixels mp: Double, floor: Double? = nil, note: String? = nil) {
        add("stage", file, "RawDecoder.decode", d.decode, megapixels: mp, floor: floor, note: note)
        for t in [1, 2] { if let tm = d.threads[t] { add("stage", file, "RawDecoder.decode", threads: t, tm, megapixels: mp, floor: floor) } }
        add("stage", file, "RawDecoder.decode (LibRaw path)", d.libRaw, megapixels: mp, floor: floor,
            note: d.libRawMatches ? "same pixels and metadata" : "DIFFERS from native")
    }

    /// The mosaic as the scheduler sees it before demosaicing: black-subtracted, normalised,
    /// white-balanced, clipped at 1 (per-site black, no opcodes).
    func linearised(_ raw: RawImage, plan: DevelopPlan) -> [Float] {
        var out = [Float](repeating: 0, count: raw.width * raw.height)
        guard let cfa = plan.cfa else { return out }
        let g = plan.whiteBalanceGains
        let white = plan.whiteLevels[0]
        for y in 0..<raw.height {
            for x in 0..<raw.width {
                let bi = (y % plan.blackRepeatRows) * plan.blackRepeatColumns + x % plan.blackRepeatColumns
                let b = plan.blackLevels[bi]
                let c = Int(cfa.color(x: x, y: y).rawValue)
                let v = (Float(raw.pixels[y * raw.width + x]) - b) / (white - b) * g[c]
                out[y * raw.width + x] = min(v, 1)
            }
        }
        return out
    }

    // MARK: - Whole file

    mutating func wholeFile(scene: BenchScene, path: String, heif: Bool) throws {
        let file = scene.name
        log("\(file): whole file (darkroom develop)")
        let floor = report.floors[file]
        var formats: [(String, [String])] = [("jpeg q90", [])]
        if heif { formats.append(("heif (current HEIFWriter defaults)", ["--format", "heif"])) }
        for (label, extra) in formats {
            var outputs: [Int: String] = [:]
            var one: Timing?
            for t in [1, 2] {
                let outDir = "\(dir)/out-\(t)t"
                let args = [darkroom, "develop", path, "-o", outDir, "--overwrite", "-q", "--threads", "\(t)"] + extra
                let n = label.hasPrefix("heif") ? 1 : runs
                let tm = try Subprocess.time(args, runs: n)
                let ext = label.hasPrefix("heif") ? "heic" : "jpg"
                outputs[t] = "\(outDir)/\(file).\(ext)"
                var note: String?
                if t == 2, let o = one { note = "speedup ×\(f2(o.median / tm.median)) vs 1 thread" }
                if label.hasPrefix("heif") { note = (note.map { $0 + "; " } ?? "") + "x265 threads not limited by --threads" }
                add("whole", file, "develop → \(label)", threads: t, tm, megapixels: scene.megapixels, floor: floor, note: note)
                if t == 1 { one = tm }
            }
            if let a = outputs[1], let b = outputs[2] {
                let da = FileManager.default.contents(atPath: a), db = FileManager.default.contents(atPath: b)
                report.identical["\(file) \(label) file"] = da != nil && da == db
            }
        }
    }

    // MARK: - Peers

    mutating func peers(scene: BenchScene, path: String) {
        let file = scene.name
        log("\(file): peers")
        let floor = report.floors[file]
        let outDir = "\(dir)/peers"
        try? FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)
        let ours = report.rows.first { $0.section == "whole" && $0.file == file && $0.name == "develop → jpeg q90" && $0.threads == 2 }
        func note(_ t: Timing) -> String? {
            ours.map { "Darkroom (2T) is ×\(f2(t.median / $0.medianSeconds)) faster" }
        }
        if Subprocess.which("dcraw_emu") != nil, Subprocess.which("cjpeg") != nil {
            do {
                let cmd = ["dcraw_emu", "-w", "-q", "3", "-Z", "-", "'\(path)'", "|", "cjpeg", "-quality", "90", ">", "'\(outDir)/dcraw.jpg'"]
                let t = try Subprocess.time(cmd, shell: true, runs: runs)
                add("peer", file, "dcraw_emu -w -q 3 (AHD) | cjpeg -quality 90", t, megapixels: scene.megapixels, floor: floor, note: note(t))
            } catch { report.skipped.append("dcraw_emu: \(error)") }
        } else { report.skipped.append("dcraw_emu/cjpeg not installed (apt-get install libraw-bin libjpeg-turbo-progs)") }
        if Subprocess.which("darktable-cli") != nil {
            do {
                let conf = "\(dir)/darktable-conf"
                let cmd = ["darktable-cli", path, "\(outDir)/dt.jpg", "--core", "--configdir", conf,
                           "--conf", "plugins/imageio/format/jpeg/quality=90"]
                let cleanup = { try? FileManager.default.removeItem(atPath: "\(outDir)/dt.jpg") }
                cleanup()
                _ = try Subprocess.run(cmd)   // warm-up: creates the config and library
                var t = Timing(wall: [], cpu: [])
                for _ in 0..<runs {
                    cleanup()
                    let r = try Subprocess.run(cmd)
                    guard r.status == 0 else { throw BenchFailure("exit \(r.status): \(r.stderr.suffix(300))") }
                    t.wall.append(r.wall); t.cpu.append(r.cpu); t.peakMB = max(t.peakMB, r.peakMB)
                }
                add("peer", file, "darktable-cli (JPEG q90)", t, megapixels: scene.megapixels, floor: floor, note: note(t))
            } catch { report.skipped.append("darktable-cli: \(error)") }
        } else { report.skipped.append("darktable-cli not installed (apt-get install darktable)") }
        if Subprocess.which("rawtherapee-cli") != nil {
            do {
                let cmd = ["rawtherapee-cli", "-q", "-Y", "-o", "\(outDir)/rt.jpg", "-j90", "-js3", "-d", "-c", path]
                let t = try Subprocess.time(cmd, runs: runs, warmup: 1)
                add("peer", file, "rawtherapee-cli -j90 -js3 (default profile)", t, megapixels: scene.megapixels, floor: floor, note: note(t))
            } catch { report.skipped.append("rawtherapee-cli: \(error)") }
        } else { report.skipped.append("rawtherapee-cli not installed (apt-get install rawtherapee)") }
    }
}

extension Bench {
    /// `md` with a synthetic Adobe-Standard-sized HueSatMap (90×30×1, linear) and LookTable
    /// (36×8×16, sRGB-encoded value axis); nil when it has no camera profile.
    static func withProfileTables(_ md: RawMetadata) -> RawMetadata? {
        guard var profile = md.profile else { return nil }
        func table(_ h: Int, _ s: Int, _ v: Int) -> [Float] {
            var d: [Float] = []
            for vi in 0..<v { for hi in 0..<h { for si in 0..<s {
                let hue = Float(hi) / Float(h) * 2 * .pi
                d += [3 * sinf(hue + Float(vi) * 0.1), 1 + 0.05 * cosf(hue) * Float(si) / Float(max(s - 1, 1)), 1 - 0.02 * Float(vi) / Float(max(v, 1))]
            } } }
            return d
        }
        profile.hueSatMapDims = [90, 30, 1]
        profile.hueSatMapData1 = table(90, 30, 1)
        profile.hueSatMapData2 = nil
        profile.hueSatMapEncoding = 0
        profile.lookTableDims = [36, 8, 16]
        profile.lookTableData = table(36, 8, 16)
        profile.lookTableEncoding = 1
        var out = md
        out.profile = profile
        return out
    }
}
