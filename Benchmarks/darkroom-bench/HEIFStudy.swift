import DarkroomCore
import DarkroomIO
import Foundation

extension Bench {
    /// 12 MP rendered pixels → HEIF: libheif's defaults vs our HEIFWriter vs x265 presets and
    /// thread settings, each with size and PSNR against the pixels, next to JPEG q90.
    mutating func heifStudy(_ img: RenderedImage) throws {
        log("HEIF study (\(img.width)x\(img.height))")
        let px = img.pixels8, w = img.width, h = img.height
        let pixels = Double(w * h)
        func trial(_ name: String, decodeJPEG: Bool = false, _ encode: () throws -> [UInt8]) throws -> HEIFTrial {
            let (t, bytes) = try measure(runs: 1, encode)
            let back = decodeJPEG ? try Floor.decodeJPEG(bytes).rgb : try HEIFStudyCodec.decode(bytes).rgb
            let tr = HEIFTrial(setting: name, seconds: t.best, cpuSeconds: t.cpuMedian, bytes: bytes.count, psnr: psnr(px, back),
                               bitsPerPixel: Double(bytes.count * 8) / pixels)
            log(String(format: "  %-60@ %.3f s  cpu %.2f s  %d B  %.2f dB", name as NSString, tr.seconds, tr.cpuSeconds, tr.bytes, tr.psnr))
            report.heif.append(tr)
            return tr
        }
        let jpeg = try trial("JPEG q90 4:4:4 (libjpeg-turbo)", decodeJPEG: true) {
            try Floor.jpeg(px, width: w, height: h, quality: 90, s444: true)
        }
        _ = try trial("JPEG q90 4:2:0 (libjpeg-turbo)", decodeJPEG: true) {
            try Floor.jpeg(px, width: w, height: h, quality: 90, s444: false)
        }
        let preset = HEIFStudyCodec.defaultParameter("preset"), quality = HEIFStudyCodec.defaultParameter("quality")
        let tune = HEIFStudyCodec.defaultParameter("tune")
        let def = try trial("libheif defaults (preset \(preset), quality \(quality), tune \(tune), 4:2:0)") {
            try HEIFStudyCodec.encode(px, width: w, height: h, quality: nil, parameters: [])
        }
        var cur = HEIFOptions(); cur.dateTime = "2026:01:01 12:00:00"
        let image = img
        _ = try trial("HEIFWriter as is (q\(cur.quality), \(cur.chroma.rawValue), x265 threads auto)") {
            try HEIFWriter.encode(image, options: cur)
        }
        var candidates: [HEIFTrial] = []
        // Preset alone (libheif then forces rect=1, amp=1, rskip=0, limit-modes=0, limit-refs=0,
        // aq-mode=1, psy-rd=1, psy-rdoq=1 on top of every preset, which is why presets differ little).
        let presets = options.quick ? ["ultrafast"] : ["ultrafast", "superfast", "medium"]
        for p in presets {
            candidates.append(try trial("preset \(p), q\(cur.quality), 4:2:0") {
                try HEIFStudyCodec.encode(px, width: w, height: h, quality: cur.quality, parameters: [("preset", p)])
            })
        }
        // rect/amp/limit-modes (forced on by libheif) only matter for inter prediction: no effect on a still.
        candidates.append(try trial("preset ultrafast + x265:rect=0 amp=0 rskip=1 limit-modes=1, q65, 4:2:0") {
            try HEIFStudyCodec.encode(px, width: w, height: h, quality: 65, parameters: [
                ("preset", "ultrafast"), ("x265:rect", "0"), ("x265:amp", "0"), ("x265:rskip", "1"), ("x265:limit-modes", "1")])
        })
        // Intra-relevant speed settings: libheif's tu-intra-depth default 2 → 1 (ultrafast's own),
        // AQ and psy-rd/psy-rdoq (forced on by libheif) off.
        let fastParams: [(String, String)] = [("preset", "ultrafast"), ("tu-intra-depth", "1"), ("x265:aq-mode", "0"),
                                              ("x265:psy-rd", "0"), ("x265:psy-rdoq", "0")]
        let fastName = "ultrafast + tu-intra-depth=1 aq-mode=0 psy-rd=0 psy-rdoq=0"
        let grid: [(Int, String)] = [(50, "444")]
        for (q, c) in grid {
            candidates.append(try trial("\(fastName), q\(q), \(c == "444" ? "4:4:4" : "4:2:0")") {
                try HEIFStudyCodec.encode(px, width: w, height: h, quality: q, parameters: fastParams + [("chroma", c)])
            })
        }
        for q in options.quick ? [50] : [45, 50, 55, 60] {
            candidates.append(try trial("preset ultrafast, q\(q), 4:4:4") {
                try HEIFStudyCodec.encode(px, width: w, height: h, quality: q, parameters: [("preset", "ultrafast"), ("chroma", "444")])
            })
        }
        // Threads: x265 thread pool of 1 vs 2.
        for pools in ["1", "2"] {
            candidates.append(try trial("preset ultrafast, q50, 4:4:4, x265:pools=\(pools)") {
                try HEIFStudyCodec.encode(px, width: w, height: h, quality: 50, parameters: [("preset", "ultrafast"), ("chroma", "444"), ("x265:pools", pools)])
            })
        }
        // Recommendation, by CPU time (robust when the machine is shared): at most a quarter of the
        // defaults' CPU time, PSNR ≥ JPEG q90 − 0.5 dB and not larger than the JPEG: the smallest file;
        // else the best PSNR within the time limit.
        let limitCPU = def.cpuSeconds / 4
        let inTime = candidates.filter { $0.cpuSeconds <= limitCPU }
        let good = inTime.filter { $0.psnr >= jpeg.psnr - 0.5 && $0.bytes <= jpeg.bytes }
        let pick = good.min { ($0.bytes, $0.seconds) < ($1.bytes, $1.seconds) } ?? inTime.max { $0.psnr < $1.psnr }
        if let pick {
            report.heifRecommendation = "\(pick.setting): \(f3(pick.seconds)) s (CPU \(f2(pick.cpuSeconds)) s) (libheif defaults \(f3(def.seconds)) s, CPU \(f2(def.cpuSeconds)) s: ×\(f2(def.seconds / pick.seconds)) wall, ×\(f2(def.cpuSeconds / pick.cpuSeconds)) CPU), \(pick.bytes) B (JPEG q90 \(jpeg.bytes) B), PSNR \(f2(pick.psnr)) dB (JPEG q90 \(f2(jpeg.psnr)) dB, libheif defaults \(f2(def.psnr)) dB)"
        } else {
            report.heifRecommendation = "no setting reached a quarter of libheif's default CPU time (\(f2(def.cpuSeconds)) s)"
        }
    }

