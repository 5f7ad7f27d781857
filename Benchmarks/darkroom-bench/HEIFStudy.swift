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
        let tune = HEIFStudyCodec.defaultParameter("tune"), chroma = HEIFStudyCodec.defaultParameter("chroma")
        let def = try trial("libheif defaults (preset \(preset), quality \(quality), tune \(tune), chroma \(chroma))") {
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
        let presets = options.quick ? ["ultrafast", "medium"] : ["ultrafast", "superfast", "veryfast", "faster", "medium"]
        for p in presets {
            candidates.append(try trial("preset \(p), q\(cur.quality), 4:2:0") {
                try HEIFStudyCodec.encode(px, width: w, height: h, quality: cur.quality, parameters: [("preset", p)])
            })
        }
        // ultrafast with the preset's own speed settings restored ("x265:" parameters are applied
        // after libheif's overrides).
        let fastParams: [(String, String)] = [("preset", "ultrafast"), ("x265:rect", "0"), ("x265:amp", "0"),
                                              ("x265:rskip", "1"), ("x265:limit-modes", "1"), ("x265:psy-rdoq", "0")]
        let fastName = "ultrafast + rect=0 amp=0 rskip=1 limit-modes=1 psy-rdoq=0"
        let grid: [(Int, String)] = options.quick ? [(65, "420"), (70, "444")] : [(65, "420"), (75, "420"), (60, "444"), (65, "444"), (70, "444")]
        for (q, c) in grid {
            candidates.append(try trial("\(fastName), q\(q), \(c == "444" ? "4:4:4" : "4:2:0")") {
                try HEIFStudyCodec.encode(px, width: w, height: h, quality: q, parameters: fastParams + [("chroma", c)])
            })
        }
        candidates.append(try trial("preset ultrafast, q65, 4:4:4") {
            try HEIFStudyCodec.encode(px, width: w, height: h, quality: 65, parameters: [("preset", "ultrafast"), ("chroma", "444")])
        })
        // Threads: x265 thread pool of 1 vs 2 on the fast setting.
        for pools in ["1", "2"] {
            candidates.append(try trial("\(fastName), q65, 4:4:4, x265:pools=\(pools)") {
                try HEIFStudyCodec.encode(px, width: w, height: h, quality: 65, parameters: fastParams + [("chroma", "444"), ("x265:pools", pools)])
            })
        }
        let limit = def.seconds / 4
        // Recommendation: within a quarter of the default's time, PSNR ≥ JPEG − 0.5 dB and not larger than
        // the JPEG: the fastest; else the best PSNR within the time limit.
        let inTime = candidates.filter { $0.seconds <= limit }
        let good = inTime.filter { $0.psnr >= jpeg.psnr - 0.5 && $0.bytes <= jpeg.bytes }
        let pick = good.min { $0.seconds < $1.seconds } ?? inTime.max { $0.psnr < $1.psnr }
        if let pick {
            report.heifRecommendation = "\(pick.setting): \(f3(pick.seconds)) s (CPU \(f2(pick.cpuSeconds)) s) (×\(f2(def.seconds / pick.seconds)) faster than libheif defaults \(f3(def.seconds)) s), \(pick.bytes) B (JPEG q90 \(jpeg.bytes) B), PSNR \(f2(pick.psnr)) dB (JPEG q90 \(f2(jpeg.psnr)) dB, libheif defaults \(f2(def.psnr)) dB)"
        } else {
            report.heifRecommendation = "no setting reached a quarter of libheif's default time (\(f3(def.seconds)) s)"
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
        if let h = whole(small, "heif (current HEIFWriter defaults)", 2),
           let d = report.heif.first(where: { $0.setting.hasPrefix("libheif defaults") }) {
            report.checks.append(Check(criterion: "12 MP develop → HEIF (whole file) ≤ ¼ of libheif defaults encode", measured: "\(f3(h.medianSeconds)) s vs \(f3(d.seconds)) s", pass: h.medianSeconds * 4 <= d.seconds))
        }
        for file in [big, small] {
            let r1 = report.rows.first { $0.section == "stage" && $0.file == file && $0.name.hasPrefix("Developer.render") && $0.threads == 1 }
            let r2 = report.rows.first { $0.section == "stage" && $0.file == file && $0.name.hasPrefix("Developer.render") && $0.threads == 2 }
            if let r1, let r2 {
                let s = r1.medianSeconds / r2.medianSeconds
                report.checks.append(Check(criterion: "\(file): render 2T ≥ 1.7× 1T", measured: "×\(f2(s))", pass: s >= 1.7))
            }
            let d1 = report.rows.first { $0.section == "stage" && $0.file == file && $0.name.hasPrefix("demosaic") && $0.threads == 1 }
            let d2 = report.rows.first { $0.section == "stage" && $0.file == file && $0.name.hasPrefix("demosaic") && $0.threads == 2 }
            if let d1, let d2 {
                let s = d1.medianSeconds / d2.medianSeconds
                report.checks.append(Check(criterion: "\(file): demosaic 2T ≥ 1.7× 1T", measured: "×\(f2(s))", pass: s >= 1.7))
            }
            if let a = whole(file, "jpeg q90", 1), let b = whole(file, "jpeg q90", 2) {
                let s = a.medianSeconds / b.medianSeconds
                report.checks.append(Check(criterion: "\(file): whole JPEG develop 2T vs 1T", measured: "×\(f2(s))", pass: s >= 1.7))
            }
        }
        let allSame = !report.identical.isEmpty && report.identical.values.allSatisfy { $0 }
        report.checks.append(Check(criterion: "outputs byte-identical between 1 and 2 threads", measured: report.identical.map { "\($0.key): \($0.value)" }.sorted().joined(separator: "; "), pass: allSame))
    }
}