    mutating func checks() {
        let big = Self.scenes[0].name, small = Self.scenes[1].name
        func whole(_ file: String, _ label: String, _ t: Int) -> Row? {
            report.rows.first { $0.section == "whole" && $0.file == file && $0.name == "develop → \(label)" && $0.threads == t }
        }
        func peer(_ prefix: String) -> Row? { report.rows.first { $0.section == "peer" && $0.name.hasPrefix(prefix) } }
        if let ours = whole(big, "jpeg q90", 2) {
            if let p = peer("dcraw_emu") {
                let r = p.medianSeconds / ours.medianSeconds
                report.checks.append(Check(criterion: "24 MP JPEG ≥ 3× faster than dcraw_emu | cjpeg", measured: "\(f3(ours.medianSeconds)) s vs \(f3(p.medianSeconds)) s = ×\(f2(r))", pass: r >= 3))
            }
            if let p = peer("darktable") {
                let r = p.medianSeconds / ours.medianSeconds
                report.checks.append(Check(criterion: "24 MP JPEG ≥ 10× faster than darktable-cli", measured: "\(f3(ours.medianSeconds)) s vs \(f3(p.medianSeconds)) s = ×\(f2(r))", pass: r >= 10))
            }
            if let p = peer("rawtherapee") {
                let r = p.medianSeconds / ours.medianSeconds
                report.checks.append(Check(criterion: "24 MP JPEG faster than rawtherapee-cli", measured: "×\(f2(r))", pass: r >= 1))
            }
            if let fl = report.floors[big] {
                let r = ours.medianSeconds / fl
                report.checks.append(Check(criterion: "24 MP JPEG within 2× of the floor", measured: "\(f3(ours.medianSeconds)) s / \(f3(fl)) s = ×\(f2(r))", pass: r <= 2))
            }
            if let pk = ours.peakMB {
                report.checks.append(Check(criterion: "24 MP JPEG peak memory < 350 MB", measured: "\(Int(pk.rounded())) MB (2 threads)", pass: pk < 350))
            }
        }
        if let d = report.heif.first(where: { $0.setting.hasPrefix("libheif defaults") }),
           let cur = report.heif.first(where: { $0.setting.hasPrefix("HEIFWriter as is") }) {
            report.checks.append(Check(criterion: "12 MP HEIF encode ≤ ¼ of libheif defaults (HEIFWriter as is)", measured: "\(f3(cur.seconds)) s vs \(f3(d.seconds)) s = ×\(f2(d.seconds / cur.seconds))", pass: cur.seconds * 4 <= d.seconds))
        }
        if let d = report.heif.first(where: { $0.setting.hasPrefix("libheif defaults") }),
           let rec = report.heifRecommendation, let t = report.heif.first(where: { rec.hasPrefix($0.setting + ":") }) {
            report.checks.append(Check(criterion: "12 MP HEIF encode ≤ ¼ of libheif defaults (recommended setting: \(t.setting))",
                                       measured: "wall \(f3(t.seconds)) s vs \(f3(d.seconds)) s (×\(f2(d.seconds / t.seconds))); CPU \(f2(t.cpuSeconds)) s vs \(f2(d.cpuSeconds)) s (×\(f2(d.cpuSeconds / t.cpuSeconds))); \(t.bytes) B, \(f2(t.psnr)) dB",
                                       pass: t.seconds * 4 <= d.seconds))
        }
        if let h = whole(small, "heif (current HEIFWriter defaults)", 2),
           let d = report.heif.first(where: { $0.setting.hasPrefix("libheif defaults") }) {
            report.checks.append(Check(criterion: "12 MP develop → HEIF, whole process (decode, render, thumbnail, encode, write) vs libheif defaults encode alone", measured: "\(f3(h.medianSeconds)) s vs \(f3(d.seconds)) s = ×\(f2(d.seconds / h.medianSeconds))", pass: nil))
        }
        for file in [big, small] {
            let r1 = report.rows.first { $0.section == "stage" && $0.file == file && $0.name.hasPrefix("TileRenderer.render") && $0.threads == 1 }
            let r2 = report.rows.first { $0.section == "stage" && $0.file == file && $0.name.hasPrefix("TileRenderer.render") && $0.threads == 2 }
            if let r1, let r2 {
                let s = r1.medianSeconds / r2.medianSeconds
                report.checks.append(Check(criterion: "\(file): develop stages (TileRenderer.render) 2T ≥ 1.7× 1T", measured: "×\(f2(s))", pass: s >= 1.7))
            }
            let d1 = report.rows.first { $0.section == "stage" && $0.file == file && $0.name.hasPrefix("demosaic") && $0.threads == 1 }
            let d2 = report.rows.first { $0.section == "stage" && $0.file == file && $0.name.hasPrefix("demosaic") && $0.threads == 2 }
            if let d1, let d2 {
                let s = d1.medianSeconds / d2.medianSeconds
                report.checks.append(Check(criterion: "\(file): demosaic alone (DemosaicTiler into three full float planes, memory-bound) 2T vs 1T", measured: "×\(f2(s))", pass: nil))
            }
            if let a = whole(file, "jpeg q90", 1), let b = whole(file, "jpeg q90", 2) {
                let s = a.medianSeconds / b.medianSeconds
                report.checks.append(Check(criterion: "\(file): whole JPEG develop process 2T vs 1T (includes start-up, hashing, writing)", measured: "×\(f2(s))", pass: nil))
            }
        }
        let allSame = !report.identical.isEmpty && report.identical.values.allSatisfy { $0 }
        report.checks.append(Check(criterion: "outputs byte-identical between 1 and 2 threads", measured: report.identical.map { "\($0.key): \($0.value)" }.sorted().joined(separator: "; "), pass: allSame))
    }
}
